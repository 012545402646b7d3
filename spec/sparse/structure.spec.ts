/** Structure: maximum transversal (rectangular too), structural rank, coarse DM, Tarjan SCC, BTF. */
import { Matrix, SingularValueDecomposition } from 'ml-matrix';
import { describe, expect, it } from 'vitest';
import { btf, compress, dmperm, maxtrans, scc, structuralRank, StructurallySingularError, type CscMatrix } from '../../src/sparse/index.ts';
import { analyze } from '../../src/sparse/index.ts';
import { permutedTriangular, randomSparse, rng, toDense } from './util.ts';

function numericalRank(A: CscMatrix): number {
  const D: Matrix = toDense(A);
  if (A.m === 0 || A.n === 0) return 0;
  return new SingularValueDecomposition(D, { autoTranspose: true }).rank;
}

function checkMatching(A: CscMatrix, jmatch: Int32Array, imatch: Int32Array): void {
  for (let j = 0; j < A.n; j++) {
    const i = jmatch[j];
    if (i === -1) continue;
    expect(imatch[i]).toBe(j);
    expect(Array.from(A.Ai.subarray(A.Ap[j], A.Ap[j + 1]))).toContain(i);
  }
}

describe('maxtrans / structuralRank', () => {
  it('equals the numerical rank of random values on random square and rectangular patterns', () => {
    const rand = rng(2024);
    for (let trial = 0; trial < 60; trial++) {
      const m = 1 + Math.floor(rand() * 14);
      const n = 1 + Math.floor(rand() * 14);
      const A = randomSparse(m, n, 1 + Math.floor(rand() * 2), rand, false);
      const { jmatch, imatch, rank } = maxtrans(A);
      checkMatching(A, jmatch, imatch);
      expect(rank, `trial ${trial} (${m}×${n})`).toBe(numericalRank(A));
      const sr = structuralRank(A);
      expect(sr.unmatchedRows.length).toBe(m - rank);
      expect(sr.unmatchedCols.length).toBe(n - rank);
    }
  });

  it('agrees with a plain augmenting-path matching (Kuhn) on larger random patterns', () => {
    const rand = rng(99);
    for (let trial = 0; trial < 20; trial++) {
      const m = 100 + Math.floor(rand() * 200);
      const n = 100 + Math.floor(rand() * 200);
      const A = randomSparse(m, n, 1 + Math.floor(rand() * 3), rand, false);
      const imatch = new Int32Array(m).fill(-1);
      const seen = new Int32Array(m).fill(-1);
      const augment = (j: number, stamp: number): boolean => {
        for (let t = A.Ap[j]; t < A.Ap[j + 1]; t++) {
          const i = A.Ai[t];
          if (seen[i] === stamp) continue;
          seen[i] = stamp;
          if (imatch[i] === -1 || augment(imatch[i], stamp)) {
            imatch[i] = j;
            return true;
          }
        }
        return false;
      };
      let kuhn = 0;
      for (let j = 0; j < n; j++) if (augment(j, j)) kuhn++;
      const { jmatch, imatch: im, rank } = maxtrans(A);
      checkMatching(A, jmatch, im);
      expect(rank, `trial ${trial}`).toBe(kuhn);
    }
  });

  it('names the unmatched rows and columns of a structurally singular matrix', () => {
    // Columns 0 and 1 only touch row 0: one of them cannot be matched; row 2 is empty.
    const { A } = compress(3, 3, [0, 0, 1, 1], [0, 1, 1, 2], [1, 1, 1, 1]);
    expect(structuralRank(A).rank).toBe(2);
    const names = { rowNames: ['f[base]', 'f[knee]', 'f[hip]'], colNames: ['qdd[base]', 'tau[knee]', 'tau[hip]'] };
    expect(() => analyze(A, names)).toThrow(StructurallySingularError);
    expect(() => analyze(A, names)).toThrow(
      /^matrix is structurally singular: structural rank 2 < n = 3; unmatched row 2 \(f\[hip\]\); unmatched col [012] \((qdd\[base\]|tau\[knee\]|tau\[hip\])\)$/,
    );
    try {
      analyze(A, names);
    } catch (e) {
      const err = e as StructurallySingularError;
      expect(err.rank).toBe(2);
      expect(Array.from(err.unmatchedRows)).toEqual([2]);
      expect(err.unmatchedRowNames).toEqual(['f[hip]']);
    }
  });

  it('coarse Dulmage–Mendelsohn parts do not depend on the matching', () => {
    // [D; D_Y]-like tall pattern: 5 rows, 3 columns; column 2 appears in no row → undetermined.
    const { A } = compress(5, 3, [0, 1, 2, 3, 4, 0], [0, 0, 1, 1, 0, 1], [1, 1, 1, 1, 1, 1]);
    const dm = dmperm(A);
    expect(dm.rank).toBe(2);
    expect(Array.from(dm.colsUnder)).toEqual([2]);
    expect(Array.from(dm.rowsUnder)).toEqual([]);
    expect(Array.from(dm.colsOver)).toEqual([0, 1]);
    expect(Array.from(dm.rowsOver)).toEqual([0, 1, 2, 3, 4]);
    expect(dm.rowsSquare.length + dm.colsSquare.length).toBe(0);
    const rand = rng(5);
    for (let trial = 0; trial < 30; trial++) {
      const B = randomSparse(1 + Math.floor(rand() * 10), 1 + Math.floor(rand() * 10), 1, rand, false);
      const d = dmperm(B);
      expect(d.rowsSquare.length).toBe(d.colsSquare.length);
      expect(d.rowsUnder.length).toBeLessThanOrEqual(d.colsUnder.length);
      expect(d.rowsOver.length).toBeGreaterThanOrEqual(d.colsOver.length);
      expect(d.rowsUnder.length + d.rowsSquare.length + d.colsOver.length).toBe(d.rank);
    }
  });
});

