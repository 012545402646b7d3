/**
 * Rigid-body spatial inertia stored as 10 numbers about the frame origin, and articulated
 * (general symmetric) inertias as dense 6×6. RBDA §2.13 eq. (2.62)–(2.63); Nori (2017) footnote 2:
 *
 *   I = [Ī  h×; h×ᵀ  m 1],   h = m c,   Ī = I_C − m c× c×   (inertia about the origin).
 *
 * Layout of a rigid inertia (Float64Array(10)): [m, hx, hy, hz, Ixx, Ixy, Ixz, Iyy, Iyz, Izz]
 * (Ī about the frame origin, in frame axes). Product with a motion [ω; v]:
 *   n = Ī ω + h × v,  f = m v − h × ω.
 */
import type { Flops } from './flops.ts';

/** I from mass m, centre of mass c and rotational inertia Ic about the centre of mass (frame axes). */
export function inertiaFromMassComInertia(
  out: Float64Array, m: number, c: ArrayLike<number>,
  Ixx: number, Ixy: number, Ixz: number, Iyy: number, Iyz: number, Izz: number,
): Float64Array {
  const cx = c[0], cy = c[1], cz = c[2];
  out[0] = m; out[1] = m * cx; out[2] = m * cy; out[3] = m * cz;
  // Ī = Ic + m (cᵀc 1 − c cᵀ)   (parallel-axis theorem)
  out[4] = Ixx + m * (cy * cy + cz * cz);
  out[5] = Ixy - m * cx * cy;
  out[6] = Ixz - m * cx * cz;
  out[7] = Iyy + m * (cx * cx + cz * cz);
  out[8] = Iyz - m * cy * cz;
  out[9] = Izz + m * (cx * cx + cy * cy);
  return out;
}

/** out = I m (rigid inertia times motion). 24 mul, 18 add. */
export function inertiaMulMotion(out: Float64Array, I: Float64Array, mv: Float64Array, fl: Flops): Float64Array {
  const m = I[0], hx = I[1], hy = I[2], hz = I[3];
  const w0 = mv[0], w1 = mv[1], w2 = mv[2], v0 = mv[3], v1 = mv[4], v2 = mv[5];
  out[0] = I[4] * w0 + I[5] * w1 + I[6] * w2 + (hy * v2 - hz * v1);
  out[1] = I[5] * w0 + I[7] * w1 + I[8] * w2 + (hz * v0 - hx * v2);
  out[2] = I[6] * w0 + I[8] * w1 + I[9] * w2 + (hx * v1 - hy * v0);
  out[3] = m * v0 - (hy * w2 - hz * w1);
  out[4] = m * v1 - (hz * w0 - hx * w2);
  out[5] = m * v2 - (hx * w1 - hy * w0);
  fl.mul += 24; fl.add += 18;
  return out;
}

/** out = a + b (rigid inertias). 10 add. Safe when aliased. */
export function inertiaAdd(out: Float64Array, a: Float64Array, b: Float64Array, fl: Flops): Float64Array {
  for (let k = 0; k < 10; k++) out[k] = a[k] + b[k];
  fl.add += 10;
  return out;
}

/**
 * out = Xᵀ I X: a rigid inertia given in B coordinates expressed in A coordinates, for
 * X = ᴮX_A = (E, r) (RBDA Table 2.5, "Xᵀ I X"). With h' = Eᵀ h and Ī' = Eᵀ Ī E:
 *   m_A = m,  h_A = h' + m r,  Ī_A = Ī' − (r×h'× + h'×r×) − m r×r×.
 * Uses a×b× = b aᵀ − (a·b) 1. Safe when out aliases I. 83 mul, 62 add; for a massless I (m = 0
 * exactly, e.g. an inertia rate) the mass terms are skipped: 70 mul, 50 add.
 */
