/**
 * ABA: forward dynamics q̈ = FD(q, q̇, τ, f^x) by the articulated-body algorithm.
 * RBDA Table 7.1; paper 004 §V-A, eqs. (13)–(14) and appendix A (eqs. 24–28):
 *
 *   pass 1 (i = 1..N_B): kinematics; I^A_i = I_i, p^A_i = v_i ×* I_i v_i − f^x_i
 *   pass 2 (i = N_B..1): U_i = I^A_i S_i, D_i = S_iᵀ U_i, u_i = τ_i − S_iᵀ p^A_i
 *                        I^a_i = I^A_i − U_i D_i⁻¹ U_iᵀ,  p^a_i = p^A_i + I^a_i c_i + U_i D_i⁻¹ u_i
 *                        I^A_λ += ⁱX_λᵀ I^a_i ⁱX_λ,     p^A_λ += ⁱX_λᵀ p^a_i
 *   pass 3 (i = 1..N_B): a'_i = ⁱX_λ a_λ + c_i,  q̈_i = D_i⁻¹ (u_i − U_iᵀ a'_i),  a_i = a'_i + S_i q̈_i
 *
 * with a_0 = −a_g (gravity as a fictitious base acceleration).
 */
import type { Model } from '../model/model.ts';
import { addSx, setMS, setSTf, setSTU } from '../model/subspace.ts';
import { m6CongruenceAdd, m6MulVec } from '../spatial/articulated.ts';
import { Flops } from '../spatial/flops.ts';
import { inertiaMulMotion, inertiaToMatrix } from '../spatial/inertia.ts';
import { crossForce } from '../spatial/motion.ts';
import { spdInvertInPlace } from '../spatial/smallmat.ts';
import { xApplyMotion, xTransposeApplyForceAdd } from '../spatial/transform.ts';
import { forwardKinematics, KinematicsWorkspace } from './kinematics.ts';
import { checkDynamicsInputs, checkForwardDynamicsDefined, SingularJointInertiaError } from './validate.ts';

export { SingularJointInertiaError };

/**
 * Everything one ABA call computes (Pinocchio's `Data` for `aba`): made once per model with `new
 * AbaWorkspace(model)` and reused; `aba` writes its output into `qdd`.
 */
export class AbaWorkspace {
  /** kinematic quantities (Xup, v, c) of the last call */
  readonly kin: KinematicsWorkspace;
  /** I^A_i: articulated-body inertia of body i, body coordinates, 6×6 row-major */
  readonly IA: Float64Array[];
  /** p^A_i: articulated-body bias force of body i, body coordinates */
  readonly pA: Float64Array[];
  /** U_i = I^A_i S_i (6×nv_i column-major) */
  readonly U: Float64Array[];
  /** D_i⁻¹ = (S_iᵀ U_i)⁻¹ (nv_i×nv_i row-major) */
  readonly Dinv: Float64Array[];
  /** u_i = τ_i − S_iᵀ p^A_i (nv_i) */
  readonly u: Float64Array[];
  /** a_i: body spatial acceleration (gravity included as a_0 = −a_g) */
  readonly a: Float64Array[];
  /** q̈ (output, length nv) */
  readonly qdd: Float64Array;
  /** flops of the dynamics passes of the last call (kinematics in kin.flops) */
  readonly flops = new Flops();
  /** scratch: 6-vectors, the articulated inertia I^a_i passed to the parent, U_i D_i⁻¹, Cholesky work */
  readonly t6 = new Float64Array(6);
  readonly t6b = new Float64Array(6);
  readonly Ia = new Float64Array(36);
  readonly UD = new Float64Array(36);
  readonly w36 = new Float64Array(36);

  constructor(readonly model: Model) {
    const nb = model.nb;
    const mk = (n: (i: number) => number) => Array.from({ length: nb }, (_, i) => new Float64Array(n(i)));
    this.kin = new KinematicsWorkspace(model);
    this.IA = mk(() => 36);
    this.pA = mk(() => 6);
    this.U = mk((i) => 6 * model.nvi[i]);
    this.Dinv = mk((i) => model.nvi[i] * model.nvi[i]);
    this.u = mk((i) => model.nvi[i]);
    this.a = mk(() => 6);
    this.qdd = new Float64Array(model.nv);
  }

  /** total flops of the last call: kinematics + dynamics passes */
  totalFlops(): Flops {
    return new Flops().accumulate(this.kin.flops).accumulate(this.flops);
  }
}

/** q̈ = ABA(q, q̇, τ, f^x), written into and returned as ws.qdd. Pass qd = null for q̇ = 0. */
export function aba(
  model: Model, ws: AbaWorkspace, q: ArrayLike<number>, qd: ArrayLike<number> | null,
  tau: ArrayLike<number>, fext?: readonly Float64Array[],
): Float64Array {
  if (ws.model !== model) throw new RangeError('aba: workspace was created for another model');
  checkDynamicsInputs(model, q, qd, 'tau', tau, fext);
  checkForwardDynamicsDefined(model, 'ABA');
  return abaUnchecked(model, ws, q, qd, tau, fext);
}

