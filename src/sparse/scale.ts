/**
 * As = R·A: the row scaling of the LU, R diagonal by powers of two — from the largest |a_ij| of
 * each row at every refactor ('max', KLU's default is row scaling) or fixed by the caller (set
 * once in lu.Rs). Powers of two change no rounding: with a kept pivot order the factors and the
 * solution are the unscaled ones bit for bit; scaling only changes the threshold and growth tests
 * and the rows a re-pivoting chooses. One multiplication per entry of A (lu.scaleMuls).
 */
import type { LUFactors } from './factors.ts';
import { inversePowerOfTwo } from './pow2.ts';

/** As = R·A (R by powers of two: the largest entry of each row, or the fixed factors); returns As. */
export function scaleRows(lu: LUFactors, Ax: Float64Array): Float64Array {
  const { n, Ap, Ai } = lu.symbolic;
  const { Rs, As } = lu;
  const nz = Ap[n];
  if (lu.scaling === 'max') {
    Rs.fill(0);
    for (let t = 0; t < nz; t++) {
      const v = Math.abs(Ax[t]);
      if (v > Rs[Ai[t]]) Rs[Ai[t]] = v;
    }
    for (let i = 0; i < n; i++) Rs[i] = inversePowerOfTwo(Rs[i]);
  }
  for (let t = 0; t < nz; t++) As[t] = Ax[t] * Rs[Ai[t]];
  lu.scaleMuls = nz;
  return As;
}
