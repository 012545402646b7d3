/**
 * Hot paths allocate nothing per call (house style): heap growth over many calls of each kernel,
 * after warm-up, stays at noise level. Doubles passed to non-inlined helpers are boxed by V8, so a
 * regression shows up here as ~16 bytes per boxed value per call.
 */
import { describe, expect, it } from 'vitest';
import { abaUnchecked, AbaWorkspace } from '../src/algorithms/aba.ts';
import { crba, CrbaWorkspace } from '../src/algorithms/crba.ts';
import { crbaWorld, CrbaWorldWorkspace } from '../src/algorithms/crba-world.ts';
import { forwardKinematics, KinematicsWorkspace } from '../src/algorithms/kinematics.ts';
import { rneaUnchecked, RneaWorkspace } from '../src/algorithms/rnea.ts';
import { GeneratedRnea } from '../src/algorithms/rnea-code.ts';
import { GeneratedAba } from '../src/algorithms/aba-code.ts';
import { GeneratedCrba } from '../src/algorithms/crba-code.ts';
import { GeneratedMinv } from '../src/algorithms/minv-code.ts';
import { MINV_BODIES_CODE_LIMIT, MinvColumnsCode } from '../src/algorithms/minv-columns-code.ts';
import { LuForwardDynamics, LuInverseDynamics } from '../src/assembly/dynamics.ts';
import { GeneratedKinematics } from '../src/assembly/kinematics-code.ts';
import { forwardDynamicsProblem } from '../src/assembly/problems.ts';
import { fillSystem, SymbolicSystem, SystemValues } from '../src/assembly/system.ts';
import { chain, humanoid, randomTree } from '../src/model/generators.ts';
import { parseProblem } from '../src/estimation/problem.ts';
import { Rng } from '../src/model/rng.ts';
import { loadUrdf } from '../src/node/urdf-file.ts';
import { randomState } from './state.ts';
import { bytesPerCall } from './allocation.ts';
import { Estimator } from '../src/estimation/estimator.ts';
import { EstimateConditioning } from '../src/estimation/conditioning.ts';
import { ConditionEstimator } from '../src/sparse/condest.ts';
import { loadProblem, modelForProblem } from '../src/node/problem-file.ts';
import { buildEstimationSystem } from '../src/estimation/setup.ts';
import { minvCarpentierUnchecked, MinvCarpentierWorkspace } from '../src/algorithms/minv-carpentier.ts';
import { InputMatrix } from '../src/algorithms/iwim-inputs.ts';
import { iwimIim, IwimIimWorkspace } from '../src/algorithms/iwim-iim.ts';
import { MatrixAba } from '../src/assembly/matrix-aba.ts';
import { MinvLu } from '../src/assembly/minv-lu.ts';
import { IwimLu } from '../src/assembly/iwim-lu.ts';
import { RecursiveForwardDynamicsDerivatives, RecursiveInverseDynamicsDerivatives } from '../src/derivatives/recursive.ts';
import { LuInverseDynamicsDerivatives } from '../src/derivatives/dynamics.ts';
import { analyze } from '../src/sparse/analyze.ts';
import { NumericLU } from '../src/sparse/numeric.ts';

let sink: Float64Array | null = null;