export function abaUnchecked(
  model: Model, ws: AbaWorkspace, q: ArrayLike<number>, qd: ArrayLike<number> | null,
  tau: ArrayLike<number>, fext?: readonly Float64Array[],
): Float64Array {
  const kin = ws.kin;
  forwardKinematics(kin, q, qd);
  const fl = ws.flops;
  fl.reset();
  const nb = model.nb;
  const { t6, t6b, Ia, w36, UD } = ws;
  // pass 1: I^A_i = I_i, p^A_i = v_i ×* I_i v_i − f^x_i
  for (let i = 0; i < nb; i++) {
    inertiaToMatrix(ws.IA[i], model.I[i]);
    const pA = ws.pA[i];
    if (qd !== null) {
      const v = kin.v[i];
      inertiaMulMotion(t6, model.I[i], v, fl);
      crossForce(pA, v, t6, fl);
    } else {
      pA.fill(0);
    }
    if (fext) {
      const fx = fext[i];
      for (let k = 0; k < 6; k++) pA[k] -= fx[k];
      fl.add += 6;
    }
  }
  // pass 2
  for (let i = nb - 1; i >= 0; i--) {
    const nv = model.nvi[i];
    const S = model.S[i];
    const IA = ws.IA[i];
    const pA = ws.pA[i];
    const U = ws.U[i];
    const Dinv = ws.Dinv[i];
    const u = ws.u[i];
    const p = model.parents[i];
    if (nv > 0) {
      setMS(U, IA, S, nv, fl);
      setSTU(Dinv, S, U, nv, fl);
      if (!spdInvertInPlace(Dinv, nv, w36, fl)) throw new SingularJointInertiaError(model.jointNames[i], model.bodyNames[i]);
      // u_i = τ_i − S_iᵀ p^A_i
      setSTf(u, 0, S, nv, pA, fl);
      const iv = model.iv[i];
      for (let k = 0; k < nv; k++) u[k] = tau[iv + k] - u[k];
      fl.add += nv;
    }
    if (p < 0) continue;
    // I^a = I^A − U D⁻¹ Uᵀ;  UD = U D⁻¹ (6×nv column-major)
    for (let k = 0; k < 36; k++) Ia[k] = IA[k];
    if (nv > 0) {
      for (let b = 0; b < nv; b++) {
        for (let r = 0; r < 6; r++) {
          let acc = 0;
          for (let c = 0; c < nv; c++) acc += U[6 * c + r] * Dinv[nv * c + b];
          UD[6 * b + r] = acc;
        }
      }
      fl.mul += 6 * nv * nv; fl.add += 6 * nv * (nv - 1);
      for (let r = 0; r < 6; r++) {
        for (let c = r; c < 6; c++) {
          let acc = 0;
          for (let k = 0; k < nv; k++) acc += UD[6 * k + r] * U[6 * k + c];
          Ia[6 * r + c] -= acc;
          Ia[6 * c + r] = Ia[6 * r + c];
        }
      }
      fl.mul += 21 * nv; fl.add += 21 * nv;
    }
    // p^a = p^A + I^a c + U D⁻¹ u
    const pa = t6b;
    for (let k = 0; k < 6; k++) pa[k] = pA[k];
    if (qd !== null && nv > 0) {
      m6MulVec(t6, Ia, kin.c[i], fl);
      for (let k = 0; k < 6; k++) pa[k] += t6[k];
      fl.add += 6;
    }
    if (nv > 0) {
      for (let r = 0; r < 6; r++) {
        let acc = 0;
        for (let k = 0; k < nv; k++) acc += UD[6 * k + r] * u[k];
        pa[r] += acc;
      }
      fl.mul += 6 * nv; fl.add += 6 * nv;
    }
    // pass to the parent
    m6CongruenceAdd(ws.IA[p], kin.Xup[i], Ia, fl);
    xTransposeApplyForceAdd(ws.pA[p], kin.Xup[i], pa, fl);
  }
  // pass 3
  for (let i = 0; i < nb; i++) {
    const p = model.parents[i];
    const a = ws.a[i];
    xApplyMotion(a, kin.Xup[i], p >= 0 ? ws.a[p] : kin.a0, fl);
    if (qd !== null && model.nvi[i] > 0) {
      const c = kin.c[i];
      for (let k = 0; k < 6; k++) a[k] += c[k];
      fl.add += 6;
    }
    const n = model.nvi[i];
    if (n === 0) continue;
    // q̈_i = D⁻¹ (u − Uᵀ a')
    const U = ws.U[i];
    const u = ws.u[i];
    const Dinv = ws.Dinv[i];
    const iv = model.iv[i];
    for (let k = 0; k < n; k++) {
      let acc = 0;
      for (let r = 0; r < 6; r++) acc += U[6 * k + r] * a[r];
      t6[k] = u[k] - acc;
    }
    fl.mul += 6 * n; fl.add += 6 * n;
    for (let k = 0; k < n; k++) {
      let acc = 0;
      for (let c = 0; c < n; c++) acc += Dinv[n * k + c] * t6[c];
      ws.qdd[iv + k] = acc;
    }
    fl.mul += n * n; fl.add += n * (n - 1);
    addSx(a, model.S[i], n, ws.qdd, iv, fl);
  }
  return ws.qdd;
}
