/**
 * Joint models: motion subspace S (constant in the joint = child-body frame for every type here),
 * configuration/velocity sizes and the joint transform X_J(q). RBDA §4.4 and Table 4.1 (jcalc);
 * paper 004 §II (S_i). Every joint's S is constant in body coordinates, so Ṡ = 0 and the velocity
 * product c_i = v_i × S_i q̇_i (paper 004, after eq. 3).
 *
 * Floating base (`floating`): q = [p (3, world), quaternion x y z w (4) of R_wb], v = [v_lin (3),
 * ω (3)] both in the body frame (Pinocchio's FreeFlyer layout), so S maps [v; ω] to the spatial
 * [ω; v]: S = [0 1; 1 0]. Spherical (`spherical`): q = quaternion (x y z w), v = ω in body frame.
 */

/** The joint types: the URDF's (revolute, prismatic, floating, fixed; continuous is revolute) and helical, spherical. */
export type JointType = 'revolute' | 'prismatic' | 'helical' | 'floating' | 'spherical' | 'fixed';

/** Numeric codes used in the hot loops (switch on an integer, not a string). */
export const JT_REVOLUTE = 0;
export const JT_PRISMATIC = 1;
export const JT_HELICAL = 2;
export const JT_FLOATING = 3;
export const JT_SPHERICAL = 4;
/** A 0-DoF joint kept as its own body (e.g. one that carries a force/torque sensor). */
export const JT_FIXED = 5;

export function jointTypeCode(t: JointType): number {
  switch (t) {
    case 'revolute': return JT_REVOLUTE;
    case 'prismatic': return JT_PRISMATIC;
    case 'helical': return JT_HELICAL;
    case 'floating': return JT_FLOATING;
    case 'spherical': return JT_SPHERICAL;
    case 'fixed': return JT_FIXED;
  }
}

export function jointNq(t: JointType): number {
  return t === 'floating' ? 7 : t === 'spherical' ? 4 : t === 'fixed' ? 0 : 1;
}

export function jointNv(t: JointType): number {
  return t === 'floating' ? 6 : t === 'spherical' ? 3 : t === 'fixed' ? 0 : 1;
}

/**
 * Motion subspace S (6×nv, column-major: column k at [6k, 6k+6)) of a joint in its own frame.
 * axis: unit vector (revolute, prismatic, helical); pitch: metres per radian (helical).
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
