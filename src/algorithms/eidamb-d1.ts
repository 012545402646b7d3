/**
 * D₁ID̄ ∘ DL_H(I): the left-trivialized derivative of the extended inverse dynamics with respect to
 * the base pose H, Saccon et al. (2017) Table 5, written into columns 0..5 of dws.dtau_dq (the base tangent
 * δ = [δp; δθ] in the base frame, H ⊕ δ = H exp(δ), model/lie.ts). A perturbation δ of H turns the
 * world-to-base transform into exp(−δ) ⁰X_A, so a world quantity x seen from the base changes by
 * ∂̃(⁰X_A x) = −(δ ×)(⁰X_A x) = (⁰X_A x) × δ:
 *
 *   line 1   ∂̃v_0  = v_0 × S_0      (only when the base twist is given in the world, ᴬv_A,0: 'world';
 *                                     with sparsedyn's body-frame twist ('body') v_0 does not depend on H)
 *   line 2   ∂̃a^r_0 = a^r_0 × S_0   (gravity seen from the base)
 *   lines 3–4, 6–9  carried forward as in EIDAmb (m, b^c),  11–13 backward,  15 τ_i = Γᵀ ∂̃b^c_i,  17 τ̄_b.
 * The paper's 6×6 blocks of lines 1–2 are the matrices of these cross products in its [v; ω] order.
 */
import type { Model } from '../model/model.ts';
import { setSTf } from '../model/subspace.ts';
import { inertiaMulMotion } from '../spatial/inertia.ts';
import { crossForce, crossMotion } from '../spatial/motion.ts';
import { xApplyMotion, xTransposeApplyForceAdd } from '../spatial/transform.ts';
import type { EidambDerivativesWorkspace } from './eidamb-derivatives-workspace.ts';
import type { EidambWorkspace } from './eidamb.ts';
import { crossMotionS } from './jcalcderiv.ts';

/** Which base twist the state holds: the body-frame twist v_0 ('body', sparsedyn's) or ᴬv_A,0 ('world', the paper's). */
export type BaseVelocity = 'body' | 'world';

/** Table 5 at the state of the last eidamb call (floating base only). Allocation free. */
export function eidambD1(model: Model, ws: EidambWorkspace, dws: EidambDerivativesWorkspace, baseVelocity: BaseVelocity): void {
  if (!ws.floating) throw new RangeError(`eidambD1: model "${model.name}" has no floating base (the base pose is fixed)`);
  const fl = dws.flopsD1;
  fl.reset();
  const cols = ws.cols, nb = model.nb, nv = model.nv, world = baseVelocity === 'world';
  const t6 = dws.t6, u6 = dws.u6, w6 = dws.w6, dtau = dws.dtau_dq;
  const I0 = model.I[0];
  // lines 1–4
  for (let c = 0; c < 6; c++) {
    const dar = dws.dar[0][c], dbc = dws.dbc[0][c];
    crossMotionS(dar, ws.ar[0], cols, c, fl); // line 2
    inertiaMulMotion(dbc, I0, dar, fl); // line 4, first term
    if (world) {
      const dv = dws.dv[0][c];
      crossMotionS(dv, ws.v[0], cols, c, fl); // line 1
      inertiaMulMotion(u6, I0, dv, fl); // line 3
      crossForce(t6, dv, ws.m[0], fl);
      crossForce(w6, ws.v[0], u6, fl);
      for (let k = 0; k < 6; k++) dbc[k] += t6[k] + w6[k]; // line 4
      fl.add += 12;
    }
  }
  // lines 5–10
  for (let i = 1; i < nb; i++) {
    const p = model.parents[i], X = ws.Xup[i], vJ = ws.vJ[i], I = model.I[i], moving = model.nvi[i] > 0;
    for (let c = 0; c < 6; c++) {
      const dar = dws.dar[i][c], dbc = dws.dbc[i][c];
      xApplyMotion(dar, X, dws.dar[p][c], fl); // line 7, first term
      if (world) {
        const dv = dws.dv[i][c];
        xApplyMotion(dv, X, dws.dv[p][c], fl); // line 6
        if (moving) {
          crossMotion(t6, dv, vJ, fl);
          for (let k = 0; k < 6; k++) dar[k] += t6[k]; // line 7
          fl.add += 6;
        }
        inertiaMulMotion(dbc, I, dar, fl);
        inertiaMulMotion(u6, I, dv, fl); // line 8
        crossForce(t6, dv, ws.m[i], fl);
        crossForce(w6, ws.v[i], u6, fl);
        for (let k = 0; k < 6; k++) dbc[k] += t6[k] + w6[k]; // line 9
        fl.add += 12;
      } else {
        inertiaMulMotion(dbc, I, dar, fl); // line 9 with ∂̃v_i = 0
      }
    }
  }
  // lines 11–13
  for (let i = nb - 1; i >= 1; i--) {
    const p = model.parents[i], X = ws.Xup[i];
    for (let c = 0; c < 6; c++) xTransposeApplyForceAdd(dws.dbc[p][c], X, dws.dbc[i][c], fl);
  }
  // lines 14–17
  for (let c = 0; c < 6; c++) {
    setSTf(dtau, c * nv, model.S[0], 6, dws.dbc[0][c], fl);
    for (let i = 1; i < nb; i++) setSTf(dtau, c * nv + model.iv[i], model.S[i], model.nvi[i], dws.dbc[i][c], fl);
  }
}
