/**
 * [τ, ∂τ/∂q, ∂τ/∂q̇, M] = rneaDerivatives(q, q̇, q̈): the analytical derivatives of the recursive
 * Newton–Euler algorithm in the world frame, after Carpentier & Mansard, "Analytical Derivatives of
 * Rigid Body Dynamics Algorithms", RSS 2018 (the structure of Pinocchio's computeRNEADerivatives,
 * written out here from the identities below).
 *
 * Every quantity is expressed at the world origin in world axes (subscript-free below): J_k = ⁰X_i S_k
 * is the world column of velocity direction k of joint i, v_i, a_i the body twist and acceleration
 * (gravity as the world's acceleration a_0 = −a_g), Y_i the body's rigid inertia, h_i = Y_i v_i,
 * f_i = Y_i a_i + v_i ×* h_i, and over the subtree of i: the composite inertia Y^c_i = Σ Y_b, the
 * force F_i = Σ f_b and B^c_i = Σ B_b with the linear map
 *
 *   B_b x = v_b ×* (Y_b x) − Y_b (v_b × x) + x ×* h_b   (∂f_b for a change x of v_b with a_b += x × v_b).
 *
 * A tangent step δ along column k of joint j (λ = λ(j)) moves the subtree of j rigidly by J_k δ, so
 * every world quantity x_b of that subtree changes by its transport J_k × x_b (J_k ×* for forces,
 * and the inertias accordingly), and besides (the derivation follows the chain rule on
 * v_b = Σ J_l q̇_l, a_b = a_0 + Σ J_l q̈_l + (v_{body l} × J_l) q̇_l):
 *
 *   ∂v_b/∂q_k = J_k × v_b + dVdq_k,                  dVdq_k = v_λ × J_k
 *   ∂a_b/∂q_k = J_k × a_b + dAdq_k + dVdq_k × v_b,   dAdq_k = a_λ × J_k + v_λ × dVdq_k
 *   ∂v_b/∂q̇_k = J_k,   ∂a_b/∂q̇_k = dAdv_k + J_k × v_b,   dAdv_k = v_j × J_k + dVdq_k
 *
 * and τ_c = J_cᵀ F_i for the columns c of joint i. For a row c of joint i and a column k of joint j:
 *
 *   j an ancestor of i or i itself (the transports of J_c and F_i cancel):
 *     ∂τ_c/∂q_k = P_c · dAdq_k + Q_c · dVdq_k,   ∂τ_c/∂q̇_k = P_c · dAdv_k + Q_c · J_k,
 *     with P_c = Y^c_i J_c, Q_c = (B^c_i)ᵀ J_c;
 *   j strictly below i (J_c does not move):
 *     ∂τ_c/∂q_k = J_c · dFdq_k,   dFdq_k = Y^c_j dAdq_k + B^c_j dVdq_k + J_k ×* F_j,
 *     ∂τ_c/∂q̇_k = J_c · dFdv_k,   dFdv_k = Y^c_j dAdv_k + B^c_j J_k;
 *   otherwise 0.   M[c, k] = M[k, c] = J_c · P_k for the same pairs (the CRBA's entries).
 *
 * So one forward pass (per body), one backward pass adding composites (world frame: plain sums), one
 * pass per column (a few 6×6 and 6-vector products) and, per (column, ancestor column) pair, seven
 * 6-vector dot products. Tangent directions follow the state's (velocity order; a floating base's
 * [δp; δθ] in its own frame, H ⊕ δ = H exp(δ)), as every joint's S is constant in its body frame.
 * Outputs are nv×nv row-major (entry [r, k] = ∂τ_r/∂x_k). Nothing is allocated per call.
 */
import { jcalc } from '../model/jcalc.ts';
import type { Model } from '../model/model.ts';
import { Flops } from '../spatial/flops.ts';
import { inertiaAdd, inertiaMulMotion, inertiaToMatrix, inertiaTransformToParent } from '../spatial/inertia.ts';
import { crossForce, crossMotion } from '../spatial/motion.ts';
import { xCompose, xInvApplyMotion } from '../spatial/transform.ts';
import { RneaPairsCode } from './rnea-pairs-code.ts';

