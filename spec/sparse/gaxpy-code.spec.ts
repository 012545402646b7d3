/**
 * The generated y = y₀ + A x (src/sparse/gaxpy-code.ts) against the JavaScript gaxpy bit for bit,
 * and both against a dense product (ml-matrix) to rounding; and the estimator's residual A d + b,
 * now made by it, against a dense product of the system's matrix.
 */
import { Matrix } from 'ml-matrix';
import { describe, expect, it } from 'vitest';
import { Estimator } from '../../src/estimation/estimator.ts';
import { GaxpyCode } from '../../src/sparse/gaxpy-code.ts';
import { csc, gaxpy } from '../../src/sparse/index.ts';
import { loadEstimationSystem } from '../../src/node/problem-file.ts';
import { randomConfiguration } from '../../src/model/random.ts';
import { Rng } from '../../src/model/rng.ts';
import { randomSparse, rng, toDense } from './util.ts';

/** every entry equal, bit for bit (−0 and 0 apart) */
function expectSameBits(a: Float64Array, b: Float64Array): void {
  expect(a.length).toBe(b.length);
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) throw new Error(`entry ${i}: ${a[i]} against ${b[i]}`);
}

describe('GaxpyCode', () => {
  it('gives the JavaScript gaxpy bit for bit, and the dense product to rounding, on random patterns (rows with no entry among them)', () => {
    const rand = rng(7);
    for (const [m, n, perCol] of [[1, 1, 1], [7, 5, 2], [40, 60, 3], [200, 150, 6], [300, 300, 1]] as const) {
      const A = randomSparse(m, n, perCol, rand, false);
      const code = GaxpyCode.create(A), loop = GaxpyCode.create(A, false);
      expect(code.compiled).toBe(true);
      expect(loop.compiled).toBe(false);
      for (let trial = 0; trial < 3; trial++) {
        const Ax = Float64Array.from(A.Ax, () => (rand() - 0.5) * 10 ** (6 * rand() - 3));
        const x = Float64Array.from({ length: n }, () => (rand() - 0.5) * 100);
        const y0 = Float64Array.from({ length: m }, () => rand() - 0.5);
        const ref = gaxpy({ ...A, Ax }, x, Float64Array.from(y0));
        const out = code.gaxpy(Ax, x, y0, new Float64Array(m));
        expectSameBits(out, ref);
        expectSameBits(loop.gaxpy(Ax, x, y0, new Float64Array(m)), ref);
        const dense = toDense({ ...A, Ax }).mmul(Matrix.columnVector(Array.from(x)));
        for (let i = 0; i < m; i++) {
          let scale = Math.abs(y0[i]);
          for (let j = 0; j < n; j++) for (let p = A.Ap[j]; p < A.Ap[j + 1]; p++) if (A.Ai[p] === i) scale += Math.abs(Ax[p] * x[j]);
          expect(Math.abs(out[i] - (y0[i] + dense.get(i, 0)))).toBeLessThanOrEqual(1e-13 * scale);
        }
        // out may be y0
        const y1 = Float64Array.from(y0);
        expectSameBits(code.gaxpy(Ax, x, y1, y1), ref);
        const y2 = Float64Array.from(y0);
        expectSameBits(loop.gaxpy(Ax, x, y2, y2), ref);
      }
    }
  });

  it('handles a matrix without entries and a column pattern with empty columns, generated or not', () => {
    for (const compile of [true, false]) {
      const A = csc(3, 4, Int32Array.of(0, 0, 2, 2, 3), Int32Array.of(0, 2, 1));
      const code = GaxpyCode.create(A, compile);
      expect(code.compiled).toBe(compile);
      const out = code.gaxpy(Float64Array.of(2, 3, 5), Float64Array.of(1, 7, 11, 13), Float64Array.of(1, 1, 1), new Float64Array(3));
      expect(Array.from(out)).toEqual([1 + 2 * 7, 1 + 5 * 13, 1 + 3 * 7]);
      const E = csc(2, 2, Int32Array.of(0, 0, 0), new Int32Array(0));
      expect(Array.from(GaxpyCode.create(E, compile).gaxpy(new Float64Array(0), Float64Array.of(1, 2), Float64Array.of(3, 4), new Float64Array(2)))).toEqual([3, 4]);
    }
  });

  it('refuses arrays of the wrong lengths, naming what it expected', () => {
    const A = csc(2, 2, Int32Array.of(0, 1, 2), Int32Array.of(0, 1));
    for (const compile of [true, false]) {
      expect(() => GaxpyCode.create(A, compile).gaxpy(new Float64Array(3), new Float64Array(2), new Float64Array(2), new Float64Array(2))).toThrow('expected 2 values, x of 2, y of 2');
    }
  });

  it("makes the estimator's residual A d + b: the dense product of the sample's system, to rounding", () => {
    const { es } = loadEstimationSystem('data/problems/humanoid-demo.json');
    const est = new Estimator(es);
    const sys = es.sys, model = sys.model, r = new Rng(3);
    const y = Float64Array.from({ length: sys.ny }, () => r.uniform(-1, 1));
    for (let k = 0; k < 3; k++) {
      const q = randomConfiguration(model, r), v = Float64Array.from({ length: model.nv }, () => r.uniform(-1, 1));
      const d = est.estimate(q, v, y);
      const A = sys.pattern, Ax = est.values.Ax, b = est.values.b;
      const Ad = toDense({ ...A, Ax }).mmul(Matrix.columnVector(Array.from(d)));
      for (let i = 0; i < sys.m; i++) {
        let scale = Math.abs(b[i]);
        for (let j = 0; j < A.n; j++) for (let p = A.Ap[j]; p < A.Ap[j + 1]; p++) if (A.Ai[p] === i) scale += Math.abs(Ax[p] * d[j]);
        expect(Math.abs(est.residual[i] - (Ad.get(i, 0) + b[i]))).toBeLessThanOrEqual(1e-13 * scale + 1e-300);
      }
      // the JavaScript loop's bits
      expectSameBits(est.residual, gaxpy({ ...A, Ax }, d, Float64Array.from(b)));
    }
  });
});
