/**
 * Plücker transforms stored as rotation + translation, never as a dense 6×6.
 *
 * Featherstone, *Rigid Body Dynamics Algorithms* (RBDA) §2.8 and Table 2.5; Pinocchio's SE(3) cheat sheet (Pinocchio
 * cheat sheet) for the same operations in (R, p) form. A transform `X = ᴮX_A` is a Float64Array(12):
 * `E` (row-major 3×3, entries 0..8) rotates A coordinates into B coordinates, and `r` (entries
 * 9..11) is the position of B's origin expressed in A coordinates, so that
 *
 *   ᴮX_A = [E 0; −E r× E]        (motion),      ᴮX*_A = [E −E r×; 0 E]   (force).
 *
 * Motion vectors are [ω; v] and force vectors [n; f] (angular first). All kernels are output
 * first, read their inputs into locals before writing, count their flops into `fl`, and allocate
 * nothing.
 */
import type { Flops } from './flops.ts';

/** A new identity transform. */
export function xCreate(): Float64Array {
  const X = new Float64Array(12);
  X[0] = 1; X[4] = 1; X[8] = 1;
  return X;
}

/** out = identity */
export function xIdentity(out: Float64Array): Float64Array {
  out.fill(0);
  out[0] = 1; out[4] = 1; out[8] = 1;
  return out;
}

/** out = X from rotation E (A→B coordinates, row-major) and translation r (B origin in A). */
export function xFromRotTrans(out: Float64Array, E: ArrayLike<number>, r: ArrayLike<number>): Float64Array {
  for (let k = 0; k < 9; k++) out[k] = E[k];
  out[9] = r[0]; out[10] = r[1]; out[11] = r[2];
  return out;
}

/**
 * out = ᶜX_A = ᶜX_B ᴮX_A: E = E_CB E_BA, r = r_BA + E_BAᵀ r_CB. (RBDA Table 2.5, "X1 X2")
 * 36 mul, 27 add. Safe when out aliases either input.
 */
export function xCompose(out: Float64Array, XCB: Float64Array, XBA: Float64Array, fl: Flops): Float64Array {
  const a0 = XCB[0], a1 = XCB[1], a2 = XCB[2], a3 = XCB[3], a4 = XCB[4], a5 = XCB[5], a6 = XCB[6], a7 = XCB[7], a8 = XCB[8];
  const pr0 = XCB[9], pr1 = XCB[10], pr2 = XCB[11];
  const b0 = XBA[0], b1 = XBA[1], b2 = XBA[2], b3 = XBA[3], b4 = XBA[4], b5 = XBA[5], b6 = XBA[6], b7 = XBA[7], b8 = XBA[8];
  const r0 = XBA[9], r1 = XBA[10], r2 = XBA[11];
  out[0] = a0 * b0 + a1 * b3 + a2 * b6; out[1] = a0 * b1 + a1 * b4 + a2 * b7; out[2] = a0 * b2 + a1 * b5 + a2 * b8;
  out[3] = a3 * b0 + a4 * b3 + a5 * b6; out[4] = a3 * b1 + a4 * b4 + a5 * b7; out[5] = a3 * b2 + a4 * b5 + a5 * b8;
  out[6] = a6 * b0 + a7 * b3 + a8 * b6; out[7] = a6 * b1 + a7 * b4 + a8 * b7; out[8] = a6 * b2 + a7 * b5 + a8 * b8;
  out[9] = r0 + b0 * pr0 + b3 * pr1 + b6 * pr2;
  out[10] = r1 + b1 * pr0 + b4 * pr1 + b7 * pr2;
  out[11] = r2 + b2 * pr0 + b5 * pr1 + b8 * pr2;
  fl.mul += 36; fl.add += 27;
  return out;
}

