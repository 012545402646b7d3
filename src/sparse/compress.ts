/**
 * [A, slot] = compress(m, n, Ti, Tj, Tx): triplet form to CSC, duplicates summed, rows sorted,
 * with the map slot[t] from triplet t to its position in A.Ax.
 * Source: Davis, Direct Methods for Sparse Linear Systems, §2.2 (cs_compress, cs_dupl), by two
 * stable counting sorts (rows, then columns) instead of a sort and a duplicate pass.
 *
 * The map is what a caller with a fixed pattern keeps: at run time it writes new values straight
 * into A.Ax with `assembleValues(A.Ax, slot, Tx)` (or `Ax[slot[t]] += v` by hand) and refactors.
 */
import type { CscMatrix } from './csc.ts';

/** The result of `compress`: the CSC matrix and the map from each triplet to its slot in A.Ax. */
export interface CscAssembly {
  /** the assembled matrix; A.Ax holds the summed values of Tx (zeros when Tx was omitted) */
  readonly A: CscMatrix;
  /** slot[t] = index in A.Ai / A.Ax of triplet t; duplicates share a slot */
  readonly slot: Int32Array;
}

type IndexArray = ArrayLike<number>;

/**
 * [A, slot] = compress(m, n, Ti, Tj, Tx): triplets to compressed sparse columns, duplicates summed,
 * rows sorted, with the map slot[t] from triplet t to its position in A.Ax (for refilling values in
 * place).
 */
export function compress(m: number, n: number, Ti: IndexArray, Tj: IndexArray, Tx?: ArrayLike<number>): CscAssembly {
  if (!Number.isInteger(m) || m < 0 || !Number.isInteger(n) || n < 0) {
    throw new RangeError(`matrix size ${m}×${n} is not a pair of non-negative integers`);
  }
  const nt = Ti.length;
  if (Tj.length !== nt) throw new RangeError(`Tj has length ${Tj.length}, expected Ti.length = ${nt}`);
  if (Tx !== undefined && Tx.length !== nt) throw new RangeError(`Tx has length ${Tx.length}, expected Ti.length = ${nt}`);
  const rowCount = new Int32Array(m + 1);
  for (let t = 0; t < nt; t++) {
    const i = Ti[t];
    const j = Tj[t];
    if (!(Number.isInteger(i) && i >= 0 && i < m)) throw new RangeError(`triplet ${t}: row ${i} is outside 0..${m - 1}`);
    if (!(Number.isInteger(j) && j >= 0 && j < n)) throw new RangeError(`triplet ${t}: column ${j} is outside 0..${n - 1}`);
    rowCount[i + 1]++;
  }
  for (let i = 0; i < m; i++) rowCount[i + 1] += rowCount[i];
  const byRow = new Int32Array(nt); // triplets sorted by row (stable)
  for (let t = 0; t < nt; t++) byRow[rowCount[Ti[t]]++] = t;
  const colPtr = new Int32Array(n + 1);
  for (let t = 0; t < nt; t++) colPtr[Tj[t] + 1]++;
  for (let j = 0; j < n; j++) colPtr[j + 1] += colPtr[j];
  const byCol = new Int32Array(nt); // triplets sorted by (column, row)
  for (let s = 0; s < nt; s++) {
    const t = byRow[s];
    byCol[colPtr[Tj[t]]++] = t;
  }
  // colPtr[j] now points at the end of column j; walk each column and merge equal rows.
  const Ap = new Int32Array(n + 1);
  const slot = new Int32Array(nt);
  const AiTmp = new Int32Array(nt);
  let nz = 0;
  let s = 0;
  for (let j = 0; j < n; j++) {
    Ap[j] = nz;
    const end = colPtr[j];
    let last = -1;
    for (; s < end; s++) {
      const t = byCol[s];
      const i = Ti[t];
      if (i !== last) {
        AiTmp[nz++] = i;
        last = i;
      }
      slot[t] = nz - 1;
    }
  }
  Ap[n] = nz;
  const Ai = AiTmp.slice(0, nz);
  // sums start from −0, the identity of IEEE addition: an entry given once keeps its value bit for bit (−0 too)
  const Ax = new Float64Array(nz);
  if (Tx !== undefined) Ax.fill(-0);
  if (Tx !== undefined) for (let t = 0; t < nt; t++) Ax[slot[t]] += Tx[t];
  return { A: { m, n, Ap, Ai, Ax }, slot };
}

/** Ax = Σ Tx[t] at slot[t]: zeroes Ax, then sums the triplet values into their slots (no allocation). */
export function assembleValues(Ax: Float64Array, slot: Int32Array, Tx: ArrayLike<number>): Float64Array {
  if (Tx.length !== slot.length) throw new RangeError(`Tx has length ${Tx.length}, expected slot.length = ${slot.length}`);
  Ax.fill(0);
  for (let t = 0; t < slot.length; t++) Ax[slot[t]] += Tx[t];
  return Ax;
}
