/**
 * The sparse path against the gold standards: τ from the inverse-dynamics solve equals RNEA, q̈
 * from the forward-dynamics solve equals ABA, on seeded random trees with every joint type (fixed
 * and floating base); zero fill for inverse dynamics up to 2,000 bodies; exact flop accounting;
 * bad inputs named.
 */
import { describe, expect, it } from 'vitest';
import { aba, AbaWorkspace } from '../../src/algorithms/aba.ts';
import { rnea, RneaWorkspace } from '../../src/algorithms/rnea.ts';
import { LuForwardDynamics, LuInverseDynamics } from '../../src/assembly/dynamics.ts';
import { inverseDynamicsProblem } from '../../src/assembly/problems.ts';
import { SparseSolver } from '../../src/assembly/solver.ts';
import { SymbolicSystem } from '../../src/assembly/system.ts';
import { chain, humanoid, randomTree } from '../../src/model/generators.ts';
import type { Model } from '../../src/model/model.ts';
import { Rng } from '../../src/model/rng.ts';
import { SymbolicLU } from '../../src/sparse/symbolic.ts';
import { expectClose } from '../helpers.ts';
import { randomState } from '../state.ts';

const models: [string, () => Model][] = [
  ['tree:40 fixed', () => randomTree(40, 21)],
  ['tree:40 floating', () => randomTree(40, 22, { floatingBase: true })],
  ['tree:120 floating', () => randomTree(120, 23, { floatingBase: true })],
  ['chain:30 axes=random', () => chain(30, { axes: 'random', seed: 4 })],
  ['humanoid', () => humanoid()],
];

