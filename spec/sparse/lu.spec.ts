/**
 * Numeric LU: solutions against ml-matrix's dense LU, residuals, exact flop counters, re-pivoting,
 * singular matrices, JSON round trip, both kernels, many right-hand sides.
 */
import { LuDecomposition, Matrix } from 'ml-matrix';
import { describe, expect, it } from 'vitest';
import {
  analyze,
  compress,
  factor,
  luSolve,
  matvec,
  NumericLU,
  relativeResidual,
  SingularPivotError,
  SymbolicLU,
  type CscMatrix,
} from '../../src/sparse/index.ts';
import { expectClose } from '../helpers.ts';
import { permutedTriangular, randomSparse, rhs, rng, toDense } from './util.ts';

/** ‖A x − b‖∞ / (‖A‖∞ ‖x‖∞ + ‖b‖∞): the backward error a stable LU keeps near machine precision. */
function backwardError(A: CscMatrix, x: Float64Array, b: Float64Array): number {
  const r = matvec(new Float64Array(A.m), A, x);
  const rowSum = new Float64Array(A.m);
  for (let j = 0; j < A.n; j++) for (let t = A.Ap[j]; t < A.Ap[j + 1]; t++) rowSum[A.Ai[t]] += Math.abs(A.Ax[t]);
  let rn = 0, an = 0, xn = 0, bn = 0;
  for (let i = 0; i < A.m; i++) {
    rn = Math.max(rn, Math.abs(r[i] - b[i]));
    an = Math.max(an, rowSum[i]);
    bn = Math.max(bn, Math.abs(b[i]));
  }
  for (let j = 0; j < A.n; j++) xn = Math.max(xn, Math.abs(x[j]));
  return rn / (an * xn + bn);
}

/**
 * Bound on the backward error of threshold partial pivoting (tol = 0.001 lets pivots be small, as
 * in KLU): 64·eps times the pivot growth 1/rgrowth.
 */
function growthBound(lu: NumericLU, Ax: Float64Array): number {
  return 64 * Number.EPSILON * Math.max(1, 1 / lu.rgrowth(Ax));
}

function expectCountsMatch(lu: NumericLU): void {
  const S = lu.symbolic;
  expect(lu.factorMuls).toBe(S.factorMuls);
  expect(lu.factorAdds).toBe(S.factorAdds);
  expect(lu.factorDivs).toBe(S.factorDivs);
}

describe('factor and solve against ml-matrix dense LU', () => {
  it('random square matrices: same solution, backward error within eps times the pivot growth', () => {
    const rand = rng(1234);
    for (let trial = 0; trial < 80; trial++) {
      const n = 1 + Math.floor(rand() * 60);
      const A = randomSparse(n, n, Math.floor(rand() * 4), rand);
      const b = Float64Array.from({ length: n }, () => rand() - 0.5);
      const lu = factor(A, analyze(A));
      const x = lu.solve(new Float64Array(n), b);
      expect(backwardError(A, x, b), `trial ${trial}, n = ${n}`).toBeLessThan(growthBound(lu, A.Ax));
      const dense = new LuDecomposition(toDense(A));
      const xd = dense.solve(Matrix.columnVector(Array.from(b))).getColumn(0);
      expectClose(x, xd, 1e-8, `x, trial ${trial}`); // conditioning of these random matrices is modest
      expectCountsMatch(lu);
    }
  });

  it('L U = A(p,q) within the diagonal blocks, for both kernels', () => {
    const rand = rng(55);
    for (const kernel of ['mapped', 'scatter'] as const) {
      const A = randomSparse(40, 40, 3, rand);
      const lu = factor(A, analyze(A), { kernel });
      expect(lu.kernel).toBe(kernel);
      const S = lu.symbolic;
      const LU = toDense(lu.getL()).mmul(toDense(lu.getU()));
      const D = toDense(A);
      for (let b = 0; b < S.nblocks; b++) {
        for (let i = S.r[b]; i < S.r[b + 1]; i++) {
          for (let j = S.r[b]; j < S.r[b + 1]; j++) expect(Math.abs(LU.get(i, j) - D.get(S.p[i], S.q[j]))).toBeLessThan(growthBound(lu, A.Ax));
        }
      }
    }
  });

  it('the mapped and scatter kernels give the same factors and the same counts', () => {
    const A = randomSparse(120, 120, 3, rng(6));
    const S = analyze(A);
    const a = factor(A, S, { kernel: 'mapped' });
    const c = factor(A, S, { kernel: 'scatter' });
    expectClose(a.LUx, c.LUx, 1e-15, 'LUx');
    expect([a.factorMuls, a.factorAdds, a.factorDivs]).toEqual([c.factorMuls, c.factorAdds, c.factorDivs]);
    const auto = factor(A, S, { mapLimit: 0 });
    expect(auto.kernel).toBe(S.factorMuls === 0 ? 'mapped' : 'scatter');
  });
});

