/**
 * [λ, V] = eig(A) of a small dense symmetric matrix (the 3×3 rotational inertias, a joint's nv×nv
 * D = Sᵀ I^A S): cyclic Jacobi rotations, Golub & Van Loan, "Matrix Computations", 4th ed., §8.5.2
 * (Algorithms 8.5.1 sym.schur2 and 8.5.3, cyclic by rows). A = V diag(λ) Vᵀ, λ ascending, V's
 * columns the unit eigenvectors. Jacobi's method is accurate for symmetric matrices (small
 * eigenvalues to high relative accuracy when A is well scaled) and a few dozen lines, so the model
 * checks need no linear-algebra package (a URDF + RNEA bundle stays small).
 */

/** Off-diagonal mass (sum of squares) relative to the whole below which the sweeps stop. */
const OFF_RTOL = 1e-34;
/** Sweeps at most (quadratic convergence: 5 to 10 are enough for n ≤ 6). */
const MAX_SWEEPS = 60;

/**
 * Eigenvalues (ascending) and eigenvectors of the symmetric matrix A (n×n, rows as arrays; its
 * upper triangle is read). `vectors[k][e]` is component k of the eigenvector of `values[e]`.
 * An eigenvalue within the decomposition's rounding (|λ| ≤ 4 n ε max|λ|) is returned as 0; entries
 * that are not finite give NaN eigenvalues.
 */
export function symmetricEigen(A: readonly (readonly number[])[]): { values: number[]; vectors: number[][] } {
  const n = A.length;
  const a = new Float64Array(n * n), v = new Float64Array(n * n);
  for (let r = 0; r < n; r++) for (let c = 0; c < n; c++) a[r * n + c] = c >= r ? A[r][c] : A[c][r];
  if (!a.every(Number.isFinite)) return { values: A.map(() => NaN), vectors: A.map((_, r) => A.map((__, c) => (r === c ? 1 : 0))) };
  symmetricEigenInPlace(n, a, v);
  const order = Array.from({ length: n }, (_, k) => k).sort((x, y) => a[x * n + x] - a[y * n + y]);
  // eigenvalues within the rounding of the decomposition (4 n ε of the largest |λ|) are zero: their sign is noise
  const big = Math.max(...order.map((k) => Math.abs(a[k * n + k])));
  const values = order.map((k) => (Math.abs(a[k * n + k]) <= 4 * n * Number.EPSILON * big ? 0 : a[k * n + k]));
  return { values, vectors: Array.from({ length: n }, (_, r) => order.map((k) => v[r * n + k])) };
}

/**
 * The same cyclic Jacobi sweeps on n×n row-major arrays, allocating nothing: `a` (symmetric, both
 * triangles filled, finite) is overwritten, its diagonal left holding the eigenvalues (unsorted, as
 * the sweeps leave them), and `v` (n×n) receives the eigenvectors as columns (`v[k·n + e]`).
 */
export function symmetricEigenInPlace(n: number, a: Float64Array, v: Float64Array): void {
  v.fill(0, 0, n * n);
  for (let k = 0; k < n; k++) v[k * n + k] = 1;
  for (let sweep = 0; sweep < MAX_SWEEPS; sweep++) {
    let off = 0, all = 0;
    for (let p = 0; p < n; p++) {
      all += a[p * n + p] * a[p * n + p];
      for (let q = p + 1; q < n; q++) { off += a[p * n + q] * a[p * n + q]; all += 2 * a[p * n + q] * a[p * n + q]; }
    }
    if (off <= OFF_RTOL * all) break;
    for (let p = 0; p < n - 1; p++) {
      for (let q = p + 1; q < n; q++) {
        const apq = a[p * n + q];
        if (apq === 0) continue;
        // sym.schur2: c, s with [c s; −s c]ᵀ A([p q], [p q]) [c s; −s c] diagonal
        const tau = (a[q * n + q] - a[p * n + p]) / (2 * apq);
        const t = Math.abs(tau) > 1e150 ? 1 / (2 * tau) : (tau >= 0 ? 1 : -1) / (Math.abs(tau) + Math.sqrt(1 + tau * tau));
        const c = 1 / Math.sqrt(1 + t * t), s = t * c;
        // A ← Jᵀ A J: columns p and q, then rows p and q; V ← V J
        for (let k = 0; k < n; k++) {
          const akp = a[k * n + p], akq = a[k * n + q];
          a[k * n + p] = c * akp - s * akq; a[k * n + q] = s * akp + c * akq;
        }
        for (let k = 0; k < n; k++) {
          const apk = a[p * n + k], aqk = a[q * n + k];
          a[p * n + k] = c * apk - s * aqk; a[q * n + k] = s * apk + c * aqk;
        }
        for (let k = 0; k < n; k++) {
          const vkp = v[k * n + p], vkq = v[k * n + q];
          v[k * n + p] = c * vkp - s * vkq; v[k * n + q] = s * vkp + c * vkq;
        }
      }
    }
  }
}
