/**
 * y = y + C_bb \ (w_b − C_bb y): iterative refinement of one diagonal block's solution during the
 * block back-substitution (option `refine`), with the factors already computed:
 *   r = w_b − C_bb y,  C_bb δ = r,  y ← y + δ     (or with C_bbᵀ, for the transposed solve)
 * (w_b: the block's right-hand side after the blocks below it; C_bb: the block's values of the last
 * refactor, lu.Cx). The residual is formed in working precision, or in double-double ('extended':
 * Dekker's splitting and Knuth's TwoSum, so r is the exact residual rounded once; Wilkinson 1963,
 * Moler 1967; Higham, Accuracy and Stability of Numerical Algorithms, ch. 12). 1×1 blocks are exact
 * divisions and are not refined. Steps stop after `refine`, or once ‖δ‖∞ ≤ refineTol·‖y‖∞, or when a
 * step no longer halves the correction. With a working-precision residual and refineWhen 'needed'
 * (FactorOptions), each step first tests the componentwise backward error of y (Oettli & Prager,
 * "Compatibility of approximate solution of linear equations with given error bounds for
 * coefficients and right-hand sides", 1964; the stopping test of LAPACK's xGERFS):
 *   ω = max_i |r_i| / (|C_bb||y| + |w_b|)_i ≤ refineOmega
 * and stops there, without the correction solve, when it holds. |C_bb||y| is summed from the
 * residual's own products (|c·y| = |c||y| exactly), so the test costs one addition per entry of
 * C_bb and one multiplication per row (τ·s_i) beside the residual.
 */
import { blockSolve, blockSolveTransposed } from './block-solve.ts';
import type { LUFactors } from './factors.ts';

/** Dekker's splitting constant 2²⁷ + 1 (a double splits into two halves of 26 bits). */
const SPLIT = 134217729;

/**
 * Refinement of block [k1, k2): y = v(k1:k2) solves C_bb y = rb (or C_bbᵀ y = rb) to working
 * accuracy; up to `refine` steps r = rb − C_bb y, δ = C_bb \ r, y += δ. Counts into the solve
 * and refine counters: per step nnz(C_bb) multiply-subtracts for the residual (21 flops per entry
 * and 4 per column when extended, plus one addition per row), with the backward-error test
 * (lu.refineOmega > 0) one addition per entry and one multiplication per row more; then, unless the
 * test passed, the block solve (lnz + unz multiply-subtracts, one division per row) and one
 * addition per row for the update.
 */
