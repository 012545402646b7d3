/**
 * D₄ID̄: the derivative of the extended inverse dynamics with respect to the joint velocities r,
 * Saccon et al. (2017) Table 8, written into the joint columns of dws.dtau_dv:
 *
 *   lines 2–4   ∂v_J,i/∂r_i = Γ_i;  ∂v_i = ⁱX_λ ∂v_λ (+ Γ_i on the own columns)
 *   lines 5–6   ∂a^r_i = ⁱX_λ ∂a^r_λ + ∂v_i × v_J  (+ v_i × Γ_i on the own columns)
 *   lines 7–8   ∂m_i = M_i ∂v_i;  ∂b^c_i = M_i ∂a^r_i + ∂v_i ×* m_i + v_i ×* ∂m_i
 *   lines 10–16 backward ∂b^c_λ += ⁱX_λᵀ ∂b^c_i;  ∂τ_i = Γᵀ ∂b^c_i;  ∂τ̄_b = ∂b^c_0.
 * On an own column the two terms of lines 5–6 are combined: Γ × v_J + v_i × Γ = (ⁱX_λ v_λ) × Γ
 * (zero for a joint hanging from a fixed world); the loops run over the supports anc/rel.
 */
import type { Model } from '../model/model.ts';
import { setSTf } from '../model/subspace.ts';
import { inertiaMulMotion } from '../spatial/inertia.ts';
import { crossForce, crossMotion } from '../spatial/motion.ts';
import { xApplyMotion, xTransposeApplyForceAdd } from '../spatial/transform.ts';
import type { EidambDerivativesWorkspace } from './eidamb-derivatives-workspace.ts';
import type { EidambWorkspace } from './eidamb.ts';
import { crossForceS, crossMotionS, inertiaMulS } from './jcalcderiv.ts';

/** Table 8 at the state of the last eidamb call. Allocation free. */
export function eidambD4(model: Model, ws: EidambWorkspace, dws: EidambDerivativesWorkspace): void {
  const fl = dws.flopsD4;
  fl.reset();
  const fb = ws.floating, first = ws.first, cols = ws.cols, nb = model.nb, nv = model.nv;
  const { anc, desc, rel, vcol } = dws;
  const t6 = dws.t6, u6 = dws.u6, w6 = dws.w6, dtau = dws.dtau_dv;
  // lines 1–9
  for (let i = first; i < nb; i++) {
    const p = model.parents[i], X = ws.Xup[i], vJ = ws.vJ[i], I = model.I[i], ni = model.nvi[i], iv = model.iv[i];
    const dv = dws.dv[i], dar = dws.dar[i], dbc = dws.dbc[i];
    if (p >= 0) {
      const ap = anc[p];
      for (let e = 0; e < ap.length; e++) {
        const k = ap[e];
        xApplyMotion(dv[k], X, dws.dv[p][k], fl); // line 3
        xApplyMotion(dar[k], X, dws.dar[p][k], fl); // line 5
        if (ni > 0) {
          crossMotion(t6, dv[k], vJ, fl);
          for (let r = 0; r < 6; r++) dar[k][r] += t6[r];
          fl.add += 6;
        }
      }
    }
    for (let c = 0; c < ni; c++) {
      const k = iv + c;
      for (let r = 0; r < 6; r++) dv[k][r] = cols.s[6 * k + r]; // lines 2, 4
      if (vcol[k]) crossMotionS(dar[k], ws.Xv[i], cols, k, fl); // lines 5–6
      else dar[k].fill(0);
    }
    // lines 7–8
    const ai = anc[i];
    for (let e = 0; e < ai.length; e++) {
      const k = ai[e];
      const own = k >= iv && k < iv + ni;
      if (own) {
        inertiaMulS(u6, I, cols, k, fl);
        crossForceS(t6, cols, k, ws.m[i], fl);
      } else {
        inertiaMulMotion(u6, I, dv[k], fl);
        crossForce(t6, dv[k], ws.m[i], fl);
      }
      crossForce(w6, ws.v[i], u6, fl);
      const b = dbc[k];
      if (own && !vcol[k]) {
        for (let r = 0; r < 6; r++) b[r] = t6[r] + w6[r];
        fl.add += 6;
      } else {
        inertiaMulMotion(b, I, dar[k], fl);
        for (let r = 0; r < 6; r++) b[r] += t6[r] + w6[r];
        fl.add += 12;
      }
    }
    const di = desc[i];
    for (let e = 0; e < di.length; e++) dbc[di[e]].fill(0);
  }
  if (fb) {
    const d0 = desc[0];
    for (let e = 0; e < d0.length; e++) dws.dbc[0][d0[e]].fill(0);
  }
  // lines 10–12
  for (let i = nb - 1; i >= first; i--) {
    const p = model.parents[i];
    if (p < 0) continue;
    const X = ws.Xup[i], ri = rel[i];
    for (let e = 0; e < ri.length; e++) xTransposeApplyForceAdd(dws.dbc[p][ri[e]], X, dws.dbc[i][ri[e]], fl);
  }
  // lines 13–16
  for (let i = first; i < nb; i++) {
    const ri = rel[i];
    for (let e = 0; e < ri.length; e++) setSTf(dtau, ri[e] * nv + model.iv[i], model.S[i], model.nvi[i], dws.dbc[i][ri[e]], fl);
  }
  if (fb) {
    const d0 = desc[0];
    for (let e = 0; e < d0.length; e++) setSTf(dtau, d0[e] * nv, model.S[0], 6, dws.dbc[0][d0[e]], fl);
  }
}
