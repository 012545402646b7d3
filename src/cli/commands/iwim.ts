/**
 * `sparsedyn iwim --model SPEC --inputs FILE (--state FILE | --random-state SEED) [--method unit-force|iim|lu] [--json]`:
 * the inertia-weighted input matrix B̂ = M⁻¹B of Krög et al. (2024) and the free acceleration q̈_0 = −M⁻¹h,
 * so that q̈ = q̈_0 + B̂ u, by the extended unit force method (m + 1 ABA runs), the Implicit Inversion
 * Method on ABA's quantities, or one factorization of Nori's forward-dynamics system with m + 1
 * right-hand sides; with the flops counted by the kernels.
 *
 * Inputs file: JSON {"actuated": [joint names] | "all", "contacts": [{"link": NAME, "offset": [x, y, z],
 * "type": "force" | "wrench", "frame": "world" | "local", "name": LABEL}], "frame": "world" | "local"}
 * (src/algorithms/iwim-inputs.ts: "all" = every joint with a DoF but a floating base; offsets in the
 * link frame; force columns [fx fy fz], wrench columns [fx fy fz tx ty tz], along the world axes
 * (default) or the link's axes).
 */
import { readFileSync } from 'node:fs';
import { Option, type Command } from 'commander';
import { InputMatrix, type InputSpec } from '../../algorithms/iwim-inputs.ts';
import { iwimIim, IwimIimWorkspace } from '../../algorithms/iwim-iim.ts';
import { iwimUnitForce, IwimUnitForceWorkspace } from '../../algorithms/iwim-unit-force.ts';
import { IwimLu } from '../../assembly/iwim-lu.ts';
import type { Model } from '../../model/model.ts';
import { MODEL_SPEC_HELP } from '../../model/spec.ts';
import { parseModelSpec } from '../../node/spec.ts';
import type { Flops } from '../../spatial/flops.ts';
import { jsonWithWarnings, printData, reportModelWarnings } from '../output.ts';
import type { CliState } from '../state.ts';
import { dofNames, flopsLine, formatMatrix, loadState, STATE_HELP } from './minv.ts';
import { parseJsonText } from '../../text/json-text.ts';

export const INPUTS_HELP = `inputs FILE: JSON {"actuated": ["joint", ...] | "all", "contacts": [{"link": "l_sole", "offset": [0.1, 0.05, 0],
"type": "force" | "wrench", "frame": "world" | "local"}], "frame": "world" | "local"}. "all" = every joint with a DoF
except a floating base. Contact columns: force [fx fy fz] or wrench [fx fy fz tx ty tz] at the point (offset in the
link frame), components along the world axes ("world", default) or the link's axes ("local").`;

/** Parse an inputs file into an InputSpec (shape only; InputMatrix checks names against the model). */
export function readInputs(file: string): InputSpec {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new Error(`cannot read inputs file ${file}: ${(e as Error).message}`);
  }
  const d = parseJsonText(text, file);
  if (typeof d !== 'object' || d === null || Array.isArray(d)) throw new Error(`inputs file ${file}: expected an object {"actuated": [...], "contacts": [...]}`);
  const o = d as Record<string, unknown>;
  for (const k of Object.keys(o)) {
    if (!['actuated', 'contacts', 'frame'].includes(k)) throw new Error(`inputs file ${file}: unknown field "${k}" (expected actuated, contacts, frame)`);
  }
  const act = o.actuated ?? [];
  if (act !== 'all' && !(Array.isArray(act) && act.every((x) => typeof x === 'string'))) {
    throw new Error(`inputs file ${file}: "actuated" must be "all" or a list of joint names`);
  }
  if (o.contacts !== undefined && !Array.isArray(o.contacts)) throw new Error(`inputs file ${file}: "contacts" must be a list`);
  return d as InputSpec;
}

export type IwimMethod = 'unit-force' | 'iim' | 'lu';

