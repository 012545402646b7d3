/**
 * `verify`: run every case of a reference file through our algorithms and report, per quantity,
 * the largest error relative to the reference (max-norm over the case):
 *   err = ‖x − x_ref‖∞ / ‖x_ref‖∞   (absolute when x_ref = 0).
 * Tolerances: 1e-10 for rnea_tau, M, nle, gravity_torque; 1e-10 + 1e-14·cond₂(M_ref)
 * for the quantities that need a solve with M (aba_ddq, Minv, and the later forward-dynamics
 * paths), since no implementation can do better than the conditioning allows.
 */
import { EigenvalueDecomposition, Matrix } from 'ml-matrix';
import type { Model } from '../model/model.ts';
import { configurationFromReference, fromReference, referenceLayout, type ReferenceCase, type ReferenceFile, type ReferenceLayout } from './reference.ts';
import { CHECKS, type VerifyCheck, type VerifyContext } from './checks.ts';

/**
 * The worst error of one quantity over the cases of a reference file, its tolerance and the first
 * failing case.
 */
export interface QuantityResult {
  name: string;
  /** largest relative error over the cases */
  maxRelError: number;
  /** case where it occurs */
  worstCase: number;
  /** tolerance at that case */
  tolerance: number;
  /** every case within its tolerance */
  pass: boolean;
  /** first failing case, if any, with its error and tolerance */
  firstFailure?: { case: number; error: number; tolerance: number };
}

/** The result of `verifyReference`: one result per quantity and whether all pass. */
export interface VerifyReport {
  model: string;
  base: 'fixed' | 'floating';
  cases: number;
  quantities: QuantityResult[];
  pass: boolean;
}

/** Absolute-relative tolerance of `verifyReference` for quantities that need no solve with M. */
export const BASE_TOL = 1e-10;
/** Per unit of cond₂(M), the tolerance added for quantities that need a solve with M. */
export const COND_TOL = 1e-14;

/** cond₂ of a symmetric positive-definite matrix (ratio of extreme eigenvalues). */
export function cond2Symmetric(M: number[][]): number {
  // scaled by the largest |entry| first (the ratio is unchanged): entries near 1e308 would overflow inside the decomposition
  let big = 0;
  for (const row of M) for (const x of row) big = Math.max(big, Math.abs(x));
  if (!(big > 0) || !Number.isFinite(big)) return Infinity;
  const e = new EigenvalueDecomposition(new Matrix(M.map((row) => row.map((x) => x / big))), { assumeSymmetric: true }).realEigenvalues;
  let lo = Infinity, hi = 0;
  for (const x of e) { lo = Math.min(lo, Math.abs(x)); hi = Math.max(hi, Math.abs(x)); }
  return lo > 0 ? hi / lo : Infinity;
}

export function relError(x: ArrayLike<number>, ref: ArrayLike<number>): number {
  let num = 0, den = 0;
  for (let k = 0; k < ref.length; k++) {
    num = Math.max(num, Math.abs(x[k] - ref[k]));
    den = Math.max(den, Math.abs(ref[k]));
  }
  if (!Number.isFinite(num)) return Infinity;
  return den > 0 ? num / den : num;
}

/** Run the reference cases through every check (or the named subset). */
export function verifyReference(model: Model, ref: ReferenceFile, opts: { file?: string; checks?: readonly VerifyCheck[] } = {}): VerifyReport {
  const file = opts.file ?? 'reference';
  const layout: ReferenceLayout = referenceLayout(model, ref, file);
  const checks = opts.checks ?? CHECKS;
  const ctx: VerifyContext = {
    model,
    layout,
    q: new Float64Array(model.nq),
    v: new Float64Array(model.nv),
    a: new Float64Array(model.nv),
    tau: new Float64Array(model.nv),
    state: new Map(),
  };
  const results: QuantityResult[] = checks.map((c) => ({ name: c.name, maxRelError: 0, worstCase: 0, tolerance: BASE_TOL, pass: true }));
  ref.cases.forEach((cs: ReferenceCase, k: number) => {
    configurationFromReference(ctx.q, cs.q, layout);
    fromReference(ctx.v, cs.v, layout.vToRef);
    fromReference(ctx.a, cs.a, layout.vToRef);
    fromReference(ctx.tau, cs.tau, layout.vToRef);
    const cond = cond2Symmetric(cs.M);
    checks.forEach((check, c) => {
      const x = check.compute(ctx);
      const err = relError(x, check.expected(cs));
      const tol = check.conditioned ? BASE_TOL + COND_TOL * cond : BASE_TOL;
      const r = results[c];
      if (err > r.maxRelError || k === 0) { r.maxRelError = err; r.worstCase = k; r.tolerance = tol; }
      if (!(err <= tol) && r.pass) {
        r.pass = false;
        r.firstFailure = { case: k, error: err, tolerance: tol };
      }
    });
  });
  return { model: model.name, base: ref.base, cases: ref.cases.length, quantities: results, pass: results.every((r) => r.pass) };
}
