/**
 * jcalc: the joint transform composed with the tree transform, ⁱX_λ(i) = X_J(q_i) X_tree,i
 * (RBDA §4.4, Table 4.1; spatial_v2 `jcalc`). Written straight into `Xup` with the cheapest
 * product the joint allows (a rotation about a frame axis touches two rows of E only).
 * Rotations follow Pinocchio/URDF: the child frame is rotated by +q about the axis, so
 * E_J = R(axis, q)ᵀ (parent-joint coordinates → child coordinates). A planar joint (joint.ts) is
 * X_J = (R(n, θ)ᵀ, x e1 + y e2): the in-plane vectors e1, e2 are read from its constant S.
 */
import type { Flops } from '../spatial/flops.ts';
import { JT_FIXED, JT_FLOATING, JT_HELICAL, JT_PLANAR, JT_PRISMATIC, JT_REVOLUTE, JT_SPHERICAL } from './joint.ts';
import type { Model } from './model.ts';

const R = new Float64Array(9);
/**
 * Scalars handed to the helpers below through a typed array: doubles passed as arguments to a
 * function V8 does not inline are boxed (a heap allocation per call); typed-array slots are not.
 * [0] cos (or the angle θ for a general axis), [1] sin, [2..4] translation p.
 */
const T = new Float64Array(5);

/** Xup = X_J(q[iq..]) ∘ Xtree_i for body i. */
export function jcalc(Xup: Float64Array, model: Model, i: number, q: ArrayLike<number>, fl: Flops): Float64Array {
  const Xt = model.Xtree[i];
  const iq = model.iq[i];
  switch (model.jtype[i]) {
    case JT_REVOLUTE: {
      const k = model.axisKind[i];
      if (k < 3) {
        T[1] = model.axis[3 * i + k] * Math.sin(q[iq]);
        T[0] = Math.cos(q[iq]);
        fl.fn += 2;
        rotateAboutFrameAxis(Xup, Xt, k, fl);
        return Xup;
      }
      T[0] = q[iq];
      rotationAboutAxis(model.axis, 3 * i);
      fl.fn += 2; fl.mul += 24; fl.add += 10; // rotationAboutAxis: t = 1 − c, 9 entries
      T[2] = 0; T[3] = 0; T[4] = 0;
      composeRotation(Xup, Xt, fl);
      return Xup;
    }
    case JT_PRISMATIC: {
      const d = q[iq];
      for (let k = 0; k < 9; k++) Xup[k] = Xt[k];
      // r = r_tree + E_treeᵀ (axis d)
      const ax0 = model.axis[3 * i] * d, ax1 = model.axis[3 * i + 1] * d, ax2 = model.axis[3 * i + 2] * d;
      Xup[9] = Xt[9] + Xt[0] * ax0 + Xt[3] * ax1 + Xt[6] * ax2;
      Xup[10] = Xt[10] + Xt[1] * ax0 + Xt[4] * ax1 + Xt[7] * ax2;
      Xup[11] = Xt[11] + Xt[2] * ax0 + Xt[5] * ax1 + Xt[8] * ax2;
      fl.mul += 12; fl.add += 9;
      return Xup;
    }
    case JT_HELICAL: {
      const ax = model.axis;
      const h = model.pitch[i] * q[iq];
      T[0] = q[iq];
      rotationAboutAxis(ax, 3 * i);
      fl.fn += 2; fl.mul += 25; fl.add += 10;
      T[2] = h * ax[3 * i]; T[3] = h * ax[3 * i + 1]; T[4] = h * ax[3 * i + 2];
      fl.mul += 3;
      composeRotation(Xup, Xt, fl);
      return Xup;
    }
    case JT_FLOATING: {
      // X_J = (R_wbᵀ, p); quaternion assumed unit (validated at the public entry)
      rotationFromQuaternion(q, iq + 3);
      fl.mul += 27; fl.add += 12; // rotationFromQuaternion as written
      T[2] = q[iq]; T[3] = q[iq + 1]; T[4] = q[iq + 2];
      composeRotation(Xup, Xt, fl);
      return Xup;
    }
    case JT_PLANAR: {
      const S = model.S[i];
      const x = q[iq], y = q[iq + 1];
      if (model.axis[3 * i + 2] === 1) {
        // normal z: a rotation about the frame axis z, then r = r_t + E_tᵀ (x, y, 0)
        T[0] = Math.cos(q[iq + 2]); T[1] = Math.sin(q[iq + 2]);
        fl.fn += 2;
        rotateAboutFrameAxis(Xup, Xt, 2, fl);
        Xup[9] = Xt[9] + Xt[0] * x + Xt[3] * y;
        Xup[10] = Xt[10] + Xt[1] * x + Xt[4] * y;
        Xup[11] = Xt[11] + Xt[2] * x + Xt[5] * y;
        fl.mul += 6; fl.add += 6;
        return Xup;
      }
      T[0] = q[iq + 2];
      rotationAboutAxis(model.axis, 3 * i);
      fl.fn += 2; fl.mul += 24; fl.add += 10;
      // p = x e1 + y e2 (e1, e2 = linear parts of S's first two columns)
      T[2] = x * S[3] + y * S[9]; T[3] = x * S[4] + y * S[10]; T[4] = x * S[5] + y * S[11];
      fl.mul += 6; fl.add += 3;
      composeRotation(Xup, Xt, fl);
      return Xup;
    }
    case JT_SPHERICAL: {
      rotationFromQuaternion(q, iq);
      fl.mul += 27; fl.add += 12; // rotationFromQuaternion as written
      T[2] = 0; T[3] = 0; T[4] = 0;
      composeRotation(Xup, Xt, fl);
      return Xup;
    }
    case JT_FIXED:
    default:
      for (let k = 0; k < 12; k++) Xup[k] = Xt[k];
      return Xup;
  }
}

