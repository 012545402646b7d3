/**
 * Joint models: motion subspace S (constant in the joint = child-body frame for every type here),
 * configuration/velocity sizes and the joint transform X_J(q). RBDA §4.4 and Table 4.1 (jcalc);
 * Nori (2017) §II (S_i). Every joint's S is constant in body coordinates, so Ṡ = 0 and the velocity
 * product c_i = v_i × S_i q̇_i (Nori (2017), after eq. 3).
 *
 * Floating base (`floating`): q = [p (3, world), quaternion x y z w (4) of R_wb], v = [v_lin (3),
 * ω (3)] both in the body frame (Pinocchio's FreeFlyer layout), so S maps [v; ω] to the spatial
 * [ω; v]: S = [0 1; 1 0]. Spherical (`spherical`): q = quaternion (x y z w), v = ω in body frame.
 *
 * Planar (`planar`, Pinocchio's JointModelPlanar): motion in the plane normal to the unit axis n
 * (n = z: the joint frame's xy plane, Pinocchio's only case). With (e1, e2, n) the right-handed
 * frame that the smallest rotation taking z to n makes of (x, y, z) (planarBasis), q = [x, y, θ]:
 * the child frame sits at x e1 + y e2 in the joint frame, turned by θ about n. v = [vx, vy, ω] is
 * the child's velocity in its own frame (vx along e1, vy along e2), so S = [0 0 n; e1 e2 0] is
 * constant in the child frame and q̇ ≠ v: (ẋ, ẏ) = R(θ) (vx, vy). Pinocchio stores (x, y, cos θ,
 * sin θ); one angle is stored here, as for continuous revolute joints (verify maps the two).
 */

/** The joint types: the URDF's (revolute, prismatic, floating, fixed, planar; continuous is revolute) and helical, spherical. */
export type JointType = 'revolute' | 'prismatic' | 'helical' | 'floating' | 'spherical' | 'fixed' | 'planar';

/** Numeric codes used in the hot loops (switch on an integer, not a string). */
export const JT_REVOLUTE = 0;
export const JT_PRISMATIC = 1;
export const JT_HELICAL = 2;
export const JT_FLOATING = 3;
export const JT_SPHERICAL = 4;
/** A 0-DoF joint kept as its own body (e.g. one that carries a force/torque sensor). */
export const JT_FIXED = 5;
export const JT_PLANAR = 6;

export function jointTypeCode(t: JointType): number {
  switch (t) {
    case 'revolute': return JT_REVOLUTE;
    case 'prismatic': return JT_PRISMATIC;
    case 'helical': return JT_HELICAL;
    case 'floating': return JT_FLOATING;
    case 'spherical': return JT_SPHERICAL;
    case 'fixed': return JT_FIXED;
    case 'planar': return JT_PLANAR;
  }
}

export function jointNq(t: JointType): number {
  return t === 'floating' ? 7 : t === 'spherical' ? 4 : t === 'planar' ? 3 : t === 'fixed' ? 0 : 1;
}

export function jointNv(t: JointType): number {
  return t === 'floating' ? 6 : t === 'spherical' || t === 'planar' ? 3 : t === 'fixed' ? 0 : 1;
}

/**
 * In-plane unit vectors (e1, e2) of a planar joint with unit normal n, written to out[0..6): the
 * images of x and y under the smallest rotation taking z to n (Rodrigues with k = z × n:
 * R = 1 + k× + k×² / (1 + n_z)); for n = −z, the half turn about x (e1 = x, e2 = −y).
 */
export function planarBasis(out: Float64Array, nx: number, ny: number, nz: number): Float64Array {
  if (nz === 1) { out.set([1, 0, 0, 0, 1, 0]); return out; }
  if (nz <= -1 + 1e-15 && Math.abs(nx) < 1e-12 && Math.abs(ny) < 1e-12) { out.set([1, 0, 0, 0, -1, 0]); return out; }
  const f = 1 / (1 + nz);
  // R x = (1 − f nx², −f nx ny, −nx),  R y = (−f nx ny, 1 − f ny², −ny)
  out[0] = 1 - f * nx * nx; out[1] = -f * nx * ny; out[2] = -nx;
  out[3] = -f * nx * ny; out[4] = 1 - f * ny * ny; out[5] = -ny;
  return out;
}

/**
 * Motion subspace S (6×nv, column-major: column k at [6k, 6k+6)) of a joint in its own frame.
 * axis: unit vector (revolute, prismatic, helical; the plane normal of a planar joint); pitch:
 * metres per radian (helical).
 */
export function motionSubspace(t: JointType, axis: ArrayLike<number>, pitch: number): Float64Array {
  const nv = jointNv(t);
  const S = new Float64Array(6 * nv);
  switch (t) {
    case 'revolute':
      S[0] = axis[0]; S[1] = axis[1]; S[2] = axis[2];
      break;
    case 'prismatic':
      S[3] = axis[0]; S[4] = axis[1]; S[5] = axis[2];
      break;
    case 'helical':
      S[0] = axis[0]; S[1] = axis[1]; S[2] = axis[2];
      S[3] = pitch * axis[0]; S[4] = pitch * axis[1]; S[5] = pitch * axis[2];
      break;
    case 'floating':
      // v = [v_lin; ω] → spatial [ω; v_lin]
      for (let k = 0; k < 3; k++) {
        S[6 * k + 3 + k] = 1; // linear DoF k → spatial linear row k
        S[6 * (k + 3) + k] = 1; // angular DoF k → spatial angular row k
      }
      break;
    case 'spherical':
      for (let k = 0; k < 3; k++) S[6 * k + k] = 1;
      break;
    case 'planar': {
      // v = [vx, vy, ω] → spatial [ω n; vx e1 + vy e2]
      const e = planarBasis(new Float64Array(6), axis[0], axis[1], axis[2]);
      for (let r = 0; r < 3; r++) {
        S[3 + r] = e[r];
        S[6 + 3 + r] = e[3 + r];
        S[12 + r] = axis[r];
      }
      break;
    }
    case 'fixed':
      break;
  }
  return S;
}

/** Neutral configuration of one joint written at q[iq..]. */
export function jointNeutral(t: JointType, q: Float64Array, iq: number): void {
  if (t === 'floating') {
    q[iq] = 0; q[iq + 1] = 0; q[iq + 2] = 0;
    q[iq + 3] = 0; q[iq + 4] = 0; q[iq + 5] = 0; q[iq + 6] = 1;
  } else if (t === 'spherical') {
    q[iq] = 0; q[iq + 1] = 0; q[iq + 2] = 0; q[iq + 3] = 1;
  } else if (t !== 'fixed') {
    q[iq] = 0;
  }
}
