/**
 * The three methods agree (issue 8's targets): derivatives of inverse dynamics (∂τ/∂q, ∂τ/∂q̇, M)
 * and of forward dynamics (∂q̈/∂q, ∂q̈/∂q̇, M⁻¹) by factor reuse of the sparse LU and by the
 * recursive algorithms agree to 1e-10 (relative to the largest entry), and both agree with
 * geometric central differences to 1e-7 at the best δ of a sweep, on the project's humanoid and on
 * real robots with a fixed and a floating base, and on random trees with prismatic and helical joints.
 */
import { describe, expect, it } from 'vitest';
import { LuInverseDynamics } from '../../src/assembly/dynamics.ts';
import { LuForwardDynamicsDerivatives, LuInverseDynamicsDerivatives, type DynamicsDerivatives } from '../../src/derivatives/dynamics.ts';
import { bestOfSweep, deltaRange, fdSweep, relativeErrors } from '../../src/derivatives/finite-differences.ts';
import { RecursiveForwardDynamicsDerivatives, RecursiveInverseDynamicsDerivatives } from '../../src/derivatives/recursive.ts';
import { randomTree } from '../../src/model/generators.ts';
import { integrate } from '../../src/model/lie.ts';
import type { Model } from '../../src/model/model.ts';
import { Rng } from '../../src/model/rng.ts';
import { loadUrdf } from '../../src/node/urdf-file.ts';
import { describeShared, shared } from '../shared.ts';
import { randomState } from '../state.ts';

const ROBOTS = ['ur5_robot', 'panda', 'solo12', 'simple_humanoid', 'talos_reduced'];
/** real robots of the shared folder */
const robots: [string, () => Model][] = [];
for (const r of ROBOTS) for (const floatingBase of [false, true]) robots.push([`${r} ${floatingBase ? 'floating' : 'fixed'}`, () => loadUrdf(shared('models', `${r}.urdf`), { floatingBase })]);
robots.push(['talos_reduced floating, sensor joints kept as 0-DoF bodies', () => loadUrdf(shared('models/talos_reduced.urdf'), { floatingBase: true, keepFixed: ['imu_joint', 'rgbd_joint', 'rgbd_optical_joint'] })]);
const cases: [string, () => Model][] = [];
for (const floatingBase of [false, true]) cases.push([`humanoid ${floatingBase ? 'floating' : 'fixed'}`, () => loadUrdf('models/humanoid.urdf', { floatingBase })]);
cases.push(['humanoid floating, sole and hand joints kept as 0-DoF bodies', () => loadUrdf('models/humanoid.urdf', { floatingBase: true, keepFixed: ['l_sole_joint', 'r_sole_joint', 'l_hand_joint', 'r_hand_joint'] })]);
cases.push(['tree:16 fixed', () => randomTree(16, 61, { mix: { prismatic: 3, helical: 3 } })]);
cases.push(['tree:16 floating', () => randomTree(16, 62, { floatingBase: true, mix: { prismatic: 3, helical: 3 } })]);

/** the δ sweep of the tests: 1e-3 … 1e-8, two points per decade */
const DELTAS = deltaRange(-3, -8, 2);

function expectAgree(a: DynamicsDerivatives, b: DynamicsDerivatives, tol: number, what: string): void {
  for (const k of ['value', 'dq', 'dv', 'du'] as const) {
    const e = relativeErrors(a[k], b[k]).max;
    expect(e, `${what}: ${k} relative error ${e.toExponential(2)}`).toBeLessThanOrEqual(tol);
  }
}

function agree(name: string, make: () => Model): void {
  it(name, () => {
    const model = make();
    if (name.startsWith('tree')) for (const t of ['prismatic', 'helical']) expect(model.jointTypes.includes(t as never), t).toBe(true);
    const { q, v, a, tau } = randomState(model, new Rng(name.length + 3));
    // inverse dynamics
    const luId = new LuInverseDynamicsDerivatives(model).compute(q, v, a);
    const recId = new RecursiveInverseDynamicsDerivatives(model).compute(q, v, a);
    expectAgree(luId, recId, 1e-10, 'inverse dynamics, LU vs recursive');
    expectAgree(new LuInverseDynamicsDerivatives(model, { mode: 'adjoint' }).compute(q, v, a), recId, 1e-10, 'inverse dynamics, LU adjoint vs recursive');
    const bi = bestOfSweep(fdSweep(model, 'id', q, v, a, recId, DELTAS));
    for (const k of ['dq', 'dv', 'du'] as const) expect(bi[k].maxError, `∂τ/${k}: best FD error`).toBeLessThanOrEqual(1e-7);
    // forward dynamics
    const luFd = new LuForwardDynamicsDerivatives(model).compute(q, v, tau);
    const recFd = new RecursiveForwardDynamicsDerivatives(model).compute(q, v, tau);
    expectAgree(luFd, recFd, 1e-10, 'forward dynamics, LU vs recursive');
    expectAgree(new LuForwardDynamicsDerivatives(model, { mode: 'adjoint' }).compute(q, v, tau), recFd, 1e-10, 'forward dynamics, LU adjoint vs recursive');
    const bf = bestOfSweep(fdSweep(model, 'fd', q, v, tau, luFd, DELTAS));
    for (const k of ['dq', 'dv', 'du'] as const) expect(bf[k].maxError, `∂q̈/${k}: best FD error`).toBeLessThanOrEqual(1e-7);
  });
}

describeShared('LU factor reuse, recursive and finite differences agree on real robots', () => {
  for (const [name, make] of robots) agree(name, make);
});

describe('LU factor reuse, recursive and finite differences agree', () => {
  for (const [name, make] of cases) agree(name, make);

  it('at rest (q̇ = null) the velocity derivatives vanish and the rest still agrees', () => {
    const model = randomTree(12, 63, { floatingBase: true });
    const { q, a, tau } = randomState(model, new Rng(5));
    const lu = new LuInverseDynamicsDerivatives(model).compute(q, null, a);
    const rec = new RecursiveInverseDynamicsDerivatives(model).compute(q, null, a);
    expectAgree(lu, rec, 1e-10, 'inverse dynamics at rest');
    expect(lu.dv.every((x) => x === 0)).toBe(true);
    const luF = new LuForwardDynamicsDerivatives(model).compute(q, null, tau);
    const recF = new RecursiveForwardDynamicsDerivatives(model).compute(q, null, tau);
    expectAgree(luF, recF, 1e-10, 'forward dynamics at rest');
  });

  it('with external wrenches, ∂τ/∂q by factor reuse matches central differences of the LU solve', () => {
    const model = randomTree(10, 64, { floatingBase: true });
    const rng = new Rng(8);
    const { q, v, a } = randomState(model, rng);
    const fext = Array.from({ length: model.nb }, () => Float64Array.from({ length: 6 }, () => rng.uniform(-3, 3)));
    const lu = new LuInverseDynamicsDerivatives(model).compute(q, v, a, fext);
    const id = new LuInverseDynamics(model);
    const nv = model.nv, h = 1e-6, fd = new Float64Array(nv * nv), dq = new Float64Array(nv);
    for (let k = 0; k < nv; k++) {
      dq[k] = h;
      const tp = Float64Array.from(id.solve(integrate(model, q, dq), v, a, fext));
      dq[k] = -h;
      const tm = id.solve(integrate(model, q, dq), v, a, fext);
      dq[k] = 0;
      for (let r = 0; r < nv; r++) fd[r * nv + k] = (tp[r] - tm[r]) / (2 * h);
    }
    expect(relativeErrors(fd, lu.dq).max).toBeLessThanOrEqual(1e-7);
  });
});
