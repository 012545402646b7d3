/**
 * Estimation runtime (Nori (2017) §VI): per sample, the values of [D; D_Y] and [b; b_Y] are written
 * into the fixed pattern, then
 * - square systems (as many independent equations as unknowns): the permuted sparse LU of the
 *   system itself (offline ordering once, refactor per sample);
 * - redundant systems: weighted least squares with the sensor variances, min ‖A d + b‖²_W subject
 *   to the exact rows (Newton–Euler, known zeros, constraints), solved as the square augmented
 *   system  [W⁻¹ A; Aᵀ 0] [r; d] = [−b; 0]  (W⁻¹ = 0 on exact rows) with the same sparse LU, so it
 *   stays one factorization per sample. r = −W (A d + b): per-sensor residuals come out of it, and
 *   Cov(d) = −[K⁻¹]_dd gives the covariance of the estimate.
 * Both solves are refined with the factors of the sample (one step in each diagonal block of size
 * ≥ 2 by default, EstimatorOptions.refine): the rows mix units and variances, and the kept pivot
 * order alone can lose digits on robots with light links (Björck, "Iterative refinement of linear
 * least squares solutions", BIT 7, 1967, for the augmented system).
 */
import { checkConfiguration, checkVector } from '../algorithms/validate.ts';
import { DYNAMICS_CHECK_TOL, DYNAMICS_REFINE, SparseSolver } from '../assembly/solver.ts';
import { fillSystem, SystemValues } from '../assembly/system.ts';
import { Flops } from '../spatial/flops.ts';
import { analyze } from '../sparse/analyze.ts';
import { compress } from '../sparse/compress.ts';
import { GaxpyCode } from '../sparse/gaxpy-code.ts';
import type { CscMatrix } from '../sparse/csc.ts';
import { NumericLU } from '../sparse/numeric.ts';
import type { SymbolicLU } from '../sparse/symbolic.ts';
import type { EstimationSystem } from './setup.ts';

/** Flops of one estimated sample, by part. */
export interface EstimatorFlops {
  kinematics: Flops;
  fill: Flops;
  factor: Flops;
  solve: Flops;
}

/** Options of an {@link Estimator}: the solve's accuracy settings and offline work done elsewhere. */
export interface EstimatorOptions {
  /** pivot threshold of a re-pivoting (SolverOptions.tol) */
  tol?: number;
  /** refinement steps per diagonal block of the sample's solve (default DYNAMICS_REFINE) */
  refine?: number;
  /**
   * the compiled code holds the solve without refinement too (FactorOptions.plainSolve), which an
   * EstimateConditioning on this estimator runs (default true; false when no condition check will)
   */
  plainSolve?: boolean;
  /** precision of the refinement residual (default 'working') */
  residual?: 'working' | 'extended';
  /**
   * the offline analysis, computed elsewhere for this system (`Estimator.offlineAnalysis()`, e.g.
   * read back with SymbolicLU.fromJSON in a worker): the constructor then orders nothing
   */
  symbolic?: SymbolicLU;
}

/**
/**
 * Estimates every unknown of an estimation system sample after sample: the permuted sparse LU for
 * square layouts, weighted least squares (one augmented sparse LU) for redundant ones. The ordering
 * is computed once in the constructor; `estimate` allocates nothing.
 */
export class Estimator {
  readonly mode: 'square' | 'wls';
  /** the estimate d of the last sample (all unknowns, layout order) */
  readonly d: Float64Array;
  /** residual A d + b of every row at the last sample (zero on exact rows up to round-off) */
  readonly residual: Float64Array;
  /** variance of each row (0 for exact rows) */
  readonly rowVariance: Float64Array;
  readonly flops: EstimatorFlops = { kinematics: new Flops(), fill: new Flops(), factor: new Flops(), solve: new Flops() };
  readonly analyzeMs: number;
  /** the offline analysis (ordering and L, U patterns) this estimator started from */
  readonly offline: SymbolicLU;

  /**
   * The analysis in force now: the offline one, or the one a numeric re-pivoting replaced it with
   * (a block whose pivots failed at some sample). An estimator given it continues exactly as this one.
   */
  get symbolicInForce(): SymbolicLU {
    return (this.lu ?? this.solver!.lu).symbolic;
  }

