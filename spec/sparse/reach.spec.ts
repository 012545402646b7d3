/**
 * Reach-restricted solves (sparse/reach.ts, NumericLU.solveManyReach, sparse/reach-code.ts): the
 * same solutions as full solves (up to the sign of zeros), negation bit for bit, and counts equal to
 * the ops a structural simulation of the whole solve finds nonzero (an independent count).
 */
import { describe, expect, it } from 'vitest';
import { analyze, factor, NumericLU, solveReach, type SymbolicLU } from '../../src/sparse/index.ts';
import { ReachSolver } from '../../src/sparse/reach-code.ts';
import { randomSparse, rng } from './util.ts';

const zero = (v: number) => v + 0; // -0 → 0

/** multiply-subtracts and divisions of the ops a right-hand side with this pattern can meet, by simulating the whole solve on booleans */
function simulate(S: SymbolicLU, pattern: number[]): { fma: number; divs: number } {
  const { n, r, nblocks, pinv, Lp, Li, Up, Ui, Op, Oi } = S;
  const nz = new Uint8Array(n);
  for (const row of pattern) nz[pinv[row]] = 1;
  let fma = 0, divs = 0;
  for (let b = nblocks - 1; b >= 0; b--) {
    const k1 = r[b], k2 = r[b + 1];
    if (k2 - k1 > 1) {
      for (let j = k1; j < k2; j++) {
        if (!nz[j]) continue;
        for (let s = Lp[j]; s < Lp[j + 1]; s++) nz[Li[s]] = 1;
        fma += Lp[j + 1] - Lp[j];
      }
    }
    for (let j = k2 - 1; j >= k1; j--) {
      if (!nz[j]) continue;
      divs++;
      for (let s = Up[j]; s < Up[j + 1]; s++) nz[Ui[s]] = 1;
      for (let s = Op[j]; s < Op[j + 1]; s++) nz[Oi[s]] = 1;
      fma += Up[j + 1] - Up[j] + Op[j + 1] - Op[j];
    }
  }
  return { fma, divs };
}

