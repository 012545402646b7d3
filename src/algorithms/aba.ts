/**
 * ABA: forward dynamics q̈ = FD(q, q̇, τ, f^x) by the articulated-body algorithm.
 * RBDA Table 7.1; Nori (2017) §V-A, eqs. (13)–(14) and appendix A (eqs. 24–28):
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
import { spdInvertInPlace } from '../spatial/smallmat.ts';
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
  /** I^A_i: articulated-body inertia of body i, body coordinates, 6×6 row-major (views into IAflat) */
  readonly IA: Float64Array[];
  /** p^A_i: articulated-body bias force of body i, body coordinates (views into pAflat) */
  readonly pA: Float64Array[];
  /** U_i = I^A_i S_i (6×nv_i column-major) */
  readonly U: Float64Array[];
  /** D_i⁻¹ = (S_iᵀ U_i)⁻¹ (nv_i×nv_i row-major) */
  readonly Dinv: Float64Array[];
  /** u_i = τ_i − S_iᵀ p^A_i (nv_i) */
  readonly u: Float64Array[];
  /** a_i: body spatial acceleration (gravity included as a_0 = −a_g; views into aFlat) */
  readonly a: Float64Array[];
  /** I^A_i (36 i), p^A_i and a_i (6 i), body after body */
  readonly IAflat: Float64Array;
  readonly pAflat: Float64Array;
  readonly aFlat: Float64Array;
  /** the rigid inertias of the model, body after body (10 i; inertia.ts layout) */
  readonly Iflat: Float64Array;
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
    const views = (flat: Float64Array, n: number) => Array.from({ length: nb }, (_, i) => flat.subarray(n * i, n * i + n));
    this.IAflat = new Float64Array(36 * nb);
    this.pAflat = new Float64Array(6 * nb);
    this.aFlat = new Float64Array(6 * nb);
    this.IA = views(this.IAflat, 36);
    this.pA = views(this.pAflat, 6);
    this.Iflat = new Float64Array(10 * nb);
    for (let i = 0; i < nb; i++) this.Iflat.set(model.I[i], 10 * i);
    this.U = mk((i) => 6 * model.nvi[i]);
    this.Dinv = mk((i) => model.nvi[i] * model.nvi[i]);
    this.u = mk((i) => model.nvi[i]);
    this.a = views(this.aFlat, 6);
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

/**
 * aba without the entry checks (for callers that validated already).
 *
 * Pass 1 and the transforms are written out on flat arrays with the arithmetic and flop counts of
 * the kernels (inertiaToMatrix, inertiaMulMotion, crossForce, xApplyMotion,
 * xTransposeApplyForceAdd). A joint about or along a frame axis (kin.unitRow: S_i = ±e_k) has its
 * own path: U_i = ±column k of I^A_i, D_i = I^A_i[k, k] and Sᵀ p^A_i, S q̈ read off one entry —
 * the values and counts of the general path's setMS, setSTU, spdInvertInPlace (1 div), setSTf and
 * addSx for that S. Other joints take the general path.
 */
