/**
 * Products with a joint's motion subspace S (6×nv, column-major, constant in the body frame),
 * skipping its structural zeros and multiplications by an exact ±1 (counted accordingly).
 * RBDA §3.5: S q̇ (joint velocity), Sᵀ f (generalized force), I S (ABA/CRBA).
 */
import type { Flops } from '../spatial/flops.ts';

/** out += S x[ix .. ix+nv). */
export function addSx(out: Float64Array, S: Float64Array, nv: number, x: ArrayLike<number>, ix: number, fl: Flops): void {
  for (let k = 0; k < nv; k++) {
    const xk = x[ix + k];
    const o = 6 * k;
    for (let r = 0; r < 6; r++) {
      const s = S[o + r];
      if (s === 0) continue;
      if (s === 1) out[r] += xk;
      else if (s === -1) out[r] -= xk;
      else { out[r] += s * xk; fl.mul++; }
      fl.add++;
    }
  }
}

/** out = S x[ix .. ix+nv). */
export function setSx(out: Float64Array, S: Float64Array, nv: number, x: ArrayLike<number>, ix: number, fl: Flops): void {
  out.fill(0);
  for (let k = 0; k < nv; k++) {
    const xk = x[ix + k];
    const o = 6 * k;
    for (let r = 0; r < 6; r++) {
      const s = S[o + r];
      if (s === 0) continue;
      if (k > 0 && out[r] !== 0) fl.add++;
      if (s === 1) out[r] += xk;
      else if (s === -1) out[r] -= xk;
      else { out[r] += s * xk; fl.mul++; }
    }
  }
}

/** y[iy + k] = S_kᵀ f for k < nv (generalized force of a wrench). */
export function setSTf(y: Float64Array, iy: number, S: Float64Array, nv: number, f: Float64Array, fl: Flops): void {
  for (let k = 0; k < nv; k++) {
    const o = 6 * k;
    let acc = 0;
    let terms = 0;
    for (let r = 0; r < 6; r++) {
      const s = S[o + r];
      if (s === 0) continue;
      if (s === 1) acc += f[r];
      else if (s === -1) acc -= f[r];
      else { acc += s * f[r]; fl.mul++; }
      terms++;
    }
    if (terms > 1) fl.add += terms - 1;
    y[iy + k] = acc;
  }
}

/** U = M S for a dense 6×6 M (row-major); U is 6×nv column-major. */
export function setMS(U: Float64Array, M: Float64Array, S: Float64Array, nv: number, fl: Flops): void {
  for (let k = 0; k < nv; k++) {
    const o = 6 * k;
    for (let r = 0; r < 6; r++) {
      let acc = 0;
      let terms = 0;
      for (let c = 0; c < 6; c++) {
        const s = S[o + c];
        if (s === 0) continue;
        if (s === 1) acc += M[6 * r + c];
        else if (s === -1) acc -= M[6 * r + c];
        else { acc += M[6 * r + c] * s; fl.mul++; }
        terms++;
      }
      if (terms > 1) fl.add += terms - 1;
      U[o + r] = acc;
    }
  }
}

/** D = Sᵀ U (nv×nv row-major) for U = M S (6×nv column-major). */
export function setSTU(D: Float64Array, S: Float64Array, U: Float64Array, nv: number, fl: Flops): void {
  for (let a = 0; a < nv; a++) {
    for (let b = 0; b < nv; b++) {
      let acc = 0;
      let terms = 0;
      for (let r = 0; r < 6; r++) {
        const s = S[6 * a + r];
        if (s === 0) continue;
        if (s === 1) acc += U[6 * b + r];
        else if (s === -1) acc -= U[6 * b + r];
        else { acc += s * U[6 * b + r]; fl.mul++; }
        terms++;
      }
      if (terms > 1) fl.add += terms - 1;
      D[nv * a + b] = acc;
    }
  }
}
