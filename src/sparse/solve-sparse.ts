/**
 * X = A \ B for sparse right-hand sides: the block back-substitution of solve.ts, where a column of
 * L or U is applied only when the unknown it multiplies is nonzero, so a solve touches only the rows
 * its right-hand side's pattern can reach (Gilbert & Peierls 1988); the counters count the work
 * done (at most solveMany's). The solution equals solveMany's up to the sign of zeros. No refinement
 * (NumericLU.solveManySparse solves as solveMany does when a block of size ≥ 2 is refined).
 */
import type { LUFactors } from './factors.ts';

/** NumericLU.solveManySparse without refinement: X = A \ B, nrhs columns of length n; returns X. */
export function solveManySparseLU(lu: LUFactors, X: Float64Array, B: Float64Array, nrhs: number): Float64Array {
  const n = lu.symbolic.n;
  if (!(Number.isInteger(nrhs) && nrhs >= 0)) throw new RangeError(`nrhs is ${nrhs}, expected a non-negative integer`);
  if (B.length !== n * nrhs) throw new RangeError(`B has length ${B.length}, expected n·nrhs = ${n * nrhs}`);
  if (X.length !== n * nrhs) throw new RangeError(`X has length ${X.length}, expected n·nrhs = ${n * nrhs}`);
  lu.resetSolveCounts();
  let fl = 0;
  const sparseCode = lu.compiledSolves() ? lu.code!.solveSparse : null;
  if (sparseCode !== null) {
    const { p } = lu.symbolic;
    const cw = lu.code!.w, out = lu.code!.out, Rs = lu.Rs;
    for (let c = 0; c < nrhs; c++) {
      const bo = c * n;
      if (lu.scaling === 'none') {
        for (let k = 0; k < n; k++) cw[k] = B[bo + p[k]];
      } else {
        for (let k = 0; k < n; k++) cw[k] = B[bo + p[k]] * Rs[p[k]];
      }
      fl += sparseCode();
      X.set(out, bo);
    }
  } else {
    for (let c = 0; c < nrhs; c++) fl += solveSparseInto(lu, X, c * n, B, c * n);
  }
  lu.solveMuls += fl + (lu.scaling === 'none' ? 0 : n * nrhs);
  lu.solveAdds += fl;
  lu.solveDivs += n * nrhs;
  return X;
}

/** solveInto without refinement, skipping the columns whose unknown is zero; returns the multiply-subtracts done. */
function solveSparseInto(lu: LUFactors, X: Float64Array, xo: number, B: Float64Array, bo: number): number {
  const S = lu.symbolic;
  const { n, p, q } = S;
  const { LUx, LUi, cs, dpos, w, segR, segBig, Rs } = lu;
  if (lu.scaling === 'none') {
    for (let k = 0; k < n; k++) w[k] = B[bo + p[k]];
  } else {
    for (let k = 0; k < n; k++) w[k] = B[bo + p[k]] * Rs[p[k]];
  }
  let fl = 0;
  for (let g = segBig.length - 1; g >= 0; g--) {
    const k1 = segR[g];
    const k2 = segR[g + 1];
    if (segBig[g] === 1) {
      for (let j = k1; j < k2; j++) {
        const xj = w[j];
        if (xj === 0) continue;
        const s1 = cs[j + 1];
        for (let s = dpos[j] + 1; s < s1; s++) w[LUi[s]] -= LUx[s] * xj;
        fl += s1 - dpos[j] - 1;
      }
    }
    for (let j = k2 - 1; j >= k1; j--) {
      const d = dpos[j];
      const xj = w[j] / LUx[d];
      X[xo + q[j]] = xj;
      if (xj === 0) continue;
      for (let t = cs[j]; t < d; t++) w[LUi[t]] -= LUx[t] * xj;
      fl += d - cs[j];
    }
  }
  return fl;
}