describe('LU inverse/forward dynamics = RNEA/ABA', () => {
  for (const [name, make] of models) {
    const model = make();
    const rng = new Rng(name.length);
    const id = new LuInverseDynamics(model), fd = new LuForwardDynamics(model);
    const rw = new RneaWorkspace(model), aw = new AbaWorkspace(model);
    it(`${name}: τ and q̈ to round-off, with external wrenches`, () => {
      const types = new Set(model.jointTypes);
      if (name.startsWith('tree')) for (const t of ['revolute', 'prismatic', 'helical', 'spherical']) expect(types.has(t as never), t).toBe(true);
      for (let t = 0; t < 3; t++) {
        const { q, v, a, tau } = randomState(model, rng);
        const fext = Array.from({ length: model.nb }, () => Float64Array.from({ length: 6 }, () => rng.uniform(-5, 5)));
        expectClose(id.solve(q, v, a, fext), rnea(model, rw, q, v, a, fext), 1e-12, 'lu_id vs RNEA');
        expectClose(fd.solve(q, v, tau, fext), aba(model, aw, q, v, tau, fext), 1e-9, 'lu_fd vs ABA');
        expectClose(fd.solve(q, null, tau), aba(model, aw, q, null, tau), 1e-9, 'lu_fd vs ABA, q̇ = 0');
      }
    });
    it(`${name}: the step's flops are the kernels' counts, and the factor flops the symbolic prediction`, () => {
      const { q, v, a } = randomState(model, rng);
      fd.solve(q, v, a);
      // the analysis in force (a re-pivot replaces the offline one)
      const S = fd.solver.lu.symbolic, f = fd.solver.flops;
      expect(f.factor.total).toBe(S.factorFlops);
      // the solve, and one refinement step in every block of size ≥ 2: residual (nnz of the
      // block), block solve (its L and U, one division per row), update (one addition per row)
      let refine = 0;
      for (let b = 0; b < S.nblocks; b++) {
        const k1 = S.r[b], k2 = S.r[b + 1];
        if (k2 - k1 > 1) refine += 2 * (S.Bp[k2] - S.Bp[k1]) + 2 * (S.Lp[k2] - S.Lp[k1] + S.Up[k2] - S.Up[k1]) + 2 * (k2 - k1);
      }
      expect(refine).toBeGreaterThan(0);
      expect(fd.solver.lu.refineSteps).toBe(S.orderings.length);
      expect(f.solve.total).toBe(S.solveFlops + refine);
      expect(f.kinematics.total).toBeGreaterThan(0);
      id.solve(q, v, a);
      expect(id.solver.flops.factor.total).toBe(0); // all 1×1 blocks
    });
    it(`${name}: with the refinement's backward-error test (refineWhen 'needed'), q̈ as ABA's and the flops of what ran`, () => {
      const fdt = new LuForwardDynamics(model, { refineWhen: 'needed' });
      for (let t = 0; t < 20; t++) {
        const { q, v, tau } = randomState(model, rng);
        expectClose(fdt.solve(q, v, tau), aba(model, aw, q, v, tau), 1e-9, 'lu_fd (tested) vs ABA');
        // per block of size ≥ 2 the test (residual and Σ|c·y|: 3 flops per entry; ω s_i: one per
        // row); where it failed, the step (block solve: its L and U, one division per row; update)
        const S = fdt.solver.lu.symbolic, lu = fdt.solver.lu, f = fdt.solver.flops;
        let test = 0, step = 0;
        for (let b = 0; b < S.nblocks; b++) {
          const k1 = S.r[b], k2 = S.r[b + 1];
          if (k2 - k1 > 1) {
            test += 3 * (S.Bp[k2] - S.Bp[k1]) + (k2 - k1);
            step += 2 * (S.Lp[k2] - S.Lp[k1] + S.Up[k2] - S.Up[k1]) + 2 * (k2 - k1);
          }
        }
        expect(lu.refineTests).toBe(S.orderings.length);
        expect(lu.refineSteps).toBe(lu.refineFailed);
        if (lu.refineFailed === lu.refineTests) expect(f.solve.total).toBe(S.solveFlops + test + step);
        else if (lu.refineFailed === 0) expect(f.solve.total).toBe(S.solveFlops + test);
        else {
          expect(f.solve.total).toBeGreaterThan(S.solveFlops + test);
          expect(f.solve.total).toBeLessThan(S.solveFlops + test + step);
        }
      }
    });
  }

  it('inverse dynamics has a triangular form (every block 1×1, no fill) up to 2,000 bodies', () => {
    for (const [n, seed] of [[500, 1], [2000, 2]] as const) {
      const model = randomTree(n, seed, { floatingBase: seed === 2 });
      const sys = new SymbolicSystem(model, inverseDynamicsProblem(model));
      const solver = new SparseSolver(sys);
      const S = solver.symbolic;
      expect(S.nblocks).toBe(sys.n);
      expect(S.maxBlock).toBe(1);
      expect(S.luNnz).toBe(sys.n);
      expect(S.factorFlops).toBe(0);
    }
  });

  it('keeps the offline pivot order at run time: no re-pivoting over random states of a 300-body tree, q̈ = ABA to 1e-9', () => {
    const model = randomTree(300, 5, { floatingBase: true });
    const fd = new LuForwardDynamics(model), aw = new AbaWorkspace(model), rng = new Rng(77);
    for (let t = 0; t < 20; t++) {
      const { q, v, tau } = randomState(model, rng);
      expectClose(fd.solve(q, v, tau), aba(model, aw, q, v, tau), 1e-9, `state ${t}`);
    }
    expect(fd.solver.lu.repivots).toBe(0);
  });

  it('keeps a saved offline ordering: SymbolicLU JSON round trip gives the same solution', () => {
    const model = randomTree(30, 8, { floatingBase: true });
    const a = new LuForwardDynamics(model);
    const S = SymbolicLU.fromJSON(JSON.parse(JSON.stringify(a.solver.symbolic.toJSON())));
    const b = new LuForwardDynamics(model, { symbolic: S });
    expect(b.solver.analyzeMs).toBe(0);
    const { q, v, tau } = randomState(model, new Rng(1));
    expectClose(b.solve(q, v, tau), Float64Array.from(a.solve(q, v, tau)), 1e-15, 'same q̈');
    const other = new LuForwardDynamics(randomTree(31, 8), {});
    expect(() => new LuForwardDynamics(randomTree(31, 8), { symbolic: S })).toThrow(/does not belong to this system/);
    void other;
  });

  it('rejects bad input with a clear message', () => {
    const model = chain(4);
    const id = new LuInverseDynamics(model);
    const z = new Float64Array(4);
    expect(() => id.solve([0, 0, 0], z, z)).toThrow('q has length 3, expected model.nq = 4');
    expect(() => id.solve([0, 0, NaN, 0], z, z)).toThrow(/q\[2\] is NaN \(joint "joint3"\)/);
    expect(() => id.solve(z, z, [0, 0, 0, Infinity])).toThrow(/a\[3\] is Infinity/);
    expect(() => id.solve(z, z, z, [new Float64Array(6)])).toThrow('fext has 1 wrenches, expected model.nb = 4');
  });

  it('large systems once their code is generated (loop kernels and the fill\'s loop form): τ = RNEA, q̈ = ABA', () => {
    // the default ('auto') generates code at the 16th refactor: the loop kernels for the 21,818-statement
    // triangular solves of a 256-link chain and a 192-body tree, and for forward dynamics of a 100-body tree; beside them the
    // fill in its loop form (more than 64 bodies)
    const cases: [Model, 'id' | 'fd'][] = [[chain(256), 'id'], [randomTree(100, 31, { floatingBase: true }), 'fd'], [randomTree(192, 32, { floatingBase: true }), 'id']];
    for (const [model, kind] of cases) {
      const rng = new Rng(model.nb + kind.length);
      const lu = kind === 'id' ? new LuInverseDynamics(model) : new LuForwardDynamics(model);
      const rw = new RneaWorkspace(model), aw = new AbaWorkspace(model);
      for (let t = 0; t < 24; t++) {
        const { q, v, a, tau } = randomState(model, rng);
        if (kind === 'id') expectClose(lu.solve(q, v, a), rnea(model, rw, q, v, a), 1e-12, `lu_id vs RNEA, ${model.nb} bodies, call ${t}`);
        else expectClose(lu.solve(q, v, tau), aba(model, aw, q, v, tau), 1e-9, `lu_fd vs ABA, ${model.nb} bodies, call ${t}`);
      }
      expect(lu.solver.lu.compiledSize?.kind, `${kind} ${model.nb} bodies`).toBe('loops');
      expect((lu.solver as unknown as { fillCode: { form: string } | null }).fillCode?.form, `${kind} ${model.nb} bodies`).toBe('loops');
    }
  });
});

