/**
 * The 1-norm condition estimator on the LU factors (src/sparse/condest.ts) against the condition
 * number computed densely and independently: κ₁ = ‖A‖₁ ‖A⁻¹‖₁ with A⁻¹ from ml-matrix's own LU,
 * and the near-null direction against the smallest right singular vector of ml-matrix's SVD.
 */
import { inverse, Matrix, SingularValueDecomposition } from 'ml-matrix';
import { describe, expect, it } from 'vitest';
import { analyze, ConditionEstimator, factor, Norm1Estimator, type CscMatrix, type LinearOperator } from '../../src/sparse/index.ts';
import { permutedTriangular, randomSparse, rng, toDense } from './util.ts';

function norm1(M: Matrix): number {
  let best = 0;
  for (let j = 0; j < M.columns; j++) {
    let s = 0;
    for (let i = 0; i < M.rows; i++) s += Math.abs(M.get(i, j));
    best = Math.max(best, s);
  }
  return best;
}

const denseCond1 = (A: CscMatrix) => { const D = toDense(A); return norm1(D) * norm1(inverse(D)); };

function estimate(A: CscMatrix, equilibrate = false): { c: number; ce: ConditionEstimator; lu: ReturnType<typeof factor> } {
  const lu = factor(A, analyze(A));
  const ce = new ConditionEstimator(A.n, { equilibrate });
  return { c: ce.estimate(lu, A), ce, lu };
}

/** R A C densely: every row, then every column, scaled to a largest |entry| of 1 */
function equilibrated(A: CscMatrix): CscMatrix {
  const D = toDense(A), n = A.n;
  for (let i = 0; i < n; i++) { const m = Math.max(...D.getRow(i).map(Math.abs)); for (let j = 0; j < n; j++) D.set(i, j, D.get(i, j) / m); }
  for (let j = 0; j < n; j++) { const m = Math.max(...D.getColumn(j).map(Math.abs)); for (let i = 0; i < n; i++) D.set(i, j, D.get(i, j) / m); }
  const Ti: number[] = [], Tj: number[] = [], Tx: number[] = [];
  for (let j = 0; j < n; j++) for (let p = A.Ap[j]; p < A.Ap[j + 1]; p++) { Ti.push(A.Ai[p]); Tj.push(j); Tx.push(D.get(A.Ai[p], j)); }
  return toCsc(n, Ti, Tj, Tx);
}

/** D A with a positive diagonal scaling of the rows spanning 1e-6 .. 1e6 (equations in other units) */
function badlyScaled(A: CscMatrix, rand: () => number): CscMatrix {
  const r = Array.from({ length: A.n }, () => 10 ** (12 * rand() - 6));
  const Ax = Float64Array.from(A.Ax);
  for (let p = 0; p < Ax.length; p++) Ax[p] *= r[A.Ai[p]];
  return { ...A, Ax };
}

