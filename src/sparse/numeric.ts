/**
 * [L, U] = factor(A, S); lu.refactor(A.Ax); x = lu.solve(b): the runtime LU of C = A(p,q) block by
 * block on the patterns of a SymbolicLU, filled in place; solves through the block triangular
 * form, off-diagonal blocks used only in the solve.
 * Source: left-looking LU with static patterns (Gilbert & Peierls 1988; KLU's klu_refactor, Davis &
 * Palamadai Natarajan, ACM TOMS 37, 2010); block back-substitution over the BTF (Duff & Reid 1978).
 *
 * Column k of a block (x is a dense work vector, zero between columns):
 *   x = C(:,k)                                   scatter, values read as Ax[Bslot[e]]
 *   for j in U(:,k) ascending:  u_jk = x_j;  x(L(:,j)) -= L(:,j) u_jk      (muls, adds)
 *   u_kk = x_k;  L(:,k) = x(L(:,k)) / u_kk                                 (divs)
 * Safety: each pivot is checked against its column, |u_kk| ≥ tol · max|L(:,k)| · |u_kk|⁰ (KLU's
 * threshold test, tol = 0.001), and the growth max|U(:,k)| ≤ growthLimit · max|C(:,k)|. A block that
 * fails is factorized again with partial pivoting (repivot.ts), the patterns are recomputed for
 * the new row order (allocation, exceptional path), `repivots` is incremented, and the
 * factorization goes on.
 *
 * `refactor` and `solve` allocate nothing: workspaces are created with the object.
 */
import type { CscMatrix } from './csc.ts';
import { SingularPivotError, type MatrixNames } from './errors.ts';
import { luPattern } from './lu-pattern.ts';
import { repivot } from './repivot.ts';
import { SymbolicLU, type BlockPattern } from './symbolic.ts';

export interface FactorOptions extends MatrixNames {
  /** pivot threshold: a pivot is kept while |u_kk| ≥ tol · max |x_ik| over its column (default 0.001, as KLU) */
  readonly tol?: number;
  /** largest accepted max|U(:,k)| / max|C(:,k)| before a block is re-pivoted (default 1e8) */
  readonly growthLimit?: number;
}

export class NumericLU {
  /** the symbolic analysis in force (replaced when numeric pivoting changed a block's row order) */
  symbolic: SymbolicLU;
  /** values of the strictly lower part of L, on symbolic.Lp/Li */
  Lx: Float64Array;
  /** values of the strictly upper part of U, on symbolic.Up/Ui */
  Ux: Float64Array;
  /** pivots u_kk of C = A(p,q) */
  readonly Udiag: Float64Array;
  /** values of the off-diagonal blocks, on symbolic.Op/Oi (copied from A by refactor) */
  readonly Ox: Float64Array;
  /** counts of the last factorization: multiplications, additions/subtractions, divisions */
  factorMuls = 0;
  factorAdds = 0;
  factorDivs = 0;
  /** counts of the last solve call (all right-hand sides of a solveMany) */
  solveMuls = 0;
  solveAdds = 0;
  solveDivs = 0;
  /** number of factorizations that had to re-pivot (change a block's row order) */
  repivots = 0;
  /** number of blocks re-pivoted over all factorizations */
  repivotedBlocks = 0;
  /** whether the last factorization re-pivoted */
  pivoted = false;
  /** smallest max|C(:,k)| / max|U(:,k)| over the columns of blocks of size ≥ 2 in the last factorization (1 if none) */
  rgrowth = 1;
  readonly tol: number;
  readonly growthLimit: number;
  readonly names: MatrixNames;
  /** dense work vector of the factorization, zero between columns */
  private readonly x: Float64Array;
  /** dense work vector of the solves */
  private readonly w: Float64Array;
  /** blocks that failed their checks in the last pass */
  private readonly failed: Int32Array;

  constructor(S: SymbolicLU, options: FactorOptions = {}) {
    this.symbolic = S;
    this.tol = options.tol ?? 0.001;
    this.growthLimit = options.growthLimit ?? 1e8;
    if (!(this.tol >= 0 && this.tol <= 1)) throw new RangeError(`tol is ${this.tol}, expected a number in [0, 1]`);
    if (!(this.growthLimit >= 1)) throw new RangeError(`growthLimit is ${this.growthLimit}, expected ≥ 1`);
    this.names = { rowNames: options.rowNames, colNames: options.colNames };
    const n = S.n;
    this.Lx = new Float64Array(S.Lp[n]);
    this.Ux = new Float64Array(S.Up[n]);
    this.Udiag = new Float64Array(n);
    this.Ox = new Float64Array(S.Op[n]);
    this.x = new Float64Array(n);
    this.w = new Float64Array(n);
    this.failed = new Int32Array(S.nblocks);
  }

  get n(): number {
    return this.symbolic.n;
  }

