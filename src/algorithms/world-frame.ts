/**
 * Each body of a tree placed in the world, for the algorithms in world coordinates (crba-world.ts;
 * Pinocchio's WORLD convention): its pose (⁰R_i, ⁰p_i), its rigid inertia about the world's origin
 * in world axes, and its joint's motion subspace in world coordinates. (An ABA in world coordinates
 * on these was measured and not kept: its motion subspaces are dense in the world, so U = I^A S costs
 * 36 products where the local ABA reads one column for a joint about a frame axis; the same flops
 * and 1.3× the local ABA's time on chains of 6 to 384 links.)
 */
import type { Model } from '../model/model.ts';
import { jcalc } from '../model/jcalc.ts';
import type { Flops } from '../spatial/flops.ts';

/**
 * For every body (parents first): ⁱX_λ into Xup[i] (views of X, 12 per body: E row-major, then r);
 * ⁰R_i = ⁰R_λ Eᵀ into R (row-major, 9 per body), ⁰p_i = ⁰p_λ + ⁰R_λ r into P (3 per body); the rigid
 * inertia about the world origin in world axes into Iw (m, h, Ī: 10 per body, inertia.ts's layout);
 * each DoF's motion subspace column ⁰S = ⁰X_i S into Sw (6 per DoF: ω⁰ = R ω, v⁰ = R v + p × ω⁰).
 * Flops into fl (jcalc's included). Allocation free.
 */