export function inertiaTransformToParent(out: Float64Array, X: Float64Array, I: Float64Array, fl: Flops): Float64Array {
  const m = I[0];
  const e0 = X[0], e1 = X[1], e2 = X[2], e3 = X[3], e4 = X[4], e5 = X[5], e6 = X[6], e7 = X[7], e8 = X[8];
  const r0 = X[9], r1 = X[10], r2 = X[11];
  const h0 = I[1], h1 = I[2], h2 = I[3];
  // h' = Eᵀ h
  const g0 = e0 * h0 + e3 * h1 + e6 * h2;
  const g1 = e1 * h0 + e4 * h1 + e7 * h2;
  const g2 = e2 * h0 + e5 * h1 + e8 * h2;
  // Ī' = Eᵀ Ī E = Eᵀ (Ī E): first T = Ī E (27 mul, 18 add), then Eᵀ T upper triangle (18 mul, 12 add)
  const s0 = I[4], s1 = I[5], s2 = I[6], s3 = I[7], s4 = I[8], s5 = I[9];
  const t00 = s0 * e0 + s1 * e3 + s2 * e6, t01 = s0 * e1 + s1 * e4 + s2 * e7, t02 = s0 * e2 + s1 * e5 + s2 * e8;
  const t10 = s1 * e0 + s3 * e3 + s4 * e6, t11 = s1 * e1 + s3 * e4 + s4 * e7, t12 = s1 * e2 + s3 * e5 + s4 * e8;
  const t20 = s2 * e0 + s4 * e3 + s5 * e6, t21 = s2 * e1 + s4 * e4 + s5 * e7, t22 = s2 * e2 + s4 * e5 + s5 * e8;
  const j00 = e0 * t00 + e3 * t10 + e6 * t20;
  const j01 = e0 * t01 + e3 * t11 + e6 * t21;
  const j02 = e0 * t02 + e3 * t12 + e6 * t22;
  const j11 = e1 * t01 + e4 * t11 + e7 * t21;
  const j12 = e1 * t02 + e4 * t12 + e7 * t22;
  const j22 = e2 * t02 + e5 * t12 + e8 * t22;
  // −(r×h'× + h'×r×) = 2 (r·h') 1 − (h' rᵀ + r h'ᵀ);  −m r×r× = m (r·r 1 − r rᵀ)
  const rh = r0 * g0 + r1 * g1 + r2 * g2;
  if (m === 0) {
    // a massless inertia (an inertia rate in the derivatives): the mass terms vanish and are skipped
    const d0 = 2 * rh;
    out[0] = 0;
    out[1] = g0; out[2] = g1; out[3] = g2;
    out[4] = j00 + d0 - 2 * g0 * r0;
    out[5] = j01 - (g0 * r1 + r0 * g1);
    out[6] = j02 - (g0 * r2 + r0 * g2);
    out[7] = j11 + d0 - 2 * g1 * r1;
    out[8] = j12 - (g1 * r2 + r1 * g2);
    out[9] = j22 + d0 - 2 * g2 * r2;
    fl.mul += 70; fl.add += 50;
    return out;
  }
  const mr0 = m * r0, mr1 = m * r1, mr2 = m * r2;
  const rr = r0 * r0 + r1 * r1 + r2 * r2;
  const d = 2 * rh + m * rr;
  out[0] = m;
  out[1] = g0 + mr0; out[2] = g1 + mr1; out[3] = g2 + mr2;
  out[4] = j00 + d - 2 * g0 * r0 - mr0 * r0;
  out[5] = j01 - (g0 * r1 + r0 * g1) - mr0 * r1;
  out[6] = j02 - (g0 * r2 + r0 * g2) - mr0 * r2;
  out[7] = j11 + d - 2 * g1 * r1 - mr1 * r1;
  out[8] = j12 - (g1 * r2 + r1 * g2) - mr1 * r2;
  out[9] = j22 + d - 2 * g2 * r2 - mr2 * r2;
  fl.mul += 83; fl.add += 62;
  return out;
}

/** out (6×6 row-major) = dense matrix of the rigid inertia I. */
export function inertiaToMatrix(out: Float64Array, I: ArrayLike<number>): Float64Array {
  const m = I[0], hx = I[1], hy = I[2], hz = I[3];
  out.fill(0);
  out[0] = I[4]; out[1] = I[5]; out[2] = I[6];
  out[6] = I[5]; out[7] = I[7]; out[8] = I[8];
  out[12] = I[6]; out[13] = I[8]; out[14] = I[9];
  // upper-right h× = [[0,−hz,hy],[hz,0,−hx],[−hy,hx,0]]
  out[4] = -hz; out[5] = hy; out[9] = hz; out[11] = -hx; out[15] = -hy; out[16] = hx;
  // lower-left h×ᵀ = −h×
  out[19] = hz; out[20] = -hy; out[24] = -hz; out[26] = hx; out[30] = hy; out[31] = -hx;
  out[21] = m; out[28] = m; out[35] = m;
  return out;
}
