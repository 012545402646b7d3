/** Sensors declared in the URDF (iDynTree <sensor> elements, gazebo IMUs) imported into a problem. */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rnea, RneaWorkspace } from '../../src/algorithms/rnea.ts';
import { forceTransformMatrix } from '../../src/estimation/blocks.ts';
import { Estimator } from '../../src/estimation/estimator.ts';
import { loadProblem } from '../../src/node/problem-file.ts';
import { buildEstimationSystem, originTransform } from '../../src/estimation/setup.ts';
import { idealReadings, inputsFromReadings, synthesize } from '../../src/estimation/synthesize.ts';
import { Rng } from '../../src/model/rng.ts';
import { expectClose } from '../helpers.ts';
import { randomState } from '../state.ts';

const dir = mkdtempSync(join(tmpdir(), 'sparsedyn-urdf-sensors-'));
const ft = (name: string, joint: string, dir: string) =>
  `<sensor name="${name}" type="force_torque"><parent joint="${joint}"/><force_torque><frame>child</frame><measure_direction>${dir}</measure_direction></force_torque><origin xyz="0 0 0.05" rpy="0 0 0.3"/></sensor>`;
const urdf = readFileSync('models/humanoid.urdf', 'utf8').replace('</robot>', [
  ft('l_leg_ft', 'l_ankle_roll', 'child_to_parent'),
  ft('r_leg_ft', 'r_ankle_roll', 'parent_to_child'),
  '<gazebo reference="pelvis"><sensor name="imu" type="imu"><pose>0.1 0 0 0 0 0</pose></sensor></gazebo>',
  '<gazebo reference="pelvis"><sensor name="cam" type="camera"><pose>0 0 0 0 0 0</pose></sensor></gazebo>',
  '</robot>',
].join('\n'));
writeFileSync(join(dir, 'robot.urdf'), urdf);

function problem(extra: object): string {
  const f = join(dir, `p${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(f, JSON.stringify({
    model: 'robot.urdf', base: 'floating', contacts: ['l_sole', 'r_sole'],
    sensors: [{ name: 'qdd', type: 'joint_acceleration', joints: 'actuated' }], ...extra,
  }));
  return f;
}

describe('urdf_sensors', () => {
  it('imports F/T sensors (both measure directions) and an IMU, notes what it leaves out, and estimates τ to 1e-9', () => {
    const { problem: p, model } = loadProblem(problem({ urdf_sensors: true }));
    expect(p.sensors.map((s) => s.name)).toEqual(['qdd', 'l_leg_ft', 'r_leg_ft', 'imu_acc', 'imu_gyro']);
    const es = buildEstimationSystem(model, p);
    expect(es.notes.some((n) => n.includes('URDF sensor "cam"') && n.includes('left out'))).toBe(true);
    const rng = new Rng(12), s = randomState(model, rng);
    const lb = model.frame('l_sole').body, rb = model.frame('r_sole').body;
    const fext = Array.from({ length: model.nb }, () => new Float64Array(6));
    for (let k = 0; k < 6; k++) fext[lb][k] = rng.uniform(-50, 50);
    const truth = synthesize(model, s.q, s.v, s.a, fext, rb);
    const readings = idealReadings(es, truth);
    // the reading against RNEA's joint wrench: child_to_parent reads −ˢX*_j f_j
    const ws = new RneaWorkspace(model);
    rnea(model, ws, s.q, s.v, s.a, truth.fext);
    const spec = p.sensors.find((x) => x.name === 'l_leg_ft')!;
    expect(spec.measure_direction).toBe('child_to_parent');
    const F = forceTransformMatrix(originTransform(spec.origin));
    const fj = ws.f[model.joint('l_ankle_roll')];
    const expected = Array.from({ length: 6 }, (_, r) => -F.slice(6 * r, 6 * r + 6).reduce((acc, x, c) => acc + x * fj[c], 0));
    expectClose(readings.get('l_leg_ft')!, expected, 1e-13, 'F/T reading');
    const est = new Estimator(es);
    const d = est.estimate(s.q, s.v, inputsFromReadings(es, readings));
    const L = es.sys.layout;
    const tau = new Float64Array(model.nv);
    for (let i = 0; i < model.nb; i++) for (let k = 0; k < model.nvi[i]; k++) tau[model.iv[i] + k] = d[L.tau[i] + k];
    expectClose(tau, truth.tau, 1e-9, 'τ');
  });

  it('a child_to_parent reading is the negated parent_to_child one', () => {
    const a = loadProblem(problem({ urdf_sensors: ['l_leg_ft'] }));
    const f = join(dir, 'flip.json');
    writeFileSync(f, JSON.stringify({ model: resolve(dir, 'robot.urdf'), base: 'floating', contacts: ['l_sole', 'r_sole'], sensors: [{ name: 'l_leg_ft', type: 'force_torque', joint: 'l_ankle_roll', origin: { xyz: [0, 0, 0.05], rpy: [0, 0, 0.3] } }] }));
    const b = loadProblem(f);
    const esA = buildEstimationSystem(a.model, a.problem), esB = buildEstimationSystem(b.model, b.problem);
    const s = randomState(a.model, new Rng(3));
    const truth = synthesize(a.model, s.q, s.v, s.a, Array.from({ length: a.model.nb }, () => new Float64Array(6)));
    const ra = idealReadings(esA, truth).get('l_leg_ft')!, rb = idealReadings(esB, truth).get('l_leg_ft')!;
    expectClose(ra, rb.map((x) => -x), 1e-15, 'sign');
  });

  it('names a missing sensor', () => {
    expect(() => loadProblem(problem({ urdf_sensors: ['nope'] }))).toThrow('urdf_sensors: no <sensor> named "nope" in the URDF');
  });
});
