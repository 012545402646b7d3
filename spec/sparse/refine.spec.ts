/**
 * Iterative refinement and row scaling of NumericLU, on matrices whose exact solution is known:
 * integer matrices with tiny dyadic pivots (2⁻³⁰) that the kept pivot order must take, and integer
 * solutions, so that b = A x is exact and every error is the solver's own. Checked against that
 * exact x and against ml-matrix's dense LU with partial pivoting; flop counts against the counts
 * derived from the symbolic patterns.
 */
import { LuDecomposition, Matrix } from 'ml-matrix';
import { describe, expect, it } from 'vitest';
import { analyze, compress, NumericLU, transpose, type CscMatrix, type SymbolicLU } from '../../src/sparse/index.ts';
import { rng, toDense } from './util.ts';

/** n×n integer matrix, diagonal entries 2⁻³⁰ on every third column, ~3 off-diagonal entries per column. */
function tinyPivotMatrix(n: number, seed: number): CscMatrix {
  const rand = rng(seed);
  const Ti: number[] = [], Tj: number[] = [], Tx: number[] = [];
  for (let j = 0; j < n; j++) {
    Ti.push(j); Tj.push(j); Tx.push(j % 3 === 0 ? 2 ** -30 : Math.round(4 * rand()) + 1);
    for (let t = 0; t < 3; t++) {
      const i = Math.floor(rand() * n);
      if (i !== j) { Ti.push(i); Tj.push(j); Tx.push(Math.round(8 * rand()) - 4 || 1); }
    }
  }
  return compress(n, n, Ti, Tj, Tx).A;
}

/** integer x and the exact b = A x */
function exactSystem(A: CscMatrix, seed: number): { x: Float64Array; b: Float64Array } {
  const rand = rng(seed);
  const x = Float64Array.from({ length: A.n }, () => Math.round(10 * rand()) - 5);
  const b = new Float64Array(A.m);
  for (let j = 0; j < A.n; j++) for (let p = A.Ap[j]; p < A.Ap[j + 1]; p++) b[A.Ai[p]] += A.Ax[p] * x[j];
  return { x, b };
}

/** entries and rows of C's diagonal blocks of size ≥ 2 */
const nzBig = (S: SymbolicLU) => { let nz = 0; for (let k = 0; k < S.nblocks; k++) if (S.r[k + 1] - S.r[k] > 1) nz += S.Bp[S.r[k + 1]] - S.Bp[S.r[k]]; return nz; };
const nbBig = (S: SymbolicLU) => { let nb = 0; for (let k = 0; k < S.nblocks; k++) if (S.r[k + 1] - S.r[k] > 1) nb += S.r[k + 1] - S.r[k]; return nb; };

const maxDiff = (a: ArrayLike<number>, b: ArrayLike<number>) => { let e = 0; for (let k = 0; k < a.length; k++) e = Math.max(e, Math.abs(a[k] - b[k])); return e; };

/** flops of one working-precision refinement step over every block of size ≥ 2, from the patterns */
function stepFlops(S: SymbolicLU): { muls: number; adds: number; divs: number } {
  let muls = 0, adds = 0, divs = 0;
  for (let b = 0; b < S.nblocks; b++) {
    const k1 = S.r[b], k2 = S.r[b + 1], nb = k2 - k1;
    if (nb < 2) continue;
    const nz = S.Bp[k2] - S.Bp[k1];
    const lu = (S.Lp[k2] - S.Lp[k1]) + (S.Up[k2] - S.Up[k1]);
    muls += nz + lu;
    adds += nz + lu + nb;
    divs += nb;
  }
  return { muls, adds, divs };
}