export function placeInWorld(
  model: Model, q: ArrayLike<number>, Xup: readonly Float64Array[], X: Float64Array, R: Float64Array, P: Float64Array,
  Iw: Float64Array, Sw: Float64Array, fl: Flops,
): void {
  const nb = model.nb, parents = model.parents, ivs = model.iv, nvis = model.nvi;
  let mul = 0, add = 0;
  for (let i = 0; i < nb; i++) {
    const xo = 12 * i, ro = 9 * i, po = 3 * i;
    jcalc(Xup[i], model, i, q, fl);
    const e0 = X[xo], e1 = X[xo + 1], e2 = X[xo + 2], e3 = X[xo + 3], e4 = X[xo + 4], e5 = X[xo + 5], e6 = X[xo + 6], e7 = X[xo + 7], e8 = X[xo + 8];
    const r0 = X[xo + 9], r1 = X[xo + 10], r2 = X[xo + 11];
    const lam = parents[i];
    let a0, a1, a2, a3, a4, a5, a6, a7, a8, p0, p1, p2;
    if (lam < 0) {
      // ⁰R_i = Eᵀ, ⁰p_i = r
      a0 = e0; a1 = e3; a2 = e6; a3 = e1; a4 = e4; a5 = e7; a6 = e2; a7 = e5; a8 = e8;
      p0 = r0; p1 = r1; p2 = r2;
    } else {
      const lo = 9 * lam, lp = 3 * lam;
      const b0 = R[lo], b1 = R[lo + 1], b2 = R[lo + 2], b3 = R[lo + 3], b4 = R[lo + 4], b5 = R[lo + 5], b6 = R[lo + 6], b7 = R[lo + 7], b8 = R[lo + 8];
      // ⁰R_i = ⁰R_λ Eᵀ: entry (a, b) = Σ_c R_λ[a][c] E[b][c]
      a0 = b0 * e0 + b1 * e1 + b2 * e2; a1 = b0 * e3 + b1 * e4 + b2 * e5; a2 = b0 * e6 + b1 * e7 + b2 * e8;
      a3 = b3 * e0 + b4 * e1 + b5 * e2; a4 = b3 * e3 + b4 * e4 + b5 * e5; a5 = b3 * e6 + b4 * e7 + b5 * e8;
      a6 = b6 * e0 + b7 * e1 + b8 * e2; a7 = b6 * e3 + b7 * e4 + b8 * e5; a8 = b6 * e6 + b7 * e7 + b8 * e8;
      // ⁰p_i = ⁰p_λ + ⁰R_λ r
      p0 = P[lp] + (b0 * r0 + b1 * r1 + b2 * r2);
      p1 = P[lp + 1] + (b3 * r0 + b4 * r1 + b5 * r2);
      p2 = P[lp + 2] + (b6 * r0 + b7 * r1 + b8 * r2);
      mul += 27 + 9; add += 18 + 9;
    }
    R[ro] = a0; R[ro + 1] = a1; R[ro + 2] = a2; R[ro + 3] = a3; R[ro + 4] = a4; R[ro + 5] = a5; R[ro + 6] = a6; R[ro + 7] = a7; R[ro + 8] = a8;
    P[po] = p0; P[po + 1] = p1; P[po + 2] = p2;
    // the body's inertia about the world origin in world axes: h_r = R h, Ī_r = R Ī Rᵀ about the body's
    // origin; moved to the world origin (parallel axes, by the first moment: no division by the mass)
    //   h⁰ = m p + h_r,  Ī⁰ = Ī_r − (p h_rᵀ + h_r pᵀ) + 2 (h_r·p) 1 + m (|p|² 1 − p pᵀ)
    const I = model.I[i], o = 10 * i;
    const m = I[0], hx = I[1], hy = I[2], hz = I[3];
    const Ixx = I[4], Ixy = I[5], Ixz = I[6], Iyy = I[7], Iyz = I[8], Izz = I[9];
    const h0 = a0 * hx + a1 * hy + a2 * hz, h1 = a3 * hx + a4 * hy + a5 * hz, h2 = a6 * hx + a7 * hy + a8 * hz;
    // T = R Ī (row-major), then Ī_r = T Rᵀ (upper triangle)
    const t0 = a0 * Ixx + a1 * Ixy + a2 * Ixz, t1 = a0 * Ixy + a1 * Iyy + a2 * Iyz, t2 = a0 * Ixz + a1 * Iyz + a2 * Izz;
    const t3 = a3 * Ixx + a4 * Ixy + a5 * Ixz, t4 = a3 * Ixy + a4 * Iyy + a5 * Iyz, t5 = a3 * Ixz + a4 * Iyz + a5 * Izz;
    const t6 = a6 * Ixx + a7 * Ixy + a8 * Ixz, t7 = a6 * Ixy + a7 * Iyy + a8 * Iyz, t8 = a6 * Ixz + a7 * Iyz + a8 * Izz;
    const s00 = t0 * a0 + t1 * a1 + t2 * a2, s01 = t0 * a3 + t1 * a4 + t2 * a5, s02 = t0 * a6 + t1 * a7 + t2 * a8;
    const s11 = t3 * a3 + t4 * a4 + t5 * a5, s12 = t3 * a6 + t4 * a7 + t5 * a8, s22 = t6 * a6 + t7 * a7 + t8 * a8;
    const hp = h0 * p0 + h1 * p1 + h2 * p2, pp = p0 * p0 + p1 * p1 + p2 * p2;
    const d = 2 * hp + m * pp;
    Iw[o] = m;
    Iw[o + 1] = m * p0 + h0; Iw[o + 2] = m * p1 + h1; Iw[o + 3] = m * p2 + h2;
    Iw[o + 4] = s00 - 2 * (p0 * h0) + d - m * (p0 * p0);
    Iw[o + 5] = s01 - (p0 * h1 + h0 * p1) - m * (p0 * p1);
    Iw[o + 6] = s02 - (p0 * h2 + h0 * p2) - m * (p0 * p2);
    Iw[o + 7] = s11 - 2 * (p1 * h1) + d - m * (p1 * p1);
    Iw[o + 8] = s12 - (p1 * h2 + h1 * p2) - m * (p1 * p2);
    Iw[o + 9] = s22 - 2 * (p2 * h2) + d - m * (p2 * p2);
    // h_r 9+6, T 27+18, Ī_r 18+12, hp and pp 6+4, d 2+1, h⁰ 3+3, diagonal 3×(4 mul, 3 add), off-diagonal 3×(4 mul, 3 add)
    mul += 9 + 27 + 18 + 6 + 2 + 3 + 12 + 12; add += 6 + 18 + 12 + 4 + 1 + 3 + 9 + 9;
    // ⁰S of the joint's DoFs: ω⁰ = R ω, v⁰ = R v + p × ω⁰
    const Si = model.S[i];
    for (let k = 0; k < nvis[i]; k++) {
      const so = 6 * k, wo = 6 * (ivs[i] + k);
      const w0 = Si[so], w1 = Si[so + 1], w2 = Si[so + 2], v0 = Si[so + 3], v1 = Si[so + 4], v2 = Si[so + 5];
      const x0 = a0 * w0 + a1 * w1 + a2 * w2, x1 = a3 * w0 + a4 * w1 + a5 * w2, x2 = a6 * w0 + a7 * w1 + a8 * w2;
      Sw[wo] = x0; Sw[wo + 1] = x1; Sw[wo + 2] = x2;
      Sw[wo + 3] = a0 * v0 + a1 * v1 + a2 * v2 + (p1 * x2 - p2 * x1);
      Sw[wo + 4] = a3 * v0 + a4 * v1 + a5 * v2 + (p2 * x0 - p0 * x2);
      Sw[wo + 5] = a6 * v0 + a7 * v1 + a8 * v2 + (p0 * x1 - p1 * x0);
      mul += 24; add += 18;
    }
  }
  fl.mul += mul; fl.add += add;
}
