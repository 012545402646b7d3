/**
 * The real recordings of issue 27 (scripts/real-logs.ts): a KUKA LWR4+ arm with joint torque
 * sensors and an iCub standing on both feet, converted by examples/real-logs/ and estimated by
 * `sparsedyn estimate`, against what the robots measured. The tolerances are the targets
 * (measured data: the estimates cannot be exact). The recordings are read from the shared folder
 * beside the repository; without it the group is skipped with one line.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeShared } from '../shared.ts';
import { convert, estimate, fit, ICUB_DIR, ICUB_LOG, KUKA_DIR, KUKA_LARGE, KUKA_RUN, problemIn, relativeDifference, torqueFits, verticalForces } from '../../scripts/real-logs.ts';

describeShared('real recordings (issue 27): KUKA LWR4+ joint torques, iCub standing', () => {
  let dir = '';
  let kukaProblem = '';
  /** per run: the converted logs (full, positions only) and the fits with the recording's own derivatives */
  const runs = new Map<1 | 2, { full: string; positions: string; a: ReturnType<typeof torqueFits> }>();

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sparsedyn-real-logs-spec-'));
    kukaProblem = problemIn(dir, 'kuka', join(KUKA_DIR, 'kuka_lwr4.urdf'));
    for (const run of [1, 2] as const) {
      const full = join(dir, `kuka-${run}.csv`), positions = join(dir, `kuka-${run}-q.csv`), out = join(dir, `kuka-${run}-estimates.csv`);
      convert('kuka-to-log.ts', [KUKA_RUN(run), full]);
      convert('kuka-to-log.ts', [KUKA_RUN(run), positions, '--positions-only']);
      const r = await estimate([kukaProblem, '--data', full, '--out', out, '--jobs', '1', '--no-html', '--quiet'], false);
      expect(r.code, r.err).toBe(0);
      runs.set(run, { full, positions, a: torqueFits(out, full) });
    }
  });
  afterAll(() => { if (dir) rmSync(dir, { recursive: true, force: true }); });

  it('KUKA runs 1 and 2 with the recording\'s velocities and accelerations: every row, RMSE ≤ 1.75 N·m on lwr_0 … lwr_3, correlation ≥ 0.99 on lwr_1 … lwr_3', () => {
    for (const [run, { a }] of runs) {
      expect(a.estimated, `run ${run}`).toBe(a.rows);
      expect(a.rows, `run ${run}`).toBe(5027);
      for (const j of KUKA_LARGE) {
        const fit = a.joints.get(j)!;
        expect(fit.rmse, `run ${run} ${j}`).toBeLessThanOrEqual(1.75);
        expect(fit.rmse, `run ${run} ${j}`).toBeGreaterThan(0.5); // measured torques: never exact
        // lwr_0 turns about the vertical: no gravity torque, its <1 N·m spread is friction and offset
        if (j !== 'lwr_0_joint') expect(fit.corr, `run ${run} ${j}`).toBeGreaterThanOrEqual(0.99);
      }
    }
  });

  it('KUKA runs 1 and 2 from positions and time only: every row estimated, RMSE on lwr_0 … lwr_3 ≤ 1.1 × the RMSE with the recording\'s derivatives', async () => {
    for (const [run, { full, positions, a }] of runs) {
      const out = join(dir, `kuka-${run}-q-estimates.csv`);
      const r = await estimate([kukaProblem, '--data', positions, '--out', out, '--jobs', '1', '--no-html', '--quiet'], false);
      expect(r.code, r.err).toBe(0);
      const b = torqueFits(out, full);
      expect(b.estimated, `run ${run}`).toBe(b.rows);
      for (const j of KUKA_LARGE) expect(b.joints.get(j)!.rmse, `run ${run} ${j}: (b) ${b.joints.get(j)!.rmse} vs (a) ${a.joints.get(j)!.rmse}`).toBeLessThanOrEqual(1.1 * a.joints.get(j)!.rmse);
    }
  });

  it('iCub standing from positions + IMU (icub.json, the feet\'s forces unused): every row, the total vertical contact force within 5% of the logged lfoot_Fz + rfoot_Fz on average, each foot\'s correlated with its sensor; the URDF\'s weight 3% below the sum', async () => {
    const log = join(dir, 'icub.csv'), out = join(dir, 'icub-estimates.csv');
    convert('icub-to-log.ts', [ICUB_LOG, log, '--uniform-time']);
    const problem = problemIn(dir, 'icub', join(ICUB_DIR, 'model.urdf'));
    const r = await estimate([problem, '--data', log, '--out', out, '--jobs', '1', '--no-html', '--quiet'], false);
    expect([0, 3], r.err).toContain(r.code);
    const f = verticalForces(problem, log, out);
    expect(f.total.length).toBe(f.rows);
    const rel = relativeDifference(f.total, f.logged);
    expect(rel.meanAbs).toBeLessThanOrEqual(0.05);
    // the soles' soft constraints (centre of pressure near the origin) share the weight by the balance of moments: each foot follows its sensor
    for (const l of ['l_sole', 'r_sole']) expect(fit(f.feet.get(l)!.est, f.feet.get(l)!.logged).corr, l).toBeGreaterThanOrEqual(0.9);
    // the model's weight, m·g = 324.5 N, against the feet's 334.9 N on average
    expect(f.mass).toBeCloseTo(33.08, 2);
    const meanLogged = f.logged.reduce((s, x) => s + x, 0) / f.logged.length;
    expect(1 - (f.mass * f.g) / meanLogged).toBeCloseTo(0.031, 2);
  });
});
