/**
 * (w1, w2) = fit(t, at): local polynomial least squares (Savitzky–Golay filters, A. Savitzky and
 * M. J. E. Golay, "Smoothing and differentiation of data by simplified least squares procedures",
 * 1964) on time stamps that need not be even. A polynomial of degree `order` is fitted to the
 * samples (t_k, y_k) of a window by least squares; its derivatives at `at` are linear in the y_k:
 *   ẏ(at) ≈ Σ_k w1_k y_k,   ÿ(at) ≈ Σ_k w2_k y_k.
 * The weights come from the normal equations of the fit (VᵀV, at most 6×6, by Cholesky), with the
 * polynomial written about the window's middle so that they stay well conditioned. On even stamps
 * and a centred window these are the classical Savitzky–Golay coefficients; at the ends of a log
 * the same fit over the window nearest the end gives the derivatives there (an asymmetric window,
 * larger noise gain). Noise: with independent readings of standard deviation σ,
 * var(ẏ) = σ² Σ w1², var(ÿ) = σ² Σ w2².
 *
 * Written here rather than taken from a library: the numerical libraries on npm (ml-matrix, mathjs)
 * allocate a matrix per call and know no uneven stamps; this runs once per sample with its own
 * scratch and allocates nothing.
 */

/** Largest polynomial order of a fit. */
export const MAX_FIT_ORDER = 5;

/** Local polynomial fits of one order over windows of at most `capacity` samples; allocation-free. */
export class LocalPolyFit {
  /** weights of the first derivative at the fit's point, per sample of the window (the first `n` entries) */
  readonly w1: Float64Array;
  /** weights of the second derivative */
  readonly w2: Float64Array;
  /** samples of the last fit */
  n = 0;
  /** the normal matrix M = VᵀV (row-major, (order + 1)²), overwritten by its Cholesky factor */
  private readonly M: Float64Array;
  /** moments Σ τ^m, m = 0 … 2·order */
  private readonly S: Float64Array;
  /** right-hand sides and solutions: g1 (first derivative), g2 (second) */
  private readonly g1: Float64Array;
  private readonly g2: Float64Array;
  private readonly cols: number;

  constructor(readonly capacity: number, readonly order: number) {
    if (!(Number.isInteger(order) && order >= 2 && order <= MAX_FIT_ORDER)) throw new RangeError(`the order of the polynomial fits must be a whole number from 2 to ${MAX_FIT_ORDER}, got ${order}`);
    if (!(Number.isInteger(capacity) && capacity > order)) throw new RangeError(`a fit of order ${order} needs windows of more than ${order} samples`);
    this.cols = order + 1;
    this.M = new Float64Array(this.cols * this.cols);
    this.S = new Float64Array(2 * order + 1);
    this.g1 = new Float64Array(this.cols);
    this.g2 = new Float64Array(this.cols);
    this.w1 = new Float64Array(capacity);
    this.w2 = new Float64Array(capacity);
  }

