/**
 * `sparsedyn synth` then `sparsedyn estimate`: the estimates give the synthetic log's truth back,
 * for a fixed-base arm (a tool contact, an F/T sensor, joint torque sensors) and the floating
 * humanoid (an IMU mounted rotated and offset on the pelvis, F/T sensors in both ankles):
 * - noise-free readings with every value written (NDJSON, CSV, MCAP): within 1e-9 relative, as the
 *   estimator is exact on consistent data;
 * - `--positions-only` (t, q, base orientation, IMU and F/T readings): within 1e-9 relative too.
 *   The paths are cubic in time, so the order-3 local fits give the velocities and accelerations
 *   exactly; what is left is rounding amplified by the fit's second-derivative weights (about
 *   1/h² ≈ 1e4 at 100 Hz on positions of order 1, so ~1e-12 on the accelerations).
 * Seeds reproduce the bytes; the noise has each sensor's stated variance; contacts by schedule; a
 * floating base with no contact is refused naming the time.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultRosSection, synthSamples } from '../../src/index.ts';
import { loadEstimationSystem } from '../../src/node/problem-file.ts';
import { runCli as run } from './run.ts';

const dir = mkdtempSync(join(tmpdir(), 'sparsedyn-synth-'));
const write = (name: string, o: unknown) => { const f = join(dir, name); writeFileSync(f, JSON.stringify(o)); return f; };
const imu = { link: 'pelvis', origin: { xyz: [0.05, -0.02, 0.1], rpy: [0.3, -0.2, 1.1] } };
const HUMANOID = {
  model: resolve('models/humanoid.urdf'), base: 'floating', contacts: ['l_sole', 'r_sole'],
  sensors: [
    { name: 'encoders', type: 'joint_acceleration', joints: 'actuated', variance: 1e-4 },
    { name: 'imu_acc', type: 'accelerometer', ...imu, variance: 1e-4 },
    { name: 'imu_gyro', type: 'gyroscope', ...imu },
    { name: 'ft_left', type: 'force_torque', joint: 'l_ankle_roll', variance: 0.01 },
    { name: 'ft_right', type: 'force_torque', joint: 'r_ankle_roll', variance: 0.01 },
  ],
};
const ARM = {
  model: resolve('models/chain6.urdf'), base: 'fixed', contacts: ['link6'],
  sensors: [
    { name: 'encoders', type: 'joint_acceleration', joints: 'actuated', variance: 1e-4 },
    { name: 'ft', type: 'force_torque', joint: 'joint6', variance: 0.01 },
    { name: 'torques', type: 'joint_torque', joints: ['joint1', 'joint2'], variance: 0.01 },
  ],
};
const problems = { arm: write('arm.json', ARM), humanoid: write('humanoid.json', HUMANOID) };

interface Row { t: number; truth: { tau: Record<string, number>; contact_wrenches: Record<string, { torque: number[]; force: number[] }> } }
const rowsOf = <T = Row>(text: string): T[] => text.trim().split('\n').map((l) => JSON.parse(l) as T);

async function synth(problem: string, out: string, ...args: string[]): Promise<string> {
  const r = await run(['synth', problem, '--out', out, ...args]);
  expect(r.code, r.err).toBe(0);
  return r.err;
}

/** Largest error of the estimates against the truth, relative to the largest |truth| of the sample (torques; the contact wrenches). */
async function worstError(problem: string, log: string, truth: Row[]): Promise<{ tau: number; contact: number; err: string }> {
  const out = join(dir, 'est.ndjson');
  const r = await run(['estimate', problem, '--data', log, '--out', out, '--format', 'ndjson', '--jobs', '1', '--no-html', '-q']);
  expect(r.code, r.err).toBe(0);
  const est = rowsOf<{ tau: Record<string, number>; contact_wrenches: Record<string, { torque: number[]; force: number[] }> }>(readFileSync(out, 'utf8'));
  expect(est.length).toBe(truth.length);
  let tau = 0, contact = 0;
  est.forEach((e, k) => {
    const t = truth[k].truth, joints = Object.keys(t.tau);
    const st = Math.max(...joints.map((j) => Math.abs(t.tau[j])));
    for (const j of joints) tau = Math.max(tau, Math.abs(e.tau[j] - t.tau[j]) / st);
    const wrenches = Object.values(t.contact_wrenches).flatMap((w) => [...w.torque, ...w.force]);
    const sc = Math.max(...wrenches.map(Math.abs));
    for (const [link, w] of Object.entries(t.contact_wrenches)) {
      const a = [...w.torque, ...w.force], b = [...e.contact_wrenches[link].torque, ...e.contact_wrenches[link].force];
      a.forEach((x, c) => { contact = Math.max(contact, Math.abs(b[c] - x) / sc); });
    }
  });
  return { tau, contact, err: r.err };
}