/** Everything one call computes, made once per model and reused. */
export class RneaDerivativesWorkspace {
  readonly nv: number;
  /** body of each velocity column */
  readonly colBody: Int32Array;
  /** ⁱX_λ(i) and ⁱX_0 (body from world) at the q of the last call */
  readonly Xup: Float64Array[];
  readonly X0: Float64Array[];
  /** v_i, a_i (world) */
  readonly v: Float64Array[];
  readonly a: Float64Array[];
  /** Y_i (world, 10 numbers), then Y^c_i after the backward pass */
  readonly Yc: Float64Array[];
  /** Y_i (world, 10 numbers): the body's own inertia */
  readonly Yb: Float64Array[];
  /** h_i = Y_i v_i (world) */
  readonly h: Float64Array[];
  /** f_i, then F_i after the backward pass (world) */
  readonly F: Float64Array[];
  /** B_i, then B^c_i after the backward pass (6×6 row-major) */
  readonly Bc: Float64Array[];
  /** per column k (6 numbers each, column k at [6k, 6k+6)): J, dVdq, dAdq, dAdv, dFdq, dFdv, P, Q */
  readonly J: Float64Array;
  readonly dVdq: Float64Array;
  readonly dAdq: Float64Array;
  readonly dAdv: Float64Array;
  readonly dFdq: Float64Array;
  readonly dFdv: Float64Array;
  readonly P: Float64Array;
  readonly Q: Float64Array;
  /** τ (length nv) and ∂τ/∂q, ∂τ/∂q̇, M (nv×nv row-major) of the last call */
  readonly tau: Float64Array;
  readonly dq: Float64Array;
  readonly dv: Float64Array;
  readonly M: Float64Array;
  /**
   * flops of the last call: value (kinematics, f, F, τ), derivatives (world inertias, B, the
   * composites, the column terms, the ∂τ dot products), M (its dot products)
   */
  readonly flops = { value: new Flops(), derivatives: new Flops(), M: new Flops() };
  /** views of the 6-vectors above per column, and of the columns of each S_i */
  private readonly Jv: Float64Array[];
  private readonly dVdqv: Float64Array[];
  private readonly dAdqv: Float64Array[];
  private readonly dAdvv: Float64Array[];
  private readonly Pv: Float64Array[];
  private readonly Scol: Float64Array[];
  /** a_0 = −a_g (world), q̇ = 0, and scratch */
  private readonly a0 = new Float64Array(6);
  private readonly zeroV: Float64Array;
  /** applyQdd: A_i and the subtree sums of Y_b A_b (6 per body), scratch */
  private readonly Aq: Float64Array;
  private readonly Gq: Float64Array;
  private readonly g6 = new Float64Array(6);
  private readonly a6 = new Float64Array(6);
  private readonly Y = new Float64Array(36);
  private readonly G = new Float64Array(36);
  private readonly vJ = new Float64Array(6);
  private readonly aJ = new Float64Array(6);
  private readonly t6 = new Float64Array(6);
  private readonly u6 = new Float64Array(6);

  /** the ancestor pairs as generated WebAssembly (rnea-pairs-code.ts: one-DoF joints), or null: the JavaScript */
  readonly code: RneaPairsCode | null;
  /** number of (column, ancestor column) pairs */
  private readonly nAbove: number;