describe('refactor with new values on the same pattern', () => {
  it('matches a fresh factorization, counts equal the symbolic prediction, solves are exact in the counts too', () => {
    const rand = rng(77);
    const n = 150;
    const T = { i: [] as number[], j: [] as number[] };
    const A0 = randomSparse(n, n, 3, rand);
    for (let j = 0; j < n; j++) for (let t = A0.Ap[j]; t < A0.Ap[j + 1]; t++) {
      T.i.push(A0.Ai[t]);
      T.j.push(j);
    }
    const { A, slot } = compress(n, n, T.i, T.j, A0.Ax);
    const S = analyze(A);
    const lu = factor(A, S);
    const b = rhs(n);
    const x = new Float64Array(n);
    for (let step = 0; step < 5; step++) {
      // New values written straight into A.Ax through the triplet → slot map.
      for (let t = 0; t < slot.length; t++) A.Ax[slot[t]] = A0.Ax[t] * (1 + 0.1 * Math.sin(step + t));
      lu.refactor(A.Ax);
      expectCountsMatch(lu);
      lu.solve(x, b);
      expect(lu.solveMuls).toBe(lu.symbolic.solveMuls);
      expect(lu.solveAdds).toBe(lu.symbolic.solveAdds);
      expect(lu.solveDivs).toBe(lu.symbolic.solveDivs);
      expect(backwardError(A, x, b)).toBeLessThan(growthBound(lu, A.Ax));
    }
  });

  it('solveMany equals one solve per column (x may alias b), counts add up', () => {
    const A = randomSparse(50, 50, 3, rng(3));
    const lu = factor(A, analyze(A));
    const nrhs = 4;
    const B = Float64Array.from({ length: 50 * nrhs }, (_, k) => Math.cos(k));
    const X = lu.solveMany(new Float64Array(B.length), B, nrhs);
    expect(lu.solveMuls).toBe(nrhs * lu.symbolic.solveMuls);
    for (let c = 0; c < nrhs; c++) {
      const bc = B.slice(c * 50, (c + 1) * 50);
      const xc = lu.solve(bc, bc); // aliasing
      expect(Array.from(X.subarray(c * 50, (c + 1) * 50))).toEqual(Array.from(xc));
    }
    const Y = B.slice();
    lu.solveMany(Y, Y, nrhs);
    expect(Array.from(Y)).toEqual(Array.from(X));
  });

  it('solveManySparse equals solveMany; a dense right-hand side costs as much, unit ones less', () => {
    const rand = rng(23);
    const zero = (v: number) => v + 0; // -0 → 0: skipped columns may change the sign of a zero
    for (let trial = 0; trial < 10; trial++) {
      const n = 20 + Math.floor(rand() * 60);
      const A = randomSparse(n, n, 2, rand);
      const lu = factor(A, analyze(A));
      const B = Float64Array.from({ length: 3 * n }, () => rand() - 0.5);
      const X = lu.solveMany(new Float64Array(B.length), B, 3);
      const full = [lu.solveMuls, lu.solveAdds, lu.solveDivs];
      const Y = lu.solveManySparse(new Float64Array(B.length), B, 3);
      expect(Array.from(Y)).toEqual(Array.from(X));
      expect([lu.solveMuls, lu.solveAdds, lu.solveDivs]).toEqual(full);
      // unit right-hand sides e_0 .. e_{n-1}
      const E = new Float64Array(n * n);
      for (let k = 0; k < n; k++) E[k * n + k] = 1;
      const XE = lu.solveMany(new Float64Array(E.length), E, n);
      const fullE = lu.solveMuls;
      const YE = E.slice();
      lu.solveManySparse(YE, YE, n); // aliasing
      expect(Array.from(YE, zero)).toEqual(Array.from(XE, zero));
      expect(lu.solveMuls).toBe(lu.solveAdds);
      expect(lu.solveDivs).toBe(n * n);
      expect(lu.solveMuls).toBeLessThanOrEqual(fullE);
    }
    // a triangular matrix: e_k reaches only the rows it can, k of them or fewer
    const T = randomSparse(30, 30, 1, rng(5));
    const lt = factor(T, analyze(T));
    const e = new Float64Array(30);
    e[0] = 1;
    lt.solveManySparse(e, e, 1);
    expect(lt.solveMuls).toBeLessThan(lt.symbolic.solveMuls);
  });

  it('solveTransposed solves Aᵀ x = b, with the same counts as solve', () => {
    const rand = rng(17);
    for (let trial = 0; trial < 20; trial++) {
      const n = 1 + Math.floor(rand() * 70);
      const A = randomSparse(n, n, 1 + Math.floor(rand() * 3), rand);
      const lu = factor(A, analyze(A));
      const b = Float64Array.from({ length: n }, () => rand() - 0.5);
      const x = lu.solveTransposed(new Float64Array(n), b);
      expect(lu.solveMuls + lu.solveAdds + lu.solveDivs).toBe(lu.symbolic.solveFlops);
      const xd = new LuDecomposition(toDense(A).transpose()).solve(Matrix.columnVector(Array.from(b))).getColumn(0);
      expectClose(x, xd, 1e-8, `trial ${trial}`);
      const y = b.slice();
      lu.solveTransposed(y, y); // aliasing
      expect(Array.from(y)).toEqual(Array.from(x));
    }
  });

  it('a permuted triangular matrix of order 200,000 factorizes with no flops and solves exactly', () => {
    const A = permutedTriangular(200_000, 3, rng(10));
    const lu = factor(A, analyze(A));
    expect(lu.factorMuls + lu.factorAdds + lu.factorDivs).toBe(0);
    const b = rhs(A.n);
    const x = lu.solve(new Float64Array(A.n), b);
    expect(relativeResidual(A, x, b)).toBeLessThan(1e-13);
  });
});

