/**
 * Plausibility from the robot file: the URDF's <limit> reaches the Model; PlausibilityCheck names
 * positions beyond the limits (with the margin), velocities beyond `velocity`, torques beyond
 * `effort`, readings beyond a sensor's range and runaway angles of joints without position limits,
 * in words with value, bound and unit, and builds nothing when every value is in bounds; the
 * session flags such rows (never skips them for it) and counts them; a sensor's "range" in a
 * problem file is validated; a log channel close to a sensor that got no readings is suggested.
 */
import { readFileSync } from 'node:fs';
import v8 from 'node:v8';
import vm from 'node:vm';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { PlausibilityCheck, type SensorRange } from '../../src/estimation/plausibility.ts';
import { parseProblem, ProblemError } from '../../src/estimation/problem.ts';
import { EstimationSession } from '../../src/estimation/session.ts';
import { buildEstimationSystem } from '../../src/estimation/setup.ts';
import { LogSchema, parseNdjsonLine, type Sample } from '../../src/io/log.ts';
import { closestName, editDistance } from '../../src/text/names.ts';
import { chain } from '../../src/model/generators.ts';
import { modelFromUrdf } from '../../src/model/urdf.ts';
import { loadProblem } from '../../src/node/problem-file.ts';
import { loadUrdf } from '../../src/node/urdf-file.ts';

const DEMO = 'data/problems/humanoid-demo.json';
const LOG = 'data/demo/humanoid.ndjson';

const inertial = '<inertial><mass value="1"/><inertia ixx="0.01" ixy="0" ixz="0" iyy="0.02" iyz="0" izz="0.03"/></inertial>';
/** a three-joint robot: a knee (revolute, limits as a KUKA-like data sheet), a wheel (continuous), a slider (prismatic) */
const URDF = `<?xml version="1.0"?>
<robot name="limits">
  <link name="base">${inertial}</link>
  <link name="shank">${inertial}</link>
  <link name="wheel_link">${inertial}</link>
  <link name="carriage">${inertial}</link>
  <joint name="l_knee" type="revolute"><parent link="base"/><child link="shank"/><axis xyz="0 1 0"/>
    <limit lower="0" upper="2.09" effort="176" velocity="10"/></joint>
  <joint name="wheel" type="continuous"><parent link="shank"/><child link="wheel_link"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" effort="5" velocity="20"/></joint>
  <joint name="slider" type="prismatic"><parent link="base"/><child link="carriage"/><axis xyz="1 0 0"/>
    <limit lower="0" upper="0.3" effort="100" velocity="0.5"/></joint>
</robot>
`;

describe('joint limits in the model', () => {
  it('the URDF\'s <limit> reaches Model.limits per joint; a continuous joint keeps no position limits; a floating base and generated models have none', () => {
    const m = modelFromUrdf(URDF);
    expect(m.limits.length).toBe(m.nb);
    expect(m.limits[m.joint('l_knee')]).toEqual({ lower: 0, upper: 2.09, effort: 176, velocity: 10 });
    expect(m.limits[m.joint('slider')]).toEqual({ lower: 0, upper: 0.3, effort: 100, velocity: 0.5 });
    // urdfdom ignores the position limits of a continuous joint
    expect(m.limits[m.joint('wheel')]).toEqual({ effort: 5, velocity: 20 });
    expect(m.withInertias(m.I).limits).toEqual(m.limits);
    const h = loadUrdf('models/humanoid.urdf', { floatingBase: true });
    expect(h.limits[0]).toBeUndefined();
    expect(h.limits[h.joint('l_knee')]).toEqual({ lower: -Math.PI, upper: Math.PI, effort: 1000, velocity: 100 });
    expect(chain(3).limits).toEqual([undefined, undefined, undefined]);
  });
});