  /** Return to the row order of `S` (e.g. an earlier `symbolicInForce`); the next sample follows it. */
  restartPivoting(S: SymbolicLU): void {
    (this.lu ?? this.solver!.lu).restart(S);
  }
  /** square mode: the sparse solver of [D; D_Y] */
  readonly solver?: SparseSolver;
  /** the values of [D; D_Y] and [b; b_Y] at the last sample */
  readonly values: SystemValues;
  /**
   * least-squares mode: the augmented matrix K = [W⁻¹ A; Aᵀ 0] with the values of the last sample
   * (gathered when read from the factorization's source, which holds them)
   */
  get K(): CscMatrix | undefined {
    const K = this.kkt;
    if (K !== undefined && this.kStale) {
      const src = this.lu!.source, map = this.kMap!, KAx = K.Ax;
      for (let t = 0; t < KAx.length; t++) KAx[t] = src[map[t]];
      this.kStale = false;
    }
    return K;
  }
  private readonly kkt?: CscMatrix;
  /** whether K's values lag behind the last sample's */
  private kStale = false;
  /** K's entry t is the factorization's source at kMap[t] (FactorOptions.gather) */
  private readonly kMap?: Int32Array;
  /** least-squares mode: the factors of K */
  readonly lu?: NumericLU;
  private readonly rhs: Float64Array;
  /** the residual's product A d (generated WebAssembly where the engine has it) */
  private readonly residualProduct: GaxpyCode;
  /** least-squares mode: the solution [r; d] of the augmented system at the last sample */
  readonly z: Float64Array;

  constructor(readonly es: EstimationSystem, opts: EstimatorOptions = {}) {
    const sys = es.sys;
    const m = sys.m, n = sys.n;
    this.rowVariance = new Float64Array(m);
    sys.blocks.forEach((blk, k) => {
      if (blk.variance === undefined) return;
      for (let r = 0; r < blk.rowNames.length; r++) this.rowVariance[sys.blockRow0[k] + r] = blk.variance;
    });
    this.d = new Float64Array(n);
    this.residual = new Float64Array(m);
    this.residualProduct = GaxpyCode.create(sys.pattern);
    const t0 = performance.now();
    const refine = opts.refine ?? DYNAMICS_REFINE, residual = opts.residual;
    if (m === n) {
      this.mode = 'square';
      this.solver = new SparseSolver(sys, { tol: opts.tol, refine, residual, symbolic: opts.symbolic, plainSolve: opts.plainSolve ?? true });
      this.offline = this.solver.symbolic;
      this.values = this.solver.values;
      this.rhs = new Float64Array(0);
      this.z = new Float64Array(0);
    } else {
      if (m < n) {
        throw new RangeError(`the estimation system has ${m} equations for ${n} unknowns: it cannot determine them all (run the analysis to see which)`);
      }
      this.mode = 'wls';
      this.values = new SystemValues(sys);
      // K = [W⁻¹ A; Aᵀ 0], order m + n; every entry of A appears twice
      const A = sys.pattern;
      const nzA = A.Ap[n];
      const Ti: number[] = [], Tj: number[] = [], Tx: number[] = [];
      for (let j = 0; j < n; j++) {
        for (let p = A.Ap[j]; p < A.Ap[j + 1]; p++) { Ti.push(A.Ai[p]); Tj.push(m + j); Tx.push(0); }
      }
      for (let j = 0; j < n; j++) {
        for (let p = A.Ap[j]; p < A.Ap[j + 1]; p++) { Ti.push(m + j); Tj.push(A.Ai[p]); Tx.push(0); }
      }
      for (let r = 0; r < m; r++) if (this.rowVariance[r] > 0) { Ti.push(r); Tj.push(r); Tx.push(this.rowVariance[r]); }
      const { A: K, slot } = compress(m + n, m + n, Ti, Tj, Tx);
      this.kkt = K;
      // the factorization gathers K's values from a source vector [A's values; the variances]: each
      // entry of A is read twice from where the fill wrote it (no scatter into K per sample), the
      // variances are fixed
      const nvar = slot.length - 2 * nzA;
      if (K.Ap[K.n] !== slot.length) throw new Error(`the augmented matrix has ${K.Ap[K.n]} entries, expected ${slot.length}`);
      const map = new Int32Array(slot.length), fixed = new Uint8Array(nzA + nvar);
      for (let e = 0; e < nzA; e++) { map[slot[e]] = e; map[slot[nzA + e]] = e; }
      for (let v = 0; v < nvar; v++) { map[slot[2 * nzA + v]] = nzA + v; fixed[nzA + v] = 1; }
      this.kMap = map;
      const names = {
        rowNames: [...sys.rowNames, ...sys.layout.names.map((s) => `normal[${s}]`)],
        colNames: [...sys.rowNames.map((s) => `r[${s}]`), ...sys.layout.names],
      };
      let S: SymbolicLU;
      if (opts.symbolic) {
        S = opts.symbolic;
        if (S.n !== K.n || S.nnz !== K.Ap[K.n]) throw new RangeError(`the given SymbolicLU (n = ${S.n}, nnz = ${S.nnz}) does not belong to this system's augmented matrix (n = ${K.n}, nnz = ${K.Ap[K.n]})`);
        for (let j = 0; j <= K.n; j++) if (S.Ap[j] !== K.Ap[j]) throw new RangeError(`the given SymbolicLU's pattern differs from this system's augmented matrix at column ${names.colNames[Math.max(0, j - 1)]}`);
      } else S = analyze(K, names);
      this.offline = S;
      this.lu = new NumericLU(S, { tol: opts.tol, checkTol: DYNAMICS_CHECK_TOL, refine, residual, plainSolve: opts.plainSolve ?? true, gather: { map, size: nzA + nvar, fixed }, ...names });
      this.lu.source.set(Tx.slice(2 * nzA), nzA);
      this.rhs = new Float64Array(m + n);
      this.z = new Float64Array(m + n);
    }
    this.analyzeMs = performance.now() - t0;
  }

