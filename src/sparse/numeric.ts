/**
 * lu = new NumericLU(S, options); lu.refactor(A.Ax); lu.solve(x, b): the runtime LU of C = A(p,q)
 * block by block on the patterns of a SymbolicLU, filled in place; solves through the block
 * triangular form, off-diagonal blocks used only in the solve. The class is the door: its storage
 * is LUFactors (factors.ts) and each method runs the function of its contract in its own file —
 *   refactor            refactor.ts (block-factor.ts, scale.ts, codegen.ts; repivot.ts on failure)
 *   refactorSource      refactor-source.ts
 *   solve, solveNegated, solveMany, solveBufferNegated, solveUnrefined   solve.ts (block-solve.ts, refine.ts)
 *   solveManySparse     solve-sparse.ts;   solveManyReach   solve-reach.ts
 *   solveTransposed     tsolve.ts;   rgrowth   rgrowth.ts;   getL, getU   extract.ts
 *   restart and construction   layout.ts
 * lu = factor(A, S), here, is the allocating first factorization: a NumericLU and its first refactor.
 * Source: left-looking LU with static patterns (Gilbert & Peierls 1988; KLU, Davis & Palamadai
 * Natarajan, ACM TOMS 37, 2010); block back-substitution over the BTF (Duff & Reid 1978).
 *
 * `refactor`, `solve`, `solveMany` and `solveTransposed` allocate nothing: workspaces are created
 * with the object.
 */
import type { CscMatrix } from './csc.ts';
import { extractL, extractU } from './extract.ts';
import { LUFactors, type FactorOptions } from './factors.ts';
import { layoutLU } from './layout.ts';
import type { SolveReach } from './reach.ts';
import { refactorLU } from './refactor.ts';
import { refactorSourceLU } from './refactor-source.ts';
import { rgrowthLU } from './rgrowth.ts';
import { solveCompiled, solveInto } from './solve.ts';
import { solveManyReachLU } from './solve-reach.ts';
import { solveManySparseLU } from './solve-sparse.ts';
import type { SymbolicLU } from './symbolic.ts';
import { solveTransposedLU } from './tsolve.ts';

export type { FactorOptions } from './factors.ts';

/**
 * The runtime LU on the patterns of a SymbolicLU: `refactor(Ax)` fills L and U in place for new
 * values, `solve` and `solveMany` solve through the block triangular form; exact flop counters.
 * Allocation free per call.
 * Its storage (factors, counters, options) is LUFactors; each method is a door into the file of
 * its contract.
 */
export class NumericLU extends LUFactors {
  constructor(S: SymbolicLU, options: FactorOptions = {}) {
    super(S, options);
    layoutLU(this);
  }

  /**
   * The compiled code's right-hand side buffer (b, unpermuted; null without compiled code or with
   * row scaling): write b there and call `solveBufferNegated`. It belongs to the current code (a
   * new layout brings new code): fetch it before each step.
   */
  get rhsBuffer(): Float64Array | null {
    return this.code === null || this.scaling !== 'none' ? null : this.code.B;
  }

  /** the WebAssembly memory of the compiled code (null without), for code generated to work beside it */
  get codeMemory(): WebAssembly.Memory | null {
    return this.code === null ? null : this.code.memory;
  }

  /** x = A \ (−b) with b in `rhsBuffer`, as solveNegated(x, b) bit for bit, counts included. No allocation. */
  solveBufferNegated(x: Float64Array): Float64Array {
    this.solveBuffer(x, 'solveBufferNegated');
    this.settle(x);
    return x;
  }

  /**
   * solveBufferNegated(x), the copy into x deferred: returns the compiled code's own solution
   * buffer (read only), and x receives it before anything else runs on these factors (any call of
   * this NumericLU) or when `settle()` is called. Where the compiled code does not solve whole (the
   * loop kernels' JavaScript solve), solves into x and returns x. Same values and counts as
   * solveBufferNegated. No allocation.
   */
  solveBufferNegatedDeferred(x: Float64Array): Float64Array {
    return this.solveBuffer(x, 'solveBufferNegatedDeferred');
  }

  private solveBuffer(x: Float64Array, what: string): Float64Array {
    const B = this.rhsBuffer;
    if (B === null) throw new RangeError(`${what}: no compiled code with a right-hand side buffer (rhsBuffer is null)`);
    if (x.length !== this.symbolic.n) throw new RangeError(`x has length ${x.length}, expected n = ${this.symbolic.n}`);
    this.settle();
    this.resetSolveCounts();
    const out = solveCompiled(this, B, 0, true);
    if (out === null) {
      solveInto(this, x, 0, B, 0, true);
      return x;
    }
    this.defer(x, out);
    return out;
  }

