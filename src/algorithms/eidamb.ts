/**
 * EIDAmb: the extended inverse dynamics of a moving-base tree, τ̄ = [τ_b; τ] = ID̄(H, s, v, r, a_0, ṙ),
 * Saccon et al. (2017) Table 4 (Saccon, Traversaro, Nori, Nijmeijer), with the composite-inertia split that its
 * derivative algorithms (Tables 5–8: eidamb-d1.ts … eidamb-d4.ts) differentiate line by line:
 *
 *   base (lines 1–11):  v_0, a^r_0 = ⁰X_A a_grav, a^vp_0 = a^r_0, M^c_0 = M_0, m_0 = M_0 v_0,
 *                       b^c_0 = M_0 a^r_0 + v_0 ×* m_0, b^vp_0 = b^c_0
 *   forward (12–23):    ⁱX_λ = jcalc;  v_J = Γ r_i;  v_i = ⁱX_λ v_λ + v_J
 *                       a^r_i = ⁱX_λ a^r_λ + Γ ṙ_i + v_i × v_J;   a^vp_i = ⁱX_λ a^vp_λ + v_i × v_J
 *                       M^c_i = M_i;  m_i = M_i v_i;  b^c_i = M_i a^r_i + v_i ×* m_i;  b^vp_i = M_i a^vp_i + v_i ×* m_i
 *   backward (24–28):   M^c_λ += ⁱX_λᵀ M^c_i ⁱX_λ;  b^c_λ += ⁱX_λᵀ b^c_i;  b^vp_λ += ⁱX_λᵀ b^vp_i
 *   forward (29–39):    ⁱa_A,0 = ⁱX_λ ^λa_A,0;  τ_i = Γᵀ (M^c_i ⁱa_A,0 + b^c_i);  ₀F_i = ₀Xⁱ M^c_i Γ
 *   base (40):          τ̄_b = M^c_0 ⁰a_A,0 + ₀F ṙ + b^vp_0
 *
 * Conventions of sparsedyn (where they depart from the paper's inputs, said here):
 * - The moving base is body 0 with a `floating` joint (Pinocchio's FreeFlyer): H from q[0..7]
 *   (⁰X_A = ⁱX_λ of jcalc), and the base twist is the body-frame twist of the state, v_0 = S_0 v[0..6]
 *   (the paper's input is the world-frame ᴬv_A,0 with v_0 = ⁰X_A ᴬv_A,0, line 5; the derivative
 *   tables offer both conventions, see eidamb-d1.ts). ⁰a_A,0 = S_0 q̈[0..6] is the base's body-frame
 *   acceleration, τ̄_b = S_0ᵀ(…) = [force; torque] in the base frame: τ̄ = τ of RNEA, in our order
 *   [τ_b; τ] (rows 0..5 the base).
 * - Gravity: a_grav is our a_0 = −a_g (the fictitious acceleration of the world, Nori (2017) §IV-A).
 * - A fixed base is the special case where the base is the world: v_0 = 0, ⁰a_A,0 = 0, no τ̄_b;
 *   then M^c, a^vp, b^vp and F are not needed and not computed.
 * - Joints with several DoF (spherical) and 0-DoF bodies are allowed: Γ = S_i (6×n_i).
 * `first` is the first moving body (1 with a floating base, else 0); every other body must have a
 * moving parent or, with a fixed base, the world.
 */
import { jcalc } from '../model/jcalc.ts';
import type { Model } from '../model/model.ts';
import { setSTf, setSx } from '../model/subspace.ts';
import { Flops } from '../spatial/flops.ts';
import { inertiaAdd, inertiaMulMotion, inertiaTransformToParent } from '../spatial/inertia.ts';
import { crossForce, crossMotion } from '../spatial/motion.ts';
import { xApplyMotion, xTransposeApplyForce, xTransposeApplyForceAdd } from '../spatial/transform.ts';
import { inertiaMulS, JointColumns } from './jcalcderiv.ts';
import { checkConfiguration, checkVector } from './validate.ts';

