/**
 * [L_bb, U_bb] = lu(C_bb): the left-looking LU of one diagonal block of C = A(p,q), in place in
 * LUx on the block's static patterns, with the pivot checks. Column k of the block, on its slots
 * (fill-in slots zeroed, C(:,k) scattered in):
 *   for j in U(:,k) ascending:  u_jk final;  C(L(:,j), k) -= L(:,j) u_jk      (muls, adds)
 *   L(:,k) = C(L(:,k), k) / u_kk                                               (divs)
 * The 'mapped' kernel keeps, for every multiply-subtract, the slot it writes (layout.ts); the
 * 'scatter' kernel goes through a dense work vector instead; same arithmetic in the same order.
 * Checks: |x_ik| ≤ |u_kk| / checkTol over the pivot's column (KLU's threshold test) and
 * |u_jk| ≤ growthLimit · max|C_bb|, written so that a NaN fails them; a failed block stops at
 * lu.badColumn and is re-pivoted by the caller (refactor.ts). A 1×1 block is its own pivot:
 * singular1x1 reports a zero or non-finite one.
 * Source: Gilbert & Peierls 1988; KLU's klu_refactor (Davis & Palamadai Natarajan, ACM TOMS 37, 2010).
 */
import { SingularPivotError } from './errors.ts';
import type { LUFactors } from './factors.ts';

/**
 * Block b of size ≥ 2 on precomputed slots: zero the block's slots, scatter C_bb, then per column
 * LUx(col k) -= L(:,j) u_jk for u_jk in ascending j (T gives the slot each product goes to),
 * and L(:,k) /= u_kk. Returns false (and stops) at the first failed check.
 */
export function factorBlockMapped(lu: LUFactors, b: number, Ax: Float64Array): boolean {
  const S = lu.symbolic;
  const { r, Bp, Bslot } = S;
  const { LUx, cs, us, dpos, Bpos, T, Tp, Llo, Lhi } = lu;
  const k1 = r[b];
  const k2 = r[b + 1];
  LUx.fill(0, cs[k1], cs[k2]);
  let maxA = 0;
  for (let e = Bp[k1]; e < Bp[k2]; e++) {
    const v = Ax[Bslot[e]];
    LUx[Bpos[e]] = v;
    maxA = Math.max(maxA, Math.abs(v));
  }
  lu.badColumn = k1;
  if (!(maxA < Infinity)) return false; // NaN or ±Inf in the block: repivot() reports it
  const ulim = lu.relaxed ? Infinity : lu.growthLimit * maxA;
  const rtol = lu.relaxed ? Infinity : 1 / lu.checkTol;
  let divs = 0;
  let o = Tp[k1];
  const o0 = o;
  let ok = true;
  for (let k = k1; k < k2 && ok; k++) {
    const c0 = cs[k];
    const d = dpos[k];
    const c1 = cs[k + 1];
    for (let pu = us[k]; pu < d; pu++) {
      const u = LUx[pu];
      if (!(Math.abs(u) <= ulim)) ok = false;
      // column k -= L(:,j) u_jk, two products per turn
      const l1 = Lhi[pu];
      let s = Llo[pu];
      for (; s + 1 < l1; s += 2) {
        const t0 = c0 + T[o];
        const t1 = c0 + T[o + 1];
        o += 2;
        LUx[t0] -= LUx[s] * u;
        LUx[t1] -= LUx[s + 1] * u;
      }
      if (s < l1) LUx[c0 + T[o++]] -= LUx[s] * u;
    }
    const pivot = LUx[d];
    const apiv = Math.abs(pivot);
    // Threshold |x_ik| ≤ |u_kk| / tol and growth |u_kk| ≤ growthLimit · max|C_bb|, NaN failing both.
    const lim = apiv * rtol;
    if (!(apiv > 0 && apiv <= ulim)) ok = false;
    for (let s = d + 1; s < c1; s++) {
      const v = LUx[s];
      if (!(Math.abs(v) <= lim)) ok = false;
      LUx[s] = v / pivot; // L(:,k) = x(L(:,k)) / u_kk
    }
    divs += c1 - d - 1;
    if (!ok) lu.badColumn = k;
  }
  // One multiplication and one subtraction per slot of T consumed.
  lu.factorMuls += o - o0;
  lu.factorDivs += divs;
  return ok;
}

/** Block b of size ≥ 2 through the dense work vector x (same arithmetic, no slot map). */
export function factorBlockScatter(lu: LUFactors, b: number, Ax: Float64Array): boolean {
  const S = lu.symbolic;
  const { r, Bp, Bi, Bslot, Lp, Li, Up, Ui } = S;
  const { LUx, cs, us, dpos, x } = lu;
  const k1 = r[b];
  const k2 = r[b + 1];
  let maxA = 0;
  for (let e = Bp[k1]; e < Bp[k2]; e++) maxA = Math.max(maxA, Math.abs(Ax[Bslot[e]]));
  lu.badColumn = k1;
  if (!(maxA < Infinity)) return false;
  const ulim = lu.relaxed ? Infinity : lu.growthLimit * maxA;
  const rtol = lu.relaxed ? Infinity : 1 / lu.checkTol;
  let muls = 0;
  let divs = 0;
  let ok = true;
  for (let k = k1; k < k2 && ok; k++) {
    const u0 = us[k];
    const d = dpos[k];
    const c1 = cs[k + 1];
    for (let e = Bp[k]; e < Bp[k + 1]; e++) x[Bi[e]] = Ax[Bslot[e]];
    const ui = Up[k] - u0;
    for (let pu = u0; pu < d; pu++) {
      const j = Ui[ui + pu];
      const u = x[j];
      x[j] = 0;
      LUx[pu] = u;
      if (!(Math.abs(u) <= ulim)) ok = false;
      const l0 = dpos[j] + 1;
      const l1 = cs[j + 1];
      const li = Lp[j] - l0;
      for (let s = l0; s < l1; s++) x[Li[li + s]] -= LUx[s] * u; // x -= L(:,j) u_jk
      muls += l1 - l0;
    }
    const pivot = x[k];
    x[k] = 0;
    LUx[d] = pivot;
    const apiv = Math.abs(pivot);
    const lim = apiv * rtol;
    if (!(apiv > 0 && apiv <= ulim)) ok = false;
    const li = Lp[k] - d - 1;
    for (let s = d + 1; s < c1; s++) {
      const i = Li[li + s];
      const v = x[i];
      x[i] = 0;
      if (!(Math.abs(v) <= lim)) ok = false;
      LUx[s] = v / pivot; // L(:,k) = x(L(:,k)) / u_kk
    }
    divs += c1 - d - 1;
    if (!ok) lu.badColumn = k;
  }
  lu.factorMuls += muls;
  lu.factorDivs += divs;
  return ok;
}

/** Throws for the 1×1 block at column k of C whose value v is zero (SingularPivotError) or not finite (RangeError). */
export function singular1x1(lu: LUFactors, k: number, v: number): never {
  const S = lu.symbolic;
  if (v === 0) throw new SingularPivotError(S.q[k], [{ row: S.p[k], value: v }], lu.names, 'the only candidate pivot (a 1×1 block of the block triangular form) is zero');
  throw new RangeError(`A has a non-finite value ${v} at row ${S.p[k]}, column ${S.q[k]}; values must be finite`);
}
