/**
 * perm = markowitz(A): symmetric ordering of a square pattern with zero-free diagonal by greedy
 * Markowitz pivoting restricted to the diagonal: at each step eliminate the diagonal entry with the
 * smallest (r_k − 1)(c_k − 1), r_k and c_k its row and column counts in the active submatrix,
 * which is the exact number of multiply-subtract pairs that step costs (unsymmetric pattern, no
 * A+Aᵀ symmetrisation). Ties go to the smaller r_k + c_k, then to the lower index.
 * Source: H. M. Markowitz, "The elimination form of the inverse and its application to linear
 * programming", Management Science 3 (1957); Duff, Erisman & Reid, Direct Methods for Sparse
 * Matrices, ch. 7. The elimination is simulated explicitly (the fill is added), so its cost is of
 * the order of the factorization's flops; callers cap it with `maxWork`.
 */
import type { CscMatrix } from './csc.ts';

class MinHeap {
  key: Float64Array;
  node: Int32Array;
  size = 0;
  constructor(cap: number) {
    this.key = new Float64Array(cap);
    this.node = new Int32Array(cap);
  }
  push(k: number, v: number): void {
    if (this.size === this.key.length) {
      const k2 = new Float64Array(this.size * 2);
      k2.set(this.key);
      const v2 = new Int32Array(this.size * 2);
      v2.set(this.node);
      this.key = k2;
      this.node = v2;
    }
    let i = this.size++;
    const key = this.key;
    const node = this.node;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (key[parent] <= k) break;
      key[i] = key[parent];
      node[i] = node[parent];
      i = parent;
    }
    key[i] = k;
    node[i] = v;
  }
  /** removes the top; its key and node are read before with key[0], node[0] */
  pop(): void {
    const key = this.key;
    const node = this.node;
    const n = --this.size;
    const k = key[n];
    const v = node[n];
    let i = 0;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= n) break;
      if (c + 1 < n && key[c + 1] < key[c]) c++;
      if (key[c] >= k) break;
      key[i] = key[c];
      node[i] = node[c];
      i = c;
    }
    key[i] = k;
    node[i] = v;
  }
}

/**
 * perm = markowitz(A): symmetric ordering of a square pattern with zero-free diagonal by greedy
 * Markowitz pivoting on the diagonal (the smallest (r_k − 1)(c_k − 1) at each step).
 * @param maxWork bound on the simulated elimination work; past it the remaining variables are
 *   appended in natural order and `complete` is false
 */
export function markowitz(A: Pick<CscMatrix, 'n' | 'Ap' | 'Ai'>, maxWork = Infinity): { perm: Int32Array; complete: boolean } {
  const { n, Ap, Ai } = A;
  const rows: number[][] = new Array(n);
  const cols: number[][] = new Array(n);
  for (let i = 0; i < n; i++) {
    rows[i] = [];
    cols[i] = [];
  }
  const entries = new Set<number>();
  for (let j = 0; j < n; j++) {
    for (let p = Ap[j]; p < Ap[j + 1]; p++) {
      const i = Ai[p];
      entries.add(i * n + j);
      rows[i].push(j);
      cols[j].push(i);
    }
  }
  const rc = new Int32Array(n);
  const cc = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    rc[i] = rows[i].length;
    cc[i] = cols[i].length;
  }
  const done = new Uint8Array(n);
  const heap = new MinHeap(4 * n + 16);
  const scale = 4 * n + 4;
  const keyOf = (i: number): number => ((rc[i] - 1) * (cc[i] - 1) * scale + rc[i] + cc[i]) * (n + 1) + i;
  const current = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    current[i] = keyOf(i);
    heap.push(current[i], i);
  }
  const perm = new Int32Array(n);
  const Ck: number[] = [];
  const Rk: number[] = [];
  let work = 0;
  for (let step = 0; step < n; step++) {
    let k = -1;
    while (heap.size > 0) {
      const key = heap.key[0];
      const v = heap.node[0];
      heap.pop();
      if (!done[v] && key === current[v]) {
        k = v;
        break;
      }
    }
    perm[step] = k;
    done[k] = 1;
    Ck.length = 0;
    Rk.length = 0;
    for (const i of cols[k]) if (!done[i]) Ck.push(i);
    for (const j of rows[k]) if (!done[j]) Rk.push(j);
    work += Ck.length * Rk.length + Ck.length + Rk.length;
    if (work > maxWork) {
      let t = step + 1;
      for (let i = 0; i < n; i++) if (!done[i]) perm[t++] = i;
      return { perm, complete: false };
    }
    for (const i of Ck) {
      const ri = rows[i];
      for (const j of Rk) {
        const key = i * n + j;
        if (!entries.has(key)) {
          entries.add(key);
          ri.push(j);
          cols[j].push(i);
          rc[i]++;
          cc[j]++;
        }
      }
      rc[i]--;
    }
    for (const j of Rk) cc[j]--;
    for (const i of Ck) {
      const key = keyOf(i);
      if (key !== current[i]) {
        current[i] = key;
        heap.push(key, i);
      }
    }
    for (const j of Rk) {
      const key = keyOf(j);
      if (key !== current[j]) {
        current[j] = key;
        heap.push(key, j);
      }
    }
    // Drop the eliminated row and column lists.
    rows[k] = [];
    cols[k] = [];
  }
  return { perm, complete: true };
}