describe('NumericLU iterative refinement', () => {
  const A = tinyPivotMatrix(40, 5);
  const { x, b } = exactSystem(A, 6);
  // the natural order takes the 2⁻³⁰ pivots: growth of about 4e9, accepted on purpose
  const S = analyze(A, { ordering: 'natural' });
  const kept = { checkTol: 1e-12, growthLimit: 1e16 };
  const solve = (opts: object) => {
    const lu = new NumericLU(S, { ...kept, ...opts }).refactor(A.Ax);
    return { lu, y: lu.solve(new Float64Array(A.n), b) };
  };

  it('the kept order loses digits; refinement with the same factors recovers them', () => {
    expect(S.maxBlock).toBeGreaterThan(30);
    const base = solve({});
    expect(base.lu.repivots).toBe(0);
    expect(base.lu.rgrowth(A.Ax)).toBeLessThan(1e-8);
    expect(maxDiff(base.y, x)).toBeGreaterThan(1e-6);
    const r1 = solve({ refine: 1 }), r2 = solve({ refine: 2 });
    expect(maxDiff(r1.y, x)).toBeLessThan(1e-3 * maxDiff(base.y, x));
    // as accurate as a dense LU with partial pivoting (an independent, stable solver)
    const dense = new LuDecomposition(new Matrix(toDense(A))).solve(Matrix.columnVector(Array.from(b))).to1DArray();
    expect(maxDiff(r2.y, x)).toBeLessThan(Math.max(10 * maxDiff(dense, x), 1e-13));
    expect(r2.lu.refineSteps).toBe(2);
  });

  it('an extended-precision residual converges to the exact solution', () => {
    const { y, lu } = solve({ refine: 3, residual: 'extended' });
    expect(maxDiff(y, x)).toBeLessThan(1e-15);
    expect(lu.refineSteps).toBeGreaterThanOrEqual(2);
  });

  it('stops once the correction is below refineTol of the solution', () => {
    const { lu } = solve({ refine: 5, refineTol: 1e-6 });
    // step 1 corrects ~1e-5 of |y|, step 2 ~1e-11 of it: below 1e-6, so no third step
    expect(lu.refineSteps).toBe(2);
  });

  it('counts exactly: the solve plus, per step, the residual, the block solve and the update', () => {
    const base = solve({});
    for (const steps of [1, 2]) {
      const { lu } = solve({ refine: steps, refineWhen: 'always' });
      const f = stepFlops(lu.symbolic);
      expect([lu.refineMuls, lu.refineAdds, lu.refineDivs]).toEqual([steps * f.muls, steps * f.adds, steps * f.divs]);
      expect([lu.solveMuls, lu.solveAdds, lu.solveDivs]).toEqual([base.lu.solveMuls + lu.refineMuls, base.lu.solveAdds + lu.refineAdds, base.lu.solveDivs + lu.refineDivs]);
      expect(lu.factorMuls + lu.factorAdds + lu.factorDivs).toBe(lu.symbolic.factorFlops);
    }
    // extended residual: 21 flops per entry, 4 per column to split y, 1 per row to round
    const { lu } = solve({ refine: 1, residual: 'extended' });
    const f = stepFlops(lu.symbolic);
    let nz = 0, nb = 0;
    for (let k = 0; k < S.nblocks; k++) if (S.r[k + 1] - S.r[k] > 1) { nz += S.Bp[S.r[k + 1]] - S.Bp[S.r[k]]; nb += S.r[k + 1] - S.r[k]; }
    expect(lu.refineMuls + lu.refineAdds + lu.refineDivs).toBe(f.muls + f.adds + f.divs - 2 * nz + 21 * nz + 4 * nb + nb);
  });

  it('tests the backward error first (Oettli–Prager): refines where it fails, counted exactly', () => {
    // the 2⁻³⁰ pivots: the test fails in every block of size ≥ 2, and the step runs as with 'always'
    const always = solve({ refine: 1, refineWhen: 'always' });
    const needed = solve({ refine: 1, refineWhen: 'needed' });
    let nz = 0, nb = 0, big = 0;
    for (let k = 0; k < S.nblocks; k++) if (S.r[k + 1] - S.r[k] > 1) { nz += S.Bp[S.r[k + 1]] - S.Bp[S.r[k]]; nb += S.r[k + 1] - S.r[k]; big++; }
    expect(needed.lu.refineTests).toBe(big);
    expect(needed.lu.refineFailed).toBe(big);
    expect(Array.from(needed.y)).toEqual(Array.from(always.y));
    // the test: one addition per entry (Σ|c·y|) and one multiplication per row (ω s_i) beside the residual
    const f = stepFlops(S);
    expect([needed.lu.refineMuls, needed.lu.refineAdds, needed.lu.refineDivs]).toEqual([f.muls + nb, f.adds + nz, f.divs]);
    expect(needed.lu.solveMuls - needed.lu.refineMuls).toBe(always.lu.solveMuls - always.lu.refineMuls);
    // a well-conditioned matrix (no tiny pivot): the test passes, no correction, the unrefined solution bit for bit
    const W = tinyPivotMatrix(40, 5);
    for (let j = 0; j < W.n; j++) for (let t = W.Ap[j]; t < W.Ap[j + 1]; t++) if (W.Ai[t] === j) W.Ax[t] = 64;
    const wb = exactSystem(W, 7).b;
    const SW = analyze(W, { ordering: 'natural' });
    const plain = new NumericLU(SW).refactor(W.Ax);
    const y0 = plain.solve(new Float64Array(W.n), wb);
    const tested = new NumericLU(SW, { refine: 1, refineWhen: 'needed' }).refactor(W.Ax);
    const y1 = tested.solve(new Float64Array(W.n), wb);
    expect(tested.refineTests).toBeGreaterThan(0);
    expect(tested.refineFailed).toBe(0);
    expect(tested.refineSteps).toBe(0);
    expect(Array.from(y1)).toEqual(Array.from(y0));
    expect(tested.refineMuls + tested.refineAdds + tested.refineDivs).toBe(3 * nzBig(SW) + nbBig(SW));
  });

  it('solveMany refines every right-hand side alike; solveTransposed refines too', () => {
    const lu = new NumericLU(S, { ...kept, refine: 2 }).refactor(A.Ax);
    const one = lu.solve(new Float64Array(A.n), b);
    const counts = [lu.solveMuls, lu.solveAdds, lu.solveDivs];
    const B = new Float64Array(3 * A.n);
    for (let c = 0; c < 3; c++) B.set(b, c * A.n);
    const X = lu.solveMany(new Float64Array(3 * A.n), B, 3);
    for (let c = 0; c < 3; c++) expect(Array.from(X.subarray(c * A.n, (c + 1) * A.n))).toEqual(Array.from(one));
    expect([lu.solveMuls, lu.solveAdds, lu.solveDivs]).toEqual(counts.map((v) => 3 * v));
    // Aᵀ x = bt with bt = Aᵀ x exact
    const At = transpose(A);
    const { b: bt } = exactSystem(At, 6);
    const plain = new NumericLU(S, kept).refactor(A.Ax).solveTransposed(new Float64Array(A.n), bt);
    const refined = lu.solveTransposed(new Float64Array(A.n), bt);
    // Aᵀ is the harder system here (errors of 1e3 unrefined); working precision gains eight digits
    // in two steps, the extended residual all of them
    expect(maxDiff(plain, x)).toBeGreaterThan(1);
    expect(maxDiff(refined, x)).toBeLessThan(1e-8 * maxDiff(plain, x));
    const withX = new NumericLU(S, { ...kept, refine: 3, residual: 'extended' }).refactor(A.Ax).solveTransposed(new Float64Array(A.n), bt);
    expect(maxDiff(withX, x)).toBeLessThan(1e-15);
  });

  it('solveUnrefined and solveTransposedUnrefined: the same factors without the refinement step, counted as the plain solves', () => {
    const base = solve({});
    const lu = new NumericLU(S, { ...kept, refine: 1 }).refactor(A.Ax);
    const refined = lu.solve(new Float64Array(A.n), b);
    const y = lu.solveUnrefined(new Float64Array(A.n), b);
    // the digits the kept order loses are lost again (as by factors without refinement), and the
    // counts are the plain solve's, no refinement counted
    expect(maxDiff(y, x)).toBeGreaterThan(0.1 * maxDiff(base.y, x));
    expect(maxDiff(y, x)).toBeGreaterThan(1e3 * maxDiff(refined, x));
    expect([lu.solveMuls, lu.solveAdds, lu.solveDivs]).toEqual([base.lu.solveMuls, base.lu.solveAdds, base.lu.solveDivs]);
    expect([lu.refineMuls, lu.refineSteps]).toEqual([0, 0]);
    // x may alias b
    expect(Array.from(lu.solveUnrefined(Float64Array.from(b), Float64Array.from(b)))).toEqual(Array.from(y));
    // without refinement in the options, `solve` itself (bit for bit)
    expect(Array.from(base.lu.solveUnrefined(new Float64Array(A.n), b))).toEqual(Array.from(base.y));
    const At = transpose(A);
    const { b: bt } = exactSystem(At, 6);
    const plainT = base.lu.solveTransposed(new Float64Array(A.n), bt);
    const t = lu.solveTransposedUnrefined(new Float64Array(A.n), bt);
    expect(maxDiff(t, x)).toBeGreaterThan(0.1 * maxDiff(plainT, x));
    expect(maxDiff(t, x)).toBeGreaterThan(1e3 * maxDiff(lu.solveTransposed(new Float64Array(A.n), bt), x));
    lu.solveTransposedUnrefined(new Float64Array(A.n), bt);
    expect([lu.solveMuls, lu.solveAdds, lu.solveDivs, lu.refineMuls]).toEqual([base.lu.solveMuls, base.lu.solveAdds, base.lu.solveDivs, 0]);
    expect(Array.from(base.lu.solveTransposedUnrefined(new Float64Array(A.n), bt))).toEqual(Array.from(plainT));
  });

  it('x may alias b', () => {
    const lu = new NumericLU(S, { ...kept, refine: 2 }).refactor(A.Ax);
    const y = Float64Array.from(b);
    lu.solve(y, y);
    expect(maxDiff(y, x)).toBeLessThan(1e-12);
  });

  it('rejects invalid options, naming them', () => {
    expect(() => new NumericLU(S, { refine: -1 })).toThrow('refine is -1, expected a non-negative integer');
    expect(() => new NumericLU(S, { refine: 1.5 })).toThrow('refine is 1.5, expected a non-negative integer');
    expect(() => new NumericLU(S, { residual: 'quad' as never })).toThrow('residual is "quad", expected working or extended');
    expect(() => new NumericLU(S, { refineTol: 1 })).toThrow('refineTol is 1, expected a number in [0, 1)');
  });
});

