/**
 * Forward velocity kinematics shared by RNEA, ABA and the sparse assembly (paper 004 eq. 2 and
 * the definitions after eq. 3; RBDA Table 5.1 lines 3–7):
 *   ⁱX_λ = X_J(q_i) X_tree,i,   v_J = S_i q̇_i,   v_i = ⁱX_λ v_λ + v_J,   c_i = v_i × v_J.
 */
import { JT_PRISMATIC } from '../model/joint.ts';
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
  /** ⁱX_λ(i): parent-to-body transform at the current q (written by forwardKinematics) */
  readonly Xup: Float64Array[];
  /** v_i: body spatial velocity in body coordinates */
  readonly v: Float64Array[];
  /** v_J,i = S_i q̇_i: joint velocity in body coordinates */
  readonly vJ: Float64Array[];
  /** c_i = v_i × S_i q̇_i: velocity-product acceleration in body coordinates */
  readonly c: Float64Array[];
  /** a_0 = −a_g: the gravity acceleration of the fixed world, world coordinates (paper 004 §IV-A) */
  readonly a0: Float64Array;
  /** flops of the last forwardKinematics call */
  readonly flops = new Flops();

  constructor(readonly model: Model) {
    const mk = (n: number) => Array.from({ length: model.nb }, () => new Float64Array(n));
    this.Xup = mk(12);
    this.v = mk(6);
    this.vJ = mk(6);
    this.c = mk(6);
    this.a0 = new Float64Array(6);
    const g = model.gravity;
    this.a0[3] = -g[0]; this.a0[4] = -g[1]; this.a0[5] = -g[2];
  }
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
 */
export function forwardKinematics(ws: KinematicsWorkspace, q: ArrayLike<number>, qd: ArrayLike<number> | null): void {
  const model = ws.model;
  const fl = ws.flops;
  fl.reset();
  for (let i = 0; i < model.nb; i++) {
    const Xup = ws.Xup[i];
    jcalc(Xup, model, i, q, fl);
    const v = ws.v[i];
    if (qd === null) continue;
    const vJ = ws.vJ[i];
    const nv = model.nvi[i];
    setSx(vJ, model.S[i], nv, qd, model.iv[i], fl);
    const p = model.parents[i];
    if (p >= 0) {
      xApplyMotion(v, Xup, ws.v[p], fl);
      if (nv === 0) {
        ws.c[i].fill(0);
        continue;
      }
      addSx(v, model.S[i], nv, qd, model.iv[i], fl);
      const kind = model.axisKind[i];
      if (kind < 3) crossAlongAxis(ws.c[i], v, vJ, kind, model.jtype[i] === JT_PRISMATIC, fl);
      else crossMotion(ws.c[i], v, vJ, fl);
    } else {
      // v_λ = 0 (fixed world): v_i = v_J, c_i = v_J × v_J = 0
      for (let k = 0; k < 6; k++) v[k] = vJ[k];
      ws.c[i].fill(0);
    }
  }
  if (qd === null) {
    for (let i = 0; i < model.nb; i++) { ws.v[i].fill(0); ws.vJ[i].fill(0); ws.c[i].fill(0); }
  }
}
