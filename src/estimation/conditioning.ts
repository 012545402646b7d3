/**
 * How well one sample's estimate is determined by its readings: the covariance of the estimated
 * joint torques, joint accelerations and contact wrenches (contact frames), propagated from the
 * sensor variances through the sample's own factors, each output scaled by its typical standard
 * deviation for this layout (the median variance over random configurations), and the 1-norm of that
 * scaled covariance estimated as KLU's condest does (Hager/Higham: a few solves with the factors
 * in hand, src/sparse/condest.ts), over its median at those random configurations. The solves
 * skip the refinement step of the estimate's own (NumericLU.solveUnrefined), as LAPACK's xGECON and
 * KLU's condest solve with the factors alone: a norm estimate needs no last digits (on the demo
 * humanoid the figure moves by 1e-15 relative, the check's flops drop from 172,862 to 76,662 and its
 * median time from 71–74 to 41 µs per sample). They run compiled unless the estimator was made
 * with EstimatorOptions.plainSolve false (then in JavaScript: the same bits).
 *
 *   C = P Cov(d) Pᵀ,  Cov(d) = A⁻¹ V A⁻ᵀ (square: V the row variances, 0 on exact rows)
 *                      Cov(d) = −[K⁻¹]_dd (weighted least squares, K = [V A; Aᵀ 0])
 *   condition = ‖S⁻¹ C S⁻¹‖₁ / its median at the random configurations,
 *   S = diag(typical standard deviations)
 *
 * So it is 1 at a typical configuration of the layout, whatever its units and variances; near a
 * singular configuration the variance of the poorly observed direction grows as 1/σ² (σ the
 * distance to the singularity), and so does this figure. Measured (scripts/study-condition.ts,
 * reports/condition.md) on the humanoid with slippery load cells, joints drawn uniformly: in ±1 rad
 * median 1.3, 99th percentile 8.6, largest of 200 29; in ±π 99th percentile 63 (some random
 * configurations are themselves nearly singular); within ±0.01 rad of the singular neutral pose
 * median 570, every draw above 10. On the demo's layout (redundant F/T sensors) never above 6.5.
 * Why not κ₁ of the factored matrix itself: on the same layout its median is 2.1·10⁶ at random
 * configurations, 1.7·10⁶ at ±0.03 rad and 4.8·10⁶ at ±0.01 rad from the singular pose (after
 * equilibration 5.7·10⁵, 4.2·10⁵, 1.3·10⁶): its largest direction belongs to the multipliers of the
 * Newton–Euler rows, not to what the sensors observe.
 *
 * `update()` allocates nothing (`measure()` returns its number); flops are counted exactly.
 */
import type { LinearOperator } from '../sparse/condest.ts';
import { Norm1Estimator } from '../sparse/condest.ts';
import type { NumericLU } from '../sparse/numeric.ts';
import { forceTransformMatrix } from './blocks.ts';
import type { Estimator } from './estimator.ts';
import { WRENCH_COMPONENTS } from './problem.ts';
import { trialConfigurations } from './analysis.ts';

export interface ConditioningOptions {
  /** random configurations for the typical standard deviations (default 8) */
  configurations?: number;
  seed?: number;
  /** the calibration measured elsewhere for this estimator (`calibration()`): nothing is measured again */
  calibration?: ConditioningCalibration;
}

/** What the constructor measures at random configurations, as plain JSON (shared with worker threads). */
export interface ConditioningCalibration {
  /** indices of the kept outputs among all candidate outputs */
  keep: number[];
  /** typical standard deviation of each kept output */
  typical: number[];
  /** the figure's unit */
  reference: number;
  configurationsUsed: number;
}

export class EstimateConditioning implements LinearOperator {
  /** number of outputs (the order of the scaled covariance) */
  readonly n: number;
  /** output names: tau[joint], qdd[joint], w[link].tx … (contact frame) */
  readonly names: string[];
  /** typical standard deviation of each output (N·m, N, rad/s² or m/s²) */
  readonly typical: Float64Array;
  /** the output rows of P (CSR: columns of d and coefficients) */
  private readonly ptr: Int32Array;
  private readonly col: Int32Array;
  private readonly val: Float64Array;
  /** 1 / typical */
  private readonly inv: Float64Array;
  private readonly work: Float64Array;
  private readonly norm1: Norm1Estimator;
  /** flops of the last product, and of the last measure() */
  muls = 0;
  adds = 0;
  divs = 0;
  readonly flops = { mul: 0, add: 0, div: 0 };
  /** configurations at which the typical values were measured */
  readonly configurationsUsed: number;
  /** the median of ‖S⁻¹ C S⁻¹‖₁ at those configurations (the figure's unit) */
  readonly reference: number;
  /** the figure of the last update() */
  value = NaN;