describe('NumericLU row scaling', () => {
  it('with a kept pivot order, scaling by powers of two changes no bit of the solution', () => {
    const A = tinyPivotMatrix(40, 5);
    const { b } = exactSystem(A, 8);
    const S = analyze(A, { ordering: 'natural' });
    // thresholds that accept every pivot: scaling then cannot change a decision
    const opts = { checkTol: 1e-300, growthLimit: 1e300 };
    const plain = new NumericLU(S, opts).refactor(A.Ax);
    const y0 = plain.solve(new Float64Array(A.n), b);
    const rand = rng(9);
    const fixed = Array.from({ length: A.n }, () => 10 ** (6 * rand() - 3));
    for (const scale of ['max', fixed] as const) {
      const lu = new NumericLU(S, { ...opts, scale }).refactor(A.Ax);
      expect(lu.repivots).toBe(0);
      expect(Array.from(lu.solve(new Float64Array(A.n), b))).toEqual(Array.from(y0));
      expect(Array.from(lu.solveTransposed(new Float64Array(A.n), b))).toEqual(Array.from(plain.solveTransposed(new Float64Array(A.n), b)));
      // one multiplication per entry at the refactor, one per row at each solve
      expect(lu.scaleMuls).toBe(A.Ap[A.n]);
      expect(lu.factorMuls).toBe(plain.factorMuls + A.Ap[A.n]);
      lu.solve(new Float64Array(A.n), b);
      plain.solve(new Float64Array(A.n), b);
      expect(lu.solveMuls).toBe(plain.solveMuls + A.n);
    }
  });

  it('decides the threshold test: a row of small units no longer triggers a re-pivot', () => {
    // A = [[1, 1], [δ², δ]]: the analysed order pivots first on δ, 1e-4 of its column unscaled and
    // as large as the rest of it once each row is divided by its largest entry
    const d = 2 ** -13;
    const A = compress(2, 2, [0, 0, 1, 1], [0, 1, 0, 1], [1, 1, d * d, d]).A;
    const S = analyze(A, { ordering: 'natural' });
    expect([S.p[0], S.q[0]]).toEqual([1, 1]);
    const plain = new NumericLU(S, { checkTol: 1e-3 }).refactor(A.Ax);
    expect(plain.pivoted).toBe(true);
    const scaled = new NumericLU(S, { checkTol: 1e-3, scale: 'max' }).refactor(A.Ax);
    expect(scaled.pivoted).toBe(false);
    expect(scaled.pivot(0)).toBe(1); // δ scaled by 2¹³
    // fixed factors divide the rows the same way: row 1 by δ (its largest entry, known offline)
    const fixed = new NumericLU(S, { checkTol: 1e-3, scale: [1, d] }).refactor(A.Ax);
    expect(fixed.pivoted).toBe(false);
    expect(fixed.pivot(0)).toBe(1);
    // x = (−1, 2): b = (1, 2δ − δ²), exact in binary
    const y = scaled.solve(new Float64Array(2), Float64Array.of(1, 2 * d - d * d));
    expect(maxDiff(y, [-1, 2])).toBeLessThan(1e-12);
    // Aᵀ z = (δ² − 1, δ − 1)... with z = (−1, 1): Aᵀ z = (−1 + δ², −1 + δ)
    const z = scaled.solveTransposed(new Float64Array(2), Float64Array.of(d * d - 1, d - 1));
    expect(maxDiff(z, [-1, 1])).toBeLessThan(1e-12);
  });

  it('rejects invalid scale factors', () => {
    const A = tinyPivotMatrix(6, 1);
    const S = analyze(A);
    expect(() => new NumericLU(S, { scale: [1, 2] })).toThrow('scale has 2 factors, expected one per row of A (6)');
    expect(() => new NumericLU(S, { scale: [1, 1, 1, 0, 1, 1] })).toThrow('scale[3] is 0, expected a positive finite number');
    expect(() => new NumericLU(S, { scale: 'sum' as never })).toThrow('scale is "sum", expected none, max or one factor per row');
  });
});