describe('ConditionEstimator (Hager/Higham, as KLU condest)', () => {
  it('is a lower bound of the dense κ₁, within a factor 3, on random sparse matrices', () => {
    let exact = 0, total = 0, logRatio = 0;
    for (const n of [2, 5, 12, 30, 60]) {
      for (let seed = 1; seed <= 6; seed++) {
        const A = randomSparse(n, n, 3, rng(100 * n + seed));
        const k = denseCond1(A);
        const { c, ce } = estimate(A);
        expect(c).toBeLessThanOrEqual(k * (1 + 1e-10));
        expect(c).toBeGreaterThanOrEqual(k / 3);
        expect(ce.anorm).toBeCloseTo(norm1(toDense(A)), 12);
        if (Math.abs(c - k) <= 1e-9 * k) exact++;
        logRatio += Math.log(c / k);
        total++;
      }
    }
    // Higham reports the estimate exact in most cases (a test any lower bound would pass is not enough)
    expect(exact / total).toBeGreaterThan(0.5);
    expect(Math.exp(logRatio / total)).toBeGreaterThan(0.9);
  });

  it('works through the block triangular form (permuted triangular matrices: all blocks 1×1)', () => {
    for (let seed = 1; seed <= 5; seed++) {
      const A = permutedTriangular(25, 2, rng(seed));
      const k = denseCond1(A);
      const { c } = estimate(A);
      expect(c).toBeLessThanOrEqual(k * (1 + 1e-10));
      expect(c).toBeGreaterThanOrEqual(k / 3);
    }
  });

  it('grows as 1/ε near a singular matrix, and its direction is the near-null vector', () => {
    const n = 20, rand = rng(7);
    const A0 = randomSparse(n, n, 4, rand);
    // make A0 singular: replace one column by a combination of two others, then move it by ε
    const D = toDense(A0);
    const svd0 = new SingularValueDecomposition(D);
    const v = svd0.rightSingularVectors.getColumn(n - 1);
    const u = svd0.leftSingularVectors.getColumn(n - 1);
    const s = svd0.diagonal[n - 1];
    let prev = 0;
    for (const eps of [1e-2, 1e-4, 1e-6, 1e-8]) {
      // A = A0 − (s − ε·σ₁) u vᵀ: smallest singular value ε·σ₁, same pattern only if dense; use a dense CSC
      const sigma1 = svd0.diagonal[0];
      const Ti: number[] = [], Tj: number[] = [], Tx: number[] = [];
      for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) { Ti.push(i); Tj.push(j); Tx.push(D.get(i, j) - (s - eps * sigma1) * u[i] * v[j]); }
      const A: CscMatrix = toCsc(n, Ti, Tj, Tx);
      const k = denseCond1(A);
      const { c, ce } = estimate(A);
      // the dense inverse itself is accurate only to about κ·u
      expect(c).toBeLessThanOrEqual(k * (1 + 1e-14 * k));
      expect(c).toBeGreaterThanOrEqual(k / 3);
      expect(c).toBeGreaterThan(prev * 50);
      prev = c;
      // direction ∥ v: |cos| → 1
      const d = ce.direction;
      let dot = 0, nd = 0;
      for (let i = 0; i < n; i++) { dot += d[i] * v[i]; nd += d[i] * d[i]; }
      expect(1 - Math.abs(dot) / Math.sqrt(nd)).toBeLessThan(10 * eps);
      expect(Math.max(...Array.from(d, Math.abs))).toBe(1);
    }
  });

  it('counts its flops exactly: the solves, the norms and the vectors it sets up', () => {
    const A = randomSparse(40, 40, 3, rng(3));
    const { ce, lu } = estimate(A);
    const n = A.n;
    const F = lu.symbolic.Lp[n] + lu.symbolic.Up[n] + lu.symbolic.Op[n]; // off-pivot slots: one multiply-subtract each per solve
    let anormAdds = 0;
    for (let j = 0; j < n; j++) anormAdds += Math.max(0, A.Ap[j + 1] - A.Ap[j] - 1);
    const solves = ce.solves + ce.tsolves;
    expect(ce.solves).toBeGreaterThanOrEqual(3);
    expect(ce.muls).toBe(solves * F + 3);
    expect(ce.adds).toBe(solves * F + anormAdds + ce.solves * (n - 1) + n);
    expect(ce.divs).toBe(solves * n + 1 + n + 1 + n);
    // equilibrated: two more scalings per solve, one division per entry and per column for R A C, n for the direction
    const eq = estimate(A, true).ce;
    const solves2 = eq.solves + eq.tsolves;
    expect(eq.muls).toBe(solves2 * (F + 2 * n) + 3);
    expect(eq.adds).toBe(solves2 * F + anormAdds + eq.solves * (n - 1) + n);
    expect(eq.divs).toBe(solves2 * n + A.Ap[n] + n + 1 + n + 1 + n + n);
  });

  it('equilibrated: estimates κ₁(R A C) of the dense equilibration, whatever the scaling of the rows', () => {
    for (let seed = 1; seed <= 8; seed++) {
      const rand = rng(seed);
      const A = randomSparse(25, 25, 3, rand);
      const k = denseCond1(equilibrated(A));
      const { c } = estimate(A, true);
      expect(c).toBeLessThanOrEqual(k * (1 + 1e-10));
      expect(c).toBeGreaterThanOrEqual(k / 3);
      const B = badlyScaled(A, rand);
      expect(denseCond1(B)).toBeGreaterThan(1e3 * k); // the raw condition number sees the units
      const cb = estimate(B, true).c;
      expect(Math.abs(cb - c)).toBeLessThan(1e-8 * c);
    }
  });

  it('refuses factors of another order', () => {
    const A = randomSparse(6, 6, 2, rng(1));
    const lu = factor(A, analyze(A));
    expect(() => new ConditionEstimator(7).estimate(lu, A)).toThrow(/order 6, the estimator 7/);
  });
});

function toCsc(n: number, Ti: number[], Tj: number[], Tx: number[]): CscMatrix {
  const Ap = new Int32Array(n + 1), Ai = new Int32Array(Ti.length), Ax = new Float64Array(Ti.length);
  const order = Ti.map((_, k) => k).sort((a, b) => Tj[a] - Tj[b] || Ti[a] - Ti[b]);
  order.forEach((k, t) => { Ai[t] = Ti[k]; Ax[t] = Tx[k]; Ap[Tj[k] + 1]++; });
  for (let j = 0; j < n; j++) Ap[j + 1] += Ap[j];
  return { m: n, n, Ap, Ai, Ax };
}

/** B x with a dense matrix (ml-matrix), counting n² multiply-adds */
class DenseOperator implements LinearOperator {
  muls = 0; adds = 0; divs = 0;
  readonly n: number;
  constructor(readonly B: Matrix) { this.n = B.rows; }
  apply(x: Float64Array): void { this.mul(this.B, x); }
  applyTransposed(x: Float64Array): void { this.mul(this.B.transpose(), x); }
  private mul(M: Matrix, x: Float64Array): void {
    const y = M.mmul(Matrix.columnVector(Array.from(x))).getColumn(0);
    x.set(y); this.muls = this.n * this.n; this.adds = this.n * (this.n - 1);
  }
}

describe('Norm1Estimator (any operator given by its products)', () => {
  it('estimates ‖B‖₁ of dense matrices as a lower bound within a factor 3, and names the column it found', () => {
    const rand = rng(11);
    const est = new Norm1Estimator(15);
    let exact = 0;
    for (let t = 0; t < 20; t++) {
      const B = new Matrix(15, 15);
      for (let i = 0; i < 15; i++) for (let j = 0; j < 15; j++) B.set(i, j, (rand() - 0.5) * (j === t % 15 ? 10 : 1));
      const k = norm1(B);
      for (const e of [est]) {
        const g = e.estimate(new DenseOperator(B));
        expect(g).toBeLessThanOrEqual(k * (1 + 1e-12));
        expect(g).toBeGreaterThanOrEqual(k / 3);
        if (Math.abs(g - k) < 1e-12 * k) exact++;
      }
      // the column it reports is B e_j
      expect(Array.from(est.direction)).toEqual(B.getColumn(est.column).map((v) => expect.closeTo(v, 12) as unknown as number));
    }
    expect(exact).toBeGreaterThan(15);
  });
});