describe('PlausibilityCheck', () => {
  const m = modelFromUrdf(URDF);
  const knee = m.joint('l_knee'), wheel = m.joint('wheel'), slider = m.joint('slider');
  const ft: SensorRange = { sensor: 'ft_left', min: -2000, max: 2000, components: ['tx', 'ty', 'tz', 'fx', 'fy', 'fz'], units: ['N·m', 'N·m', 'N·m', 'N', 'N', 'N'] };
  const check = new PlausibilityCheck(m, [ft, { sensor: 'load', min: 0, max: 500, components: ['fz'], units: ['N'] }]);
  const q = new Float64Array(m.nq), v = new Float64Array(m.nv);
  const state = (qk = 1, qw = 0, qs = 0.1, vk = 0, vw = 0, vs = 0) => {
    q[m.iq[knee]] = qk; q[m.iq[wheel]] = qw; q[m.iq[slider]] = qs;
    v[m.iv[knee]] = vk; v[m.iv[wheel]] = vw; v[m.iv[slider]] = vs;
  };
  const readings = new Map<string, Float64Array>([['ft_left', new Float64Array(6)], ['load', Float64Array.of(100)]]);
  const messages = () => check.sample(q, v, readings)?.map((f) => `${f.item}: ${f.message}`) ?? [];

  it('a sample within the limits, or beyond them by less than the margin (0.05 rad, 5 mm, 5%), is plausible: null', () => {
    state(1, 1e5, 0.1, -9, 19, 0.4);
    expect(check.sample(q, v, readings)).toBeNull();
    state(2.09 + 0.049, -1e5, -0.0049, 10.49, -20.9, 0.52);
    expect(check.sample(q, v, readings)).toBeNull();
    // a velocity the row does not carry (NaN, to be derived from the positions) is not implausible
    state(1, 0, 0.1, Number.NaN);
    expect(check.sample(q, v, readings)).toBeNull();
  });

  it('positions beyond a limit and its margin are named with value, bound and unit', () => {
    state(2.31);
    expect(messages()).toEqual(['q.l_knee: q of joint "l_knee" = 2.31 rad is beyond its upper limit 2.09 rad']);
    state(-0.06, 0, -0.006);
    expect(messages()).toEqual([
      'q.l_knee: q of joint "l_knee" = -0.06 rad is beyond its lower limit 0 rad',
      'q.slider: q of joint "slider" = -0.006 m is beyond its lower limit 0 m',
    ]);
    // a wider margin accepts them
    state(2.31, 0, -0.006);
    expect(new PlausibilityCheck(m, [], { angleMargin: 0.3, lengthMargin: 0.01 }).sample(q, v, readings)).toBeNull();
  });

  it('a continuous joint has no position limits, but an angle beyond ±1e6 rad is named (its precision is lost)', () => {
    state(1, 50);
    expect(messages()).toEqual([]);
    state(1, -2.5e6);
    expect(messages()).toEqual(['q.wheel: q of joint "wheel" = -2.5e+6 rad is beyond ±1e6 rad, where an angle loses its precision (the joint states no lower limit)']);
    // a generated chain (no limits at all): the same bound on every revolute joint
    const c = chain(2);
    const qc = Float64Array.of(0, 1.5e6);
    expect(new PlausibilityCheck(c).sample(qc, new Float64Array(2), new Map())?.map((f) => f.item)).toEqual([`q.${c.jointNames[1]}`]);
  });

  it('velocities beyond `velocity` (+5%) and torques beyond `effort` (+5%) are named', () => {
    state(1, 0, 0.1, -12, 0, 0.6);
    expect(messages()).toEqual([
      'v.l_knee: v of joint "l_knee" = -12 rad/s exceeds its velocity limit 10 rad/s',
      'v.slider: v of joint "slider" = 0.6 m/s exceeds its velocity limit 0.5 m/s',
    ]);
    // the torque of joint i is d[tauCol[i]]
    const tauCol = Int32Array.from({ length: m.nb }, (_x, i) => 10 + i);
    const d = new Float64Array(20);
    d[10 + knee] = 180; d[10 + wheel] = -5.2; d[10 + slider] = 104;
    expect(check.torques(d, tauCol)).toBeNull();
    d[10 + knee] = 412; d[10 + slider] = -120;
    expect(check.torques(d, tauCol)?.map((f) => `${f.item}: ${f.message}`)).toEqual([
      'tau.l_knee: torque of joint "l_knee" = 412 N·m exceeds its effort limit 176 N·m',
      'tau.slider: torque of joint "slider" = -120 N exceeds its effort limit 100 N',
    ]);
  });

  it('readings beyond a sensor\'s range are named per component, as ±r or [min, max]', () => {
    state();
    readings.get('ft_left')![5] = 1e308;
    readings.get('load')![0] = -3;
    expect(messages()).toEqual([
      'range.ft_left: reading fz of sensor "ft_left" = 1e+308 N is beyond its range ±2000 N',
      'range.load: reading fz of sensor "load" = -3 N is beyond its range [0, 500] N',
    ]);
    readings.get('ft_left')![5] = 0;
    readings.get('load')![0] = 100;
  });

  it('an in-bounds sample builds nothing (no heap growth per call)', () => {
    state(1, 3, 0.1, 1, 1, 0.1);
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    let sink = 0;
    const f = () => { if (check.sample(q, v, readings) !== null) sink++; };
    for (let k = 0; k < 20000; k++) f();
    // rounds until the median of the last five is below the threshold (the optimizing compiler may
    // take a while on a loaded machine), at most 30
    const growth: number[] = [];
    let med = Infinity;
    for (let r = 0; r < 30 && !(med < 4); r++) {
      gc();
      const h0 = process.memoryUsage().heapUsed;
      for (let k = 0; k < 20000; k++) f();
      growth.push((process.memoryUsage().heapUsed - h0) / 20000);
      if (growth.length >= 5) med = growth.slice(-5).sort((a, b) => a - b)[2];
    }
    expect(sink).toBe(0);
    expect(med).toBeLessThan(4);
  });
});