describe('LU dynamics read their outputs where the compiled solve leaves them', () => {
  it('τ with and without f^x in any order; the solver\'s d is the step\'s solution when read, after other solves on its factors too', () => {
    const model = randomTree(40, 21), rng = new Rng(3), n = new SymbolicSystem(model, inverseDynamicsProblem(model)).n;
    const id = new LuInverseDynamics(model), rw = new RneaWorkspace(model);
    // the compiled factorization and the generated fill come after some steps (compile 'auto')
    for (let t = 0; t < 20; t++) { const s = randomState(model, rng); id.solve(s.q, s.v, s.a); }
    const lu = id.solver.lu;
    expect(lu.compiled && lu.rhsBuffer !== null).toBe(true);
    const other = Float64Array.from({ length: n }, (_, k) => Math.sin(k + 1)), x = new Float64Array(n);
    for (const withF of [true, false, false, true, false, false, false]) {
      const { q, v, a } = randomState(model, rng);
      const fext = withF ? Array.from({ length: model.nb }, () => Float64Array.from({ length: 6 }, () => rng.uniform(-5, 5))) : undefined;
      const tau = Float64Array.from(id.solve(q, v, a, fext));
      expectClose(tau, rnea(model, rw, q, v, a, fext), 1e-12, `lu_id vs RNEA${withF ? ', f^x' : ''}`);
      // another solve on the same factors before d is read: d is still this step's, D d + b = 0
      lu.solve(x, other);
      const d = id.solver.d, { Ax, b } = id.solver.values, P = id.solver.sys.pattern;
      const r = Float64Array.from(b);
      for (let j = 0; j < n; j++) for (let t = P.Ap[j]; t < P.Ap[j + 1]; t++) r[P.Ai[t]] += Ax[t] * d[j];
      expect(Math.max(...r.map(Math.abs))).toBeLessThan(1e-9 * Math.max(1, ...b.map(Math.abs)));
      const L = id.solver.sys.layout;
      for (let i = 0; i < model.nb; i++) for (let k = 0; k < model.nvi[i]; k++) expect(d[L.tau[i] + k]).toBe(tau[model.iv[i] + k]);
    }
  });
});
