/**
 * D₂ID̄: the derivative of the extended inverse dynamics with respect to the joint positions s,
 * Saccon et al. (2017) Table 6, written into the joint columns of dws.dtau_dq (column k = ∂τ̄/∂s_k). With
 * jcalcderiv ∂ⁱX_λ/∂s_ik = −(S_ik ×) ⁱX_λ (jcalcderiv.ts) the own-joint terms of the paper read
 *
 *   lines 3, 5, 7, 9    ∂(ⁱX_λ x_λ)/∂s_ik = (ⁱX_λ x_λ) × S_ik          (x = v, a^r, a^vp)
 *   line 18             ∂(ⁱX_λᵀ M^c_i ⁱX_λ)/∂s_ik = ⁱX_λᵀ (S_ik ×* M^c_i − M^c_i S_ik ×) ⁱX_λ
 *   lines 20, 22, 40    ∂(ⁱX_λᵀ w)/∂s_ik = ⁱX_λᵀ (S_ik ×* w)                (w = b^c_i, b^vp_i, ₓF_i)
 *   line 29             ∂(ⁱX_λ ^λa_A,0)/∂s_ik = (ⁱX_λ ^λa_A,0) × S_ik
 *
 * and the loops "for k = 1 to n_B" run over the columns where the quantity can be nonzero (the
 * supports anc/desc/rel of eidamb-derivatives.ts). Lines 32–47 carry the product ₓF_i ṙ_i and its
 * derivatives to the base rather than the n_i columns of F_i: line 47 only needs ∂(₀F_i) ṙ_i.
 * ∂v_i × v_J is formed once for lines 6 and 8, and the velocity terms of lines 11 and 12 once.
 * Fixed base: lines 24–26 and 32–49 vanish (⁰a_A,0 = 0, no τ̄_b), and so do M^c, a^vp, b^vp.
 */
import type { Model } from '../model/model.ts';
import { setSTf } from '../model/subspace.ts';
import { inertiaMulMotion, inertiaTransformToParent } from '../spatial/inertia.ts';
import { crossForce, crossMotion } from '../spatial/motion.ts';
import { xApplyMotion, xTransposeApplyForce, xTransposeApplyForceAdd } from '../spatial/transform.ts';
import type { EidambDerivativesWorkspace } from './eidamb-derivatives-workspace.ts';
import type { EidambWorkspace } from './eidamb.ts';
import { crossMotionS, inertiaRate, jcalcderivForceT, rateAddInPlace, rateMulMotion } from './jcalcderiv.ts';

