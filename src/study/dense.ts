/**
 * The dense LU of the same matrix, for comparison with the sparse path: ml-matrix's
 * LuDecomposition (JAMA's left-looking Doolittle with partial pivoting, Golub & Van Loan §3.4) and
 * its `solve`. ml-matrix has no flop counter, so its operations are counted by formula, exactly for
 * the loops it runs (node_modules/ml-matrix/src/dc/lu.js), at order n with r right-hand sides:
 *   factor: for each column j and row i, s = Σ_{k<min(i,j)} LU_ik x_k, then x_i −= s:
 *           mul = Σ_{i,j<n} min(i,j) = (n−1) n (2n−1)/6,  add = mul + n²,  div = n(n−1)/2;
 *   solve:  forward and backward substitution, per right-hand side
 *           mul = add = n(n−1),  div = n.
 * Pivot-row swaps and the pivot search are comparisons and copies (not counted).
 */
import { LuDecomposition, Matrix } from 'ml-matrix';
import { Flops } from '../spatial/flops.ts';

/** Flops of ml-matrix's LuDecomposition of an n×n matrix (nonsingular: every pivot nonzero). */
export function denseLuFactorFlops(n: number): Flops {
  const f = new Flops();
  f.mul = ((n - 1) * n * (2 * n - 1)) / 6;
  f.add = f.mul + n * n;
  f.div = (n * (n - 1)) / 2;
  return f;
}

/** Flops of LuDecomposition.solve with `nrhs` right-hand sides. */
export function denseLuSolveFlops(n: number, nrhs = 1): Flops {
  const f = new Flops();
  f.mul = n * (n - 1) * nrhs;
  f.add = n * (n - 1) * nrhs;
  f.div = n * nrhs;
  return f;
}

/** A dense n×n matrix and right-hand sides, refilled in place, factorized and solved by ml-matrix. */
export class DenseLu {
  readonly A: Matrix;
  readonly B: Matrix;
  /** the solution of the last call (n × nrhs) */
  X: Matrix;

  constructor(readonly n: number, readonly nrhs = 1) {
    this.A = new Matrix(n, n);
    this.B = new Matrix(n, nrhs);
    this.X = new Matrix(n, nrhs);
  }

  /** Write a CSC matrix's values into A (zeros elsewhere). */
  setFromCsc(Ap: Int32Array, Ai: Int32Array, Ax: Float64Array, rowOffset = 0, colOffset = 0): void {
    for (let j = 0; j + 1 < Ap.length; j++) {
      for (let p = Ap[j]; p < Ap[j + 1]; p++) this.A.set(Ai[p] + rowOffset, j + colOffset, Ax[p]);
    }
  }

  /** X = A \ B (allocates: ml-matrix copies A and B). */
  solve(): Matrix {
    this.X = new LuDecomposition(this.A).solve(this.B);
    return this.X;
  }
}
