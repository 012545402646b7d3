/**
 * Estimation from exact readings returns the truth to round-off, on badly conditioned humanoids
 * with sensor frames rotated and shifted from their links: six-axis force/torque sensors with a
 * rotated and offset `origin` (ankles, wrist), accelerometers off the link origin, both contacts
 * unknown, floating base. Readings come from synthesize.ts (RNEA with a balancing contact, then each
 * sensor's ideal reading by the spatial kernels, not by the assembled rows); every estimated
 * unknown — τ, contact wrenches, q̈, joint wrenches f_i, body accelerations a_i — is compared with
 * that truth within 1e-13 relative (per kind), for the square layout (one F/T sensor: the sparse LU
 * of [D; D_Y]) and the redundant one (weighted least squares by the augmented system).
 */
import { describe, expect, it } from 'vitest';
import { Estimator, type EstimatorOptions } from '../../src/estimation/estimator.ts';
import { parseProblem } from '../../src/estimation/problem.ts';
import { buildEstimationSystem } from '../../src/estimation/setup.ts';
import { idealReadings, inputsFromReadings, synthesize } from '../../src/estimation/synthesize.ts';
import type { Model } from '../../src/model/model.ts';
import { Rng } from '../../src/model/rng.ts';
import { loadUrdf } from '../../src/node/urdf-file.ts';
import { handedHumanoid } from '../assembly/stress-models.ts';
import { describeShared, HAS_SHARED, shared } from '../shared.ts';
import { randomState } from '../state.ts';

interface Names { lc: string; rc: string; lj: string; rj: string; wrist: string; trunk: string; hand: string }

/** max |x − t| / max |t| */
function relErr(x: ArrayLike<number>, t: ArrayLike<number>): number {
  let num = 0, den = 0;
  for (let k = 0; k < t.length; k++) {
    num = Math.max(num, Math.abs(x[k] - t[k]));
    den = Math.max(den, Math.abs(t[k]));
  }
  return den > 0 ? num / den : num;
}

const ft = (name: string, joint: string, xyz: number[], rpy: number[], variance?: number) =>
  ({ name, type: 'force_torque', joint, origin: { xyz, rpy }, ...(variance === undefined ? {} : { variance }) });

function problems(n: Names): Record<'square' | 'redundant', object[]> {
  const ftLeft = ft('ft_l', n.lj, [0.01, -0.02, 0.03], [0.3, -0.2, 1.1]);
  return {
    square: [{ name: 'qdd', type: 'joint_acceleration', joints: 'all' }, ftLeft],
    redundant: [
      { name: 'qdd', type: 'joint_acceleration', joints: 'all', variance: 1e-4 },
      { ...ftLeft, variance: 0.5 },
      ft('ft_r', n.rj, [-0.02, 0.015, -0.01], [-1.2, 0.4, 2.0], 2),
      ft('ft_wrist', n.wrist, [0, 0.01, -0.02], [0.7, 0.1, -0.5], 0.1),
      { name: 'imu', type: 'accelerometer', link: n.trunk, origin: { xyz: [0.05, -0.1, 0.2], rpy: [0.1, 0.2, 0.3] }, variance: 0.01 },
      { name: 'acc_hand', type: 'accelerometer', link: n.hand, origin: { xyz: [0.02, 0.03, -0.05], rpy: [-0.4, 0.9, 0.2] }, variance: 0.02 },
    ],
  };
}