describe('reach-restricted solves', () => {
  it('solveManyReach and ReachSolver equal solveMany; counts are the ops a simulation of the solve reaches', () => {
    const rand = rng(41);
    let total = 0;
    for (let trial = 0; trial < 16; trial++) {
      const n = 8 + Math.floor(rand() * 70);
      const A = randomSparse(n, n, 1 + Math.floor(rand() * 3), rand);
      const S = analyze(A);
      // patterns: empty, one row, a few rows, all rows
      const pats: number[][] = [[], [Math.floor(rand() * n)]];
      const few = new Set<number>();
      for (let k = 0; k < 4; k++) few.add(Math.floor(rand() * n));
      pats.push([...few]);
      pats.push(Array.from({ length: n }, (_, k) => n - 1 - k));
      let repivoted = 0;
      for (const compile of ['never', 'always', 'loops'] as const) {
        const lu = factor(A, S, { compile });
        // a re-pivot at the first factorization replaces the analysis: the reach of the old one falls back to full solves
        if (lu.symbolic !== S) {
          repivoted++;
          const old = solveReach(S, pats), nr = pats.length;
          const B = Float64Array.from({ length: n * nr }, () => rand() - 0.5);
          const X = lu.solveMany(new Float64Array(B.length), B, nr);
          const full = [lu.solveMuls, lu.solveAdds, lu.solveDivs];
          const Y = lu.solveManyReach(new Float64Array(B.length), B, nr, old, Int32Array.from({ length: nr }, (_, c) => c));
          expect(Array.from(Y)).toEqual(Array.from(X));
          expect([lu.solveMuls, lu.solveAdds, lu.solveDivs]).toEqual(full);
        }
        const R = solveReach(lu.symbolic, pats);
        for (let k = 0; k < pats.length; k++) {
          const sim = simulate(lu.symbolic, pats[k]);
          expect([R.fma[k], R.divs[k]], `trial ${trial} pattern ${k}`).toEqual([sim.fma, sim.divs]);
        }
        // a dense pattern reaches every op: the counts of a full solve
        expect(R.fma[3] * 2 + R.divs[3]).toBe(lu.symbolic.solveMuls + lu.symbolic.solveAdds + lu.symbolic.solveDivs);
        const nr = pats.length;
        const B = new Float64Array(n * nr);
        for (let c = 0; c < nr; c++) for (const row of pats[c]) B[c * n + row] = rand() - 0.5;
        const pat = Int32Array.from({ length: nr }, (_, c) => c);
        const X = lu.solveMany(new Float64Array(B.length), B, nr);
        const Y = B.slice();
        lu.solveManyReach(Y, Y, nr, R, pat); // in place
        expect(Array.from(Y, zero), `trial ${trial} ${compile}`).toEqual(Array.from(X, zero));
        const fl = pats.reduce((s, _, k) => s + R.fma[k], 0), dv = pats.reduce((s, _, k) => s + R.divs[k], 0);
        expect([lu.solveMuls, lu.solveAdds, lu.solveDivs]).toEqual([fl, fl, dv]);
        const Z = new Float64Array(B.length).fill(7); // not aliased: zeroed outside the reach
        lu.solveManyReach(Z, B, nr, R, pat, true);
        expect(Array.from(Z, zero)).toEqual(Array.from(X, (v) => zero(-v)));
        // the compiled loop over the reach: the same solution bit for bit, the same counts
        const rs = new ReachSolver(lu, R, nr);
        expect(rs.compiled).toBe(true);
        rs.columns.set(B);
        rs.solve(0, nr, pat, true);
        expect(Array.from(rs.columns)).toEqual(Array.from(Z));
        expect([rs.solveMuls, rs.solveAdds, rs.solveDivs]).toEqual([fl, fl, dv]);
        rs.columns.set(B.subarray(n));
        rs.solve(0, nr - 1, pat.subarray(1));
        expect(Array.from(rs.columns.subarray(0, n * (nr - 1)))).toEqual(Array.from(Y.subarray(n)));
        // pairs on one op list: columns c and c+nr of a 2·nr block, and interleaved (stride 2); the
        // second column of a pair carries other values on the same pattern
        const B2 = new Float64Array(n * nr);
        for (let c = 0; c < nr; c++) for (const row of pats[c]) B2[c * n + row] = rand() - 0.5;
        const X2 = lu.solveMany(new Float64Array(B2.length), B2, nr);
        for (const simd of [true, false]) {
        const rp = new ReachSolver(lu, R, 2 * nr, simd);
        expect(rp.simd).toBe(simd); // Node 20 runs WebAssembly SIMD
        rp.columns.set(B, 0); rp.columns.set(B2, n * nr);
        rp.solvePairs(0, nr, nr, pat, true);
        expect(Array.from(rp.columns.subarray(0, n * nr))).toEqual(Array.from(Z));
        expect(Array.from(rp.columns.subarray(n * nr), zero)).toEqual(Array.from(X2, (v) => zero(-v)));
        expect([rp.solveMuls, rp.solveAdds, rp.solveDivs]).toEqual([2 * fl, 2 * fl, 2 * dv]);
        for (let c = 0; c < nr; c++) { rp.columns.set(B.subarray(c * n, c * n + n), 2 * c * n); rp.columns.set(B2.subarray(c * n, c * n + n), (2 * c + 1) * n); }
        rp.solvePairs(0, 1, nr, pat, false, 2);
        for (let c = 0; c < nr; c++) {
          expect(Array.from(rp.columns.subarray(2 * c * n, 2 * c * n + n))).toEqual(Array.from(Y.subarray(c * n, c * n + n)));
          expect(Array.from(rp.columns.subarray((2 * c + 1) * n, (2 * c + 2) * n), zero)).toEqual(Array.from(X2.subarray(c * n, c * n + n), zero));
        }
        expect(() => rp.solvePairs(0, 1, 2, pat, false, 1)).toThrow(/overlap/);
        }
        // quads: four columns per op list (the third and fourth carry B and B2 again, in another order)
        const rq = new ReachSolver(lu, R, 4 * nr);
        const cols = new Int32Array(4 * nr);
        for (let c = 0; c < nr; c++) {
          cols.set([c, nr + c, 3 * nr + c, 2 * nr + c], 4 * c);
          rq.columns.set(B.subarray(c * n, c * n + n), c * n);
          rq.columns.set(B2.subarray(c * n, c * n + n), (nr + c) * n);
          rq.columns.set(B2.subarray(c * n, c * n + n), (3 * nr + c) * n);
          rq.columns.set(B.subarray(c * n, c * n + n), (2 * nr + c) * n);
        }
        rq.solveQuads(cols, pat, nr, true);
        expect(Array.from(rq.columns.subarray(0, n * nr))).toEqual(Array.from(Z));
        expect(Array.from(rq.columns.subarray(2 * n * nr, 3 * n * nr))).toEqual(Array.from(Z));
        expect(Array.from(rq.columns.subarray(n * nr, 2 * n * nr), zero)).toEqual(Array.from(X2, (v) => zero(-v)));
        expect(Array.from(rq.columns.subarray(3 * n * nr), zero)).toEqual(Array.from(X2, (v) => zero(-v)));
        expect([rq.solveMuls, rq.solveAdds, rq.solveDivs]).toEqual([4 * fl, 4 * fl, 4 * dv]);
        expect(() => rq.solveQuads(Int32Array.of(0, 1, 1, 2), pat, 1)).toThrow(/twice/);
        // a plan mixing a quad, a pair and a single, one negated group
        if (nr >= 4) {
          const rpl = new ReachSolver(lu, R, 7);
          rpl.columns.set(B.subarray(0, n), 0); rpl.columns.set(B.subarray(0, n), 3 * n);
          rpl.columns.set(B2.subarray(0, n), 5 * n); rpl.columns.set(B2.subarray(0, n), 6 * n);
          rpl.columns.set(B.subarray(n, 2 * n), n); rpl.columns.set(B2.subarray(n, 2 * n), 4 * n);
          rpl.columns.set(B.subarray(2 * n, 3 * n), 2 * n);
          const P = rpl.plan(Int32Array.of(0, 3, 5, 6, 1, 4, -1, -1, 2, -1, -1, -1), Int32Array.of(0, 1, 2), Uint8Array.of(4, 2, 1), Uint8Array.of(1, 0, 0), 3);
          rpl.solvePlan(P);
          const colOf = (c: number) => Array.from(rpl.columns.subarray(c * n, c * n + n), zero);
          const neg = (a: ArrayLike<number>) => Array.from(a, (v) => zero(-v));
          expect(colOf(0)).toEqual(neg(X.subarray(0, n)));
          expect(colOf(3)).toEqual(neg(X.subarray(0, n)));
          expect(colOf(5)).toEqual(neg(X2.subarray(0, n)));
          expect(colOf(6)).toEqual(neg(X2.subarray(0, n)));
          expect(colOf(1)).toEqual(Array.from(X.subarray(n, 2 * n), zero));
          expect(colOf(4)).toEqual(Array.from(X2.subarray(n, 2 * n), zero));
          expect(colOf(2)).toEqual(Array.from(X.subarray(2 * n, 3 * n), zero));
          expect(rpl.solveMuls).toBe(4 * R.fma[0] + 2 * R.fma[1] + R.fma[2]);
          expect(rpl.solveDivs).toBe(4 * R.divs[0] + 2 * R.divs[1] + R.divs[2]);
          expect(() => rpl.plan(Int32Array.of(0, 0, 1, 2), Int32Array.of(0), Uint8Array.of(4), Uint8Array.of(0), 1)).toThrow(/twice/);
          expect(() => rpl.plan(Int32Array.of(0, 1, 2, 3), Int32Array.of(0), Uint8Array.of(3), Uint8Array.of(0), 1)).toThrow(/3 lanes/);
        }
      }
      total += repivoted;
    }
    expect(total).toBeGreaterThan(0); // the fallback ran
  });

  it('with refinement and blocks of size ≥ 2, or row scaling, falls back to full solves with their counts', () => {
    const rand = rng(43);
    for (let trial = 0; trial < 6; trial++) {
      const n = 20 + Math.floor(rand() * 40);
      const A = randomSparse(n, n, 3, rand);
      const S = analyze(A);
      const R = solveReach(S, [[0], [n - 1, 1]]);
      const pat = Int32Array.from([0, 1]);
      for (const opts of [{ refine: 1 }, { scale: 'max' as const }]) {
        const lu = factor(A, S, { ...opts, compile: 'never' });
        const B = new Float64Array(2 * n);
        B[0] = 1; B[n + n - 1] = 2; B[n + 1] = -1;
        const X = lu.solveMany(new Float64Array(2 * n), B, 2);
        const full = [lu.solveMuls, lu.solveAdds, lu.solveDivs, lu.refineSteps];
        const rs = new ReachSolver(lu, R, 2);
        rs.columns.set(B);
        rs.solve(0, 2, pat);
        expect(Array.from(rs.columns, zero), `trial ${trial}`).toEqual(Array.from(X, zero));
        if (opts.refine && S.maxBlock > 1) expect([lu.solveMuls, lu.solveAdds, lu.solveDivs, lu.refineSteps]).toEqual(full);
        expect([rs.solveMuls, rs.solveAdds, rs.solveDivs]).toEqual([lu.solveMuls, lu.solveAdds, lu.solveDivs]);
        const single = [rs.solveMuls, rs.solveAdds, rs.solveDivs];
        const rp = new ReachSolver(lu, R, 4);
        rp.columns.set(B, 0); rp.columns.set(B, 2 * n);
        rp.solvePairs(0, 2, 2, pat);
        expect(Array.from(rp.columns.subarray(0, 2 * n), zero)).toEqual(Array.from(X, zero));
        expect(Array.from(rp.columns.subarray(2 * n), zero)).toEqual(Array.from(X, zero));
        expect([rp.solveMuls, rp.solveAdds, rp.solveDivs]).toEqual(single.map((x) => 2 * x));
      }
    }
  });

  it('rejects rows outside the matrix and unknown patterns', () => {
    const A = randomSparse(5, 5, 2, rng(3));
    const S = analyze(A);
    expect(() => solveReach(S, [[5]])).toThrow(/row 5/);
    expect(() => solveReach(S, [[1, 1]])).toThrow(/twice/);
    const lu = new NumericLU(S);
    lu.refactor(A.Ax);
    const R = solveReach(S, [[1]]);
    expect(() => lu.solveManyReach(new Float64Array(5), new Float64Array(5), 1, R, Int32Array.of(1))).toThrow(/pattern\[0\] is 1/);
  });
});