  /**
   * Factorizes again with new values of A, given in A's own CSC order (the Ax of the matrix that
   * was analysed, or any array laid out the same way). Allocation-free unless a re-pivot is needed.
   */
  refactor(Ax: Float64Array): this {
    const S = this.symbolic;
    if (Ax.length < S.nnz) throw new RangeError(`Ax has length ${Ax.length}, expected nnz(A) = ${S.nnz}`);
    const nfail = this.pass(Ax, null);
    this.pivoted = false;
    if (nfail > 0) this.repivotAndRefactor(Ax, nfail);
    return this;
  }

  /** One factorization pass over all blocks; returns how many blocks failed their checks (listed in `failed`). */
  private pass(Ax: Float64Array, forced: Uint8Array | null): number {
    const S = this.symbolic;
    const { r, nblocks, Bp, Bi, Bslot, Op, Oslot, Lp, Li, Up, Ui, p, q } = S;
    const { Lx, Ux, Udiag, Ox, x, failed } = this;
    const tol = this.tol;
    const growthLimit = this.growthLimit;
    const onz = Op[S.n];
    for (let e = 0; e < onz; e++) Ox[e] = Ax[Oslot[e]];
    let muls = 0;
    let divs = 0;
    let nfail = 0;
    let rgrowth = 1;
    for (let b = 0; b < nblocks; b++) {
      const k1 = r[b];
      const k2 = r[b + 1];
      if (k2 - k1 === 1) {
        // 1×1 block: the pivot is the entry itself; no other row can replace it.
        const v = Ax[Bslot[Bp[k1]]];
        if (v === 0 || !(v - v === 0)) this.singular1x1(k1, v);
        Udiag[k1] = v;
        continue;
      }
      const checked = forced === null || forced[b] === 0;
      for (let k = k1; k < k2; k++) {
        let maxA = 0;
        for (let e = Bp[k]; e < Bp[k + 1]; e++) {
          const v = Ax[Bslot[e]];
          x[Bi[e]] = v;
          maxA = Math.max(maxA, Math.abs(v));
        }
        let maxU = 0;
        for (let t = Up[k]; t < Up[k + 1]; t++) {
          const j = Ui[t];
          const u = x[j];
          x[j] = 0;
          Ux[t] = u;
          maxU = Math.max(maxU, Math.abs(u));
          const s1 = Lp[j + 1];
          for (let s = Lp[j]; s < s1; s++) x[Li[s]] -= Lx[s] * u;
          muls += s1 - Lp[j];
        }
        const pivot = x[k];
        x[k] = 0;
        Udiag[k] = pivot;
        const apiv = Math.abs(pivot);
        maxU = Math.max(maxU, apiv);
        let maxL = 0;
        const l1 = Lp[k + 1];
        for (let s = Lp[k]; s < l1; s++) {
          const i = Li[s];
          const v = x[i];
          x[i] = 0;
          maxL = Math.max(maxL, Math.abs(v));
          Lx[s] = v / pivot;
        }
        divs += l1 - Lp[k];
        if (checked) {
          if (!(apiv > 0 && apiv >= tol * maxL && maxU <= growthLimit * maxA && maxA < Infinity)) {
            // Clear the work vector of the rest of the block? Nothing is left in it: every
            // scattered entry lies in this column's pattern and has been zeroed above.
            failed[nfail++] = b;
            break;
          }
        } else if (!(apiv > 0 && apiv < Infinity)) {
          throw new SingularPivotError(q[k], [{ row: p[k], value: pivot }], this.names, 'the re-pivoted factorization met a zero or non-finite pivot');
        }
        if (maxU > 0 && maxA / maxU < rgrowth) rgrowth = maxA / maxU;
      }
    }
    this.factorMuls = muls;
    this.factorAdds = muls;
    this.factorDivs = divs;
    this.rgrowth = rgrowth;
    return nfail;
  }

  private singular1x1(k: number, v: number): never {
    const S = this.symbolic;
    if (v === 0) throw new SingularPivotError(S.q[k], [{ row: S.p[k], value: v }], this.names, 'the only candidate pivot (a 1×1 block of the block triangular form) is zero');
    throw new RangeError(`A has a non-finite value ${v} at row ${S.p[k]}, column ${S.q[k]}; values must be finite`);
  }

