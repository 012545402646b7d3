/** Helpers of the sparse specs: a seeded generator, random sparse matrices, dense conversions. */
import { Matrix } from 'ml-matrix';
import { compress, type CscMatrix } from '../../src/sparse/index.ts';

/** mulberry32: a small seeded generator, uniform in [0, 1). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function randomPermutation(n: number, rand: () => number): Int32Array {
  const p = new Int32Array(n);
  for (let i = 0; i < n; i++) p[i] = i;
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    const t = p[i];
    p[i] = p[j];
    p[j] = t;
  }
  return p;
}

/**
 * Random m×n matrix with about `perCol` entries per column, values in ±[0.5, 1.5); with
 * `diagonal` the entries (π(k), σ(k)) of random permutations are added (structurally nonsingular).
 */
export function randomSparse(m: number, n: number, perCol: number, rand: () => number, diagonal = true): CscMatrix {
  const Ti: number[] = [];
  const Tj: number[] = [];
  const Tx: number[] = [];
  const val = (): number => (rand() < 0.5 ? -1 : 1) * (0.5 + rand());
  for (let j = 0; j < n; j++) {
    for (let t = 0; t < perCol; t++) {
      Ti.push(Math.floor(rand() * m));
      Tj.push(j);
      Tx.push(val());
    }
  }
  if (diagonal) {
    const pr = randomPermutation(m, rand);
    const pc = randomPermutation(n, rand);
    for (let k = 0; k < Math.min(m, n); k++) {
      Ti.push(pr[k]);
      Tj.push(pc[k]);
      Tx.push(4 * val());
    }
  }
  return compress(m, n, Ti, Tj, Tx).A;
}

/** Randomly permuted sparse lower triangular matrix: P L Q with nonzero diagonal. */
export function permutedTriangular(n: number, perCol: number, rand: () => number): CscMatrix {
  const pr = randomPermutation(n, rand);
  const pc = randomPermutation(n, rand);
  const Ti: number[] = [];
  const Tj: number[] = [];
  const Tx: number[] = [];
  for (let j = 0; j < n; j++) {
    Ti.push(pr[j]);
    Tj.push(pc[j]);
    Tx.push(2 + rand());
    for (let t = 0; t < perCol && j + 1 < n; t++) {
      // rows below j, most of them close (chains), some far
      const i = rand() < 0.7 ? Math.min(n - 1, j + 1 + Math.floor(rand() * 3)) : j + 1 + Math.floor(rand() * (n - j - 1));
      Ti.push(pr[i]);
      Tj.push(pc[j]);
      Tx.push(rand() - 0.5);
    }
  }
  return compress(n, n, Ti, Tj, Tx).A;
}

export function toDense(A: CscMatrix): Matrix {
  const D = Matrix.zeros(A.m, A.n);
  for (let j = 0; j < A.n; j++) for (let p = A.Ap[j]; p < A.Ap[j + 1]; p++) D.set(A.Ai[p], j, D.get(A.Ai[p], j) + A.Ax[p]);
  return D;
}

export function rhs(n: number): Float64Array {
  const b = new Float64Array(n);
  for (let i = 0; i < n; i++) b[i] = 1 + (i % 7);
  return b;
}
