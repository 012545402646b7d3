/**
 * [jmatch, imatch] = maxtrans(A): a maximum matching of rows to columns of the pattern of an
 * m×n matrix (square or rectangular), i.e. a maximum transversal; its size is the structural rank.
 * Source: I. S. Duff, "On algorithms for obtaining a maximum transversal", ACM TOMS 7 (1981) and
 * Duff 1977 (MC21): depth-first searches for augmenting paths with a look-ahead for a free row at
 * each column visited; organised in phases as A. Pothen & C.-J. Fan, ACM TOMS 16 (1990) (rows
 * visited once per phase, so a phase costs O(nnz) however many searches it holds, and the scan
 * direction alternates between phases). Cheap first pass: R. M. Karp & M. Sipser (1981), matching
 * vertices of degree one first (which alone matches any permuted triangular matrix), then greedy.
 * All searches are iterative (explicit stacks): long chains cannot overflow the call stack.
 */
import { checkPattern, type CscMatrix } from './csc.ts';

/** A maximum matching of rows to columns: jmatch, imatch and its size (the structural rank). */
export interface Matching {
  /** jmatch[j] = row matched to column j, or -1 */
  readonly jmatch: Int32Array;
  /** imatch[i] = column matched to row i, or -1 */
  readonly imatch: Int32Array;
  /** number of matched pairs: the structural rank of A */
  readonly rank: number;
}

/**
 * [jmatch, imatch] = maxtrans(A): a maximum transversal of the pattern of an m×n matrix (Duff's
 * algorithm).
 */
export function maxtrans(A: Pick<CscMatrix, 'm' | 'n' | 'Ap' | 'Ai'>): Matching {
  const { m, n, Ap, Ai } = A;
  checkPattern(m, n, Ap, Ai);
  const jmatch = new Int32Array(n).fill(-1);
  const imatch = new Int32Array(m).fill(-1);
  let rank = cheapMatching(m, n, Ap, Ai, jmatch, imatch);
  if (rank === Math.min(m, n)) return { jmatch, imatch, rank };
  const cheap = Ap.slice(0, n); // look-ahead pointer of each column (only moves forward)
  const visited = new Int32Array(m).fill(-1); // phase in which a row was visited
  const ptr = new Int32Array(n); // depth-first pointer of each column in the current search
  const colStack = new Int32Array(n);
  const rowVia = new Int32Array(n); // rowVia[h]: row taken from colStack[h] to colStack[h+1] (or the free row)
  const free = new Int32Array(n);
  for (let phase = 0; ; phase++) {
    const forward = (phase & 1) === 0;
    let nfree = 0;
    for (let j = 0; j < n; j++) if (jmatch[j] === -1) free[nfree++] = j;
    let augmented = 0;
    for (let f = 0; f < nfree; f++) {
      const j0 = free[f];
      let head = 0;
      colStack[0] = j0;
      ptr[j0] = forward ? Ap[j0] : Ap[j0 + 1] - 1;
      while (head >= 0) {
        const c = colStack[head];
        const start = Ap[c];
        const end = Ap[c + 1];
        // Look-ahead: a free row in column c ends the path.
        let freeRow = -1;
        let p = cheap[c];
        for (; p < end; p++) {
          if (imatch[Ai[p]] === -1) {
            freeRow = Ai[p];
            p++;
            break;
          }
        }
        cheap[c] = p;
        if (freeRow !== -1) {
          rowVia[head] = freeRow;
          for (let h = head; h >= 0; h--) {
            jmatch[colStack[h]] = rowVia[h];
            imatch[rowVia[h]] = colStack[h];
          }
          visited[freeRow] = phase;
          rank++;
          augmented++;
          break;
        }
        // Depth-first: on through the column matched to a row not yet visited in this phase.
        let next = -1;
        if (forward) {
          for (p = ptr[c]; p < end; p++) {
            const i = Ai[p];
            if (visited[i] !== phase) {
              visited[i] = phase;
              next = i;
              p++;
              break;
            }
          }
        } else {
          for (p = ptr[c]; p >= start; p--) {
            const i = Ai[p];
            if (visited[i] !== phase) {
              visited[i] = phase;
              next = i;
              p--;
              break;
            }
          }
        }
        ptr[c] = p;
        if (next === -1) {
          head--;
          continue;
        }
        rowVia[head] = next;
        const c2 = imatch[next];
        colStack[++head] = c2;
        ptr[c2] = forward ? Ap[c2] : Ap[c2 + 1] - 1;
      }
    }
    if (augmented === 0 || rank === Math.min(m, n)) break;
  }
  return { jmatch, imatch, rank };
}

