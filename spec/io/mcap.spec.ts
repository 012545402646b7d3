/**
 * ROS 2 recordings (MCAP) in: the sampler against recordings built here with known signals (linear
 * in time, so that interpolation is exact), the sample clock (a topic, a rate), staleness, message
 * names of ROS 2 releases, bad messages reported with topic and log time and skipped; MCAP told
 * from text by its magic bytes.
 */
import { readFileSync } from 'node:fs';
import { crc32 as zlibCrc32 } from 'node:zlib';
import { McapWriter, type McapTypes } from '@mcap/core';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { parseProblem } from '../../src/estimation/problem.ts';
import { rosJson } from '../../src/estimation/ros-mapping.ts';
import { buildEstimationSystem } from '../../src/estimation/setup.ts';
import { LogSchema, type LogError, type Sample } from '../../src/io/log.ts';
import { sniffBytes } from '../../src/io/log-reader.ts';
import { MemoryWritable, MSG_DEFINITIONS, RosMcapWriter, rosTime } from '../../src/io/mcap-estimates.ts';
import { McapLogError, McapSampler, nsText, rosTypeName, type Crc32 } from '../../src/io/mcap-log.ts';
import { parseModelSpec } from '../../src/node/spec.ts';

const SEC = 1_000_000_000n;
const T0 = 1_700_000_000n * SEC;

/** a fixed-base two-joint chain: joint accelerations (encoders) and an ankle-like F/T sensor in joint2 */
function system(ros: object) {
  const problem = parseProblem(JSON.stringify({
    model: 'chain:2', base: 'fixed',
    sensors: [
      { name: 'enc', type: 'joint_acceleration', joints: 'all' },
      { name: 'ft', type: 'force_torque', joint: 'joint2' },
      { name: 'tq', type: 'joint_torque', joint: 'joint1' },
    ],
    ros,
  }), 'p.json');
  const es = buildEstimationSystem(parseModelSpec('chain:2', { floatingBase: false }), problem);
  return { schema: new LogSchema(es), mapping: problem.ros! };
}

const ROS = {
  clock: { topic: '/joint_states' },
  joint_states: '/joint_states',
  sensors: { enc: { topic: '/acc', field: 'velocity' }, ft: { topic: '/ft', frame_id: 'ft_frame' }, tq: '/joint_states' },
};

/** the signals, linear in t (s): q_k = 0.1 k + t, v_k = 1 + k t, enc_k = 2k − t, torque 3 t, wrench components c + 10 t */
const q = (k: number, t: number) => 0.1 * k + t;
const v = (k: number, t: number) => 1 + k * t;
const acc = (k: number, t: number) => 2 * k - t;
const wrench = (t: number) => [1, 2, 3, 4, 5, 6].map((c) => c + 10 * t);

interface Plan { joints?: number[]; acc?: number[]; ft?: number[]; extra?: (w: RosMcapWriter) => Promise<void> }

/** a recording: joint states, accelerations and F/T at the times given (ms after T0) */
async function bag(p: Plan): Promise<Uint8Array> {
  const out = new MemoryWritable();
  const w = new RosMcapWriter(out, 4096);
  await w.start();
  const events: [number, () => Promise<void>][] = [];
  const ns = (ms: number) => T0 + BigInt(ms) * 1_000_000n;
  for (const ms of p.joints ?? []) {
    const t = ms / 1000;
    events.push([ms, () => w.write('/joint_states', 'sensor_msgs/msg/JointState', ns(ms), {
      header: { stamp: rosTime(ns(ms)), frame_id: '' }, name: ['gripper', 'joint2', 'joint1'], position: [9, q(2, t), q(1, t)], velocity: [9, v(2, t), v(1, t)], effort: [0, 0, 3 * t],
    })]);
  }
  for (const ms of p.acc ?? []) {
    const t = ms / 1000;
    events.push([ms, () => w.write('/acc', 'sensor_msgs/msg/JointState', ns(ms), { header: { stamp: rosTime(ns(ms)), frame_id: '' }, name: ['joint1', 'joint2'], position: [], velocity: [acc(1, t), acc(2, t)], effort: [] })]);
  }
  for (const ms of p.ft ?? []) {
    const f = wrench(ms / 1000);
    events.push([ms, () => w.write('/ft', 'geometry_msgs/msg/WrenchStamped', ns(ms), { header: { stamp: rosTime(ns(ms)), frame_id: 'ft_frame' }, wrench: { torque: { x: f[0], y: f[1], z: f[2] }, force: { x: f[3], y: f[4], z: f[5] } } })]);
  }
  events.sort((a, b) => a[0] - b[0]);
  for (const [, e] of events) await e();
  await p.extra?.(w);
  await w.end();
  return out.bytes();
}

