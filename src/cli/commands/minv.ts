/**
 * `sparsedyn minv --model SPEC (--state FILE | --random-state SEED) [--method carpentier|carpentier-world|lu|cholesky] [--json]`:
 * the inverse joint-space inertia M⁻¹(q) by Carpentier's analytical algorithm (Carpentier (2018),
 * Algorithm 1; src/algorithms/minv-carpentier.ts; body coordinates as in the paper, or world
 * coordinates as in Pinocchio), by one factorization of Nori's forward-dynamics
 * system with one right-hand side per DoF (src/assembly/minv-lu.ts), or by CRBA + dense Cholesky
 * (src/algorithms/minv.ts), with the flops counted by the kernels.
 *
 * State file: JSON {"q": [...], "v": [...]} in the model's joint order (velocity order of
 * `model.movingJoints()`; a floating base first, q = [x y z, quaternion x y z w], v = [v_lin, ω]
 * in the base frame); "v" is optional (zero when absent) and M⁻¹ does not use it.
 */
import { randomConfiguration } from '../../model/random.ts';
import { readFileSync } from 'node:fs';
import { Option, type Command } from 'commander';
import { minvCholesky, MinvCholeskyWorkspace } from '../../algorithms/minv.ts';
import { minvCarpentier, MinvCarpentierWorkspace } from '../../algorithms/minv-carpentier.ts';
import { checkConfiguration, checkVector } from '../../algorithms/validate.ts';
import { MinvLu } from '../../assembly/minv-lu.ts';
import type { Model } from '../../model/model.ts';
import { Rng } from '../../model/rng.ts';
import { MODEL_SPEC_HELP } from '../../model/spec.ts';
import { parseModelSpec } from '../../node/spec.ts';
import { Flops } from '../../spatial/flops.ts';
import { jsonWithWarnings, printData, reportModelWarnings } from '../output.ts';
import type { CliState } from '../state.ts';
import { parseJsonText } from '../../text/json-text.ts';

export const STATE_HELP = `state FILE: JSON {"q": [...], "v": [...]} in the model's joint order (a floating base first:
q = [x, y, z, qx, qy, qz, qw], v = [v_lin, ω] in the base frame); "v" may be omitted (zero).
--random-state SEED draws q (angles in [−π, π), unit quaternions, base position in [−1, 1)) and v in [−1, 1).`;

/** A state from --state FILE or --random-state SEED (exactly one of them); errors name the file and field. */
export function loadState(model: Model, opts: { state?: string; randomState?: string }): { q: Float64Array; v: Float64Array; source: string } {
  if ((opts.state === undefined) === (opts.randomState === undefined)) {
    throw new Error('give exactly one of --state FILE and --random-state SEED');
  }
  if (opts.randomState !== undefined) {
    const seed = Number(opts.randomState);
    if (!/^[+-]?\d+$/.test(opts.randomState)) throw new Error(`--random-state must be an integer seed, got "${opts.randomState}"`);
    return { ...randomState(model, seed), source: `random state, seed ${seed}` };
  }
  const file = opts.state!;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new Error(`cannot read state file ${file}: ${(e as Error).message}`);
  }
  const d = parseJsonText(text, file);
  if (typeof d !== 'object' || d === null || Array.isArray(d)) throw new Error(`state file ${file}: expected an object {"q": [...], "v": [...]}`);
  const o = d as { q?: unknown; v?: unknown };
  const vec = (name: 'q' | 'v', n: number, what: string): Float64Array => {
    const x = o[name];
    if (!Array.isArray(x) || !x.every((e) => typeof e === 'number')) throw new Error(`state file ${file}: "${name}" must be an array of numbers`);
    if (x.length !== n) throw new Error(`state file ${file}: "${name}" has ${x.length} entries, expected ${what} = ${n} (joint order: ${model.movingJoints().map((j) => j.name).join(', ')})`);
    return Float64Array.from(x);
  };
  const q = vec('q', model.nq, 'model.nq');
  const v = o.v === undefined ? new Float64Array(model.nv) : vec('v', model.nv, 'model.nv');
  try {
    checkConfiguration(model, q);
    checkVector(model, 'v', v, false);
  } catch (e) {
    throw new Error(`state file ${file}: ${(e as Error).message}`);
  }
  return { q, v, source: file };
}

/** A seeded random state on the configuration manifold (unit quaternions). */
export function randomState(model: Model, seed: number): { q: Float64Array; v: Float64Array } {
  const rng = new Rng(seed);
  const q = randomConfiguration(model, rng);
  return { q, v: rng.array(model.nv, -1, 1) };
}

/** One name per DoF in velocity order: the joint name, with [k] for multi-DoF joints. */
export function dofNames(model: Model): string[] {
  const out: string[] = [];
  for (const j of model.movingJoints()) for (let k = 0; k < j.nv; k++) out.push(j.nv === 1 ? j.name : `${j.name}[${k}]`);
  return out;
}

