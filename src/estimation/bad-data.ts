/**
 * Bad-data detection and identification for redundant sensor layouts, as state estimation in power
 * systems does it (Abur & Expósito, "Power System State Estimation: Theory and Implementation",
 * 2004, ch. 5; Handschin, Schweppe, Kohlas & Fiechter, "Bad data analysis for power system state
 * estimation", IEEE Trans. PAS, 1975):
 *
 * 1. detection: J = Σ_r e_r² / V_r over the weighted rows (e = A d + b the residual, V the
 *    variances), χ²-distributed with m − n degrees of freedom when every reading is Gaussian with
 *    its stated variance; J above the χ² quantile at the chosen confidence flags the sample;
 * 2. identification: the largest normalized residual |e_r| / √Ω_rr, Ω = V − A Cov(d) Aᵀ the residual
 *    covariance, names the suspect reading. Ω comes from the sample's own factors of the augmented
 *    matrix K = [V A; Aᵀ 0]: Ω_rs = V_r V_s [K⁻¹]_rs (only when the test fires: one solve per
 *    reading, or m − n + 2 solves sketching the whole block when the readings are more: see
 *    identifySketched). A sensor's fault often moves several of its readings (a sign flip, swapped channels,
 *    a dead sensor), and the residuals of the others then smear onto readings of other sensors;
 *    so the suspect sensor is the one whose removal lowers J most for its degrees of freedom:
 *    ΔJ_S = e_Sᵀ Ω_SS⁺ e_S over its checkable readings S (χ²-distributed with |S| degrees of
 *    freedom without a fault: the hypothesis-testing identification of Mili and Van Cutsem,
 *    "Hypothesis testing identification", IEEE Trans. PWRS, 1986, applied to a sensor's block),
 *    compared across sensors by its p-value P(χ²_rank > ΔJ_S), rank that of Ω_SS (a sensor
 *    that can absorb every residual has no more than m − n), or by the p-value of its largest
 *    normalized residual when that is smaller: one reading off is best seen by the latter,
 *    several by the former. That p-value is the one of the largest of its k readings'
 *    (1 − (1 − p)^k, Šidák, p = P(χ²₁ > r_N²)): a sensor of many readings (the joint encoders) is
 *    not named for the chance that one of them reads high, where one reading of a sensor of few
 *    (a force/torque sensor, 6) explains the disagreement as well. Among the sensors within a
 *    factor e³ of the smallest p-value the suspect is the one of the smallest such p-value of its
 *    largest normalized residual. For sensors of one reading each this is the largest normalized
 *    residual test itself.
 *
 * A row with Ω_rr = 0 at every configuration is critical: its residual is always zero whatever its
 * reading, so an error on it cannot be seen; a sensor all of whose rows are critical cannot be
 * checked by this layout. That is found offline, once per layout, at random configurations.
 */
import { Matrix, SingularValueDecomposition } from 'ml-matrix';
import { Rng } from '../model/rng.ts';
import { symmetricEigenInPlace } from '../spatial/symmetric-eigen.ts';
import { trialConfigurations } from './analysis.ts';
import type { Estimator } from './estimator.ts';

