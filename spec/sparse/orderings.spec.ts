/** Orderings and the symbolic LU: permutations, known fill, exact patterns and flops against brute force. */
import { describe, expect, it } from 'vitest';
import { amd, analyze, colamd, compress, luPattern, markowitz, minimumDegree, orderBlock, ORDERINGS, symmetricPattern, type CscMatrix } from '../../src/sparse/index.ts';
import { randomSparse, rng } from './util.ts';

function isPermutation(p: Int32Array, n: number): boolean {
  if (p.length !== n) return false;
  const seen = new Uint8Array(n);
  for (const v of p) {
    if (!(v >= 0 && v < n) || seen[v]) return false;
    seen[v] = 1;
  }
  return true;
}

/** B(perm, perm) as a pattern (local indices). */
function permuted(B: CscMatrix, perm: Int32Array): { Bp: Int32Array; Bi: Int32Array } {
  const n = B.n;
  const inv = new Int32Array(n);
  for (let k = 0; k < n; k++) inv[perm[k]] = k;
  const Ti: number[] = [];
  const Tj: number[] = [];
  for (let j = 0; j < n; j++) for (let t = B.Ap[j]; t < B.Ap[j + 1]; t++) {
    Ti.push(inv[B.Ai[t]]);
    Tj.push(inv[j]);
  }
  const C = compress(n, n, Ti, Tj).A;
  return { Bp: C.Ap, Bi: C.Ai };
}

/** Dense boolean elimination with diagonal pivots: the reference patterns and counts. */
function bruteForce(n: number, Bp: Int32Array, Bi: Int32Array): { L: boolean[][]; U: boolean[][]; muls: number; divs: number } {
  const P: boolean[][] = Array.from({ length: n }, () => new Array<boolean>(n).fill(false));
  for (let j = 0; j < n; j++) for (let t = Bp[j]; t < Bp[j + 1]; t++) P[Bi[t]][j] = true;
  let muls = 0;
  let divs = 0;
  for (let k = 0; k < n; k++) {
    const rows: number[] = [];
    const cols: number[] = [];
    for (let i = k + 1; i < n; i++) if (P[i][k]) rows.push(i);
    for (let j = k + 1; j < n; j++) if (P[k][j]) cols.push(j);
    divs += rows.length;
    muls += rows.length * cols.length;
    for (const i of rows) for (const j of cols) P[i][j] = true;
  }
  const L = P.map((row, i) => row.map((v, j) => v && i > j));
  const U = P.map((row, i) => row.map((v, j) => v && i < j));
  return { L, U, muls, divs };
}

describe('orderings', () => {
  it('every ordering returns a permutation, on random blocks of many sizes', () => {
    const rand = rng(31);
    for (let trial = 0; trial < 40; trial++) {
      const n = 1 + Math.floor(rand() * 80);
      const B = randomSparse(n, n, Math.floor(rand() * 4), rand);
      for (const name of ORDERINGS) expect(isPermutation(orderBlock(name, n, B.Ap, B.Ai), n), `${name}, n = ${n}`).toBe(true);
    }
  });

  it('AMD, AMF and Markowitz put the hub of an arrow matrix last: no fill', () => {
    const n = 40;
    const Ti: number[] = [];
    const Tj: number[] = [];
    for (let k = 0; k < n; k++) {
      Ti.push(k, 0, k);
      Tj.push(k, k, 0);
    }
    const A = compress(n, n, Ti, Tj).A; // row 0 and column 0 full: the worst natural order
    for (const perm of [amd(A), amd(A, { metric: 'fill' }), markowitz(A).perm]) {
      expect([perm[n - 2], perm[n - 1]]).toContain(0); // with one leaf left, hub and leaf tie
      const C = permuted(A, perm);
      const lu = luPattern(n, C.Bp, C.Bi);
      expect(lu.Lp[n] + lu.Up[n]).toBe(A.Ap[n] - n); // L+U hold exactly the entries of A
    }
    // AᵀA of an arrow is full: COLAMD, which bounds fill for any row pivoting, cannot tell.
    expect(isPermutation(colamd(A), n)).toBe(true);
    const nat = luPattern(n, A.Ap, A.Ai);
    expect(nat.Lp[n] + nat.Up[n]).toBe((n - 1) * n); // natural order fills everything
  });

  it('dense rows are set aside (ordered last) by the minimum degree engine', () => {
    const n = 400; // dense limit max(16, 10√n) = 200
    const Ti: number[] = [];
    const Tj: number[] = [];
    for (let k = 0; k < n; k++) {
      Ti.push(k);
      Tj.push(k);
      if (k + 1 < n) {
        Ti.push(k + 1);
        Tj.push(k);
      }
      Ti.push(7);
      Tj.push(k);
    }
    const A = compress(n, n, Ti, Tj).A;
    const { Gp, Gi } = symmetricPattern(n, A.Ap, A.Ai);
    const perm = minimumDegree(n, Gp, Gi, 0, undefined, undefined);
    expect(isPermutation(perm, n)).toBe(true);
    expect(perm[n - 1]).toBe(7);
  });
});