export class EidambWorkspace {
  /** true when body 0 is a floating base (Saccon's moving base); false: the world is the base */
  readonly floating: boolean;
  /** first moving (non-base) body: 1 with a floating base, 0 otherwise */
  readonly first: number;
  /** ⁱX_λ(i) (line 15; for the floating base ⁰X_A, line 4) */
  readonly Xup: Float64Array[];
  /** v_J,i = Γ_i r_i (line 14), body coordinates */
  readonly vJ: Float64Array[];
  /** v_i: body twist, body coordinates (lines 5, 16) */
  readonly v: Float64Array[];
  /** ⁱX_λ v_λ, ⁱX_λ a^r_λ, ⁱX_λ a^vp_λ, ⁱX_λ ^λa_A,0: the transported parent terms of lines 16, 17, 18, 30 (zero / world gravity for a root of a fixed base) */
  readonly Xv: Float64Array[];
  readonly Xar: Float64Array[];
  readonly Xavp: Float64Array[];
  readonly XaA0: Float64Array[];
  /** a^r_i: acceleration relative to the base acceleration, gravity included (lines 6, 17) */
  readonly ar: Float64Array[];
  /** a^vp_i: velocity-product and gravity part of a^r_i (lines 7, 18; floating base only) */
  readonly avp: Float64Array[];
  /** M^c_i: composite rigid inertia of the subtree at i (lines 8, 19, 25; floating base only) */
  readonly Mc: Float64Array[];
  /** m_i = M_i v_i: body momentum (lines 9, 20) */
  readonly m: Float64Array[];
  /** b^c_i: composite bias wrench (lines 10, 21, 26) */
  readonly bc: Float64Array[];
  /** b^vp_i: composite bias wrench without joint accelerations (lines 11, 22, 27; floating base only) */
  readonly bvp: Float64Array[];
  /** ⁱa_A,0: the base acceleration carried rigidly to body i (line 30; floating base only) */
  readonly aA0: Float64Array[];
  /** ₀F: 6×nv column-major, column k = ₀X^j M^c_j Γ_jk for the joint j of column k (lines 32–38) */
  readonly F0: Float64Array;
  /** views of the columns of ₀F, made once (a subarray per call would allocate) */
  readonly F0col: Float64Array[];
  /** S_i ṙ_i per body (the joint-acceleration twist of line 17) */
  readonly Sa: Float64Array[];
  /** a_grav = −a_g, world coordinates */
  readonly agrav: Float64Array;
  /** τ̄ = [τ_b; τ] (output, length nv, velocity order) */
  readonly tau: Float64Array;
  /** the velocity columns S_k with their product costs */
  readonly cols: JointColumns;
  /** flops of the last call */
  readonly flops = new Flops();
  /** scratch */
  readonly t6 = new Float64Array(6);
  readonly u6 = new Float64Array(6);
  readonly tI = new Float64Array(10);

  constructor(readonly model: Model) {
    const nb = model.nb;
    this.floating = model.floatingBase;
    this.first = this.floating ? 1 : 0;
    for (let i = this.first; i < nb; i++) {
      if (this.floating && model.parents[i] < 0) {
        throw new RangeError(`EIDAmb: body "${model.bodyNames[i]}" hangs from the world beside the floating base "${model.bodyNames[0]}"; a moving-base tree has one root`);
      }
    }
    const mk = (n: number) => Array.from({ length: nb }, () => new Float64Array(n));
    this.Xup = mk(12); this.vJ = mk(6); this.v = mk(6);
    this.Xv = mk(6); this.Xar = mk(6); this.Xavp = mk(6); this.XaA0 = mk(6);
    this.ar = mk(6); this.avp = mk(6); this.Mc = mk(10); this.m = mk(6);
    this.bc = mk(6); this.bvp = mk(6); this.aA0 = mk(6); this.Sa = mk(6);
    this.F0 = new Float64Array(6 * model.nv);
    this.F0col = Array.from({ length: model.nv }, (_, c) => this.F0.subarray(6 * c, 6 * c + 6));
    this.agrav = new Float64Array(6);
    const g = model.gravity;
    this.agrav[3] = -g[0]; this.agrav[4] = -g[1]; this.agrav[5] = -g[2];
    this.tau = new Float64Array(model.nv);
    this.cols = new JointColumns(model);
  }
}

