/**
 * A log as a robot records it, made for tests: the project's humanoid on a floating base with an
 * IMU (accelerometer and gyroscope, rotated and offset on the pelvis) and F/T sensors in both
 * ankles; its motion cubic in time (joints, the base's angular velocity in its frame, the classical
 * acceleration of the base's origin), so that local polynomial fits of order 3 give the exact
 * derivatives; a uniform base velocity that the log does not carry. Truth from RNEA (synthesize).
 * Rows carry t, q, the base quaternion and the IMU and F/T readings: no velocities, no accelerations.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { EstimationSystem } from '../src/estimation/setup.ts';
import { idealReadings, synthesize, type Truth } from '../src/estimation/synthesize.ts';
import { Rng } from '../src/model/rng.ts';
import { loadEstimationSystem } from '../src/node/problem-file.ts';
import { rotFromQuat } from '../src/spatial/vec3.ts';

export const HUMANOID = resolve(import.meta.dirname, '../models/humanoid.urdf');

/** The humanoid's problem as a robot logs it, written to a temporary folder: its file and estimation system. */
export function humanoidAsLogged(extra: Record<string, unknown> = {}): { file: string; es: EstimationSystem } {
  const dir = mkdtempSync(join(tmpdir(), 'sparsedyn-robot-log-'));
  const file = join(dir, 'robot.json');
  const imu = { link: 'pelvis', origin: { xyz: [0.05, -0.02, 0.1], rpy: [0.3, -0.2, 1.1] } };
  writeFileSync(file, JSON.stringify({
    model: HUMANOID, base: 'floating', contacts: ['l_sole', 'r_sole'],
    sensors: [
      { name: 'encoders', type: 'joint_acceleration', joints: 'actuated' },
      { name: 'imu_acc', type: 'accelerometer', ...imu, variance: 1e-4 },
      { name: 'imu_gyro', type: 'gyroscope', ...imu },
      { name: 'ft_left', type: 'force_torque', joint: 'l_ankle_roll', variance: 0.01 },
      { name: 'ft_right', type: 'force_torque', joint: 'r_ankle_roll', variance: 0.01 },
    ],
    ...extra,
  }));
  return { file, es: loadEstimationSystem(file).es };
}

export const cross = (a: ArrayLike<number>, b: ArrayLike<number>) => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];

/** `n` samples at about `dt` (uneven stamps) of cubic motion: the NDJSON rows (no velocities, no accelerations) and the truth of each. */
export function cubicHumanoidLog(es: EstimationSystem, n: number, dt = 0.01, seed = 5): { rows: Record<string, unknown>[]; truths: Truth[] } {
  const model = es.model, rng = new Rng(seed);
  const joints = model.movingJoints().filter((j) => j.type !== 'floating');
  const cj = joints.map(() => [rng.uniform(-0.3, 0.3), rng.uniform(-1, 1), rng.uniform(-2, 2), rng.uniform(-3, 3)]);
  const cw = [0, 1, 2].map(() => [rng.uniform(-1, 1), rng.uniform(-2, 2), rng.uniform(-3, 3), rng.uniform(-4, 4)]);
  const cubic = (c: number[], t: number) => [c[0] + c[1] * t + c[2] * t * t + c[3] * t ** 3, c[1] + 2 * c[2] * t + 3 * c[3] * t * t, 2 * c[2] + 6 * c[3] * t];
  const lb = model.frame('l_sole').body, rb = model.frame('r_sole').body;
  const rows: Record<string, unknown>[] = [], truths: Truth[] = [];
  for (let k = 0; k < n; k++) {
    const t = k * dt + (k % 3) * dt * 0.01; // uneven stamps
    const q = new Float64Array(model.nq), v = new Float64Array(model.nv), a = new Float64Array(model.nv);
    const half = 0.2 * t;
    const quat = [0.1 * Math.sin(half), Math.sin(half), 0.2, Math.cos(half)];
    const nq = Math.hypot(...quat);
    for (let i = 0; i < 4; i++) q[3 + i] = quat[i] / nq;
    q[0] = 1; q[1] = -2; q[2] = 0.9;
    joints.forEach((j, i) => { const [x, xd, xdd] = cubic(cj[i], t); q[j.iq] = x; v[j.iv] = xd; a[j.iv] = xdd; });
    const w = cw.map((c) => cubic(c, t)[0]), wd = cw.map((c) => cubic(c, t)[1]);
    // a uniform world velocity u seen in the base frame; the classical acceleration of the base origin
    const R = rotFromQuat(new Float64Array(9), q[3], q[4], q[5], q[6]);
    const u = [0.7, -0.3, 0.2], ub = [0, 1, 2].map((i) => R[i] * u[0] + R[3 + i] * u[1] + R[6 + i] * u[2]);
    const acl = [0.3 * Math.sin(t), -0.2, 0.1 * t];
    const wxv = cross(w, ub);
    for (let i = 0; i < 3; i++) { v[i] = ub[i]; v[3 + i] = w[i]; a[i] = acl[i] - wxv[i]; a[3 + i] = wd[i]; }
    const fext = Array.from({ length: model.nb }, () => new Float64Array(6));
    for (let i = 0; i < 6; i++) fext[lb][i] = 10 * Math.sin(3 * t + i) + (i === 5 ? 200 : 0);
    const truth = synthesize(model, q, v, a, fext, rb);
    const ideal = idealReadings(es, truth);
    truths.push(truth);
    rows.push({
      t, q: Object.fromEntries(joints.map((j) => [j.name, q[j.iq]])),
      base: { quaternion: [q[3], q[4], q[5], q[6]] },
      sensors: { imu_acc: ideal.get('imu_acc'), imu_gyro: ideal.get('imu_gyro'), ft_left: ideal.get('ft_left'), ft_right: ideal.get('ft_right') },
      truth: { tau: Object.fromEntries(joints.map((j) => [j.name, truth.tau[j.iv]])) },
    });
  }
  return { rows, truths };
}