describe('the estimator allocates nothing per sample', () => {
  it('weighted least squares on the demo humanoid problem', () => {
    const { problem, model } = loadProblem('data/problems/humanoid-demo.json');
    const es = buildEstimationSystem(model, problem);
    const est = new Estimator(es);
    expect(est.mode).toBe('wls');
    const s = randomState(model, new Rng(2));
    const y = new Float64Array(es.sys.ny);
    expect(bytesPerCall(() => { est.estimateUnchecked(s.q, s.v, y); }, 8)).toBeLessThan(8);
  });

  it('square layout (the sparse LU of [D; D_Y], refined) on the humanoid', () => {
    const model = humanoid();
    const problem = parseProblem(JSON.stringify({
      model: 'humanoid', base: 'floating', contacts: ['l_sole', 'r_sole'],
      sensors: [{ name: 'qdd', type: 'joint_acceleration', joints: 'all' }, { name: 'ft', type: 'force_torque', joint: 'l_ankle_roll', origin: { xyz: [0.01, 0, 0.02], rpy: [0.3, 0, 1] } }],
    }));
    const est = new Estimator(buildEstimationSystem(model, problem));
    expect(est.mode).toBe('square');
    expect(est.solver!.lu.refine).toBe(1);
    const s = randomState(model, new Rng(3));
    const y = new Float64Array(est.es.sys.ny);
    expect(bytesPerCall(() => { est.estimateUnchecked(s.q, s.v, y); }, 8)).toBeLessThan(8);
  });

  it('the condition figure of a sample, and the condition estimate of its factors', () => {
    // a small redundant layout: calls of a few µs, so that a stray allocation elsewhere in the process is not counted per call
    const problem = parseProblem(JSON.stringify({ model: 'chain:6', base: 'fixed', contacts: [], sensors: [
      { name: 'qdd', type: 'joint_acceleration', joints: 'all', variance: 0.01 }, { name: 'tau', type: 'joint_torque', joints: 'all', variance: 0.1 },
    ] }));
    const model = modelForProblem(problem, '.');
    const es = buildEstimationSystem(model, problem);
    const est = new Estimator(es);
    expect(est.mode).toBe('wls');
    const cond = new EstimateConditioning(est, { configurations: 2 });
    const s = randomState(model, new Rng(3));
    est.estimateUnchecked(s.q, s.v, new Float64Array(es.sys.ny));
    const ce = new ConditionEstimator(est.K!.n, { equilibrate: true });
    // a long warm-up: on a loaded machine the optimizing compiler of these larger functions comes late
    for (let k = 0; k < 30000; k++) { cond.update(); ce.run(est.lu!, est.K!); }
    expect(bytesPerCall(() => { cond.update(); }, 8)).toBeLessThan(8);
    expect(bytesPerCall(() => { ce.run(est.lu!, est.K!); }, 8)).toBeLessThan(8);
  });
});