describe('scc (iterative Tarjan)', () => {
  it('orders components so that every edge goes to the same or an earlier one, on a 300,000-node chain', () => {
    const n = 300_000;
    const Gp = new Int32Array(n + 1);
    const Gi = new Int32Array(n);
    for (let v = 0; v < n; v++) {
      Gp[v + 1] = v + 1;
      Gi[v] = v + 1 < n ? v + 1 : 0; // one long cycle: a recursive DFS would overflow
    }
    const c = scc(n, Gp, Gi);
    expect(c.count).toBe(1);
    Gi[n - 1] = n - 1; // break the cycle: a chain of n singleton components
    const d = scc(n, Gp, Gi);
    expect(d.count).toBe(n);
    const comp = new Int32Array(n);
    for (let k = 0; k < d.count; k++) for (let t = d.r[k]; t < d.r[k + 1]; t++) comp[d.order[t]] = k;
    let bad = 0;
    for (let v = 0; v < n; v++) for (let e = Gp[v]; e < Gp[v + 1]; e++) if (comp[Gi[e]] > comp[v]) bad++;
    expect(bad).toBe(0);
  });
});

describe('btf', () => {
  function checkBtf(A: CscMatrix): { nblocks: number } {
    const f = btf(A);
    const pinv = new Int32Array(A.n);
    for (let k = 0; k < A.n; k++) pinv[f.p[k]] = k;
    const block = new Int32Array(A.n);
    for (let b = 0; b < f.nblocks; b++) for (let k = f.r[b]; k < f.r[b + 1]; k++) block[k] = b;
    for (let k = 0; k < A.n; k++) {
      const j = f.q[k];
      let diag = false;
      for (let t = A.Ap[j]; t < A.Ap[j + 1]; t++) {
        const i = pinv[A.Ai[t]];
        expect(block[i] <= block[k]).toBe(true);
        if (i === k) diag = true;
      }
      expect(diag).toBe(true); // zero-free diagonal
    }
    return f;
  }

  it('gives an upper block triangular form with zero-free diagonal', () => {
    const rand = rng(77);
    for (let trial = 0; trial < 40; trial++) checkBtf(randomSparse(30, 30, 1, rand));
  });

  it('finds all blocks 1×1 for a randomly permuted triangular matrix (n = 200,000), so LU has no fill', () => {
    const A = permutedTriangular(200_000, 3, rng(9));
    const S = analyze(A);
    expect(S.nblocks).toBe(200_000);
    expect(S.maxBlock).toBe(1);
    expect(S.luNnz).toBe(200_000);
    expect(S.factorFlops).toBe(0);
    expect(S.offNnz).toBe(A.Ap[A.n] - 200_000);
  });

  it('rejects a rectangular matrix', () => {
    const A = randomSparse(4, 5, 2, rng(1));
    expect(() => btf(A)).toThrow('A is 4×5; LU needs a square matrix (use maxtrans/structuralRank for rectangular patterns)');
    expect(() => analyze(A)).toThrow(RangeError);
  });
});
