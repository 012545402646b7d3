/**
 * x = Aᵀ \ b: with C = A(p,q), Cᵀ (x(p)) = b(q), Cᵀ block lower triangular, solved from the first
 * block down (x may alias b):
 *   y_j = (w_j − Σ_{i above j} C(i,j) y_i) / u_jj   (Uᵀ and the off-diagonal blocks, dot products)
 *   z_j = y_j − Σ_{i ∈ L(:,j)} l_ij z_i, j descending in the block   (Lᵀ, unit diagonal)
 * With refinement, a block's Cᵀ_bb z = w_b is refined (refine.ts, residual w_b − Cᵀ_bb z). With row
 * scaling, (R C)ᵀ (R⁻¹ x(p)) = b(q) is solved: x(p) = R y. Same counts as solve.ts. No allocation.
 * Source: KLU's klu_tsolve (Davis & Palamadai Natarajan 2010).
 */
import { blockSolveTransposed } from './block-solve.ts';
import type { LUFactors } from './factors.ts';
import { refineBlock } from './refine.ts';

/** NumericLU.solveTransposed: x = Aᵀ \ b, refined as the factors' options ask unless `refined` is false; returns x. */
export function solveTransposedLU(lu: LUFactors, x: Float64Array, b: Float64Array, refined = true): Float64Array {
  const S = lu.symbolic;
  const n = S.n;
  if (b.length !== n) throw new RangeError(`b has length ${b.length}, expected n = ${n}`);
  if (x.length !== n) throw new RangeError(`x has length ${x.length}, expected n = ${n}`);
  const { p, q } = S;
  const { LUx, LUi, cs, us, dpos, w, segR, segBig } = lu;
  lu.resetSolveCounts();
  for (let k = 0; k < n; k++) w[k] = b[q[k]];
  const nseg = segBig.length;
  const refine = refined && lu.refine > 0;
  for (let g = 0; g < nseg; g++) {
    const k1 = segR[g];
    const k2 = segR[g + 1];
    if (refine && segBig[g] === 1) {
      // off-diagonal blocks first, then the block alone, refined
      const rb = lu.rb;
      for (let j = k1; j < k2; j++) {
        let t = w[j];
        const u = us[j];
        for (let s = cs[j]; s < u; s++) t -= LUx[s] * w[LUi[s]];
        w[j] = t;
        rb[j] = t;
      }
      blockSolveTransposed(lu, w, k1, k2);
      refineBlock(lu, w, k1, k2, true);
      continue;
    }
    for (let j = k1; j < k2; j++) {
      const d = dpos[j];
      let t = w[j];
      for (let s = cs[j]; s < d; s++) t -= LUx[s] * w[LUi[s]];
      w[j] = t / LUx[d];
    }
    if (segBig[g] === 1) {
      for (let j = k2 - 1; j >= k1; j--) {
        let t = w[j];
        const s1 = cs[j + 1];
        for (let s = dpos[j] + 1; s < s1; s++) t -= LUx[s] * w[LUi[s]];
        w[j] = t;
      }
    }
  }
  const Rs = lu.Rs;
  if (lu.scaling === 'none') {
    for (let k = 0; k < n; k++) x[p[k]] = w[k];
  } else {
    for (let k = 0; k < n; k++) x[p[k]] = w[k] * Rs[p[k]];
  }
  const fl = cs[n] - n;
  lu.solveMuls += fl + (lu.scaling === 'none' ? 0 : n);
  lu.solveAdds += fl;
  lu.solveDivs += n;
  return x;
}