  /** `compile` false: always the JavaScript pairs (for comparisons) */
  constructor(readonly model: Model, compile = true) {
    const nb = model.nb, nv = model.nv;
    this.nv = nv;
    this.code = compile ? RneaPairsCode.create(model) : null;
    this.colBody = new Int32Array(nv);
    const Scol: Float64Array[] = [];
    for (let i = 0; i < nb; i++) {
      for (let c = 0; c < model.nvi[i]; c++) {
        this.colBody[model.iv[i] + c] = i;
        Scol.push(model.S[i].subarray(6 * c, 6 * c + 6));
      }
    }
    this.Scol = Scol;
    // the (column, ancestor column) pairs: per column, the columns of its body's ancestors
    let above = 0;
    for (let k = 0; k < nv; k++) for (let i = model.parents[this.colBody[k]]; i >= 0; i = model.parents[i]) above += model.nvi[i];
    this.nAbove = above;
    const mk = (n: number) => Array.from({ length: nb }, () => new Float64Array(n));
    this.Xup = mk(12); this.X0 = mk(12); this.v = mk(6); this.a = mk(6);
    this.Yc = mk(10); this.Yb = mk(10); this.h = mk(6); this.F = mk(6); this.Bc = mk(36);
    const col = () => new Float64Array(6 * nv);
    this.J = col(); this.dVdq = col(); this.dAdq = col(); this.dAdv = col();
    this.dFdq = col(); this.dFdv = col(); this.P = col(); this.Q = col();
    const views = (b: Float64Array) => Array.from({ length: nv }, (_, k) => b.subarray(6 * k, 6 * k + 6));
    this.Jv = views(this.J); this.dVdqv = views(this.dVdq); this.dAdqv = views(this.dAdq);
    this.dAdvv = views(this.dAdv); this.Pv = views(this.P);
    this.tau = new Float64Array(nv);
    this.dq = new Float64Array(nv * nv);
    this.dv = new Float64Array(nv * nv);
    this.M = new Float64Array(nv * nv);
    const g = model.gravity;
    this.a0[3] = -g[0]; this.a0[4] = -g[1]; this.a0[5] = -g[2];
    this.zeroV = new Float64Array(nv);
    this.Aq = new Float64Array(6 * nb);
    this.Gq = new Float64Array(6 * nb);
  }

  /** total flops of the last call */
  totalFlops(out: Flops = new Flops()): Flops {
    return out.reset().accumulate(this.flops.value).accumulate(this.flops.derivatives).accumulate(this.flops.M);
  }

  /**
   * τ, ∂τ/∂q, ∂τ/∂q̇ and M at (q, q̇, q̈) into tau, dq, dv, M (q̇ = null: zero; withM = false: M is
   * neither computed nor counted, and keeps its last values). The inputs must have been checked
   * (sizes, unit quaternions) by the caller. Allocation free.
   */
  compute(q: ArrayLike<number>, qd: ArrayLike<number> | null, qdd: ArrayLike<number>, withM = true): this {
    this.forward(q, qd ?? this.zeroV, qdd);
    this.backward();
    this.columns();
    this.pairs(withM);
    return this;
  }

  /**
   * The passes at q̈ = 0 (kinematics, world inertias, f_i, B_i, and the composites Y^c, B^c, F): the
   * first step of the derivatives of forward dynamics, whose q̈ is not known yet (recursive.ts).
   * Then biasTorques, applyQdd and finish. Allocation free.
   */
  prepare(q: ArrayLike<number>, qd: ArrayLike<number> | null): void {
    this.forward(q, qd ?? this.zeroV, this.zeroV);
    this.backward();
  }

  /** after prepare: out = the torques at q̈ = 0, J_kᵀ F (counted as value flops) */
  biasTorques(out: Float64Array): void {
    const J = this.J, colBody = this.colBody, F = this.F;
    for (let k = 0; k < this.nv; k++) {
      const o = 6 * k, f = F[colBody[k]];
      out[k] = J[o] * f[0] + J[o + 1] * f[1] + J[o + 2] * f[2] + J[o + 3] * f[3] + J[o + 4] * f[4] + J[o + 5] * f[5];
    }
    this.flops.value.mul += 6 * this.nv; this.flops.value.add += 5 * this.nv;
  }

