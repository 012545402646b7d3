/**
 * C = A(p,q) given pinv = p⁻¹ (pinv[i] = new row of old row i) and q (q[k] = old column of new column k).
 * Source: Davis, Direct Methods for Sparse Linear Systems, §2.6 (cs_permute).
 * Either permutation may be omitted (identity).
 */
import type { CscMatrix } from './csc.ts';

/** C = A(p, q) given pinv = p⁻¹ and q; either permutation may be omitted (identity). */
export function permute(A: CscMatrix, pinv?: Int32Array, q?: Int32Array): CscMatrix {
  const { m, n, Ap, Ai, Ax } = A;
  if (pinv && pinv.length !== m) throw new RangeError(`pinv has length ${pinv.length}, expected m = ${m}`);
  if (q && q.length !== n) throw new RangeError(`q has length ${q.length}, expected n = ${n}`);
  const nz = Ap[n];
  const Cp = new Int32Array(n + 1);
  const Ci = new Int32Array(nz);
  const Cx = new Float64Array(nz);
  let t = 0;
  for (let k = 0; k < n; k++) {
    Cp[k] = t;
    const j = q ? q[k] : k;
    for (let p = Ap[j]; p < Ap[j + 1]; p++) {
      Ci[t] = pinv ? pinv[Ai[p]] : Ai[p];
      Cx[t++] = Ax[p];
    }
  }
  Cp[n] = t;
  return { m, n, Ap: Cp, Ai: Ci, Ax: Cx };
}

/** pinv = p⁻¹ for a permutation vector p of 0..n-1 (checked). */
export function invertPermutation(p: ArrayLike<number>): Int32Array {
  const n = p.length;
  const pinv = new Int32Array(n).fill(-1);
  for (let k = 0; k < n; k++) {
    const i = p[k];
    if (!(Number.isInteger(i) && i >= 0 && i < n) || pinv[i] !== -1) throw new RangeError(`not a permutation of 0..${n - 1}: entry ${k} is ${i}`);
    pinv[i] = k;
  }
  return pinv;
}