/** ln Γ(x), x > 0 (Lanczos, g = 7, 9 terms: about 15 digits) */
function lnGamma(x: number): number {
  const c = [0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
    12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - lnGamma(1 - x);
  x -= 1;
  let a = c[0];
  const t = x + 7.5;
  for (let i = 1; i < 9; i++) a += c[i] / (x + i);
  return 0.5 * Math.log(2 * Math.PI) + (x + 0.5) * Math.log(t) - t + Math.log(a);
}

/** the regularized lower incomplete gamma function P(a, x) (series, or Lentz's continued fraction) */
function gammaP(a: number, x: number): number {
  if (x <= 0) return 0;
  if (x < a + 1) return gammaPSeries(a, x);
  return 1 - Math.exp(logGammaQFraction(a, x));
}

/** ln Q(a, x) = ln(1 − P(a, x)), accurate far in the tail (no underflow) */
function logGammaQ(a: number, x: number): number {
  if (x <= 0) return 0;
  return x < a + 1 ? Math.log1p(-gammaPSeries(a, x)) : logGammaQFraction(a, x);
}

/** P(a, x) by its series (x < a + 1) */
function gammaPSeries(a: number, x: number): number {
  const lg = -x + a * Math.log(x) - lnGamma(a);
  {
    let sum = 1 / a, term = sum;
    for (let n = 1; n < 1000; n++) {
      term *= x / (a + n);
      sum += term;
      if (Math.abs(term) < Math.abs(sum) * 1e-16) break;
    }
    return sum * Math.exp(lg);
  }
}

/** ln Q(a, x) by Lentz's continued fraction (x ≥ a + 1) */
function logGammaQFraction(a: number, x: number): number {
  const lg = -x + a * Math.log(x) - lnGamma(a);
  let b = x + 1 - a, c = 1e300, d = 1 / b, h = d;
  for (let i = 1; i < 1000; i++) {
    const an = -i * (i - a);
    b += 2;
    d = an * d + b; if (Math.abs(d) < 1e-300) d = 1e-300;
    c = b + an / c; if (Math.abs(c) < 1e-300) c = 1e-300;
    d = 1 / d;
    const del = d * c;
    h *= del;
    if (Math.abs(del - 1) < 1e-16) break;
  }
  return lg + Math.log(h);
}

/** ln P(χ²_k > x): the log of the upper tail (a p-value), finite however far in the tail */
export function logChiSquareTail(x: number, k: number): number {
  return logGammaQ(k / 2, x / 2);
}

/**
 * ln P(max of k independent statistics > x) = ln(1 − (1 − p)^k) from ln p, p = P(one statistic > x)
 * (Šidák's correction for k tests; ln k + ln p when k p is small)
 */
export function logLargestTail(logP: number, k: number): number {
  if (k <= 1) return logP;
  if (logP < Math.log(1e-10 / k)) return Math.log(k) + logP;
  return Math.log(-Math.expm1(k * Math.log1p(-Math.exp(logP))));
}

/** P(χ²_k ≤ x) */
export function chiSquareCdf(x: number, k: number): number {
  return gammaP(k / 2, x / 2);
}

/** The χ² quantile: the x with P(χ²_k ≤ x) = p (bisection on the CDF, to 1e-12 relative). */
export function chiSquareQuantile(p: number, k: number): number {
  if (!(p > 0 && p < 1) || !(k > 0)) throw new RangeError(`chiSquareQuantile: need 0 < p < 1 and k > 0 (got p = ${p}, k = ${k})`);
  let lo = 0, hi = Math.max(1, k);
  while (chiSquareCdf(hi, k) < p) hi *= 2;
  for (let i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
    const mid = 0.5 * (lo + hi);
    if (chiSquareCdf(mid, k) < p) lo = mid; else hi = mid;
  }
  return 0.5 * (lo + hi);
}

/** The outcome of one sample's test. */
export interface BadDataResult {
  /** J = Σ e²/V over the weighted rows */
  chi2: number;
  /** the χ² quantile J is compared with */
  threshold: number;
  /** J > threshold */
  detected: boolean;
  /** when detected: the sensor (or prior, soft constraint) of the largest normalized residual */
  suspect?: string;
  /** the largest normalized residual |e_r| / √Ω_rr */
  normalized?: number;
  /** the row (reading) it is on */
  row?: string;
  /** the suspect's ΔJ = e_Sᵀ Ω_SS⁺ e_S (drop of J without its readings) */
  sensorChi2?: number;
  /**
   * other sensors that explain the inconsistency about as well (p-value within a factor e³ of the
   * suspect's): the layout's redundancy cannot tell them apart in this sample, and the suspect
   * among them is the one whose largest normalized residual is the least likely for its number of
   * readings
   */
  alternatives?: string[];
  /**
   * the test could not be computed: J or a sensor's score is not finite (readings near the end of
   * double precision, e.g. 1e152, whose squares overflow); the sample is skipped with this reason
   */
  notFinite?: true;
}



/**
 * What a BadDataDetector learns offline, per weighted row (in the order of the layout's rows): whether
 * its residual can be nonzero (1) at some configuration tried, and its smallest Ω_rr / V_r there
 * (null: no configuration could be estimated). Plain JSON, part of a layout's offline work.
 */
export interface BadDataCalibration {
  canSee: number[];
  rho: (number | null)[];
}

/**
 * Bad-data test of one layout's estimator: offline, which rows and sensors can be checked (three
 * random configurations estimated, or `calibration` from another detector of the same layout); per
 * sample, the χ² test and, when it fires, the largest normalized residual. `test()` allocates
 * nothing but its result (and, when the test fires, the sensors' scores).
 */
export class BadDataDetector {
  /** degrees of freedom m − n (0 for a square layout: no test) */
  readonly dof: number;
  readonly threshold: number;
  /** weighted rows (variance > 0) and the block (sensor) of each */
  private readonly rows: Int32Array;
  private readonly rowBlock: string[];
  /** rows whose residual can be nonzero (Ω_rr > 0 at some configuration) */
  private readonly checkRows: Int32Array;
  /** sensors none of whose readings can be checked: their residual is always zero */
  readonly unchecked: string[];
  /** sensors that can be checked */
  readonly checked: string[];
  /**
   * per sensor that can be checked: the bias (in standard deviations of the reading) on its most
   * and least visible reading for which the expected normalized residual of that reading is 5,
   * 5 / √(Ω_rr / V_r) at the configurations tried (a single gross error b on row r leaves the
   * residual (Ω V⁻¹)_rr b, normalized b √Ω_rr / V_r); `Infinity` when a reading cannot be seen
   */
  readonly detectable: Map<string, { best: number; worst: number }>;
  private readonly omega: Float64Array;
  private readonly work: { X: Float64Array; B: Float64Array };

  /** the offline part, to build the same detector elsewhere (BadDataCalibration) */
  readonly calibration: BadDataCalibration;

  constructor(readonly est: Estimator, readonly confidence: number, calibration?: BadDataCalibration) {
    const sys = est.es.sys, V = est.rowVariance;
    this.dof = est.mode === 'wls' ? sys.m - sys.n : 0;
    this.threshold = this.dof > 0 ? chiSquareQuantile(confidence, this.dof) : Infinity;
    const rows: number[] = [], names: string[] = [];
    sys.blocks.forEach((blk, k) => {
      for (let r = 0; r < blk.rowNames.length; r++) {
        const row = sys.blockRow0[k] + r;
        if (V[row] > 0) { rows.push(row); names.push(blk.name); }
      }
    });
    this.rows = Int32Array.from(rows);
    this.rowBlock = names;
    const N = sys.m + sys.n;
    // critical rows: Ω_rr / V_r below 1e-9 at every random configuration tried
    const canSee = new Uint8Array(rows.length);
    const rho = new Float64Array(rows.length).fill(Infinity);
    if (calibration) {
      if (calibration.canSee.length !== rows.length || calibration.rho.length !== rows.length) throw new RangeError(`BadDataDetector: the calibration has ${calibration.canSee.length} rows, the layout ${rows.length}`);
      calibration.canSee.forEach((c, t) => { canSee[t] = c; });
      calibration.rho.forEach((r, t) => { rho[t] = r ?? Infinity; });
    } else if (this.dof > 0) {
      const work = { X: new Float64Array(N * rows.length), B: new Float64Array(N * rows.length) };
      const om = new Float64Array(rows.length);
      const model = est.es.model, v0 = new Float64Array(model.nv), y0 = new Float64Array(sys.ny);
      for (const c of trialConfigurations(model, 3, 0, 7)) {
        try {
          est.estimateUnchecked(c.q, v0, y0);
        } catch {
          continue;
        }
        est.residualVarianceDiag(rows, om, work);
        rows.forEach((r, t) => { if (om[t] > 1e-9 * V[r]) canSee[t] = 1; rho[t] = Math.min(rho[t], Math.max(0, om[t] / V[r])); });
      }
    }
    this.calibration = { canSee: Array.from(canSee), rho: Array.from(rho, (r) => (Number.isFinite(r) ? r : null)) };
    this.checkRows = Int32Array.from(rows.filter((_r, t) => canSee[t]));
    this.rowBlock = names.filter((_n, t) => canSee[t]);
    const blocks = [...new Set(names)];
    this.checked = blocks.filter((b) => this.rowBlock.includes(b));
    this.unchecked = blocks.filter((b) => !this.rowBlock.includes(b));
    this.detectable = new Map();
    names.forEach((b, t) => {
      const need = canSee[t] && rho[t] > 0 ? 5 / Math.sqrt(rho[t]) : Infinity;
      const d = this.detectable.get(b);
      if (!d) this.detectable.set(b, { best: need, worst: need });
      else { d.best = Math.min(d.best, need); d.worst = Math.max(d.worst, need); }
    });
    this.groups = new Map();
    this.rowBlock.forEach((b, t) => { const g = this.groups.get(b); if (g) g.push(t); else this.groups.set(b, [t]); });
    this.omega = new Float64Array(this.checkRows.length);
    const k = this.checkRows.length, q = Math.min(k, this.dof + OVERSAMPLE);
    if (q < k) {
      this.sketch = new Sketch(k, q, N, this.dof);
      this.work = this.sketch.work;
    } else {
      this.sketch = null;
      this.work = { X: new Float64Array(N * k), B: new Float64Array(N * k) };
    }
    this.names = sys.rowNames;
  }

  /** the sketched identification's workspace (null: one solve per checkable row, when there are few) */
  private readonly sketch: Sketch | null;

  private readonly names: readonly string[];
  /** checkable rows of each sensor (indices into checkRows) */
  private readonly groups: Map<string, number[]>;

  /** χ² test of the estimator's last sample, then the largest normalized residual when it fires. */
  test(): BadDataResult {
    const e = this.est.residual, V = this.est.rowVariance;
    let J = 0;
    for (let t = 0; t < this.rows.length; t++) { const r = this.rows[t]; J += (e[r] * e[r]) / V[r]; }
    const out: BadDataResult = { chi2: J, threshold: this.threshold, detected: this.dof > 0 && J > this.threshold };
    if (!Number.isFinite(J)) return { ...out, detected: false, notFinite: true };
    if (!out.detected || this.checkRows.length === 0) return out;
    if (this.sketch) return this.identifySketched(out);
    this.est.residualVarianceDiag(this.checkRows, this.omega, this.work);
    this.largestNormalized(out);
    // per sensor: ΔJ_S = e_Sᵀ Ω_SS⁺ e_S, Ω_rs = V_r V_s [K⁻¹]_rs from the columns solved above
    const X = this.work.X, N = this.est.es.sys.m + this.est.es.sys.n;
    const scores: SensorScore[] = [];
    for (const [sensor, ts] of this.groups) {
      const k = ts.length;
      const O = new Matrix(k, k), r = new Matrix(k, 1);
      for (let a = 0; a < k; a++) {
        const ra = this.checkRows[ts[a]];
        r.set(a, 0, e[ra] / V[ra]);
        for (let b = 0; b < k; b++) O.set(a, b, X[ts[b] * N + ra]); // [K⁻¹]_ab = V⁻¹ Ω V⁻¹ on measurement rows
      }
      // ΔJ = eᵀ Ω⁺ e = (V⁻¹e)ᵀ (V⁻¹ Ω V⁻¹)⁺ (V⁻¹e), with as many degrees of freedom as the rank
      // of Ω_SS (at most m − n: a sensor that can absorb every residual has no more)
      const svd = new SingularValueDecomposition(O, { autoTranspose: true });
      const sv = svd.diagonal, U = svd.leftSingularVectors;
      let dJ = 0, rank = 0;
      for (let i = 0; i < sv.length; i++) {
        if (!(sv[i] > 1e-9 * sv[0])) continue;
        rank++;
        let u = 0;
        for (let a = 0; a < k; a++) u += U.get(a, i) * r.get(a, 0);
        dJ += (u * u) / sv[i];
      }
      if (rank > 0) scores.push(this.sensorScore(sensor, ts, dJ, rank));
    }
    return suspectOf(out, scores);
  }

  /** The largest normalized residual |e_r| / √Ω_rr over the checkable rows (Ω's diagonal in `omega`), into `out`. */
  private largestNormalized(out: BadDataResult): void {
    const e = this.est.residual, rows = this.checkRows;
    let best = -1, bestVal = -1;
    for (let t = 0; t < rows.length; t++) {
      const om = this.omega[t];
      if (!(om > 0)) continue;
      const rn = Math.abs(e[rows[t]]) / Math.sqrt(om);
      if (rn > bestVal) { bestVal = rn; best = t; }
    }
    if (best >= 0) {
      out.normalized = bestVal;
      out.row = this.names[rows[best]].replace(/^y\[(.*)\]$/, '$1');
    }
  }

  /**
   * A sensor's significance: its block test (ΔJ, χ² with `rank` degrees of freedom), or its largest
   * normalized residual (χ²₁ of r_N²), whichever is stronger (one reading off, or several); the
   * latter as the largest of the sensor's readings (Šidák), so that a sensor of many readings is not
   * named for the chance that one of them reads high.
   */
  private sensorScore(sensor: string, ts: readonly number[], dJ: number, rank: number): SensorScore {
    const e = this.est.residual;
    let rn2 = 0;
    for (const t of ts) if (this.omega[t] > 0) rn2 = Math.max(rn2, (e[this.checkRows[t]] ** 2) / this.omega[t]);
    const lnr = -logLargestTail(logChiSquareTail(rn2, 1), ts.length);
    return { sensor, score: Math.max(-logChiSquareTail(Math.max(dJ, 0), rank), lnr), dJ, lnr };
  }

  /**
   * Identification from a sketch of the residual covariance: the block S = [K⁻¹] of the checkable
   * rows (k×k, V⁻¹ Ω V⁻¹ there) is positive semidefinite of rank at most m − n, so q = m − n + 2
   * solves Y = S G with a fixed Gaussian G (k×q) give it whole: S = Y (GᵀY)⁺ Yᵀ (the Nyström
   * identity, exact when Y's range is S's, as it is almost surely for rank S ≤ q; Halko, Martinsson &
   * Tropp, "Finding structure with randomness", SIAM Review, 2011, §5.5). With GᵀY = Q Λ Qᵀ, S = F Fᵀ,
   * F = Y Q Λ^(−1/2) over the eigenvalues kept (at most m − n, above the rounding of the solves):
   * Ω_rr = V_r² ‖F_r‖², and a sensor's ΔJ = ρ_Sᵀ (F_S F_Sᵀ)⁺ ρ_S (ρ = V⁻¹e) = Σ (w_iᵀ F_Sᵀ ρ_S)² / μ_i²
   * from the eigenpairs (μ_i, w_i) of the small Gram matrix F_Sᵀ F_S, whose nonzero eigenvalues are
   * those of F_S F_Sᵀ = S_SS (rank: as the full path counts it, μ_i > 1e-9 μ_max). Same statistics
   * as one solve per row, to rounding, with q solves instead of k.
   */
  private identifySketched(out: BadDataResult): BadDataResult {
    const sk = this.sketch!, e = this.est.residual, V = this.est.rowVariance, rows = this.checkRows;
    const k = rows.length, q = sk.q;
    this.est.inverseBlockTimes(rows, sk.G, q, sk.Y, sk.work);
    const r = sk.factor();
    // the solves overflowed (readings near the end of double precision): as the full path's scores would be
    if (r < 0) return { ...out, notFinite: true };
    const F = sk.F;
    for (let t = 0; t < k; t++) {
      let s2 = 0;
      for (let i = 0; i < r; i++) s2 += F[t * q + i] * F[t * q + i];
      this.omega[t] = V[rows[t]] * V[rows[t]] * s2;
    }
    this.largestNormalized(out);
    const scores: SensorScore[] = [];
    for (const [sensor, ts] of this.groups) {
      // C = F_Sᵀ F_S (r×r), g = F_Sᵀ ρ_S
      const C = sk.C, g = sk.g;
      C.fill(0); g.fill(0);
      for (const t of ts) {
        const row = rows[t], rho = e[row] / V[row];
        for (let i = 0; i < r; i++) {
          const fi = F[t * q + i];
          g[i] += fi * rho;
          for (let j = 0; j < r; j++) C[i * r + j] += fi * F[t * q + j];
        }
      }
      symmetricEigenInPlace(r, C, sk.W);
      let mu0 = 0;
      for (let i = 0; i < r; i++) mu0 = Math.max(mu0, C[i * r + i]);
      let dJ = 0, rank = 0;
      for (let i = 0; i < r; i++) {
        const mu = C[i * r + i];
        if (!(mu > 1e-9 * mu0)) continue;
        rank++;
        let u = 0;
        for (let j = 0; j < r; j++) u += sk.W[j * r + i] * g[j];
        dJ += (u * u) / (mu * mu);
      }
      if (rank > 0) scores.push(this.sensorScore(sensor, ts, dJ, rank));
    }
    return suspectOf(out, scores);
  }
}

/** extra columns of the sketch beyond m − n (oversampling: margin against rounding in the solves) */
const OVERSAMPLE = 2;

interface SensorScore { sensor: string; score: number; dJ: number; lnr: number }

/** The suspect among the sensors' scores (see the file's comment), written into `out`. */
function suspectOf(out: BadDataResult, scores: SensorScore[]): BadDataResult {
  if (scores.length === 0) return out;
  if (!scores.every((x) => Number.isFinite(x.score))) return { ...out, notFinite: true };
  let top = -Infinity;
  for (const x of scores) top = Math.max(top, x.score);
  const close = scores.filter((x) => x.score >= top - 3).sort((a, b) => b.lnr - a.lnr);
  out.suspect = close[0].sensor;
  out.sensorChi2 = close[0].dJ;
  if (close.length > 1) out.alternatives = close.slice(1).map((x) => x.sensor);
  return out;
}

/** Workspace of the sketched identification (BadDataDetector.identifySketched). */
class Sketch {
  /** the fixed Gaussian test matrix (k×q), Y = S G, F = Y Q Λ^(−1/2) (k×q, r columns used) */
  readonly G: Float64Array;
  readonly Y: Float64Array;
  readonly F: Float64Array;
  /** GᵀY and its eigenvectors (q×q); Gram matrix, its eigenvectors and F_Sᵀρ of a sensor (r ≤ q) */
  private readonly M: Float64Array;
  private readonly Q: Float64Array;
  readonly C: Float64Array;
  readonly W: Float64Array;
  readonly g: Float64Array;
  private readonly order: Int32Array;
  readonly work: { X: Float64Array; B: Float64Array };

  constructor(readonly k: number, readonly q: number, N: number, readonly rankMax: number) {
    const rng = new Rng(0x5eed);
    this.G = Float64Array.from({ length: k * q }, () => rng.normal());
    this.Y = new Float64Array(k * q);
    this.F = new Float64Array(k * q);
    this.M = new Float64Array(q * q);
    this.Q = new Float64Array(q * q);
    this.C = new Float64Array(q * q);
    this.W = new Float64Array(q * q);
    this.g = new Float64Array(q);
    this.order = new Int32Array(q);
    this.work = { X: new Float64Array(N * q), B: new Float64Array(N * q) };
  }

  /**
   * F from Y: GᵀY (symmetrized) = Q Λ Qᵀ, F = Y Q_r Λ_r^(−1/2) over the r largest eigenvalues (at
   * most rankMax) above the solves' rounding (64 q ε of the largest); returns r, or −1 when GᵀY is
   * not finite.
   */
  factor(): number {
    const { k, q, G, Y, M, Q, F, order } = this;
    for (let i = 0; i < q; i++) {
      for (let j = 0; j < q; j++) {
        let s = 0;
        for (let t = 0; t < k; t++) s += G[t * q + i] * Y[t * q + j];
        M[i * q + j] = s;
      }
    }
    for (let i = 0; i < q; i++) for (let j = 0; j < i; j++) M[i * q + j] = M[j * q + i] = 0.5 * (M[i * q + j] + M[j * q + i]);
    if (!M.every(Number.isFinite)) return -1;
    symmetricEigenInPlace(q, M, Q);
    for (let i = 0; i < q; i++) order[i] = i;
    // eigenvalues descending (insertion sort: q is small)
    for (let i = 1; i < q; i++) {
      const o = order[i], lam = M[o * q + o];
      let j = i - 1;
      while (j >= 0 && M[order[j] * q + order[j]] < lam) { order[j + 1] = order[j]; j--; }
      order[j + 1] = o;
    }
    const top = M[order[0] * q + order[0]];
    let r = 0;
    while (top > 0 && r < Math.min(q, this.rankMax) && M[order[r] * q + order[r]] > 64 * q * Number.EPSILON * top) r++;
    F.fill(0);
    for (let i = 0; i < r; i++) {
      const o = order[i], scale = 1 / Math.sqrt(M[o * q + o]);
      for (let t = 0; t < k; t++) {
        let s = 0;
        for (let j = 0; j < q; j++) s += Y[t * q + j] * Q[j * q + o];
        F[t * q + i] = s * scale;
      }
    }
    return r;
  }
}