  /**
   * after prepare: the accelerations and forces at q̈ (a_i += A_i, A_i = A_λ + J_i q̈_i; F_i += the
   * subtree's sum of Y_b A_b), as forward and backward would have made them up to rounding (value
   * flops). Allocation free.
   */
  applyQdd(qdd: ArrayLike<number>): void {
    const model = this.model, nb = model.nb, fv = this.flops.value;
    const { Aq, Gq, J } = this;
    for (let i = 0; i < nb; i++) {
      const p = model.parents[i], ni = model.nvi[i], iv = model.iv[i], o = 6 * i;
      for (let r = 0; r < 6; r++) Aq[o + r] = p >= 0 ? Aq[6 * p + r] : 0;
      for (let c = 0; c < ni; c++) {
        const oj = 6 * (iv + c), x = qdd[iv + c];
        for (let r = 0; r < 6; r++) Aq[o + r] += J[oj + r] * x;
      }
      fv.mul += 6 * ni; fv.add += 6 * ni;
      const ai = this.a[i];
      for (let r = 0; r < 6; r++) ai[r] += Aq[o + r];
      fv.add += 6;
      const a6 = this.a6;
      for (let r = 0; r < 6; r++) a6[r] = Aq[o + r];
      inertiaMulMotion(this.g6, this.Yb[i], a6, fv);
      for (let r = 0; r < 6; r++) Gq[o + r] = this.g6[r];
    }
    for (let i = nb - 1; i >= 0; i--) {
      const p = model.parents[i], o = 6 * i, Fi = this.F[i];
      for (let r = 0; r < 6; r++) Fi[r] += Gq[o + r];
      fv.add += 6;
      if (p >= 0) { for (let r = 0; r < 6; r++) Gq[6 * p + r] += Gq[o + r]; fv.add += 6; }
    }
  }

  /** after prepare and applyQdd: τ, ∂τ/∂q, ∂τ/∂q̇ (and M with withM) */
  finish(withM: boolean): this {
    this.columns();
    this.pairs(withM);
    return this;
  }

  /** kinematics, world inertias, f_i, h_i and B_i */
  private forward(q: ArrayLike<number>, qd: ArrayLike<number>, qdd: ArrayLike<number>): void {
    const model = this.model, nb = model.nb;
    const fv = this.flops.value.reset(), fd = this.flops.derivatives.reset();
    const { vJ, aJ, t6, Jv, Scol, Y, G } = this;
    for (let i = 0; i < nb; i++) {
      const p = model.parents[i], ni = model.nvi[i], iv = model.iv[i];
      const Xup = jcalc(this.Xup[i], model, i, q, fv);
      const X0 = this.X0[i];
      if (p >= 0) xCompose(X0, Xup, this.X0[p], fv);
      else X0.set(Xup);
      const vi = this.v[i], ai = this.a[i];
      const vp = p >= 0 ? this.v[p] : null, ap = p >= 0 ? this.a[p] : this.a0;
      if (ni === 0) {
        if (vp) vi.set(vp); else vi.fill(0);
        ai.set(ap);
      } else {
        for (let c = 0; c < ni; c++) {
          const k = iv + c, J = Jv[k];
          xInvApplyMotion(J, X0, Scol[k], fv); // J_k = ⁰X_i S_k
          const qk = qd[k], ak = qdd[k];
          if (c === 0) {
            for (let r = 0; r < 6; r++) { vJ[r] = J[r] * qk; aJ[r] = J[r] * ak; }
            fv.mul += 12;
          } else {
            for (let r = 0; r < 6; r++) { vJ[r] += J[r] * qk; aJ[r] += J[r] * ak; }
            fv.mul += 12; fv.add += 12;
          }
        }
        if (vp) {
          for (let r = 0; r < 6; r++) vi[r] = vp[r] + vJ[r];
          fv.add += 6;
        } else vi.set(vJ);
        crossMotion(t6, vi, vJ, fv); // J̇_i q̇_i = v_i × (J_i q̇_i)
        for (let r = 0; r < 6; r++) ai[r] = ap[r] + aJ[r] + t6[r];
        fv.add += 12;
      }
      // Y_i in world coordinates, h_i, f_i
      const Yi = this.Yc[i], hi = this.h[i], fi = this.F[i];
      inertiaTransformToParent(Yi, X0, model.I[i], fv);
      this.Yb[i].set(Yi);
      inertiaMulMotion(hi, Yi, vi, fv);
      inertiaMulMotion(fi, Yi, ai, fv);
      crossForce(t6, vi, hi, fv);
      for (let r = 0; r < 6; r++) fi[r] += t6[r];
      fv.add += 6;
      // B_i = v×* Y − Y v× + (· ×* h) = −(G + Gᵀ) + H,  G = Y (v×)  (v×* = −(v×)ᵀ)
      inertiaToMatrix(Y, Yi);
      crmProduct(G, Y, vi, fd);
      const Bi = this.Bc[i];
      for (let r = 0; r < 6; r++) {
        for (let c = r; c < 6; c++) {
          const s = -(G[6 * r + c] + G[6 * c + r]);
          Bi[6 * r + c] = s; Bi[6 * c + r] = s;
        }
      }
      fd.add += 21;
      // H x = x ×* h = [−n× ω − f× u; −f× ω] for h = [n; f]
      const n0 = hi[0], n1 = hi[1], n2 = hi[2], f0 = hi[3], f1 = hi[4], f2 = hi[5];
      Bi[1] += n2; Bi[2] -= n1; Bi[6] -= n2; Bi[8] += n0; Bi[12] += n1; Bi[13] -= n0;
      Bi[4] += f2; Bi[5] -= f1; Bi[9] -= f2; Bi[11] += f0; Bi[15] += f1; Bi[16] -= f0;
      Bi[19] += f2; Bi[20] -= f1; Bi[24] -= f2; Bi[26] += f0; Bi[30] += f1; Bi[31] -= f0;
      fd.add += 18;
    }
  }

