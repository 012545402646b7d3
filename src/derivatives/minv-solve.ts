/**
 * X = −M⁻¹ B for an nv×nv right-hand side B (row-major), by the articulated-body factorization of M
 * that Carpentier's M⁻¹ leaves in its world-frame workspace (algorithms/minv-carpentier.ts, frame
 * 'world'): D_i⁻¹ and ⁰U_i D_i⁻¹ per body, with the world columns J_i = ⁰X_i S_i given. Per column of
 * B these are ABA's passes with q̇ = 0, a_g = 0 and the torques of that column (Featherstone, RBDA
 * §7.3; Carpentier & Mansard, RSS 2018, for ∂q̈/∂x = −M⁻¹ ∂τ/∂x), all in world coordinates so that
 * nothing is transformed per column:
 *
 *   backward (i = N..1):  u_i = −b_i − J_iᵀ p_i,   w_i = D_i⁻¹ u_i,   p_λ += p_i + (⁰U_i D_i⁻¹) u_i
 *   forward  (i = 1..N):  x_i = w_i − (⁰U_i D_i⁻¹)ᵀ a_λ,   a_i = a_λ + J_i x_i
 *
 * (p_i = 0 for a leaf, a_λ = 0 for a root; a leaf's a_i is not needed). All nv columns of B are
 * carried together, each pass looping over them contiguously: O(nv · Σ_i depth) like the product
 * M⁻¹ B costs only for a chain, never a dense n³ product. Nothing is allocated per call.
 */
import type { MinvCarpentierWorkspace } from '../algorithms/minv-carpentier.ts';
import type { Model } from '../model/model.ts';
import type { Flops } from '../spatial/flops.ts';

export class MinvSolveWorkspace {
  /** p_i (backward), then a_i (forward): 6 rows of nv columns per body with children */
  readonly pa: (Float64Array | null)[];
  constructor(readonly model: Model) {
    const nv = model.nv;
    this.pa = Array.from({ length: model.nb }, (_, i) => (model.children[i].length > 0 ? new Float64Array(6 * nv) : null));
  }
}

/**
 * X = −M⁻¹ B (both nv×nv row-major; X must not alias B) given the factorization of the last
 * `minvCarpentier` call in world frame and J (6 numbers per column, world). Allocation free.
 */
