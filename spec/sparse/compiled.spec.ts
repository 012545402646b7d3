/**
 * The compiled refactor and solve (compiled.ts, FactorOptions.compile) against the generic kernels:
 * the same factors, solutions and counts bit for bit, refinement and row scaling included; a failed
 * pivot check falls back to the generic kernels (re-pivoting, errors naming the column).
 */
import { describe, expect, it } from 'vitest';
import { LuForwardDynamics, LuInverseDynamics } from '../../src/assembly/dynamics.ts';
import { forwardDynamicsProblem, inverseDynamicsProblem } from '../../src/assembly/problems.ts';
import { SparseSolver } from '../../src/assembly/solver.ts';
import { SymbolicSystem } from '../../src/assembly/system.ts';
import { chain, randomTree } from '../../src/model/generators.ts';
import { randomConfiguration } from '../../src/model/random.ts';
import { Rng } from '../../src/model/rng.ts';
import { analyze, compress, NumericLU, SingularPivotError, type CscMatrix } from '../../src/sparse/index.ts';
import { DRIVER_LIMIT } from '../../src/sparse/loops.ts';
import { randomPermutation, randomSparse, rng } from './util.ts';

function counts(lu: NumericLU): number[] {
  return [lu.factorMuls, lu.factorAdds, lu.factorDivs, lu.solveMuls, lu.solveAdds, lu.solveDivs, lu.refineMuls, lu.refineAdds, lu.refineDivs, lu.refineSteps, lu.refineTests, lu.refineFailed];
}