  /** The estimate d from (q, q̇) and the inputs y (sys.inputNames order). Validates the inputs. */
  estimate(q: ArrayLike<number>, qd: ArrayLike<number>, y: Float64Array): Float64Array {
    const sys = this.es.sys, model = sys.model;
    checkConfiguration(model, q);
    checkVector(model, 'v', qd, false);
    if (y.length !== sys.ny) throw new RangeError(`y has length ${y.length}, expected ${sys.ny} inputs`);
    for (let k = 0; k < y.length; k++) {
      if (!Number.isFinite(y[k])) throw new RangeError(`input ${sys.inputNames[k]} is ${y[k]}: must be a finite number`);
    }
    return this.estimateUnchecked(q, qd, y);
  }

  /** estimate without the entry checks (for callers that validated the inputs already) */
  estimateUnchecked(q: ArrayLike<number>, qd: ArrayLike<number>, y: Float64Array): Float64Array {
    const sys = this.es.sys, m = sys.m, n = sys.n, fl = this.flops;
    if (this.solver) {
      // the solution read where the solve left it (the solver's own d is brought up to date when read)
      this.d.set(this.solver.stepView(q, qd, y));
      const sf = this.solver.flops;
      copy(fl.kinematics, sf.kinematics); copy(fl.fill, sf.fill); copy(fl.factor, sf.factor); copy(fl.solve, sf.solve);
    } else {
      const vals = this.values, lu = this.lu!;
      fillSystem(vals, q, qd, y);
      // A's values into the factorization's source (fetched each time: it moves into the compiled code's memory)
      lu.source.set(vals.Ax);
      this.kStale = true;
      lu.refactorSource();
      const rhs = this.rhs, b = vals.b;
      for (let r = 0; r < m; r++) rhs[r] = -b[r];
      for (let j = 0; j < n; j++) rhs[m + j] = 0;
      lu.solve(this.z, rhs);
      for (let j = 0; j < n; j++) this.d[j] = this.z[m + j];
      copy(fl.kinematics, vals.kin.flops); copy(fl.fill, vals.flops);
      fl.factor.reset(); fl.factor.mul = lu.factorMuls; fl.factor.add = lu.factorAdds; fl.factor.div = lu.factorDivs;
      fl.solve.reset(); fl.solve.mul = lu.solveMuls; fl.solve.add = lu.solveAdds; fl.solve.div = lu.solveDivs;
    }
    this.computeResidual();
    return this.d;
  }

  /** residual = A d + b of the last sample */
  private computeResidual(): void {
    this.residualProduct.gaxpy(this.values.Ax, this.d, this.values.b, this.residual);
  }

