/**
 * The robot matrices of ../shared/sparse-bench (the two smallest, read from there): the
 * inverse-dynamics one is triangular under permutations (all blocks 1×1); the forward-dynamics
 * one factorizes with no more flops than KLU's figure in that folder's README (45,219).
 */
import { expect, it } from 'vitest';
import { analyze, compress, factor, relativeResidual, SymbolicLU } from '../../src/sparse/index.ts';
import { readMatrix } from '../../src/node/matrix-file.ts';
import { randomPermutation, rhs, rng } from './util.ts';
import { describeShared, shared } from '../shared.ts';

describeShared('benchmark matrix robot_ID_100', () => {
  it('has 2000 blocks of size 1: no fill, no factor flops, exact solve', () => {
    const A = readMatrix(shared('sparse-bench/robot_ID_100.tri'));
    expect([A.n, A.Ap[A.n]]).toEqual([2000, 10546]);
    const S = analyze(A);
    expect([S.nblocks, S.maxBlock, S.luNnz, S.offNnz, S.factorFlops]).toEqual([2000, 1, 2000, 8546, 0]);
    const lu = factor(A, S);
    const b = rhs(A.n);
    const x = lu.solve(new Float64Array(A.n), b);
    expect(relativeResidual(A, x, b)).toBeLessThan(1e-14);
    expect(lu.solveMuls + lu.solveAdds + lu.solveDivs).toBe(S.solveFlops);
  });
});

describeShared('benchmark matrix robot_FD_50', () => {
  it('matches KLU\'s block structure and beats its factor flops, pivoting included', () => {
    const A = readMatrix(shared('sparse-bench/robot_FD_50.tri'));
    const S = analyze(A);
    expect([S.n, S.nnz, S.nblocks, S.maxBlock, S.offNnz]).toEqual([1000, 5246, 174, 827, 556]);
    const lu = factor(A, S);
    const flops = lu.factorMuls + lu.factorAdds + lu.factorDivs;
    expect(flops).toBe(lu.symbolic.factorFlops);
    expect(flops).toBeLessThanOrEqual(45_219);
    const b = rhs(A.n);
    const x = lu.solve(new Float64Array(A.n), b);
    expect(relativeResidual(A, x, b)).toBeLessThan(1e-13);
    // The analysis (possibly re-pivoted) reloads from JSON and refactors to the same factors.
    const S2 = SymbolicLU.fromJSON(JSON.stringify(lu.symbolic));
    const lu2 = factor(A, S2);
    expect(lu2.pivoted).toBe(false);
    expect(Array.from(lu2.LUx)).toEqual(Array.from(lu.LUx));
  });
});

describeShared('inverse dynamics at 10,000 bodies (copies of the benchmark matrix robot_ID_100)', () => {
  it('100 coupled, randomly permuted copies of robot_ID_100 (n = 200,000) are still triangular: all blocks 1×1', () => {
    const B = readMatrix(shared('sparse-bench/robot_ID_100.tri'));
    const copies = 100;
    const nb = B.n;
    const n = nb * copies;
    const rand = rng(100);
    const pr = randomPermutation(n, rand);
    const pc = randomPermutation(n, rand);
    const Ti: number[] = [];
    const Tj: number[] = [];
    const Tx: number[] = [];
    for (let c = 0; c < copies; c++) {
      for (let j = 0; j < nb; j++) {
        for (let t = B.Ap[j]; t < B.Ap[j + 1]; t++) {
          Ti.push(pr[c * nb + B.Ai[t]]);
          Tj.push(pc[c * nb + j]);
          Tx.push(B.Ax[t]);
        }
      }
      // Coupling: rows of copy c-1 depend on a few unknowns of copy c (one direction only, as a
      // parent body's equations depend on its children's wrenches).
      if (c > 0) {
        for (let t = 0; t < 6; t++) {
          Ti.push(pr[(c - 1) * nb + Math.floor(rand() * nb)]);
          Tj.push(pc[c * nb + Math.floor(rand() * nb)]);
          Tx.push(rand() - 0.5);
        }
      }
    }
    const A = compress(n, n, Ti, Tj, Tx).A;
    const S = analyze(A);
    expect([S.nblocks, S.maxBlock, S.luNnz, S.factorFlops]).toEqual([n, 1, n, 0]);
    const lu = factor(A, S);
    const b = rhs(n);
    const x = lu.solve(new Float64Array(n), b);
    expect(relativeResidual(A, x, b)).toBeLessThan(1e-13);
  });
});
