/** `sparsedyn analyze` and `sparsedyn estimate` end to end through main(). */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli as run } from './run.ts';


const dir = mkdtempSync(join(tmpdir(), 'sparsedyn-est-'));
const demoLines = readFileSync('data/demo/humanoid.ndjson', 'utf8').trim().split('\n').slice(0, 12);

describe('sparsedyn analyze', () => {
  it('--json has the documented fields', async () => {
    const r = await run(['analyze', 'data/problems/humanoid-ft.json', '--json', '--random', '2', '--special', '1']);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    for (const k of ['verdict', 'unknowns', 'equations', 'structural_rank', 'numerical_rank', 'singular_configurations', 'unobservable', 'redundant_sensors']) expect(j).toHaveProperty(k);
    expect(j.verdict).toBe('well_posed');
  });

  it('exits 1 on an ill-posed layout and names the unobservable directions', async () => {
    const f = join(dir, 'ill.json');
    writeFileSync(f, JSON.stringify({ model: `${process.cwd()}/models/humanoid.urdf`, base: 'floating', contacts: ['l_sole', 'r_sole'], sensors: [{ name: 'qdd', type: 'joint_acceleration', joints: 'all' }] }));
    const r = await run(['analyze', f]);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/verdict\s+ill_posed/);
    expect(r.out).toMatch(/unobservable directions:\n\s+w\[l_sole\]/);
  });
});

describe('sparsedyn estimate', () => {
  it('estimates a clean log, writes NDJSON and a report, and prints the accuracy', async () => {
    const log = join(dir, 'clean.ndjson');
    writeFileSync(log, demoLines.join('\n') + '\n');
    const out = join(dir, 'est.ndjson');
    const r = await run(['estimate', 'data/problems/humanoid-demo.json', '--data', log, '--out', out, '--covariance']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/samples estimated 12, rows skipped 0/);
    expect(r.out).toMatch(/accuracy against the log's truth/);
    const rows = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(rows).toHaveLength(12);
    expect(rows[0]).toHaveProperty('tau.l_knee');
    expect(rows[0]).toHaveProperty('contact_wrenches.l_sole.force');
    expect(rows[0]).toHaveProperty('joint_wrenches.l_ankle_roll.torque');
    expect(rows[0].tau_std.l_knee).toBeGreaterThan(0);
    expect(readFileSync(join(dir, 'est.report.md'), 'utf8')).toMatch(/samples estimated: 12/);
  });

  it('reports malformed rows with their line numbers, skips them, keeps the valid ones, and exits 3', async () => {
    const rows = demoLines.slice(0, 6).map((l) => JSON.parse(l));
    delete rows[1].q.l_knee;                          // line 2: missing joint
    rows[2].sensors.ft_left[3] = 'NaN';                  // line 3: non-numeric reading
    rows[3].sensors.ft_left = rows[3].sensors.ft_left.slice(0, 5); // line 4: wrong length
    rows[4].sensors.laser = [1];                         // line 5: unknown sensor
    const text = rows.map((o) => JSON.stringify(o)).join('\n') + '\n{not json\n';
    const log = join(dir, 'bad.ndjson');
    writeFileSync(log, text);
    const out = join(dir, 'bad-est.ndjson');
    const r = await run(['estimate', 'data/problems/humanoid-demo.json', '--data', log, '--out', out]);
    expect(r.code).toBe(3);
    expect(r.err).toMatch(/bad.ndjson:2: skipped: q of joint "l_knee" is missing/);
    expect(r.err).toMatch(/bad.ndjson:3: skipped: sensor "ft_left"\[3\] is "NaN"/);
    expect(r.err).toMatch(/bad.ndjson:4: skipped: sensor "ft_left" must be a list of 6 numbers \(got 5\)/);
    expect(r.err).toMatch(/bad.ndjson:5: skipped: unknown sensor "laser"/);
    expect(r.err).toMatch(/bad.ndjson:7: skipped: not valid JSON/);
    const est = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(est.map((e) => e.line)).toEqual([1, 6]);
    expect(r.out).toMatch(/samples estimated 2, rows skipped 5/);
  });

  it('reads CSV and writes CSV', async () => {
    // build a CSV from the first NDJSON rows
    const { LogSchema } = await import('../../src/io/log.ts');
    const { loadProblem } = await import('../../src/node/problem-file.ts');
    const { buildEstimationSystem } = await import('../../src/estimation/setup.ts');
    const { problem, model } = loadProblem('data/problems/humanoid-demo.json');
    const schema = new LogSchema(buildEstimationSystem(model, problem));
    const header = schema.csvHeader();
    const lines = [header.join(',')];
    for (const l of demoLines.slice(0, 4)) {
      const o = JSON.parse(l);
      const cell = (h: string): number => {
        if (h === 't') return o.t;
        const [kind, ...rest] = h.split('.');
        const name = rest.join('.');
        if (kind === 'q') return o.q[name];
        if (kind === 'v') return o.v[name];
        if (kind === 'base') {
          const k = ['px', 'py', 'pz', 'qx', 'qy', 'qz', 'qw', 'vx', 'vy', 'vz', 'wx', 'wy', 'wz'].indexOf(name);
          return k < 3 ? o.base.position[k] : k < 7 ? o.base.quaternion[k - 3] : k < 10 ? o.base.linear_velocity[k - 7] : o.sensors.imu_gyro[k - 10];
        }
        const comps = schema.sensors.get(kind)!;
        return o.sensors[kind][comps.indexOf(name)];
      };
      lines.push(header.map(cell).join(','));
    }
    const log = join(dir, 'log.csv');
    writeFileSync(log, lines.join('\n') + '\n');
    const out = join(dir, 'est.csv');
    const r = await run(['estimate', 'data/problems/humanoid-demo.json', '--data', log, '--out', out]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const rows = readFileSync(out, 'utf8').trim().split('\n');
    expect(rows).toHaveLength(5);
    expect(rows[0].split(',')).toContain('tau.l_knee');
    expect(rows[0].split(',')).toContain('contact.l_sole.fz');
  });

  it('refuses an ill-posed problem and prints the analysis', async () => {
    const f = join(dir, 'ill2.json');
    writeFileSync(f, JSON.stringify({ model: `${process.cwd()}/models/humanoid.urdf`, base: 'floating', contacts: ['l_sole', 'r_sole'], sensors: [{ name: 'qdd', type: 'joint_acceleration', joints: 'all' }] }));
    const r = await run(['estimate', f, '--data', join(dir, 'clean.ndjson'), '--out', join(dir, 'x.ndjson')]);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/ill posed; refusing to estimate/);
  });
});