  /**
   * Covariance of the estimated unknowns `cols` at the last sample, with the factors of that sample:
   * weighted least squares: −[K⁻¹] restricted to those columns (one solve per column);
   * square: Cov(d) = A⁻¹ V A⁻ᵀ (V the row variances, 0 on exact rows): z_c = A⁻ᵀ e_c (one transposed
   * solve per column), then Cov(c, c') = Σ_r V_r z_c[r] z_c'[r].
   */
  covariance(cols: readonly number[]): Float64Array {
    const k = cols.length;
    if (this.mode === 'square') {
      const n = this.es.sys.n, lu = this.solver!.lu, V = this.rowVariance;
      const Z = new Float64Array(n * k), z = new Float64Array(n);
      cols.forEach((c, t) => {
        z.fill(0); z[c] = 1;
        lu.solveTransposed(z, z);
        Z.set(z, t * n);
      });
      const C = new Float64Array(k * k);
      for (let a = 0; a < k; a++) {
        for (let b = a; b < k; b++) {
          let acc = 0;
          for (let r = 0; r < n; r++) if (V[r] > 0) acc += V[r] * Z[a * n + r] * Z[b * n + r];
          C[a * k + b] = acc; C[b * k + a] = acc;
        }
      }
      return C;
    }
    const m = this.es.sys.m, N = this.rhs.length;
    const B = new Float64Array(N * k);
    cols.forEach((c, t) => { B[t * N + m + c] = 1; });
    const X = new Float64Array(N * k);
    this.lu!.solveMany(X, B, k);
    const C = new Float64Array(k * k);
    for (let a = 0; a < k; a++) for (let b = 0; b < k; b++) C[a * k + b] = -X[b * N + m + cols[a]];
    return C;
  }

  /**
   * Diagonal of the residual covariance Ω = V − A Cov(d) Aᵀ of the measurement rows `rows` at the
   * last sample (weighted least squares), from the factors: with K = [V A; Aᵀ 0],
   * [K⁻¹]_rr = V⁻¹ Ω V⁻¹ on a measurement row, so Ω_rr = V_r² [K⁻¹]_rr — one solve per row
   * (written into `out`; `work` holds m + n numbers per row solved at once). Square layouts have no
   * redundancy: Ω = 0.
   */
  residualVarianceDiag(rows: ArrayLike<number>, out: Float64Array, work?: { X: Float64Array; B: Float64Array }): Float64Array {
    if (this.mode === 'square') { out.fill(0); return out; }
    const N = this.rhs.length, k = rows.length, V = this.rowVariance;
    const B = work?.B ?? new Float64Array(N * k), X = work?.X ?? new Float64Array(N * k);
    B.fill(0);
    for (let t = 0; t < k; t++) B[t * N + rows[t]] = 1;
    this.lu!.solveMany(X, B, k);
    for (let t = 0; t < k; t++) { const r = rows[t]; out[t] = V[r] * V[r] * X[t * N + r]; }
    return out;
  }

  /**
   * Y = [K⁻¹]_{rows, rows} G at the last sample (weighted least squares): the block of K⁻¹ on the
   * measurement rows `rows` (k of them; V⁻¹ Ω V⁻¹ there, see residualVarianceDiag) times the k×q
   * matrix G (row-major; Y k×q row-major) — q solves, whatever k. `work`'s arrays hold (m + n)·q
   * numbers each. No allocation.
   */
  inverseBlockTimes(rows: ArrayLike<number>, G: Float64Array, q: number, Y: Float64Array, work: { X: Float64Array; B: Float64Array }): Float64Array {
    const N = this.rhs.length, k = rows.length, B = work.B, X = work.X;
    B.fill(0);
    for (let t = 0; t < k; t++) for (let j = 0; j < q; j++) B[j * N + rows[t]] = G[t * q + j];
    this.lu!.solveMany(X, B, q);
    for (let t = 0; t < k; t++) for (let j = 0; j < q; j++) Y[t * q + j] = X[j * N + rows[t]];
    return Y;
  }

  /** total flops of the last sample */
  totalFlops(): Flops {
    const f = this.flops;
    return new Flops().accumulate(f.kinematics).accumulate(f.fill).accumulate(f.factor).accumulate(f.solve);
  }
}

function copy(to: Flops, from: Flops): void {
  to.mul = from.mul; to.add = from.add; to.div = from.div; to.fn = from.fn;
}
