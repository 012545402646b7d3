/**
 * `sparsedyn derivatives --model SPEC (--state FILE | --random-state SEED) --problem id|fd
 *  [--method lu|lu-adjoint|recursive|fd] [--delta H] [--check] [--json]`: the derivatives of inverse dynamics
 * (∂τ/∂q, ∂τ/∂q̇, M = ∂τ/∂q̈) or of forward dynamics (∂q̈/∂q, ∂q̈/∂q̇, M⁻¹ = ∂q̈/∂τ) at one state, by
 * reuse of the sparse LU factors (src/derivatives/dynamics.ts; `lu`: 3·nv solves, `lu-adjoint`: nv
 * transposed solves and sparse products), by the recursive algorithms
 * (world-frame RNEA derivatives after Carpentier & Mansard 2018, src/derivatives/recursive.ts) or by geometric central differences
 * (src/derivatives/finite-differences.ts), with the flops counted by the kernels. q is perturbed on
 * its manifold: the columns of ∂/∂q are tangent directions in velocity order (a floating base's
 * first six: [δp; δθ] in the base frame, model/lie.ts).
 *
 * State file: JSON {"q": [...], "v": [...], "a": [...]} (problem id) or {"q", "v", "tau"} (problem
 * fd), in the model's joint order (minv.ts STATE_HELP); "v" may be omitted (zero).
 * `--check` also runs the other methods and exits 1 when the analytic methods differ by more
 * than 1e-10 or the central differences by more than 1e-7 (relative to the largest entry).
 */
import { readFileSync } from 'node:fs';
import { Option, type Command } from 'commander';
import { checkVector } from '../../algorithms/validate.ts';
import { LuForwardDynamicsDerivatives, LuInverseDynamicsDerivatives, type DynamicsDerivatives } from '../../derivatives/dynamics.ts';
import { FiniteDifferenceDerivatives, relativeErrors, type DynamicsProblem } from '../../derivatives/finite-differences.ts';
import { RecursiveForwardDynamicsDerivatives, RecursiveInverseDynamicsDerivatives } from '../../derivatives/recursive.ts';
import type { Model } from '../../model/model.ts';
import { Rng } from '../../model/rng.ts';
import { MODEL_SPEC_HELP } from '../../model/spec.ts';
import { parseModelSpec } from '../../node/spec.ts';
import { Flops } from '../../spatial/flops.ts';
import { jsonWithWarnings, printData, reportModelWarnings } from '../output.ts';
import type { CliState } from '../state.ts';
import { dofNames, flopsLine, formatMatrix, loadState } from './minv.ts';
import { parseJsonText } from '../../text/json-text.ts';

export type DerivativeMethod = 'lu' | 'lu-adjoint' | 'recursive' | 'fd';
const METHODS: readonly DerivativeMethod[] = ['lu', 'lu-adjoint', 'recursive', 'fd'];

export const DERIVATIVES_STATE_HELP = `state FILE: JSON {"q": [...], "v": [...], "a": [...]} for --problem id, {"q": [...], "v": [...], "tau": [...]}
for --problem fd, in the model's joint order (a floating base first: q = [x, y, z, qx, qy, qz, qw], v, a, tau =
[linear; angular] in the base frame); "v" may be omitted (zero).
--random-state SEED: q and v as "sparsedyn minv --random-state SEED", and q̈ (or τ) uniform in [−1, 1) from seed + 1.`;

/** The input of the problem (q̈ or τ) from the state file, or drawn for --random-state. */
function loadInput(model: Model, problem: DynamicsProblem, opts: { state?: string; randomState?: string }): Float64Array {
  const name = problem === 'id' ? 'a' : 'tau';
  if (opts.randomState !== undefined) return new Rng(Number(opts.randomState) + 1).array(model.nv, -1, 1);
  const file = opts.state!;
  const d = parseJsonText(readFileSync(file, 'utf8'), file) as Record<string, unknown>;
  const x = d[name];
  if (x === undefined) throw new Error(`state file ${file}: "${name}" is missing (--problem ${problem} needs ${problem === 'id' ? 'the accelerations q̈' : 'the generalized forces τ'})`);
  if (!Array.isArray(x) || !x.every((e) => typeof e === 'number')) throw new Error(`state file ${file}: "${name}" must be an array of numbers`);
  const u = Float64Array.from(x as number[]);
  try {
    checkVector(model, name, u, false);
  } catch (e) {
    throw new Error(`state file ${file}: ${(e as Error).message}`);
  }
  return u;
}