  /** whether the refactor and solve run compiled code (FactorOptions.compile) */
  get compiled(): boolean {
    return this.code !== null;
  }

  /** kind ('straight': straight-line code, statements > 0; 'loops': loop kernels), statements and WebAssembly bytes of the compiled code, or null */
  get compiledSize(): { kind: 'straight' | 'loops'; statements: number; bytes: number } | null {
    return this.code === null ? null : { kind: this.code.kind, statements: this.code.statements, bytes: this.code.bytes };
  }

  /**
   * Factorizes again with new values of A, given in A's own CSC order (the Ax of the matrix that
   * was analysed, or any array laid out the same way). Allocation-free unless a re-pivot is needed.
   */
  refactor(Ax: Float64Array): this {
    this.settle();
    refactorLU(this, Ax);
    return this;
  }

  /**
   * The source vector of FactorOptions.gather (A's entry t is source[map[t]]): write it, then call
   * refactorSource. The array changes when the code is compiled: fetch it before each fill.
   */
  get source(): Float64Array {
    if (this.gmap === null) throw new RangeError('source: this NumericLU was created without the gather option');
    return this.src;
  }

  /**
   * refactor() with the values of A in the source vector (FactorOptions.gather): the compiled code
   * reads them in place; otherwise A is gathered (A[t] = source[map[t]]) and refactored as usual.
   * Same factors and counts as refactor() on the gathered A. Allocation-free unless a re-pivot is needed.
   */
  refactorSource(): this {
    this.settle();
    refactorSourceLU(this);
    return this;
  }

  /**
   * Return to the row order of `S` (an analysis of the same matrix pattern, e.g. the one in force
   * before re-pivotings), so that the next refactor follows it: a run split into pieces gives the
   * same factors in every piece as in one pass. Allocates when the order changes (exceptional path).
   */
  restart(S: SymbolicLU): void {
    this.settle();
    if (S === this.symbolic) return;
    const C = this.symbolic;
    if (S.n !== C.n || S.nnz !== C.nnz) throw new RangeError(`restart: the analysis (n = ${S.n}, nnz = ${S.nnz}) is not of this matrix (n = ${C.n}, nnz = ${C.nnz})`);
    this.symbolic = S;
    layoutLU(this);
  }

  /** u_kk, the k-th pivot of C = A(p,q). */
  pivot(k: number): number {
    return this.LUx[this.dpos[k]];
  }

  /**
   * Pivot growth of the last factorization, min over the blocks of size ≥ 2 of
   * max|C_bb| / max|U_bb| (KLU's rgrowth; 1 when all blocks are 1×1). Small values warn of
   * instability. `Ax`: the values last given to refactor (their scaled copy is used when rows are
   * scaled). Allocation-free.
   */
  rgrowth(Ax: Float64Array): number {
    return rgrowthLU(this, Ax);
  }

  /** L of C = A(p,q) as a CSC matrix with its unit diagonal (allocates; for inspection and tests). */
  getL(): CscMatrix {
    return extractL(this);
  }

  /** U of C = A(p,q) within the diagonal blocks, with its diagonal (allocates; for inspection and tests). */
  getU(): CscMatrix {
    return extractU(this);
  }

  /** Before a solve of one right-hand side: the factors settled, x's and b's lengths checked, the solve's counters reset. */
  private oneSolve(x: Float64Array, b: Float64Array): void {
    this.settle();
    const n = this.symbolic.n;
    if (b.length !== n) throw new RangeError(`b has length ${b.length}, expected n = ${n}`);
    if (x.length !== n) throw new RangeError(`x has length ${x.length}, expected n = ${n}`);
    this.resetSolveCounts();
  }

  /** x = A \ b (x may alias b). No allocation. */
  solve(x: Float64Array, b: Float64Array): Float64Array {
    this.oneSolve(x, b);
    solveInto(this, x, 0, b, 0, false);
    return x;
  }

  /** x = A \ (−b), as solve(x, −b) bit for bit (negation is exact), without forming −b. No allocation. */
  solveNegated(x: Float64Array, b: Float64Array): Float64Array {
    this.oneSolve(x, b);
    solveInto(this, x, 0, b, 0, true);
    return x;
  }