/** B̂ and q̈_0 by one method, with its flops (and, for the LU, by part). */
export function computeIwim(model: Model, B: InputMatrix, q: Float64Array, v: Float64Array, method: IwimMethod): { Bhat: Float64Array; qdd0: Float64Array; flops: Flops; parts: Record<string, Flops> } {
  switch (method) {
    case 'unit-force': {
      const ws = new IwimUnitForceWorkspace(model, B);
      return { Bhat: iwimUnitForce(model, ws, q, v), qdd0: ws.qdd0, flops: ws.flops, parts: {} };
    }
    case 'iim': {
      const ws = new IwimIimWorkspace(model, B);
      return { Bhat: iwimIim(model, ws, q, v), qdd0: ws.qdd0, flops: ws.flops, parts: {} };
    }
    case 'lu': {
      const lu = new IwimLu(model, B);
      const Bhat = lu.solve(q, v);
      const f = lu.flops;
      return { Bhat, qdd0: lu.qdd0, flops: lu.totalFlops(), parts: { kinematics: f.kinematics, fill: f.fill, factor: f.factor, solve: f.solve } };
    }
  }
}

interface IwimOptions {
  model: string;
  inputs: string;
  state?: string;
  randomState?: string;
  method: IwimMethod;
  json?: boolean;
}

export function register(program: Command, state: CliState): void {
  program
    .command('iwim')
    .description('the inertia-weighted input matrix B̂ = M⁻¹B (actuated joints, contact forces) and q̈_0 = −M⁻¹h: eUFM, IIM or sparse LU; with flops')
    .requiredOption('-m, --model <spec>', 'model SPEC (see below)')
    .requiredOption('-i, --inputs <file>', 'inputs JSON (see below)')
    .option('-s, --state <file>', 'state JSON {"q": [...], "v": [...]} (see below)')
    .option('--random-state <seed>', 'a seeded random state instead of --state')
    .addOption(new Option('--method <method>', 'algorithm').choices(['unit-force', 'iim', 'lu']).default('iim'))
    .option('--json', 'print one JSON object: {model, nv, m, method, dofs, inputs, flops, parts, qdd0, Bhat, warnings}')
    .addHelpText('after', `\n${MODEL_SPEC_HELP}\n\n${INPUTS_HELP}\n\n${STATE_HELP}`)
    .action((opts: IwimOptions) => {
      const model = parseModelSpec(opts.model);
      const warnings = reportModelWarnings(state, model);
      const spec = readInputs(opts.inputs);
      const B = new InputMatrix(model, spec);
      const { q, v, source } = loadState(model, opts);
      const { Bhat, qdd0, flops, parts } = computeIwim(model, B, q, v, opts.method);
      const nv = model.nv, m = B.m;
      const names = dofNames(model);
      if (opts.json) {
        const rows: number[][] = [];
        for (let r = 0; r < nv; r++) rows.push(Array.from(Bhat.subarray(r * m, (r + 1) * m)));
        const p: Record<string, unknown> = {};
        for (const [k, f] of Object.entries(parts)) p[k] = f.toJSON();
        printData(jsonWithWarnings({ model: model.name, nb: model.nb, nv, m, method: opts.method, state: source, dofs: names, inputs: B.names, flops: flops.toJSON(), parts: p, qdd0: Array.from(qdd0), Bhat: rows }, warnings));
      } else {
        const out = [`iwim: model "${model.name}" (${model.nb} bodies, nv = ${nv}), ${m} inputs (${B.nJoint} joint DoFs, ${m - B.nJoint} contact components), method ${opts.method}, ${source}`];
        out.push(flopsLine('flops', flops));
        for (const [k, f] of Object.entries(parts)) out.push(flopsLine(`  ${k}`, f));
        out.push('q̈_0 = −M⁻¹h (free acceleration):');
        out.push(formatMatrix(qdd0, names, ['q̈_0']).trimEnd());
        out.push('B̂ = M⁻¹B (rows: DoFs in velocity order; columns: inputs):');
        printData(out.join('\n') + '\n' + formatMatrix(Bhat, names, B.names));
      }
      state.exitCode = 0;
    });
}