export interface DerivativeResult {
  result: DynamicsDerivatives;
  /** flops by part (value, derivatives, and M or M⁻¹ where computed apart) */
  flops: Record<string, Flops>;
}

/** The derivatives of one problem by one method. */
export function computeDerivatives(model: Model, problem: DynamicsProblem, method: DerivativeMethod, q: Float64Array, v: Float64Array, u: Float64Array, delta = 1e-6): DerivativeResult {
  switch (method) {
    case 'lu':
    case 'lu-adjoint': {
      const mode = method === 'lu' ? 'forward' : 'adjoint';
      const d = problem === 'id' ? new LuInverseDynamicsDerivatives(model, { mode }).compute(q, v, u) : new LuForwardDynamicsDerivatives(model, { mode }).compute(q, v, u);
      if (d.adjoint) {
        const a = d.adjoint.flops;
        return { result: d, flops: { value: d.flops.value, jacobians: a.jacobians, solves: a.solve, products: a.products } };
      }
      const s = d.sens!.flops;
      return { result: d, flops: { value: d.flops.value, jacobians: s.jacobians, solves: s.solve } };
    }
    case 'recursive': {
      if (problem === 'id') {
        const d = new RecursiveInverseDynamicsDerivatives(model).compute(q, v, u);
        return { result: d, flops: { value: d.flops.value, derivatives: d.flops.derivatives, M: d.flops.M } };
      }
      const d = new RecursiveForwardDynamicsDerivatives(model).compute(q, v, u);
      return { result: d, flops: { value: d.flops.value, derivatives: d.flops.derivatives, Minv: d.flops.Minv } };
    }
    case 'fd': {
      const d = new FiniteDifferenceDerivatives(model, problem, delta).compute(q, v, u);
      return { result: d, flops: { value: d.flops.value, derivatives: d.flops.derivatives } };
    }
  }
}

/** Names of the outputs of a problem. */
export function outputNames(problem: DynamicsProblem): { value: string; dq: string; dv: string; du: string } {
  return problem === 'id'
    ? { value: 'tau', dq: 'dtau_dq', dv: 'dtau_dv', du: 'M' }
    : { value: 'qdd', dq: 'dqdd_dq', dv: 'dqdd_dv', du: 'Minv' };
}

interface DerivativesOptions {
  model: string;
  state?: string;
  randomState?: string;
  problem: DynamicsProblem;
  method: DerivativeMethod;
  delta: string;
  check?: boolean;
  json?: boolean;
}

function rows(A: Float64Array, n: number): number[][] {
  const out: number[][] = [];
  for (let r = 0; r < n; r++) out.push(Array.from(A.subarray(r * n, (r + 1) * n)));
  return out;
}