/** A dense row-major matrix as text, rows and columns labelled. */
export function formatMatrix(A: ArrayLike<number>, rows: readonly string[], cols: readonly string[], digits = 6): string {
  const w = Math.max(...rows.map((s) => s.length));
  const cw = digits + 8;
  const lines = [`${''.padEnd(w)}  ${cols.map((c) => (c.length > cw - 1 ? c.slice(0, cw - 2) + '…' : c).padStart(cw)).join('')}`];
  rows.forEach((r, i) => {
    let s = `${r.padEnd(w)}  `;
    for (let j = 0; j < cols.length; j++) s += A[i * cols.length + j].toExponential(digits - 1).padStart(cw);
    lines.push(s);
  });
  return lines.join('\n') + '\n';
}

export function flopsLine(label: string, f: Flops): string {
  const n = (x: number) => x.toLocaleString('en-US');
  return `${label}: ${n(f.total)} (mul ${n(f.mul)}, add ${n(f.add)}, div ${n(f.div)}; sqrt/sin/cos ${n(f.fn)})`;
}

export type MinvMethod = 'carpentier' | 'carpentier-world' | 'lu' | 'cholesky';

/** M⁻¹(q) by one method, with its flops (total and, for the LU, by part). */
export function computeMinv(model: Model, q: Float64Array, method: MinvMethod): { Minv: Float64Array; flops: Flops; parts: Record<string, Flops> } {
  switch (method) {
    case 'carpentier':
    case 'carpentier-world': {
      const ws = new MinvCarpentierWorkspace(model, { frame: method === 'carpentier' ? 'local' : 'world' });
      const Minv = minvCarpentier(model, ws, q);
      return { Minv, flops: ws.flops, parts: {} };
    }
    case 'cholesky': {
      const ws = new MinvCholeskyWorkspace(model);
      const Minv = minvCholesky(model, ws, q);
      return { Minv, flops: new Flops().accumulate(ws.crba.flops).accumulate(ws.flops), parts: { crba: ws.crba.flops, cholesky_inverse: ws.flops } };
    }
    case 'lu': {
      const lu = new MinvLu(model);
      const Minv = lu.compute(q);
      return { Minv, flops: lu.totalFlops(), parts: { kinematics: lu.flops.kinematics, fill: lu.flops.fill, factor: lu.flops.factor, solve: lu.flops.solve } };
    }
  }
}

interface MinvOptions {
  model: string;
  state?: string;
  randomState?: string;
  method: MinvMethod;
  json?: boolean;
}

export function register(program: Command, state: CliState): void {
  program
    .command('minv')
    .description('the inverse joint-space inertia M⁻¹(q): Carpentier\'s algorithm, the sparse LU (one solve per DoF), or CRBA + Cholesky; with flops')
    .requiredOption('-m, --model <spec>', 'model SPEC (see below)')
    .option('-s, --state <file>', 'state JSON {"q": [...], "v": [...]} (see below)')
    .option('--random-state <seed>', 'a seeded random state instead of --state')
    .addOption(new Option('--method <method>', 'algorithm').choices(['carpentier', 'carpentier-world', 'lu', 'cholesky']).default('carpentier'))
    .option('--json', 'print one JSON object: {model, nv, method, dofs, flops, parts, Minv, warnings}')
    .addHelpText('after', `\n${MODEL_SPEC_HELP}\n\n${STATE_HELP}`)
    .action((opts: MinvOptions) => {
      const model = parseModelSpec(opts.model);
      const warnings = reportModelWarnings(state, model);
      const { q, source } = loadState(model, opts);
      const { Minv, flops, parts } = computeMinv(model, q, opts.method);
      const nv = model.nv;
      const names = dofNames(model);
      if (opts.json) {
        const rows: number[][] = [];
        for (let r = 0; r < nv; r++) rows.push(Array.from(Minv.subarray(r * nv, (r + 1) * nv)));
        const p: Record<string, unknown> = {};
        for (const [k, f] of Object.entries(parts)) p[k] = f.toJSON();
        printData(jsonWithWarnings({ model: model.name, nb: model.nb, nv, method: opts.method, state: source, dofs: names, flops: flops.toJSON(), parts: p, Minv: rows }, warnings));
      } else {
        const out = [`minv: model "${model.name}" (${model.nb} bodies, nv = ${nv}), method ${opts.method}, ${source}`];
        out.push(flopsLine('flops', flops));
        for (const [k, f] of Object.entries(parts)) out.push(flopsLine(`  ${k}`, f));
        out.push('M⁻¹ (rows and columns in velocity order):');
        printData(out.join('\n') + '\n' + formatMatrix(Minv, names, names));
      }
      state.exitCode = 0;
    });
}
