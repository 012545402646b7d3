/** Test helpers: tolerance checks with explicit tolerances and informative messages. */
import { expect } from 'vitest';
import { rnea, RneaWorkspace } from '../src/algorithms/rnea.ts';
import type { Model } from '../src/model/model.ts';

/** max |a_k − b_k| / max(‖b‖∞, floor) ≤ tol */
export function expectClose(actual: ArrayLike<number>, expected: ArrayLike<number>, tol: number, what = 'value', floor = 1): void {
  expect(actual.length, `${what}: length`).toBe(expected.length);
  let scale = floor;
  for (let k = 0; k < expected.length; k++) scale = Math.max(scale, Math.abs(expected[k]));
  let worst = 0, at = -1;
  for (let k = 0; k < expected.length; k++) {
    const e = Math.abs(actual[k] - expected[k]);
    if (!(e <= worst)) { worst = e; at = k; }
  }
  const rel = worst / scale;
  if (!(rel <= tol)) {
    throw new Error(`${what}: relative error ${rel.toExponential(3)} > ${tol} at [${at}] (actual ${actual[at]}, expected ${expected[at]})`);
  }
}

export function maxAbs(x: ArrayLike<number>): number {
  let m = 0;
  for (let k = 0; k < x.length; k++) m = Math.max(m, Math.abs(x[k]));
  return m;
}

/**
 * |got − ref| ≤ tol · max(max |ref|, floor) entry by entry, failing at the first entry that is not
 * (1 for the scale of an output that is all zero); `floor` lets an output that is zero up to
 * rounding be compared on the scale of the others
 */
export function expectEntriesClose(got: ArrayLike<number>, ref: ArrayLike<number>, tol: number, what: string, floor = 0): void {
  expect(got.length).toBe(ref.length);
  let scale = Math.max(maxAbs(ref), floor);
  if (scale === 0) scale = 1;
  for (let k = 0; k < ref.length; k++) {
    const d = Math.abs(got[k] - ref[k]);
    if (!(d <= tol * scale)) expect.fail(`${what}[${k}]: ${got[k]} against the reference's ${ref[k]} (scale ${scale})`);
  }
}

/** M(q) by its columns from RNEA, the reference of the CRBAs: M e_k = RNEA(q, 0, e_k) − RNEA(q, 0, 0) (nv×nv row-major) */
export function massMatrixByRnea(model: Model, q: Float64Array): Float64Array {
  const nv = model.nv, ws = new RneaWorkspace(model), zero = new Float64Array(nv);
  const g = Float64Array.from(rnea(model, ws, q, zero, zero));
  const M = new Float64Array(nv * nv), e = new Float64Array(nv);
  for (let k = 0; k < nv; k++) {
    e.fill(0); e[k] = 1;
    const t = rnea(model, ws, q, zero, e);
    for (let r = 0; r < nv; r++) M[r * nv + k] = t[r] - g[r];
  }
  return M;
}