describe('re-pivoting when a static pivot becomes too small', () => {
  it('redoes the block with partial pivoting, reports it, and the counts follow the new patterns', () => {
    const rand = rng(21);
    const n = 60;
    const A = randomSparse(n, n, 3, rand);
    const S = analyze(A);
    const big = S.orderings.reduce((a, o) => (o.size > a.size ? o : a));
    expect(big.size).toBeGreaterThan(5);
    const lu = factor(A, S);
    expect(lu.pivoted).toBe(false);
    // Make the first pivot of the largest block tiny: C(k,k) = A(p[k], q[k]).
    const k = big.start;
    const j = S.q[k];
    let slot = -1;
    for (let t = A.Ap[j]; t < A.Ap[j + 1]; t++) if (A.Ai[t] === S.p[k]) slot = t;
    expect(slot).toBeGreaterThanOrEqual(0);
    const Ax = A.Ax.slice();
    Ax[slot] = 1e-9;
    lu.refactor(Ax);
    expect(lu.pivoted).toBe(true);
    expect(lu.repivots).toBe(1);
    expect(lu.repivotedBlocks).toBe(1);
    expect(lu.symbolic).not.toBe(S);
    expect(lu.symbolic.repivoted).toBe(1);
    expect(lu.symbolic.p[k]).not.toBe(S.p[k]);
    expectCountsMatch(lu);
    const A2: CscMatrix = { ...A, Ax };
    const b = rhs(n);
    const x = lu.solve(new Float64Array(n), b);
    expect(backwardError(A2, x, b)).toBeLessThan(growthBound(lu, Ax));
    // Going on: the next refactor with the same values does not pivot again.
    lu.refactor(Ax);
    expect(lu.pivoted).toBe(false);
    expect(lu.repivots).toBe(1);
    // And the re-pivoted analysis survives a JSON round trip.
    const S2 = SymbolicLU.fromJSON(JSON.stringify(lu.symbolic));
    expect(S2.factorFlops).toBe(lu.symbolic.factorFlops);
    expect(Array.from(S2.p)).toEqual(Array.from(lu.symbolic.p));
  });

  it('random near-singular pivots: both kernels re-pivot and stay accurate', () => {
    const rand = rng(404);
    let repivoted = 0;
    for (let trial = 0; trial < 30; trial++) {
      const n = 20 + Math.floor(rand() * 60);
      const A = randomSparse(n, n, 3, rand);
      const S = analyze(A);
      const Ax = A.Ax.slice();
      // Shrink a few static pivots C(k,k) = A(p[k], q[k]) of blocks of size ≥ 2.
      for (const o of S.orderings) {
        if (rand() < 0.5) continue;
        const k = o.start + Math.floor(rand() * o.size);
        const j = S.q[k];
        for (let t = A.Ap[j]; t < A.Ap[j + 1]; t++) if (A.Ai[t] === S.p[k]) Ax[t] *= 1e-10;
      }
      const A2: CscMatrix = { ...A, Ax };
      for (const kernel of ['mapped', 'scatter'] as const) {
        const lu = new NumericLU(S, { kernel }).refactor(Ax);
        if (lu.pivoted) repivoted++;
        expectCountsMatch(lu);
        const b = Float64Array.from({ length: n }, () => rand() - 0.5);
        const x = lu.solve(new Float64Array(n), b);
        expect(backwardError(A2, x, b), `trial ${trial}, ${kernel}`).toBeLessThan(growthBound(lu, Ax));
        const xd = new LuDecomposition(toDense(A2)).solve(Matrix.columnVector(Array.from(b))).getColumn(0);
        expectClose(x, xd, 1e-6, `x, trial ${trial}`);
      }
    }
    expect(repivoted).toBeGreaterThan(10);
  });

  it('a zero static pivot is pivoted away when another row can take it', () => {
    // [0 1; 1 1] is irreducible; its diagonal zero needs a row exchange.
    const { A } = compress(2, 2, [0, 1, 0, 1], [0, 0, 1, 1], [1, 1, 1, 1]);
    const S = analyze(A);
    const Ax = A.Ax.slice();
    for (let t = 0; t < A.Ap[2]; t++) if (S.pinv[A.Ai[t]] === 0 && A.Ai[t] === S.p[0] && t < A.Ap[S.q[0] + 1] && t >= A.Ap[S.q[0]]) Ax[t] = 0;
    const lu = factor({ ...A, Ax }, S);
    expect(lu.pivoted).toBe(true);
    const b = Float64Array.of(3, 5);
    const x = lu.solve(new Float64Array(2), b);
    expect(relativeResidual({ ...A, Ax }, x, b)).toBeLessThan(1e-15);
  });
});

