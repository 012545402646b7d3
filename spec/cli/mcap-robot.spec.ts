/**
 * A ROS 2 recording as a robot makes it: `/joint_states` with positions only (an empty velocity
 * array), one `/imu` (sensor_msgs/msg/Imu: the IMU's own orientation estimate, angular velocity,
 * proper linear acceleration) and two F/T topics; no twist, no accelerations, no base position. The
 * project's humanoid on a floating base, its motion cubic in time (scripts/robot-log.ts: the fits of
 * order 3 are exact), stamped from 1 750 000 000 s as a robot's clock: the sampler's samples against
 * the truth (orientation turned from the IMU's frame to the base's, the gyroscope's reading into
 * the base's axes), and `sparsedyn estimate` on the recording: every sample estimated, the joint
 * torques and contact wrenches those of RNEA (1e-9), the same bytes with one and two jobs.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { parseProblem } from '../../src/estimation/problem.ts';
import { rosJson } from '../../src/estimation/ros-mapping.ts';
import type { Truth } from '../../src/estimation/synthesize.ts';
import { LogSchema, type LogError, type Sample } from '../../src/io/log.ts';
import { MemoryWritable, RosMcapWriter, rosTime } from '../../src/io/mcap-estimates.ts';
import { McapSampler } from '../../src/io/mcap-log.ts';
import { rotFromQuat, rotFromRpy } from '../../src/spatial/vec3.ts';
import { cross, cubicHumanoidLog, humanoidAsLogged } from '../../scripts/robot-log.ts';
import { runCli as run } from './run.ts';

const dir = mkdtempSync(join(tmpdir(), 'sparsedyn-mcap-robot-'));
const EPOCH = 1_750_000_000_000_000_000n;
const N = 300;
/** the IMU's mounting on the pelvis (scripts/robot-log.ts) */
const RPY = [0.3, -0.2, 1.1];

/** what a robot's recording maps: the IMU's orientation as the base's, no twist, no topic for accelerations */
const ROS = {
  clock: { topic: '/joint_states' },
  joint_states: '/joint_states',
  base: { orientation: '/imu' },
  sensors: { imu_acc: '/imu', imu_gyro: '/imu', ft_left: '/ft/left', ft_right: '/ft/right' },
};
const { file: problem, es } = humanoidAsLogged({ ros: ROS });
const model = es.model;
const log = cubicHumanoidLog(es, N);
const joints = model.movingJoints().filter((j) => j.type !== 'floating');

type Row = { t: number; q: Record<string, number>; base: { quaternion: number[] }; sensors: Record<string, number[]> };

/** a ⊗ b, (x, y, z, w) */
const qmul = (a: number[], b: number[]) => [
  a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
  a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
  a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
  a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2],
];
/** the mounting as a quaternion: URDF rpy is R = Rz(yaw) Ry(pitch) Rx(roll) */
const axis = (k: number, angle: number) => { const q = [0, 0, 0, Math.cos(angle / 2)]; q[k] = Math.sin(angle / 2); return q; };
const MOUNT = qmul(qmul(axis(2, RPY[2]), axis(1, RPY[1])), axis(0, RPY[0]));

const stampOf = (t: number) => EPOCH + BigInt(Math.round(t * 1e9));
const v3 = (a: ArrayLike<number>, o = 0) => ({ x: a[o], y: a[o + 1], z: a[o + 2] });

/**
 * The recording: per sample /joint_states (positions; velocities only with `velocities`), /imu
 * (orientation of the IMU's frame q_base ⊗ q_mount, its gyroscope and accelerometer readings), the
 * F/T sensors on /ft/left and /ft/right, and with `mocap` the base's pose on /mocap (PoseStamped).
 */
