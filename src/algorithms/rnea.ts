/**
 * RNEA: inverse dynamics τ = ID(q, q̇, q̈, f^x) by the recursive Newton–Euler algorithm.
 * Paper 004 §IV-A with eqs. (2), (3a), (3f), (3τ); RBDA Table 5.1. Gravity enters as the
 * fictitious base acceleration a_0 = −a_g (Nori (2017) §IV-A), so τ includes the gravity load.
 *
 *   forward  (i = 1..N_B): a_i = ⁱX_λ a_λ + S_i q̈_i + c_i                       (3a)
 *                          f_i = I_i a_i + v_i ×* I_i v_i − f^x_i                (3f, children added below)
 *   backward (i = N_B..1): τ_i = S_iᵀ f_i,  f_λ += ⁱX_λᵀ f_i                    (3τ), (3f)
 *
 * f^x_i (optional) is the external wrench on body i in body-i coordinates (Nori (2017) Remark 1).
 * For a floating base, τ's first six entries are the base wrench [force; torque] in the base
 * frame (zero for a real, unactuated robot).
 */
import type { Model } from '../model/model.ts';
import { addSx, setSTf } from '../model/subspace.ts';
import { Flops } from '../spatial/flops.ts';
import { forwardKinematics, KinematicsWorkspace } from './kinematics.ts';
import { checkDynamicsInputs } from './validate.ts';

/**
 * Everything one RNEA call computes (Pinocchio's `Data` for `rnea`): made once per model with `new
 * RneaWorkspace(model)` and reused; `rnea` writes τ into `tau`.
 */
export class RneaWorkspace {
  /** kinematic quantities (Xup, v, c) of the last call */
  readonly kin: KinematicsWorkspace;
  /** a_i: body spatial acceleration, body coordinates (gravity included as a_0 = −a_g; views into aFlat) */
  readonly a: Float64Array[];
  /** f_i: wrench transmitted from λ(i) to body i across joint i, body coordinates (views into fFlat) */
  readonly f: Float64Array[];
  /** a_i and f_i body after body (6 i) */
  readonly aFlat: Float64Array;
  readonly fFlat: Float64Array;
  /** the rigid inertias of the model, body after body (10 i; inertia.ts layout) */
  readonly Iflat: Float64Array;
  /** τ: generalized forces (output, length nv) */
  readonly tau: Float64Array;
  /** flops of the dynamics passes of the last call (kinematics in kin.flops) */
  readonly flops = new Flops();
  /** scratch 6-vector */
  readonly tmp = new Float64Array(6);