describe('singular matrices', () => {
  it('numerically singular: SingularPivotError names the column and the candidate pivots', () => {
    // Columns 1 and 2 equal: structurally fine, numerically singular.
    const { A } = compress(3, 3, [0, 1, 0, 1, 2, 0, 1, 2], [0, 0, 1, 1, 1, 2, 2, 2], [2, 1, 1, 3, 1, 1, 3, 1]);
    const S = analyze(A);
    const names = { colNames: ['qdd[hip]', 'tau[knee]', 'tau[ankle]'], rowNames: ['eq0', 'eq1', 'eq2'] };
    let err: unknown;
    try {
      factor(A, S, names);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(SingularPivotError);
    const e = err as SingularPivotError;
    expect(e.message).toMatch(/^matrix is numerically singular at col [0-2] \((qdd\[hip\]|tau\[knee\]|tau\[ankle\])\): all candidate pivots are zero; candidates row [0-2] \(eq[0-2]\) = /);
    expect(e.columnName).toBe(names.colNames[e.column]);
    expect(e.candidates.length).toBeGreaterThan(0);
    for (const c of e.candidates) expect(Math.abs(c.value)).toBeLessThan(1e-12);
  });

  it('a zero 1×1 block raises SingularPivotError at once', () => {
    const { A } = compress(2, 2, [0, 0, 1], [0, 1, 1], [0, 1, 1]); // upper triangular, A(0,0) = 0
    expect(() => factor(A, analyze(A), { colNames: ['a', 'b'] })).toThrow(
      'matrix is numerically singular at col 0 (a): the only candidate pivot (a 1×1 block of the block triangular form) is zero; candidates row 0 = 0',
    );
  });

  it('non-finite values are rejected, never returned as NaN', () => {
    const A = randomSparse(30, 30, 3, rng(2));
    const S = analyze(A);
    const Ax = A.Ax.slice();
    Ax[5] = NaN;
    expect(() => factor({ ...A, Ax }, S)).toThrow(/A has a non-finite value NaN at row \d+, column \d+/);
    Ax[5] = Infinity;
    expect(() => factor({ ...A, Ax }, S)).toThrow(/non-finite value Infinity/);
  });
});

describe('entry checks', () => {
  it('rejects rectangular matrices, wrong lengths and a different pattern', () => {
    const R = randomSparse(5, 6, 2, rng(1));
    expect(() => analyze(R)).toThrow('A is 5×6; LU needs a square matrix (use maxtrans/structuralRank for rectangular patterns)');
    expect(() => luSolve(R, new Float64Array(5))).toThrow(RangeError);
    const A = randomSparse(6, 6, 2, rng(1));
    const S = analyze(A);
    const lu = factor(A, S);
    expect(() => lu.refactor(new Float64Array(3))).toThrow(`Ax has length 3, expected nnz(A) = ${S.nnz}`);
    expect(() => lu.solve(new Float64Array(6), new Float64Array(5))).toThrow('b has length 5, expected n = 6');
    const B = randomSparse(6, 6, 2, rng(2));
    expect(() => factor(B, S)).toThrow(/A's pattern differs from the analysed one/);
  });

  it('handles orders 0 and 1, and rejects an invalid pattern before analysing it', () => {
    const Z = compress(0, 0, [], [], []).A;
    expect(factor(Z, analyze(Z)).solve(new Float64Array(0), new Float64Array(0)).length).toBe(0);
    expect(Array.from(luSolve(compress(1, 1, [0], [0], [2]).A, [4]))).toEqual([2]);
    const bad = { m: 2, n: 2, Ap: Int32Array.of(0, 2, 3), Ai: Int32Array.of(0, 0, 1), Ax: new Float64Array(3) };
    expect(() => analyze(bad)).toThrow('duplicate entry (0, 0); assemble with compress() to sum duplicates');
  });

  it('luSolve is the one-call convenience', () => {
    const A = randomSparse(20, 20, 3, rng(4));
    const b = rhs(20);
    expect(relativeResidual(A, luSolve(A, b), b)).toBeLessThan(1e-14);
  });
});

describe('SymbolicLU JSON', () => {
  it('round-trips exactly and factors identically', () => {
    const A = randomSparse(200, 200, 3, rng(12));
    const S = analyze(A);
    const text = JSON.stringify(S);
    const S2 = SymbolicLU.fromJSON(text);
    for (const key of ['p', 'q', 'r', 'Lp', 'Li', 'Up', 'Ui', 'Bp', 'Bi', 'Bslot', 'Op', 'Oi', 'Oslot'] as const) {
      expect(Array.from(S2[key]), key).toEqual(Array.from(S[key]));
    }
    expect(S2.orderings).toEqual(S.orderings);
    expect([S2.factorMuls, S2.factorDivs, S2.solveMuls, S2.luNnz]).toEqual([S.factorMuls, S.factorDivs, S.solveMuls, S.luNnz]);
    expect(Array.from(factor(A, S2).LUx)).toEqual(Array.from(factor(A, S).LUx));
  });

  it('rejects tampered or foreign JSON', () => {
    const A = randomSparse(40, 40, 3, rng(13));
    const j = analyze(A).toJSON();
    expect(() => SymbolicLU.fromJSON({ ...j, format: 'other' } as never)).toThrow('not a saved symbolic analysis (format "sparsedyn.SymbolicLU", version 1)');
    const big = j.r.findIndex((_, b) => b + 1 < j.r.length && j.r[b + 1] - j.r[b] > 3);
    const k1 = j.r[big];
    const Li = j.Li.slice();
    const s = j.Lp[k1];
    if (s < j.Lp[k1 + 1]) {
      Li.splice(s, 1); // drop one entry of L: lengths no longer match
      expect(() => SymbolicLU.fromJSON({ ...j, Li })).toThrow(/Li missing or of wrong length/);
    }
    const p = j.p.slice();
    [p[0], p[1]] = [p[1], p[1]];
    expect(() => SymbolicLU.fromJSON({ ...j, p })).toThrow('saved symbolic analysis: p is not a permutation');
  });
});
