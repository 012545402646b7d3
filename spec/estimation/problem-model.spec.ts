/**
 * problem-model.ts: a problem written by problemJson reads back (parseProblem) to the same problem;
 * the browser-side model of a problem is the one `sparsedyn analyze` builds (src/node), for a
 * generator and for a URDF text, F/T sensors in fixed joints included; fitProblem names what does
 * not fit; directionTerms maps the analysis's directions back to links and joints.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { analyzeProblem } from '../../src/estimation/analysis.ts';
import { parseProblem } from '../../src/estimation/problem.ts';
import { directionTerms, fitProblem, problemJson, problemModel, withUrdfSensorsFromText } from '../../src/estimation/problem-model.ts';
import { buildEstimationSystem } from '../../src/estimation/setup.ts';
import { loadProblem } from '../../src/node/problem-file.ts';
import { modelFromSpec } from '../../src/model/spec.ts';

const DEMO = 'data/problems/humanoid-demo.json';

describe('problemJson', () => {
  it('round-trips the demo problem and a problem with every optional field', () => {
    const demo = parseProblem(readFileSync(DEMO, 'utf8'), DEMO);
    expect(parseProblem(problemJson(demo), 'again')).toEqual(demo);
    const full = parseProblem(JSON.stringify({
      model: 'chain:4', base: 'fixed', gravity: [0, 0, -3.7], unactuated: ['joint2'], unactuated_variance: 0.5,
      contacts: ['link4', { link: 'link3', zero: ['fx', 'tz'], zero_variance: 0.01 }],
      contact_schedule: [{ t: 0, contacts: ['link4'] }, { t: 1.5, contacts: ['link3', 'link4'] }],
      priors: [{ on: 'torques', mean: 0, variance: 100 }],
      sensors: [
        { name: 'enc', type: 'joint_acceleration', joints: ['joint1', 'joint3'] },
        { name: 'one', type: 'joint_torque', joint: 'joint1', variance: 0.2 },
        { name: 'ft', type: 'force_torque', joint: 'joint2', components: ['fz', 'tx'], measure_direction: 'child_to_parent' },
        { name: 'imu', type: 'accelerometer', link: 'link2', origin: { xyz: [0.1, 0, 0], rpy: [0, 0.3, 0] } },
      ],
    }), 'full');
    const text = problemJson(full, 'made by a test');
    expect(parseProblem(text, 'again')).toEqual(full);
    expect(JSON.parse(text).description).toBe('made by a test');
    // defaults left out: no origin, components or variance where they are the defaults
    expect(text).toContain('{"name":"enc","type":"joint_acceleration","joints":["joint1","joint3"]}');
    expect(text).toContain('{"name":"one","type":"joint_torque","joint":"joint1","variance":0.2}');
  });
});

describe('problemModel', () => {
  it('builds the model sparsedyn analyze builds: a generator, a URDF text, an F/T sensor in a fixed joint', () => {
    const demo = loadProblem(DEMO);
    const urdf = readFileSync('models/humanoid.urdf', 'utf8');
    const inBrowser = problemModel(demo.problem, { 'humanoid.urdf': urdf });
    expect(inBrowser.nq).toBe(demo.model.nq);
    expect(inBrowser.jointNames).toEqual(demo.model.jointNames);
    expect(inBrowser.I.map((x) => Array.from(x))).toEqual(demo.model.I.map((x) => Array.from(x)));
    const a = analyzeProblem(buildEstimationSystem(inBrowser, demo.problem));
    const b = analyzeProblem(buildEstimationSystem(demo.model, demo.problem));
    expect({ v: a.verdict, r: a.numerical_rank, red: a.redundant_sensors }).toEqual({ v: b.verdict, r: b.numerical_rank, red: b.redundant_sensors });
    // generator spec, fixed base from the problem even for the humanoid
    const fixed = problemModel({ ...demo.problem, model: 'humanoid', base: 'fixed', sensors: [] });
    expect(fixed.floatingBase).toBe(false);
    expect(fixed.nv).toBe(modelFromSpec('humanoid+fixed').nv);
    // an F/T sensor in the URDF fixed joint of the sole keeps that joint
    const ft = problemModel({ ...demo.problem, sensors: [{ name: 'sole_ft', type: 'force_torque', joint: 'l_sole_joint', origin: { xyz: [0, 0, 0], rpy: [0, 0, 0] }, components: [], variance: 1 }] }, { 'humanoid.urdf': urdf });
    expect(ft.hasJoint('l_sole_joint')).toBe(true);
    expect(() => problemModel(demo.problem, {})).toThrow(/the URDF file "humanoid.urdf" is not loaded/);
  });

  it('adds the URDF\'s sensors when the problem asks for them', () => {
    const urdf = `<robot name="r"><link name="a"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>
      <link name="b"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>
      <joint name="j" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/><limit effort="1" velocity="1" lower="-1" upper="1"/></joint>
      <sensor name="acc" type="accelerometer"><parent link="b"/><origin xyz="0 0 0" rpy="0 0 0"/></sensor></robot>`;
    const p = parseProblem(JSON.stringify({ model: 'r.urdf', base: 'fixed', sensors: [], urdf_sensors: true }), 'p');
    const withS = withUrdfSensorsFromText(p, { 'r.urdf': urdf });
    expect(withS.sensors.map((s) => [s.name, s.type, s.link])).toEqual([['acc', 'accelerometer', 'b']]);
    expect(() => withUrdfSensorsFromText(p, {})).toThrow(/not a loaded URDF file/);
  });
});

describe('fitProblem and directionTerms', () => {
  it('leaves out what a model lacks, naming it', () => {
    const model = modelFromSpec('humanoid+fixed');
    const p = parseProblem(JSON.stringify({
      model: 'humanoid', base: 'fixed', contacts: ['pelvis', 'l_sole'],
      sensors: [{ name: 'imu', type: 'spatial_acceleration', link: 'pelvis' }, { name: 'x', type: 'joint_torque', joints: ['l_knee', 'nope'] }, { name: 'ft', type: 'force_torque', joint: 'nope' }],
    }), 'p');
    const { problem, removed } = fitProblem(p, model);
    expect(problem.contacts.map((c) => c.link)).toEqual(['l_sole']);
    expect(problem.sensors.map((s) => s.name)).toEqual(['x']);
    expect(problem.sensors[0].joints).toEqual(['l_knee']);
    expect(removed).toEqual([
      'contact "pelvis": link "pelvis" is welded to the fixed world',
      'sensor "imu": link "pelvis" is welded to the fixed world',
      'sensor "x": joint "nope" has no DoF in model "humanoid"',
      'sensor "ft": joint "nope" is not a joint of model "humanoid"',
    ]);
  });

  it('maps every term of a direction to its link or joint, with its coefficient', () => {
    const model = modelFromSpec('humanoid');
    const t = directionTerms(model, 'w[l_sole].tz − 0.499·w[l_sole].fx + 16.4·qdd[l_knee] − tau[r_hip_roll] + 2.5e-3·f[l_ankle_roll].fy + a[l_foot].vz');
    expect(t.map((x) => [x.coef, x.site.kind, x.site.item, x.site.component, x.site.body])).toEqual([
      [1, 'w', 'l_sole', 2, model.frame('l_sole').body],
      [-0.499, 'w', 'l_sole', 3, model.frame('l_sole').body],
      [16.4, 'qdd', 'l_knee', 0, model.joint('l_knee')],
      [-1, 'tau', 'r_hip_roll', 0, model.joint('r_hip_roll')],
      [0.0025, 'f', 'l_ankle_roll', 4, model.joint('l_ankle_roll')],
      [1, 'a', 'l_foot', 5, model.body('l_foot')],
    ]);
  });
});
