/** The acceptance threshold of a kept pivot order (checkTol) against the re-pivoting threshold (tol). */
import { describe, expect, it } from 'vitest';
import { analyze } from '../../src/sparse/analyze.ts';
import { compress } from '../../src/sparse/compress.ts';
import { NumericLU } from '../../src/sparse/numeric.ts';

describe('NumericLU checkTol', () => {
  // A = [[1, 1], [1, ε]]: one 2×2 block; the analysed order (after the block triangular form's
  // permutation) takes ε as the first pivot, |ε| = 1e-4 of its column.
  const build = (eps: number) => compress(2, 2, [0, 0, 1, 1], [0, 1, 0, 1], [1, 1, 1, eps]).A;
  const A = build(1e-4);
  const S = analyze(A, { ordering: 'natural' });
  const solve = (lu: NumericLU) => { const x = new Float64Array(2); lu.solve(x, Float64Array.from([1, 2])); return x; };

  it('re-pivots a pivot below tol when checkTol = tol (KLU default 0.001)', () => {
    expect(new NumericLU(S, { checkTol: 1e-12 }).refactor(A.Ax).pivot(0)).toBe(1e-4);
    const lu = new NumericLU(S).refactor(A.Ax);
    expect(lu.pivoted).toBe(true);
    expect(lu.repivots).toBe(1);
  });

  it('keeps the order while the pivot is above checkTol, and still solves exactly', () => {
    const lu = new NumericLU(S, { checkTol: 1e-6 }).refactor(A.Ax);
    expect(lu.pivoted).toBe(false);
    const x = solve(lu);
    expect(lu.pivot(0)).toBe(1e-4);
    // exact solution of [[1,1],[1,ε]] x = [1,2]: x0 = (ε−2)/(ε−1), x1 = 1/(ε−1); the small pivot
    // costs a growth of 1/ε = 1e4, so the error bound is about 1e4 · 2⁻⁵²
    expect(Math.abs(x[0] - (1e-4 - 2) / (1e-4 - 1))).toBeLessThan(1e-11);
    expect(Math.abs(x[1] - 1 / (1e-4 - 1))).toBeLessThan(1e-11);
    // a pivot that collapses below checkTol is re-pivoted
    const B = build(1e-9);
    lu.refactor(B.Ax);
    expect(lu.pivoted).toBe(true);
  });

  it('rejects an invalid checkTol', () => {
    expect(() => new NumericLU(S, { checkTol: 0 })).toThrow('checkTol is 0, expected a number in (0, 1]');
  });
});