describe('hot paths allocate nothing per call', () => {
  it('M⁻¹ with the column work generated and the per-body work in JavaScript (a chain past the per-body code\'s limit)', () => {
    const model = chain(MINV_BODIES_CODE_LIMIT + 8), code = MinvColumnsCode.create(model)!;
    expect(code.bodiesGenerated).toBe(false);
    const q = randomState(model, new Rng(6)).q;
    expect(bytesPerCall(() => { code.compute(q, 'full'); }, 8)).toBeLessThan(8);
  });

  it('the detector sees a small allocation (negative control)', () => {
    expect(bytesPerCall(() => { sink = new Float64Array(2); }, 8)).toBeGreaterThan(16);
    expect(sink).not.toBeNull();
  });

  // the chain's one-DoF joints run the recursive derivatives' generated WebAssembly kernels
  for (const [name, model] of [['humanoid floating', loadUrdf('models/humanoid.urdf', { floatingBase: true })], ['tree:40 (all joint types)', randomTree(40, 9, { floatingBase: true })], ['chain 12 (one-DoF joints)', chain(12)]] as const) {
    const s = randomState(model, new Rng(5));
    const kin = new KinematicsWorkspace(model);
    const rw = new RneaWorkspace(model), aw = new AbaWorkspace(model), cw = new CrbaWorkspace(model), ww = new CrbaWorldWorkspace(model);
    const gkin = GeneratedKinematics.create(model)!;
    const grnea = GeneratedRnea.create(model)!, gaba = GeneratedAba.create(model)!, gcrba = GeneratedCrba.create(model)!, gminv = GeneratedMinv.create(model)!;
    // the loops' form of the generated ABA where the joints allow it (one-DoF revolute, prismatic, helical)
    const gabaLoops = GeneratedAba.create(model, { form: 'loops' });
    const sys = new SymbolicSystem(model, forwardDynamicsProblem(model));
    const vals = new SystemValues(sys);
    const y = new Float64Array(sys.ny);
    const fd = new LuForwardDynamics(model), id = new LuInverseDynamics(model);
    const mc = new MinvCarpentierWorkspace(model), mlu = new MinvLu(model), mab = new MatrixAba(model);
    const inputs = new InputMatrix(model, { actuated: 'all' });
    const iim = new IwimIimWorkspace(model, inputs), ilu = new IwimLu(model, inputs);
    const rder = new RecursiveInverseDynamicsDerivatives(model), lder = new LuInverseDynamicsDerivatives(model);
    const rfder = new RecursiveForwardDynamicsDerivatives(model);
    // the accuracy options of the sparse engine on the forward-dynamics system
    fillSystem(vals, s.q, s.v, y);
    const Sfd = analyze(sys.pattern);
    const scaled = new NumericLU(Sfd, { checkTol: 1e-6, scale: 'max', refine: 2, residual: 'extended' }).refactor(vals.Ax);
    const fixedScale = new NumericLU(Sfd, { checkTol: 1e-6, scale: Float64Array.from({ length: sys.n }, (_, i) => 1 + (i % 7)), refine: 1 }).refactor(vals.Ax);
    const bx = Float64Array.from({ length: sys.n }, (_, i) => Math.sin(i)), x = new Float64Array(sys.n);
    const cases: [string, () => void][] = [
      ['forwardKinematics', () => forwardKinematics(kin, s.q, s.v)],
      ['kinematics, generated code', () => { gkin.run(s.q, s.v); }],
      ['kinematics without q̇, generated code', () => { gkin.run(s.q, null); }],
      ['rnea', () => { rneaUnchecked(model, rw, s.q, s.v, s.a); }],
      ['rnea, generated code', () => { grnea.compute(s.q, s.v, s.a); }],
      ['aba, generated code', () => { gaba.compute(s.q, s.v, s.tau); }],
      ...(gabaLoops === null ? [] : [['aba, generated loops', () => { gabaLoops.compute(s.q, s.v, s.tau); }] as [string, () => void]]),
      ['crba, generated code', () => { gcrba.compute(s.q, 'lower'); }],
      ['Carpentier M⁻¹, generated code', () => { gminv.compute(s.q, 'upper'); }],
      ['aba', () => { abaUnchecked(model, aw, s.q, s.v, s.tau); }],
      ['crba (with its entry checks)', () => { crba(model, cw, s.q); }],
      ['crba in world coordinates (with its entry checks)', () => { crbaWorld(model, ww, s.q); }],
      ['fillSystem', () => fillSystem(vals, s.q, s.v, y)],
      ['sparse forward dynamics step', () => { fd.solver.stepUnchecked(s.q, s.v, y); }],
      ['sparse inverse dynamics step', () => { id.solver.stepUnchecked(s.q, s.v, id.y); }],
      ['Carpentier M⁻¹', () => { minvCarpentierUnchecked(model, mc, s.q); }],
      ['M⁻¹ by the sparse LU', () => { mlu.compute(s.q); }],
      ['matrix ABA', () => { mab.solveUnchecked(s.q, s.v, mab.y); }],
      ['M⁻¹B by the IIM', () => { iwimIim(model, iim, s.q, s.v); }],
      ['M⁻¹B by the sparse LU', () => { ilu.solveUnchecked(s.q, s.v); }],
      ['recursive derivatives of inverse dynamics', () => { rder.compute(s.q, s.v, s.a); }],
      ['recursive derivatives of forward dynamics', () => { rfder.compute(s.q, s.v, s.tau); }],
      ['derivatives by factor reuse', () => { lder.compute(s.q, s.v, s.a); }],
      ['LU with row scaling per refactor and refinement with an extended residual', () => { scaled.refactor(vals.Ax); scaled.solve(x, bx); }],
      ['LU with fixed row scaling, refined solve and refined transposed solve', () => { fixedScale.refactor(vals.Ax); fixedScale.solve(x, bx); fixedScale.solveTransposed(x, bx); }],
    ];
    for (const [what, f] of cases) {
      it(`${name}: ${what}`, () => {
        expect(bytesPerCall(f, 8)).toBeLessThan(8);
      });
    }
  }
});