  /** Y^c, B^c, F over the subtrees */
  private backward(): void {
    const model = this.model, fv = this.flops.value, fd = this.flops.derivatives;
    for (let i = model.nb - 1; i >= 0; i--) {
      const p = model.parents[i];
      if (p < 0) continue;
      inertiaAdd(this.Yc[p], this.Yc[p], this.Yc[i], fd);
      const Bp = this.Bc[p], Bi = this.Bc[i];
      for (let e = 0; e < 36; e++) Bp[e] += Bi[e];
      fd.add += 36;
      const Fp = this.F[p], Fi = this.F[i];
      for (let r = 0; r < 6; r++) Fp[r] += Fi[r];
      fv.add += 6;
    }
  }

  /** τ and the per-column terms J, dVdq, dAdq, dAdv, dFdq, dFdv, P, Q */
  private columns(): void {
    const model = this.model, nv = this.nv, fv = this.flops.value, fd = this.flops.derivatives;
    const { t6, u6, tau } = this;
    for (let k = 0; k < nv; k++) {
      const j = this.colBody[k], p = model.parents[j], o = 6 * k;
      const J = this.Jv[k], dVdq = this.dVdqv[k], dAdq = this.dAdqv[k], dAdv = this.dAdvv[k];
      const Fj = this.F[j], Yj = this.Yc[j], Bj = this.Bc[j], vj = this.v[j];
      const Jf = this.J;
      tau[k] = Jf[o] * Fj[0] + Jf[o + 1] * Fj[1] + Jf[o + 2] * Fj[2] + Jf[o + 3] * Fj[3] + Jf[o + 4] * Fj[4] + Jf[o + 5] * Fj[5];
      fv.mul += 6; fv.add += 5;
      crossMotion(dAdq, p >= 0 ? this.a[p] : this.a0, J, fd);
      crossMotion(dAdv, vj, J, fd);
      if (p >= 0) {
        const vp = this.v[p];
        crossMotion(dVdq, vp, J, fd);
        crossMotion(t6, vp, dVdq, fd);
        for (let r = 0; r < 6; r++) { dAdq[r] += t6[r]; dAdv[r] += dVdq[r]; }
        fd.add += 12;
      } else dVdq.fill(0);
      // P = Y^c J, Q = (B^c)ᵀ J
      inertiaMulMotion(this.Pv[k], Yj, J, fd);
      m6TMulVecAt(this.Q, o, Bj, this.J, o, fd);
      // dFdq = Y^c dAdq + B^c dVdq + J ×* F
      inertiaMulMotion(t6, Yj, dAdq, fd);
      crossForce(u6, J, Fj, fd);
      const dFdq = this.dFdq;
      if (p >= 0) {
        m6MulVecAt(dFdq, o, Bj, this.dVdq, o, fd);
        for (let r = 0; r < 6; r++) dFdq[o + r] += t6[r] + u6[r];
        fd.add += 12;
      } else {
        for (let r = 0; r < 6; r++) dFdq[o + r] = t6[r] + u6[r];
        fd.add += 6;
      }
      // dFdv = Y^c dAdv + B^c J
      inertiaMulMotion(t6, Yj, dAdv, fd);
      m6MulVecAt(this.dFdv, o, Bj, this.J, o, fd);
      for (let r = 0; r < 6; r++) this.dFdv[o + r] += t6[r];
      fd.add += 6;
    }
  }

