/**
 * [LUi, cs, us, dpos, T] = layoutLU(lu): where every value of the factors of C = A(p,q) lives in
 * LUx, for the patterns of lu.symbolic — per column k, from cs[k]: the entries above k's diagonal
 * block (Opos), U(:,k) above the diagonal (from us[k]), the pivot u_kk (dpos[k]), L(:,k) — and, for
 * the 'mapped' kernel, the slot each multiply-subtract of the factorization writes (T, Tp, Llo, Lhi).
 * Allocates: once per analysis (construction, re-pivoting, restart), never per refactor. With
 * compile 'always' or 'loops' the new layout's WebAssembly is generated here (codegen.ts).
 * Source: the static data structures of left-looking LU (KLU's klu_analyze/klu_factor, Davis &
 * Palamadai Natarajan 2010), with the scatter map precomputed from the exact patterns.
 */
import { canCompile } from './compiled.ts';
import { generateCode } from './codegen.ts';
import type { LUFactors } from './factors.ts';

/** Sizes LUx for the current symbolic patterns and precomputes the slots (allocates). */
export function layoutLU(lu: LUFactors): void {
  const S = lu.symbolic;
  const { n, Lp, Li, Up, Ui, Bp, Bi, Op, Oi } = S;
  const cs = new Int32Array(n + 1);
  const us = new Int32Array(n);
  const dpos = new Int32Array(n);
  for (let k = 0; k < n; k++) {
    us[k] = cs[k] + Op[k + 1] - Op[k];
    dpos[k] = us[k] + Up[k + 1] - Up[k];
    cs[k + 1] = dpos[k] + 1 + Lp[k + 1] - Lp[k];
  }
  const LUi = new Int32Array(cs[n]);
  const posOf = new Int32Array(n);
  const Bpos = new Int32Array(Bp[n]);
  const Opos = new Int32Array(Op[n]);
  // The map stores slots relative to their column (16 bits): columns longer than 65,535 slots
  // go through the dense work vector instead.
  let longest = 0;
  for (let k = 0; k < n; k++) longest = Math.max(longest, cs[k + 1] - cs[k]);
  const mappable = longest <= 0xffff;
  if (lu.kernelOption === 'mapped' && !mappable) {
    throw new RangeError(`kernel 'mapped' needs columns of at most 65,535 slots; column lengths reach ${longest} (use 'scatter' or 'auto')`);
  }
  const mapped = mappable && (lu.kernelOption === 'mapped' || (lu.kernelOption === 'auto' && S.factorMuls <= lu.mapLimit));
  const T = new Uint16Array(mapped ? S.factorMuls : 0);
  const Tp = new Int32Array(mapped ? n + 1 : 0);
  const Llo = new Int32Array(mapped ? cs[n] : 0);
  const Lhi = new Int32Array(mapped ? cs[n] : 0);
  let o = 0;
  for (let k = 0; k < n; k++) {
    let t = cs[k];
    for (let e = Op[k]; e < Op[k + 1]; e++) {
      Opos[e] = t;
      LUi[t++] = Oi[e];
    }
    for (let e = Up[k]; e < Up[k + 1]; e++) {
      posOf[Ui[e]] = t;
      LUi[t++] = Ui[e];
    }
    posOf[k] = t;
    LUi[t++] = k;
    for (let s = Lp[k]; s < Lp[k + 1]; s++) {
      posOf[Li[s]] = t;
      LUi[t++] = Li[s];
    }
    for (let e = Bp[k]; e < Bp[k + 1]; e++) Bpos[e] = posOf[Bi[e]];
    if (!mapped) continue;
    Tp[k] = o;
    for (let e = Up[k]; e < Up[k + 1]; e++) {
      const j = Ui[e];
      const slot = us[k] + e - Up[k];
      Llo[slot] = dpos[j] + 1;
      Lhi[slot] = cs[j + 1];
      for (let s = Lp[j]; s < Lp[j + 1]; s++) T[o++] = posOf[Li[s]] - cs[k];
    }
  }
  if (mapped) Tp[n] = o;
  lu.Llo = Llo;
  lu.Lhi = Lhi;
  lu.xv = new Float64Array(cs[n]);
  lu.xStale = false;
  lu.fixedChecked = false;
  lu.LUi = LUi;
  lu.cs = cs;
  lu.us = us;
  lu.dpos = dpos;
  lu.Bpos = Bpos;
  lu.Opos = Opos;
  lu.T = T;
  lu.Tp = Tp;
  lu.kernel = mapped ? 'mapped' : 'scatter';
  if (lu.refine > 0) lu.Cx = new Float64Array(Bp[n]);
  lu.cxStale = false;
  lu.code = null;
  lu.refactors = 0;
  // (with fixed source values, at the first refactor: the code reads the ±1 among them)
  if ((lu.compileOption === 'always' || lu.compileOption === 'loops') && mapped && canCompile() && lu.gfixed === null) generateCode(lu);
}
