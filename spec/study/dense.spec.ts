/**
 * The dense LU's flop formulas against the loops ml-matrix runs (node_modules/ml-matrix/src/dc/lu.js,
 * counted here statement by statement), and the dense solve against the sparse one.
 */
import { describe, expect, it } from 'vitest';
import { SparseSolver } from '../../src/assembly/solver.ts';
import { fillSystem, SystemValues } from '../../src/assembly/system.ts';
import { parseModelSpec } from '../../src/node/spec.ts';
import { modelCase } from '../../src/study/cases.ts';
import { DenseLu, denseLuFactorFlops, denseLuSolveFlops } from '../../src/study/dense.ts';
import { expectClose } from '../helpers.ts';

/** ml-matrix's LuDecomposition and solve, with the arithmetic replaced by counting. */
function loopCounts(n: number, nrhs: number): { factor: [number, number, number]; solve: [number, number, number] } {
  let mul = 0, add = 0, div = 0;
  for (let j = 0; j < n; j++) {
    for (let i = 0; i < n; i++) {
      const kmax = Math.min(i, j);
      for (let k = 0; k < kmax; k++) { mul++; add++; } // s += lu[i][k] * col[k]
      add++; // col[i] -= s
    }
    for (let i = j + 1; i < n; i++) div++; // lu[i][j] /= lu[j][j]
  }
  const factor: [number, number, number] = [mul, add, div];
  mul = 0; add = 0; div = 0;
  for (let k = 0; k < n; k++) for (let i = k + 1; i < n; i++) for (let c = 0; c < nrhs; c++) { mul++; add++; }
  for (let k = n - 1; k >= 0; k--) {
    for (let c = 0; c < nrhs; c++) div++;
    for (let i = 0; i < k; i++) for (let c = 0; c < nrhs; c++) { mul++; add++; }
  }
  return { factor, solve: [mul, add, div] };
}

describe('dense LU flops (ml-matrix)', () => {
  for (const [n, r] of [[1, 1], [2, 1], [5, 3], [12, 1], [31, 4]]) {
    it(`formula = loop count at n = ${n}, ${r} right-hand side(s)`, () => {
      const c = loopCounts(n, r);
      const f = denseLuFactorFlops(n), s = denseLuSolveFlops(n, r);
      expect([f.mul, f.add, f.div]).toEqual(c.factor);
      expect([s.mul, s.add, s.div]).toEqual(c.solve);
    });
  }

  it('solves the same system as the sparse LU', () => {
    const model = parseModelSpec('chain:5');
    const c = modelCase('forward-dynamics', model, 'chain:5', 2);
    const sparse = new SparseSolver(c.sys);
    const d = sparse.step(c.q, c.v, c.y);
    const vals = new SystemValues(c.sys);
    fillSystem(vals, c.q, c.v, c.y);
    const dense = new DenseLu(c.sys.n);
    dense.setFromCsc(c.sys.pattern.Ap, c.sys.pattern.Ai, vals.Ax);
    for (let r = 0; r < c.sys.m; r++) dense.B.set(r, 0, -vals.b[r]);
    const X = dense.solve();
    expectClose(X.getColumn(0), d, 1e-10, 'dense vs sparse solution');
  });
});
