/**
 * D₃ID̄: the derivative of the extended inverse dynamics with respect to the base twist v, Saccon et al. (2017)
 * Table 7, written into columns 0..5 of dws.dtau_dv (the base twist [v_lin; ω] in the base frame, so
 * ∂v_0/∂v = S_0 instead of the paper's I_6 in its [v; ω] order):
 *
 *   lines 1–3   ∂v_0 = S_0,  ∂m_0 = M_0 S_0,  ∂b^c_0 = S_0 ×* m_0 + v_0 ×* ∂m_0   (a^r_0 does not depend on v)
 *   lines 4–9   ∂v_i = ⁱX_λ ∂v_λ,  ∂a^r_i = ⁱX_λ ∂a^r_λ + ∂v_i × v_J,  ∂m_i = M_i ∂v_i,
 *               ∂b^c_i = M_i ∂a^r_i + ∂v_i ×* m_i + v_i ×* ∂m_i
 *   lines 10–16 backward ∂b^c_λ += ⁱX_λᵀ ∂b^c_i;  ∂τ_i = Γᵀ ∂b^c_i;  ∂τ̄_b = ∂b^c_0.
 */
import type { Model } from '../model/model.ts';
import { setSTf } from '../model/subspace.ts';
import { inertiaMulMotion } from '../spatial/inertia.ts';
import { crossForce, crossMotion } from '../spatial/motion.ts';
import { xApplyMotion, xTransposeApplyForceAdd } from '../spatial/transform.ts';
import type { EidambDerivativesWorkspace } from './eidamb-derivatives-workspace.ts';
import type { EidambWorkspace } from './eidamb.ts';
import { crossForceS, inertiaMulS } from './jcalcderiv.ts';

/** Table 7 at the state of the last eidamb call (floating base only). Allocation free. */
export function eidambD3(model: Model, ws: EidambWorkspace, dws: EidambDerivativesWorkspace): void {
  if (!ws.floating) throw new RangeError(`eidambD3: model "${model.name}" has no floating base (no base twist)`);
  const fl = dws.flopsD3;
  fl.reset();
  const cols = ws.cols, nb = model.nb, nv = model.nv;
  const t6 = dws.t6, u6 = dws.u6, w6 = dws.w6, dtau = dws.dtau_dv;
  // lines 1–3
  for (let c = 0; c < 6; c++) {
    const dv = dws.dv[0][c], dbc = dws.dbc[0][c];
    for (let r = 0; r < 6; r++) dv[r] = cols.s[6 * c + r];
    inertiaMulS(u6, model.I[0], cols, c, fl);
    crossForceS(t6, cols, c, ws.m[0], fl);
    crossForce(w6, ws.v[0], u6, fl);
    for (let r = 0; r < 6; r++) dbc[r] = t6[r] + w6[r];
    fl.add += 6;
  }
  // lines 4–9
  for (let i = 1; i < nb; i++) {
    const p = model.parents[i], X = ws.Xup[i], vJ = ws.vJ[i], I = model.I[i], moving = model.nvi[i] > 0;
    for (let c = 0; c < 6; c++) {
      const dv = dws.dv[i][c], dar = dws.dar[i][c], dbc = dws.dbc[i][c];
      xApplyMotion(dv, X, dws.dv[p][c], fl); // line 5
      if (p === 0) dar.fill(0); // ∂a^r_0 = 0
      else xApplyMotion(dar, X, dws.dar[p][c], fl); // line 6
      if (moving) {
        crossMotion(t6, dv, vJ, fl);
        for (let r = 0; r < 6; r++) dar[r] += t6[r];
        fl.add += 6;
      }
      inertiaMulMotion(u6, I, dv, fl); // line 7
      inertiaMulMotion(dbc, I, dar, fl); // line 8
      crossForce(t6, dv, ws.m[i], fl);
      crossForce(w6, ws.v[i], u6, fl);
      for (let r = 0; r < 6; r++) dbc[r] += t6[r] + w6[r];
      fl.add += 12;
    }
  }
  // lines 10–12
  for (let i = nb - 1; i >= 1; i--) {
    const p = model.parents[i], X = ws.Xup[i];
    for (let c = 0; c < 6; c++) xTransposeApplyForceAdd(dws.dbc[p][c], X, dws.dbc[i][c], fl);
  }
  // lines 13–16
  for (let c = 0; c < 6; c++) {
    setSTf(dtau, c * nv, model.S[0], 6, dws.dbc[0][c], fl);
    for (let i = 1; i < nb; i++) setSTf(dtau, c * nv + model.iv[i], model.S[i], model.nvi[i], dws.dbc[i][c], fl);
  }
}
