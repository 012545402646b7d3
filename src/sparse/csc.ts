/**
 * A = csc(m, n, Ap, Ai, Ax): the compressed-sparse-column matrix type and its validated constructor.
 * Source: T. A. Davis, Direct Methods for Sparse Linear Systems (SIAM 2006), ch. 2 (CSparse `cs`).
 *
 * Column j holds rows Ai[Ap[j] .. Ap[j+1]-1] with values Ax[...]; Ap has n+1 entries, Ap[0] = 0.
 * Duplicates are not allowed (assemble through `compress`, which sums them); row order within a
 * column is free, though `compress` and `transpose` produce sorted columns.
 */

export interface CscMatrix {
  /** number of rows */
  readonly m: number;
  /** number of columns */
  readonly n: number;
  /** column pointers, length n+1 */
  readonly Ap: Int32Array;
  /** row indices, length Ap[n] */
  readonly Ai: Int32Array;
  /** values, length Ap[n]; written in place by callers whose pattern is fixed */
  readonly Ax: Float64Array;
}

/** Builds a CscMatrix after checking sizes, pointers, row indices and duplicates. */
export function csc(m: number, n: number, Ap: Int32Array, Ai: Int32Array, Ax?: Float64Array): CscMatrix {
  checkPattern(m, n, Ap, Ai);
  const nz = Ap[n];
  const x = Ax ?? new Float64Array(nz);
  if (x.length < nz) throw new RangeError(`Ax has length ${x.length}, expected at least Ap[n] = ${nz}`);
  return { m, n, Ap, Ai, Ax: x };
}

/**
 * Checks a CSC pattern: sizes, monotone pointers from 0, row indices in range, no duplicates.
 * Throws a RangeError naming the first fault. O(m + nnz).
 */
export function checkPattern(m: number, n: number, Ap: Int32Array, Ai: Int32Array): void {
  if (!Number.isInteger(m) || m < 0 || !Number.isInteger(n) || n < 0) {
    throw new RangeError(`matrix size ${m}×${n} is not a pair of non-negative integers`);
  }
  if (Ap.length !== n + 1) throw new RangeError(`Ap has length ${Ap.length}, expected n+1 = ${n + 1}`);
  if (Ap[0] !== 0) throw new RangeError(`Ap[0] is ${Ap[0]}, expected 0`);
  const nz = Ap[n];
  if (Ai.length < nz) throw new RangeError(`Ai has length ${Ai.length}, expected at least Ap[n] = ${nz}`);
  const mark = new Int32Array(m).fill(-1);
  for (let j = 0; j < n; j++) {
    if (Ap[j + 1] < Ap[j]) throw new RangeError(`Ap is decreasing at column ${j}`);
    for (let p = Ap[j]; p < Ap[j + 1]; p++) {
      const i = Ai[p];
      if (!(i >= 0 && i < m)) throw new RangeError(`row index ${i} in column ${j} is outside 0..${m - 1}`);
      if (mark[i] === j) throw new RangeError(`duplicate entry (${i}, ${j}); assemble with compress() to sum duplicates`);
      mark[i] = j;
    }
  }
}

/** Number of stored entries, Ap[n]. */
export function nnz(A: CscMatrix): number {
  return A.Ap[A.n];
}