  /**
   * The weights (w1, w2) of the derivatives at time `at` from the `n` stamps t[from … from + n)
   * (n > order). Returns false when the stamps do not determine the fit (fewer distinct stamps than
   * order + 1, to working precision).
   *
   * The polynomial is written about the window's middle c, τ = (t − c)/h with h the half span, so
   * that |τ| ≤ 1 on both sides whatever `at` (the normal matrix is then as well conditioned at the
   * ends of a log as in its middle); its coefficients are M⁻¹ Vᵀ y with M = VᵀV, and the derivatives
   * at τ_a = (at − c)/h are g1ᵀ c / h and g2ᵀ c / h² with g1_j = j τ_a^(j−1), g2_j = j (j−1) τ_a^(j−2).
   * So w1_k = Σ_j z_j τ_k^j / h with M z = g1 (M is symmetric), and likewise w2.
   */
  fit(t: ArrayLike<number>, from: number, n: number, at: number): boolean {
    const d = this.cols, deg = this.order, M = this.M, S = this.S;
    if (n > this.capacity || n < d) throw new RangeError(`a window of ${n} samples for fits of order ${deg} (at most ${this.capacity}, at least ${d})`);
    this.n = n;
    const lo = t[from], hi = t[from + n - 1];
    const c = 0.5 * (lo + hi), h = 0.5 * (hi - lo);
    if (!(h > 0)) return false;
    const inv = 1 / h;
    // the moments Σ τ^m, m ≤ 2·order ≤ 10, in registers
    let s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0, s8 = 0, s9 = 0, s10 = 0;
    for (let k = 0; k < n; k++) {
      const x = (t[from + k] - c) * inv, x2 = x * x, x3 = x2 * x, x4 = x2 * x2, x5 = x4 * x;
      s1 += x; s2 += x2; s3 += x3; s4 += x4; s5 += x5;
      if (deg > 2) { const x6 = x3 * x3; s6 += x6; if (deg > 3) { const x7 = x6 * x, x8 = x4 * x4; s7 += x7; s8 += x8; if (deg > 4) { s9 += x8 * x; s10 += x5 * x5; } } }
    }
    S[0] = n; S[1] = s1; S[2] = s2; S[3] = s3; S[4] = s4;
    if (deg > 2) { S[5] = s5; S[6] = s6; }
    if (deg > 3) { S[7] = s7; S[8] = s8; }
    if (deg > 4) { S[9] = s9; S[10] = s10; }
    for (let i = 0; i < d; i++) for (let j = 0; j < d; j++) M[i * d + j] = S[i + j];
    // Cholesky, M = L Lᵀ (L in the lower triangle)
    for (let j = 0; j < d; j++) {
      let s = M[j * d + j];
      for (let k = 0; k < j; k++) s -= M[j * d + k] * M[j * d + k];
      if (!(s > 1e-13 * S[0])) return false;
      const l = Math.sqrt(s);
      M[j * d + j] = l;
      for (let i = j + 1; i < d; i++) {
        let a = M[i * d + j];
        for (let k = 0; k < j; k++) a -= M[i * d + k] * M[j * d + k];
        M[i * d + j] = a / l;
      }
    }
    const ta = (at - c) * inv, g1 = this.g1, g2 = this.g2;
    g1.fill(0);
    g2.fill(0);
    // g1_j = j τ_a^(j−1), g2_j = j (j−1) τ_a^(j−2), by powers of τ_a
    let pw = 1;
    for (let j = 1; j < d; j++) { g1[j] = j * pw; pw *= ta; }
    pw = 1;
    for (let j = 2; j < d; j++) { g2[j] = j * (j - 1) * pw; pw *= ta; }
    this.solve(g1);
    this.solve(g2);
    const w1 = this.w1, w2 = this.w2, sc1 = inv, sc2 = inv * inv;
    for (let k = 0; k < n; k++) {
      const tau = (t[from + k] - c) * inv;
      // Horner: Σ_j z_j τ^j
      let a = g1[deg], b = g2[deg];
      for (let j = deg - 1; j >= 0; j--) { a = a * tau + g1[j]; b = b * tau + g2[j]; }
      w1[k] = a * sc1;
      w2[k] = b * sc2;
    }
    return true;
  }

  /** x ← M⁻¹ x with the Cholesky factor in M's lower triangle (forward, then back substitution) */
  private solve(x: Float64Array): void {
    const d = this.cols, L = this.M;
    for (let i = 0; i < d; i++) {
      let s = x[i];
      for (let k = 0; k < i; k++) s -= L[i * d + k] * x[k];
      x[i] = s / L[i * d + i];
    }
    for (let i = d - 1; i >= 0; i--) {
      let s = x[i];
      for (let k = i + 1; k < d; k++) s -= L[k * d + i] * x[k];
      x[i] = s / L[i * d + i];
    }
  }
}

/** Σ w_k², the noise gain of a weight vector's first n entries. */
export function noiseGain(w: Float64Array, n: number): number {
  let s = 0;
  for (let k = 0; k < n; k++) s += w[k] * w[k];
  return s;
}

/**
 * The samples of a fit window for a sample rate: `window` (s) when given, the span of the fit (an
 * odd number of samples, at least order + 2); else chosen for a cut-off frequency `bandwidth` (Hz)
 * by R. W. Schafer's approximation of a Savitzky–Golay filter's cut-off ("What is a Savitzky–Golay
 * filter?", 2011): f_c ≈ (order + 1) f_s / (3.2 n − 4.6).
 */
export function windowSamples(period: number, order: number, opts: { window?: number; bandwidth: number }): number {
  const n = opts.window !== undefined
    ? Math.round(opts.window / period) + 1
    : Math.round(((order + 1) / (period * opts.bandwidth) + 4.6) / 3.2);
  let odd = n % 2 === 0 ? n + 1 : n;
  if (odd < order + 2) odd = order + 2 + ((order + 2) % 2 === 0 ? 1 : 0);
  return odd;
}
