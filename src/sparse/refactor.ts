/**
 * [L, U] = refactorLU(lu, Ax): L U = C = A(p,q) in place for new values of A (in A's CSC order), block
 * by block on the patterns of lu.symbolic (block-factor.ts), or by the compiled code (codegen.ts);
 * the entries above the diagonal blocks copied for the solves. Allocation-free unless a re-pivot
 * is needed: a block that fails its checks is factorized again with partial pivoting
 * (repivot.ts), its exact patterns are recomputed for the new row order (luPattern, layout.ts),
 * `repivots` is incremented, and the factorization goes on. With refinement, C_bb is kept for the
 * residuals (refine.ts). Counts: factorMuls + factorAdds + factorDivs = symbolic.factorFlops (plus
 * the row scaling's multiplications).
 * Source: left-looking LU with static patterns (Gilbert & Peierls 1988; KLU's klu_refactor, Davis &
 * Palamadai Natarajan, ACM TOMS 37, 2010).
 */
import { canCompile } from './compiled.ts';
import { factorBlockMapped, factorBlockScatter, singular1x1 } from './block-factor.ts';
import { generateCode } from './codegen.ts';
import { SingularPivotError } from './errors.ts';
import type { LUFactors } from './factors.ts';
import { layoutLU } from './layout.ts';
import { luPattern } from './lu-pattern.ts';
import { repivot } from './repivot.ts';
import { scaleRows } from './scale.ts';
import { SymbolicLU, type BlockPattern } from './symbolic.ts';

/** NumericLU.refactor: the factors of C for the values Ax of A (length ≥ nnz(A)); returns lu. */
export function refactorLU(lu: LUFactors, Ax: Float64Array): LUFactors {
  const S = lu.symbolic;
  if (Ax.length < S.nnz) throw new RangeError(`Ax has length ${Ax.length}, expected nnz(A) = ${S.nnz}`);
  const A = lu.scaling === 'none' ? Ax : scaleRows(lu, Ax);
  if (lu.code === null && lu.kernel === 'mapped' && lu.compileOption !== 'never' && !lu.compileFailed && canCompile()) {
    lu.refactors++;
    if (lu.compileOption === 'always' || lu.compileOption === 'loops' || lu.refactors >= lu.compileAfter) generateCode(lu);
  }
  lu.fromSource = false;
  if (lu.code !== null && !lu.codeGathered && loadAndFactor(lu, A)) {
    lu.cxStale = lu.refine > 0 && lu.code.residualFromA;
    lu.factorMuls = lu.cFactorMuls + lu.scaleMuls;
    lu.factorAdds = lu.cFactorMuls;
    lu.factorDivs = lu.cFactorDivs;
    lu.pivoted = false;
    return lu;
  }
  const nfail = pass(lu, A, null);
  lu.pivoted = false;
  if (nfail > 0) repivotAndRefactor(lu, A, nfail);
  lu.factorMuls += lu.scaleMuls;
  if (lu.refine > 0) keepBlockValues(lu, A);
  lu.cxStale = false;
  // compiled code compiled by the re-pivot, or whose checks failed: its refinement reads A there
  const code = lu.code;
  if (lu.refine > 0 && code !== null && !lu.codeGathered && code.residualFromA) loadA(lu, A);
  return lu;
}

/** compiled refactor: A into the module's memory, then its factor code */
function loadAndFactor(lu: LUFactors, A: Float64Array): boolean {
  loadA(lu, A);
  return lu.code!.factor();
}

/** A into the compiled code's memory */
function loadA(lu: LUFactors, A: Float64Array): void {
  const CA = lu.code!.A;
  if (A.length === CA.length) CA.set(A);
  else for (let t = 0; t < CA.length; t++) CA[t] = A[t];
}

