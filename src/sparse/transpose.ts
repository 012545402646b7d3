/**
 * C = A' : transpose of a CSC matrix (values too); rows of C come out sorted.
 * Source: Davis, Direct Methods for Sparse Linear Systems, §2.5 (cs_transpose).
 */
import type { CscMatrix } from './csc.ts';

/** C = Aᵀ: the transpose of a CSC matrix, values included; rows of C come out sorted. */
export function transpose(A: CscMatrix): CscMatrix {
  const { m, n, Ap, Ai, Ax } = A;
  const nz = Ap[n];
  const Cp = new Int32Array(m + 1);
  for (let p = 0; p < nz; p++) Cp[Ai[p] + 1]++;
  for (let i = 0; i < m; i++) Cp[i + 1] += Cp[i];
  const next = Cp.slice(0, m);
  const Ci = new Int32Array(nz);
  const Cx = new Float64Array(nz);
  for (let j = 0; j < n; j++) {
    for (let p = Ap[j]; p < Ap[j + 1]; p++) {
      const q = next[Ai[p]]++;
      Ci[q] = j;
      Cx[q] = Ax[p];
    }
  }
  return { m: n, n: m, Ap: Cp, Ai: Ci, Ax: Cx };
}