export function register(program: Command, state: CliState): void {
  program
    .command('derivatives')
    .description('derivatives of inverse dynamics (∂τ/∂q, ∂τ/∂q̇, M) or forward dynamics (∂q̈/∂q, ∂q̈/∂q̇, M⁻¹) by LU factor reuse, the recursive algorithms or central differences; with flops')
    .requiredOption('-m, --model <spec>', 'model SPEC (see below)')
    .option('-s, --state <file>', 'state JSON {"q", "v", "a" | "tau"} (see below)')
    .option('--random-state <seed>', 'a seeded random state instead of --state')
    .addOption(new Option('--problem <problem>', 'id: inverse dynamics, fd: forward dynamics').choices(['id', 'fd']).makeOptionMandatory())
    .addOption(new Option('--method <method>', 'lu: factor reuse (3·nv solves), lu-adjoint: factor reuse (nv transposed solves), recursive: the RNEA derivatives of Carpentier and Mansard (2018), with the articulated-body M⁻¹ for forward dynamics, fd: central differences').choices([...METHODS]).default('lu'))
    .option('--delta <h>', 'step of the central differences (method fd and --check)', '1e-6')
    .option('--check', 'also run the other methods; exit 1 unless the analytic ones agree to 1e-10 and the differences to 1e-7')
    .option('--json', 'print one JSON object: {model, nv, problem, method, dofs, <value>, <dq>, <dv>, <du>, flops, check?, warnings}')
    .addHelpText('after', `\n${MODEL_SPEC_HELP}\n\n${DERIVATIVES_STATE_HELP}`)
    .action((opts: DerivativesOptions) => {
      const delta = Number(opts.delta);
      if (!(delta > 0 && Number.isFinite(delta))) throw new Error(`--delta must be a positive number, got "${opts.delta}"`);
      const model = parseModelSpec(opts.model);
      const warnings = reportModelWarnings(state, model);
      const { q, v, source } = loadState(model, opts);
      const u = loadInput(model, opts.problem, opts);
      const { result, flops } = computeDerivatives(model, opts.problem, opts.method, q, v, u, delta);
      const names = outputNames(opts.problem), nv = model.nv, dofs = dofNames(model);
      let pass = true;
      const check: Record<string, Record<string, number>> = {};
      if (opts.check) {
        for (const other of METHODS) {
          if (other === opts.method) continue;
          const o = computeDerivatives(model, opts.problem, other, q, v, u, delta).result;
          const tol = other === 'fd' || opts.method === 'fd' ? 1e-7 : 1e-10;
          const errs: Record<string, number> = {};
          for (const k of ['value', 'dq', 'dv', 'du'] as const) {
            errs[names[k]] = relativeErrors(o[k], result[k]).max;
            if (!(errs[names[k]] <= tol)) pass = false;
          }
          errs.tolerance = tol;
          check[other] = errs;
        }
      }
      if (opts.json) {
        const f: Record<string, unknown> = {};
        const total = new Flops();
        for (const [k, x] of Object.entries(flops)) { f[k] = x.toJSON(); total.accumulate(x); }
        f.total = total.toJSON();
        const out: Record<string, unknown> = {
          model: model.name, nb: model.nb, nv, problem: opts.problem, method: opts.method, state: source, dofs,
          [names.value]: Array.from(result.value), [names.dq]: rows(result.dq, nv), [names.dv]: rows(result.dv, nv), [names.du]: rows(result.du, nv),
          flops: f,
        };
        if (opts.method === 'fd') out.delta = delta;
        if (opts.check) out.check = { ...check, pass };
        printData(jsonWithWarnings(out, warnings));
      } else {
        const title = opts.problem === 'id' ? 'inverse dynamics τ = ID(q, q̇, q̈)' : 'forward dynamics q̈ = FD(q, q̇, τ)';
        const lines = [`derivatives of ${title}: model "${model.name}" (${model.nb} bodies, nv = ${nv}), method ${opts.method}${opts.method === 'fd' ? ` (δ = ${delta})` : ''}, ${source}`];
        for (const [k, x] of Object.entries(flops)) lines.push(flopsLine(`flops ${k}`, x));
        for (const [other, errs] of Object.entries(check)) {
          lines.push(`check against ${other}: ` + Object.entries(errs).filter(([k]) => k !== 'tolerance').map(([k, e]) => `${k} ${e.toExponential(2)}`).join(', ') + ` (tolerance ${errs.tolerance.toExponential(0)})`);
        }
        if (opts.check) lines.push(pass ? 'check: all methods agree' : 'check: FAILED');
        let text = lines.join('\n') + '\n';
        if (nv <= 12) {
          text += `${names.value}:\n` + formatMatrix(result.value, dofs, ['']);
          for (const k of ['dq', 'dv', 'du'] as const) text += `${names[k]} (rows: outputs, columns: ${k === 'dq' ? 'tangent directions δq' : k === 'dv' ? 'q̇' : opts.problem === 'id' ? 'q̈' : 'τ'}):\n` + formatMatrix(result[k], dofs, dofs);
        } else {
          for (const k of ['dq', 'dv', 'du'] as const) {
            let mx = 0;
            for (const x of result[k]) mx = Math.max(mx, Math.abs(x));
            text += `${names[k]}: ${nv}×${nv}, max |entry| ${mx.toExponential(3)}\n`;
          }
          text += 'nv > 12: the matrices are printed with --json\n';
        }
        printData(text);
      }
      state.exitCode = pass ? 0 : 1;
    });
}
