/**
 * `sparsedyn estimate` on a log as a robot records it (positions, base orientation, IMU and F/T
 * readings; no velocities, no accelerations, no base linear velocity): every row estimated, the
 * joint torques those of RNEA (the motion is cubic in time, for which the fits are exact); the same
 * estimates from NDJSON and CSV, the same bytes with one job, two worker threads and standard input.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../package/dist.ts';
import { cubicHumanoidLog, humanoidAsLogged } from '../../scripts/robot-log.ts';
import { runCli as run } from './run.ts';

const dir = mkdtempSync(join(tmpdir(), 'sparsedyn-derive-cli-'));
const { file: problem, es } = humanoidAsLogged();
const N = 300;
const log = cubicHumanoidLog(es, N);
const joints = es.model.movingJoints().filter((j) => j.type !== 'floating').map((j) => j.name);
const ndjson = join(dir, 'robot.ndjson');
const csv = join(dir, 'robot.csv');

/** The same rows as CSV: t, q.<joint>, base.qx … qw, <sensor>.<component>, truth.tau.<joint>. */
function toCsv(): string {
  const comps: Record<string, string[]> = { imu_acc: ['ax', 'ay', 'az'], imu_gyro: ['wx', 'wy', 'wz'], ft_left: ['tx', 'ty', 'tz', 'fx', 'fy', 'fz'], ft_right: ['tx', 'ty', 'tz', 'fx', 'fy', 'fz'] };
  const header = ['t', ...joints.map((j) => `q.${j}`), 'base.qx', 'base.qy', 'base.qz', 'base.qw', ...Object.entries(comps).flatMap(([s, cs]) => cs.map((c) => `${s}.${c}`)), ...joints.map((j) => `truth.tau.${j}`)];
  const lines = log.rows.map((r) => {
    const row = r as { t: number; q: Record<string, number>; base: { quaternion: number[] }; sensors: Record<string, number[]>; truth: { tau: Record<string, number> } };
    return [row.t, ...joints.map((j) => row.q[j]), ...row.base.quaternion, ...Object.keys(comps).flatMap((s) => row.sensors[s]), ...joints.map((j) => row.truth.tau[j])].join(',');
  });
  return [header.join(','), ...lines].join('\n') + '\n';
}

const rowsOf = (text: string) => text.trim().split('\n').map((l) => JSON.parse(l) as { line: number; tau: Record<string, number>; implausible?: string[] });