/** Refinement: the in-block values of C (in the order of symbolic.Bp/Bi) for the residuals. */
function keepBlockValues(lu: LUFactors, Ax: Float64Array): void {
  const S = lu.symbolic;
  const { r, nblocks, Bp, Bslot } = S;
  const Cx = lu.Cx;
  for (let b = 0; b < nblocks; b++) {
    if (r[b + 1] - r[b] < 2) continue;
    for (let e = Bp[r[b]]; e < Bp[r[b + 1]]; e++) Cx[e] = Ax[Bslot[e]];
  }
}

/** One factorization pass over all blocks; returns how many blocks failed their checks (listed in `failed`). */
function pass(lu: LUFactors, Ax: Float64Array, forced: Uint8Array | null): number {
  const S = lu.symbolic;
  const { r, nblocks, Bp, Bslot, Op, Oslot } = S;
  const { LUx, dpos, Opos, failed } = lu;
  lu.factorMuls = 0;
  lu.factorDivs = 0;
  let nfail = 0;
  for (let b = 0; b < nblocks; b++) {
    const k1 = r[b];
    if (r[b + 1] - k1 === 1) {
      // 1×1 block: the pivot is the entry itself; no other row can replace it.
      const v = Ax[Bslot[Bp[k1]]];
      if (v === 0 || !(v - v === 0)) singular1x1(lu, k1, v);
      LUx[dpos[k1]] = v;
      continue;
    }
    // a block just re-pivoted is checked for zero and non-finite pivots only
    lu.relaxed = forced !== null && forced[b] === 1;
    const ok = lu.kernel === 'mapped' ? factorBlockMapped(lu, b, Ax) : factorBlockScatter(lu, b, Ax);
    if (ok) continue;
    if (forced === null || forced[b] === 0) {
      failed[nfail++] = b;
    } else {
      const k = lu.badColumn;
      throw new SingularPivotError(S.q[k], [{ row: S.p[k], value: LUx[dpos[k]] }], lu.names, 'the re-pivoted factorization met a zero or non-finite pivot');
    }
  }
  lu.factorAdds = lu.factorMuls;
  // Entries above the diagonal blocks (after the blocks, whose slots were zeroed): used only by the solves.
  const onz = Op[S.n];
  for (let e = 0; e < onz; e++) LUx[Opos[e]] = Ax[Oslot[e]];
  return nfail;
}

/** Exceptional path: new row orders for the failed blocks, exact patterns for them, then a forced pass. */
function repivotAndRefactor(lu: LUFactors, Ax: Float64Array, nfail: number): void {
  const S = lu.symbolic;
  const failedBlocks = Array.from(lu.failed.subarray(0, nfail));
  const pNew = S.p.slice();
  const patterns: (BlockPattern | undefined)[] = [];
  const forced = new Uint8Array(S.nblocks);
  for (const b of failedBlocks) forced[b] = 1;
  for (let b = 0; b < S.nblocks; b++) {
    if (!forced[b]) {
      patterns.push(S.blockPattern(b));
      continue;
    }
    const k1 = S.r[b];
    const nb = S.r[b + 1] - k1;
    const rows = repivot(S, b, Ax, lu.tol, lu.names);
    const newPos = new Int32Array(nb);
    for (let t = 0; t < nb; t++) {
      pNew[k1 + t] = S.p[k1 + rows[t]];
      newPos[rows[t]] = t;
    }
    const { Bp, Bi } = S.blockMatrix(b);
    for (let e = 0; e < Bi.length; e++) Bi[e] = newPos[Bi[e]];
    patterns.push(luPattern(nb, Bp, Bi));
  }
  lu.symbolic = new SymbolicLU(S.n, S.Ap, S.Ai, pNew, S.q, S.r, patterns, S.orderings, S.repivoted + nfail);
  layoutLU(lu);
  const again = pass(lu, Ax, forced);
  if (again > 0) {
    // Blocks that passed before see the same arithmetic now; a failure here is a bug.
    throw new Error(`internal error: ${again} block(s) failed after re-pivoting`);
  }
  lu.pivoted = true;
  lu.repivots++;
  lu.repivotedBlocks += nfail;
}