async function robotBag(opts: { velocities?: boolean; mocap?: boolean; noOrientation?: number } = {}): Promise<Uint8Array> {
  const out = new MemoryWritable();
  const w = new RosMcapWriter(out, 64 * 1024);
  await w.start();
  const zeros9 = Array(9).fill(0);
  for (let k = 0; k < N; k++) {
    const r = log.rows[k] as Row, truth = log.truths[k];
    const ns = stampOf(r.t), header = (frame_id: string) => ({ stamp: rosTime(ns), frame_id });
    await w.write('/joint_states', 'sensor_msgs/msg/JointState', ns, {
      header: header(''), name: joints.map((j) => j.name), position: joints.map((j) => r.q[j.name]), velocity: opts.velocities ? joints.map((j) => truth.v[j.iv]) : [], effort: [],
    });
    const qi = qmul(r.base.quaternion, MOUNT);
    await w.write('/imu', 'sensor_msgs/msg/Imu', ns, {
      header: header('imu_link'), orientation: { x: qi[0], y: qi[1], z: qi[2], w: qi[3] }, orientation_covariance: k === opts.noOrientation ? [-1, ...zeros9.slice(1)] : zeros9,
      angular_velocity: v3(r.sensors.imu_gyro), angular_velocity_covariance: zeros9, linear_acceleration: v3(r.sensors.imu_acc), linear_acceleration_covariance: zeros9,
    });
    for (const [topic, sensor, frame] of [['/ft/left', 'ft_left', 'l_ankle_ft'], ['/ft/right', 'ft_right', 'r_ankle_ft']]) {
      const f = r.sensors[sensor];
      await w.write(topic, 'geometry_msgs/msg/WrenchStamped', ns, { header: header(frame), wrench: { torque: v3(f, 0), force: v3(f, 3) } });
    }
    if (opts.mocap) await w.write('/mocap', 'geometry_msgs/msg/PoseStamped', ns, { header: header('world'), pose: { position: v3(truth.q), orientation: { x: truth.q[3], y: truth.q[4], z: truth.q[5], w: truth.q[6] } } });
  }
  await w.end();
  return out.bytes();
}

/** every row of a recording through a sampler with the command line's lenient schema */
function sampleAll(bytes: Uint8Array, ros: object, derive = true): (Sample | LogError)[] {
  const p = parseProblem(JSON.stringify({ ...JSON.parse(readFileSync(problem, 'utf8')), ros }), problem);
  const s = new McapSampler(new LogSchema(es, { derive }), p.ros!);
  s.push(bytes);
  s.end();
  return s.drain();
}
const samples = (rows: (Sample | LogError)[]) => rows.filter((r): r is Sample => 'q' in r);
const errors = (rows: (Sample | LogError)[]) => rows.filter((r): r is LogError => !('q' in r));

