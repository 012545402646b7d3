/**
 * RNEA: inverse dynamics τ = ID(q, q̇, q̈, f^x) by the recursive Newton–Euler algorithm.
 * Paper 004 §IV-A with eqs. (2), (3a), (3f), (3τ); RBDA Table 5.1. Gravity enters as the
 * fictitious base acceleration a_0 = −a_g (paper 004 §IV-A), so τ includes the gravity load.
 *
 *   forward  (i = 1..N_B): a_i = ⁱX_λ a_λ + S_i q̈_i + c_i                       (3a)
 *                          f_i = I_i a_i + v_i ×* I_i v_i − f^x_i                (3f, children added below)
 *   backward (i = N_B..1): τ_i = S_iᵀ f_i,  f_λ += ⁱX_λᵀ f_i                    (3τ), (3f)
 *
 * f^x_i (optional) is the external wrench on body i in body-i coordinates (paper 004 Remark 1).
 * For a floating base, τ's first six entries are the base wrench [force; torque] in the base
 * frame (zero for a real, unactuated robot).
 */
import type { Model } from '../model/model.ts';
import { addSx, setSTf } from '../model/subspace.ts';
import { Flops } from '../spatial/flops.ts';
import { inertiaMulMotion } from '../spatial/inertia.ts';
import { crossForce } from '../spatial/motion.ts';
import { xApplyMotion, xTransposeApplyForceAdd } from '../spatial/transform.ts';
import { forwardKinematics, KinematicsWorkspace } from './kinematics.ts';
import { checkDynamicsInputs } from './validate.ts';

/**
 * Everything one RNEA call computes (Pinocchio's `Data` for `rnea`): made once per model with `new
 * RneaWorkspace(model)` and reused; `rnea` writes τ into `tau`.
 */
export class RneaWorkspace {
  /** kinematic quantities (Xup, v, c) of the last call */
  readonly kin: KinematicsWorkspace;
  /** a_i: body spatial acceleration, body coordinates (gravity included as a_0 = −a_g) */
  readonly a: Float64Array[];
  /** f_i: wrench transmitted from λ(i) to body i across joint i, body coordinates */
  readonly f: Float64Array[];
  /** τ: generalized forces (output, length nv) */
  readonly tau: Float64Array;
  /** flops of the dynamics passes of the last call (kinematics in kin.flops) */
  readonly flops = new Flops();
  /** scratch 6-vector */
  readonly tmp = new Float64Array(6);

  constructor(readonly model: Model) {
    this.kin = new KinematicsWorkspace(model);
    this.a = Array.from({ length: model.nb }, () => new Float64Array(6));
    this.f = Array.from({ length: model.nb }, () => new Float64Array(6));
    this.tau = new Float64Array(model.nv);
  }

  /** total flops of the last call: kinematics + dynamics passes */
  totalFlops(): Flops {
    return new Flops().accumulate(this.kin.flops).accumulate(this.flops);
  }
}

/**
 * τ = RNEA(q, q̇, q̈, f^x), written into and returned as ws.tau. Pass qd = null for q̇ = 0.
 * Allocation free.
 */
export function rnea(
  model: Model, ws: RneaWorkspace, q: ArrayLike<number>, qd: ArrayLike<number> | null,
  qdd: ArrayLike<number>, fext?: readonly Float64Array[],
): Float64Array {
  if (ws.model !== model) throw new RangeError('rnea: workspace was created for another model');
  checkDynamicsInputs(model, q, qd, 'a', qdd, fext);
  rneaUnchecked(model, ws, q, qd, qdd, fext);
  return ws.tau;
}

/** rnea without the entry checks (for callers that validated already). */
export function rneaUnchecked(
  model: Model, ws: RneaWorkspace, q: ArrayLike<number>, qd: ArrayLike<number> | null,
  qdd: ArrayLike<number>, fext?: readonly Float64Array[],
): Float64Array {
  const kin = ws.kin;
  forwardKinematics(kin, q, qd);
  const fl = ws.flops;
  fl.reset();
  const nb = model.nb;
  const tmp = ws.tmp;
  for (let i = 0; i < nb; i++) {
    const p = model.parents[i];
    const a = ws.a[i];
    const Xup = kin.Xup[i];
    // a_i = ⁱX_λ a_λ + S_i q̈_i + c_i   (3a)
    xApplyMotion(a, Xup, p >= 0 ? ws.a[p] : kin.a0, fl);
    addSx(a, model.S[i], model.nvi[i], qdd, model.iv[i], fl);
    if (qd !== null) {
      const c = kin.c[i];
      for (let k = 0; k < 6; k++) a[k] += c[k];
      fl.add += 6;
    }
    // f_i = I_i a_i + ν_i − f^x_i, ν_i = v_i ×* I_i v_i   (3f; children added in the backward pass)
    const f = ws.f[i];
    const I = model.I[i];
    inertiaMulMotion(f, I, a, fl);
    if (qd !== null) {
      const v = kin.v[i];
      inertiaMulMotion(tmp, I, v, fl);
      crossForce(tmp, v, tmp, fl);
      for (let k = 0; k < 6; k++) f[k] += tmp[k];
      fl.add += 6;
    }
    if (fext) {
      // − f^x_i
      const fx = fext[i];
      for (let k = 0; k < 6; k++) f[k] -= fx[k];
      fl.add += 6;
    }
  }
  for (let i = nb - 1; i >= 0; i--) {
    const f = ws.f[i];
    // τ_i = S_iᵀ f_i   (3τ)
    setSTf(ws.tau, model.iv[i], model.S[i], model.nvi[i], f, fl);
    const p = model.parents[i];
    // f_λ += ⁱX_λᵀ f_i   (3f)
    if (p >= 0) xTransposeApplyForceAdd(ws.f[p], kin.Xup[i], f, fl);
  }
  return ws.tau;
}
