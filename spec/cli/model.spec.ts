/**
 * `sparsedyn model`: the joints in model order with the Model's own nq/nv offsets, the total mass
 * as the sum of the bodies' inertias, merged links and frames, declared sensors; the joint order of
 * the generated humanoid against the same robot from its URDF, stated.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Model } from '../../src/model/model.ts';
import { loadProblem } from '../../src/node/problem-file.ts';
import { parseModelSpec } from '../../src/node/spec.ts';
import type { ModelReport } from '../../src/cli/commands/model.ts';
import { runCli as run } from './run.ts';

const dir = mkdtempSync(join(tmpdir(), 'sparsedyn-model-'));

async function report(spec: string): Promise<ModelReport & { warnings: unknown[] }> {
  const r = await run(['model', spec, '--json']);
  expect(r.code, r.err).toBe(0);
  return JSON.parse(r.out);
}

/** the report agrees with the Model: joints in model order, offsets, sizes, bodies, total mass */
function agrees(r: ModelReport, model: Model): void {
  expect(r.joints.map((j) => j.name)).toEqual(model.jointNames);
  expect(r.joints.map((j) => j.type)).toEqual(model.jointTypes);
  expect(r.joints.map((j) => [j.iq, j.nq, j.iv, j.nv])).toEqual(model.jointNames.map((_n, i) => [model.iq[i], model.nqi[i], model.iv[i], model.nvi[i]]));
  expect([r.nq, r.nv]).toEqual([model.nq, model.nv]);
  expect(r.bodies.map((b) => b.name)).toEqual(model.bodyNames);
  let sum = 0;
  for (const I of model.I) sum += I[0];
  expect(r.total_mass).toBe(sum);
  expect(r.bodies.reduce((s, b) => s + b.mass, 0)).toBe(sum);
  // every frame of the model is a link of exactly one body
  expect(r.bodies.flatMap((b) => b.links).sort()).toEqual(model.frames.filter((f) => f.body >= 0).map((f) => f.name).sort());
}

describe('sparsedyn model', () => {
  it('models/humanoid.urdf+floating: joints in model order with limits and offsets, the soles merged into the feet, 67.1 kg', async () => {
    const r = await report('models/humanoid.urdf+floating');
    const model = parseModelSpec('models/humanoid.urdf+floating');
    agrees(r, model);
    expect(r.base).toBe('floating');
    expect(r.total_mass).toBeCloseTo(67.1, 12);
    expect(r.joints[0]).toMatchObject({ name: 'root_joint', type: 'floating', parent: 'world', iq: 0, nq: 7, iv: 0, nv: 6 });
    expect(r.joints[1]).toMatchObject({ name: 'l_hip_yaw', limits: { lower: -Math.PI, upper: Math.PI, effort: 1000, velocity: 100 } });
    expect(r.bodies.find((b) => b.name === 'l_foot')!.links).toEqual(['l_foot', 'l_sole']);
    expect(r.frames.find((f) => f.name === 'l_sole')).toEqual({ name: 'l_sole', body: 'l_foot', xyz: [0.03, 0, -0.075], rpy: [0, 0, 0] });
    expect(r.joint_order).toMatch(/by name/);
    expect(r.urdf_joint_order).toBeUndefined();
    expect(r.warnings).toEqual([]);
    const text = await run(['model', 'models/humanoid.urdf+floating']);
    expect(text.out).toMatch(/29 joints with DoF on a floating base, 30 bodies; nq 36, nv 35; total mass 67\.1 kg/);
    expect(text.out).toMatch(/^ +1 +l_hip_yaw +revolute +pelvis +7 +1 +6 +1 +\[-3\.14159, 3\.14159\] rad, \|τ\| ≤ 1000 N·m, \|q̇\| ≤ 100 rad\/s$/m);
  });

  it('the generated humanoid: its own order (the generator\'s), and the URDF\'s order stated as a difference', async () => {
    const r = await report('humanoid');
    agrees(r, parseModelSpec('humanoid'));
    const fromUrdf = parseModelSpec('models/humanoid.urdf+floating');
    expect(r.urdf_joint_order).toEqual(fromUrdf.jointNames);
    expect(r.joints.map((j) => j.name)).not.toEqual(fromUrdf.jointNames);
    expect([...r.joints.map((j) => j.name)].sort()).toEqual([...fromUrdf.jointNames].sort());
    expect(r.joints.every((j) => j.limits === undefined)).toBe(true);
    const text = await run(['model', 'humanoid']);
    expect(text.out).toMatch(/note: written as a URDF \(sparsedyn urdf\) and loaded again, this model numbers its joints by name, in another order: root_joint l_hip_yaw/);
  });

  it('a generated random tree with multi-DoF joints: offsets as the Model\'s (nq ≠ nv); a chain in declaration order states no difference', async () => {
    const spec = 'tree:12:3+floating';
    const r = await report(spec);
    const model = parseModelSpec(spec);
    agrees(r, model);
    expect(model.nq).toBeGreaterThan(model.nv);
    const chain = await report('chain:4');
    agrees(chain, parseModelSpec('chain:4'));
    expect(chain.urdf_joint_order).toBeUndefined();
  });

  it('a URDF\'s declared sensors; its problem file keeps a force/torque sensor\'s fixed joint as a body of its own', async () => {
    const link = (n: string) => `<link name="${n}"><inertial><mass value="1"/><inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial></link>`;
    const urdf = join(dir, 'arm.urdf');
    writeFileSync(urdf, [
      '<robot name="arm">', link('base'), link('upper'), link('tool'),
      '<joint name="shoulder" type="revolute"><parent link="base"/><child link="upper"/><axis xyz="0 1 0"/><limit lower="-2" upper="2" effort="50" velocity="3"/></joint>',
      '<joint name="ft_joint" type="fixed"><parent link="upper"/><child link="tool"/><origin xyz="0 0 0.5"/></joint>',
      '<sensor name="wrist_ft" type="force_torque"><parent joint="ft_joint"/><force_torque><frame>child</frame><measure_direction>child_to_parent</measure_direction></force_torque></sensor>',
      '<gazebo reference="upper"><sensor name="imu" type="imu"><pose>0.1 0 0 0 0 0</pose></sensor></gazebo>',
      '</robot>',
    ].join('\n'));
    const r = await report(urdf);
    expect(r.sensors.map((s) => [s.name, s.type])).toEqual([['wrist_ft', 'force_torque'], ['imu_acc', 'accelerometer'], ['imu_gyro', 'gyroscope']]);
    expect(r.bodies.map((b) => b.links)).toEqual([['upper', 'tool']]);
    expect(r.total_mass).toBe(2);
    const problem = join(dir, 'arm.json');
    writeFileSync(problem, JSON.stringify({ model: 'arm.urdf', base: 'fixed', contacts: [], sensors: [], urdf_sensors: ['wrist_ft'] }));
    const p = await report(problem);
    agrees(p, loadProblem(problem).model);
    expect(p.bodies.map((b) => b.name)).toEqual(['upper', 'tool']);
    expect(p.joints.map((j) => [j.name, j.type, j.nv])).toEqual([['shoulder', 'revolute', 1], ['ft_joint', 'fixed', 0]]);
    expect(p.sensors.map((s) => s.name)).toEqual(['wrist_ft']);
    expect((await run(['model', problem])).out).toMatch(/^ +1 +ft_joint +fixed +upper +1 +0 +1 +0 *$/m);
  });
});
