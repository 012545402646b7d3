/**
 * perm = amd(A): fill-reducing symmetric ordering of a square pattern from approximate minimum
 * degree on the graph of A+Aᵀ (diagonal ignored); A(perm, perm) is factorized with less fill.
 * Source: Amestoy, Davis & Duff, SIAM J. Matrix Anal. Appl. 17 (1996); engine in mindegree.ts.
 */
import type { CscMatrix } from './csc.ts';
import { minimumDegree, type MinimumDegreeOptions } from './mindegree.ts';

/** Pattern of A+Aᵀ without the diagonal, as adjacency lists (Gp, Gi). */
export function symmetricPattern(n: number, Ap: Int32Array, Ai: Int32Array): { Gp: Int32Array; Gi: Int32Array } {
  const count = new Int32Array(n + 1);
  for (let j = 0; j < n; j++) {
    for (let p = Ap[j]; p < Ap[j + 1]; p++) {
      const i = Ai[p];
      if (i === j) continue;
      count[i + 1]++;
      count[j + 1]++;
    }
  }
  for (let i = 0; i < n; i++) count[i + 1] += count[i];
  const next = count.slice(0, n);
  const Gi0 = new Int32Array(count[n]);
  for (let j = 0; j < n; j++) {
    for (let p = Ap[j]; p < Ap[j + 1]; p++) {
      const i = Ai[p];
      if (i === j) continue;
      Gi0[next[i]++] = j;
      Gi0[next[j]++] = i;
    }
  }
  // Remove duplicates (an entry present as both (i,j) and (j,i)).
  const mark = new Int32Array(n).fill(-1);
  const Gp = new Int32Array(n + 1);
  let t = 0;
  for (let i = 0; i < n; i++) {
    Gp[i] = t;
    for (let p = count[i]; p < count[i + 1]; p++) {
      const j = Gi0[p];
      if (mark[j] === i) continue;
      mark[j] = i;
      Gi0[t++] = j;
    }
  }
  Gp[n] = t;
  return { Gp, Gi: Gi0.slice(0, t) };
}

/**
 * perm = amd(A): fill-reducing symmetric ordering of a square pattern by approximate minimum degree
 * on A + Aᵀ.
 */
export function amd(A: Pick<CscMatrix, 'n' | 'Ap' | 'Ai'>, options?: MinimumDegreeOptions): Int32Array {
  const { Gp, Gi } = symmetricPattern(A.n, A.Ap, A.Ai);
  return minimumDegree(A.n, Gp, Gi, 0, undefined, undefined, options);
}
