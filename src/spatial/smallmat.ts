/**
 * Small dense symmetric positive-definite matrices (n ≤ 6, row-major): in-place Cholesky and
 * inverse, for the joint-space blocks D_i = S_iᵀ I^A_i S_i of multi-DoF joints (RBDA Table 7.1).
 */
import type { Flops } from './flops.ts';

/** Invert the SPD n×n matrix A in place (Cholesky A = L Lᵀ, then A⁻¹ = L⁻ᵀ L⁻¹). `w` holds ≥ n·n scratch. Returns false if A is not positive definite. */
export function spdInvertInPlace(A: Float64Array, n: number, w: Float64Array, fl: Flops): boolean {
  if (n === 1) {
    if (!(A[0] > 0)) return false;
    A[0] = 1 / A[0];
    fl.div++;
    return true;
  }
  // L in w (lower), row-major
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let s = A[n * i + j];
      for (let k = 0; k < j; k++) { s -= w[n * i + k] * w[n * j + k]; fl.mul++; fl.add++; }
      if (i === j) {
        if (!(s > 0)) return false;
        w[n * i + i] = Math.sqrt(s); fl.fn++;
      } else {
        w[n * i + j] = s / w[n * j + j]; fl.div++;
      }
    }
  }
  // L⁻¹ in place (lower triangular inverse), stored back into w
  for (let i = 0; i < n; i++) {
    w[n * i + i] = 1 / w[n * i + i]; fl.div++;
    for (let j = 0; j < i; j++) {
      let s = 0;
      for (let k = j; k < i; k++) { s += w[n * i + k] * w[n * k + j]; fl.mul++; if (k > j) fl.add++; }
      // row i uses the not-yet-inverted L_ik (k < i) and already inverted (L⁻¹)_kj
      w[n * i + j] = -s * w[n * i + i]; fl.mul++;
    }
  }
  // A⁻¹ = L⁻ᵀ L⁻¹ : (A⁻¹)_ij = Σ_{k ≥ max(i,j)} (L⁻¹)_ki (L⁻¹)_kj
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let s = 0;
      for (let k = i; k < n; k++) { s += w[n * k + i] * w[n * k + j]; fl.mul++; if (k > i) fl.add++; }
      A[n * i + j] = s;
      A[n * j + i] = s;
    }
  }
  return true;
}

/**
 * UD = U D⁻¹: U is 6×n column-major (the articulated-body U_i = I^A_i S_i), Dinv n×n (D_i⁻¹,
 * symmetric); UD 6×n column-major. 6n² mul, 6n(n − 1) add, counted.
 */
export function mulUDinv(UD: Float64Array, U: Float64Array, Dinv: Float64Array, n: number, fl: Flops): void {
  for (let b = 0; b < n; b++) {
    for (let r = 0; r < 6; r++) {
      let acc = 0;
      for (let c = 0; c < n; c++) acc += U[6 * c + r] * Dinv[n * c + b];
      UD[6 * b + r] = acc;
    }
  }
  fl.mul += 6 * n * n; fl.add += 6 * n * (n - 1);
}