/** R = rotation by θ = T[0] about the unit axis at ax[o..o+3] (Rodrigues), into the module scratch. */
function rotationAboutAxis(ax: Float64Array, o: number): void {
  const theta = T[0];
  const ux = ax[o], uy = ax[o + 1], uz = ax[o + 2];
  const c = Math.cos(theta), s = Math.sin(theta), t = 1 - c;
  R[0] = t * ux * ux + c; R[1] = t * ux * uy - s * uz; R[2] = t * ux * uz + s * uy;
  R[3] = t * ux * uy + s * uz; R[4] = t * uy * uy + c; R[5] = t * uy * uz - s * ux;
  R[6] = t * ux * uz - s * uy; R[7] = t * uy * uz + s * ux; R[8] = t * uz * uz + c;
}

/** R = rotation of the unit quaternion (x, y, z, w) at q[o..o+4], into the module scratch. */
function rotationFromQuaternion(q: ArrayLike<number>, o: number): void {
  const x = q[o], y = q[o + 1], z = q[o + 2], w = q[o + 3];
  R[0] = 1 - 2 * (y * y + z * z); R[1] = 2 * (x * y - z * w); R[2] = 2 * (x * z + y * w);
  R[3] = 2 * (x * y + z * w); R[4] = 1 - 2 * (x * x + z * z); R[5] = 2 * (y * z - x * w);
  R[6] = 2 * (x * z - y * w); R[7] = 2 * (y * z + x * w); R[8] = 1 - 2 * (x * x + y * y);
}

/**
 * Xup = (Rᵀ, p) ∘ Xt with R and p = T[2..4] in the module scratch: E = Rᵀ E_t, r = r_t + E_tᵀ p.
 * 27 mul + 18 add, plus 9 mul + 9 add when p ≠ 0.
 */
function composeRotation(Xup: Float64Array, Xt: Float64Array, fl: Flops): void {
  const p0 = T[2], p1 = T[3], p2 = T[4];
  const t0 = Xt[0], t1 = Xt[1], t2 = Xt[2], t3 = Xt[3], t4 = Xt[4], t5 = Xt[5], t6 = Xt[6], t7 = Xt[7], t8 = Xt[8];
  for (let a = 0; a < 3; a++) {
    // row a of Rᵀ = column a of R
    const c0 = R[a], c1 = R[3 + a], c2 = R[6 + a];
    Xup[3 * a] = c0 * t0 + c1 * t3 + c2 * t6;
    Xup[3 * a + 1] = c0 * t1 + c1 * t4 + c2 * t7;
    Xup[3 * a + 2] = c0 * t2 + c1 * t5 + c2 * t8;
  }
  fl.mul += 27; fl.add += 18;
  if (p0 === 0 && p1 === 0 && p2 === 0) {
    Xup[9] = Xt[9]; Xup[10] = Xt[10]; Xup[11] = Xt[11];
  } else {
    Xup[9] = Xt[9] + t0 * p0 + t3 * p1 + t6 * p2;
    Xup[10] = Xt[10] + t1 * p0 + t4 * p1 + t7 * p2;
    Xup[11] = Xt[11] + t2 * p0 + t5 * p1 + t8 * p2;
    fl.mul += 9; fl.add += 9;
  }
}

/**
 * Xup = (R_k(θ)ᵀ, 0) ∘ Xt for a rotation about frame axis k with c = cos θ = T[0], s = sin θ = T[1]
 * (sign of the axis folded into s). Rᵀ about z = [[c, s, 0], [−s, c, 0], [0, 0, 1]] mixes two rows
 * of E_t. 12 mul, 6 add.
 */
function rotateAboutFrameAxis(Xup: Float64Array, Xt: Float64Array, k: number, fl: Flops): void {
  const c = T[0], s = T[1];
  // rows (a, b) mixed, row k kept: about x → (1, 2); about y → (2, 0); about z → (0, 1)
  const a = k === 0 ? 1 : k === 1 ? 2 : 0;
  const b = k === 0 ? 2 : k === 1 ? 0 : 1;
  const a0 = Xt[3 * a], a1 = Xt[3 * a + 1], a2 = Xt[3 * a + 2];
  const b0 = Xt[3 * b], b1 = Xt[3 * b + 1], b2 = Xt[3 * b + 2];
  Xup[3 * a] = c * a0 + s * b0; Xup[3 * a + 1] = c * a1 + s * b1; Xup[3 * a + 2] = c * a2 + s * b2;
  Xup[3 * b] = c * b0 - s * a0; Xup[3 * b + 1] = c * b1 - s * a1; Xup[3 * b + 2] = c * b2 - s * a2;
  Xup[3 * k] = Xt[3 * k]; Xup[3 * k + 1] = Xt[3 * k + 1]; Xup[3 * k + 2] = Xt[3 * k + 2];
  Xup[9] = Xt[9]; Xup[10] = Xt[10]; Xup[11] = Xt[11];
  fl.mul += 12; fl.add += 6;
}