/** out = ᴬX_B = (ᴮX_A)⁻¹: E' = Eᵀ, r' = −E r. 9 mul, 6 add. Safe when out aliases X. */
export function xInverse(out: Float64Array, X: Float64Array, fl: Flops): Float64Array {
  const e0 = X[0], e1 = X[1], e2 = X[2], e3 = X[3], e4 = X[4], e5 = X[5], e6 = X[6], e7 = X[7], e8 = X[8];
  const r0 = X[9], r1 = X[10], r2 = X[11];
  out[0] = e0; out[1] = e3; out[2] = e6;
  out[3] = e1; out[4] = e4; out[5] = e7;
  out[6] = e2; out[7] = e5; out[8] = e8;
  out[9] = -(e0 * r0 + e1 * r1 + e2 * r2);
  out[10] = -(e3 * r0 + e4 * r1 + e5 * r2);
  out[11] = -(e6 * r0 + e7 * r1 + e8 * r2);
  fl.mul += 9; fl.add += 6;
  return out;
}

/** out = X m (motion, A→B): ω' = E ω, v' = E (v − r × ω). 24 mul, 18 add. */
export function xApplyMotion(out: Float64Array, X: Float64Array, m: Float64Array, fl: Flops): Float64Array {
  const wx = m[0], wy = m[1], wz = m[2];
  const r0 = X[9], r1 = X[10], r2 = X[11];
  const tx = m[3] - (r1 * wz - r2 * wy);
  const ty = m[4] - (r2 * wx - r0 * wz);
  const tz = m[5] - (r0 * wy - r1 * wx);
  out[0] = X[0] * wx + X[1] * wy + X[2] * wz;
  out[1] = X[3] * wx + X[4] * wy + X[5] * wz;
  out[2] = X[6] * wx + X[7] * wy + X[8] * wz;
  out[3] = X[0] * tx + X[1] * ty + X[2] * tz;
  out[4] = X[3] * tx + X[4] * ty + X[5] * tz;
  out[5] = X[6] * tx + X[7] * ty + X[8] * tz;
  fl.mul += 24; fl.add += 18;
  return out;
}

/** out = X⁻¹ m (motion, B→A): ω = Eᵀ ω', v = Eᵀ v' + r × ω. 24 mul, 18 add. */
export function xInvApplyMotion(out: Float64Array, X: Float64Array, m: Float64Array, fl: Flops): Float64Array {
  const a0 = m[0], a1 = m[1], a2 = m[2], b0 = m[3], b1 = m[4], b2 = m[5];
  const wx = X[0] * a0 + X[3] * a1 + X[6] * a2;
  const wy = X[1] * a0 + X[4] * a1 + X[7] * a2;
  const wz = X[2] * a0 + X[5] * a1 + X[8] * a2;
  const r0 = X[9], r1 = X[10], r2 = X[11];
  out[0] = wx; out[1] = wy; out[2] = wz;
  out[3] = X[0] * b0 + X[3] * b1 + X[6] * b2 + (r1 * wz - r2 * wy);
  out[4] = X[1] * b0 + X[4] * b1 + X[7] * b2 + (r2 * wx - r0 * wz);
  out[5] = X[2] * b0 + X[5] * b1 + X[8] * b2 + (r0 * wy - r1 * wx);
  fl.mul += 24; fl.add += 18;
  return out;
}

/** out = X* f (force, A→B): n' = E (n − r × f), f' = E f. 24 mul, 18 add. */
export function xApplyForce(out: Float64Array, X: Float64Array, f: Float64Array, fl: Flops): Float64Array {
  const fx = f[3], fy = f[4], fz = f[5];
  const r0 = X[9], r1 = X[10], r2 = X[11];
  const tx = f[0] - (r1 * fz - r2 * fy);
  const ty = f[1] - (r2 * fx - r0 * fz);
  const tz = f[2] - (r0 * fy - r1 * fx);
  out[0] = X[0] * tx + X[1] * ty + X[2] * tz;
  out[1] = X[3] * tx + X[4] * ty + X[5] * tz;
  out[2] = X[6] * tx + X[7] * ty + X[8] * tz;
  out[3] = X[0] * fx + X[1] * fy + X[2] * fz;
  out[4] = X[3] * fx + X[4] * fy + X[5] * fz;
  out[5] = X[6] * fx + X[7] * fy + X[8] * fz;
  fl.mul += 24; fl.add += 18;
  return out;
}