  constructor(readonly est: Estimator, opts: ConditioningOptions = {}) {
    const es = est.es, model = es.model, L = es.sys.layout;
    const rows: { name: string; cols: number[]; vals: number[] }[] = [];
    const unact = new Set(es.problem.unactuated ?? (model.floatingBase ? [model.jointNames[0]] : []));
    for (const j of model.movingJoints()) {
      if (unact.has(j.name)) continue;
      for (let k = 0; k < j.nv; k++) rows.push({ name: `tau[${j.nv === 1 ? j.name : `${j.name}[${k}]`}]`, cols: [L.tau[j.body] + k], vals: [1] });
    }
    for (const j of model.movingJoints()) {
      for (let k = 0; k < j.nv; k++) rows.push({ name: `qdd[${j.nv === 1 ? j.name : `${j.name}[${k}]`}]`, cols: [L.qdd[j.body] + k], vals: [1] });
    }
    es.contacts.forEach((c, ci) => {
      const zero = new Set(es.problem.contacts[ci]?.zero ?? []);
      const F = forceTransformMatrix(c.X);
      WRENCH_COMPONENTS.forEach((comp, r) => {
        if (zero.has(comp)) return;
        const cols: number[] = [], vals: number[] = [];
        for (let j = 0; j < 6; j++) if (F[6 * r + j] !== 0) { cols.push(L.fx[c.body] + j); vals.push(F[6 * r + j]); }
        rows.push({ name: `w[${c.link}].${comp}`, cols, vals });
      });
    });
    const N = est.mode === 'square' ? es.sys.n : es.sys.m + es.sys.n;
    this.work = new Float64Array(N);
    // typical variances: the diagonal of C at random configurations (S = 1 while measuring)
    const all = rows.length;
    this.ptr = new Int32Array(all + 1);
    rows.forEach((r, k) => { this.ptr[k + 1] = this.ptr[k] + r.cols.length; });
    this.col = Int32Array.from(rows.flatMap((r) => r.cols));
    this.val = Float64Array.from(rows.flatMap((r) => r.vals));
    this.inv = new Float64Array(all).fill(1);
    this.n = all;
    if (opts.calibration) {
      const c = opts.calibration;
      if (c.keep.some((k) => !(k >= 0 && k < all)) || c.typical.length !== c.keep.length) throw new RangeError('the conditioning calibration does not belong to this estimator');
      const r = this.keptRows(rows, c.keep);
      this.ptr = r.ptr; this.col = r.col; this.val = r.val; this.names = r.names;
      this.typical = Float64Array.from(c.typical);
      this.inv = Float64Array.from(this.typical, (x) => 1 / x);
      this.n = c.keep.length;
      this.norm1 = new Norm1Estimator(Math.max(1, this.n));
      this.reference = c.reference;
      this.configurationsUsed = c.configurationsUsed;
      this.kept = c.keep.slice();
      return;
    }
    const samples: number[][] = Array.from({ length: all }, () => []);
    const configs = trialConfigurations(model, opts.configurations ?? 8, 0, opts.seed ?? 1).filter((c) => c.kind === 'random');
    const e = new Float64Array(all);
    const v0 = new Float64Array(model.nv), y0 = new Float64Array(es.sys.ny);
    let used = 0;
    for (const c of configs) {
      try {
        est.estimateUnchecked(c.q, v0, y0);
      } catch {
        continue;
      }
      used++;
      for (let k = 0; k < all; k++) {
        e.fill(0); e[k] = 1;
        this.apply(e);
        samples[k].push(e[k]);
      }
    }
    this.configurationsUsed = used;
    // the median over the configurations: a random configuration can itself be close to a singular one
    const sum = Float64Array.from(samples, (v) => {
      if (v.length === 0) return 0;
      const w = [...v].sort((a, b) => a - b), h = w.length >> 1;
      return w.length % 2 ? w[h] : (w[h - 1] + w[h]) / 2;
    });
    // keep the outputs with a variance: an output the layout pins exactly has none
    let big = 0;
    for (let k = 0; k < all; k++) if (sum[k] > big) big = sum[k];
    const keep: number[] = [];
    for (let k = 0; k < all; k++) if (used > 0 && sum[k] > 1e-20 * big && sum[k] < Infinity) keep.push(k);
    const r = this.keptRows(rows, keep);
    this.ptr = r.ptr; this.col = r.col; this.val = r.val; this.names = r.names;
    this.kept = keep;
    this.typical = Float64Array.from(keep, (k) => Math.sqrt(sum[k]));
    this.inv = Float64Array.from(this.typical, (s) => 1 / s);
    this.n = keep.length;
    this.norm1 = new Norm1Estimator(Math.max(1, this.n));
    // the figure's unit: its median at the same configurations
    this.reference = 1;
    const figures: number[] = [];
    if (this.n > 0) {
      for (const c of configs) {
        try {
          est.estimateUnchecked(c.q, v0, y0);
        } catch {
          continue;
        }
        figures.push(this.norm1.estimate(this));
      }
    }
    figures.sort((a, b) => a - b);
    const h = figures.length >> 1;
    const ref = figures.length === 0 ? 1 : figures.length % 2 ? figures[h] : (figures[h - 1] + figures[h]) / 2;
    this.reference = ref > 0 && ref < Infinity ? ref : 1;
  }