  /**
   * the (row, column) entries: per column k, the columns of its joint and of the joints above (the
   * 6-vector dot products written out, the column's vectors held in locals); withM: M's entries too
   */
  private pairs(withM: boolean): void {
    const model = this.model, nv = this.nv, fd = this.flops.derivatives, fm = this.flops.M.reset();
    const { J, dVdq, dAdq, dAdv, dFdq, dFdv, P, Q, dq, dv, M, colBody } = this;
    if (this.code !== null) {
      // the ancestor pairs by the generated code, the own entries (a column with itself) here
      this.code.run(this, dq, dv, M, withM);
      for (let k = 0; k < nv; k++) {
        const o = 6 * k, d = k * nv + k;
        dq[d] = (P[o] * dAdq[o] + P[o + 1] * dAdq[o + 1] + P[o + 2] * dAdq[o + 2] + P[o + 3] * dAdq[o + 3] + P[o + 4] * dAdq[o + 4] + P[o + 5] * dAdq[o + 5]) + (Q[o] * dVdq[o] + Q[o + 1] * dVdq[o + 1] + Q[o + 2] * dVdq[o + 2] + Q[o + 3] * dVdq[o + 3] + Q[o + 4] * dVdq[o + 4] + Q[o + 5] * dVdq[o + 5]);
        dv[d] = (P[o] * dAdv[o] + P[o + 1] * dAdv[o + 1] + P[o + 2] * dAdv[o + 2] + P[o + 3] * dAdv[o + 3] + P[o + 4] * dAdv[o + 4] + P[o + 5] * dAdv[o + 5]) + (Q[o] * J[o] + Q[o + 1] * J[o + 1] + Q[o + 2] * J[o + 2] + Q[o + 3] * J[o + 3] + Q[o + 4] * J[o + 4] + Q[o + 5] * J[o + 5]);
        if (withM) M[d] = (J[o] * P[o] + J[o + 1] * P[o + 1] + J[o + 2] * P[o + 2] + J[o + 3] * P[o + 3] + J[o + 4] * P[o + 4] + J[o + 5] * P[o + 5]);
      }
      fd.mul += nv * 24 + this.nAbove * 36;
      fd.add += nv * 22 + this.nAbove * 32;
      if (withM) { fm.mul += (nv + this.nAbove) * 6; fm.add += (nv + this.nAbove) * 5; }
      return;
    }
    dq.fill(0); dv.fill(0);
    if (withM) M.fill(0);
    const parents = model.parents, ivs = model.iv, nvis = model.nvi;
    let own = 0, above = 0;
    for (let k = 0; k < nv; k++) {
      const j = colBody[k], ok = 6 * k, rk = k * nv;
      const jk0 = J[ok + 0], jk1 = J[ok + 1], jk2 = J[ok + 2], jk3 = J[ok + 3], jk4 = J[ok + 4], jk5 = J[ok + 5];
      const pk0 = P[ok + 0], pk1 = P[ok + 1], pk2 = P[ok + 2], pk3 = P[ok + 3], pk4 = P[ok + 4], pk5 = P[ok + 5];
      const qk0 = Q[ok + 0], qk1 = Q[ok + 1], qk2 = Q[ok + 2], qk3 = Q[ok + 3], qk4 = Q[ok + 4], qk5 = Q[ok + 5];
      const aq0 = dAdq[ok + 0], aq1 = dAdq[ok + 1], aq2 = dAdq[ok + 2], aq3 = dAdq[ok + 3], aq4 = dAdq[ok + 4], aq5 = dAdq[ok + 5];
      const vq0 = dVdq[ok + 0], vq1 = dVdq[ok + 1], vq2 = dVdq[ok + 2], vq3 = dVdq[ok + 3], vq4 = dVdq[ok + 4], vq5 = dVdq[ok + 5];
      const av0 = dAdv[ok + 0], av1 = dAdv[ok + 1], av2 = dAdv[ok + 2], av3 = dAdv[ok + 3], av4 = dAdv[ok + 4], av5 = dAdv[ok + 5];
      const fq0 = dFdq[ok + 0], fq1 = dFdq[ok + 1], fq2 = dFdq[ok + 2], fq3 = dFdq[ok + 3], fq4 = dFdq[ok + 4], fq5 = dFdq[ok + 5];
      const fv0 = dFdv[ok + 0], fv1 = dFdv[ok + 1], fv2 = dFdv[ok + 2], fv3 = dFdv[ok + 3], fv4 = dFdv[ok + 4], fv5 = dFdv[ok + 5];
      // columns c of joint j: the ancestor-or-self formulas for (c, k)
      for (let c = ivs[j], ce = ivs[j] + nvis[j]; c < ce; c++) {
        const oc = 6 * c, rc = c * nv;
        dq[rc + k] = (P[oc + 0] * aq0 + P[oc + 1] * aq1 + P[oc + 2] * aq2 + P[oc + 3] * aq3 + P[oc + 4] * aq4 + P[oc + 5] * aq5) + (Q[oc + 0] * vq0 + Q[oc + 1] * vq1 + Q[oc + 2] * vq2 + Q[oc + 3] * vq3 + Q[oc + 4] * vq4 + Q[oc + 5] * vq5);
        dv[rc + k] = (P[oc + 0] * av0 + P[oc + 1] * av1 + P[oc + 2] * av2 + P[oc + 3] * av3 + P[oc + 4] * av4 + P[oc + 5] * av5) + (Q[oc + 0] * jk0 + Q[oc + 1] * jk1 + Q[oc + 2] * jk2 + Q[oc + 3] * jk3 + Q[oc + 4] * jk4 + Q[oc + 5] * jk5);
        if (withM) M[rc + k] = (J[oc + 0] * pk0 + J[oc + 1] * pk1 + J[oc + 2] * pk2 + J[oc + 3] * pk3 + J[oc + 4] * pk4 + J[oc + 5] * pk5);
        own++;
      }
      // columns c of the joints strictly above j: (c, k) with k below c, and (k, c) with c above k
      for (let i = parents[j]; i >= 0; i = parents[i]) {
        for (let c = ivs[i], ce = ivs[i] + nvis[i]; c < ce; c++) {
          const oc = 6 * c, rc = c * nv;
          dq[rc + k] = (J[oc + 0] * fq0 + J[oc + 1] * fq1 + J[oc + 2] * fq2 + J[oc + 3] * fq3 + J[oc + 4] * fq4 + J[oc + 5] * fq5);
          dv[rc + k] = (J[oc + 0] * fv0 + J[oc + 1] * fv1 + J[oc + 2] * fv2 + J[oc + 3] * fv3 + J[oc + 4] * fv4 + J[oc + 5] * fv5);
          dq[rk + c] = (dAdq[oc + 0] * pk0 + dAdq[oc + 1] * pk1 + dAdq[oc + 2] * pk2 + dAdq[oc + 3] * pk3 + dAdq[oc + 4] * pk4 + dAdq[oc + 5] * pk5) + (dVdq[oc + 0] * qk0 + dVdq[oc + 1] * qk1 + dVdq[oc + 2] * qk2 + dVdq[oc + 3] * qk3 + dVdq[oc + 4] * qk4 + dVdq[oc + 5] * qk5);
          dv[rk + c] = (dAdv[oc + 0] * pk0 + dAdv[oc + 1] * pk1 + dAdv[oc + 2] * pk2 + dAdv[oc + 3] * pk3 + dAdv[oc + 4] * pk4 + dAdv[oc + 5] * pk5) + (J[oc + 0] * qk0 + J[oc + 1] * qk1 + J[oc + 2] * qk2 + J[oc + 3] * qk3 + J[oc + 4] * qk4 + J[oc + 5] * qk5);
          if (withM) { const m = (J[oc + 0] * pk0 + J[oc + 1] * pk1 + J[oc + 2] * pk2 + J[oc + 3] * pk3 + J[oc + 4] * pk4 + J[oc + 5] * pk5); M[rc + k] = m; M[rk + c] = m; }
          above++;
        }
      }
    }
    // per own pair 4 dots + 2 adds for ∂τ, 1 dot for M; per pair above 6 dots + 2 adds, 1 dot
    fd.mul += own * 24 + above * 36;
    fd.add += own * 22 + above * 32;
    if (withM) {
      fm.mul += (own + above) * 6;
      fm.add += (own + above) * 5;
    }
  }
}

