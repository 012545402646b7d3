/**
 * c = condest(A, lu): a cheap lower estimate of the 1-norm condition number κ₁(A) = ‖A‖₁ ‖A⁻¹‖₁
 * from the LU factors already computed, as KLU's klu_condest: ‖A‖₁ exactly (largest column sum),
 * ‖A⁻¹‖₁ by Hager's method with Higham's refinements (a few solves with A and Aᵀ, and an extra
 * alternating-sign vector), never more than 5 iterations.
 * Sources: W. W. Hager, "Condition estimates", SIAM J. Sci. Stat. Comput. 5(2), 1984;
 * N. J. Higham, "FORTRAN codes for estimating the one-norm of a real or complex matrix, with
 * applications to condition estimation", ACM TOMS 14(4), 1988 (LAPACK's xLACON);
 * T. A. Davis and E. Palamadai Natarajan, KLU (klu_condest), ACM TOMS 37(3), 2010.
 *
 * Iteration on B = A⁻¹ (x₀ = e/n; then x = e_j for the j found):
 *   y = B x;  γ = ‖y‖₁;  stop if γ did not grow or sign(y) repeats;
 *   z = Bᵀ sign(y);  j = argmax |z_i|;  stop if j repeats.
 * Alternative: b_i = (−1)^(i+1) (1 + i/(n−1)), γ = max(γ, 2‖B b‖₁ / (3n)).
 *
 * With `equilibrate`, the estimate is of κ₁(R A C), R and C the row and column scalings that give
 * every row, then every column, a largest entry of 1 (as LAPACK's xGEEQU), computed afresh at each
 * call: a measure of closeness to singularity that does not depend on the units of the rows and
 * columns. (R A C)⁻¹ = C⁻¹ A⁻¹ R⁻¹ is applied with the same factors.
 *
 * Besides the estimate, `direction` keeps the y = A⁻¹ (R e_j) of largest norm, normalised so that
 * its largest entry is 1: when A is nearly singular it is close to A's near-null vector (B e_j is
 * dominated by the right singular vector of the smallest singular value).
 *
 * `estimate` allocates nothing; its flops are counted exactly (the solves' own counts plus the
 * norms, the scalings and the set-up of the vectors; absolute values, signs and comparisons are
 * not flops).
 */
import type { NumericLU } from './numeric.ts';

/**
 * A square linear operator given by its products, for the 1-norm estimator: `apply` and
 * `applyTransposed` overwrite x with B x or Bᵀ x and leave the counts of that call in muls, adds, divs.
 */
export interface LinearOperator {
  readonly n: number;
  /** overwrites x with B x */
  apply(x: Float64Array): void;
  /** overwrites x with Bᵀ x */
  applyTransposed(x: Float64Array): void;
  muls: number;
  adds: number;
  divs: number;
}

/**
 * γ = ‖B‖₁ estimated from a few products with B and Bᵀ (Hager; Higham's refinements), a lower
 * bound, exact in most cases. `direction` keeps the B e_j of largest norm found. Allocation-free.
 * (Starting from the previous call's e_j instead of e/n saves two products on a sequence of nearby
 * operators, but stops at a local maximum far too often: measured, it is not offered.)
 */
export class Norm1Estimator {
  readonly n: number;
  /** products with B, and with Bᵀ, of the last call */
  applies = 0;
  tapplies = 0;
  /** the B e_j of largest 1-norm found at the last call (not normalised) */
  readonly direction: Float64Array;
  /** j of that column */
  column = -1;
  /** the estimate of the last call */
  value = 0;
  /** counts of the last call */
  muls = 0;
  adds = 0;
  divs = 0;
  private readonly x: Float64Array;
  private readonly s: Float64Array;

  constructor(n: number) {
    if (!(Number.isInteger(n) && n > 0)) throw new RangeError(`n is ${n}, expected a positive integer`);
    this.n = n;
    this.x = new Float64Array(n);
    this.s = new Float64Array(n);
    this.direction = new Float64Array(n);
  }

  /** ‖B‖₁ estimate (allocates a number for its result: `run` and `value` do not) */
  estimate(op: LinearOperator): number {
    this.run(op);
    return this.value;
  }