describe('luPattern (symbolic LU)', () => {
  it('gives the exact patterns and flop counts of a brute-force dense elimination', () => {
    const rand = rng(4242);
    for (let trial = 0; trial < 60; trial++) {
      const n = 1 + Math.floor(rand() * 25);
      const B = randomSparse(n, n, 1 + Math.floor(rand() * 4), rand);
      // Put the matching on the diagonal so that diagonal pivots exist structurally.
      const S = analyze(B, { ordering: 'natural' });
      // C = B(p,q) as a pattern:
      const Ti: number[] = [];
      const Tj: number[] = [];
      for (let k = 0; k < n; k++) {
        const j = S.q[k];
        for (let t = S.Ap[j]; t < S.Ap[j + 1]; t++) {
          Ti.push(S.pinv[S.Ai[t]]);
          Tj.push(k);
        }
      }
      const P = compress(n, n, Ti, Tj).A;
      const lu = luPattern(n, P.Ap, P.Ai);
      const ref = bruteForce(n, P.Ap, P.Ai);
      expect(lu.muls, `trial ${trial}`).toBe(ref.muls);
      expect(lu.adds).toBe(ref.muls);
      expect(lu.divs).toBe(ref.divs);
      expect(lu.flops).toBe(2 * ref.muls + ref.divs);
      for (let k = 0; k < n; k++) {
        const Lk = Array.from(lu.Li.subarray(lu.Lp[k], lu.Lp[k + 1])).sort((a, b) => a - b);
        const Uk = Array.from(lu.Ui.subarray(lu.Up[k], lu.Up[k + 1]));
        expect(Lk).toEqual(ref.L.map((row, i) => (row[k] ? i : -1)).filter((i) => i >= 0));
        expect(Uk).toEqual(ref.U.map((row, i) => (row[k] ? i : -1)).filter((i) => i >= 0)); // ascending
      }
    }
  });

  it('stops at the cap with flops = Infinity', () => {
    const n = 30;
    const Ti: number[] = [];
    const Tj: number[] = [];
    for (let k = 0; k < n; k++) {
      Ti.push(k, 0, k);
      Tj.push(k, k, 0);
    }
    const A = compress(n, n, Ti, Tj).A;
    expect(luPattern(n, A.Ap, A.Ai, 100).flops).toBe(Infinity);
    expect(luPattern(n, A.Ap, A.Ai).flops).toBeGreaterThan(100);
  });
});

describe('analyze', () => {
  it("'auto' keeps the cheapest candidate, and its scores are the single orderings' own", () => {
    const rand = rng(8);
    for (let trial = 0; trial < 8; trial++) {
      const n = 60 + Math.floor(rand() * 60);
      const A = randomSparse(n, n, 2, rand);
      const S = analyze(A);
      for (const o of S.orderings) {
        const exact = o.scores.filter((s) => s.exact);
        expect(o.flops).toBe(Math.min(...exact.map((s) => s.flops)));
        for (const s of o.scores) if (!s.exact) expect(s.flops).toBeGreaterThanOrEqual(o.flops);
        expect(exact.find((s) => s.ordering === o.chosen)!.flops).toBe(o.flops);
      }
      expect(S.factorFlops).toBe(S.orderings.reduce((a, o) => a + o.flops, 0));
      const amdOnly = analyze(A, { ordering: 'amd' });
      expect(S.factorFlops).toBeLessThanOrEqual(amdOnly.factorFlops);
      for (const o of amdOnly.orderings) {
        const inAuto = S.orderings.find((x) => x.block === o.block)!;
        const amdScore = inAuto.scores.find((s) => s.ordering === 'amd')!;
        expect(amdScore.exact).toBe(true); // tried first, never capped
        expect(amdScore.flops).toBe(o.flops);
      }
    }
  });

  it('rejects an unknown ordering by name', () => {
    const A = randomSparse(5, 5, 1, rng(1));
    expect(() => analyze(A, { ordering: 'metis' as never })).toThrow('unknown ordering "metis"; expected auto or one of natural, amd,');
  });
});
