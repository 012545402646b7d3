/**
 * [Rh, Ch, Rs, Cs, Rv, Cv] = dmperm(A): coarse Dulmage–Mendelsohn decomposition of the pattern of
 * an m×n matrix (square or rectangular) into an underdetermined part H (more columns than rows),
 * a square part S and an overdetermined part V (more rows than columns).
 * Source: A. L. Dulmage & N. S. Mendelsohn, "Coverings of bipartite graphs", Canad. J. Math. 10
 * (1958); Pothen & Fan, ACM TOMS 16 (1990): H = everything reachable from an unmatched column by
 * alternating paths (column → any of its rows → the column matched to that row), V = everything
 * reachable from an unmatched row (row → any of its columns → the row matched to that column),
 * S = the rest. Unlike the unmatched sets of one matching, these sets do not depend on the
 * matching found: the columns of H are the unknowns the equations cannot determine, the rows of V
 * the equations that over-determine theirs.
 */
import type { CscMatrix } from './csc.ts';
import { maxtrans } from './maxtrans.ts';

/**
 * The coarse Dulmage–Mendelsohn decomposition: structural rank and the rows and columns of the
 * underdetermined, square and overdetermined parts.
 */
export interface CoarseDM {
  readonly rank: number;
  /** rows and columns of the underdetermined part (columns: structurally undetermined unknowns) */
  readonly rowsUnder: Int32Array;
  readonly colsUnder: Int32Array;
  /** rows and columns of the square, structurally nonsingular part */
  readonly rowsSquare: Int32Array;
  readonly colsSquare: Int32Array;
  /** rows and columns of the overdetermined part (rows: equations in excess) */
  readonly rowsOver: Int32Array;
  readonly colsOver: Int32Array;
}

/**
 * Coarse Dulmage–Mendelsohn decomposition of the pattern of an m×n matrix (square or rectangular)
 * into its underdetermined, square and overdetermined parts.
 */
export function dmperm(A: Pick<CscMatrix, 'm' | 'n' | 'Ap' | 'Ai'>): CoarseDM {
  const { m, n, Ap, Ai } = A;
  const { jmatch, imatch, rank } = maxtrans(A);
  // Row-wise pattern (transpose) for the searches from rows.
  const Rp = new Int32Array(m + 1);
  const nz = Ap[n];
  for (let t = 0; t < nz; t++) Rp[Ai[t] + 1]++;
  for (let i = 0; i < m; i++) Rp[i + 1] += Rp[i];
  const next = Rp.slice(0, m);
  const Rj = new Int32Array(nz);
  for (let j = 0; j < n; j++) for (let t = Ap[j]; t < Ap[j + 1]; t++) Rj[next[Ai[t]]++] = j;
  const rowPart = new Uint8Array(m); // 0 square, 1 under (H), 2 over (V)
  const colPart = new Uint8Array(n);
  const queue = new Int32Array(Math.max(m, n));
  // H: breadth-first from the unmatched columns.
  let head = 0;
  let tail = 0;
  for (let j = 0; j < n; j++) {
    if (jmatch[j] === -1) {
      colPart[j] = 1;
      queue[tail++] = j;
    }
  }
  while (head < tail) {
    const j = queue[head++];
    for (let t = Ap[j]; t < Ap[j + 1]; t++) {
      const i = Ai[t];
      if (rowPart[i] !== 0) continue;
      rowPart[i] = 1;
      const j2 = imatch[i]; // matched: an unmatched row here would give an augmenting path
      if (j2 !== -1 && colPart[j2] === 0) {
        colPart[j2] = 1;
        queue[tail++] = j2;
      }
    }
  }
  // V: breadth-first from the unmatched rows.
  head = 0;
  tail = 0;
  for (let i = 0; i < m; i++) {
    if (imatch[i] === -1) {
      rowPart[i] = 2;
      queue[tail++] = i;
    }
  }
  while (head < tail) {
    const i = queue[head++];
    for (let t = Rp[i]; t < Rp[i + 1]; t++) {
      const j = Rj[t];
      if (colPart[j] !== 0) continue;
      colPart[j] = 2;
      const i2 = jmatch[j];
      if (i2 !== -1 && rowPart[i2] === 0) {
        rowPart[i2] = 2;
        queue[tail++] = i2;
      }
    }
  }
  const pick = (part: Uint8Array, v: number): Int32Array => {
    let c = 0;
    for (let k = 0; k < part.length; k++) if (part[k] === v) c++;
    const out = new Int32Array(c);
    c = 0;
    for (let k = 0; k < part.length; k++) if (part[k] === v) out[c++] = k;
    return out;
  };
  return {
    rank,
    rowsUnder: pick(rowPart, 1),
    colsUnder: pick(colPart, 1),
    rowsSquare: pick(rowPart, 0),
    colsSquare: pick(colPart, 0),
    rowsOver: pick(rowPart, 2),
    colsOver: pick(colPart, 2),
  };
}