export function abaUnchecked(
  model: Model, ws: AbaWorkspace, q: ArrayLike<number>, qd: ArrayLike<number> | null,
  tau: ArrayLike<number>, fext?: readonly Float64Array[],
): Float64Array {
  const kin = ws.kin;
  forwardKinematics(kin, q, qd);
  const fl = ws.flops;
  fl.reset();
  const nb = model.nb, parents = model.parents, ivs = model.iv, nvis = model.nvi;
  const X = kin.XupFlat, V = kin.vFlat, C = kin.cFlat, a0 = kin.a0, unitRow = kin.unitRow, unitSign = kin.unitSign;
  const IA = ws.IAflat, PA = ws.pAflat, A = ws.aFlat, I = ws.Iflat, qddOut = ws.qdd;
  const { t6, t6b, Ia, w36, UD } = ws;
  const withV = qd !== null;
  let mul = 0, add = 0, div = 0;
  // pass 1: I^A_i = I_i, p^A_i = v_i ×* I_i v_i − f^x_i
  for (let i = 0; i < nb; i++) {
    const io = 10 * i, Mo = 36 * i, o = 6 * i;
    const m = I[io], hx = I[io + 1], hy = I[io + 2], hz = I[io + 3];
    const Ixx = I[io + 4], Ixy = I[io + 5], Ixz = I[io + 6], Iyy = I[io + 7], Iyz = I[io + 8], Izz = I[io + 9];
    // inertiaToMatrix: [Ī h×; h×ᵀ m 1]
    IA[Mo] = Ixx; IA[Mo + 1] = Ixy; IA[Mo + 2] = Ixz; IA[Mo + 3] = 0; IA[Mo + 4] = -hz; IA[Mo + 5] = hy;
    IA[Mo + 6] = Ixy; IA[Mo + 7] = Iyy; IA[Mo + 8] = Iyz; IA[Mo + 9] = hz; IA[Mo + 10] = 0; IA[Mo + 11] = -hx;
    IA[Mo + 12] = Ixz; IA[Mo + 13] = Iyz; IA[Mo + 14] = Izz; IA[Mo + 15] = -hy; IA[Mo + 16] = hx; IA[Mo + 17] = 0;
    IA[Mo + 18] = 0; IA[Mo + 19] = hz; IA[Mo + 20] = -hy; IA[Mo + 21] = m; IA[Mo + 22] = 0; IA[Mo + 23] = 0;
    IA[Mo + 24] = -hz; IA[Mo + 25] = 0; IA[Mo + 26] = hx; IA[Mo + 27] = 0; IA[Mo + 28] = m; IA[Mo + 29] = 0;
    IA[Mo + 30] = hy; IA[Mo + 31] = -hx; IA[Mo + 32] = 0; IA[Mo + 33] = 0; IA[Mo + 34] = 0; IA[Mo + 35] = m;
    if (withV) {
      // h = I v (inertiaMulMotion), p^A = v ×* h (crossForce)
      const w0 = V[o], w1 = V[o + 1], w2 = V[o + 2], u0 = V[o + 3], u1 = V[o + 4], u2 = V[o + 5];
      const n0 = Ixx * w0 + Ixy * w1 + Ixz * w2 + (hy * u2 - hz * u1);
      const n1 = Ixy * w0 + Iyy * w1 + Iyz * w2 + (hz * u0 - hx * u2);
      const n2 = Ixz * w0 + Iyz * w1 + Izz * w2 + (hx * u1 - hy * u0);
      const f0 = m * u0 - (hy * w2 - hz * w1);
      const f1 = m * u1 - (hz * w0 - hx * w2);
      const f2 = m * u2 - (hx * w1 - hy * w0);
      PA[o] = w1 * n2 - w2 * n1 + (u1 * f2 - u2 * f1);
      PA[o + 1] = w2 * n0 - w0 * n2 + (u2 * f0 - u0 * f2);
      PA[o + 2] = w0 * n1 - w1 * n0 + (u0 * f1 - u1 * f0);
      PA[o + 3] = w1 * f2 - w2 * f1;
      PA[o + 4] = w2 * f0 - w0 * f2;
      PA[o + 5] = w0 * f1 - w1 * f0;
      mul += 24 + 18; add += 18 + 12;
    } else {
      for (let k = 0; k < 6; k++) PA[o + k] = 0;
    }
    if (fext) {
      const fx = fext[i];
      for (let k = 0; k < 6; k++) PA[o + k] -= fx[k];
      add += 6;
    }
  }
  // pass 2
  for (let i = nb - 1; i >= 0; i--) {
    const p = parents[i];
    const row = unitRow[i];
    const o = 6 * i, Mo = 36 * i;
    const U = ws.U[i], u = ws.u[i], Dinv = ws.Dinv[i];
    const pa = t6b;
    if (row >= 0) {
      // S_i = ±e_row: U_i = ±I^A_i e_row, D_i = I^A_i[row, row], u_i = τ_i ∓ p^A_i[row]
      const sg = unitSign[i];
      for (let r = 0; r < 6; r++) U[r] = sg > 0 ? IA[Mo + 6 * r + row] : -IA[Mo + 6 * r + row];
      const D = sg > 0 ? U[row] : -U[row];
      if (!(D > 0)) throw new SingularJointInertiaError(model.jointNames[i], model.bodyNames[i]);
      const d = 1 / D;
      Dinv[0] = d;
      const uu = tau[ivs[i]] - (sg > 0 ? PA[o + row] : -PA[o + row]);
      u[0] = uu;
      div++; add++;
      if (p < 0) continue;
      // I^a = I^A − U D⁻¹ Uᵀ (upper triangle, mirrored), UD = U D⁻¹
      for (let r = 0; r < 6; r++) UD[r] = U[r] * d;
      for (let r = 0; r < 6; r++) {
        const udr = UD[r];
        for (let c = r; c < 6; c++) {
          const x = IA[Mo + 6 * r + c] - udr * U[c];
          Ia[6 * r + c] = x;
          Ia[6 * c + r] = x;
        }
      }
      mul += 6 + 21; add += 21;
      // p^a = p^A + I^a c + U D⁻¹ u
      for (let k = 0; k < 6; k++) pa[k] = PA[o + k];
      if (withV) {
        m6MulVec(t6, Ia, kin.c[i], fl);
        for (let k = 0; k < 6; k++) pa[k] += t6[k];
        add += 6;
      }
      for (let r = 0; r < 6; r++) pa[r] += UD[r] * uu;
      mul += 6; add += 6;
    } else {
      const nv = nvis[i];
      const S = model.S[i];
      const IAi = ws.IA[i];
      if (nv > 0) {
        setMS(U, IAi, S, nv, fl);
        setSTU(Dinv, S, U, nv, fl);
        if (!spdInvertInPlace(Dinv, nv, w36, fl)) throw new SingularJointInertiaError(model.jointNames[i], model.bodyNames[i]);
        // u_i = τ_i − S_iᵀ p^A_i
        setSTf(u, 0, S, nv, ws.pA[i], fl);
        const iv = ivs[i];
        for (let k = 0; k < nv; k++) u[k] = tau[iv + k] - u[k];
        add += nv;
      }
      if (p < 0) continue;
      // I^a = I^A − U D⁻¹ Uᵀ;  UD = U D⁻¹ (6×nv column-major)
      for (let k = 0; k < 36; k++) Ia[k] = IAi[k];
      if (nv > 0) {
        for (let b = 0; b < nv; b++) {
          for (let r = 0; r < 6; r++) {
            let acc = 0;
            for (let c = 0; c < nv; c++) acc += U[6 * c + r] * Dinv[nv * c + b];
            UD[6 * b + r] = acc;
          }
        }
        mul += 6 * nv * nv; add += 6 * nv * (nv - 1);
        for (let r = 0; r < 6; r++) {
          for (let c = r; c < 6; c++) {
            let acc = 0;
            for (let k = 0; k < nv; k++) acc += UD[6 * k + r] * U[6 * k + c];
            Ia[6 * r + c] -= acc;
            Ia[6 * c + r] = Ia[6 * r + c];
          }
        }
        mul += 21 * nv; add += 21 * nv;
      }
      // p^a = p^A + I^a c + U D⁻¹ u
      for (let k = 0; k < 6; k++) pa[k] = PA[o + k];
      if (withV && nv > 0) {
        m6MulVec(t6, Ia, kin.c[i], fl);
        for (let k = 0; k < 6; k++) pa[k] += t6[k];
        add += 6;
      }
      if (nv > 0) {
        for (let r = 0; r < 6; r++) {
          let acc = 0;
          for (let k = 0; k < nv; k++) acc += UD[6 * k + r] * u[k];
          pa[r] += acc;
        }
        mul += 6 * nv; add += 6 * nv;
      }
    }
    // pass to the parent: I^A_λ += Xᵀ I^a X, p^A_λ += Xᵀ p^a (xTransposeApplyForceAdd)
    m6CongruenceAdd(ws.IA[p], kin.Xup[i], Ia, fl);
    const xo = 12 * i, po = 6 * p;
    const e0 = X[xo], e1 = X[xo + 1], e2 = X[xo + 2], e3 = X[xo + 3], e4 = X[xo + 4], e5 = X[xo + 5], e6 = X[xo + 6], e7 = X[xo + 7], e8 = X[xo + 8];
    const a0_ = pa[0], a1 = pa[1], a2 = pa[2], b0 = pa[3], b1 = pa[4], b2 = pa[5];
    const fx = e0 * b0 + e3 * b1 + e6 * b2;
    const fy = e1 * b0 + e4 * b1 + e7 * b2;
    const fz = e2 * b0 + e5 * b1 + e8 * b2;
    const r0 = X[xo + 9], r1 = X[xo + 10], r2 = X[xo + 11];
    PA[po] += e0 * a0_ + e3 * a1 + e6 * a2 + (r1 * fz - r2 * fy);
    PA[po + 1] += e1 * a0_ + e4 * a1 + e7 * a2 + (r2 * fx - r0 * fz);
    PA[po + 2] += e2 * a0_ + e5 * a1 + e8 * a2 + (r0 * fy - r1 * fx);
    PA[po + 3] += fx; PA[po + 4] += fy; PA[po + 5] += fz;
    mul += 24; add += 24;
  }
  // pass 3
  for (let i = 0; i < nb; i++) {
    const p = parents[i];
    const o = 6 * i, xo = 12 * i;
    // a'_i = ⁱX_λ a_λ + c_i (xApplyMotion)
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
    const n = nvis[i];
    if (withV && n > 0) {
      for (let k = 0; k < 6; k++) A[o + k] += C[o + k];
      add += 6;
    }
    if (n === 0) continue;
    const U = ws.U[i], u = ws.u[i], Dinv = ws.Dinv[i];
    const iv = ivs[i];
    const row = unitRow[i];
    if (row >= 0) {
      // q̈_i = D⁻¹ (u − Uᵀ a'), a_i = a'_i + S_i q̈_i
      const acc = U[0] * A[o] + U[1] * A[o + 1] + U[2] * A[o + 2] + U[3] * A[o + 3] + U[4] * A[o + 4] + U[5] * A[o + 5];
      const x = Dinv[0] * (u[0] - acc);
      qddOut[iv] = x;
      if (unitSign[i] > 0) A[o + row] += x; else A[o + row] -= x;
      mul += 7; add += 7;
      continue;
    }
    // q̈_i = D⁻¹ (u − Uᵀ a')
    for (let k = 0; k < n; k++) {
      let acc = 0;
      for (let r = 0; r < 6; r++) acc += U[6 * k + r] * A[o + r];
      t6[k] = u[k] - acc;
    }
    mul += 6 * n; add += 6 * n;
    for (let k = 0; k < n; k++) {
      let acc = 0;
      for (let c = 0; c < n; c++) acc += Dinv[n * k + c] * t6[c];
      qddOut[iv + k] = acc;
    }
    mul += n * n; add += n * (n - 1);
    addSx(ws.a[i], model.S[i], n, qddOut, iv, fl);
  }
  fl.mul += mul; fl.add += add; fl.div += div;
  return ws.qdd;
}