/**
 * Karp–Sipser: while a row or column has exactly one unmatched neighbour, match them (always
 * part of some maximum matching); otherwise match an unmatched column to any free row. Returns
 * the number of pairs matched.
 */
function cheapMatching(m: number, n: number, Ap: Int32Array, Ai: Int32Array, jmatch: Int32Array, imatch: Int32Array): number {
  const nz = Ap[n];
  // Row-wise pattern.
  const Rp = new Int32Array(m + 1);
  for (let t = 0; t < nz; t++) Rp[Ai[t] + 1]++;
  for (let i = 0; i < m; i++) Rp[i + 1] += Rp[i];
  const next = Rp.slice(0, m);
  const Rj = new Int32Array(nz);
  for (let j = 0; j < n; j++) for (let t = Ap[j]; t < Ap[j + 1]; t++) Rj[next[Ai[t]]++] = j;
  // Live degrees; a queue of degree-one vertices (columns as j, rows as n + i).
  const cdeg = new Int32Array(n);
  const rdeg = new Int32Array(m);
  for (let j = 0; j < n; j++) cdeg[j] = Ap[j + 1] - Ap[j];
  for (let i = 0; i < m; i++) rdeg[i] = Rp[i + 1] - Rp[i];
  const queue = new Int32Array(m + n); // a vertex enters once: when its degree is, or drops to, one
  let qh = 0;
  let qt = 0;
  for (let j = 0; j < n; j++) if (cdeg[j] === 1) queue[qt++] = j;
  for (let i = 0; i < m; i++) if (rdeg[i] === 1) queue[qt++] = n + i;
  let rank = 0;
  const match = (i: number, j: number): void => {
    jmatch[j] = i;
    imatch[i] = j;
    rank++;
    // Removing row i and column j lowers the degrees of their unmatched neighbours.
    for (let t = Rp[i]; t < Rp[i + 1]; t++) {
      const c = Rj[t];
      if (jmatch[c] === -1 && --cdeg[c] === 1) queue[qt++] = c;
    }
    for (let t = Ap[j]; t < Ap[j + 1]; t++) {
      const r = Ai[t];
      if (imatch[r] === -1 && --rdeg[r] === 1) queue[qt++] = n + r;
    }
  };
  let sweep = 0; // next column for the greedy rule
  for (;;) {
    while (qh < qt) {
      const v = queue[qh++];
      if (v < n) {
        if (jmatch[v] !== -1 || cdeg[v] !== 1) continue;
        for (let t = Ap[v]; t < Ap[v + 1]; t++) {
          if (imatch[Ai[t]] === -1) {
            match(Ai[t], v);
            break;
          }
        }
      } else {
        const i = v - n;
        if (imatch[i] !== -1 || rdeg[i] !== 1) continue;
        for (let t = Rp[i]; t < Rp[i + 1]; t++) {
          if (jmatch[Rj[t]] === -1) {
            match(i, Rj[t]);
            break;
          }
        }
      }
    }
    // Greedy rule: the next unmatched column with a free row.
    while (sweep < n && (jmatch[sweep] !== -1 || cdeg[sweep] === 0)) sweep++;
    if (sweep === n) break;
    const j = sweep;
    let matched = false;
    for (let t = Ap[j]; t < Ap[j + 1]; t++) {
      if (imatch[Ai[t]] === -1) {
        match(Ai[t], j);
        matched = true;
        break;
      }
    }
    if (!matched) cdeg[j] = 0;
  }
  return rank;
}