  /** the estimate into `value`. Allocation-free. */
  run(op: LinearOperator): void {
    const n = this.n;
    if (op.n !== n) throw new RangeError(`the operator has order ${op.n}, the estimator ${n}`);
    const { x, s, direction } = this;
    this.muls = 0; this.adds = 0; this.divs = 0; this.applies = 0; this.tapplies = 0;
    direction.fill(0);
    let jmax = 0;
    const inv = 1 / n;
    for (let i = 0; i < n; i++) x[i] = inv; // (fill() with a double boxes it)
    this.divs++;
    s.fill(0);
    let est = 0, best = -1;
    this.column = -1;
    for (let it = 0; it < 5; it++) {
      if (it > 0) { x.fill(0); x[jmax] = 1; }
      this.product(op, false);
      const old = est;
      this.norm1();
      est = this.sum;
      if (it > 0 && est > best) {
        // y = B e_jmax: the largest column so far
        best = est;
        direction.set(x);
        this.column = jmax;
      }
      let unchanged = true;
      for (let i = 0; i < n; i++) {
        const sg = x[i] >= 0 ? 1 : -1;
        if (sg !== s[i]) { s[i] = sg; unchanged = false; }
      }
      // (KLU keeps the last γ here; the larger of the two is as valid a lower bound, and no smaller)
      if (it > 0 && (est <= old || unchanged)) { est = Math.max(est, old); break; }
      x.set(s);
      this.product(op, true);
      let jnew = 0, xm = 0;
      for (let i = 0; i < n; i++) {
        const a = Math.abs(x[i]);
        if (a > xm) { xm = a; jnew = i; }
      }
      if (it > 0 && jnew === jmax) break;
      jmax = jnew;
    }
    // alternative estimate, b_i = ±(1 + i/(n−1)) with alternating signs
    const den = n > 1 ? n - 1 : 1;
    for (let i = 0; i < n; i++) {
      const b = 1 + i / den;
      x[i] = i % 2 === 1 ? b : -b;
    }
    this.adds += n; this.divs += n;
    this.product(op, false);
    this.norm1();
    const alt = (2 * this.sum) / (3 * n);
    this.muls += 2; this.divs++;
    this.value = alt > est ? alt : est;
  }

  private product(op: LinearOperator, transposed: boolean): void {
    if (transposed) { op.applyTransposed(this.x); this.tapplies++; } else { op.apply(this.x); this.applies++; }
    this.muls += op.muls; this.adds += op.adds; this.divs += op.divs;
  }

  /** ‖x‖₁ into `sum` (a field: a returned double would be boxed) */
  private sum = 0;
  private norm1(): void {
    const x = this.x, n = this.n;
    let t = 0;
    for (let i = 0; i < n; i++) t += Math.abs(x[i]);
    this.adds += n - 1;
    this.sum = t;
  }
}


/** the pattern and values of A, in the CSC order the factors were analysed on */
export interface CscValues {
  readonly Ap: Int32Array;
  readonly Ai: Int32Array;
  readonly Ax: Float64Array;
}

/** Options of a {@link ConditionEstimator}. */
export interface ConditionEstimatorOptions {
  /** estimate κ₁(R A C) for the max-norm row and column equilibration R, C of A (default false) */
  readonly equilibrate?: boolean;
}

/**
 * c = condest(A, lu): an estimate of the 1-norm condition number κ₁(A) = ‖A‖₁ ‖A⁻¹‖₁ from the
 * LU factors of A (Hager's method with Higham's refinements, as KLU's `klu_condest`), a few solves
 * with A and Aᵀ per call, optionally of the equilibrated matrix. Made once per order n; `run`
 * allocates nothing and counts its flops exactly.
 */
export class ConditionEstimator {
  /** order of the matrices it serves */
  readonly n: number;
  readonly equilibrate: boolean;
  /** ‖A‖₁ (‖R A C‖₁ when equilibrated) of the last call */
  anorm = 0;
  /** estimate of ‖A⁻¹‖₁ (‖(R A C)⁻¹‖₁) of the last call */
  ainvNorm = 0;
  /** solves with A, and with Aᵀ, of the last call */
  solves = 0;
  tsolves = 0;
  /** near-null direction of A at the last call, scaled to a largest entry of 1 (that entry positive) */
  readonly direction: Float64Array;
  /** the κ₁ estimate of the last call */
  value = 0;
  /** counts of the last call */
  muls = 0;
  adds = 0;
  divs = 0;
  private readonly est: Norm1Estimator;
  private readonly op: InverseOperator;

  constructor(n: number, opts: ConditionEstimatorOptions = {}) {
    if (!(Number.isInteger(n) && n > 0)) throw new RangeError(`n is ${n}, expected a positive integer`);
    this.n = n;
    this.equilibrate = opts.equilibrate ?? false;
    this.direction = new Float64Array(n);
    this.est = new Norm1Estimator(n);
    this.op = new InverseOperator(n, this.equilibrate);
  }

  /**
   * κ₁ estimate for the factors `lu` of A (A's values in the CSC order that was analysed).
   * Infinity when a pivot is zero or not finite, or (equilibrated) when a row or column is zero.
   */
  estimate(lu: NumericLU, A: CscValues): number {
    this.run(lu, A);
    return this.value;
  }