  /** Exceptional path: new row orders for the failed blocks, exact patterns for them, then a forced pass. */
  private repivotAndRefactor(Ax: Float64Array, nfail: number): void {
    const S = this.symbolic;
    const failedBlocks = Array.from(this.failed.subarray(0, nfail));
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
      const rows = repivot(S, b, Ax, this.tol, this.names);
      const newPos = new Int32Array(nb);
      for (let t = 0; t < nb; t++) {
        pNew[k1 + t] = S.p[k1 + rows[t]];
        newPos[rows[t]] = t;
      }
      const { Bp, Bi } = S.blockMatrix(b);
      for (let e = 0; e < Bi.length; e++) Bi[e] = newPos[Bi[e]];
      patterns.push(luPattern(nb, Bp, Bi));
    }
    const S2 = new SymbolicLU(S.n, S.Ap, S.Ai, pNew, S.q, S.r, patterns, S.orderings, S.repivoted + nfail);
    this.symbolic = S2;
    this.Lx = new Float64Array(S2.Lp[S2.n]);
    this.Ux = new Float64Array(S2.Up[S2.n]);
    const again = this.pass(Ax, forced);
    if (again > 0) {
      // Blocks that passed before see the same arithmetic now; a failure here is a bug.
      throw new Error(`internal error: ${again} block(s) failed after re-pivoting`);
    }
    this.pivoted = true;
    this.repivots++;
    this.repivotedBlocks += nfail;
  }

  /** x = A \ b (x may alias b). No allocation. */
  solve(x: Float64Array, b: Float64Array): Float64Array {
    const n = this.symbolic.n;
    if (b.length !== n) throw new RangeError(`b has length ${b.length}, expected n = ${n}`);
    if (x.length !== n) throw new RangeError(`x has length ${x.length}, expected n = ${n}`);
    this.solveMuls = 0;
    this.solveAdds = 0;
    this.solveDivs = 0;
    this.solveInto(x, 0, b, 0);
    return x;
  }

  /**
   * X = A \ B for nrhs right-hand sides stored column after column (B[c·n + i]); X may alias B.
   * No allocation.
   */
  solveMany(X: Float64Array, B: Float64Array, nrhs: number): Float64Array {
    const n = this.symbolic.n;
    if (!(Number.isInteger(nrhs) && nrhs >= 0)) throw new RangeError(`nrhs is ${nrhs}, expected a non-negative integer`);
    if (B.length !== n * nrhs) throw new RangeError(`B has length ${B.length}, expected n·nrhs = ${n * nrhs}`);
    if (X.length !== n * nrhs) throw new RangeError(`X has length ${X.length}, expected n·nrhs = ${n * nrhs}`);
    this.solveMuls = 0;
    this.solveAdds = 0;
    this.solveDivs = 0;
    for (let c = 0; c < nrhs; c++) this.solveInto(X, c * n, B, c * n);
    return X;
  }

  /**
   * w = b(p); block back-substitution from the last block up:
   *   y_b = U_bb \ (L_bb \ w_b);  w(rows above) -= C(rows above, block b) y_b;  x(q) = y.
   */
  private solveInto(X: Float64Array, xo: number, B: Float64Array, bo: number): void {
    const S = this.symbolic;
    const { n, r, nblocks, p, q, Lp, Li, Up, Ui, Op, Oi } = S;
    const { Lx, Ux, Udiag, Ox, w } = this;
    for (let k = 0; k < n; k++) w[k] = B[bo + p[k]];
    let fl = 0;
    for (let b = nblocks - 1; b >= 0; b--) {
      const k1 = r[b];
      const k2 = r[b + 1];
      if (k2 - k1 === 1) {
        w[k1] /= Udiag[k1];
      } else {
        for (let j = k1; j < k2; j++) {
          const xj = w[j];
          const s1 = Lp[j + 1];
          for (let s = Lp[j]; s < s1; s++) w[Li[s]] -= Lx[s] * xj;
        }
        for (let j = k2 - 1; j >= k1; j--) {
          const xj = (w[j] /= Udiag[j]);
          const t1 = Up[j + 1];
          for (let t = Up[j]; t < t1; t++) w[Ui[t]] -= Ux[t] * xj;
        }
        fl += Lp[k2] - Lp[k1] + Up[k2] - Up[k1];
      }
      for (let j = k1; j < k2; j++) {
        const xj = w[j];
        const e1 = Op[j + 1];
        for (let e = Op[j]; e < e1; e++) w[Oi[e]] -= Ox[e] * xj;
      }
      fl += Op[k2] - Op[k1];
    }
    for (let k = 0; k < n; k++) X[xo + q[k]] = w[k];
    this.solveMuls += fl;
    this.solveAdds += fl;
    this.solveDivs += n;
  }
}

/**
 * lu = factor(A, S): numeric LU of A on the analysis S (threshold partial pivoting with diagonal
 * preference the first time; see NumericLU). A's pattern must be the one S was computed from.
 */
export function factor(A: CscMatrix, S: SymbolicLU, options: FactorOptions = {}): NumericLU {
  if (A.m !== A.n) throw new RangeError(`A is ${A.m}×${A.n}; LU needs a square matrix`);
  if (A.n !== S.n) throw new RangeError(`A has order ${A.n}, the analysis has n = ${S.n}`);
  const n = A.n;
  for (let j = 0; j <= n; j++) if (A.Ap[j] !== S.Ap[j]) throw new RangeError(`A's pattern differs from the analysed one at column ${Math.max(0, j - 1)}`);
  const nz = A.Ap[n];
  for (let t = 0; t < nz; t++) if (A.Ai[t] !== S.Ai[t]) throw new RangeError(`A's pattern differs from the analysed one at entry ${t} (row ${A.Ai[t]})`);
  return new NumericLU(S, options).refactor(A.Ax);
}
