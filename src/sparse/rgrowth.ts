/**
 * g = rgrowthLU(lu, Ax): the pivot growth of the last factorization, min over the diagonal blocks
 * of size ≥ 2 of max|C_bb| / max|U_bb| (1 when all blocks are 1×1); small values warn of
 * instability. Allocation-free. Source: KLU's klu_rgrowth.
 */
import type { LUFactors } from './factors.ts';

/** NumericLU.rgrowth: Ax, the values last given to refactor (their scaled copy when rows are scaled). */
export function rgrowthLU(lu: LUFactors, Ax: Float64Array): number {
  if (lu.scaling !== 'none') Ax = lu.As;
  const S = lu.symbolic;
  const { r, nblocks, Bp, Bslot } = S;
  let g = 1;
  for (let b = 0; b < nblocks; b++) {
    const k1 = r[b];
    const k2 = r[b + 1];
    if (k2 - k1 === 1) continue;
    let maxA = 0;
    for (let e = Bp[k1]; e < Bp[k2]; e++) maxA = Math.max(maxA, Math.abs(Ax[Bslot[e]]));
    let maxU = 0;
    for (let k = k1; k < k2; k++) for (let t = lu.us[k]; t <= lu.dpos[k]; t++) maxU = Math.max(maxU, Math.abs(lu.LUx[t]));
    if (maxU > 0 && maxA / maxU < g) g = maxA / maxU;
  }
  return g;
}
