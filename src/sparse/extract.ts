/**
 * L = extractL(lu), U = extractU(lu): the factors of C = A(p,q) as CSC matrices — L with its unit
 * diagonal, U within the diagonal blocks with its diagonal (the entries above the blocks are C's
 * own). Allocates; for inspection and tests. Source: KLU's klu_extract.
 */
import type { CscMatrix } from './csc.ts';
import type { LUFactors } from './factors.ts';

/** L of C = A(p,q) as a CSC matrix with its unit diagonal (allocates; for inspection and tests). */
export function extractL(lu: LUFactors): CscMatrix {
  const n = lu.n;
  const Ap = new Int32Array(n + 1);
  const nz = lu.symbolic.Lp[n] + n;
  const Ai = new Int32Array(nz);
  const Ax = new Float64Array(nz);
  let t = 0;
  for (let k = 0; k < n; k++) {
    Ap[k] = t;
    Ai[t] = k;
    Ax[t++] = 1;
    for (let s = lu.dpos[k] + 1; s < lu.cs[k + 1]; s++) {
      Ai[t] = lu.LUi[s];
      Ax[t++] = lu.LUx[s];
    }
  }
  Ap[n] = t;
  return { m: n, n, Ap, Ai, Ax };
}

/** U of C = A(p,q) within the diagonal blocks, with its diagonal (allocates; for inspection and tests). */
export function extractU(lu: LUFactors): CscMatrix {
  const n = lu.n;
  const Ap = new Int32Array(n + 1);
  const nz = lu.symbolic.Up[n] + n;
  const Ai = new Int32Array(nz);
  const Ax = new Float64Array(nz);
  let t = 0;
  for (let k = 0; k < n; k++) {
    Ap[k] = t;
    for (let s = lu.us[k]; s <= lu.dpos[k]; s++) {
      Ai[t] = lu.LUi[s];
      Ax[t++] = lu.LUx[s];
    }
  }
  Ap[n] = t;
  return { m: n, n, Ap, Ai, Ax };
}
