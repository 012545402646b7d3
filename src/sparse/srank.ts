/**
 * [rank, unmatchedRows, unmatchedCols] = structuralRank(A): structural rank of the pattern of an
 * m×n matrix and the rows and columns a maximum transversal leaves unmatched.
 * Source: Duff 1981 (maximum transversal, see maxtrans.ts).
 *
 * The unmatched sets depend on the matching found; the sets that do not are given by
 * `dmperm` (coarse Dulmage–Mendelsohn decomposition).
 */
import type { CscMatrix } from './csc.ts';
import { maxtrans } from './maxtrans.ts';

/**
 * The result of `structuralRank`: the rank and a maximum matching with its unmatched rows and
 * columns.
 */
export interface StructuralRank {
  readonly rank: number;
  /** rows i with imatch[i] = -1, ascending */
  readonly unmatchedRows: Int32Array;
  /** columns j with jmatch[j] = -1, ascending */
  readonly unmatchedCols: Int32Array;
  /** jmatch[j] = row matched to column j, or -1 */
  readonly jmatch: Int32Array;
  /** imatch[i] = column matched to row i, or -1 */
  readonly imatch: Int32Array;
}

/**
 * The structural rank of the pattern of an m×n matrix and the rows and columns a maximum
 * transversal leaves unmatched.
 */
export function structuralRank(A: Pick<CscMatrix, 'm' | 'n' | 'Ap' | 'Ai'>): StructuralRank {
  const { jmatch, imatch, rank } = maxtrans(A);
  return { rank, unmatchedRows: unmatched(imatch, A.m - rank), unmatchedCols: unmatched(jmatch, A.n - rank), jmatch, imatch };
}

function unmatched(match: Int32Array, count: number): Int32Array {
  const out = new Int32Array(count);
  let t = 0;
  for (let k = 0; k < match.length; k++) if (match[k] === -1) out[t++] = k;
  return out;
}