/**
 * out = Xᵀ f = ᴬX*_B f (force, B→A; e.g. a child's wrench expressed in its parent):
 * f = Eᵀ f', n = Eᵀ n' + r × f. 24 mul, 18 add.
 */
export function xTransposeApplyForce(out: Float64Array, X: Float64Array, f: Float64Array, fl: Flops): Float64Array {
  const a0 = f[0], a1 = f[1], a2 = f[2], b0 = f[3], b1 = f[4], b2 = f[5];
  const fx = X[0] * b0 + X[3] * b1 + X[6] * b2;
  const fy = X[1] * b0 + X[4] * b1 + X[7] * b2;
  const fz = X[2] * b0 + X[5] * b1 + X[8] * b2;
  const r0 = X[9], r1 = X[10], r2 = X[11];
  out[0] = X[0] * a0 + X[3] * a1 + X[6] * a2 + (r1 * fz - r2 * fy);
  out[1] = X[1] * a0 + X[4] * a1 + X[7] * a2 + (r2 * fx - r0 * fz);
  out[2] = X[2] * a0 + X[5] * a1 + X[8] * a2 + (r0 * fy - r1 * fx);
  out[3] = fx; out[4] = fy; out[5] = fz;
  fl.mul += 24; fl.add += 18;
  return out;
}

/** out += Xᵀ f (accumulating form of xTransposeApplyForce). 24 mul, 24 add. */
export function xTransposeApplyForceAdd(out: Float64Array, X: Float64Array, f: Float64Array, fl: Flops): Float64Array {
  const a0 = f[0], a1 = f[1], a2 = f[2], b0 = f[3], b1 = f[4], b2 = f[5];
  const fx = X[0] * b0 + X[3] * b1 + X[6] * b2;
  const fy = X[1] * b0 + X[4] * b1 + X[7] * b2;
  const fz = X[2] * b0 + X[5] * b1 + X[8] * b2;
  const r0 = X[9], r1 = X[10], r2 = X[11];
  out[0] += X[0] * a0 + X[3] * a1 + X[6] * a2 + (r1 * fz - r2 * fy);
  out[1] += X[1] * a0 + X[4] * a1 + X[7] * a2 + (r2 * fx - r0 * fz);
  out[2] += X[2] * a0 + X[5] * a1 + X[8] * a2 + (r0 * fy - r1 * fx);
  out[3] += fx; out[4] += fy; out[5] += fz;
  fl.mul += 24; fl.add += 24;
  return out;
}

/** Dense 6×6 motion matrix of X, row-major (reference checks and pattern derivation only). */
export function xToMatrix(out: Float64Array, X: Float64Array): Float64Array {
  out.fill(0);
  const r0 = X[9], r1 = X[10], r2 = X[11];
  for (let i = 0; i < 3; i++) {
    const e0 = X[3 * i], e1 = X[3 * i + 1], e2 = X[3 * i + 2];
    for (let j = 0; j < 3; j++) {
      out[6 * i + j] = X[3 * i + j];
      out[6 * (i + 3) + j + 3] = X[3 * i + j];
    }
    // −E r×: row i of E times the columns of r× = [[0,−r2,r1],[r2,0,−r0],[−r1,r0,0]], negated.
    out[6 * (i + 3) + 0] = -(e1 * r2 - e2 * r1);
    out[6 * (i + 3) + 1] = -(-e0 * r2 + e2 * r0);
    out[6 * (i + 3) + 2] = -(e0 * r1 - e1 * r0);
  }
  return out;
}
