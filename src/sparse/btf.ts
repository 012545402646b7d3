/**
 * [p, q, r] = btf(A): block upper triangular form C = A(p,q) of a square, structurally nonsingular
 * matrix, with zero-free diagonal; diagonal block b spans rows and columns r[b] .. r[b+1]-1 and
 * C(i,j) = 0 whenever block(i) > block(j).
 * Source: Duff 1977 (maximum transversal) + Tarjan 1972 (strongly connected components of the
 * graph with an edge j → k when column j holds the row matched to column k); Duff & Reid,
 * ACM TOMS 4 (1978). A is triangular under row and column permutations exactly when every block
 * is 1×1 — found here in near-linear time at any size.
 */
import type { CscMatrix } from './csc.ts';
import { assertSquare, StructurallySingularError, type MatrixNames } from './errors.ts';
import { maxtrans } from './maxtrans.ts';
import { scc } from './scc.ts';
import { structuralRank } from './srank.ts';

/** The result of `btf`: the permutations p, q and the block boundaries r of C = A(p, q). */
export interface BlockTriangularForm {
  /** p[k] = row of A at row k of C */
  readonly p: Int32Array;
  /** q[k] = column of A at column k of C */
  readonly q: Int32Array;
  /** block boundaries, length nblocks+1 */
  readonly r: Int32Array;
  readonly nblocks: number;
}

/**
 * [p, q, r] = btf(A): block upper triangular form C = A(p, q) of a square, structurally nonsingular
 * pattern, with a zero-free diagonal.
 */
export function btf(A: Pick<CscMatrix, 'm' | 'n' | 'Ap' | 'Ai'>, names?: MatrixNames): BlockTriangularForm {
  assertSquare(A.m, A.n);
  const n = A.n;
  const { jmatch, imatch, rank } = maxtrans(A);
  if (rank < n) {
    const sr = structuralRank(A);
    throw new StructurallySingularError(n, sr.rank, sr.unmatchedRows, sr.unmatchedCols, names);
  }
  const { Ap, Ai } = A;
  const nz = Ap[n];
  // Graph on columns: j → imatch[i] for every row i of column j (self loops dropped).
  const Gp = new Int32Array(n + 1);
  const Gi = new Int32Array(nz);
  let t = 0;
  for (let j = 0; j < n; j++) {
    Gp[j] = t;
    for (let p = Ap[j]; p < Ap[j + 1]; p++) {
      const k = imatch[Ai[p]];
      if (k !== j) Gi[t++] = k;
    }
  }
  Gp[n] = t;
  const { order, r, count } = scc(n, Gp, Gi);
  const p = new Int32Array(n);
  for (let k = 0; k < n; k++) p[k] = jmatch[order[k]];
  return { p, q: order, r, nblocks: count };
}