  /**
   * x = A \ b by the factors alone (x may alias b): `solve` without its refinement step (the
   * blocks of size ≥ 2 are solved once), for solves whose result needs no last digits, such as a
   * norm estimate's (LAPACK's xGECON and KLU's condest solve with the factors alone). Without
   * refinement in the options, the same as `solve`. The compiled code and the JavaScript give the
   * same bits; the counters count the solve (no refinement). No allocation.
   */
  solveUnrefined(x: Float64Array, b: Float64Array): Float64Array {
    this.oneSolve(x, b);
    solveInto(this, x, 0, b, 0, false, false);
    return x;
  }

  /** x = Aᵀ \ b as `solveTransposed`, without the refinement step (see solveUnrefined). No allocation. */
  solveTransposedUnrefined(x: Float64Array, b: Float64Array): Float64Array {
    this.settle();
    return solveTransposedLU(this, x, b, false);
  }

  /**
   * X = A \ B for nrhs right-hand sides stored column after column (B[c·n + i]); X may alias B.
   * No allocation.
   */
  solveMany(X: Float64Array, B: Float64Array, nrhs: number): Float64Array {
    this.settle();
    const n = this.symbolic.n;
    if (!(Number.isInteger(nrhs) && nrhs >= 0)) throw new RangeError(`nrhs is ${nrhs}, expected a non-negative integer`);
    if (B.length !== n * nrhs) throw new RangeError(`B has length ${B.length}, expected n·nrhs = ${n * nrhs}`);
    if (X.length !== n * nrhs) throw new RangeError(`X has length ${X.length}, expected n·nrhs = ${n * nrhs}`);
    this.resetSolveCounts();
    for (let c = 0; c < nrhs; c++) solveInto(this, X, c * n, B, c * n, false);
    return X;
  }

  /**
   * X = A \ B like `solveMany`, for sparse right-hand sides: a column of L or U is applied only when
   * the unknown it multiplies is nonzero, so a solve touches only the rows its right-hand side's
   * pattern can reach (zero work skipped). The counters count the work done (at most solveMany's).
   * The solution equals solveMany's (up to the sign of zeros). With refinement and a diagonal block
   * of size ≥ 2, solves as solveMany does. No allocation.
   */
  solveManySparse(X: Float64Array, B: Float64Array, nrhs: number): Float64Array {
    this.settle();
    if (this.refine > 0 && this.hasBigBlock) return this.solveMany(X, B, nrhs);
    return solveManySparseLU(this, X, B, nrhs);
  }

  /**
   * X = A \ B (or A \ (−B) with `negate`, bit for bit the negated solution) for right-hand sides
   * with fixed patterns: column c of B is zero outside the pattern `pattern[c]` of `reach`
   * (solveReach, reach.ts), and only the ops of that pattern's reach run, in the solve's order — no
   * loop over all n unknowns. X may alias B; X's column is zero outside the reach afterwards. The
   * solution equals solveMany's up to the sign of zeros; the counters count the ops done (the
   * reach's static counts). With refinement and a block of size ≥ 2, or when the reach belongs to
   * another SymbolicLU (re-pivoted since), solves as solveMany does (then negated). No allocation.
   */
  solveManyReach(X: Float64Array, B: Float64Array, nrhs: number, reach: SolveReach, pattern: Int32Array, negate = false): Float64Array {
    this.settle();
    return solveManyReachLU(this, X, B, nrhs, reach, pattern, negate);
  }

  /**
   * x = Aᵀ \ b (x may alias b). No allocation. With C = A(p,q): Cᵀ (x(p)) = b(q), Cᵀ block lower
   * triangular, solved from the first block down. Same counts as `solve`.
   *   y_j = (w_j − Σ_{i above j} C(i,j) y_i) / u_jj   (Uᵀ and the off-diagonal blocks, dot products)
   *   z_j = y_j − Σ_{i ∈ L(:,j)} l_ij z_i, j descending in the block   (Lᵀ, unit diagonal)
   * With refinement, a block's Cᵀ_bb z = w_b is refined as in `solve` (residual w_b − Cᵀ_bb z).
   * With row scaling, (R C)ᵀ (R⁻¹ x(p)) = b(q) is solved: x(p) = R y.
   */
  solveTransposed(x: Float64Array, b: Float64Array): Float64Array {
    this.settle();
    return solveTransposedLU(this, x, b);
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
