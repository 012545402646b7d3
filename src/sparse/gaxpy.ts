/**
 * y = A*x + y (and y = A*x, ‖Ax − b‖/‖b‖) for CSC matrices; out-first, no allocation.
 * Source: Davis, Direct Methods for Sparse Linear Systems, §2.3 (cs_gaxpy).
 */
import type { CscMatrix } from './csc.ts';

/** y += A x; returns y. */
export function gaxpy(A: CscMatrix, x: ArrayLike<number>, y: Float64Array): Float64Array {
  const { m, n, Ap, Ai, Ax } = A;
  if (x.length !== n) throw new RangeError(`x has length ${x.length}, expected A.n = ${n}`);
  if (y.length !== m) throw new RangeError(`y has length ${y.length}, expected A.m = ${m}`);
  for (let j = 0; j < n; j++) {
    const xj = x[j];
    for (let p = Ap[j]; p < Ap[j + 1]; p++) y[Ai[p]] += Ax[p] * xj;
  }
  return y;
}

/** out = A x; returns out. */
export function matvec(out: Float64Array, A: CscMatrix, x: ArrayLike<number>): Float64Array {
  if (out.length !== A.m) throw new RangeError(`out has length ${out.length}, expected A.m = ${A.m}`);
  out.fill(0);
  return gaxpy(A, x, out);
}

/** ‖A x − b‖₂ / ‖b‖₂ (‖A x − b‖₂ when b = 0). Allocates one vector of length m. */
export function relativeResidual(A: CscMatrix, x: ArrayLike<number>, b: ArrayLike<number>): number {
  if (b.length !== A.m) throw new RangeError(`b has length ${b.length}, expected A.m = ${A.m}`);
  const r = new Float64Array(A.m);
  gaxpy(A, x, r);
  let rr = 0;
  let bb = 0;
  for (let i = 0; i < A.m; i++) {
    const d = r[i] - b[i];
    rr += d * d;
    bb += b[i] * b[i];
  }
  return bb > 0 ? Math.sqrt(rr / bb) : Math.sqrt(rr);
}
