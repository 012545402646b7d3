/**
 * Spatial cross products. RBDA eq. (2.31)–(2.32); Nori (2017) §II:
 *   v× m  = [ω×ω_m; ω×v_m + v×ω_m]          (motion × motion)
 *   v×* f = [ω×n + v×f; ω×f]                  (motion ×* force)
 * Vectors are Float64Array(6), angular first. Output first, allocation free.
 */
import type { Flops } from './flops.ts';

/** out = v × m. 18 mul, 12 add. */
export function crossMotion(out: Float64Array, v: Float64Array, m: Float64Array, fl: Flops): Float64Array {
  const w0 = v[0], w1 = v[1], w2 = v[2], u0 = v[3], u1 = v[4], u2 = v[5];
  const a0 = m[0], a1 = m[1], a2 = m[2], b0 = m[3], b1 = m[4], b2 = m[5];
  out[0] = w1 * a2 - w2 * a1;
  out[1] = w2 * a0 - w0 * a2;
  out[2] = w0 * a1 - w1 * a0;
  out[3] = w1 * b2 - w2 * b1 + (u1 * a2 - u2 * a1);
  out[4] = w2 * b0 - w0 * b2 + (u2 * a0 - u0 * a2);
  out[5] = w0 * b1 - w1 * b0 + (u0 * a1 - u1 * a0);
  fl.mul += 18; fl.add += 12;
  return out;
}

/** out = v ×* f. 18 mul, 12 add. */
export function crossForce(out: Float64Array, v: Float64Array, f: Float64Array, fl: Flops): Float64Array {
  const w0 = v[0], w1 = v[1], w2 = v[2], u0 = v[3], u1 = v[4], u2 = v[5];
  const n0 = f[0], n1 = f[1], n2 = f[2], f0 = f[3], f1 = f[4], f2 = f[5];
  out[0] = w1 * n2 - w2 * n1 + (u1 * f2 - u2 * f1);
  out[1] = w2 * n0 - w0 * n2 + (u2 * f0 - u0 * f2);
  out[2] = w0 * n1 - w1 * n0 + (u0 * f1 - u1 * f0);
  out[3] = w1 * f2 - w2 * f1;
  out[4] = w2 * f0 - w0 * f2;
  out[5] = w0 * f1 - w1 * f0;
  fl.mul += 18; fl.add += 12;
  return out;
}

/** out = a + b (6-vectors). 6 add. */
export function add6(out: Float64Array, a: Float64Array, b: Float64Array, fl: Flops): Float64Array {
  for (let k = 0; k < 6; k++) out[k] = a[k] + b[k];
  fl.add += 6;
  return out;
}

/** out = a − b (6-vectors). 6 add. */
export function sub6(out: Float64Array, a: Float64Array, b: Float64Array, fl: Flops): Float64Array {
  for (let k = 0; k < 6; k++) out[k] = a[k] - b[k];
  fl.add += 6;
  return out;
}

/** Dense 6×6 matrix of v× (row-major), for reference checks. */
export function crossMotionMatrix(out: Float64Array, v: ArrayLike<number>): Float64Array {
  out.fill(0);
  const sk = (r: number, c: number, x: number, y: number, z: number) => {
    out[6 * r + c + 1] = -z; out[6 * r + c + 2] = y;
    out[6 * (r + 1) + c] = z; out[6 * (r + 1) + c + 2] = -x;
    out[6 * (r + 2) + c] = -y; out[6 * (r + 2) + c + 1] = x;
  };
  sk(0, 0, v[0], v[1], v[2]);
  sk(3, 3, v[0], v[1], v[2]);
  sk(3, 0, v[3], v[4], v[5]);
  return out;
}