beforeAll(() => {
  writeFileSync(ndjson, log.rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  writeFileSync(csv, toCsv());
});

describe('sparsedyn estimate on a log as a robot records it', () => {
  it('estimates every row from positions and IMU readings: the torques of RNEA (1e-9), the derivation and the base\'s missing velocity named in the summary', async () => {
    const out = join(dir, 'est.ndjson');
    const r = await run(['estimate', problem, '--data', ndjson, '--out', out, '--jobs', '1', '--no-html']);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toMatch(/derived from the log over time: the velocities of 29 joints, the readings of sensor "encoders" \(joint accelerations\), the base's angular acceleration \(sensor "imu_gyro_rate", from gyroscope "imu_gyro"\); local polynomial fits of order 3 over 15 samples \(141 ms at the log's 99.0 Hz\)/);
    expect(r.err).toMatch(/the log carries no linear velocity of the base: estimated at zero linear velocity/);
    expect(r.err).toMatch(/derivatives: [\d.]+ µs per sample \(median\); 14 samples with a window not centred on them/);
    const est = rowsOf(readFileSync(out, 'utf8'));
    expect(est.length).toBe(N);
    let worst = 0;
    est.forEach((e, k) => {
      const truth = log.truths[k];
      const scale = Math.max(...joints.map((j) => Math.abs(truth.tau[es.model.iv[es.model.joint(j)]])));
      for (const j of joints) worst = Math.max(worst, Math.abs(e.tau[j] - truth.tau[es.model.iv[es.model.joint(j)]]) / scale);
    });
    expect(worst).toBeLessThan(1e-9);
    // the summary's accuracy against the rows' truth agrees
    expect(r.err).toMatch(/accuracy against the log's truth \(300 samples\)/);
  });

  it('a CSV log of the same rows gives the same estimates; its truth columns give the accuracy figures', async () => {
    const a = join(dir, 'a.ndjson'), b = join(dir, 'b.ndjson');
    const ra = await run(['estimate', problem, '--data', ndjson, '--out', a, '--jobs', '1', '--no-html', '-q']);
    const rb = await run(['estimate', problem, '--data', csv, '--out', b, '--format', 'ndjson', '--jobs', '1', '--no-html', '-q']);
    expect(rb.code, rb.err).toBe(0);
    const ea = rowsOf(readFileSync(a, 'utf8')), eb = rowsOf(readFileSync(b, 'utf8'));
    expect(eb.length).toBe(N);
    ea.forEach((e, k) => { for (const j of joints) expect(eb[k].tau[j]).toBe(e.tau[j]); });
    const acc = (s: string) => /joint torques \(29\): RMSE up to (\S+)/.exec(s)?.[1];
    expect(acc(rb.err)).toBeDefined();
    expect(Number(acc(rb.err))).toBeLessThan(1e-6);
    expect(acc(rb.err)).toBe(acc(ra.err));
  });

  it('the same bytes with one job, two worker threads and from standard input (the derivatives are taken in the log\'s order, in the reading thread)', async () => {
    ensureBuilt();
    const bin = resolve('bin/sparsedyn.mjs');
    const outs = [] as Buffer[];
    for (const jobs of ['1', '2']) {
      const o = join(dir, `jobs-${jobs}.csv`);
      const r = spawnSync(process.execPath, [bin, 'estimate', problem, '--data', csv, '--out', o, '--jobs', jobs, '--no-html'], { encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
      if (jobs === '2') expect(r.stderr).toMatch(/threads: 2 worker threads/);
      outs.push(readFileSync(o));
    }
    const s = spawnSync(process.execPath, [bin, 'estimate', problem, '--data', '-', '--out', '-', '--format', 'csv'], { input: readFileSync(csv), maxBuffer: 1 << 28 });
    expect(s.status, String(s.stderr)).toBe(0);
    outs.push(s.stdout);
    expect(Buffer.compare(outs[1], outs[0])).toBe(0);
    expect(Buffer.compare(outs[2], outs[0])).toBe(0);
  }, 120_000);

  it('a log of positions without time is refused before anything is written, saying what needs time', async () => {
    const untimed = join(dir, 'untimed.ndjson');
    writeFileSync(untimed, log.rows.slice(0, 20).map((r) => JSON.stringify({ ...r, t: undefined })).join('\n') + '\n');
    const out = join(dir, 'untimed-est.ndjson');
    const r = await run(['estimate', problem, '--data', untimed, '--out', out]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/untimed\.ndjson: the log has no time \("t"\): the velocities of 29 joints must be derived from time-stamped samples/);
    expect(() => readFileSync(out)).toThrow();
  });

  it('a gap splits the fits and time going back splits the log; a repeated time is skipped with its line; the summary names them', async () => {
    const rows = log.rows.slice(0, 120).map((r) => ({ ...r }));
    // a 0.2 s gap before row 41; row 81 repeats row 80's time
    for (let k = 40; k < 120; k++) (rows[k] as { t: number }).t += 0.2;
    (rows[80] as { t: number }).t = (rows[79] as { t: number }).t;
    const f = join(dir, 'gaps.ndjson');
    writeFileSync(f, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const out = join(dir, 'gaps-est.ndjson');
    const r = await run(['estimate', problem, '--data', f, '--out', out, '--jobs', '1', '--no-html']);
    expect(r.code).toBe(3);
    expect(r.err).toMatch(/gaps\.ndjson:81: skipped: time [\d.]+ s repeats that of line 80/);
    expect(r.err).toMatch(/gaps in time: 1 \(before line 41; the longest 2\d\d ms\): no fit spans them/);
    expect(rowsOf(readFileSync(out, 'utf8')).length).toBe(119);
  });
});
