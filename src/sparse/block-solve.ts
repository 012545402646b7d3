/**
 * v = C_bb \ v and v = C_bbᵀ \ v on one diagonal block [k1, k2) of C = A(p,q), with the block's L
 * and U only (no update of the rows above the block; the caller counts the flops): the inner
 * solves of iterative refinement (refine.ts).
 *   C_bb \ v:   v = L_bb \ v (unit diagonal, forward), then v = U_bb \ v (backward)
 *   C_bbᵀ \ v:  v = U_bbᵀ \ v (forward, dot products), then v = L_bbᵀ \ v (backward)
 */
import type { LUFactors } from './factors.ts';

/** v(k1:k2) = C_bb \ v(k1:k2) with the block's L and U (no update of other rows; counted by the caller). */
export function blockSolve(lu: LUFactors, v: Float64Array, k1: number, k2: number): void {
  const { LUx, LUi, cs, us, dpos } = lu;
  for (let j = k1; j < k2; j++) {
    const xj = v[j];
    const s1 = cs[j + 1];
    for (let s = dpos[j] + 1; s < s1; s++) v[LUi[s]] -= LUx[s] * xj;
  }
  for (let j = k2 - 1; j >= k1; j--) {
    const d = dpos[j];
    const xj = v[j] / LUx[d];
    v[j] = xj;
    for (let t = us[j]; t < d; t++) v[LUi[t]] -= LUx[t] * xj;
  }
}

/** v(k1:k2) = C_bbᵀ \ v(k1:k2) with the block's U and L (counted by the caller). */
export function blockSolveTransposed(lu: LUFactors, v: Float64Array, k1: number, k2: number): void {
  const { LUx, LUi, cs, us, dpos } = lu;
  for (let j = k1; j < k2; j++) {
    const d = dpos[j];
    let t = v[j];
    for (let s = us[j]; s < d; s++) t -= LUx[s] * v[LUi[s]];
    v[j] = t / LUx[d];
  }
  for (let j = k2 - 1; j >= k1; j--) {
    let t = v[j];
    const s1 = cs[j + 1];
    for (let s = dpos[j] + 1; s < s1; s++) t -= LUx[s] * v[LUi[s]];
    v[j] = t;
  }
}
