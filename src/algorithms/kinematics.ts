/**
 * Forward velocity kinematics shared by RNEA, ABA and the sparse assembly (Nori (2017) eq. 2 and
 * the definitions after eq. 3; RBDA Table 5.1 lines 3–7):
 *   ⁱX_λ = X_J(q_i) X_tree,i,   v_J = S_i q̇_i,   v_i = ⁱX_λ v_λ + v_J,   c_i = v_i × v_J.
 */
import { JT_PRISMATIC, JT_REVOLUTE } from '../model/joint.ts';
import { jcalc } from '../model/jcalc.ts';
import type { Model } from '../model/model.ts';
import { addSx, setSx } from '../model/subspace.ts';
import { Flops } from '../spatial/flops.ts';
import { crossMotion } from '../spatial/motion.ts';
import { xApplyMotion } from '../spatial/transform.ts';

/**
 * The velocity kinematics of one configuration (ⁱX_λ, v_i, v_J, c_i per body): made once per model
 * and reused; RNEA's, ABA's and the sparse solvers' workspaces each hold one.
 */
export class KinematicsWorkspace {
  /** ⁱX_λ(i): parent-to-body transform at the current q (written by forwardKinematics; views into XupFlat) */
  readonly Xup: Float64Array[];
  /** v_i: body spatial velocity in body coordinates (views into vFlat) */
  readonly v: Float64Array[];
  /** v_J,i = S_i q̇_i: joint velocity in body coordinates (views into vJFlat) */
  readonly vJ: Float64Array[];
  /** c_i = v_i × S_i q̇_i: velocity-product acceleration in body coordinates (views into cFlat) */
  readonly c: Float64Array[];
  /** the same quantities, body after body in one array each: ⁱX_λ at 12 i, v_i, v_J,i, c_i at 6 i */
  readonly XupFlat: Float64Array;
  readonly vFlat: Float64Array;
  readonly vJFlat: Float64Array;
  readonly cFlat: Float64Array;
  /**
   * For a 1-DoF joint about (revolute) or along (prismatic) a frame axis, S_i is a signed unit
   * vector: unitRow[i] = the row of its ±1 (0–2 revolute, 3–5 prismatic), unitSign[i] = that ±1;
   * unitRow[i] = −1 for every other joint. The algorithms' fast paths read S q̇ and Sᵀ f off it.
   */
  readonly unitRow: Int8Array;
  readonly unitSign: Float64Array;
  /** a_0 = −a_g: the gravity acceleration of the fixed world, world coordinates (Nori (2017) §IV-A) */
  readonly a0: Float64Array;
  /** flops of the last forwardKinematics call */
  readonly flops = new Flops();

  constructor(readonly model: Model) {
    const nb = model.nb;
    const views = (flat: Float64Array, n: number) => Array.from({ length: nb }, (_, i) => flat.subarray(n * i, n * i + n));
    this.XupFlat = new Float64Array(12 * nb);
    this.vFlat = new Float64Array(6 * nb);
    this.vJFlat = new Float64Array(6 * nb);
    this.cFlat = new Float64Array(6 * nb);
    this.Xup = views(this.XupFlat, 12);
    this.v = views(this.vFlat, 6);
    this.vJ = views(this.vJFlat, 6);
    this.c = views(this.cFlat, 6);
    ({ unitRow: this.unitRow, unitSign: this.unitSign } = unitAxes(model));
    this.a0 = new Float64Array(6);
    const g = model.gravity;
    this.a0[3] = -g[0]; this.a0[4] = -g[1]; this.a0[5] = -g[2];
  }
}

/**
 * The joints whose motion subspace is a signed unit vector (1-DoF, about or along a frame axis):
 * unitRow[i] = the row of S_i's ±1 (0–2 revolute, 3–5 prismatic) and unitSign[i] = that ±1;
 * unitRow[i] = −1 for every other joint.
 */
