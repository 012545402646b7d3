/**
 * The study runner on a tiny configuration: every point has the expected fields, the baselines'
 * ratios are 1, results agree with the baselines, and every recorded count is the kernel's own
 * count — checked by running the library's public entry points independently at the same seeded
 * state (no re-derivation).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { aba, AbaWorkspace } from '../../src/algorithms/aba.ts';
import { minvCarpentier, MinvCarpentierWorkspace } from '../../src/algorithms/minv-carpentier.ts';
import { rnea, RneaWorkspace } from '../../src/algorithms/rnea.ts';
import { LuForwardDynamics, LuInverseDynamics } from '../../src/assembly/dynamics.ts';
import { randomDynamicsState } from '../../src/assembly/flops-report.ts';
import { MatrixAba } from '../../src/assembly/matrix-aba.ts';
import { MinvLu } from '../../src/assembly/minv-lu.ts';
import { Estimator } from '../../src/estimation/estimator.ts';
import { buildEstimationSystem } from '../../src/estimation/setup.ts';
import { Rng } from '../../src/model/rng.ts';
import { parseModelSpec } from '../../src/node/spec.ts';
import { loadCellsProblem, modelCase } from '../../src/study/cases.ts';
import { parseStudyConfig } from '../../src/study/config.ts';
import { denseLuFactorFlops, denseLuSolveFlops } from '../../src/study/dense.ts';
import { runStudy, type StudyPoint, type StudyResult } from '../../src/study/runner.ts';

const CONFIG = {
  name: 'tiny',
  models: [{ spec: 'chain:{N}', N: [4, 6], label: 'chain' }],
  problems: ['id', 'fd', 'load-cells', { problem: 'minv', maxNb: 4 }, { problem: 'iwim', maxNb: 4 }],
  solvers: ['rnea', 'aba', 'matrix-aba', 'lu', 'lu:amd', 'lu:paper', 'dense', 'carpentier', 'crba-cholesky', 'iim', 'eufm'],
  // maxCallMs far above any first call, so that no point goes untimed on a loaded machine
  timing: { rounds: 1, minMs: 0.05, maxCallMs: 600_000 },
  dense: { maxRunOrder: 100 },
  seed: 3,
  spy: { model: 'chain:{N}', N: 4, problem: 'fd' },
};

let result: StudyResult;
const point = (N: number, problem: string, solver: string): StudyPoint => {
  const p = result.points.find((x) => x.N === N && x.problem === problem && x.solver === solver);
  if (!p) throw new Error(`no point chain:${N} ${problem} ${solver}`);
  return p;
};

beforeAll(() => {
  result = runStudy(parseStudyConfig(JSON.stringify(CONFIG), 'tiny.json', '.'));
});

describe('study runner (tiny configuration)', () => {
  it('runs every applicable solver on every model and problem, baseline first', () => {
    const at4 = result.points.filter((p) => p.N === 4);
    expect(at4.filter((p) => p.problem === 'inverse-dynamics').map((p) => p.solver)).toEqual(['rnea', 'lu:auto', 'lu:amd', 'lu:paper', 'dense']);
    expect(at4.filter((p) => p.problem === 'forward-dynamics').map((p) => p.solver)).toEqual(['aba', 'matrix-aba', 'lu:auto', 'lu:amd', 'dense']);
    expect(at4.filter((p) => p.problem === 'minv').map((p) => p.solver)).toEqual(['carpentier', 'lu:auto', 'lu:amd', 'dense', 'crba-cholesky']);
    expect(at4.filter((p) => p.problem === 'iwim').map((p) => p.solver)).toEqual(['iim', 'lu:auto', 'lu:amd', 'dense', 'eufm']);
    expect(at4.filter((p) => p.problem === 'load-cells').map((p) => p.solver)).toEqual(['rnea', 'lu:auto', 'lu:amd', 'dense']);
    expect(result.points.some((p) => p.N === 6 && (p.problem === 'minv' || p.problem === 'iwim'))).toBe(false);
    expect(result.notes).toContain('minv (maxNb 4): not run for N_B = 6');
    expect(result.points.every((p) => p.status === 'ok')).toBe(true);
    expect(result.meta.points).toBe(result.points.length);
    expect(result.spy?.sys.n).toBe(80);
  });

  it('records the expected fields of every point', () => {
    for (const p of result.points) {
      expect(p.study).toBe('tiny');
      expect(p.family).toBe('chain');
      expect(p.nb).toBe(p.N);
      expect(p.flops!.total).toBe(p.flops!.mul + p.flops!.add + p.flops!.div);
      expect(p.flops!.kinematics + p.flops!.fill + p.flops!.factor + p.flops!.solve + p.flops!.other).toBe(p.flops!.total);
      expect(p.flops_ratio).toBeGreaterThan(0);
      expect(p.peak_rss_mib).toBeGreaterThan(0);
      // a time ratio needs a positive baseline time (a one-round median of a µs-long call can be 0)
      if (p.solver === p.baseline) { expect(p.flops_ratio).toBe(1); if (p.time_us! > 0) expect(p.time_ratio).toBe(1); }
      if (p.solver.startsWith('lu:') && p.solver !== 'lu:paper') {
        for (const k of ['n', 'nnz', 'lu_nnz', 'off_nnz', 'fill_nnz', 'blocks', 'max_block', 'analyze_ms', 'repivoted_blocks'] as const) expect(p[k], `${p.solver} ${k}`).toBeTypeOf('number');
      }
      if (p.solver === 'dense' && p.n! > 100) continue; // not run: no time, no result (tested below)
      expect(p.time_us, `${p.problem} ${p.solver} timed`).toBeGreaterThanOrEqual(0);
      expect(p.error, `${p.spec} ${p.problem} ${p.solver}`).toBeLessThan(1e-9);
    }
  });

  it('inverse dynamics by LU has zero fill and one 1×1 block per unknown', () => {
    for (const N of [4, 6]) {
      const p = point(N, 'inverse-dynamics', 'lu:auto');
      expect(p.fill_nnz).toBe(0);
      expect(p.blocks).toBe(p.n);
      expect(p.flops!.factor).toBe(0);
    }
  });

  it('the dense LU is counted by formula and not run above dense.maxRunOrder', () => {
    const d = point(4, 'inverse-dynamics', 'dense');
    expect(d.n).toBe(80);
    expect(d.flops!.factor).toBe(denseLuFactorFlops(80).total);
    expect(d.flops!.solve).toBe(denseLuSolveFlops(80).total);
    const big = point(6, 'forward-dynamics', 'dense');
    expect(big.n).toBe(120);
    expect(big.time_us).toBeUndefined();
    expect(big.error).toBeUndefined();
    expect(big.notes.join(' ')).toMatch(/not run: order 120 > dense\.maxRunOrder = 100/);
    expect(point(4, 'minv', 'dense').flops!.solve).toBe(denseLuSolveFlops(80, 4).total);
  });

  it('records the kernels\' own counts (independent runs at the same seeded state)', () => {
    const model = parseModelSpec('chain:6');
    const s = randomDynamicsState(model, new Rng(3));
    const rw = new RneaWorkspace(model);
    rnea(model, rw, s.q, s.v, s.a, s.fext);
    expect(point(6, 'inverse-dynamics', 'rnea').flops!.total).toBe(rw.totalFlops().total);
    const aw = new AbaWorkspace(model);
    aba(model, aw, s.q, s.v, s.tau, s.fext);
    expect(point(6, 'forward-dynamics', 'aba').flops!.total).toBe(aw.totalFlops().total);
    const lid = new LuInverseDynamics(model);
    lid.solve(s.q, s.v, s.a, s.fext);
    const pid = point(6, 'inverse-dynamics', 'lu:auto');
    expect(pid.flops!.total).toBe(lid.solver.totalFlops().total);
    expect(pid.flops!.solve).toBe(lid.solver.flops.solve.total);
    expect(pid.flops!.fill).toBe(lid.solver.flops.fill.total);
    const lfd = new LuForwardDynamics(model, { ordering: 'amd', refine: 0 }); // the study's lu solver is not refined
    lfd.solve(s.q, s.v, s.tau, s.fext);
    const pfd = point(6, 'forward-dynamics', 'lu:amd');
    expect(pfd.flops!.factor).toBe(lfd.solver.flops.factor.total);
    expect(pfd.flops!.total).toBe(lfd.solver.totalFlops().total);
    expect(pfd.lu_nnz).toBe(lfd.solver.symbolic.luNnz);
    const mat = new MatrixAba(model);
    mat.solve(s.q, s.v, s.tau, s.fext);
    const pm = point(6, 'forward-dynamics', 'matrix-aba');
    expect(pm.flops!.total).toBe(mat.totalFlops(true).total);
    expect(pm.flops!.total - pm.flops!.other).toBe(mat.totalFlops(false).total);
    expect(pm.parts!.product.total).toBe(mat.flops.product.total);
  });

  it('records the counts of M⁻¹ and of the estimator', () => {
    const m4 = parseModelSpec('chain:4');
    const s = randomDynamicsState(m4, new Rng(3));
    const cw = new MinvCarpentierWorkspace(m4);
    minvCarpentier(m4, cw, s.q);
    expect(point(4, 'minv', 'carpentier').flops!.total).toBe(cw.flops.total);
    const ml = new MinvLu(m4);
    ml.compute(s.q);
    expect(point(4, 'minv', 'lu:auto').flops!.total).toBe(ml.totalFlops().total);
    const c = modelCase('load-cells', m4, 'chain:4', 3);
    // the study solves a square layout with the unrefined SparseSolver (the paper's method)
    const est = new Estimator(buildEstimationSystem(m4, loadCellsProblem(m4, 'chain:4')), { refine: 0 });
    est.estimate(c.q, c.v, c.y);
    const pl = point(4, 'load-cells', 'lu:auto');
    expect(pl.flops!.total).toBe(est.totalFlops().total);
    expect(pl.n).toBe(80);
  });

  it('ratios are taken against the same run\'s baseline', () => {
    const b = point(6, 'forward-dynamics', 'aba'), l = point(6, 'forward-dynamics', 'lu:auto');
    expect(l.flops_ratio).toBeCloseTo(l.flops!.total / b.flops!.total, 12);
    if (b.time_us! > 0) expect(l.time_ratio).toBeCloseTo(l.time_us! / b.time_us!, 12);
  });
});

describe('study runner: failures and skips are recorded, not thrown', () => {
  it('records a model the load-cells layout does not fit, and a problem file that does not exist', () => {
    const r = runStudy(parseStudyConfig(JSON.stringify({
      name: 'bad', models: ['chain:3'], problems: ['load-cells', { problem: 'estimation', file: 'no/such/problem.json' }], solvers: ['lu'], timing: { enabled: false },
    }), 'bad.json', '.'));
    expect(r.points).toHaveLength(0);
    expect(r.notes[0]).toMatch(/chain:3, load-cells: load-cells: model "chain:3" has 3 bodies; the Figure 2 layout needs at least 4/);
    expect(r.notes[1]).toMatch(/problem\.json, estimation: .*cannot read the problem file/);
  });

  it('skips other orderings on a redundant (weighted least-squares) estimation problem, with the reason', () => {
    const r = runStudy(parseStudyConfig(JSON.stringify({
      name: 'wls', models: ['chain:3'], problems: [{ problem: 'estimation', file: 'data/problems/humanoid-ft.json' }], solvers: ['lu', 'lu:amd'], timing: { enabled: false },
    }), 'wls.json', '.'));
    expect(r.points.map((p) => `${p.solver}:${p.status}`)).toEqual(['rnea:ok', 'lu:auto:ok', 'lu:amd:skipped']);
    expect(r.points[2].notes[0]).toMatch(/weighted least squares \(616 equations, 610 unknowns\)/);
    expect(r.points[2].flops).toBeUndefined();
    expect(r.points[1].error).toBeLessThan(1e-9);
    expect(r.points[0].time_us).toBeUndefined();
    expect(r.points[0].notes.join(' ')).toMatch(/not timed: timing\.enabled is false/);
  });
});