  /** the estimate into `value` (Infinity when singular). Allocation-free. */
  run(lu: NumericLU, A: CscValues): void {
    const n = this.n;
    if (lu.n !== n) throw new RangeError(`the factors have order ${lu.n}, the estimator ${n}`);
    if (A.Ap.length !== n + 1) throw new RangeError(`Ap has length ${A.Ap.length}, expected n + 1 = ${n + 1}`);
    const direction = this.direction, op = this.op;
    this.muls = 0; this.adds = 0; this.divs = 0; this.solves = 0; this.tsolves = 0;
    direction.fill(0);
    this.anorm = NaN; this.ainvNorm = Infinity; this.value = Infinity;
    for (let k = 0; k < n; k++) {
      const u = lu.pivot(k);
      if (u === 0 || !(u - u === 0)) return;
    }
    if (this.equilibrate) this.scaledNorm(A); else this.norm(A);
    const anorm = this.anorm;
    if (!(anorm > 0 && anorm < Infinity)) { this.value = Infinity; return; }
    op.lu = lu;
    this.est.run(op);
    const est = this.est.value;
    op.lu = null;
    this.ainvNorm = est;
    this.solves = this.est.applies; this.tsolves = this.est.tapplies;
    this.muls += this.est.muls; this.adds += this.est.adds; this.divs += this.est.divs;
    // the direction in A's columns (d = C ŷ), scaled to a largest entry of 1, that entry positive
    direction.set(this.est.direction);
    if (this.equilibrate) {
      const cmax = op.cmax;
      for (let j = 0; j < n; j++) direction[j] /= cmax[j];
      this.divs += n;
    }
    let dm = 0, dk = 0;
    for (let i = 0; i < n; i++) if (Math.abs(direction[i]) > dm) { dm = Math.abs(direction[i]); dk = i; }
    if (dm > 0) {
      const f = direction[dk];
      for (let i = 0; i < n; i++) direction[i] /= f;
      this.divs += n;
    }
    this.muls++;
    this.value = anorm * est;
  }

  /** ‖A‖₁ = max_j Σ_i |a_ij|, into anorm */
  private norm(A: CscValues): void {
    const { Ap, Ax } = A;
    let anorm = 0;
    for (let j = 0; j < this.n; j++) {
      let c = 0;
      const p1 = Ap[j + 1];
      for (let p = Ap[j]; p < p1; p++) c += Math.abs(Ax[p]);
      if (p1 - Ap[j] > 1) this.adds += p1 - Ap[j] - 1;
      if (c > anorm) anorm = c;
    }
    this.anorm = anorm;
  }

  /** R, C of the max-norm equilibration (rows, then columns), and ‖R A C‖₁ into anorm */
  private scaledNorm(A: CscValues): void {
    const { Ap, Ai, Ax } = A;
    const { rmax, cmax } = this.op;
    const n = this.n;
    rmax.fill(0);
    for (let p = 0; p < Ap[n]; p++) {
      const a = Math.abs(Ax[p]);
      if (a > rmax[Ai[p]]) rmax[Ai[p]] = a;
    }
    let anorm = 0;
    for (let j = 0; j < n; j++) {
      let cm = 0, c = 0;
      const p1 = Ap[j + 1];
      for (let p = Ap[j]; p < p1; p++) {
        const a = Math.abs(Ax[p]) / rmax[Ai[p]];
        if (a > cm) cm = a;
        c += a;
      }
      const len = p1 - Ap[j];
      this.divs += len + 1;
      if (len > 1) this.adds += len - 1;
      cmax[j] = cm;
      c /= cm;
      if (c > anorm) anorm = c;
    }
    this.anorm = anorm;
  }
}

/** B = A⁻¹, or C⁻¹ A⁻¹ R⁻¹ when equilibrated, through the LU factors */
class InverseOperator implements LinearOperator {
  lu: NumericLU | null = null;
  muls = 0;
  adds = 0;
  divs = 0;
  /** R⁻¹ (largest |a_ij| of each row) and C⁻¹ (largest |a_ij|/rmax_i of each column) */
  readonly rmax: Float64Array;
  readonly cmax: Float64Array;

  constructor(readonly n: number, readonly scaled: boolean) {
    this.rmax = new Float64Array(scaled ? n : 0);
    this.cmax = new Float64Array(scaled ? n : 0);
  }

  apply(x: Float64Array): void {
    this.product(x, false);
  }

  applyTransposed(x: Float64Array): void {
    this.product(x, true);
  }

  private product(x: Float64Array, transposed: boolean): void {
    const lu = this.lu!, n = this.n;
    const pre = transposed ? this.cmax : this.rmax, post = transposed ? this.rmax : this.cmax;
    let extra = 0;
    if (this.scaled) { for (let i = 0; i < n; i++) x[i] *= pre[i]; extra += n; }
    if (transposed) lu.solveTransposed(x, x); else lu.solve(x, x);
    if (this.scaled) { for (let i = 0; i < n; i++) x[i] *= post[i]; extra += n; }
    this.muls = lu.solveMuls + extra; this.adds = lu.solveAdds; this.divs = lu.solveDivs;
  }
}