export function unitAxes(model: Model): { unitRow: Int8Array; unitSign: Float64Array } {
  const nb = model.nb;
  const unitRow = new Int8Array(nb).fill(-1), unitSign = new Float64Array(nb);
  for (let i = 0; i < nb; i++) {
    const t = model.jtype[i], k = model.axisKind[i];
    if ((t !== JT_REVOLUTE && t !== JT_PRISMATIC) || k >= 3) continue;
    const row = t === JT_REVOLUTE ? k : 3 + k, S = model.S[i];
    let others = 0;
    for (let r = 0; r < 6; r++) if (r !== row && S[r] !== 0) others++;
    if (others > 0 || Math.abs(S[row]) !== 1) continue;
    unitRow[i] = row;
    unitSign[i] = S[row];
  }
  return { unitRow, unitSign };
}

/**
 * Fill ws.Xup, ws.v, ws.vJ, ws.c from (q, q̇). Inputs are not validated here (callers do it at
 * their public entry). `withVelocity = false` skips v, vJ, c (they are left at zero).
 */
/**
 * c = v × v_J for a joint about (revolute) or along (prismatic) frame axis k, where v_J has the one
 * nonzero entry a = v_J[k] (angular) or v_J[3+k] (linear): v × [a e_k; 0] = [ω × a e_k; v_lin × a e_k],
 * v × [0; a e_k] = [0; ω × a e_k]. 4 mul (revolute) or 2 mul (prismatic).
 */
function crossAlongAxis(c: Float64Array, v: Float64Array, vJ: Float64Array, k: number, prismatic: boolean, fl: Flops): void {
  const i1 = k === 0 ? 1 : k === 1 ? 2 : 0; // (i1, i2, k) cyclic
  const i2 = k === 0 ? 2 : k === 1 ? 0 : 1;
  c.fill(0);
  // x × (a e_k) has components i1: x_i2 a, i2: −x_i1 a
  if (prismatic) {
    const a = vJ[3 + k];
    c[3 + i1] = v[i2] * a; c[3 + i2] = -(v[i1] * a);
    fl.mul += 2;
  } else {
    const a = vJ[k];
    c[i1] = v[i2] * a; c[i2] = -(v[i1] * a);
    c[3 + i1] = v[3 + i2] * a; c[3 + i2] = -(v[3 + i1] * a);
    fl.mul += 4;
  }
}

/**
 * Forward velocity kinematics (Pinocchio's `forwardKinematics`): fills ws.Xup, ws.v, ws.vJ and ws.c
 * from (q, q̇); pass qd = null for positions only (v, vJ, c stay zero). Inputs are not validated
 * here. Allocation free.
 *
 * A joint about or along a frame axis (ws.unitRow) takes a fast path written out here, with the
 * same arithmetic and flop counts as the kernels of the general path: v_J with its one entry (a
 * copy), ⁱX_λ v_λ (24 mul, 18 add) plus that entry (1 add), and c_i (crossAlongAxis: 4 mul
 * revolute, 2 prismatic). Every joint goes through jcalc (which has its own fast path for these
 * joints), so that jcalc stays hot and optimized whatever the mix of joints.
 */