describe('a ROS 2 recording as a robot makes it: joint positions, an IMU, F/T sensors', () => {
  it('samples: positions, NaN velocities (derived later), the base\'s orientation from the IMU\'s, position and linear velocity 0, angular velocity the gyroscope\'s in the base\'s axes', async () => {
    // the quaternion of the mounting is the URDF's rpy (checked independently of the sampler)
    const Rm = rotFromQuat(new Float64Array(9), MOUNT[0], MOUNT[1], MOUNT[2], MOUNT[3]), Rr = rotFromRpy(new Float64Array(9), RPY[0], RPY[1], RPY[2]);
    Rm.forEach((x, k) => expect(Math.abs(x - Rr[k])).toBeLessThan(1e-15));
    const rows = sampleAll(await robotBag(), ROS);
    expect(errors(rows)).toEqual([]);
    const ss = samples(rows);
    expect(ss.length).toBe(N);
    let worstQ = 0, worstW = 0;
    ss.forEach((s, k) => {
      const truth: Truth = log.truths[k];
      expect(s.stamp).toBe(stampOf((log.rows[k] as Row).t));
      expect(s.noBaseVelocity).toBe(true);
      expect([s.q[0], s.q[1], s.q[2], s.v[0], s.v[1], s.v[2]]).toEqual([0, 0, 0, 0, 0, 0]);
      for (const j of joints) { expect(s.q[j.iq]).toBe(truth.q[j.iq]); expect(Number.isNaN(s.v[j.iv])).toBe(true); }
      for (let i = 3; i < 7; i++) worstQ = Math.max(worstQ, Math.abs(s.q[i] - truth.q[i]));
      for (let i = 3; i < 6; i++) worstW = Math.max(worstW, Math.abs(s.v[i] - truth.v[i]) / Math.max(1, Math.abs(truth.v[i])));
      // the readings of the sensors with readings; the gyroscope feeds the base, as in the text logs
      expect([...s.readings.keys()].sort()).toEqual(['ft_left', 'ft_right', 'imu_acc']);
      expect([...s.staleness!.keys()]).toEqual(['joints /joint_states', 'base orientation', 'imu_gyro', 'imu_acc', 'ft_left', 'ft_right']);
    });
    expect(worstQ).toBeLessThan(1e-14);
    expect(worstW).toBeLessThan(1e-14);
    // a schema that does not derive keeps refusing a JointState without velocities, naming it
    // (and its joint_acceleration sensor needs a topic: here the positions stand in for its readings)
    const strict = errors(sampleAll(await robotBag(), { ...ROS, sensors: { ...ROS.sensors, encoders: { topic: '/joint_states', field: 'position' } } }, false));
    expect(strict[0].where).toMatch(/^topic "\/joint_states", log time 1750000000\.000000000 s$/);
    expect(strict[0].message).toBe('joints /joint_states: JointState.velocity is empty');
  });

  it('a motion-capture pose (PoseStamped) as the base\'s pose, the velocities a JointState carries used as they are; an IMU that publishes no orientation is named', async () => {
    const ss = samples(sampleAll(await robotBag({ velocities: true, mocap: true }), { ...ROS, base: { pose: '/mocap' } }));
    expect(ss.length).toBe(N);
    ss.forEach((s, k) => {
      const truth = log.truths[k];
      for (let i = 0; i < 7; i++) expect(Math.abs(s.q[i] - truth.q[i])).toBeLessThan(1e-15);
      for (const j of joints) expect(s.v[j.iv]).toBe(truth.v[j.iv]);
      expect(s.noBaseVelocity).toBe(true);
    });
    const rows = sampleAll(await robotBag({ noOrientation: 5 }), ROS);
    expect(errors(rows).map((e) => `${e.where}: ${e.message}`)).toEqual([
      `topic "/imu", log time 1750000000.050200000 s: base orientation: orientation_covariance[0] is -1: this IMU publishes no orientation`,
    ]);
    // the sample at that stamp takes the previous orientation (latest values)
    expect(samples(rows).length).toBe(N);
  });

  it('refuses a mapping that leaves the base\'s angular velocity without a source, and parses, writes back and validates the new forms', () => {
    const schema = new LogSchema(es, { derive: true });
    const mapping = (ros: object) => parseProblem(JSON.stringify({ model: 'chain:2', base: 'fixed', ros }), 'p.json').ros!;
    const { imu_gyro: _g, ...noGyro } = ROS.sensors;
    expect(() => new McapSampler(schema, mapping({ ...ROS, sensors: noGyro }))).toThrow(/"ros\.base" names no twist topic: the base's angular velocity is the reading of gyroscope "imu_gyro", which "ros\.sensors" must map/);
    // without "derive", a joint_acceleration sensor needs a topic as before
    expect(() => new McapSampler(new LogSchema(es), mapping(ROS))).toThrow(/sensor "encoders" has no topic/);
    const parse = (base: object) => () => mapping({ ...ROS, base });
    expect(parse({ pose: '/p', orientation: '/imu' })).toThrow(/"ros"\.base: give "topic" .*not both/);
    expect(parse({ twist: '/t' })).toThrow(/"ros"\.base: give "topic"/);
    for (const base of [{ orientation: '/imu' }, { pose: '/mocap' }, { orientation: '/imu', twist: '/t' }, { pose: '/p', twist: '/t' }, { topic: '/odom' }]) {
      const m = mapping({ ...ROS, base });
      expect(rosJson(m).base).toEqual(base);
    }
    const validate = new Ajv2020({ strict: false }).compile(JSON.parse(readFileSync('schemas/problem.schema.json', 'utf8')));
    const p = JSON.parse(readFileSync(problem, 'utf8'));
    expect(validate(p), JSON.stringify(validate.errors)).toBe(true);
    expect(validate({ ...p, ros: { ...ROS, base: { pose: '/mocap' } } })).toBe(true);
    expect(validate({ ...p, ros: { ...ROS, base: { pose: '/p', orientation: '/imu' } } })).toBe(false);
  });

  it('sparsedyn estimate: every sample estimated from the recording, joint torques and contact wrenches those of RNEA (1e-9); the same bytes with one and two jobs', async () => {
    const bag = join(dir, 'robot.mcap');
    writeFileSync(bag, await robotBag());
    const outs: string[] = [];
    for (const jobs of ['1', '2']) {
      const out = join(dir, `est-${jobs}.ndjson`);
      const r = await run(['estimate', problem, '--data', bag, '--out', out, '--jobs', jobs, '--no-html']);
      expect(r.code, r.err).toBe(0);
      expect(r.err).toMatch(/samples estimated 300, rows skipped 0/);
      expect(r.err).toMatch(/derived from the log over time: the velocities of 29 joints, the readings of sensor "encoders" \(joint accelerations\), the base's angular acceleration \(sensor "imu_gyro_rate", from gyroscope "imu_gyro"\)/);
      expect(r.err).toMatch(/the log carries no linear velocity of the base: estimated at zero linear velocity/);
      if (jobs === '2') expect(r.err).toMatch(/threads: 2 worker threads/);
      outs.push(readFileSync(out, 'utf8'));
    }
    expect(outs[1] === outs[0]).toBe(true);
    const est = outs[0].trim().split('\n').map((l) => JSON.parse(l) as { line: number; tau: Record<string, number>; contact_wrenches: Record<string, { torque: number[]; force: number[] }> });
    expect(est.map((e) => e.line)).toEqual(Array.from({ length: N }, (_, k) => k + 1));
    let worstTau = 0, worstW = 0;
    est.forEach((e, k) => {
      const truth = log.truths[k];
      const scale = Math.max(...joints.map((j) => Math.abs(truth.tau[j.iv])));
      for (const j of joints) worstTau = Math.max(worstTau, Math.abs(e.tau[j.name] - truth.tau[j.iv]) / scale);
      // the true wrench on each sole, in its link frame (fext is in body coordinates)
      for (const link of ['l_sole', 'r_sole']) {
        const fr = model.frame(link), X = fr.X, f = truth.fext[fr.body];
        const E = (i: number, j: number) => X[3 * i + j], p = [X[9], X[10], X[11]];
        const force = [0, 1, 2].map((i) => E(i, 0) * f[3] + E(i, 1) * f[4] + E(i, 2) * f[5]);
        const nb = [0, 1, 2].map((i) => f[i] - cross(p, [f[3], f[4], f[5]])[i]);
        const torque = [0, 1, 2].map((i) => E(i, 0) * nb[0] + E(i, 1) * nb[1] + E(i, 2) * nb[2]);
        const got = e.contact_wrenches[link];
        for (let i = 0; i < 3; i++) worstW = Math.max(worstW, Math.abs(got.force[i] - force[i]) / 200, Math.abs(got.torque[i] - torque[i]) / 200);
      }
    });
    expect(worstTau).toBeLessThan(1e-9);
    expect(worstW).toBeLessThan(1e-9);
  });
});