export function negMinvSolve(model: Model, ws: MinvSolveWorkspace, fac: MinvCarpentierWorkspace, J: Float64Array, B: Float64Array, X: Float64Array, fl: Flops): void {
  const nb = model.nb, nv = model.nv, parents = model.parents;
  const pa = ws.pa;
  for (let i = 0; i < nb; i++) pa[i]?.fill(0);
  // backward
  for (let i = nb - 1; i >= 0; i--) {
    const ni = model.nvi[i], iv = model.iv[i], p = parents[i], pi = pa[i];
    const pp = p >= 0 ? pa[p] : null;
    if (ni === 0) {
      if (pi && pp) { for (let e = 0; e < 6 * nv; e++) pp[e] += pi[e]; fl.add += 6 * nv; }
      continue;
    }
    // u_c = −b_c − J_cᵀ p_i, into X's rows
    for (let c = 0; c < ni; c++) {
      const ro = (iv + c) * nv, oj = 6 * (iv + c);
      if (pi) {
        const j0 = J[oj], j1 = J[oj + 1], j2 = J[oj + 2], j3 = J[oj + 3], j4 = J[oj + 4], j5 = J[oj + 5];
        for (let k = 0; k < nv; k++) {
          X[ro + k] = -B[ro + k] - (j0 * pi[k] + j1 * pi[nv + k] + j2 * pi[2 * nv + k] + j3 * pi[3 * nv + k] + j4 * pi[4 * nv + k] + j5 * pi[5 * nv + k]);
        }
        fl.mul += 6 * nv; fl.add += 6 * nv;
      } else {
        for (let k = 0; k < nv; k++) X[ro + k] = -B[ro + k];
      }
    }
    // p_λ += p_i + (⁰U D⁻¹) u
    if (pp) {
      const UD = fac.UDw[i];
      for (let r = 0; r < 6; r++) {
        const ro = r * nv;
        for (let c = 0; c < ni; c++) {
          const s = UD[6 * c + r], xo = (iv + c) * nv;
          for (let k = 0; k < nv; k++) pp[ro + k] += s * X[xo + k];
        }
        if (pi) for (let k = 0; k < nv; k++) pp[ro + k] += pi[ro + k];
      }
      fl.mul += 6 * ni * nv; fl.add += 6 * nv * (ni + (pi ? 1 : 0));
    }
    // w = D⁻¹ u in place
    const D = fac.Dinv[i];
    if (ni === 1) {
      const d = D[0], ro = iv * nv;
      for (let k = 0; k < nv; k++) X[ro + k] *= d;
      fl.mul += nv;
    } else {
      // row by row through a 6-entry buffer per column (ni ≤ 6)
      const ro = iv * nv;
      for (let k = 0; k < nv; k++) {
        let u0 = 0, u1 = 0, u2 = 0, u3 = 0, u4 = 0, u5 = 0;
        u0 = X[ro + k]; if (ni > 1) u1 = X[ro + nv + k]; if (ni > 2) u2 = X[ro + 2 * nv + k];
        if (ni > 3) u3 = X[ro + 3 * nv + k]; if (ni > 4) u4 = X[ro + 4 * nv + k]; if (ni > 5) u5 = X[ro + 5 * nv + k];
        for (let a = 0; a < ni; a++) {
          const o = ni * a;
          let s = D[o] * u0 + D[o + 1] * u1;
          if (ni > 2) s += D[o + 2] * u2;
          if (ni > 3) s += D[o + 3] * u3;
          if (ni > 4) s += D[o + 4] * u4;
          if (ni > 5) s += D[o + 5] * u5;
          X[ro + a * nv + k] = s;
        }
      }
      fl.mul += ni * ni * nv; fl.add += ni * (ni - 1) * nv;
    }
  }
  // forward
  for (let i = 0; i < nb; i++) {
    const ni = model.nvi[i], iv = model.iv[i], p = parents[i], ai = pa[i];
    const ap = p >= 0 ? pa[p] : null;
    if (ni === 0) {
      if (ai) {
        if (ap) ai.set(ap); else ai.fill(0);
      }
      continue;
    }
    // x = w − (⁰U D⁻¹)ᵀ a_λ
    if (ap) {
      const UD = fac.UDw[i];
      for (let c = 0; c < ni; c++) {
        const o = 6 * c, xo = (iv + c) * nv;
        const s0 = UD[o], s1 = UD[o + 1], s2 = UD[o + 2], s3 = UD[o + 3], s4 = UD[o + 4], s5 = UD[o + 5];
        for (let k = 0; k < nv; k++) {
          X[xo + k] -= s0 * ap[k] + s1 * ap[nv + k] + s2 * ap[2 * nv + k] + s3 * ap[3 * nv + k] + s4 * ap[4 * nv + k] + s5 * ap[5 * nv + k];
        }
      }
      fl.mul += 6 * ni * nv; fl.add += 6 * ni * nv;
    }
    // a_i = a_λ + J x (bodies with children only)
    if (ai) {
      for (let r = 0; r < 6; r++) {
        const ro = r * nv;
        for (let c = 0; c < ni; c++) {
          const s = J[6 * (iv + c) + r], xo = (iv + c) * nv;
          if (c === 0 && ap) for (let k = 0; k < nv; k++) ai[ro + k] = ap[ro + k] + s * X[xo + k];
          else if (c === 0) for (let k = 0; k < nv; k++) ai[ro + k] = s * X[xo + k];
          else for (let k = 0; k < nv; k++) ai[ro + k] += s * X[xo + k];
        }
      }
      fl.mul += 6 * ni * nv; fl.add += 6 * nv * (ni - 1 + (ap ? 1 : 0));
    }
  }
}