/** worst relative error per kind of unknown over `states` samples of exact readings */
function estimationErrors(model: Model, n: Names, sensors: object[], opts: EstimatorOptions, states = 20) {
  const problem = parseProblem(JSON.stringify({ model: model.name, base: 'floating', contacts: [n.lc, n.rc], sensors }), 'accuracy problem');
  const es = buildEstimationSystem(model, problem);
  const est = new Estimator(es, opts);
  const L = es.sys.layout;
  const lb = model.frame(n.lc).body, rb = model.frame(n.rc).body;
  const rng = new Rng(11);
  const worst = { tau: 0, contacts: 0, qdd: 0, f: 0, a: 0 };
  const pick = (d: Float64Array, start: Int32Array, size: (i: number) => number) => {
    const out: number[] = [];
    for (let i = 0; i < model.nb; i++) for (let k = 0; k < size(i); k++) out.push(d[start[i] + k]);
    return out;
  };
  const flat = (xs: Float64Array[]) => xs.flatMap((x) => Array.from(x));
  for (let s = 0; s < states; s++) {
    const st = randomState(model, rng);
    for (let k = 0; k < model.nv; k++) {
      st.v[k] = rng.uniform(-1, 1);
      st.a[k] = rng.uniform(-1, 1);
    }
    const fext = Array.from({ length: model.nb }, () => new Float64Array(6));
    for (let k = 0; k < 6; k++) fext[lb][k] = rng.uniform(-100, 100);
    const truth = synthesize(model, st.q, st.v, st.a, fext, rb);
    const d = est.estimate(st.q, st.v, inputsFromReadings(es, idealReadings(es, truth)));
    // joint torques of the actuated joints (the floating base's are zero)
    worst.tau = Math.max(worst.tau, relErr(pick(d, L.tau, (i) => model.nvi[i]).slice(6), truth.tau.subarray(6)));
    worst.contacts = Math.max(worst.contacts, relErr([...d.subarray(L.fx[lb], L.fx[lb] + 6), ...d.subarray(L.fx[rb], L.fx[rb] + 6)], [...truth.fext[lb], ...truth.fext[rb]]));
    worst.qdd = Math.max(worst.qdd, relErr(pick(d, L.qdd, (i) => model.nvi[i]), truth.qdd));
    worst.f = Math.max(worst.f, relErr(pick(d, L.f, () => 6), flat(truth.f)));
    worst.a = Math.max(worst.a, relErr(pick(d, L.a, () => 6), flat(truth.a)));
  }
  return { mode: est.mode, worst };
}

function checkRobot(make: () => Model, n: Names): void {
  for (const [kind, sensors] of Object.entries(problems(n))) {
    it(`${kind} layout (F/T sensors with rotated, offset frames${kind === 'redundant' ? ', accelerometers off the link origin' : ''}): every unknown within 1e-13`, () => {
      const { mode, worst } = estimationErrors(make(), n, sensors, {});
      expect(mode).toBe(kind === 'square' ? 'square' : 'wls');
      for (const [what, e] of Object.entries(worst)) expect(e, what).toBeLessThan(1e-13);
    });
  }
}

describe('estimation from exact readings: a humanoid with gram shells and fingers on a 40 kg trunk', () => {
  checkRobot(() => handedHumanoid(true), { lc: 'l_sole', rc: 'r_sole', lj: 'l_ankle_roll', rj: 'r_ankle_roll', wrist: 'r_wrist_roll', trunk: 'torso', hand: 'l_palm' });
});

describeShared('estimation from exact readings: a real humanoid with a light waist link and hands (unitree g1)', () => {
  const file = HAS_SHARED ? shared('urdf-corpus/unitree_ros/robots/g1_description/g1_29dof_with_hand_rev_1_0.urdf') : '';
  const n: Names = { lc: 'left_ankle_roll_link', rc: 'right_ankle_roll_link', lj: 'left_ankle_roll_joint', rj: 'right_ankle_roll_joint', wrist: 'right_wrist_yaw_joint', trunk: 'torso_link', hand: 'left_wrist_yaw_link' };
  checkRobot(() => loadUrdf(file, { floatingBase: true }), n);

  it('without refinement the weighted least-squares solve loses digits there (the checks above can fail)', () => {
    const { worst } = estimationErrors(loadUrdf(file, { floatingBase: true }), n, problems(n).redundant, { refine: 0 });
    expect(worst.qdd).toBeGreaterThan(1e-11);
  });
});