export function refineBlock(lu: LUFactors, v: Float64Array, k1: number, k2: number, transposed: boolean): void {
  const S = lu.symbolic;
  const { Bp, Bi } = S;
  if (lu.cxStale) syncCx(lu);
  const { Cx, rb, dz, rlo, rs, cs, us } = lu;
  const extended = lu.residual === 'extended';
  const omega = lu.refineOmega;
  const nb = k2 - k1;
  const nzb = Bp[k2] - Bp[k1];
  // L and U of the block: the slots of the block's columns but the pivots and the off-block entries
  let nlu = 0;
  for (let j = k1; j < k2; j++) nlu += cs[j + 1] - us[j] - 1;
  let muls = 0, adds = 0, divs = 0;
  let prev = Infinity;
  for (let step = 0; step < lu.refine; step++) {
    // r = rb − C_bb y (or rb − C_bbᵀ y)
    if (!extended && omega > 0) {
      // r = rb − C_bb y and s = |C_bb||y| + |rb| from the same products; refine unless |r_i| ≤ ω s_i
      // for every row (a NaN fails the test, as it did the refinement before)
      for (let k = k1; k < k2; k++) {
        dz[k] = rb[k];
        rs[k] = Math.abs(rb[k]);
      }
      if (!transposed) {
        for (let k = k1; k < k2; k++) {
          const yk = v[k];
          for (let e = Bp[k]; e < Bp[k + 1]; e++) {
            const i = Bi[e];
            const pr = Cx[e] * yk;
            dz[i] -= pr;
            rs[i] += Math.abs(pr);
          }
        }
      } else {
        for (let k = k1; k < k2; k++) {
          let t = dz[k], a = rs[k];
          for (let e = Bp[k]; e < Bp[k + 1]; e++) {
            const pr = Cx[e] * v[Bi[e]];
            t -= pr;
            a += Math.abs(pr);
          }
          dz[k] = t;
          rs[k] = a;
        }
      }
      let pass = true;
      for (let k = k1; k < k2; k++) if (!(Math.abs(dz[k]) <= omega * rs[k])) pass = false;
      muls += nzb + nb;
      adds += 2 * nzb;
      lu.refineTests++;
      if (pass) break;
      lu.refineFailed++;
    } else if (!extended) {
      for (let k = k1; k < k2; k++) dz[k] = rb[k];
      if (!transposed) {
        for (let k = k1; k < k2; k++) {
          const yk = v[k];
          for (let e = Bp[k]; e < Bp[k + 1]; e++) dz[Bi[e]] -= Cx[e] * yk;
        }
      } else {
        for (let k = k1; k < k2; k++) {
          let t = dz[k];
          for (let e = Bp[k]; e < Bp[k + 1]; e++) t -= Cx[e] * v[Bi[e]];
          dz[k] = t;
        }
      }
      muls += nzb;
      adds += nzb;
    } else {
      for (let k = k1; k < k2; k++) {
        dz[k] = rb[k];
        rlo[k] = 0;
      }
      if (!transposed) {
        for (let k = k1; k < k2; k++) {
          const yk = v[k];
          const ty = SPLIT * yk;
          const yh = ty - (ty - yk);
          const yl = yk - yh;
          for (let e = Bp[k]; e < Bp[k + 1]; e++) {
            const i = Bi[e];
            const c = Cx[e];
            const tc = SPLIT * c;
            const ch = tc - (tc - c);
            const cl = c - ch;
            // TwoProduct: c·y = ph + pl exactly
            const ph = c * yk;
            const pl = ((ch * yh - ph) + ch * yl + cl * yh) + cl * yl;
            // TwoSum: dz_i − ph = s + e exactly
            const a = dz[i];
            const s = a - ph;
            const bb = s - a;
            const err = (a - (s - bb)) - (ph + bb);
            dz[i] = s;
            rlo[i] += err - pl;
          }
        }
      } else {
        for (let k = k1; k < k2; k++) {
          let hi = dz[k];
          let lo = 0;
          for (let e = Bp[k]; e < Bp[k + 1]; e++) {
            const yk = v[Bi[e]];
            const ty = SPLIT * yk;
            const yh = ty - (ty - yk);
            const yl = yk - yh;
            const c = Cx[e];
            const tc = SPLIT * c;
            const ch = tc - (tc - c);
            const cl = c - ch;
            const ph = c * yk;
            const pl = ((ch * yh - ph) + ch * yl + cl * yh) + cl * yl;
            const s = hi - ph;
            const bb = s - hi;
            lo += ((hi - (s - bb)) - (ph + bb)) - pl;
            hi = s;
          }
          dz[k] = hi;
          rlo[k] = lo;
        }
      }
      for (let k = k1; k < k2; k++) dz[k] += rlo[k];
      // per product: split of c (1 mul, 3 adds), TwoProduct (5 muls, 4 adds), TwoSum (6 adds), low
      // part (2 adds); the split of y (1 mul, 3 adds) once per column, or per product when
      // transposed; one addition per row to round hi + lo
      if (!transposed) {
        muls += 6 * nzb + nb;
        adds += 15 * nzb + 3 * nb + nb;
      } else {
        muls += 7 * nzb;
        adds += 18 * nzb + nb;
      }
    }
    if (!transposed) blockSolve(lu, dz, k1, k2);
    else blockSolveTransposed(lu, dz, k1, k2);
    muls += nlu;
    adds += nlu;
    divs += nb;
    // y += δ; stop once the correction is negligible or no longer halves
    let dmax = 0, ymax = 0;
    for (let k = k1; k < k2; k++) {
      const y = v[k] + dz[k];
      v[k] = y;
      const ad = Math.abs(dz[k]);
      if (ad > dmax) dmax = ad;
      const ay = Math.abs(y);
      if (ay > ymax) ymax = ay;
    }
    adds += nb;
    lu.refineSteps++;
    if (dmax <= lu.refineTol * ymax || dmax > 0.5 * prev) break;
    prev = dmax;
  }
  lu.refineMuls += muls;
  lu.refineAdds += adds;
  lu.refineDivs += divs;
  lu.solveMuls += muls;
  lu.solveAdds += adds;
  lu.solveDivs += divs;
}

/**
 * Cx from the compiled code's A after a compiled refactor that read the residual's C_bb there
 * (CompiledLU.residualFromA) and kept no copy: the generic refinement needs it.
 */
function syncCx(lu: LUFactors): void {
  const { r, nblocks, Bp, Bslot } = lu.symbolic;
  const A = lu.code!.A, g = lu.codeGathered ? lu.gmap! : null, Cx = lu.Cx;
  for (let b = 0; b < nblocks; b++) {
    if (r[b + 1] - r[b] < 2) continue;
    for (let e = Bp[r[b]]; e < Bp[r[b + 1]]; e++) Cx[e] = A[g === null ? Bslot[e] : g[Bslot[e]]];
  }
  lu.cxStale = false;
}