/** τ̄ = EIDAmb(q, v, a) (Table 4), written into and returned as ws.tau. Allocation free. */
export function eidamb(model: Model, ws: EidambWorkspace, q: ArrayLike<number>, v: ArrayLike<number>, a: ArrayLike<number>): Float64Array {
  if (ws.model !== model) throw new RangeError('eidamb: workspace was created for another model');
  checkConfiguration(model, q);
  checkVector(model, 'v', v, false);
  checkVector(model, 'a', a, false);
  return eidambUnchecked(model, ws, q, v, a);
}

/** eidamb without the entry checks. */
export function eidambUnchecked(model: Model, ws: EidambWorkspace, q: ArrayLike<number>, v: ArrayLike<number>, a: ArrayLike<number>): Float64Array {
  const fl = ws.flops;
  fl.reset();
  const nb = model.nb, fb = ws.floating, first = ws.first;
  const t6 = ws.t6, u6 = ws.u6;
  if (fb) {
    // lines 1–11: the moving base (body 0)
    const X = jcalc(ws.Xup[0], model, 0, q, fl);
    setSx(ws.v[0], model.S[0], 6, v, 0, fl); // v_0 (body twist of the state; line 5 with ᴬv_A,0 = ᴬX_0 v_0)
    ws.vJ[0].set(ws.v[0]);
    xApplyMotion(ws.ar[0], X, ws.agrav, fl); // a^r_0 = ⁰X_A a_grav (line 6)
    ws.avp[0].set(ws.ar[0]); // line 7
    const I0 = model.I[0];
    ws.Mc[0].set(I0); // line 8
    inertiaMulMotion(ws.m[0], I0, ws.v[0], fl); // line 9
    inertiaMulMotion(ws.bc[0], I0, ws.ar[0], fl); // line 10
    crossForce(t6, ws.v[0], ws.m[0], fl);
    for (let k = 0; k < 6; k++) ws.bc[0][k] += t6[k];
    fl.add += 6;
    ws.bvp[0].set(ws.bc[0]); // line 11
    setSx(ws.aA0[0], model.S[0], 6, a, 0, fl); // ⁰a_A,0
  }
  // lines 12–23
  for (let i = first; i < nb; i++) {
    const p = model.parents[i], ni = model.nvi[i], S = model.S[i], iv = model.iv[i];
    const X = jcalc(ws.Xup[i], model, i, q, fl); // lines 13, 15
    const vJ = ws.vJ[i];
    setSx(vJ, S, ni, v, iv, fl); // line 14
    const vi = ws.v[i], ar = ws.ar[i], Xv = ws.Xv[i], Xar = ws.Xar[i];
    setSx(ws.Sa[i], S, ni, a, iv, fl);
    if (p >= 0) {
      xApplyMotion(Xv, X, ws.v[p], fl);
      for (let k = 0; k < 6; k++) vi[k] = Xv[k] + vJ[k]; // line 16
      fl.add += 6;
      xApplyMotion(Xar, X, ws.ar[p], fl);
      crossMotion(t6, vi, vJ, fl); // v_i × v_J
      for (let k = 0; k < 6; k++) ar[k] = Xar[k] + ws.Sa[i][k] + t6[k]; // line 17
      fl.add += 12;
      if (fb) {
        const Xavp = ws.Xavp[i], avp = ws.avp[i];
        xApplyMotion(Xavp, X, ws.avp[p], fl);
        for (let k = 0; k < 6; k++) avp[k] = Xavp[k] + t6[k]; // line 18
        fl.add += 6;
      }
    } else {
      // a root of a fixed base: v_λ = 0, so v_i = v_J and v_i × v_J = 0
      Xv.fill(0);
      vi.set(vJ);
      xApplyMotion(Xar, X, ws.agrav, fl);
      for (let k = 0; k < 6; k++) ar[k] = Xar[k] + ws.Sa[i][k];
      fl.add += 6;
    }
    const I = model.I[i];
    if (fb) ws.Mc[i].set(I); // line 19
    inertiaMulMotion(ws.m[i], I, vi, fl); // line 20
    crossForce(u6, vi, ws.m[i], fl);
    inertiaMulMotion(ws.bc[i], I, ar, fl); // line 21
    for (let k = 0; k < 6; k++) ws.bc[i][k] += u6[k];
    fl.add += 6;
    if (fb) {
      inertiaMulMotion(ws.bvp[i], I, ws.avp[i], fl); // line 22
      for (let k = 0; k < 6; k++) ws.bvp[i][k] += u6[k];
      fl.add += 6;
    }
  }
  // lines 24–28
  for (let i = nb - 1; i >= first; i--) {
    const p = model.parents[i];
    if (p < 0) continue;
    const X = ws.Xup[i];
    if (fb) {
      inertiaTransformToParent(ws.tI, X, ws.Mc[i], fl); // line 25
      inertiaAdd(ws.Mc[p], ws.Mc[p], ws.tI, fl);
      xTransposeApplyForceAdd(ws.bvp[p], X, ws.bvp[i], fl); // line 27
    }
    xTransposeApplyForceAdd(ws.bc[p], X, ws.bc[i], fl); // line 26
  }
  // lines 29–39
  const tau = ws.tau;
  if (fb) ws.F0.fill(0);
  for (let i = first; i < nb; i++) {
    const ni = model.nvi[i], S = model.S[i], iv = model.iv[i];
    if (fb) {
      const X = ws.Xup[i], p = model.parents[i];
      xApplyMotion(ws.XaA0[i], X, ws.aA0[p], fl); // line 30
      ws.aA0[i].set(ws.XaA0[i]);
      inertiaMulMotion(t6, ws.Mc[i], ws.aA0[i], fl);
      for (let k = 0; k < 6; k++) t6[k] += ws.bc[i][k];
      fl.add += 6;
      setSTf(tau, iv, S, ni, t6, fl); // line 31
      // lines 32–38: F_i = M^c_i Γ_i carried to the base
      for (let c = 0; c < ni; c++) {
        const col = ws.F0col[iv + c];
        inertiaMulS(col, ws.Mc[i], ws.cols, iv + c, fl);
        let j = i;
        while (j !== 0) {
          xTransposeApplyForce(col, ws.Xup[j], col, fl);
          j = model.parents[j];
        }
      }
    } else {
      setSTf(tau, iv, S, ni, ws.bc[i], fl); // line 31 with ⁱa_A,0 = 0
    }
  }
  if (fb) {
    // line 40: τ̄_b = M^c_0 ⁰a_A,0 + ₀F ṙ + b^vp_0
    inertiaMulMotion(t6, ws.Mc[0], ws.aA0[0], fl);
    for (let k = 0; k < 6; k++) t6[k] += ws.bvp[0][k];
    fl.add += 6;
    const F0 = ws.F0;
    for (let c = 6; c < model.nv; c++) {
      const ac = a[c];
      for (let r = 0; r < 6; r++) t6[r] += F0[6 * c + r] * ac;
      fl.mul += 6; fl.add += 6;
    }
    setSTf(tau, 0, model.S[0], 6, t6, fl);
  }
  return tau;
}