export function forwardKinematics(ws: KinematicsWorkspace, q: ArrayLike<number>, qd: ArrayLike<number> | null): void {
  const model = ws.model;
  const fl = ws.flops;
  fl.reset();
  const nb = model.nb, parents = model.parents, ivs = model.iv;
  const unitRow = ws.unitRow, unitSign = ws.unitSign;
  const X = ws.XupFlat, V = ws.vFlat, VJ = ws.vJFlat, C = ws.cFlat;
  let mul = 0, add = 0;
  for (let i = 0; i < nb; i++) {
    const row = unitRow[i];
    const xo = 12 * i;
    if (row >= 0) {
      jcalc(ws.Xup[i], model, i, q, fl);
      if (qd === null) continue;
      const vo = 6 * i, p = parents[i];
      const x = qd[ivs[i]];
      const sx = unitSign[i] > 0 ? x : 0 - x;
      for (let k = 0; k < 6; k++) VJ[vo + k] = 0;
      VJ[vo + row] = sx;
      if (p < 0) {
        // v_λ = 0 (fixed world): v_i = v_J, c_i = 0
        for (let k = 0; k < 6; k++) { V[vo + k] = VJ[vo + k]; C[vo + k] = 0; }
        continue;
      }
      // v_i = ⁱX_λ v_λ + v_J (xApplyMotion, then the one entry of S q̇)
      const po = 6 * p;
      const wx = V[po], wy = V[po + 1], wz = V[po + 2];
      const r0 = X[xo + 9], r1 = X[xo + 10], r2 = X[xo + 11];
      const tx = V[po + 3] - (r1 * wz - r2 * wy);
      const ty = V[po + 4] - (r2 * wx - r0 * wz);
      const tz = V[po + 5] - (r0 * wy - r1 * wx);
      const e0 = X[xo], e1 = X[xo + 1], e2 = X[xo + 2], e3 = X[xo + 3], e4 = X[xo + 4], e5 = X[xo + 5], e6 = X[xo + 6], e7 = X[xo + 7], e8 = X[xo + 8];
      V[vo] = e0 * wx + e1 * wy + e2 * wz;
      V[vo + 1] = e3 * wx + e4 * wy + e5 * wz;
      V[vo + 2] = e6 * wx + e7 * wy + e8 * wz;
      V[vo + 3] = e0 * tx + e1 * ty + e2 * tz;
      V[vo + 4] = e3 * tx + e4 * ty + e5 * tz;
      V[vo + 5] = e6 * tx + e7 * ty + e8 * tz;
      if (unitSign[i] > 0) V[vo + row] += x; else V[vo + row] -= x;
      mul += 24; add += 19;
      // c_i = v_i × v_J (crossAlongAxis)
      for (let k = 0; k < 6; k++) C[vo + k] = 0;
      const k = row < 3 ? row : row - 3;
      const i1 = k === 0 ? 1 : k === 1 ? 2 : 0, i2 = k === 0 ? 2 : k === 1 ? 0 : 1;
      if (row >= 3) {
        C[vo + 3 + i1] = V[vo + i2] * sx; C[vo + 3 + i2] = -(V[vo + i1] * sx);
        mul += 2;
      } else {
        C[vo + i1] = V[vo + i2] * sx; C[vo + i2] = -(V[vo + i1] * sx);
        C[vo + 3 + i1] = V[vo + 3 + i2] * sx; C[vo + 3 + i2] = -(V[vo + 3 + i1] * sx);
        mul += 4;
      }
      continue;
    }
    const Xup = ws.Xup[i];
    jcalc(Xup, model, i, q, fl);
    const v = ws.v[i];
    if (qd === null) continue;
    const vJ = ws.vJ[i];
    const nv = model.nvi[i];
    setSx(vJ, model.S[i], nv, qd, ivs[i], fl);
    const p = parents[i];
    if (p >= 0) {
      xApplyMotion(v, Xup, ws.v[p], fl);
      if (nv === 0) {
        ws.c[i].fill(0);
        continue;
      }
      addSx(v, model.S[i], nv, qd, ivs[i], fl);
      const kind = model.axisKind[i];
      if (kind < 3) crossAlongAxis(ws.c[i], v, vJ, kind, model.jtype[i] === JT_PRISMATIC, fl);
      else crossMotion(ws.c[i], v, vJ, fl);
    } else {
      // v_λ = 0 (fixed world): v_i = v_J, c_i = v_J × v_J = 0
      for (let k = 0; k < 6; k++) v[k] = vJ[k];
      ws.c[i].fill(0);
    }
  }
  fl.mul += mul; fl.add += add;
  if (qd === null) {
    V.fill(0); VJ.fill(0); C.fill(0);
  }
}
