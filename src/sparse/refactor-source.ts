/**
 * [L, U] = refactorSourceLU(lu): refactorLU with A(t) = source(map(t)) (FactorOptions.gather): the
 * compiled code reads the source where it stands, with no copy of A; otherwise A is gathered and
 * refactored as usual. Same factors and counts as refactorLU on the gathered A. The pivots at
 * fixed source positions (gather.fixed), which the compiled code leaves unchecked, are checked
 * here once per layout.
 */
import { singular1x1 } from './block-factor.ts';
import type { LUFactors } from './factors.ts';
import { refactorLU } from './refactor.ts';

/** NumericLU.refactorSource: the factors of C for the values of A in lu.source; returns lu. */
export function refactorSourceLU(lu: LUFactors): LUFactors {
  const g = lu.gmap;
  if (g === null) throw new RangeError('refactorSource: this NumericLU was created without the gather option');
  const code = lu.code;
  // the compiled code leaves the fixed pivots unchecked: they are checked here once per layout
  if (code !== null && lu.codeGathered && !lu.fixedChecked) checkFixedPivots(lu);
  if (code !== null && lu.codeGathered && code.factor()) {
    lu.xStale = lu.fromSource = code.syncX !== null;
    lu.cxStale = lu.refine > 0 && code.residualFromA;
    lu.factorMuls = lu.cFactorMuls;
    lu.factorAdds = lu.cFactorMuls;
    lu.factorDivs = lu.cFactorDivs;
    lu.pivoted = false;
    return lu;
  }
  const src = lu.src, Ax = lu.gAx;
  for (let t = 0; t < Ax.length; t++) Ax[t] = src[g[t]];
  return refactorLU(lu, Ax);
}

/** The 1×1 pivots at fixed source positions (FactorOptions.gather.fixed): zero or non-finite values are reported as the generic refactor reports them. */
function checkFixedPivots(lu: LUFactors): void {
  const S = lu.symbolic, fx = lu.gfixed, g = lu.gmap!;
  if (fx !== null) {
    const { r, nblocks, Bp, Bslot } = S;
    for (let b = 0; b < nblocks; b++) {
      const k1 = r[b];
      if (r[b + 1] - k1 !== 1) continue;
      const sp = g[Bslot[Bp[k1]]];
      if (fx[sp] !== 1) continue;
      const v = lu.src[sp];
      if (v === 0 || !(v - v === 0)) singular1x1(lu, k1, v);
    }
  }
  lu.fixedChecked = true;
}