describe('a sensor\'s "range" in a problem file', () => {
  const base = { model: 'chain:2', base: 'fixed', sensors: [{ name: 'tq', type: 'joint_torque', joints: 'all' }] };
  const parse = (range: unknown) => parseProblem(JSON.stringify({ ...base, sensors: [{ ...base.sensors[0], range }] }), 'p.json');

  it('a positive number or [min, max] with min < max; anything else is refused, naming the sensor', () => {
    expect(parse(50).sensors[0].range).toBe(50);
    expect(parse([-10, 20]).sensors[0].range).toEqual([-10, 20]);
    expect(parseProblem(JSON.stringify(base)).sensors[0].range).toBeUndefined();
    expect(() => parse(0)).toThrow(ProblemError);
    expect(() => parse(-5)).toThrow('p.json: sensor "tq": "range" must be a positive number (the largest |reading| of each component) or [min, max], got -5');
    expect(() => parse([20, 10])).toThrow('p.json: sensor "tq": "range" [20, 10] must have min < max');
    expect(() => parse([1, 2, 3])).toThrow(/sensor "tq": "range" must be a positive number .* or \[min, max\], got a list of 3/);
    expect(() => parse('big')).toThrow(/sensor "tq": "range" must be/);
  });

  it('the schema takes the same forms', () => {
    const validate = new Ajv2020({ strict: false }).compile(JSON.parse(readFileSync('schemas/problem.schema.json', 'utf8')));
    const doc = (range: unknown) => ({ ...base, sensors: [{ ...base.sensors[0], range }] });
    expect(validate(doc(50))).toBe(true);
    expect(validate(doc([-10, 20]))).toBe(true);
    expect(validate(doc(-1))).toBe(false);
    expect(validate(doc('big'))).toBe(false);
  });
});