describe('sparsedyn synth, then estimate', () => {
  for (const [robot, problem] of Object.entries(problems)) {
    it(`${robot}: noise-free NDJSON and CSV give the truth back within 1e-9, with every value and with positions only`, async () => {
      const truthLog = join(dir, `${robot}.ndjson`);
      await synth(problem, truthLog, '--noise', '0');
      const truth = rowsOf(readFileSync(truthLog, 'utf8'));
      expect(truth.length).toBe(300);
      // the contacts carry the robot: the truth's wrenches are not zero
      expect(Math.max(...truth.map((r) => Math.abs(Object.values(r.truth.contact_wrenches)[0].force[2])))).toBeGreaterThan(1);
      for (const positionsOnly of [false, true]) {
        for (const format of ['ndjson', 'csv']) {
          const log = join(dir, `${robot}-${positionsOnly}.${format}`);
          await synth(problem, log, '--noise', '0', ...(positionsOnly ? ['--positions-only'] : []));
          const text = readFileSync(log, 'utf8');
          if (positionsOnly && format === 'ndjson') {
            const row = rowsOf<Record<string, unknown>>(text)[0];
            expect(Object.keys(row)).toEqual(['t', 'q', 'base', 'sensors', 'truth'].filter((k) => k !== 'base' || robot === 'humanoid'));
            expect(Object.keys(row.sensors as object)).not.toContain('encoders');
            if (robot === 'humanoid') expect(Object.keys(row.base as object)).toEqual(['quaternion']);
          }
          if (format === 'csv') {
            const header = text.slice(0, text.indexOf('\n')).split(',');
            expect(header.some((h) => h.startsWith('v.'))).toBe(!positionsOnly);
            expect(header.filter((h) => h.startsWith('truth.'))).toEqual([
              ...Object.keys(truth[0].truth.tau).map((j) => `truth.tau.${j}`),
              ...Object.keys(truth[0].truth.contact_wrenches).flatMap((l) => ['tx', 'ty', 'tz', 'fx', 'fy', 'fz'].map((c) => `truth.contact.${l}.${c}`)),
            ]);
          }
          const e = await worstError(problem, log, truth);
          expect(e.tau, `${format}${positionsOnly ? ' positions only' : ''}`).toBeLessThan(1e-9);
          expect(e.contact, `${format}${positionsOnly ? ' positions only' : ''}`).toBeLessThan(1e-9);
          if (positionsOnly) expect(e.err).toMatch(/derived from the log over time: the velocities of \d+ joints, the readings of sensor "encoders"/);
        }
      }
    }, 120_000);
  }

  it('MCAP: the default topics, printed as the "ros" section to add, give the truth back (every value and positions only)', async () => {
    const truth = rowsOf(readFileSync(join(dir, 'humanoid.ndjson'), 'utf8'));
    const { es } = loadEstimationSystem(problems.humanoid);
    for (const positionsOnly of [false, true]) {
      const flag = positionsOnly ? ['--positions-only'] : [];
      const log = join(dir, `humanoid-${positionsOnly}.mcap`);
      const err = await synth(problems.humanoid, log, '--noise', '0', ...flag);
      const ros = JSON.parse(/"ros": (\{.*\})/.exec(err)![1]);
      const section = defaultRosSection(es, { positionsOnly });
      expect(Object.keys(ros.sensors)).toEqual(Object.keys(section.sensors as object));
      expect(ros.base).toEqual(section.base);
      // positions only: the base's orientation as the IMU gives it (its own frame's, rotated on the pelvis), no twist, no joint accelerations
      if (positionsOnly) expect(ros.base).toEqual({ orientation: '/imu_gyro' });
      const withRos = write(`humanoid-ros-${positionsOnly}.json`, { ...HUMANOID, ros });
      const e = await worstError(withRos, log, truth);
      expect(e.tau).toBeLessThan(1e-9);
      expect(e.contact).toBeLessThan(1e-9);
    }
  }, 60_000);

  it('the same seed writes the same bytes (NDJSON, CSV, MCAP); another seed other bytes', async () => {
    for (const ext of ['ndjson', 'csv', 'mcap']) {
      const a = join(dir, `a.${ext}`), b = join(dir, `b.${ext}`), c = join(dir, `c.${ext}`);
      await synth(problems.humanoid, a, '--seed', '7', '--samples', '50');
      await synth(problems.humanoid, b, '--seed', '7', '--samples', '50');
      await synth(problems.humanoid, c, '--seed', '8', '--samples', '50');
      expect(readFileSync(a).equals(readFileSync(b)), ext).toBe(true);
      expect(readFileSync(a).equals(readFileSync(c)), ext).toBe(false);
    }
    // and to standard output, rounded
    const r = await run(['synth', problems.arm, '--samples', '3', '--digits', '6', '-q']);
    expect(r.code, r.err).toBe(0);
    expect(r.out.trim().split('\n')).toHaveLength(3);
    const numbers: number[] = [];
    JSON.parse(`[${r.out.trim().split('\n').join(',')}]`, (_k, x) => { if (typeof x === 'number') numbers.push(x); return x; });
    expect(numbers.length).toBeGreaterThan(100);
    expect(numbers.filter((x) => Number(x.toPrecision(6)) !== x)).toEqual([]);
  }, 60_000);

  it('the noise has each sensor\'s stated variance (the same motion with and without it, from the library)', () => {
    const { es } = loadEstimationSystem(problems.humanoid);
    const ideal = synthSamples(es, { noise: 0, samples: 400 }), noisy = synthSamples(es, { samples: 400 });
    for (const [sensor, variance] of [['ft_left', 0.01], ['imu_acc', 1e-4], ['encoders', 1e-4]] as const) {
      let s2 = 0, n = 0;
      ideal.forEach((x, k) => { const a = x.readings.get(sensor)!, b = noisy[k].readings.get(sensor)!; a.forEach((y, c) => { s2 += (b[c] - y) ** 2; n++; }); });
      expect(Math.sqrt(s2 / n) / Math.sqrt(variance), sensor).toBeGreaterThan(0.95);
      expect(Math.sqrt(s2 / n) / Math.sqrt(variance), sensor).toBeLessThan(1.05);
    }
    // a gyroscope's readings are kinematics: exact
    expect(noisy[5].readings.get('imu_gyro')).toEqual(ideal[5].readings.get('imu_gyro'));
    // every joint inside its limits, the whole log through
    for (const s of noisy) for (const j of es.model.movingJoints()) {
      const lim = es.model.limits[j.body];
      if (lim?.lower !== undefined) expect(s.q[j.iq]).toBeGreaterThanOrEqual(lim.lower);
      if (lim?.upper !== undefined) expect(s.q[j.iq]).toBeLessThanOrEqual(lim.upper);
    }
  });

  it('contacts by schedule: single support carries the robot alone, the rows name their contacts; contact detection finds the same modes; no contact under a floating base is refused', async () => {
    const schedule = '0:l_sole+r_sole,0.4:l_sole,0.8:l_sole+r_sole,1.2:r_sole,1.6:l_sole+r_sole';
    const log = join(dir, 'walk.ndjson');
    await synth(problems.humanoid, log, '--noise', '0', '--schedule', schedule);
    const rows = rowsOf<Row & { contacts: string[]; truth: { contacts: string[] } }>(readFileSync(log, 'utf8'));
    expect(rows[50].contacts).toEqual(['l_sole']);
    expect(rows[50].truth.contacts).toEqual(['l_sole']);
    expect(rows[50].truth.contact_wrenches.r_sole).toEqual({ torque: [0, 0, 0], force: [0, 0, 0] });
    const e = await worstError(problems.humanoid, log, rows);
    expect(e.tau).toBeLessThan(1e-9);
    expect(e.contact).toBeLessThan(1e-9);
    // the shipped walking problem detects contacts from its ankle F/T sensors (60 N): the rows do not name them
    const walk = join(dir, 'walk-detected.ndjson');
    await synth('data/problems/humanoid-walk.json', walk, '--noise', '0', '--schedule', schedule);
    const w = rowsOf<Row & { contacts?: string[]; truth: { contacts: string[] } }>(readFileSync(walk, 'utf8'));
    expect(w[50].contacts).toBeUndefined();
    const d = await worstError('data/problems/humanoid-walk.json', walk, w);
    expect(d.err).toMatch(/samples by contact mode: l_sole\+r_sole 220, l_sole 40, r_sole 40/);
    expect(d.tau).toBeLessThan(1e-9);
    const flight = await run(['synth', problems.humanoid, '--out', join(dir, 'flight.ndjson'), '--schedule', '0:l_sole,0.5:none']);
    expect(flight.code).toBe(2);
    expect(flight.err).toMatch(/at t = 0\.5 s the robot has no active contact and cannot hold the motion: unactuated joint "root_joint"/);
    const bad = await run(['synth', problems.humanoid, '--schedule', '0:l_foot']);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/"l_foot" is not a contact of the problem \(l_sole, r_sole\)/);
  }, 60_000);
});