/** Table 6 at the state of the last eidamb call. Allocation free. */
export function eidambD2(model: Model, ws: EidambWorkspace, dws: EidambDerivativesWorkspace): void {
  const fl = dws.flopsD2;
  fl.reset();
  const fb = ws.floating, first = ws.first, cols = ws.cols, nb = model.nb, nv = model.nv;
  const { anc, desc, rel, vcol } = dws;
  const t6 = dws.t6, u6 = dws.u6, w6 = dws.w6, r10 = dws.r10, s10 = dws.s10, dtau = dws.dtau_dq;
  // lines 1–13
  for (let i = first; i < nb; i++) {
    const p = model.parents[i], X = ws.Xup[i], vJ = ws.vJ[i], I = model.I[i], ni = model.nvi[i], iv = model.iv[i];
    const dv = dws.dv[i], dar = dws.dar[i], davp = dws.davp[i], dbc = dws.dbc[i], dbvp = dws.dbvp[i];
    if (p >= 0) {
      // lines 4, 6, 8: columns inherited from the parent
      const ap = anc[p];
      for (let e = 0; e < ap.length; e++) {
        const k = ap[e];
        const withV = vcol[k] === 1 && ni > 0;
        if (vcol[k]) xApplyMotion(dv[k], X, dws.dv[p][k], fl);
        if (withV) crossMotion(t6, dv[k], vJ, fl);
        xApplyMotion(dar[k], X, dws.dar[p][k], fl);
        if (withV) { for (let r = 0; r < 6; r++) dar[k][r] += t6[r]; fl.add += 6; }
        if (fb) {
          xApplyMotion(davp[k], X, dws.davp[p][k], fl);
          if (withV) { for (let r = 0; r < 6; r++) davp[k][r] += t6[r]; fl.add += 6; }
        }
      }
    }
    // lines 2–3, 5, 7, 9: the own joint
    for (let c = 0; c < ni; c++) {
      const k = iv + c;
      if (vcol[k]) {
        crossMotionS(dv[k], ws.Xv[i], cols, k, fl); // line 5
        crossMotion(t6, dv[k], vJ, fl); // line 6 (own column)
      }
      crossMotionS(dar[k], ws.Xar[i], cols, k, fl); // line 7
      if (vcol[k]) { for (let r = 0; r < 6; r++) dar[k][r] += t6[r]; fl.add += 6; }
      if (fb) {
        crossMotionS(davp[k], ws.Xavp[i], cols, k, fl); // line 9
        if (vcol[k]) { for (let r = 0; r < 6; r++) davp[k][r] += t6[r]; fl.add += 6; }
      }
    }
    // lines 10–12
    const ai = anc[i];
    for (let e = 0; e < ai.length; e++) {
      const k = ai[e];
      inertiaMulMotion(dbc[k], I, dar[k], fl);
      if (fb) inertiaMulMotion(dbvp[k], I, davp[k], fl);
      if (vcol[k]) {
        inertiaMulMotion(u6, I, dv[k], fl); // line 10: ∂m_i
        crossForce(t6, dv[k], ws.m[i], fl);
        crossForce(w6, ws.v[i], u6, fl);
        for (let r = 0; r < 6; r++) t6[r] += w6[r];
        fl.add += 6;
        for (let r = 0; r < 6; r++) dbc[k][r] += t6[r]; // line 11
        fl.add += 6;
        if (fb) { for (let r = 0; r < 6; r++) dbvp[k][r] += t6[r]; fl.add += 6; } // line 12
      }
    }
    // the columns the backward pass accumulates into start at zero
    const di = desc[i];
    for (let e = 0; e < di.length; e++) {
      const k = di[e];
      dbc[k].fill(0);
      if (fb) { dbvp[k].fill(0); dws.dMc[i][k].fill(0); }
    }
  }
  if (fb) {
    const d0 = desc[0];
    for (let e = 0; e < d0.length; e++) {
      const k = d0[e];
      dws.dbc[0][k].fill(0); dws.dbvp[0][k].fill(0); dws.dMc[0][k].fill(0);
    }
  }
  // lines 14–23
  for (let i = nb - 1; i >= first; i--) {
    const p = model.parents[i];
    if (p < 0) continue;
    const X = ws.Xup[i], ni = model.nvi[i], iv = model.iv[i];
    if (fb) {
      const di = desc[i];
      for (let e = 0; e < di.length; e++) {
        const k = di[e];
        inertiaTransformToParent(s10, X, dws.dMc[i][k], fl); // line 16
        rateAddInPlace(dws.dMc[p][k], s10, fl);
      }
      for (let c = 0; c < ni; c++) {
        inertiaRate(r10, cols, iv + c, ws.Mc[i], fl); // line 18
        inertiaTransformToParent(s10, X, r10, fl);
        rateAddInPlace(dws.dMc[p][iv + c], s10, fl);
      }
    }
    const ri = rel[i];
    for (let e = 0; e < ri.length; e++) {
      const k = ri[e];
      xTransposeApplyForceAdd(dws.dbc[p][k], X, dws.dbc[i][k], fl); // line 19
      if (fb) xTransposeApplyForceAdd(dws.dbvp[p][k], X, dws.dbvp[i][k], fl); // line 21
    }
    for (let c = 0; c < ni; c++) {
      const k = iv + c;
      jcalcderivForceT(t6, X, ws.bc[i], cols, k, u6, fl); // line 20
      for (let r = 0; r < 6; r++) dws.dbc[p][k][r] += t6[r];
      fl.add += 6;
      if (fb) {
        jcalcderivForceT(t6, X, ws.bvp[i], cols, k, u6, fl); // line 22
        for (let r = 0; r < 6; r++) dws.dbvp[p][k][r] += t6[r];
        fl.add += 6;
      }
    }
  }
  if (!fb) {
    // line 34 with ⁱa_A,0 = 0
    for (let i = first; i < nb; i++) {
      const ri = rel[i];
      for (let e = 0; e < ri.length; e++) setSTf(dtau, ri[e] * nv + model.iv[i], model.S[i], model.nvi[i], dws.dbc[i][ri[e]], fl);
    }
    return;
  }
  // lines 27–48
  const d0 = desc[0];
  for (let e = 0; e < d0.length; e++) dws.dF0r[d0[e]].fill(0);
  for (let i = 1; i < nb; i++) {
    const p = model.parents[i], X = ws.Xup[i], ni = model.nvi[i], iv = model.iv[i], S = model.S[i];
    const daA0 = dws.daA0[i], aA0 = ws.aA0[i], Mc = ws.Mc[i];
    // lines 28–29
    const ap = anc[p];
    for (let e = 0; e < ap.length; e++) xApplyMotion(daA0[ap[e]], X, dws.daA0[p][ap[e]], fl);
    for (let c = 0; c < ni; c++) crossMotionS(daA0[iv + c], ws.XaA0[i], cols, iv + c, fl);
    if (ni === 0) continue;
    // line 34 (and line 31's ∂(M^c_i ⁱa_A,0) split by support)
    const di = desc[i], ai = anc[i];
    for (let e = 0; e < di.length; e++) {
      const k = di[e];
      rateMulMotion(t6, dws.dMc[i][k], aA0, fl);
      for (let r = 0; r < 6; r++) t6[r] += dws.dbc[i][k][r];
      fl.add += 6;
      setSTf(dtau, k * nv + iv, S, ni, t6, fl);
    }
    for (let e = 0; e < ai.length; e++) {
      const k = ai[e];
      inertiaMulMotion(t6, Mc, daA0[k], fl);
      for (let r = 0; r < 6; r++) t6[r] += dws.dbc[i][k][r];
      fl.add += 6;
      setSTf(dtau, k * nv + iv, S, ni, t6, fl);
    }
    // lines 32, 35–47: w = ⁱF_i ṙ_i = M^c_i Γ_i ṙ_i and ∂w, carried to the base
    inertiaMulMotion(w6, Mc, ws.Sa[i], fl);
    const dw = dws.dw;
    for (let e = 0; e < di.length; e++) rateMulMotion(dw[di[e]], dws.dMc[i][di[e]], ws.Sa[i], fl); // line 32
    let top = ai.length;
    let j = i;
    for (;;) {
      const Xj = ws.Xup[j], nj = model.nvi[j], ivj = model.iv[j];
      for (let e = 0; e < di.length; e++) xTransposeApplyForce(dw[di[e]], Xj, dw[di[e]], fl); // lines 38, 44
      for (let e = top; e < ai.length; e++) xTransposeApplyForce(dw[ai[e]], Xj, dw[ai[e]], fl);
      for (let c = 0; c < nj; c++) jcalcderivForceT(dw[ivj + c], Xj, w6, cols, ivj + c, u6, fl); // lines 40, 46
      top -= nj;
      xTransposeApplyForce(w6, Xj, w6, fl); // line 35
      j = model.parents[j];
      if (j === 0) break;
    }
    for (let e = 0; e < ai.length; e++) addInto(dws.dF0r[ai[e]], dw[ai[e]], fl); // line 47
    for (let e = 0; e < di.length; e++) addInto(dws.dF0r[di[e]], dw[di[e]], fl);
  }
  // lines 24–26 and 49: ∂τ̄_b/∂s_k = S_0ᵀ (∂M^c_0/∂s_k ⁰a_A,0 + ∂(₀F ṙ)/∂s_k + ∂b^vp_0/∂s_k)
  for (let e = 0; e < d0.length; e++) {
    const k = d0[e];
    rateMulMotion(t6, dws.dMc[0][k], ws.aA0[0], fl);
    for (let r = 0; r < 6; r++) t6[r] += dws.dF0r[k][r] + dws.dbvp[0][k][r];
    fl.add += 12;
    setSTf(dtau, k * nv, model.S[0], 6, t6, fl);
  }
}

/** out += x (6-vectors). 6 add. */
function addInto(out: Float64Array, x: Float64Array, fl: { add: number }): void {
  for (let r = 0; r < 6; r++) out[r] += x[r];
  fl.add += 6;
}