describe('compiled LU', () => {
  it('same factors, solutions and counts as the generic kernels (refinement 0 or 1, row scaling)', () => {
    const rand = rng(31);
    for (let trial = 0; trial < 12; trial++) {
      const n = 10 + Math.floor(rand() * 80);
      const A = randomSparse(n, n, 2 + Math.floor(rand() * 3), rand);
      const S = analyze(A);
      const opts = { refine: trial % 2, scale: trial % 3 === 0 ? 'max' as const : 'none' as const };
      // straight-line code and the loop kernels, each against its own generic twin (re-pivotings included)
      for (const compile of ['always', 'loops'] as const) {
        const g = new NumericLU(S, { ...opts, kernel: 'mapped', compile: 'never' });
        const c = new NumericLU(S, { ...opts, kernel: 'mapped', compile, plainSolve: trial % 4 < 2 });
        const kind = c.compiledSize!.kind;
        for (let rep = 0; rep < 2; rep++) {
          const Ax = Float64Array.from(A.Ax, (v) => v * (1 + 0.1 * rand()));
          g.refactor(Ax);
          c.refactor(Ax);
          expect(c.compiled, `trial ${trial}`).toBe(true);
          expect(Array.from(c.LUx), `trial ${trial} ${kind}`).toEqual(Array.from(g.LUx));
          const B = Float64Array.from({ length: 2 * n }, () => rand() - 0.5);
          const xg = g.solveMany(new Float64Array(2 * n), B, 2);
          const xc = c.solveMany(new Float64Array(2 * n), B, 2);
          expect(Array.from(xc), `trial ${trial} ${kind}`).toEqual(Array.from(xg));
          expect(counts(c), `trial ${trial} ${kind}`).toEqual(counts(g));
          // the transposed solve runs the generic kernels, their refinement on the values of C that
          // the compiled refactor kept (or, for the loop kernels, left in A: CompiledLU.residualFromA)
          const bt = B.subarray(0, n);
          expect(Array.from(c.solveTransposed(new Float64Array(n), bt)), `trial ${trial} ${kind}`).toEqual(Array.from(g.solveTransposed(new Float64Array(n), bt)));
          // the solves without the refinement step (a norm estimate's): the compiled one where the solve
          // refines a block (CompiledLU.solvePlain), the same bits and counts as the generic kernels
          // (with plainSolve; without, the JavaScript solve: the same bits)
          expect(c.code!.solvePlain !== null, `trial ${trial} ${kind}`).toBe(opts.refine === 1 && c.hasBigBlock && trial % 4 < 2);
          const ug = g.solveUnrefined(new Float64Array(n), bt), cug = counts(g);
          expect(Array.from(c.solveUnrefined(new Float64Array(n), bt)), `trial ${trial} ${kind}`).toEqual(Array.from(ug));
          expect(counts(c), `trial ${trial} ${kind}`).toEqual(cug);
          expect(Array.from(c.solveTransposedUnrefined(new Float64Array(n), bt)), `trial ${trial} ${kind}`).toEqual(Array.from(g.solveTransposedUnrefined(new Float64Array(n), bt)));
          // sparse right-hand sides (unit vectors and a sparse column): same solutions and counts
          const E = new Float64Array(3 * n);
          E[0] = 1; E[n + n - 1] = 1; E[2 * n + (n >> 1)] = -2; E[2 * n + 1] = 0.5;
          const zg = g.solveManySparse(new Float64Array(3 * n), E, 3);
          const zc = c.solveManySparse(new Float64Array(3 * n), E, 3);
          expect(Array.from(zc), `trial ${trial} ${kind}`).toEqual(Array.from(zg));
          expect(counts(c), `trial ${trial} ${kind}`).toEqual(counts(g));
        }
      }
    }
  });

  it('the backward-error test of the refinement: same decisions, solutions and counts as the generic kernels, whether it passes or fails', () => {
    const rand = rng(57);
    // refineOmega: a threshold no residual meets (every block refined), the default, one every solution meets (none refined)
    const seen = { failed: 0, passed: 0 };
    for (let trial = 0; trial < 8; trial++) {
      const n = 20 + Math.floor(rand() * 80);
      const A = randomSparse(n, n, 2 + Math.floor(rand() * 3), rand);
      const S = analyze(A);
      for (const refineOmega of [1e-300, undefined, 0.5]) {
        for (const compile of ['always', 'loops'] as const) {
          const opts = { refine: 1, refineWhen: 'needed' as const, refineOmega, kernel: 'mapped' as const };
          const g = new NumericLU(S, { ...opts, compile: 'never' });
          const c = new NumericLU(S, { ...opts, compile });
          const a = new NumericLU(S, { ...opts, refineWhen: 'always', compile: 'never' });
          const z = new NumericLU(S, { kernel: 'mapped', compile: 'never' });
          const Ax = Float64Array.from(A.Ax, (v) => v * (1 + 0.1 * rand()));
          for (const lu of [g, c, a, z]) lu.refactor(Ax);
          const B = Float64Array.from({ length: 2 * n }, () => rand() - 0.5);
          const xg = g.solveMany(new Float64Array(2 * n), B, 2);
          const xc = c.solveMany(new Float64Array(2 * n), B, 2);
          expect(Array.from(xc), `trial ${trial} ${compile} ${refineOmega}`).toEqual(Array.from(xg));
          expect(counts(c), `trial ${trial} ${compile} ${refineOmega}`).toEqual(counts(g));
          // the transposed solve (generic kernels, the test on C_bbᵀ) alike
          const bt = B.subarray(0, n);
          expect(Array.from(c.solveTransposed(new Float64Array(n), bt))).toEqual(Array.from(g.solveTransposed(new Float64Array(n), bt)));
          expect(counts(c)).toEqual(counts(g));
          g.solveMany(new Float64Array(2 * n), B, 2);
          if (g.refineTests === 0) continue;
          seen.failed += g.refineFailed;
          seen.passed += g.refineTests - g.refineFailed;
          // every block failed: the solution of refineWhen 'always'; none: the unrefined one
          if (refineOmega === 1e-300) expect(Array.from(xg)).toEqual(Array.from(a.solveMany(new Float64Array(2 * n), B, 2)));
          if (refineOmega === 0.5) {
            expect(g.refineFailed).toBe(0);
            expect(Array.from(xg)).toEqual(Array.from(z.solveMany(new Float64Array(2 * n), B, 2)));
          }
        }
      }
    }
    expect(seen.failed).toBeGreaterThan(0);
    expect(seen.passed).toBeGreaterThan(0);
  });

  it('the loop kernels factor by column templates (few column shapes) or slot by slot (many): both give the generic factors, solutions and counts', () => {
    const rand = rng(77);
    const cases: { A: CscMatrix; templated: boolean }[] = [
      // a band matrix: its columns repeat a few shapes (templates), called by straight-line code
      // (400 columns) or by a loop over a table (4,000 columns, above DRIVER_LIMIT); one whose
      // half-width varies at random from column to column: thousands of shapes (slot by slot)
      { A: compress(400, 400, ...band(400, () => 3, rand)).A, templated: true },
      { A: compress(4000, 4000, ...band(4000, () => 3, rand)).A, templated: true },
      { A: compress(3000, 3000, ...band(3000, () => 1 + Math.floor(6 * rand()), rand)).A, templated: false },
    ];
    for (const { A, templated } of cases) {
      const S = analyze(A);
      // the driver's code: a call per column (≥ 10 bytes each) up to DRIVER_LIMIT columns, a loop above
      if (templated) {
        const bytes = new NumericLU(S, { kernel: 'mapped', compile: 'loops' }).compiledSize!.bytes;
        if (A.n > DRIVER_LIMIT) expect(bytes).toBeLessThan(10 * A.n);
        else expect(bytes).toBeGreaterThan(10 * A.n);
      }
      for (const refine of [0, 1]) {
        const g = new NumericLU(S, { refine, kernel: 'mapped', compile: 'never' });
        const c = new NumericLU(S, { refine, kernel: 'mapped', compile: 'loops' });
        expect(c.compiledSize!.kind).toBe('loops');
        expect(c.compiledSize!.statements > 0, `templated ${templated}`).toBe(templated);
        for (let rep = 0; rep < 2; rep++) {
          const Ax = Float64Array.from(A.Ax, (v) => v * (1 + 0.1 * rand()));
          g.refactor(Ax);
          c.refactor(Ax);
          expect(c.compiled).toBe(true);
          expect(Array.from(c.LUx)).toEqual(Array.from(g.LUx));
          const B = Float64Array.from({ length: A.n }, () => rand() - 0.5);
          expect(Array.from(c.solveMany(new Float64Array(A.n), B, 1))).toEqual(Array.from(g.solveMany(new Float64Array(A.n), B, 1)));
          expect(counts(c)).toEqual(counts(g));
          expect(Array.from(c.solveTransposed(new Float64Array(A.n), B))).toEqual(Array.from(g.solveTransposed(new Float64Array(A.n), B)));
        }
      }
    }
  });

  it('auto compiles at the compileAfter-th refactor, never does not', () => {
    const A = randomSparse(40, 40, 3, rng(8));
    const S = analyze(A);
    const auto = new NumericLU(S, { kernel: 'mapped', compile: 'auto', compileAfter: 3 });
    const never = new NumericLU(S, { kernel: 'mapped', compile: 'never' });
    const byDefault = new NumericLU(S, { kernel: 'mapped' });
    for (let k = 1; k <= 16; k++) {
      auto.refactor(A.Ax);
      never.refactor(A.Ax);
      byDefault.refactor(A.Ax);
      expect(auto.compiled).toBe(k >= 3);
      expect(byDefault.compiled).toBe(k >= 16);
    }
    expect(never.compiled).toBe(false);
    expect(byDefault.compiledSize!.kind).toBe('straight');
    // above compileLimit, 'auto' runs the loop kernels
    const big = new NumericLU(S, { compile: 'auto', compileAfter: 1, compileLimit: 0 }).refactor(A.Ax);
    expect(big.compiled).toBe(true);
    expect(big.compiledSize!.kind).toBe('loops');
    expect(() => new NumericLU(S, { compile: 'sometimes' as 'auto' })).toThrow('compile is "sometimes", expected auto, always, loops or never');
  });

  it('a pivot that fails its check falls back to the generic kernels: re-pivots, then compiles the new layout', () => {
    const rand = rng(21);
    const A = randomSparse(60, 60, 3, rand);
    const S = analyze(A);
    const big = S.orderings.reduce((a, o) => (o.size > a.size ? o : a));
    const k = big.start;
    const j = S.q[k];
    let slot = -1;
    for (let t = A.Ap[j]; t < A.Ap[j + 1]; t++) if (A.Ai[t] === S.p[k]) slot = t;
    const Ax = A.Ax.slice();
    Ax[slot] = 1e-9;
    for (const compile of ['always', 'loops'] as const) {
      const g = new NumericLU(S, { kernel: 'mapped', compile: 'never' }).refactor(A.Ax);
      const c = new NumericLU(S, { kernel: 'mapped', compile }).refactor(A.Ax);
      expect(c.compiled).toBe(true);
      g.refactor(Ax);
      c.refactor(Ax);
      expect(c.pivoted, compile).toBe(true);
      expect(c.repivots).toBe(1);
      expect(Array.from(c.symbolic.p)).toEqual(Array.from(g.symbolic.p));
      c.refactor(Ax);
      g.refactor(Ax);
      expect(c.compiled).toBe(true);
      expect(Array.from(c.LUx), compile).toEqual(Array.from(g.LUx));
      expect(counts(c), compile).toEqual(counts(g));
    }
    // a zero 1×1 pivot is reported by the generic kernel, naming the column
    const T: CscMatrix = { m: 2, n: 2, Ap: Int32Array.from([0, 1, 2]), Ai: Int32Array.from([0, 1]), Ax: Float64Array.from([1, 2]) };
    for (const compile of ['always', 'loops'] as const) {
      const lt = new NumericLU(analyze(T), { compile, colNames: ['x', 'y'] }).refactor(T.Ax);
      expect(lt.compiled).toBe(true);
      expect(() => lt.refactor(Float64Array.from([1, 0]))).toThrow(/y/);
    }
  });

  it('robot dynamics: compiled forward and inverse dynamics equal the generic ones bit for bit, counts included', () => {
    for (const model of [chain(6), randomTree(20, 4, { floatingBase: true })]) {
      for (const K of [LuForwardDynamics, LuInverseDynamics]) {
        for (const compile of ['always', 'loops'] as const) {
          const g = new K(model, { compile: 'never' }), c = new K(model, { compile });
          const r = new Rng(3);
          for (let t = 0; t < 3; t++) {
            const q = randomConfiguration(model, r), v = r.array(model.nv, -1, 1), x = r.array(model.nv, -1, 1);
            expect(Array.from(c.solve(q, v, x))).toEqual(Array.from(g.solve(q, v, x)));
            expect(Array.from(c.solver.lu.LUx)).toEqual(Array.from(g.solver.lu.LUx));
            expect(counts(c.solver.lu)).toEqual(counts(g.solver.lu));
          }
          expect(c.solver.lu.compiledSize?.kind).toBe(compile === 'always' ? 'straight' : 'loops');
        }
      }
    }
  });

  it('robot inverse dynamics as shipped (compiled at the 16th step, from the source, ±1 entries applied without multiplying): the generic solution and counts bit for bit', () => {
    for (const model of [chain(9), randomTree(20, 6, { floatingBase: true })]) {
      // the compiled fill on forwardKinematics (bit for bit), and on the generated kinematics
      // (kinematics-code.ts: its constant folding can give +0 where forwardKinematics gives −0, so
      // bit for bit but the signs of zeros)
      const g = new LuInverseDynamics(model, { compile: 'never' }), c = new LuInverseDynamics(model, { kinematicsCode: false });
      const k = new LuInverseDynamics(model), unsigned = (a: Float64Array) => Array.from(a, (x) => x + 0);
      const r = new Rng(5);
      for (let t = 0; t < 24; t++) {
        const q = randomConfiguration(model, r), v = r.array(model.nv, -1, 1), x = r.array(model.nv, -1, 1);
        expect(Array.from(c.solve(q, v, x))).toEqual(Array.from(g.solve(q, v, x)));
        expect(Array.from(c.solver.d)).toEqual(Array.from(g.solver.d));
        expect(counts(c.solver.lu)).toEqual(counts(g.solver.lu));
        k.solve(q, v, x);
        expect(unsigned(k.solver.d)).toEqual(unsigned(g.solver.d));
        expect(counts(k.solver.lu)).toEqual(counts(g.solver.lu));
        expect(k.solver.totalFlops()).toEqual(g.solver.totalFlops());
      }
      expect(k.solver.kinematicsGenerated).toBe(true);
      expect(c.solver.lu.compiledSize?.kind).toBe('straight');
      expect(Array.from(c.solver.lu.LUx)).toEqual(Array.from(g.solver.lu.LUx));
    }
  });

  it('a large system (loop kernels, more than 64 bodies): the generated fill in its loop form gives the plain fill\'s solution, flops and values of D and b', () => {
    const model = randomTree(100, 3, { floatingBase: true });
    const sys = new SymbolicSystem(model, forwardDynamicsProblem(model));
    const plain = new SparseSolver(sys, { refine: 1, compile: 'never' });
    const gathered = new SparseSolver(sys, { refine: 1, compile: 'loops', gather: true });
    const r = new Rng(13);
    for (let t = 0; t < 4; t++) {
      const q = randomConfiguration(model, r), v = t === 2 ? null : r.array(model.nv, -1, 1), y = r.array(sys.ny, -1, 1);
      expect(Array.from(gathered.step(q, v, y))).toEqual(Array.from(plain.step(q, v, y)));
      expect(gathered.totalFlops()).toEqual(plain.totalFlops());
      expect(Array.from(gathered.values.b)).toEqual(Array.from(plain.values.b));
      expect(Array.from(gathered.values.Ax)).toEqual(Array.from(plain.values.Ax));
    }
    expect(gathered.lu.compiledSize?.kind).toBe('loops');
    expect((gathered as unknown as { fillCode: unknown }).fillCode).not.toBeNull();
  });

  it('gathered values (FactorOptions.gather) and negated right-hand sides: the same factors, solutions and counts', () => {
    const rand = rng(47);
    for (let trial = 0; trial < 8; trial++) {
      const n = 10 + Math.floor(rand() * 60);
      const A = randomSparse(n, n, 2 + Math.floor(rand() * 3), rand);
      const S = analyze(A);
      const nnz = S.nnz;
      // a source of nnz − k values: the last k entries of A repeat earlier ones
      const k = Math.min(5, nnz - 1);
      const map = Int32Array.from({ length: nnz }, (_, t) => (t < nnz - k ? nnz - k - 1 - t : Math.floor(rand() * (nnz - k))));
      const opts = { refine: trial % 2, scale: trial % 4 === 3 ? 'max' as const : 'none' as const, kernel: 'mapped' as const };
      const plain = new NumericLU(S, { ...opts, compile: 'never' });
      const gen = new NumericLU(S, { ...opts, compile: 'never', gather: { map, size: nnz - k } });
      const com = new NumericLU(S, { ...opts, compile: 'always', gather: { map, size: nnz - k } });
      const loo = new NumericLU(S, { ...opts, compile: 'loops', gather: { map, size: nnz - k } });
      expect(com.compiled && loo.compiled).toBe(true);
      for (let rep = 0; rep < 3; rep++) {
        const src = Float64Array.from({ length: nnz - k }, () => rand() - 0.5);
        // a bad pivot in the last round: the compiled code fails its check and the generic kernels re-pivot
        if (rep === 2) src[map[S.Bslot[S.Bp[0]]]] *= 1e-12;
        const Ax = Float64Array.from(map, (s) => src[s]);
        plain.refactor(Ax);
        for (const lu of [gen, com, loo]) {
          lu.source.set(src);
          lu.refactorSource();
          expect(Array.from(lu.LUx), `trial ${trial}`).toEqual(Array.from(plain.LUx));
          expect(counts(lu)).toEqual(counts(plain));
        }
        const b = Float64Array.from({ length: n }, () => rand() - 0.5);
        const nb = Float64Array.from(b, (v) => -v);
        const x0 = plain.solve(new Float64Array(n), nb);
        const c0 = counts(plain);
        for (const lu of [plain, gen, com, loo]) {
          expect(Array.from(lu.solveNegated(new Float64Array(n), b)), `trial ${trial}`).toEqual(Array.from(x0));
          expect(counts(lu)).toEqual(c0);
        }
      }
    }
    expect(() => new NumericLU(analyze(randomSparse(5, 5, 2, rng(1))), { gather: { map: new Int32Array(2), size: 1 } })).toThrow(/gather.map has length 2/);
    expect(() => new NumericLU(analyze(randomSparse(5, 5, 2, rng(1)))).source).toThrow(/without the gather option/);
  });

  it('a triangular matrix with fixed pivots (gather.fixed), solved from its source or not (gather.solveFromSource): the same solutions, counts and factors, and the same errors', () => {
    const rand = rng(83);
    for (let trial = 0; trial < 6; trial++) {
      // lower triangular with a full diagonal, rows and columns permuted: every block of its BTF is 1×1
      const n = 8 + Math.floor(rand() * 40);
      const Ti: number[] = [], Tj: number[] = [];
      for (let j = 0; j < n; j++) {
        Ti.push(j); Tj.push(j);
        for (let e = 0; e < 3; e++) { const i = j + 1 + Math.floor(rand() * (n - j)); if (i < n && !Ti.some((r, t) => r === i && Tj[t] === j)) { Ti.push(i); Tj.push(j); } }
      }
      const pr = randomPermutation(n, rand), pc = randomPermutation(n, rand);
      const { A } = compress(n, n, Ti.map((i) => pr[i]), Tj.map((j) => pc[j]));
      const S = analyze(A);
      expect(S.nblocks).toBe(n);
      const nnz = S.nnz;
      // source: the entries of A in order; the diagonal's even columns are fixed (±1 or 2), and
      // every third entry off the diagonal (±1, −2 or 0.5: the solve applies ±1 without multiplying)
      const map = Int32Array.from({ length: nnz }, (_, t) => t);
      const fixed = new Uint8Array(nnz), fixedVal = new Float64Array(nnz);
      const diag = new Uint8Array(nnz);
      for (let k = 0; k < n; k++) {
        const t = S.Bslot[S.Bp[k]];
        diag[t] = 1;
        if (k % 2 === 0) { fixed[t] = 1; fixedVal[t] = [1, -1, 2][k % 3]; }
      }
      for (let t = 0; t < nnz; t++) if (diag[t] === 0 && t % 3 === 0) { fixed[t] = 1; fixedVal[t] = [1, -1, -2, 0.5][t % 4]; }
      const opts = { refine: trial % 2, kernel: 'mapped' as const };
      const plain = new NumericLU(S, { ...opts, compile: 'never' });
      const lus = [true, false].flatMap((solveFromSource) => (['always', 'loops', 'auto'] as const).map((compile) => new NumericLU(S, { ...opts, compile, compileAfter: 2, gather: { map, size: nnz, fixed, solveFromSource } })));
      const values = () => Float64Array.from({ length: nnz }, (_, t) => (fixed[t] === 1 ? fixedVal[t] : rand() - 0.5));
      for (let rep = 0; rep < 4; rep++) {
        const src = values();
        plain.refactor(src);
        const b = Float64Array.from({ length: n }, () => rand() - 0.5);
        const x0 = plain.solveNegated(new Float64Array(n), b), c0 = counts(plain);
        for (const lu of lus) {
          lu.source.set(src);
          lu.refactorSource();
          expect(Array.from(lu.solveNegated(new Float64Array(n), b)), `trial ${trial}`).toEqual(Array.from(x0));
          expect(counts(lu)).toEqual(c0);
          expect(Array.from(lu.LUx)).toEqual(Array.from(plain.LUx));
        }
      }
      expect(lus.every((lu) => lu.compiled)).toBe(true);
      // a generic refactor of other values: the solves follow its factors, not the source
      const other = values();
      plain.refactor(other);
      const b = Float64Array.from({ length: n }, () => rand() - 0.5);
      const x1 = plain.solve(new Float64Array(n), b);
      for (const lu of lus) {
        lu.refactor(other);
        expect(Array.from(lu.solve(new Float64Array(n), b))).toEqual(Array.from(x1));
        expect(Array.from(lu.LUx)).toEqual(Array.from(plain.LUx));
      }
      // zero pivots, fixed or not, are reported as the generic refactor reports them (the column named)
      const kFixed = 0, kFree = 1;
      for (const k of [kFree, kFixed]) {
        const t = S.Bslot[S.Bp[k]];
        const bad = values();
        bad[t] = 0;
        const fresh = [true, false].flatMap((solveFromSource) => (['always', 'loops'] as const).map((compile) => new NumericLU(S, { ...opts, compile, gather: { map, size: nnz, fixed, solveFromSource } })));
        for (const lu of [...fresh, ...(k === kFree ? lus : [])]) {
          lu.source.set(bad);
          expect(() => lu.refactorSource()).toThrow(SingularPivotError);
        }
      }
    }
    const S5 = analyze(randomSparse(5, 5, 2, rng(1)));
    expect(() => new NumericLU(S5, { gather: { map: Int32Array.from({ length: S5.nnz }, (_, t) => t), size: S5.nnz, fixed: new Uint8Array(2) } })).toThrow(/gather.fixed has length 2/);
  });

  it('robot systems: the gathered fill, and with compiled code the generated one, give the same solution, flops and values of D and b as the plain one', () => {
    for (const model of [chain(7), randomTree(15, 5, { floatingBase: true })]) {
      for (const problem of [inverseDynamicsProblem(model), forwardDynamicsProblem(model)]) {
        const sys = new SymbolicSystem(model, problem);
        for (const compile of ['never', 'always', 'loops'] as const) {
          const plain = new SparseSolver(sys, { refine: 1, compile });
          const gathered = new SparseSolver(sys, { refine: 1, compile, gather: true });
          const r = new Rng(11);
          // (compiled: the generated fill from the second step on; a step without q̇ among them)
          for (let t = 0; t < 5; t++) {
            const q = randomConfiguration(model, r), v = t === 3 ? null : r.array(model.nv, -1, 1), y = r.array(sys.ny, -1, 1);
            expect(Array.from(gathered.step(q, v, y))).toEqual(Array.from(plain.step(q, v, y)));
            expect(gathered.totalFlops()).toEqual(plain.totalFlops());
            expect(Array.from(gathered.values.Ax)).toEqual(Array.from(plain.values.Ax));
            expect(Array.from(gathered.values.b)).toEqual(Array.from(plain.values.b));
            expect(Array.from(gathered.rhs)).toEqual(Array.from(plain.rhs));
          }
          expect(gathered.lu.compiled).toBe(compile !== 'never');
        }
      }
    }
  });
});

/** triplets (rows, columns, values) of an n×n band matrix, column j of half-width w(), diagonally dominant */
function band(n: number, w: () => number, rand: () => number): [number[], number[], number[]] {
  const Ti: number[] = [], Tj: number[] = [], Tx: number[] = [];
  for (let j = 0; j < n; j++) {
    const wj = w();
    for (let i = Math.max(0, j - wj); i <= Math.min(n - 1, j + wj); i++) { Ti.push(i); Tj.push(j); Tx.push(i === j ? 40 : rand() - 0.5); }
  }
  return [Ti, Tj, Tx];
}
