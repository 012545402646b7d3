/**
 * X = A \ B for right-hand sides on fixed patterns: column c of B is zero outside pattern[c] of
 * `reach` (solveReach, reach.ts), and only the ops of that pattern's reach run, in the solve's
 * order — no loop over all n unknowns:
 *   op j ≥ 0:  x(q_j) = w_j / u_jj,  w(rows above the pivot in column j) -= C(those rows, j) x(q_j)
 *   op ~j:     w(L(:,j)) -= L(:,j) w_j
 * The counters are the reach's static counts. With refinement and a block of size ≥ 2, or when the
 * reach belongs to another SymbolicLU (re-pivoted since), each column is solved as by solve.ts.
 */
import type { LUFactors } from './factors.ts';
import type { SolveReach } from './reach.ts';
import { solveInto } from './solve.ts';

/** NumericLU.solveManyReach: X = A \ B (or A \ (−B)) over the reach of each column's pattern; returns X. */
export function solveManyReachLU(lu: LUFactors, X: Float64Array, B: Float64Array, nrhs: number, reach: SolveReach, pattern: Int32Array, negate: boolean): Float64Array {
  const S = lu.symbolic;
  const n = S.n;
  if (!(Number.isInteger(nrhs) && nrhs >= 0)) throw new RangeError(`nrhs is ${nrhs}, expected a non-negative integer`);
  if (B.length < n * nrhs) throw new RangeError(`B has length ${B.length}, expected at least n·nrhs = ${n * nrhs}`);
  if (X.length < n * nrhs) throw new RangeError(`X has length ${X.length}, expected at least n·nrhs = ${n * nrhs}`);
  if (pattern.length < nrhs) throw new RangeError(`pattern has ${pattern.length} entries, expected one per right-hand side (${nrhs})`);
  if (reach.symbolic !== S || (lu.refine > 0 && lu.hasBigBlock)) {
    // the reach no longer describes the factors (re-pivoted), or refinement needs whole blocks
    lu.resetSolveCounts();
    let mul = 0, add = 0, div = 0, rm = 0, ra = 0, rd = 0, rs = 0, rt = 0, rf = 0;
    for (let c = 0; c < nrhs; c++) {
      solveInto(lu, X, c * n, B, c * n, negate);
      mul += lu.solveMuls; add += lu.solveAdds; div += lu.solveDivs;
      rm += lu.refineMuls; ra += lu.refineAdds; rd += lu.refineDivs; rs += lu.refineSteps;
      rt += lu.refineTests; rf += lu.refineFailed;
      lu.resetSolveCounts();
    }
    lu.solveMuls = mul; lu.solveAdds = add; lu.solveDivs = div;
    lu.refineMuls = rm; lu.refineAdds = ra; lu.refineDivs = rd; lu.refineSteps = rs;
    lu.refineTests = rt; lu.refineFailed = rf;
    return X;
  }
  lu.resetSolveCounts();
  const { pinv, q } = S;
  const { LUx, LUi, cs, dpos, w, Rs } = lu;
  const { rowStart, rows, opStart, ops, fma, divs } = reach;
  const scaled = lu.scaling !== 'none';
  const sg = negate ? -1 : 1;
  let f = 0, dv = 0, sm = 0;
  for (let c = 0; c < nrhs; c++) {
    const k = pattern[c];
    if (!(k >= 0 && k < reach.npat)) throw new RangeError(`pattern[${c}] is ${k}, expected a pattern of the reach (0..${reach.npat - 1})`);
    const bo = c * n, o0 = opStart[k], o1 = opStart[k + 1], r0 = rowStart[k], r1 = rowStart[k + 1];
    for (let o = o0; o < o1; o++) { const op = ops[o]; w[op >= 0 ? op : ~op] = 0; }
    if (scaled) {
      for (let e = r0; e < r1; e++) { const row = rows[e]; w[pinv[row]] = (sg * B[bo + row]) * Rs[row]; }
      sm += r1 - r0;
    } else if (negate) {
      for (let e = r0; e < r1; e++) { const row = rows[e]; w[pinv[row]] = -B[bo + row]; }
    } else {
      for (let e = r0; e < r1; e++) { const row = rows[e]; w[pinv[row]] = B[bo + row]; }
    }
    if (X === B) for (let e = r0; e < r1; e++) X[bo + rows[e]] = 0;
    else X.fill(0, bo, bo + n);
    for (let o = o0; o < o1; o++) {
      const op = ops[o];
      if (op >= 0) {
        const d = dpos[op];
        const xj = w[op] / LUx[d];
        X[bo + q[op]] = xj;
        for (let t = cs[op]; t < d; t++) w[LUi[t]] -= LUx[t] * xj;
      } else {
        const j = ~op;
        const xj = w[j];
        const s1 = cs[j + 1];
        for (let s = dpos[j] + 1; s < s1; s++) w[LUi[s]] -= LUx[s] * xj;
      }
    }
    f += fma[k];
    dv += divs[k];
  }
  lu.solveMuls = f + sm;
  lu.solveAdds = f;
  lu.solveDivs = dv;
  return X;
}