  /** indices of the kept outputs among all candidates */
  private readonly kept: number[];

  /** the output rows `keep` of P (CSR) and their names */
  private keptRows(rows: { name: string }[], keep: number[]): { ptr: Int32Array; col: Int32Array; val: Float64Array; names: string[] } {
    const ptr = new Int32Array(keep.length + 1);
    const colK: number[] = [], valK: number[] = [];
    keep.forEach((k, t) => {
      for (let p = this.ptr[k]; p < this.ptr[k + 1]; p++) { colK.push(this.col[p]); valK.push(this.val[p]); }
      ptr[t + 1] = colK.length;
    });
    return { ptr, col: Int32Array.from(colK), val: Float64Array.from(valK), names: keep.map((k) => rows[k].name) };
  }

  /** What the constructor measured, as plain JSON: give it as `calibration` to skip the measurement. */
  calibration(): ConditioningCalibration {
    return { keep: this.kept.slice(), typical: Array.from(this.typical), reference: this.reference, configurationsUsed: this.configurationsUsed };
  }

  /**
   * The condition figure of the estimator's last sample: ‖S⁻¹ C S⁻¹‖₁, estimated from its factors.
   * NaN when the layout has no output with a variance.
   */
  measure(): number {
    this.update();
    return this.value;
  }

  /** measure() into `value`. Allocation-free. */
  update(): void {
    if (this.n === 0) { this.value = NaN; return; }
    this.norm1.run(this);
    this.value = this.norm1.value / this.reference;
    this.flops.mul = this.norm1.muls; this.flops.add = this.norm1.adds; this.flops.div = this.norm1.divs + 1;
  }

  /** the outputs that dominate the last measure's largest column, most uncertain first (scaled standard deviations ≥ `share` of the largest) */
  dominant(share = 0.3): string[] {
    const d = this.norm1.direction, j = this.norm1.column;
    if (j < 0) return [];
    let mx = 0;
    for (let k = 0; k < this.n; k++) mx = Math.max(mx, Math.abs(d[k]));
    const idx: number[] = [];
    for (let k = 0; k < this.n; k++) if (Math.abs(d[k]) >= share * mx) idx.push(k);
    idx.sort((a, b) => Math.abs(d[b]) - Math.abs(d[a]));
    return idx.map((k) => this.names[k]);
  }

  /** x ← S⁻¹ P Cov(d) Pᵀ S⁻¹ x with the estimator's current factors (symmetric) */
  apply(x: Float64Array): void {
    const est = this.est, z = this.work, { ptr, col, val, inv } = this;
    const n = this.n;
    const square = est.mode === 'square';
    const off = square ? 0 : est.es.sys.m;
    const lu: NumericLU = square ? est.solver!.lu : est.lu!;
    let muls = 0, adds = 0, divs = 0;
    z.fill(0);
    for (let k = 0; k < n; k++) {
      const v = x[k] * inv[k];
      muls++;
      for (let p = ptr[k]; p < ptr[k + 1]; p++) { z[off + col[p]] += val[p] * v; muls++; adds++; }
    }
    // solves with the factors alone: the refinement step the estimate takes would change this
    // estimate of a norm in its last digits only (as LAPACK's xGECON, KLU's condest)
    if (square) {
      lu.solveTransposedUnrefined(z, z);
      muls += lu.solveMuls; adds += lu.solveAdds; divs += lu.solveDivs;
      const V = est.rowVariance;
      for (let r = 0; r < V.length; r++) z[r] *= V[r];
      muls += V.length;
      lu.solveUnrefined(z, z);
    } else {
      lu.solveUnrefined(z, z);
    }
    muls += lu.solveMuls; adds += lu.solveAdds; divs += lu.solveDivs;
    const sign = square ? 1 : -1;
    for (let k = 0; k < n; k++) {
      let t = 0;
      for (let p = ptr[k]; p < ptr[k + 1]; p++) { t += val[p] * z[off + col[p]]; muls++; adds++; }
      x[k] = sign * t * inv[k];
      muls++;
    }
    this.muls = muls; this.adds = adds; this.divs = divs;
  }

  applyTransposed(x: Float64Array): void {
    this.apply(x);
  }
}
