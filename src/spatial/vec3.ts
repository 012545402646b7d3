/**
 * 3-vector and 3×3 matrix helpers on Float64Array (row-major 3×3), output first, allocation free.
 * Only used at model-build time and in tests; the hot kernels inline their 3-D arithmetic.
 */

/** R = Rz(yaw) Ry(pitch) Rx(roll): URDF `rpy` convention (fixed axes x, then y, then z). */
export function rotFromRpy(out: Float64Array, roll: number, pitch: number, yaw: number): Float64Array {
  const cr = Math.cos(roll), sr = Math.sin(roll);
  const cp = Math.cos(pitch), sp = Math.sin(pitch);
  const cy = Math.cos(yaw), sy = Math.sin(yaw);
  out[0] = cy * cp; out[1] = cy * sp * sr - sy * cr; out[2] = cy * sp * cr + sy * sr;
  out[3] = sy * cp; out[4] = sy * sp * sr + cy * cr; out[5] = sy * sp * cr - cy * sr;
  out[6] = -sp; out[7] = cp * sr; out[8] = cp * cr;
  return out;
}

/** R(u, θ): rotation by θ about the unit axis u (Rodrigues). Maps rotated-frame to fixed-frame coordinates. */
export function rotAxisAngle(out: Float64Array, ux: number, uy: number, uz: number, theta: number): Float64Array {
  const c = Math.cos(theta), s = Math.sin(theta), t = 1 - c;
  out[0] = t * ux * ux + c; out[1] = t * ux * uy - s * uz; out[2] = t * ux * uz + s * uy;
  out[3] = t * ux * uy + s * uz; out[4] = t * uy * uy + c; out[5] = t * uy * uz - s * ux;
  out[6] = t * ux * uz - s * uy; out[7] = t * uy * uz + s * ux; out[8] = t * uz * uz + c;
  return out;
}

/** R from a unit quaternion (x, y, z, w), w last. */
export function rotFromQuat(out: Float64Array, x: number, y: number, z: number, w: number): Float64Array {
  out[0] = 1 - 2 * (y * y + z * z); out[1] = 2 * (x * y - z * w); out[2] = 2 * (x * z + y * w);
  out[3] = 2 * (x * y + z * w); out[4] = 1 - 2 * (x * x + z * z); out[5] = 2 * (y * z - x * w);
  out[6] = 2 * (x * z - y * w); out[7] = 2 * (y * z + x * w); out[8] = 1 - 2 * (x * x + y * y);
  return out;
}

/** out = A B (3×3, row-major). Safe if out aliases A or B. */
export function mat3Mul(out: Float64Array, A: Float64Array, B: Float64Array): Float64Array {
  const a0 = A[0], a1 = A[1], a2 = A[2], a3 = A[3], a4 = A[4], a5 = A[5], a6 = A[6], a7 = A[7], a8 = A[8];
  const b0 = B[0], b1 = B[1], b2 = B[2], b3 = B[3], b4 = B[4], b5 = B[5], b6 = B[6], b7 = B[7], b8 = B[8];
  out[0] = a0 * b0 + a1 * b3 + a2 * b6; out[1] = a0 * b1 + a1 * b4 + a2 * b7; out[2] = a0 * b2 + a1 * b5 + a2 * b8;
  out[3] = a3 * b0 + a4 * b3 + a5 * b6; out[4] = a3 * b1 + a4 * b4 + a5 * b7; out[5] = a3 * b2 + a4 * b5 + a5 * b8;
  out[6] = a6 * b0 + a7 * b3 + a8 * b6; out[7] = a6 * b1 + a7 * b4 + a8 * b7; out[8] = a6 * b2 + a7 * b5 + a8 * b8;
  return out;
}

/** out = Aᵀ (3×3). */
export function mat3Transpose(out: Float64Array, A: Float64Array): Float64Array {
  const a1 = A[1], a2 = A[2], a5 = A[5];
  out[0] = A[0]; out[4] = A[4]; out[8] = A[8];
  out[1] = A[3]; out[3] = a1; out[2] = A[6]; out[6] = a2; out[5] = A[7]; out[7] = a5;
  return out;
}

/** Eigenvalue-free positive-definiteness test of a symmetric 3×3 (Sylvester's criterion). */
export function sym3IsPositiveDefinite(xx: number, xy: number, xz: number, yy: number, yz: number, zz: number): boolean {
  const d1 = xx;
  const d2 = xx * yy - xy * xy;
  const d3 = xx * (yy * zz - yz * yz) - xy * (xy * zz - yz * xz) + xz * (xy * yz - yy * xz);
  const scale = Math.max(Math.abs(xx), Math.abs(yy), Math.abs(zz), 1e-300);
  return d1 > 0 && d2 > 1e-14 * scale * scale && d3 > 1e-14 * scale * scale * scale;
}
