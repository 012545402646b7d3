/** CSC storage: triplet assembly with the slot map, transpose, permutation, mat-vec, validation, I/O text. */
import { Matrix } from 'ml-matrix';
import { describe, expect, it } from 'vitest';
import { assembleValues, compress, csc, gaxpy, invertPermutation, matvec, permute, relativeResidual, transpose } from '../../src/sparse/index.ts';
import { formatMatrixMarket, formatTriplet, parseMatrixMarket, parseTriplet } from '../../src/sparse/io.ts';
import { expectClose } from '../helpers.ts';
import { randomPermutation, randomSparse, rng, toDense } from './util.ts';

describe('compress', () => {
  it('sums duplicates, sorts rows and maps every triplet to its slot', () => {
    const Ti = [2, 0, 2, 1, 0, 2];
    const Tj = [0, 0, 0, 1, 2, 2];
    const Tx = [1, 2, 3, 4, 5, 6];
    const { A, slot } = compress(3, 3, Ti, Tj, Tx);
    expect(Array.from(A.Ap)).toEqual([0, 2, 3, 5]);
    expect(Array.from(A.Ai)).toEqual([0, 2, 1, 0, 2]);
    expect(Array.from(A.Ax)).toEqual([2, 4, 4, 5, 6]);
    expect(Array.from(slot)).toEqual([1, 0, 1, 2, 3, 4]);
    // Run time: new values straight into Ax through the map.
    assembleValues(A.Ax, slot, [10, 20, 30, 40, 50, 60]);
    expect(Array.from(A.Ax)).toEqual([20, 40, 40, 50, 60]);
  });

  it('rejects indices out of range and mismatched lengths', () => {
    expect(() => compress(2, 2, [0, 2], [0, 1], [1, 1])).toThrow('triplet 1: row 2 is outside 0..1');
    expect(() => compress(2, 2, [0], [0, 1])).toThrow('Tj has length 2, expected Ti.length = 1');
  });

  it('csc() validates pointers, indices and duplicates', () => {
    expect(() => csc(2, 2, Int32Array.of(0, 1), Int32Array.of(0))).toThrow('Ap has length 2, expected n+1 = 3');
    expect(() => csc(2, 1, Int32Array.of(0, 2), Int32Array.of(1, 1))).toThrow('duplicate entry (1, 0)');
    expect(() => csc(2, 1, Int32Array.of(0, 1), Int32Array.of(5))).toThrow('row index 5 in column 0 is outside 0..1');
  });
});

describe('transpose, permute, gaxpy', () => {
  it('agree with dense algebra on a random rectangular matrix', () => {
    const rand = rng(11);
    const A = randomSparse(7, 5, 3, rand, false);
    const D = toDense(A);
    expect(toDense(transpose(A)).to2DArray()).toEqual(D.transpose().to2DArray());
    const p = randomPermutation(7, rand);
    const q = randomPermutation(5, rand);
    const C = permute(A, invertPermutation(p), q);
    for (let i = 0; i < 7; i++) for (let j = 0; j < 5; j++) expect(toDense(C).get(i, j)).toBe(D.get(p[i], q[j]));
    const x = Float64Array.from({ length: 5 }, () => rand());
    const y = matvec(new Float64Array(7), A, x);
    expectClose(y, D.mmul(Matrix.columnVector(Array.from(x))).getColumn(0), 1e-15, 'A x');
    gaxpy(A, x, y);
    expect(relativeResidual(A, x, Float64Array.from(y, (v) => v / 2))).toBeLessThan(1e-15);
  });

  it('invertPermutation rejects a non-permutation', () => {
    expect(() => invertPermutation([0, 0, 1])).toThrow('not a permutation of 0..2: entry 1 is 0');
  });
});

describe('.tri and .mtx text', () => {
  it('round-trip a matrix exactly', () => {
    const A = randomSparse(6, 6, 2, rng(3));
    const B = parseTriplet(formatTriplet(A));
    expect(Array.from(B.Ai)).toEqual(Array.from(A.Ai));
    expect(Array.from(B.Ax)).toEqual(Array.from(A.Ax));
    const C = parseMatrixMarket(formatMatrixMarket(A));
    expect(Array.from(C.Ap)).toEqual(Array.from(A.Ap));
    expect(Array.from(C.Ax)).toEqual(Array.from(A.Ax));
  });

  it('reads symmetric and pattern Matrix Market files and reports bad input', () => {
    const S = parseMatrixMarket('%%MatrixMarket matrix coordinate real symmetric\n% c\n3 3 2\n1 1 4\n3 1 -2\n');
    expect(toDense(S).to2DArray()).toEqual([[4, 0, -2], [0, 0, 0], [-2, 0, 0]]);
    const P = parseMatrixMarket('%%MatrixMarket matrix coordinate pattern general\n2 2 1\n2 1\n');
    expect(Array.from(P.Ax)).toEqual([1]);
    expect(() => parseMatrixMarket('%%MatrixMarket matrix array real general\n1 1\n1\n')).toThrow('Matrix Market format "array" is not supported');
    expect(() => parseMatrixMarket('%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 1\n')).toThrow('header declares 3 entries, file has 1');
    expect(() => parseTriplet('1 1 1\n0 2 1\n')).toThrow('.tri line 2: indices must be integers ≥ 1');
  });
});