/** out[o..o+6) = M x[ox..ox+6) for M 6×6 row-major. 36 mul, 30 add. */
function m6MulVecAt(out: Float64Array, o: number, M: Float64Array, x: Float64Array, ox: number, fl: Flops): void {
  const a0 = x[ox], a1 = x[ox + 1], a2 = x[ox + 2], a3 = x[ox + 3], a4 = x[ox + 4], a5 = x[ox + 5];
  for (let r = 0; r < 6; r++) {
    const m = 6 * r;
    out[o + r] = M[m] * a0 + M[m + 1] * a1 + M[m + 2] * a2 + M[m + 3] * a3 + M[m + 4] * a4 + M[m + 5] * a5;
  }
  fl.mul += 36; fl.add += 30;
}

/** out[o..o+6) = Mᵀ x[ox..ox+6) for M 6×6 row-major. 36 mul, 30 add. */
function m6TMulVecAt(out: Float64Array, o: number, M: Float64Array, x: Float64Array, ox: number, fl: Flops): void {
  const a0 = x[ox], a1 = x[ox + 1], a2 = x[ox + 2], a3 = x[ox + 3], a4 = x[ox + 4], a5 = x[ox + 5];
  for (let c = 0; c < 6; c++) {
    out[o + c] = M[c] * a0 + M[6 + c] * a1 + M[12 + c] * a2 + M[18 + c] * a3 + M[24 + c] * a4 + M[30 + c] * a5;
  }
  fl.mul += 36; fl.add += 30;
}