function sampleAll(bytes: Uint8Array, ros: object, chunk = 1000, decompress?: McapTypes.DecompressHandlers, crc32?: Crc32): (Sample | LogError)[] {
  const { schema, mapping } = system(ros);
  const s = new McapSampler(schema, mapping, decompress, crc32);
  const rows: (Sample | LogError)[] = [];
  for (let o = 0; o < bytes.length; o += chunk) { s.push(bytes.subarray(o, o + chunk)); rows.push(...s.drain()); }
  s.end();
  rows.push(...s.drain());
  return rows;
}

const samples = (rows: (Sample | LogError)[]) => rows.filter((r): r is Sample => !('message' in r));
const errors = (rows: (Sample | LogError)[]) => rows.filter((r): r is LogError => 'message' in r);
const close = (a: number, b: number) => expect(Math.abs(a - b)).toBeLessThanOrEqual(1e-12 * Math.max(1, Math.abs(b)));

describe('the problem file\'s "ros" section', () => {
  it('the demo problem follows schemas/problem.schema.json (Ajv, JSON Schema 2020-12), its "ros" section included', () => {
    const validate = new Ajv2020({ strict: false }).compile(JSON.parse(readFileSync('schemas/problem.schema.json', 'utf8')));
    const demo = JSON.parse(readFileSync('data/problems/humanoid-demo.json', 'utf8'));
    expect(validate(demo), JSON.stringify(validate.errors)).toBe(true);
    expect(validate({ ...demo, ros: { ...demo.ros, clock: { rate: 0 } } })).toBe(false);
    expect(validate({ ...demo, ros: { ...demo.ros, sensors: { x: { topic: '/a', field: 'acceleration' } } } })).toBe(false);
  });

  it('is written back as it was read (rosJson), every field set', () => {
    const ros = { clock: { topic: '/c', frame_id: 'f' }, values: 'interpolate', stamps: 'log_time', max_staleness: 0.1, stale_sensors: 'leave_out', reorder_window: 2, joint_states: ['/a', '/b'], base: { pose: '/p', twist: '/t' }, sensors: { s: { topic: '/s', frame_id: 'x' }, j: { topic: '/j', field: 'velocity' } }, truth: { joint_torques: '/tt' } };
    const p = parseProblem(JSON.stringify({ model: 'chain:2', base: 'fixed', ros }), 'p.json');
    expect(rosJson(p.ros!)).toEqual(ros);
    expect(parseProblem(JSON.stringify({ model: 'chain:2', base: 'fixed', ros: rosJson(p.ros!) }), 'again').ros).toEqual(p.ros);
  });

  it('its parser names the offending field', () => {
    const parse = (ros: object) => () => parseProblem(JSON.stringify({ model: 'chain:2', base: 'fixed', ros }), 'p.json');
    expect(parse({ joint_states: '/j' })).toThrow(/p\.json: "ros": "clock" is missing/);
    expect(parse({ clock: { topic: '/j', rate: 5 }, joint_states: '/j' })).toThrow(/"ros"\.clock: give "topic" or "rate", not both/);
    expect(parse({ clock: { rate: -1 }, joint_states: '/j' })).toThrow(/"ros"\.clock\.rate must be a positive number/);
    expect(parse({ clock: { rate: 5 }, joint_states: '/j', values: 'nearest' })).toThrow(/"ros"\.values must be "latest" or "interpolate"/);
    expect(parse({ clock: { rate: 5 }, joint_states: '/j', sensors: { a: { topic: '/a', field: 'acc' } } })).toThrow(/"ros"\.sensors\["a"\]\.field must be "position", "velocity" or "effort"/);
    expect(parse({ clock: { rate: 5 }, joint_states: '/j', extra: 1 })).toThrow(/"ros": unknown field "extra"/);
    const ok = parseProblem(JSON.stringify({ model: 'chain:2', base: 'fixed', ros: { clock: { rate: 5 }, joint_states: ['/a', '/b'], sensors: { s: '/s' } } }), 'p.json').ros!;
    expect(ok).toEqual({ clock: { rate: 5 }, values: 'latest', stamps: 'header', max_staleness: undefined, stale_sensors: 'skip_sample', reorder_window: 1, joint_states: ['/a', '/b'], base: undefined, sensors: new Map([['s', { topic: '/s' }]]) });
  });
});

