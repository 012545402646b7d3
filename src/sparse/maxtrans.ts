/**
 * [jmatch, imatch] = maxtrans(A): a maximum matching of rows to columns of the pattern of an
 * m×n matrix (square or rectangular), i.e. a maximum transversal; its size is the structural rank.
 * Source: I. S. Duff, "On algorithms for obtaining a maximum transversal", ACM TOMS 7 (1981) and
 * Duff 1977 (MC21): a cheap greedy pass, then one depth-first search for an augmenting path per
 * unmatched column, with a look-ahead for a free row at each column visited. The search is
 * iterative (explicit stacks), so long chains cannot overflow the call stack. Every column's
 * look-ahead pointer only moves forward (a matched row never becomes free again), which keeps
 * the total look-ahead work O(nnz).
 */
import type { CscMatrix } from './csc.ts';

export interface Matching {
  /** jmatch[j] = row matched to column j, or -1 */
  readonly jmatch: Int32Array;
  /** imatch[i] = column matched to row i, or -1 */
  readonly imatch: Int32Array;
  /** number of matched pairs: the structural rank of A */
  readonly rank: number;
}

export function maxtrans(A: Pick<CscMatrix, 'm' | 'n' | 'Ap' | 'Ai'>): Matching {
  const { m, n, Ap, Ai } = A;
  const jmatch = new Int32Array(n).fill(-1);
  const imatch = new Int32Array(m).fill(-1);
  const cheap = new Int32Array(n); // look-ahead pointer of each column
  let rank = 0;
  // Cheap pass: match each column to its first free row.
  for (let j = 0; j < n; j++) {
    let p = Ap[j];
    const end = Ap[j + 1];
    for (; p < end; p++) {
      const i = Ai[p];
      if (imatch[i] === -1) {
        imatch[i] = j;
        jmatch[j] = i;
        rank++;
        p++;
        break;
      }
    }
    cheap[j] = p;
  }
  if (rank === Math.min(m, n)) return { jmatch, imatch, rank };
  const mark = new Int32Array(n).fill(-1); // mark[c] = start column of the search that visited c
  const ptr = new Int32Array(n); // depth-first pointer of each column in the current search
  const colStack = new Int32Array(n);
  const rowVia = new Int32Array(n); // rowVia[h] = row taken from colStack[h] to reach colStack[h+1] (or the free row)
  for (let j0 = 0; j0 < n; j0++) {
    if (jmatch[j0] !== -1) continue;
    let head = 0;
    colStack[0] = j0;
    mark[j0] = j0;
    ptr[j0] = Ap[j0];
    while (head >= 0) {
      const c = colStack[head];
      const end = Ap[c + 1];
      // Look-ahead: a free row in column c ends the path.
      let free = -1;
      let p = cheap[c];
      for (; p < end; p++) {
        if (imatch[Ai[p]] === -1) {
          free = Ai[p];
          p++;
          break;
        }
      }
      cheap[c] = p;
      if (free !== -1) {
        rowVia[head] = free;
        for (let h = head; h >= 0; h--) {
          const col = colStack[h];
          const row = rowVia[h];
          jmatch[col] = row;
          imatch[row] = col;
        }
        rank++;
        break;
      }
      // Depth-first: go on through the column matched to a row of c not yet visited.
      let descended = false;
      for (p = ptr[c]; p < end; p++) {
        const i = Ai[p];
        const c2 = imatch[i];
        if (mark[c2] !== j0) {
          mark[c2] = j0;
          ptr[c] = p + 1;
          rowVia[head] = i;
          head++;
          colStack[head] = c2;
          ptr[c2] = Ap[c2];
          descended = true;
          break;
        }
      }
      if (!descended) {
        ptr[c] = end;
        head--;
      }
    }
  }
  return { jmatch, imatch, rank };
}