/**
 * G = Y (v×) for Y 6×6 row-major and the motion cross-product matrix of v = [ω; u]:
 * (v×) = [ω× 0; u× ω×], so G = [Y₁₁ ω× + Y₁₂ u×,  Y₁₂ ω×;  Y₂₁ ω× + Y₂₂ u×,  Y₂₂ ω×].
 * Per row: the six entries from the 18 nonzeros of (v×): 18 mul, 12 add (108 mul, 72 add in all).
 */
function crmProduct(G: Float64Array, Y: Float64Array, v: Float64Array, fl: Flops): void {
  const w0 = v[0], w1 = v[1], w2 = v[2], u0 = v[3], u1 = v[4], u2 = v[5];
  for (let r = 0; r < 6; r++) {
    const o = 6 * r;
    const y0 = Y[o], y1 = Y[o + 1], y2 = Y[o + 2], y3 = Y[o + 3], y4 = Y[o + 4], y5 = Y[o + 5];
    // row · column e of (v×): columns 0..2 = [ω× e_e; u× e_e], columns 3..5 = [0; ω× e_e]
    // ω× = [[0,−w2,w1],[w2,0,−w0],[−w1,w0,0]]
    G[o] = y1 * w2 - y2 * w1 + (y4 * u2 - y5 * u1);
    G[o + 1] = y2 * w0 - y0 * w2 + (y5 * u0 - y3 * u2);
    G[o + 2] = y0 * w1 - y1 * w0 + (y3 * u1 - y4 * u0);
    G[o + 3] = y4 * w2 - y5 * w1;
    G[o + 4] = y5 * w0 - y3 * w2;
    G[o + 5] = y3 * w1 - y4 * w0;
  }
  fl.mul += 108; fl.add += 72;
}
