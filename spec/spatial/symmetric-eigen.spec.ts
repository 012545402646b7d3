/**
 * symmetricEigen (cyclic Jacobi) against its definition and against ml-matrix's symmetric
 * decomposition (Householder tridiagonalisation and QL, an independent method): A V = V Λ, VᵀV = I,
 * the eigenvalues ascending and equal to ml-matrix's, on seeded random symmetric matrices of the
 * sizes the model checks meet (3×3 inertias, a joint's D up to 6×6), singular and repeated ones too.
 */
import { EigenvalueDecomposition, Matrix } from 'ml-matrix';
import { describe, expect, it } from 'vitest';
import { Rng } from '../../src/model/rng.ts';
import { symmetricEigen } from '../../src/spatial/symmetric-eigen.ts';

function check(A: number[][]): void {
  const n = A.length;
  const { values, vectors } = symmetricEigen(A);
  const scale = Math.max(1e-300, ...A.flat().map(Math.abs));
  for (let e = 1; e < n; e++) expect(values[e]).toBeGreaterThanOrEqual(values[e - 1]);
  for (let e = 0; e < n; e++) {
    for (let r = 0; r < n; r++) {
      let av = 0;
      for (let k = 0; k < n; k++) av += A[r][k] * vectors[k][e];
      expect(Math.abs(av - values[e] * vectors[r][e])).toBeLessThan(1e-13 * scale);
    }
    for (let f = 0; f < n; f++) {
      let d = 0;
      for (let k = 0; k < n; k++) d += vectors[k][e] * vectors[k][f];
      expect(Math.abs(d - (e === f ? 1 : 0))).toBeLessThan(1e-13);
    }
  }
  const ref = new EigenvalueDecomposition(new Matrix(A), { assumeSymmetric: true }).realEigenvalues.slice().sort((x, y) => x - y);
  for (let e = 0; e < n; e++) expect(Math.abs(values[e] - ref[e])).toBeLessThan(1e-13 * scale);
}

describe('symmetricEigen', () => {
  const rng = new Rng(17);
  it('random symmetric matrices of orders 1 to 6', () => {
    for (let n = 1; n <= 6; n++) {
      for (let trial = 0; trial < 40; trial++) {
        const A = Array.from({ length: n }, () => new Array<number>(n).fill(0));
        for (let r = 0; r < n; r++) for (let c = r; c < n; c++) A[r][c] = A[c][r] = rng.uniform(-3, 3) * 10 ** rng.uniform(-2, 2);
        check(A);
      }
    }
  });
  it('singular, repeated, diagonal and zero matrices', () => {
    check([[1, 1, 0], [1, 1, 0], [0, 0, 2]]); // eigenvalues 0, 2, 2
    check([[2, 0, 0], [0, 2, 0], [0, 0, 2]]);
    check([[0, 0], [0, 0]]);
    check([[4, 2, 2], [2, 1, 1], [2, 1, 1]]); // rank 1
    expect(symmetricEigen([[1, 1, 0], [1, 1, 0], [0, 0, 2]]).values[0]).toBeCloseTo(0, 15);
  });
  it('entries that are not finite give NaN eigenvalues, never a loop without end', () => {
    expect(symmetricEigen([[1, NaN], [NaN, 1]]).values.every(Number.isNaN)).toBe(true);
    expect(symmetricEigen([[Infinity, 0], [0, 1]]).values.every(Number.isNaN)).toBe(true);
  });
});