describe('MCAP format sniffing', () => {
  it('tells MCAP by its magic bytes and text by its first character', async () => {
    const b = await bag({ joints: [0] });
    expect(sniffBytes(b.subarray(0, 8))).toBe('mcap');
    expect(sniffBytes(new TextEncoder().encode('{"t": 0}'))).toBe('ndjson');
    expect(sniffBytes(new TextEncoder().encode('t,q.a\n'))).toBe('csv');
    expect(sniffBytes(b.subarray(0, 5))).toBe('csv'); // a truncated magic is not MCAP
    expect(rosTypeName('sensor_msgs/msg/JointState')).toBe(rosTypeName('sensor_msgs/JointState'));
  });
});

describe('sampling a ROS 2 recording', () => {
  it('one topic\'s stamps as the clock, latest values: each channel\'s newest message at or before the tick, its age as staleness', async () => {
    // joints every 10 ms, accelerations every 20 ms (from 0), F/T every 25 ms (from 0)
    const b = await bag({ joints: [0, 10, 20, 30, 40, 50], acc: [0, 20, 40], ft: [0, 25, 50] });
    for (const chunk of [17, 1 << 20]) {
      const rows = sampleAll(b, ROS, chunk);
      expect(errors(rows)).toEqual([]);
      const ss = samples(rows);
      expect(ss.map((s) => s.stamp)).toEqual([0, 10, 20, 30, 40, 50].map((ms) => T0 + BigInt(ms) * 1_000_000n));
      for (const s of ss) {
        const ms = Number((s.stamp! - T0) / 1_000_000n), t = ms / 1000;
        const ta = Math.floor(ms / 20) * 20 / 1000, tf = Math.floor(ms / 25) * 25 / 1000;
        expect(Array.from(s.q)).toEqual([q(1, t), q(2, t)]);
        expect(Array.from(s.v)).toEqual([v(1, t), v(2, t)]);
        expect(Array.from(s.readings.get('enc')!)).toEqual([acc(1, ta), acc(2, ta)]);
        expect(Array.from(s.readings.get('ft')!)).toEqual(wrench(tf));
        expect(Array.from(s.readings.get('tq')!)).toEqual([3 * t]);
        expect(s.staleness!.get('joints /joint_states')).toBe(0);
        close(s.staleness!.get('enc')!, t - ta);
        close(s.staleness!.get('ft')!, t - tf);
      }
    }
  });

  it('interpolated values at a fixed rate equal the linear signals; ticks without a message after them are skipped with the reason', async () => {
    const b = await bag({ joints: [0, 10, 20, 30, 40], acc: [0, 20, 40], ft: [0, 25, 50] });
    const rows = sampleAll(b, { ...ROS, clock: { rate: 300 }, values: 'interpolate' });
    const ss = samples(rows);
    // ticks at 0, 3.33…, 6.67…, …, 40 ms (rounded to the nanosecond)
    expect(ss.length).toBe(13);
    for (const [k, s] of ss.entries()) {
      expect(s.stamp).toBe(T0 + BigInt(Math.round(k * 1e9 / 300)));
      const t = Number(s.stamp! - T0) / 1e9;
      close(s.q[0], q(1, t)); close(s.q[1], q(2, t)); close(s.v[1], v(2, t));
      s.readings.get('enc')!.forEach((x, i) => close(x, acc(i + 1, t)));
      s.readings.get('ft')!.forEach((x, i) => close(x, wrench(t)[i]));
    }
    // the ticks after the last joint state (40 ms) up to the newest stamp (F/T at 50 ms) cannot be interpolated
    const e = errors(rows);
    expect(e.map((x) => x.where)).toEqual(['043333333', '046666667', '050000000'].map((f, k) => `sample ${14 + k} (t = 1700000000.${f} s)`));
    expect(e[0].message).toMatch(/joints \/joint_states: no message after t to interpolate to \(the last is at 1700000000\.040000000 s\)/);
  });

  it('a floating base from PoseStamped and TwistStamped topics: interpolated pose (spherical for the orientation) and twist', async () => {
    const problem = parseProblem(JSON.stringify({
      model: 'chain:2', base: 'floating', contacts: ['link2'],
      sensors: [{ name: 'enc', type: 'joint_acceleration', joints: 'actuated' }, { name: 'ft', type: 'force_torque', joint: 'joint2' }],
      ros: { ...ROS, clock: { rate: 400 }, values: 'interpolate', base: { pose: '/pose', twist: '/twist' }, sensors: { enc: ROS.sensors.enc, ft: ROS.sensors.ft } },
    }), 'p.json');
    const es = buildEstimationSystem(parseModelSpec('chain:2', { floatingBase: true }), problem);
    const w0 = 2; // yaw rate, rad/s: the orientation at t is a turn by w0 t about z
    const base = await bag({
      joints: [0, 10], acc: [0, 10], ft: [0, 10],
      extra: async (w) => {
        for (const ms of [0, 10]) {
          const t = ms / 1000, ns = T0 + BigInt(ms) * 1_000_000n, h = { stamp: rosTime(ns), frame_id: 'world' };
          await w.write('/pose', 'geometry_msgs/msg/PoseStamped', ns, { header: h, pose: { position: { x: t, y: 2 * t, z: 1 }, orientation: { x: 0, y: 0, z: Math.sin(w0 * t / 2), w: Math.cos(w0 * t / 2) } } });
          await w.write('/twist', 'geometry_msgs/msg/TwistStamped', ns, { header: { ...h, frame_id: 'base' }, twist: { linear: { x: 1 + t, y: 0, z: 0 }, angular: { x: 0, y: 0, z: w0 } } });
        }
      },
    });
    const s = new McapSampler(new LogSchema(es), problem.ros!);
    s.push(base);
    s.end();
    const ss = samples(s.drain());
    expect(ss.map((x) => x.stamp)).toEqual([0n, 2_500_000n, 5_000_000n, 7_500_000n, 10_000_000n].map((d) => T0 + d));
    for (const x of ss) {
      const t = Number(x.stamp! - T0) / 1e9;
      [t, 2 * t, 1, 0, 0, Math.sin(w0 * t / 2), Math.cos(w0 * t / 2)].forEach((e, k) => close(x.q[k], e));
      [1 + t, 0, 0, 0, 0, w0].forEach((e, k) => close(x.v[k], e));
      expect(x.staleness!.get('base pose')).toBe(t < 0.01 ? t : 0);
    }
  });

  it('max_staleness skips a sample whose channel is too old, naming it; ticks before a channel\'s first message are skipped', async () => {
    const b = await bag({ joints: [0, 10, 20, 30, 40, 50, 60], acc: [10, 20, 30, 40, 50, 60], ft: [0, 10, 20] });
    const rows = sampleAll(b, { ...ROS, max_staleness: 0.015 });
    const e = errors(rows);
    expect(e.map((x) => x.where)).toEqual([1, 5, 6, 7].map((k) => `sample ${k} (t = 1700000000.0${k - 1}0000000 s)`));
    expect(e[0].message).toMatch(/^enc: no message at or before t \(the first is at 1700000000\.010000000 s\)/);
    expect(e[1].message).toMatch(/^ft: newest value is 0\.02 s old \(max_staleness 0\.015 s\)/);
    expect(samples(rows).map((s) => s.line)).toEqual([2, 3, 4]);
  });

  it('stale_sensors "leave_out": a stale sensor is left out of the sample (its staleness still reported); joints never are', async () => {
    const b = await bag({ joints: [0, 10, 20, 30, 40, 50, 60], acc: [10, 20, 30, 40, 50, 60], ft: [0, 10, 20] });
    const rows = sampleAll(b, { ...ROS, max_staleness: 0.015, stale_sensors: 'leave_out' });
    expect(errors(rows)).toEqual([]);
    const ss = samples(rows);
    expect(ss.map((s) => [...s.readings.keys()].sort().join(','))).toEqual(['ft,tq', 'enc,ft,tq', 'enc,ft,tq', 'enc,ft,tq', 'enc,tq', 'enc,tq', 'enc,tq']);
    expect(ss[4].staleness!.get('ft')).toBe(0.02);
    expect(ss[0].staleness!.has('enc')).toBe(false);
    // the joints' channel is never left out
    const late = await bag({ joints: [10, 20], acc: [0, 10, 20], ft: [0, 10, 20] });
    const e = errors(sampleAll(late, { ...ROS, clock: { rate: 100 }, stale_sensors: 'leave_out' }));
    expect(e[0].message).toMatch(/^joints \/joint_states: no message at or before t/);
  });

  it('truth topics give each sample the true values stamped exactly at its time, and are no input (no staleness)', async () => {
    const b = await bag({
      joints: [0, 10, 20], acc: [0, 10, 20], ft: [0, 10, 20],
      extra: async (w) => {
        for (const ms of [0, 15, 20]) {
          const ns = T0 + BigInt(ms) * 1_000_000n;
          await w.write('/truth', 'sensor_msgs/msg/JointState', ns, { header: { stamp: rosTime(ns), frame_id: '' }, name: ['joint2', 'joint1'], position: [], velocity: [], effort: [ms, -ms] });
        }
      },
    });
    const ss = samples(sampleAll(b, { ...ROS, truth: { joint_torques: '/truth' } }));
    expect(ss.map((s) => s.truth)).toEqual([{ tau: { joint2: 0, joint1: -0 } }, undefined, { tau: { joint2: 20, joint1: -20 } }]);
    expect([...ss[0].staleness!.keys()]).toEqual(['joints /joint_states', 'enc', 'ft', 'tq']);
  });

  it('reads recordings of other ROS 2 releases: schema names without "/msg/", definitions with comments and defaults', async () => {
    const humble = `# This is a message that holds data to describe the state of a set of torque controlled joints.\nstd_msgs/Header header\n\nstring[] name\nfloat64[] position # rad or m\nfloat64[] velocity\nfloat64[] effort\n================================================================================\nMSG: std_msgs/Header\n# Standard metadata\nbuiltin_interfaces/Time stamp\nstring frame_id\n================================================================================\nMSG: builtin_interfaces/Time\n# seconds\nint32 sec\n# nanoseconds\nuint32 nanosec\n`;
    const out = new MemoryWritable();
    const w = new RosMcapWriter(out);
    await w.start();
    const js = await w.channel('/joint_states', 'sensor_msgs/msg/JointState', { schemaName: 'sensor_msgs/JointState', definition: humble });
    const ac = await w.channel('/acc', 'sensor_msgs/msg/JointState');
    const ft = await w.channel('/ft', 'geometry_msgs/msg/WrenchStamped', { schemaName: 'geometry_msgs/WrenchStamped' });
    for (const ms of [0, 10]) {
      const ns = T0 + BigInt(ms) * 1_000_000n, h = { stamp: rosTime(ns), frame_id: 'ft_frame' };
      await w.writeRaw(js.id, ns, js.writer.writeMessage({ header: h, name: ['joint1', 'joint2'], position: [1, 2], velocity: [3, 4], effort: [5, 6] }));
      await w.writeRaw(ac.id, ns, ac.writer.writeMessage({ header: h, name: ['joint1', 'joint2'], position: [], velocity: [7, 8], effort: [] }));
      await w.writeRaw(ft.id, ns, ft.writer.writeMessage({ header: h, wrench: { torque: { x: 1, y: 2, z: 3 }, force: { x: 4, y: 5, z: 6 } } }));
    }
    await w.end();
    const ss = samples(sampleAll(out.bytes(), ROS));
    expect(ss.length).toBe(2);
    expect(Array.from(ss[1].q)).toEqual([1, 2]);
    expect(Array.from(ss[1].readings.get('tq')!)).toEqual([5]);
    expect(Array.from(ss[1].readings.get('ft')!)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('reports bad messages with topic, log time and reason, skips them, and never gives a value that is not finite', async () => {
    const b = await bag({
      joints: [0, 10, 20, 30], acc: [0, 10, 20, 30], ft: [0, 10, 20, 30],
      extra: async (w) => {
        const at = (ms: number) => T0 + BigInt(ms) * 1_000_000n;
        const h = (ms: number, frame = 'ft_frame') => ({ stamp: rosTime(at(ms)), frame_id: frame });
        // written after the good ones, with later stamps
        await w.write('/ft', 'geometry_msgs/msg/WrenchStamped', at(40), { header: h(40), wrench: { torque: { x: NaN, y: 0, z: 0 }, force: { x: 0, y: 0, z: 0 } } });
        await w.write('/ft', 'geometry_msgs/msg/WrenchStamped', at(41), { header: h(41, 'other_frame'), wrench: { torque: { x: 0, y: 0, z: 0 }, force: { x: 0, y: 0, z: 0 } } });
        await w.write('/joint_states', 'sensor_msgs/msg/JointState', at(40), { header: h(40, ''), name: ['joint1', 'joint2'], position: [1], velocity: [1, 1], effort: [1, 1] });
        const c = await w.channel('/acc', 'sensor_msgs/msg/JointState');
        await w.writeRaw(c.id, at(40), new Uint8Array([0, 1, 0, 0, 7]));
      },
    });
    const rows = sampleAll(b, ROS);
    const e = errors(rows);
    const lt = (ms: number) => `log time ${nsText(T0 + BigInt(ms) * 1_000_000n)} s`;
    expect(e.map((x) => [x.where, x.message.replace(/\(.*\)/, '(…)')])).toEqual([
      [`topic "/ft", ${lt(40)}`, 'ft: wrench.torque.x is NaN'],
      [`topic "/ft", ${lt(41)}`, 'frame id "other_frame" is mapped to no sensor of this topic (…)'],
      [`topic "/joint_states", ${lt(40)}`, 'joints /joint_states: JointState.position has 1 values for 2 names'],
      [`topic "/acc", ${lt(40)}`, 'cannot be decoded (…)'],
    ]);
    const ss = samples(rows);
    expect(ss.map((s) => s.line)).toEqual([1, 2, 3, 4]);
    for (const s of ss) for (const x of [...s.q, ...s.v, ...[...s.readings.values()].flatMap((r) => [...r])]) expect(Number.isFinite(x)).toBe(true);
  });

  it('refuses, before any sample, a mapping that does not fit the problem or a topic whose type cannot carry what it is mapped to', async () => {
    const { schema } = system(ROS);
    expect(() => new McapSampler(schema, system({ ...ROS, sensors: { ...ROS.sensors, nope: '/x' } }).mapping)).toThrow(/maps "nope", which is not a sensor of the problem/);
    const { tq: _tq, ...noTq } = ROS.sensors;
    expect(() => new McapSampler(schema, system({ ...ROS, sensors: noTq }).mapping)).toThrow(/sensor "tq" has no topic/);
    expect(() => new McapSampler(schema, system({ ...ROS, sensors: { ...ROS.sensors, enc: '/acc' } }).mapping)).toThrow(/field" must name the JointState field/);
    // /ft carrying an Imu
    const out = new MemoryWritable();
    const w = new RosMcapWriter(out);
    await w.start();
    await w.write('/ft', 'sensor_msgs/msg/Imu', T0, { header: { stamp: rosTime(T0), frame_id: 'ft_frame' } });
    await w.end();
    const s = new McapSampler(schema, system(ROS).mapping);
    expect(() => s.push(out.bytes())).toThrow(McapLogError);
    expect(() => new McapSampler(schema, system(ROS).mapping).push(out.bytes())).toThrow(/topic "\/ft" carries sensor_msgs\/msg\/Imu, which cannot give sensor "ft" \(force_torque\): expected geometry_msgs\/msg\/WrenchStamped/);
    // a mapped topic missing from the recording
    const only = await bag({ joints: [0], acc: [0] });
    const s2 = new McapSampler(schema, system(ROS).mapping);
    s2.push(only);
    expect(() => s2.end()).toThrow(/topic "\/ft" \(ft\) is not in the recording/);
  });

  it('a truncated recording keeps the samples before the cut and says where the recording ends', async () => {
    const b = await bag({ joints: [0, 10, 20, 30, 40], acc: [0, 10, 20, 30, 40], ft: [0, 10, 20, 30, 40] });
    const cut = b.subarray(0, Math.floor(b.length * 0.8));
    const rows = sampleAll(cut, ROS, 1 << 20);
    const e = errors(rows);
    expect(e.length).toBe(1);
    expect(e[0].where).toBe('the recording');
    expect(e[0].message).toMatch(/ends early .*the samples before this point are kept/);
    expect(samples(rows).length).toBeGreaterThan(0);
  });

  it('a rate clock refuses stamps from different clocks (one sensor stamped from zero, the others from the epoch) instead of filling memory', async () => {
    const { schema, mapping } = system({ ...ROS, clock: { rate: 100 } });
    const out = new MemoryWritable();
    const w = new RosMcapWriter(out);
    await w.start();
    await w.write('/ft', 'geometry_msgs/msg/WrenchStamped', T0, { header: { stamp: { sec: 0, nanosec: 0 }, frame_id: 'ft_frame' }, wrench: { torque: { x: 0, y: 0, z: 0 }, force: { x: 0, y: 0, z: 0 } } });
    await w.write('/joint_states', 'sensor_msgs/msg/JointState', T0, { header: { stamp: rosTime(T0), frame_id: '' }, name: ['joint1', 'joint2'], position: [0, 0], velocity: [0, 0], effort: [0, 0] });
    await w.end();
    expect(() => new McapSampler(schema, mapping).push(out.bytes())).toThrow(/topic "\/joint_states": a stamp of 1700000000\.000000000 s lies more than a million sample periods after the previous ones .*"log_time"/);
  });

  it('chunks checked with a given CRC-32 (Node\'s zlib.crc32, as the command line does): the rows of the MCAP reader\'s own check, a corrupted chunk refused at the same point with the same message', async () => {
    // the byte offset of the records of the k-th chunk (records: opcode, uint64 length, content; a chunk's
    // content: start and end times, uncompressed size, CRC, compression string, then its records' length and bytes)
    const chunkRecords = (b: Uint8Array, k: number): number => {
      const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
      for (let pos = 8, seen = 0; pos + 9 <= b.length - 8;) {
        const op = b[pos], len = Number(dv.getBigUint64(pos + 1, true));
        if (op === 0x06 && ++seen === k) return pos + 9 + 28 + 4 + dv.getUint32(pos + 9 + 28, true) + 8;
        pos += 9 + len;
      }
      return -1;
    };
    const plan = { joints: Array.from({ length: 40 }, (_, k) => 5 * k), acc: Array.from({ length: 40 }, (_, k) => 5 * k + 1), ft: Array.from({ length: 40 }, (_, k) => 5 * k + 2) };
    // uncompressed chunks (checked when the chunk comes), and chunks marked compressed (checked after the decompressor)
    const plain = await bag(plan);
    const enc = new RosMcapWriter(new MemoryWritable());
    await enc.start();
    const out = new MemoryWritable();
    const w = new McapWriter({ writable: out, chunkSize: 1024, compressChunk: (data) => ({ compression: 'zstd', compressedData: data }) });
    await w.start({ profile: 'ros2', library: 'test' });
    const channels = new Map<string, { id: number; write: (m: unknown) => Uint8Array }>();
    const put = async (topic: string, type: 'sensor_msgs/msg/JointState' | 'geometry_msgs/msg/WrenchStamped', ms: number, m: unknown) => {
      let c = channels.get(topic);
      if (!c) {
        const sid = await w.registerSchema({ name: type, encoding: 'ros2msg', data: new TextEncoder().encode(MSG_DEFINITIONS[type]) });
        const { writer } = await enc.channel(topic, type);
        c = { id: await w.registerChannel({ topic, schemaId: sid, messageEncoding: 'cdr', metadata: new Map() }), write: (x) => writer.writeMessage(x) };
        channels.set(topic, c);
      }
      const ns = T0 + BigInt(ms) * 1_000_000n;
      await w.addMessage({ channelId: c.id, sequence: 0, logTime: ns, publishTime: ns, data: c.write(m) });
    };
    for (let k = 0; k < 40; k++) {
      const ms = 5 * k, t = ms / 1000, stamp = (d: number) => rosTime(T0 + BigInt(ms + d) * 1_000_000n), f = wrench((ms + 2) / 1000);
      await put('/joint_states', 'sensor_msgs/msg/JointState', ms, { header: { stamp: stamp(0), frame_id: '' }, name: ['joint1', 'joint2'], position: [q(1, t), q(2, t)], velocity: [v(1, t), v(2, t)], effort: [3 * t, 0] });
      await put('/acc', 'sensor_msgs/msg/JointState', ms + 1, { header: { stamp: stamp(1), frame_id: '' }, name: ['joint1', 'joint2'], position: [], velocity: [acc(1, t), acc(2, t)], effort: [] });
      await put('/ft', 'geometry_msgs/msg/WrenchStamped', ms + 2, { header: { stamp: stamp(2), frame_id: 'ft_frame' }, wrench: { torque: { x: f[0], y: f[1], z: f[2] }, force: { x: f[3], y: f[4], z: f[5] } } });
    }
    await w.end();
    const packed = out.bytes();
    const identity: McapTypes.DecompressHandlers = { zstd: (buffer) => buffer };
    for (const [b, dec] of [[plain, undefined], [packed, identity]] as const) {
      // a chunk near the end (every topic has appeared before it)
      let chunks = 0;
      while (chunkRecords(b, chunks + 1) > 0) chunks++;
      expect(chunks).toBeGreaterThanOrEqual(4);
      const bad = b.slice();
      bad[chunkRecords(bad, chunks - 1) + 30] ^= 0x10;
      for (const bytes of [b, bad]) {
        const own = sampleAll(bytes, ROS, 1000, dec), given = sampleAll(bytes, ROS, 1000, dec, zlibCrc32);
        expect(given).toEqual(own);
        expect(samples(given).length).toBeGreaterThan(0);
        if (bytes === bad) expect(errors(given).map((e) => e.message)).toContainEqual(expect.stringMatching(/^cannot be read further \(Incorrect chunk CRC \d+ \(expected \d+\) \[library=[^\]]+\]\): the samples before this point are kept$/));
        else expect(errors(given).filter((e) => e.where === 'the recording')).toEqual([]);
      }
    }
  });

  it('without a decompressor, stops at compressed chunks naming the compression', async () => {
    const out = new MemoryWritable();
    const w = new McapWriter({ writable: out, compressChunk: (data) => ({ compression: 'zstd', compressedData: data }) });
    await w.start({ profile: 'ros2', library: 'test' });
    const sid = await w.registerSchema({ name: 'sensor_msgs/msg/JointState', encoding: 'ros2msg', data: new TextEncoder().encode(MSG_DEFINITIONS['sensor_msgs/msg/JointState']) });
    const cid = await w.registerChannel({ topic: '/joint_states', schemaId: sid, messageEncoding: 'cdr', metadata: new Map() });
    await w.addMessage({ channelId: cid, sequence: 1, logTime: T0, publishTime: T0, data: new Uint8Array([0, 1, 0, 0]) });
    await w.end();
    const { schema, mapping } = system(ROS);
    expect(() => new McapSampler(schema, mapping).push(out.bytes())).toThrow(/compressed with zstd, which this reader was given no decompressor for/);
  });

  it('embeds complete ROS 2 definitions for what it writes', () => {
    for (const [name, text] of Object.entries(MSG_DEFINITIONS)) expect(text, name).toMatch(/MSG: builtin_interfaces\/Time\nint32 sec\nuint32 nanosec/);
  });
});
