/**
 * The derivative problems of the study runner (issue 8): id-derivatives (∂τ/∂q, ∂τ/∂q̇, M) and
 * fd-derivatives (∂q̈/∂q, ∂q̈/∂q̇, M⁻¹) by factor reuse (lu, lu:<ordering>, lu-adjoint), Saccon's
 * recursive algorithms (paper 003 Tables 4–8, the baseline) and central differences (fd). Every
 * recorded count is checked against an independent run of the same derivative objects
 * (src/derivatives) at the same seeded state, and the analytic methods are checked to agree to 1e-10
 * relative at that state.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { randomDynamicsState } from '../../src/assembly/flops-report.ts';
import { LuForwardDynamicsDerivatives, LuInverseDynamicsDerivatives, type DynamicsDerivatives } from '../../src/derivatives/dynamics.ts';
import { FiniteDifferenceDerivatives, relativeErrors } from '../../src/derivatives/finite-differences.ts';
import { RecursiveForwardDynamicsDerivatives, RecursiveInverseDynamicsDerivatives } from '../../src/derivatives/recursive.ts';
import type { Model } from '../../src/model/model.ts';
import { Rng } from '../../src/model/rng.ts';
import { parseModelSpec } from '../../src/node/spec.ts';
import { modelCase } from '../../src/study/cases.ts';
import { parseStudyConfig } from '../../src/study/config.ts';
import { runStudy, solversFor, type StudyPoint, type StudyResult } from '../../src/study/runner.ts';
import { prepareSolver, type PreparedSolver } from '../../src/study/solvers.ts';

const SEED = 5;
const SPECS = ['chain:3', 'chain:6', 'tree:6:1', 'chain:4+floating'];
const CONFIG = {
  name: 'tiny-derivatives',
  models: [{ spec: 'chain:{N}', N: [3, 6], label: 'chain' }, 'tree:6:1', 'chain:4+floating'],
  problems: ['id-derivatives', 'fd-derivatives'],
  solvers: ['lu', 'lu:amd', 'lu-adjoint', 'recursive', 'fd'],
  // maxCallMs far above any first call, so that no point goes untimed on a loaded machine
  timing: { rounds: 1, minMs: 0.05, maxCallMs: 600_000 },
  seed: SEED,
  spy: { model: 'chain:{N}', N: 3, problem: 'id-derivatives' },
};

let result: StudyResult;
const point = (spec: string, problem: string, solver: string): StudyPoint => {
  const p = result.points.find((x) => x.spec === spec && x.problem === problem && x.solver === solver);
  if (!p) throw new Error(`no point ${spec} ${problem} ${solver}`);
  return p;
};

/** The study's state of a model (seeded as the runner seeds it), without external wrenches. */
function state(model: Model) {
  return randomDynamicsState(model, new Rng(SEED));
}

beforeAll(() => {
  result = runStudy(parseStudyConfig(JSON.stringify(CONFIG), 'tiny-derivatives.json', '.'));
});