describe('EstimationSession: implausible rows are estimated and flagged', () => {
  const { problem, model } = loadProblem(DEMO);
  const withRange = { ...problem, sensors: problem.sensors.map((s) => (s.name === 'ft_left' ? { ...s, range: 2000 } : s)) };
  const es = buildEstimationSystem(model, withRange);
  const schema = new LogSchema(es);
  const lines = readFileSync(LOG, 'utf8').trim().split('\n');
  const row = (k: number, edit: (o: Record<string, any>) => void = () => {}): Sample => {
    const o = JSON.parse(lines[k]);
    edit(o);
    return parseNdjsonLine(schema, JSON.stringify(o), k + 1) as Sample;
  };

  it('the demo log is plausible throughout: no row flagged', () => {
    const session = new EstimationSession(es, { condition: false });
    for (let k = 0; k < lines.length; k++) {
      const out = session.estimate(row(k));
      expect(out.ok).toBe(true);
      if (out.ok) expect(out.record.implausible).toBeUndefined();
    }
    expect(session.stats.implausible.size).toBe(0);
  });

  it('q.l_knee beyond its limit and a reading beyond the range: the row is estimated, its record names them, the stats count them', () => {
    const session = new EstimationSession(es, { condition: false });
    const out = session.estimate(row(3, (o) => { o.q.l_knee = 4; o.sensors.ft_left[5] = 2500; }));
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    expect(out.record.implausible?.slice(0, 2)).toEqual([
      'q of joint "l_knee" = 4 rad is beyond its upper limit 3.142 rad',
      'reading fz of sensor "ft_left" = 2500 N is beyond its range ±2000 N',
    ]);
    expect(session.stats.implausible.get('q.l_knee')).toBe(1);
    expect(session.stats.implausible.get('range.ft_left')).toBe(1);
    expect(session.stats.implausibleFirst.get('q.l_knee')).toEqual({ line: 4, message: 'q of joint "l_knee" = 4 rad is beyond its upper limit 3.142 rad' });
    // NDJSON: the field, written part by part as JSON.stringify writes the object; CSV: one text column
    const json = session.toJson(out.record);
    expect(json.implausible).toEqual(out.record.implausible);
    expect(session.toJsonText(out.record)).toBe(JSON.stringify(json));
    const quote = (x: string) => (/[",\n]/.test(x) ? `"${x.replace(/"/g, '""')}"` : x);
    expect(session.csvLine(out.record)).toBe(session.cells(out.record).map(quote).join(','));
    expect(session.cells(out.record)).toEqual(session.cellsByName(out.record));
    expect(session.cells(out.record)[session.columns().indexOf('implausible')]).toBe(out.record.implausible!.join('; '));
    // a plausible row: no field, an empty cell
    const ok = session.estimate(row(4));
    expect(ok.ok && ok.record.implausible).toBe(undefined);
    if (ok.ok) expect(session.cells(ok.record)[session.columns().indexOf('implausible')]).toBe('');
    expect(session.stats.implausible.get('q.l_knee')).toBe(1);
  });

  it('estimated torques beyond their effort are named (tau.<joint>)', () => {
    const session = new EstimationSession(es, { condition: false });
    // a joint acceleration reading of 3000 rad/s² at the hip asks for more than 1000 N·m
    const out = session.estimate(row(5, (o) => { o.sensors.encoders[schema.sensors.get('encoders')!.indexOf('r_hip_pitch')] = 3000; }));
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    const tau = out.record.estimate.tau.r_hip_pitch as number;
    expect(Math.abs(tau)).toBeGreaterThan(1050);
    expect(out.record.implausible).toContain(`torque of joint "r_hip_pitch" = ${Number(tau.toPrecision(4))} N·m exceeds its effort limit 1000 N·m`);
    expect(session.stats.implausible.get('tau.r_hip_pitch')).toBe(1);
  });

  it('a reading of 1e308 on an F/T sensor with a range: flagged in the reason when its estimate overflows', () => {
    const session = new EstimationSession(es, { condition: false });
    const out = session.estimate(row(6, (o) => { o.sensors.ft_left[5] = 1e308; }));
    expect(out.ok).toBe(false);
    if (!out.ok) expect(out.message).toMatch(/; implausible: reading fz of sensor "ft_left" = 1e\+308 N is beyond its range ±2000 N$/);
    expect(session.stats.implausible.get('range.ft_left')).toBe(1);
  });

  it('a sensor that got no readings while the log has a channel of a close name: did you mean', () => {
    const session = new EstimationSession(es, { condition: false });
    for (let k = 0; k < 3; k++) {
      session.estimate(row(k, (o) => { o.sensors.wrist_FT = o.sensors.ft_left; delete o.sensors.ft_left; o.sensors.other = [1]; }));
    }
    // no channel close enough to "ft_left": no hint
    expect(session.sensorHints()).toEqual([]);
    const typo = new EstimationSession(es, { condition: false });
    for (let k = 0; k < 3; k++) typo.estimate(row(k, (o) => { o.sensors.FT_left = o.sensors.ft_left; delete o.sensors.ft_left; }));
    expect(typo.sensorHints()).toEqual(['sensor "ft_left" got no readings; the log\'s channel "FT_left" is ignored — did you mean "ft_left"?']);
    // once the sensor has a reading, no hint
    typo.estimate(row(4));
    expect(typo.sensorHints()).toEqual([]);
  });
});

describe('closest names', () => {
  it('edit distance (Levenshtein), and a slip of the keyboard: other case, or one edit in four characters', () => {
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('wrist_ft', 'wrist_ft')).toBe(0);
    expect(closestName('wrist_ft', ['imu', 'wrist_FT', 'ft_left'])).toBe('wrist_FT');
    expect(closestName('ft_right', ['ft_rigth', 'ft_left'])).toBe('ft_rigth');
    expect(closestName('ft_left', ['ft_right', 'imu_acc'])).toBeUndefined();
    expect(closestName('imu', ['gyro'])).toBeUndefined();
  });
});