  constructor(readonly model: Model) {
    const nb = model.nb;
    this.kin = new KinematicsWorkspace(model);
    this.aFlat = new Float64Array(6 * nb);
    this.fFlat = new Float64Array(6 * nb);
    this.a = Array.from({ length: nb }, (_, i) => this.aFlat.subarray(6 * i, 6 * i + 6));
    this.f = Array.from({ length: nb }, (_, i) => this.fFlat.subarray(6 * i, 6 * i + 6));
    this.Iflat = new Float64Array(10 * nb);
    for (let i = 0; i < nb; i++) this.Iflat.set(model.I[i], 10 * i);
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

/**
 * rnea without the entry checks (for callers that validated already).
 *
 * Written out on flat arrays: the kernels of the general path (xApplyMotion, inertiaMulMotion,
 * crossForce, xTransposeApplyForceAdd; addSx and setSTf for S) with the same arithmetic in the
 * same order and the same flop counts, which are summed in locals. A joint about or along a frame
 * axis (kin.unitRow) reads S q̈ and Sᵀ f off its one ±1 entry (1 add and no flop); other joints go
 * through addSx and setSTf.
 */
export function rneaUnchecked(
  model: Model, ws: RneaWorkspace, q: ArrayLike<number>, qd: ArrayLike<number> | null,
  qdd: ArrayLike<number>, fext?: readonly Float64Array[],
): Float64Array {
  const kin = ws.kin;
  forwardKinematics(kin, q, qd);
  const fl = ws.flops;
  fl.reset();
  const nb = model.nb, parents = model.parents, ivs = model.iv;
  const X = kin.XupFlat, V = kin.vFlat, C = kin.cFlat, a0 = kin.a0, unitRow = kin.unitRow, unitSign = kin.unitSign;
  const A = ws.aFlat, F = ws.fFlat, I = ws.Iflat, tau = ws.tau;
  const withV = qd !== null;
  let mul = 0, add = 0;
  for (let i = 0; i < nb; i++) {
    const p = parents[i];
    const xo = 12 * i, o = 6 * i;
    // a_i = ⁱX_λ a_λ + S_i q̈_i + c_i   (3a)
    const P = p >= 0 ? A : a0, po = p >= 0 ? 6 * p : 0;
    {
      const wx = P[po], wy = P[po + 1], wz = P[po + 2];
      const r0 = X[xo + 9], r1 = X[xo + 10], r2 = X[xo + 11];
      const tx = P[po + 3] - (r1 * wz - r2 * wy);
      const ty = P[po + 4] - (r2 * wx - r0 * wz);
      const tz = P[po + 5] - (r0 * wy - r1 * wx);
      const e0 = X[xo], e1 = X[xo + 1], e2 = X[xo + 2], e3 = X[xo + 3], e4 = X[xo + 4], e5 = X[xo + 5], e6 = X[xo + 6], e7 = X[xo + 7], e8 = X[xo + 8];
      A[o] = e0 * wx + e1 * wy + e2 * wz;
      A[o + 1] = e3 * wx + e4 * wy + e5 * wz;
      A[o + 2] = e6 * wx + e7 * wy + e8 * wz;
      A[o + 3] = e0 * tx + e1 * ty + e2 * tz;
      A[o + 4] = e3 * tx + e4 * ty + e5 * tz;
      A[o + 5] = e6 * tx + e7 * ty + e8 * tz;
      mul += 24; add += 18;
    }
    const row = unitRow[i];
    if (row >= 0) {
      if (unitSign[i] > 0) A[o + row] += qdd[ivs[i]]; else A[o + row] -= qdd[ivs[i]];
      add++;
    } else {
      addSx(ws.a[i], model.S[i], model.nvi[i], qdd, ivs[i], fl);
    }
    if (withV) {
      for (let k = 0; k < 6; k++) A[o + k] += C[o + k];
      add += 6;
    }
    // f_i = I_i a_i + ν_i − f^x_i, ν_i = v_i ×* I_i v_i   (3f; children added in the backward pass)
    const io = 10 * i;
    const m = I[io], hx = I[io + 1], hy = I[io + 2], hz = I[io + 3];
    const Ixx = I[io + 4], Ixy = I[io + 5], Ixz = I[io + 6], Iyy = I[io + 7], Iyz = I[io + 8], Izz = I[io + 9];
    {
      const w0 = A[o], w1 = A[o + 1], w2 = A[o + 2], v0 = A[o + 3], v1 = A[o + 4], v2 = A[o + 5];
      F[o] = Ixx * w0 + Ixy * w1 + Ixz * w2 + (hy * v2 - hz * v1);
      F[o + 1] = Ixy * w0 + Iyy * w1 + Iyz * w2 + (hz * v0 - hx * v2);
      F[o + 2] = Ixz * w0 + Iyz * w1 + Izz * w2 + (hx * v1 - hy * v0);
      F[o + 3] = m * v0 - (hy * w2 - hz * w1);
      F[o + 4] = m * v1 - (hz * w0 - hx * w2);
      F[o + 5] = m * v2 - (hx * w1 - hy * w0);
      mul += 24; add += 18;
    }
    if (withV) {
      const w0 = V[o], w1 = V[o + 1], w2 = V[o + 2], u0 = V[o + 3], u1 = V[o + 4], u2 = V[o + 5];
      // h = I v (inertiaMulMotion), then v ×* h (crossForce)
      const n0 = Ixx * w0 + Ixy * w1 + Ixz * w2 + (hy * u2 - hz * u1);
      const n1 = Ixy * w0 + Iyy * w1 + Iyz * w2 + (hz * u0 - hx * u2);
      const n2 = Ixz * w0 + Iyz * w1 + Izz * w2 + (hx * u1 - hy * u0);
      const f0 = m * u0 - (hy * w2 - hz * w1);
      const f1 = m * u1 - (hz * w0 - hx * w2);
      const f2 = m * u2 - (hx * w1 - hy * w0);
      F[o] += w1 * n2 - w2 * n1 + (u1 * f2 - u2 * f1);
      F[o + 1] += w2 * n0 - w0 * n2 + (u2 * f0 - u0 * f2);
      F[o + 2] += w0 * n1 - w1 * n0 + (u0 * f1 - u1 * f0);
      F[o + 3] += w1 * f2 - w2 * f1;
      F[o + 4] += w2 * f0 - w0 * f2;
      F[o + 5] += w0 * f1 - w1 * f0;
      mul += 24 + 18; add += 18 + 12 + 6;
    }
    if (fext) {
      // − f^x_i
      const fx = fext[i];
      for (let k = 0; k < 6; k++) F[o + k] -= fx[k];
      add += 6;
    }
  }
  for (let i = nb - 1; i >= 0; i--) {
    const o = 6 * i, xo = 12 * i;
    // τ_i = S_iᵀ f_i   (3τ)
    const row = unitRow[i];
    if (row >= 0) tau[ivs[i]] = unitSign[i] > 0 ? 0 + F[o + row] : 0 - F[o + row];
    else setSTf(tau, ivs[i], model.S[i], model.nvi[i], ws.f[i], fl);
    const p = parents[i];
    if (p < 0) continue;
    // f_λ += ⁱX_λᵀ f_i   (3f)
    const po = 6 * p;
    const a0 = F[o], a1 = F[o + 1], a2 = F[o + 2], b0 = F[o + 3], b1 = F[o + 4], b2 = F[o + 5];
    const e0 = X[xo], e1 = X[xo + 1], e2 = X[xo + 2], e3 = X[xo + 3], e4 = X[xo + 4], e5 = X[xo + 5], e6 = X[xo + 6], e7 = X[xo + 7], e8 = X[xo + 8];
    const fx = e0 * b0 + e3 * b1 + e6 * b2;
    const fy = e1 * b0 + e4 * b1 + e7 * b2;
    const fz = e2 * b0 + e5 * b1 + e8 * b2;
    const r0 = X[xo + 9], r1 = X[xo + 10], r2 = X[xo + 11];
    F[po] += e0 * a0 + e3 * a1 + e6 * a2 + (r1 * fz - r2 * fy);
    F[po + 1] += e1 * a0 + e4 * a1 + e7 * a2 + (r2 * fx - r0 * fz);
    F[po + 2] += e2 * a0 + e5 * a1 + e8 * a2 + (r0 * fy - r1 * fx);
    F[po + 3] += fx; F[po + 4] += fy; F[po + 5] += fz;
    mul += 24; add += 24;
  }
  fl.mul += mul; fl.add += add;
  return ws.tau;
}
