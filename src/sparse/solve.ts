/**
 * x = A \ b (or A \ (−b)): one right-hand side (column at offset bo of B into offset xo of X),
 * by block back-substitution through the block triangular form of C = A(p,q), from the last block
 * up (Duff & Reid 1978):
 *   w = R b(p);  for each block b, last first:  w_b = L_bb \ w_b;  for j in the block, descending:
 *   y_j = w_j / u_jj,  x(q_j) = y_j,  w(rows of U(:,j) and above the block) -= C(those rows, j) y_j
 * Runs of 1×1 blocks (lu.segR, lu.segBig) skip the L solve. With refinement, a block of size ≥ 2 is
 * solved alone, refined (refine.ts), and only then updates the rows above it. The compiled code
 * (codegen.ts), when it holds the factors, does the same arithmetic. Counts: one multiply-subtract
 * per stored off-diagonal value, one division per pivot. No allocation.
 */
import { blockSolve } from './block-solve.ts';
import type { LUFactors } from './factors.ts';
import { refineBlock } from './refine.ts';

/**
 * w = b(p) (times R); block back-substitution from the last block up:
 *   w_b = L_bb \ w_b;  then for j in the block, descending:  y_j = w_j / u_jj,
 *   x(q_j) = y_j,  w(rows of U(:,j) and of the entries above the block) -= C(those rows, j) y_j.
 * With refinement, a block of size ≥ 2 is solved alone (L_bb, U_bb), refined, and only then
 * updates the rows above it.
 */
export function solveInto(lu: LUFactors, X: Float64Array, xo: number, B: Float64Array, bo: number, negate: boolean, refined = true): void {
  const S = lu.symbolic;
  const { n, p, q } = S;
  const { cs, Rs } = lu;
  const out = solveCompiled(lu, B, bo, negate, refined);
  if (out !== null) {
    X.set(out, xo);
    return;
  }
  const { LUx, LUi, us, dpos, w, segR, segBig } = lu;
  if (lu.scaling === 'none') {
    if (negate) for (let k = 0; k < n; k++) w[k] = -B[bo + p[k]];
    else for (let k = 0; k < n; k++) w[k] = B[bo + p[k]];
  } else {
    const sg = negate ? -1 : 1;
    for (let k = 0; k < n; k++) w[k] = (sg * B[bo + p[k]]) * Rs[p[k]];
    lu.solveMuls += n;
  }
  const refine = lu.refine > 0;
  for (let g = segBig.length - 1; g >= 0; g--) {
    // A segment is one block of size ≥ 2, or a run of 1×1 blocks (an upper triangular stretch).
    const k1 = segR[g];
    const k2 = segR[g + 1];
    if (refine && segBig[g] === 1) {
      const rb = lu.rb;
      for (let j = k1; j < k2; j++) rb[j] = w[j];
      blockSolve(lu, w, k1, k2);
      if (refined) refineBlock(lu, w, k1, k2, false);
      for (let j = k1; j < k2; j++) {
        const xj = w[j];
        X[xo + q[j]] = xj;
        const u = us[j];
        for (let t = cs[j]; t < u; t++) w[LUi[t]] -= LUx[t] * xj;
      }
      continue;
    }
    if (segBig[g] === 1) {
      for (let j = k1; j < k2; j++) {
        const xj = w[j];
        const s1 = cs[j + 1];
        for (let s = dpos[j] + 1; s < s1; s++) w[LUi[s]] -= LUx[s] * xj;
      }
    }
    for (let j = k2 - 1; j >= k1; j--) {
      const d = dpos[j];
      const xj = w[j] / LUx[d];
      X[xo + q[j]] = xj; // y_j is final: x(q) = y
      for (let t = cs[j]; t < d; t++) w[LUi[t]] -= LUx[t] * xj;
    }
  }
  // Every stored slot but the pivots is one multiply-subtract; every pivot one division.
  const fl = cs[n] - n;
  lu.solveMuls += fl;
  lu.solveAdds += fl;
  lu.solveDivs += n;
}

/**
 * The solve by the compiled code, where it solves (straight-line solves, or the code's b buffer):
 * b copied into the code's buffer (not when B is that buffer), solved (refined where the code
 * refines), counts added; returns the code's solution buffer (read only, valid until the code runs
 * again), or null where the compiled code does not solve (the JavaScript solve then runs).
 */
export function solveCompiled(lu: LUFactors, B: Float64Array, bo: number, negate: boolean, refined = true): Float64Array | null {
  const n = lu.symbolic.n, p = lu.symbolic.p, cs = lu.cs, Rs = lu.Rs;
  const code = lu.compiledSolves() ? lu.code! : null;
  // without the refinement step where the solve refines a block: the code's plain solve (or none)
  const plain = !refined && lu.refine > 0 && lu.hasBigBlock;
  const solveCode = code === null ? null : plain ? code.solvePlain : code.solve;
  if (code !== null && (solveCode !== null || code.solveB !== null)) {
    const cw = code.w;
    if (code.solveB !== null && !plain) {
      if (B === code.B) { /* b is in the buffer already (solveBufferNegated) */ } else if (bo === 0 && B.length === n) code.B.set(B);
      else for (let k = 0; k < n; k++) code.B[k] = B[bo + k];
      code.solveB(negate);
    } else if (lu.scaling === 'none') {
      // b copied in whole, permuted (and negated) by the module's straight-line copies
      if (B === code.B) { /* in the buffer already */ } else if (bo === 0 && B.length === n) code.B.set(B);
      else for (let k = 0; k < n; k++) code.B[k] = B[bo + k];
      code.wFromB(negate);
    } else {
      const sg = negate ? -1 : 1;
      for (let k = 0; k < n; k++) cw[k] = (sg * B[bo + p[k]]) * Rs[p[k]];
    }
    if (solveCode !== null) solveCode();
    const fl = cs[n] - n;
    lu.solveMuls += fl + (lu.scaling === 'none' ? 0 : n);
    lu.solveAdds += fl;
    lu.solveDivs += n;
    if (plain) return code.out;
    lu.solveMuls += lu.cRefMuls;
    lu.solveAdds += lu.cRefAdds;
    lu.solveDivs += lu.cRefDivs;
    lu.refineMuls += lu.cRefMuls;
    lu.refineAdds += lu.cRefAdds;
    lu.refineDivs += lu.cRefDivs;
    lu.refineSteps += lu.cRefSteps;
    if (solveCode !== null && code.refined.length > 0) countTested(lu, code.refined);
    return code.out;
  }
  return null;
}

/**
 * The compiled solve's backward-error tests (CompiledLU.refined): the test ran in every block of
 * size ≥ 2 (its counts are static, lu.cRef*); add the corrections of the blocks whose test failed.
 */
function countTested(lu: LUFactors, rf: Float64Array): void {
  const cb = lu.cRefBlocks;
  let m = 0, a = 0, d = 0, failed = 0;
  for (let t = 0; t < cb.length; t += 4) {
    if (rf[cb[t]] !== 0) {
      m += cb[t + 1];
      a += cb[t + 2];
      d += cb[t + 3];
      failed++;
    }
  }
  lu.solveMuls += m;
  lu.solveAdds += a;
  lu.solveDivs += d;
  lu.refineMuls += m;
  lu.refineAdds += a;
  lu.refineDivs += d;
  lu.refineSteps += failed;
  lu.refineTests += cb.length >> 2;
  lu.refineFailed += failed;
}