describe('study runner: derivative problems', () => {
  it('runs the recursive baseline first, then factor reuse and the central differences; nothing else applies', () => {
    const config = parseStudyConfig(JSON.stringify({ ...CONFIG, problems: ['id', 'id-derivatives'], solvers: ['rnea', 'dense', ...CONFIG.solvers] }), 'x.json', '.');
    expect(solversFor(config, 'id-derivatives')).toEqual(['recursive', 'lu:auto', 'lu:amd', 'lu-adjoint', 'fd']);
    expect(solversFor(config, 'inverse-dynamics')).toEqual(['rnea', 'dense', 'lu:auto', 'lu:amd']);
    for (const spec of SPECS) {
      for (const problem of ['id-derivatives', 'fd-derivatives']) {
        const at = result.points.filter((p) => p.spec === spec && p.problem === problem);
        expect(at.map((p) => `${p.solver}:${p.status}`)).toEqual(['recursive:ok', 'lu:auto:ok', 'lu:amd:ok', 'lu-adjoint:ok', 'fd:ok']);
        expect(at.every((p) => p.baseline === 'recursive')).toBe(true);
      }
    }
    expect(result.spy?.sys.n).toBe(60);
  });

  it('records sizes, flops by part, times and ratios against the recursive route of the same run', () => {
    for (const p of result.points) {
      const f = p.flops!;
      expect(f.total).toBe(f.mul + f.add + f.div);
      expect(f.kinematics + f.fill + f.factor + f.solve + f.other).toBe(f.total);
      expect(Object.values(p.parts!).reduce((s, x) => s + x.total, 0)).toBe(f.total);
      expect(p.nv).toBe(parseModelSpec(p.spec).nv);
      if (p.solver === 'recursive') {
        expect(p.flops_ratio).toBe(1);
        // a ratio needs a positive baseline time (a one-round median of a µs-long call can be 0)
        if (p.time_us! > 0) expect(p.time_ratio).toBe(1);
      }
      if (p.solver === 'fd') {
        expect(p.time_us).toBeUndefined();
        expect(p.notes).toContain('not timed: central differences are a reference (timing.finiteDifferences is false)');
        continue;
      }
      expect(p.time_us, `${p.spec} ${p.problem} ${p.solver} timed`).toBeGreaterThanOrEqual(0);
      const base = point(p.spec, p.problem, 'recursive');
      expect(p.flops_ratio).toBeCloseTo(f.total / base.flops!.total, 12);
      if (p.solver.startsWith('lu')) {
        for (const k of ['n', 'nnz', 'lu_nnz', 'off_nnz', 'fill_nnz', 'blocks', 'max_block', 'analyze_ms', 'repivoted_blocks'] as const) expect(p[k], `${p.solver} ${k}`).toBeTypeOf('number');
      }
    }
  });

  it('times the central differences when timing.finiteDifferences is true', () => {
    const r = runStudy(parseStudyConfig(JSON.stringify({ ...CONFIG, models: ['chain:3'], problems: ['fd-derivatives'], solvers: ['fd'], timing: { rounds: 1, minMs: 0.05, maxCallMs: 600_000, finiteDifferences: true } }), 'x.json', '.'));
    expect(r.points.map((p) => p.solver)).toEqual(['recursive', 'fd']);
    expect(r.points[1].time_us).toBeGreaterThanOrEqual(0);
    expect(r.points[1].time_ratio).toBeTypeOf('number');
  });

  it('records the counts of an independent run of the same derivative objects (inverse dynamics)', () => {
    for (const spec of SPECS) {
      const model = parseModelSpec(spec), s = state(model);
      const rec = new RecursiveInverseDynamicsDerivatives(model).compute(s.q, s.v, s.a);
      const pr = point(spec, 'id-derivatives', 'recursive');
      expect(pr.parts!.rnea.total).toBe(rec.flops.value.total);
      expect(pr.parts!.derivatives.total).toBe(rec.flops.derivatives.total);
      expect(pr.parts!.M.total).toBe(rec.flops.M.total);
      expect(pr.flops!.total).toBe(rec.flops.value.total + rec.flops.derivatives.total + rec.flops.M.total);
      for (const [solver, ordering] of [['lu:auto', 'auto'], ['lu:amd', 'amd']] as const) {
        const lu = new LuInverseDynamicsDerivatives(model, { ordering }).compute(s.q, s.v, s.a);
        const p = point(spec, 'id-derivatives', solver), st = lu.dynamics.solver;
        expect(p.flops!.total, `${spec} ${solver}`).toBe(lu.flops.value.total + lu.flops.derivatives.total);
        expect(p.parts!.factor.total).toBe(st.flops.factor.total);
        expect(p.parts!.solve.total).toBe(st.flops.solve.total);
        expect(p.parts!.jacobians.total).toBe(lu.sens!.flops.jacobians.total);
        expect(p.parts!['derivative solves'].total).toBe(lu.sens!.flops.solve.total);
        expect(p.lu_nnz).toBe(st.symbolic.luNnz);
        expect(p.n).toBe(st.sys.n);
      }
      const adj = new LuInverseDynamicsDerivatives(model, { mode: 'adjoint' }).compute(s.q, s.v, s.a);
      const pa = point(spec, 'id-derivatives', 'lu-adjoint');
      expect(pa.flops!.total).toBe(adj.flops.value.total + adj.flops.derivatives.total);
      expect(pa.parts!['transposed solves'].total).toBe(adj.adjoint!.flops.solve.total);
      expect(pa.parts!.products.total).toBe(adj.adjoint!.flops.products.total);
      const fd = new FiniteDifferenceDerivatives(model, 'id').compute(s.q, s.v, s.a);
      expect(point(spec, 'id-derivatives', 'fd').flops!.total).toBe(fd.flops.value.total + fd.flops.derivatives.total);
    }
  });

  it('records the counts of an independent run of the same derivative objects (forward dynamics)', () => {
    for (const spec of SPECS) {
      const model = parseModelSpec(spec), s = state(model);
      const rec = new RecursiveForwardDynamicsDerivatives(model).compute(s.q, s.v, s.tau);
      const pr = point(spec, 'fd-derivatives', 'recursive');
      expect(pr.parts!.qdd.total).toBe(rec.flops.value.total);
      expect(pr.parts!.derivatives.total).toBe(rec.flops.derivatives.total);
      expect(pr.parts!.minv.total).toBe(rec.flops.Minv.total);
      expect(pr.flops!.total).toBe(rec.flops.value.total + rec.flops.derivatives.total + rec.flops.Minv.total);
      const lu = new LuForwardDynamicsDerivatives(model).compute(s.q, s.v, s.tau);
      const pl = point(spec, 'fd-derivatives', 'lu:auto');
      expect(pl.flops!.total).toBe(lu.flops.value.total + lu.flops.derivatives.total);
      expect(pl.parts!.factor.total).toBe(lu.dynamics.solver.flops.factor.total);
      expect(pl.parts!['derivative solves'].total).toBe(lu.sens!.flops.solve.total);
      const adj = new LuForwardDynamicsDerivatives(model, { mode: 'adjoint' }).compute(s.q, s.v, s.tau);
      expect(point(spec, 'fd-derivatives', 'lu-adjoint').flops!.total).toBe(adj.flops.value.total + adj.flops.derivatives.total);
      const fd = new FiniteDifferenceDerivatives(model, 'fd').compute(s.q, s.v, s.tau);
      expect(point(spec, 'fd-derivatives', 'fd').flops!.total).toBe(fd.flops.value.total + fd.flops.derivatives.total);
    }
  });

  it('lu, lu-adjoint and recursive agree to 1e-10 relative at the study\'s state (central differences to 1e-6)', () => {
    for (const spec of SPECS) {
      const model = parseModelSpec(spec), s = state(model);
      const pairs: [string, DynamicsDerivatives, DynamicsDerivatives, DynamicsDerivatives][] = [
        ['id-derivatives', new RecursiveInverseDynamicsDerivatives(model).compute(s.q, s.v, s.a), new LuInverseDynamicsDerivatives(model).compute(s.q, s.v, s.a), new LuInverseDynamicsDerivatives(model, { mode: 'adjoint' }).compute(s.q, s.v, s.a)],
        ['fd-derivatives', new RecursiveForwardDynamicsDerivatives(model).compute(s.q, s.v, s.tau), new LuForwardDynamicsDerivatives(model).compute(s.q, s.v, s.tau), new LuForwardDynamicsDerivatives(model, { mode: 'adjoint' }).compute(s.q, s.v, s.tau)],
      ];
      for (const [problem, rec, lu, adj] of pairs) {
        for (const k of ['dq', 'dv', 'du'] as const) {
          expect(relativeErrors(lu[k], rec[k]).max, `${spec} ${problem} lu ${k}`).toBeLessThan(1e-10);
          expect(relativeErrors(adj[k], rec[k]).max, `${spec} ${problem} lu-adjoint ${k}`).toBeLessThan(1e-10);
        }
        for (const solver of ['lu:auto', 'lu:amd', 'lu-adjoint']) expect(point(spec, problem, solver).error, `${spec} ${problem} ${solver}`).toBeLessThan(1e-10);
        expect(point(spec, problem, 'recursive').error).toBe(0);
        expect(point(spec, problem, 'fd').error, `${spec} ${problem} fd`).toBeLessThan(1e-6);
      }
    }
  });

  it('the study\'s case is that state without external wrenches, and the prepared solvers return [∂/∂q; ∂/∂q̇; M or M⁻¹]', () => {
    const spec = 'tree:6:1', model = parseModelSpec(spec), s = state(model), nv = model.nv;
    for (const kind of ['id-derivatives', 'fd-derivatives'] as const) {
      const c = modelCase(kind, model, spec, SEED);
      expect(Array.from(c.q)).toEqual(Array.from(s.q));
      expect(Array.from(c.v)).toEqual(Array.from(s.v));
      expect(c.fext.every((f) => f.every((x) => x === 0))).toBe(true);
      const rec = kind === 'id-derivatives' ? new RecursiveInverseDynamicsDerivatives(model).compute(s.q, s.v, s.a) : new RecursiveForwardDynamicsDerivatives(model).compute(s.q, s.v, s.tau);
      for (const solver of ['lu:auto', 'lu-adjoint', 'recursive'] as const) {
        const prep = prepareSolver(c, solver, { denseMaxRunOrder: 0 }) as PreparedSolver;
        prep.run!();
        const out = prep.output!();
        expect(out.length).toBe(3 * nv * nv);
        for (const [k, off] of [['dq', 0], ['dv', 1], ['du', 2]] as const) {
          expect(relativeErrors(Float64Array.from(out).subarray(off * nv * nv, (off + 1) * nv * nv), rec[k]).max, `${kind} ${solver} ${k}`).toBeLessThan(1e-10);
        }
      }
    }
  });
});
