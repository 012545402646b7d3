/**
 * q = colamd(A): column ordering of an m×n pattern from approximate minimum degree on AᵀA, found
 * without forming AᵀA: each row of A starts as an element (a clique of its columns) of the
 * quotient graph. For a square block factorized on its diagonal, used as the symmetric order q.
 * Source: Davis, Gilbert, Larimore & Ng, "A column approximate minimum degree ordering algorithm",
 * ACM TOMS 30 (2004) — dense rows ignored, dense columns last; engine in mindegree.ts.
 */
import type { CscMatrix } from './csc.ts';
import { minimumDegree, type MinimumDegreeOptions } from './mindegree.ts';
import { transpose } from './transpose.ts';

/**
 * q = colamd(A): column ordering of an m×n pattern by approximate minimum degree on AᵀA, without
 * forming AᵀA.
 */
export function colamd(A: Pick<CscMatrix, 'm' | 'n' | 'Ap' | 'Ai'>, options?: MinimumDegreeOptions): Int32Array {
  const AT = transpose({ m: A.m, n: A.n, Ap: A.Ap, Ai: A.Ai, Ax: new Float64Array(A.Ap[A.n]) });
  return minimumDegree(A.n, undefined, undefined, A.m, AT.Ap, AT.Ai, options);
}
