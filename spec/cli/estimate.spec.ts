/**
 * `sparsedyn analyze` and `sparsedyn estimate` end to end through main(): the estimates against
 * the truth the logs carry (RNEA with known contact wrenches), the files a run may and may not
 * touch, streams, honest summaries, every sample checked, inputs as they come.
 */
import { existsSync, linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { demoCsv } from '../../scripts/demo-csv.ts';
import { describe, expect, it } from 'vitest';
import { loadEstimationSystem } from '../../src/node/problem-file.ts';
import { Rng } from '../../src/model/rng.ts';
import { runCli as run } from './run.ts';
import { slipperyProblem, syntheticRow } from './synthetic.ts';

const dir = mkdtempSync(join(tmpdir(), 'sparsedyn-est-'));
const DEMO = 'data/problems/humanoid-demo.json';
const demoLines = readFileSync('data/demo/humanoid.ndjson', 'utf8').trim().split('\n').slice(0, 12);
const file = (name: string, text: string): string => { const f = join(dir, name); writeFileSync(f, text); return f; };
const rowsOf = (text: string) => text.trim().split('\n').map((l) => JSON.parse(l));
const clean = file('clean.ndjson', demoLines.join('\n') + '\n');
/** no temporary file left beside the outputs */
const noTemps = (d: string) => expect(readdirSync(d).filter((n) => n.endsWith('.tmp'))).toEqual([]);


describe('sparsedyn analyze', () => {
  it('--json has the documented fields, and the model\'s warnings', async () => {
    const r = await run(['analyze', 'data/problems/humanoid-ft.json', '--json', '--random', '2', '--special', '1']);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    for (const k of ['verdict', 'unknowns', 'equations', 'structural_rank', 'numerical_rank', 'singular_configurations', 'unobservable', 'redundant_sensors', 'warnings']) expect(j).toHaveProperty(k);
    expect(j.verdict).toBe('well_posed');
    expect(j.warnings).toEqual([]);
  });

  it('exits 1 on an ill-posed layout and names the unobservable directions', async () => {
    const f = file('ill.json', JSON.stringify({ model: `${process.cwd()}/models/humanoid.urdf`, base: 'floating', contacts: ['l_sole', 'r_sole'], sensors: [{ name: 'qdd', type: 'joint_acceleration', joints: 'all' }] }));
    const r = await run(['analyze', f]);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/verdict\s+ill_posed/);
    expect(r.out).toMatch(/unobservable directions:\n\s+w\[l_sole\]/);
  });

  /** The demo problem without its F/T sensors, with `extra` fields (priors, soft constraints). */
  const demoWithout = (name: string, extra: object, ft = false): string => {
    const p = JSON.parse(readFileSync(DEMO, 'utf8'));
    delete p.ros; delete p.$schema;
    p.model = `${process.cwd()}/models/humanoid.urdf`;
    if (!ft) p.sensors = p.sensors.filter((s: { type: string }) => s.type !== 'force_torque');
    return file(name, JSON.stringify({ ...p, ...extra }));
  };
  const leftPrior = { priors: [{ on: 'contact:l_sole', mean: [0, 0, 0, 0, 0, 300], variance: 100 }] };

  it('with priors: the verdict of the data alone, that the priors make it estimable, and the directions only the priors determine (text)', async () => {
    const r = await run(['analyze', demoWithout('prior.json', leftPrior), '--random', '2', '--special', '1']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/verdict\s+well_posed with the priors \(the data alone: ill_posed\)/);
    expect(r.out).toMatch(/priors\s+contact:l_sole\n/);
    expect(r.out).toMatch(/data alone\s+ill_posed: numerical rank 604, structural rank 604 of 610 unknowns; deficient at every configuration tried/);
    expect(r.out).toMatch(/with the priors\s+estimable \(well_posed\); only the priors determine:\n(\s+w\[l_sole\]\.\w+ .*w\[r_sole\].*\n){6}/);
    expect(r.out).toMatch(/undetermined by the data alone \(\d+\): tau\[l_hip_yaw\]/);
  });

  it('with priors --json: priors, data_alone, estimable, prior_only as estimate names them in its summary', async () => {
    const f = demoWithout('prior-json.json', leftPrior);
    const j = JSON.parse((await run(['analyze', f, '--json', '--random', '2', '--special', '1'])).out);
    expect(j.verdict).toBe('well_posed');
    expect(j.priors).toEqual(['contact:l_sole']);
    expect(j.soft_constraints).toEqual([]);
    expect(j.estimable).toBe(true);
    expect(j.data_alone).toMatchObject({ verdict: 'ill_posed', numerical_rank: 604, structural_rank: 604 });
    expect(j.data_alone.singular_configurations).toHaveLength(4); // 2 random, the neutral pose, 1 special
    expect(j.prior_only).toHaveLength(6);
    expect(j.prior_only).toEqual(j.data_alone.unobservable);
    expect(j.prior_only_unknowns).toContain('tau[l_knee]');
    expect(j.prior_only_unknowns).not.toContain('tau[neck_yaw]');
    // the same directions as estimate's summary names for the layout
    const e = await run(['estimate', f, '--data', clean, '--out', '-', '--no-html']);
    expect(e.code).toBe(0);
    expect(e.err).toContain(`only the priors determine ${j.prior_only.slice(0, 4).join('; ')}; …`);
  });

  it('with priors that do not make it estimable, or that the data do not need; soft constraints listed as equations', async () => {
    const vague = await run(['analyze', demoWithout('prior-acc.json', { priors: [{ on: 'accelerations', mean: 0, variance: 100 }] }), '--random', '2', '--special', '1']);
    expect(vague.code).toBe(1);
    expect(vague.out).toMatch(/verdict\s+ill_posed with the priors \(the data alone: ill_posed\)/);
    expect(vague.out).toMatch(/with the priors\s+not estimable \(ill_posed\): the priors determine none of the directions/);
    const vj = JSON.parse((await run(['analyze', demoWithout('prior-acc2.json', { priors: [{ on: 'accelerations', mean: 0, variance: 100 }] }), '--json', '--random', '2', '--special', '1'])).out);
    expect(vj).toMatchObject({ estimable: false, prior_only: null, prior_only_unknowns: null });
    expect(vj.data_alone.unobservable).toHaveLength(6);
    const wp = await run(['analyze', demoWithout('prior-ft.json', { priors: [{ on: 'torques', mean: 0, variance: 1e4 }] }, true), '--json', '--random', '2', '--special', '1']);
    expect(JSON.parse(wp.out)).toMatchObject({ verdict: 'well_posed', estimable: true, prior_only: [], data_alone: { verdict: 'well_posed', unobservable: [] } });
    const soft = await run(['analyze', demoWithout('soft.json', { unactuated_variance: 1e-6 }, true), '--random', '2', '--special', '1']);
    expect(soft.out).toMatch(/verdict\s+well_posed\n/);
    expect(soft.out).toMatch(/soft constraints\s+unactuated\[root_joint\] \(variance 0\.000001\): equations of the data, as their exact forms/);
    expect(soft.out).not.toMatch(/data alone/);
    const sj = JSON.parse((await run(['analyze', demoWithout('soft2.json', { unactuated_variance: 1e-6 }, true), '--json', '--random', '2', '--special', '1'])).out);
    expect(sj).toMatchObject({ priors: [], soft_constraints: [{ constraint: 'unactuated[root_joint]', variance: 1e-6 }], estimable: true, prior_only: [], data_alone: { verdict: 'well_posed' } });
  });

  it('without priors or soft constraints: none of those fields', async () => {
    const j = JSON.parse((await run(['analyze', 'data/problems/humanoid-ft.json', '--json', '--random', '2', '--special', '1'])).out);
    for (const k of ['priors', 'soft_constraints', 'data_alone', 'estimable', 'prior_only', 'prior_only_unknowns']) expect(j).not.toHaveProperty(k);
  });
});

describe('sparsedyn estimate: results', () => {
  it('estimates a clean log: NDJSON rows, a report, the summary on stderr and nothing on stdout', async () => {
    const out = join(dir, 'est.ndjson');
    const r = await run(['estimate', DEMO, '--data', clean, '--out', out, '--covariance']);
    expect(r.code).toBe(0);
    expect(r.out).toBe('');
    expect(r.err).toMatch(/samples estimated 12, rows skipped 0, samples flagged near a singular configuration 0/);
    expect(r.err).toMatch(/accuracy against the log's truth \(12 samples\)/);
    const rows = rowsOf(readFileSync(out, 'utf8'));
    expect(rows).toHaveLength(12);
    expect(rows[0]).toHaveProperty('tau.l_knee');
    expect(rows[0]).toHaveProperty('contact_wrenches.l_sole.force');
    expect(rows[0]).toHaveProperty('joint_wrenches.l_ankle_roll.torque');
    expect(rows[0].tau_std.l_knee).toBeGreaterThan(0);
    expect(rows[0].condition).toBeGreaterThan(0.1);
    expect(rows[0].condition).toBeLessThan(10);
    const report = readFileSync(join(dir, 'est.ndjson.report.md'), 'utf8');
    expect(report).toMatch(/samples estimated: 12/);
    expect(report).toMatch(/## Units and frames/);
    expect(report).toMatch(/\| `contact_wrenches` \| torque N·m, force N \| wrench of the environment on the contact link, in the link frame/);
  });

  it('per-joint RMSE and max error in N·m, recomputed from the written estimates and the log\'s truth', async () => {
    const out = join(dir, 'acc.ndjson');
    const r = await run(['estimate', DEMO, '--data', clean, '--out', out]);
    expect(r.code).toBe(0);
    const est = rowsOf(readFileSync(out, 'utf8'));
    const truth = demoLines.map((l) => JSON.parse(l).truth);
    const report = readFileSync(join(dir, 'acc.ndjson.report.md'), 'utf8');
    for (const joint of ['l_knee', 'r_hip_pitch', 'l_wrist_roll']) {
      const e = est.map((x, k) => x.tau[joint] - truth[k].tau[joint]);
      const rootMeanSquare = Math.sqrt(e.reduce((s, x) => s + x * x, 0) / e.length);
      const max = Math.max(...e.map(Math.abs));
      const line = report.split('\n').find((l) => l.startsWith(`| ${joint} |`))!;
      const [, name, unit, n, rm, mx] = line.split('|').map((s) => s.trim());
      expect([name, unit, n]).toEqual([joint, 'N m', '12']);
      expect(Math.abs(Number(rm) - rootMeanSquare)).toBeLessThan(5e-3 * rootMeanSquare);
      expect(Math.abs(Number(mx) - max)).toBeLessThan(5e-3 * max);
      expect(max).toBeGreaterThan(0);
    }
  });

  it('the NDJSON rows follow schemas/estimates.schema.json (validated by Ajv, JSON Schema 2020-12), flagged rows included', async () => {
    const ajv = new Ajv2020({ allErrors: true, strict: true });
    const validate = ajv.compile(JSON.parse(readFileSync('schemas/estimates.schema.json', 'utf8')));
    const out = join(dir, 'schema.ndjson');
    await run(['estimate', DEMO, '--data', clean, '--out', out, '--covariance']);
    const rows = [...rowsOf(readFileSync(out, 'utf8')), ...rowsOf(readFileSync(await slipperyRun(), 'utf8'))];
    expect(rows.some((x) => typeof x.near_singular === 'string')).toBe(true);
    for (const row of rows) expect(validate(row), JSON.stringify(validate.errors)).toBe(true);
    // the schema is not vacuous: a null torque or an unknown field is refused
    expect(validate({ ...rows[0], tau: { ...rows[0].tau, l_knee: null } })).toBe(false);
    expect(validate({ ...rows[0], extra: 1 })).toBe(false);
  });

  it('reads CSV (format from the content, whatever the extension) and writes CSV with units in the header', async () => {
    const log = file('log.txt', demoCsv(demoLines.slice(0, 4)));
    const out = join(dir, 'est-csv.out');
    const r = await run(['estimate', DEMO, '--data', log, '--out', out]);
    expect(r.code).toBe(0);
    const rows = readFileSync(out, 'utf8').trim().split('\n');
    expect(rows).toHaveLength(5);
    const header = rows[0].split(',');
    expect(header.slice(0, 4)).toEqual(['t [s]', 'line', 'condition', 'flagged']);
    expect(header).toContain('tau.l_knee [N m]');
    expect(header).toContain('qdd.l_knee [rad/s^2]');
    expect(header).toContain('tau.root_joint[0] [N]');
    expect(header).toContain('qdd.root_joint[3] [rad/s^2]');
    expect(header).toContain('contact.l_sole.fz [N]');
    expect(header).toContain('contact.l_sole.tx [N m]');
    expect(header).toContain('residual.ft_left');
    // every header cell reads "<name>" or "<name> [<unit>]"
    for (const h of header) expect(h).toMatch(/^[\w.[\]]+( \[[\w /^]+\])?$/);
    // --format ndjson overrides the log's format
    const out2 = join(dir, 'est-csv2.out');
    expect((await run(['estimate', DEMO, '--data', log, '--out', out2, '--format', 'ndjson'])).code).toBe(0);
    expect(rowsOf(readFileSync(out2, 'utf8'))).toHaveLength(4);
  });
});

describe('sparsedyn estimate: files', () => {
  const bigLog = readFileSync('data/demo/humanoid.ndjson', 'utf8');

  it('refuses --out naming the log (same path, a symbolic link, a hard link) and leaves the log as it was', async () => {
    const log = file('precious.ndjson', bigLog);
    const sub = join(dir, 'links');
    mkdirSync(sub, { recursive: true });
    symlinkSync(log, join(sub, 'sym.ndjson'));
    linkSync(log, join(sub, 'hard.ndjson'));
    for (const out of [log, join(sub, 'sym.ndjson'), join(sub, 'hard.ndjson'), join(dir, '.', 'precious.ndjson')]) {
      const r = await run(['estimate', DEMO, '--data', log, '--out', out]);
      expect(r.code).toBe(2);
      expect(r.err).toMatch(/--out .* is the log .*refusing to overwrite an input/);
      expect(readFileSync(log, 'utf8')).toBe(bigLog);
    }
    const rp = await run(['estimate', DEMO, '--data', log, '--out', join(dir, 'x1.ndjson'), '--report', log]);
    expect(rp.code).toBe(2);
    expect(rp.err).toMatch(/--report .* is the log/);
    const rm = await run(['estimate', DEMO, '--data', log, '--out', join(dir, 'x2.ndjson'), '--report', DEMO]);
    expect(rm.err).toMatch(/--report .* is the problem file/);
    const ro = await run(['estimate', DEMO, '--data', log, '--out', join(dir, 'x3.ndjson'), '--report', join(dir, 'x3.ndjson')]);
    expect(ro.err).toMatch(/--out and --report are the same file/);
    expect(readFileSync(log, 'utf8')).toBe(bigLog);
    expect(existsSync(join(dir, 'x1.ndjson'))).toBe(false);
  });

  it('a missing, empty or unreadable input leaves an existing output untouched', async () => {
    const sub = mkdtempSync(join(dir, 'keep-'));
    const out = join(sub, 'old.ndjson');
    const old = 'old estimates\n'.repeat(1000);
    writeFileSync(out, old);
    writeFileSync(join(sub, 'old.ndjson.report.md'), 'old report');
    const cases: [string[], RegExp][] = [
      [['--data', join(sub, 'nope.ndjson')], /log .*nope\.ndjson: no such file/],
      [['--data', file('empty.ndjson', '')], /log .*empty\.ndjson is empty/],
      [['--data', file('blank.ndjson', '\n \n\n')], /the log is empty \(no samples\)/],
      [['--data', file('header.csv', demoCsv([]))], /the log has a header and no rows/],
      [['--data', sub], /is a folder/],
    ];
    for (const [args, msg] of cases) {
      const r = await run(['estimate', DEMO, ...args, '--out', out]);
      expect(r.code).toBe(2);
      expect(r.err).toMatch(msg);
      expect(readFileSync(out, 'utf8')).toBe(old);
      expect(readFileSync(join(sub, 'old.ndjson.report.md'), 'utf8')).toBe('old report');
      noTemps(sub);
    }
    const np = await run(['estimate', join(sub, 'missing.json'), '--data', clean, '--out', out]);
    expect(np.code).toBe(2);
    expect(np.err).toMatch(/problem file .*missing\.json: no such file/);
    expect(readFileSync(out, 'utf8')).toBe(old);
    // a CSV header the problem cannot use fails after the output was opened: still nothing replaced
    const bad = await run(['estimate', DEMO, '--data', file('badhead.csv', 't,q.nope\n1,2\n'), '--out', out]);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/badhead\.csv: CSV header \(line 1\): missing columns/);
    expect(readFileSync(out, 'utf8')).toBe(old);
    noTemps(sub);
    // a log whose every row is unusable: a failed run, reasons on stderr, the old files kept
    const allBad = await run(['estimate', DEMO, '--data', file('allbad.ndjson', '{"t":0}\n{"t":1}\n'), '--out', out]);
    expect(allBad.code).toBe(2);
    expect(allBad.err).toMatch(/allbad\.ndjson:1: skipped: /);
    expect(allBad.err).toMatch(/allbad\.ndjson: no sample could be estimated \(2 of 2 rows skipped; the reasons are above\); nothing was written, .*old\.ndjson is as it was/);
    expect(allBad.err).not.toMatch(/NaN/);
    expect(readFileSync(out, 'utf8')).toBe(old);
    expect(readFileSync(join(sub, 'old.ndjson.report.md'), 'utf8')).toBe('old report');
    noTemps(sub);
  });

  it('follows a symbolic link at --out: the target is replaced, the link stays', async () => {
    const sub = mkdtempSync(join(dir, 'link-'));
    writeFileSync(join(sub, 'target.ndjson'), 'old');
    symlinkSync(join(sub, 'target.ndjson'), join(sub, 'link.ndjson'));
    const r = await run(['estimate', DEMO, '--data', clean, '--out', join(sub, 'link.ndjson'), '--report', join(sub, 'r.md')]);
    expect(r.code).toBe(0);
    expect(rowsOf(readFileSync(join(sub, 'target.ndjson'), 'utf8'))).toHaveLength(12);
    expect(readFileSync(join(sub, 'link.ndjson'), 'utf8')).toBe(readFileSync(join(sub, 'target.ndjson'), 'utf8'));
    noTemps(sub);
  });
});

describe('sparsedyn estimate: streams', () => {
  it('--out - writes only estimates on stdout, the summary on stderr, and no report unless --report asks', async () => {
    const sub = mkdtempSync(join(dir, 'stream-'));
    const r = await run(['estimate', DEMO, '--data', clean, '--out', '-']);
    expect(r.code).toBe(0);
    const rows = rowsOf(r.out);
    expect(rows).toHaveLength(12);
    expect(r.err).toMatch(/samples estimated 12/);
    expect(r.err).toMatch(/wrote standard output\n/);
    expect(existsSync('-')).toBe(false);
    expect(existsSync('-.report.md')).toBe(false);
    // same estimates as file mode, row for row
    const out = join(sub, 'file.ndjson');
    await run(['estimate', DEMO, '--data', clean, '--out', out]);
    expect(rowsOf(readFileSync(out, 'utf8'))).toEqual(rows);
    const rr = await run(['estimate', DEMO, '--data', clean, '--out', '-', '--report', join(sub, 'r.md'), '--format', 'csv']);
    expect(rr.out.split('\n')[0]).toMatch(/^t \[s\],line,condition,flagged,tau\./);
    expect(readFileSync(join(sub, 'r.md'), 'utf8')).toMatch(/estimates written as CSV/);
    expect((await run(['estimate', DEMO, '--data', clean, '--out', '-', '--report', '-'])).err).toMatch(/--report must name a file/);
  });
});

describe('sparsedyn estimate: honest summaries', () => {
  it('no truth, or truth naming nothing: no accuracy figure, and a warning naming what matched nothing', async () => {
    const bare = file('bare.ndjson', demoLines.map((l) => { const o = JSON.parse(l); delete o.truth; return JSON.stringify(o); }).join('\n'));
    const r = await run(['estimate', DEMO, '--data', bare, '--out', join(dir, 'bare-est.ndjson')]);
    expect(r.code).toBe(0);
    expect(r.err).toMatch(/no accuracy figures: the log carries no truth/);
    expect(r.err).not.toMatch(/max rel\. error/);
    expect(readFileSync(join(dir, 'bare-est.ndjson.report.md'), 'utf8')).toMatch(/no accuracy figure/);
    const wrong = file('wrong.ndjson', demoLines.map((l) => { const o = JSON.parse(l); o.truth = { tau: { knee_left: 1 }, contact_wrenches: { left_foot: { torque: [0, 0, 0], force: [0, 0, 1] } } }; return JSON.stringify(o); }).join('\n'));
    const w = await run(['estimate', DEMO, '--data', wrong, '--out', join(dir, 'wrong-est.ndjson')]);
    expect(w.err).toMatch(/no accuracy figures/);
    expect(w.err).toMatch(/warning: the log's truth names a joint the model does not have: "knee_left"/);
    expect(w.err).toMatch(/warning: the log's truth names a contact the problem does not have: "left_foot"/);
    expect(w.err).not.toMatch(/0\.00e\+0/);
    // torque truth only: torque accuracy, no contact figure
    const tauOnly = file('tau.ndjson', demoLines.map((l) => { const o = JSON.parse(l); delete o.truth.contact_wrenches; return JSON.stringify(o); }).join('\n'));
    const t = await run(['estimate', DEMO, '--data', tauOnly, '--out', join(dir, 'tau-est.ndjson')]);
    expect(t.err).toMatch(/joint torques \(29\): RMSE up to [\d.e-]+ N m/);
    expect(t.err).not.toMatch(/contact l_sole/);
  });
});

/** A run on the slippery load-cell layout: a random configuration, ±0.01 rad from the singular neutral pose, the neutral pose itself. */
let slippery: { out: string; err: string; code: number; rows: Record<string, unknown>[] } | null = null;
async function slipperyRun(): Promise<string> {
  const out = join(dir, 'slip-est.ndjson');
  if (slippery) return out;
  const pf = file('slippery.json', JSON.stringify(slipperyProblem(`${process.cwd()}/models/humanoid.urdf`)));
  const { es } = loadEstimationSystem(pf);
  const rng = new Rng(3);
  const legs = ['hip_yaw', 'hip_roll', 'hip_pitch', 'knee', 'ankle_pitch', 'ankle_roll'];
  const wrenches = { l_sole: [4, -3, 2, 0, 0, 300], r_sole: [-2, 5, -1, 0, 0, 280] };
  const near = () => Object.fromEntries(legs.flatMap((j) => [[`l_${j}`, rng.uniform(-0.01, 0.01)], [`r_${j}`, rng.uniform(-0.01, 0.01)]]));
  const specs = [
    { t: 0, q: Object.fromEntries(legs.flatMap((j, k) => [[`l_${j}`, 0.3 + 0.1 * k], [`r_${j}`, -0.2 + 0.15 * k]])), wrenches },
    { t: 1, q: Object.fromEntries(legs.flatMap((j) => [[`l_${j}`, 0.01], [`r_${j}`, -0.01]])), wrenches },
    { t: 2, q: near(), wrenches },
    { t: 3, q: {}, wrenches },
    { t: 4, q: near(), wrenches },
    { t: 5, q: Object.fromEntries(legs.flatMap((j) => [[`l_${j}`, 0.01], [`r_${j}`, 0.01]])), wrenches },
  ];
  const rows = specs.map((s) => syntheticRow(es, s, rng));
  const log = file('slippery.ndjson', rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  const r = await run(['estimate', pf, '--data', log, '--out', out]);
  slippery = { ...r, rows };
  return out;
}

describe('sparsedyn estimate: every sample checked', () => {
  it('a row with v = 1e300 is skipped with the reason; nothing null or NaN is written; exit 3', async () => {
    const rows = demoLines.slice(0, 3).map((l) => JSON.parse(l));
    rows[1].v.l_knee = 1e300;
    const log = file('huge.ndjson', rows.map((o) => JSON.stringify(o)).join('\n'));
    const out = join(dir, 'huge-est.ndjson');
    const r = await run(['estimate', DEMO, '--data', log, '--out', out]);
    expect(r.code).toBe(3);
    expect(r.err).toMatch(/huge\.ndjson:2: skipped: the estimate is not finite: the inputs are out of range \(largest input: v\.l_knee = 1\.000e\+300\)/);
    const text = readFileSync(out, 'utf8');
    expect(text).not.toMatch(/null|NaN|Infinity/);
    expect(rowsOf(text).map((x) => x.line)).toEqual([1, 3]);
    expect(readFileSync(join(dir, 'huge-est.ndjson.report.md'), 'utf8')).toMatch(/- line 2: the estimate is not finite/);
  });

  it('slippery load cells: ±0.01 rad from the neutral pose is flagged with the poorly observed direction; the neutral pose is named singular', async () => {
    const out = await slipperyRun();
    const s = slippery!;
    expect(s.code).toBe(3); // the neutral row is skipped
    expect(s.err).not.toMatch(/SingularPivotError|normal\[|pivot/);
    expect(s.err).toMatch(/slippery\.ndjson:4: skipped: singular configuration of the sensor layout: w\[l_sole\]\.tz − w\[r_sole\]\.tz is not observed here/);
    for (const line of [2, 3, 5, 6]) {
      expect(s.err).toMatch(new RegExp(`slippery\\.ndjson:${line}: near a singular configuration of the sensor layout \\(condition [\\d.e+]+ > 10\\): poorly observed: w\\[l_sole\\]\\.tz − w\\[r_sole\\]\\.tz`));
    }
    expect(s.err).toMatch(/samples flagged near a singular configuration 4/);
    const est = rowsOf(readFileSync(out, 'utf8'));
    expect(est.map((x) => x.line)).toEqual([1, 2, 3, 5, 6]);
    expect(est[0].near_singular).toBeUndefined();
    expect(est[0].condition).toBeLessThan(10);
    for (const k of [1, 2, 3, 4]) expect(est[k].near_singular).toBe('w[l_sole].tz − w[r_sole].tz');
    expect(est[4].condition).toBeGreaterThan(1e10); // parallel soles: singular up to round-off
    // the flag matters: the flagged estimates are far worse than the unflagged one (same noise level)
    const truthOf = (k: number) => (s.rows[k].truth as { tau: Record<string, number> }).tau;
    const err = (e: { tau: Record<string, number> }, k: number) => Math.max(...Object.entries(truthOf(k)).map(([j, v]) => Math.abs(e.tau[j] - v)));
    expect(Math.min(err(est[2], 2), err(est[3], 4))).toBeGreaterThan(10 * err(est[0], 0));
    const report = readFileSync(join(dir, 'slip-est.ndjson.report.md'), 'utf8');
    expect(report).toMatch(/\| 2 \| 1 \| [\d.e+]+ \| w\[l_sole\]\.tz − w\[r_sole\]\.tz \|/);
    expect(report).toMatch(/\| 6 \| 5 \| [\d.e+]+ \| w\[l_sole\]\.tz − w\[r_sole\]\.tz \|/);
    expect(report).toMatch(/- line 4: singular configuration of the sensor layout/);
  });

  it('--condition-limit moves the threshold; --no-condition leaves the figure out', async () => {
    const r = await run(['estimate', DEMO, '--data', clean, '--out', '-', '--condition-limit', '0.05']);
    expect(rowsOf(r.out).every((x) => typeof x.near_singular === 'string')).toBe(true);
    const n = await run(['estimate', DEMO, '--data', clean, '--out', '-', '--no-condition']);
    expect(rowsOf(n.out).every((x) => x.condition === undefined && x.near_singular === undefined)).toBe(true);
    expect((await run(['estimate', DEMO, '--data', clean, '--out', '-', '--condition-limit', '0x10'])).err).toMatch(/--condition-limit must be a positive decimal number/);
  });
});

describe('sparsedyn estimate: inputs as they come', () => {
  it('reports malformed rows with their line numbers, skips them, keeps the valid ones, and exits 3', async () => {
    const rows = demoLines.slice(0, 6).map((l) => JSON.parse(l));
    delete rows[1].q.l_knee;
    rows[2].sensors.ft_left[3] = 'NaN';
    rows[3].sensors.ft_left = rows[3].sensors.ft_left.slice(0, 5);
    rows[4].sensors.laser = [1];
    const log = file('bad.ndjson', rows.map((o) => JSON.stringify(o)).join('\n') + '\n{not json\n{"t": 0.5, "q": [1, 2,]}\n');
    const out = join(dir, 'bad-est.ndjson');
    const r = await run(['estimate', DEMO, '--data', log, '--out', out]);
    expect(r.code).toBe(3);
    expect(r.err).toMatch(/bad.ndjson:2: skipped: q of joint "l_knee" is missing/);
    expect(r.err).toMatch(/bad.ndjson:3: skipped: sensor "ft_left"\[3\] is "NaN"/);
    expect(r.err).toMatch(/bad.ndjson:4: skipped: sensor "ft_left" must be a list of 6 numbers \(got 5\)/);
    // a channel the problem does not use is ignored, named once; --strict refuses it
    expect(r.err).toMatch(/note: .*bad.ndjson has a channel the problem does not use, ignored: laser \(--strict refuses them\)/);
    // a line that is not JSON: its column and a short reason, not the line quoted again
    expect(r.err).toContain('bad.ndjson:7: skipped: not valid JSON at column 2: unexpected "not"\n');
    expect(r.err).toContain('bad.ndjson:8: skipped: not valid JSON at column 23: trailing comma before "]"\n');
    expect(rowsOf(readFileSync(out, 'utf8')).map((e) => e.line)).toEqual([1, 5, 6]);
    expect(r.err).toMatch(/samples estimated 3, rows skipped 5/);
    const strict = await run(['estimate', DEMO, '--data', log, '--out', '-', '--strict']);
    expect(strict.err).toMatch(/bad.ndjson:5: skipped: unknown channel "laser" \(--strict\)/);
    expect(rowsOf(strict.out).map((e) => e.line)).toEqual([1, 6]);
  });

  it('NDJSON: a joint the model does not have in "q" or "v", or another key in "base", is ignored and named in one note (--strict refuses it); the estimates are those of the log without it, for 1 and 2 jobs', async () => {
    // the demo's 300 rows: with 2 jobs, batches go to worker threads
    const all = readFileSync('data/demo/humanoid.ndjson', 'utf8').trim().split('\n');
    const ghost = file('ghost.ndjson', all.map((l) => {
      const o = JSON.parse(l);
      o.q.ghost_joint = 0.5;
      o.v.ghost_joint = 0.1;
      o.base.acceleration = [0, 0, 0];
      return JSON.stringify(o);
    }).join('\n') + '\n');
    const ref = await run(['estimate', DEMO, '--data', 'data/demo/humanoid.ndjson', '--out', '-', '--jobs', '1']);
    expect(ref.code).toBe(0);
    for (const jobs of ['1', '2']) {
      const r = await run(['estimate', DEMO, '--data', ghost, '--out', '-', '--jobs', jobs]);
      expect(r.code, r.err).toBe(0);
      expect(r.out).toBe(ref.out);
      expect(r.err).toMatch(/rows skipped 0/);
      expect(r.err.match(/does not use/g)).toHaveLength(1);
      expect(r.err).toMatch(/note: .*ghost\.ndjson has channels the problem does not use, ignored: q\.ghost_joint, v\.ghost_joint, base\.acceleration \(--strict refuses them\)/);
    }
    const strict = await run(['estimate', DEMO, '--data', ghost, '--out', '-', '--strict']);
    // every row refused: a failed run (exit 2), nothing on stdout
    expect(strict.code).toBe(2);
    expect(strict.out).toBe('');
    expect(strict.err).toMatch(/ghost\.ndjson:1: skipped: unknown channels "q\.ghost_joint", "v\.ghost_joint", "base\.acceleration" \(--strict\)/);
    expect(strict.err).toMatch(new RegExp(`no sample could be estimated \\(${all.length} of ${all.length} rows skipped`));
  }, 60_000);

  it('a UTF-8 byte order mark is accepted (NDJSON and CSV): the first row is estimated', async () => {
    const nd = await run(['estimate', DEMO, '--data', file('bom.ndjson', '\ufeff' + demoLines.slice(0, 3).join('\n')), '--out', '-']);
    expect(nd.code).toBe(0);
    expect(rowsOf(nd.out).map((x) => x.line)).toEqual([1, 2, 3]);
    const csv = await run(['estimate', DEMO, '--data', file('bom.csv', '\ufeff' + demoCsv(demoLines.slice(0, 3))), '--out', '-', '--format', 'ndjson']);
    expect(csv.code).toBe(0);
    expect(rowsOf(csv.out).map((x) => x.line)).toEqual([2, 3, 4]);
  });

  it('CSV as RFC 4180: quoted numbers and CRLF give the same estimates; 0x10, 1_000, Infinity are refused with the column named', async () => {
    const plain = await run(['estimate', DEMO, '--data', file('p.csv', demoCsv(demoLines.slice(0, 3))), '--out', '-', '--format', 'ndjson']);
    const quoted = await run(['estimate', DEMO, '--data', file('q.csv', demoCsv(demoLines.slice(0, 3), (x) => `"${x}"`).replace(/\n/g, '\r\n')), '--out', '-', '--format', 'ndjson']);
    expect(quoted.code).toBe(0);
    expect(rowsOf(quoted.out)).toEqual(rowsOf(plain.out));
    const text = demoCsv(demoLines.slice(0, 4)).split('\n');
    const swap = (line: number, value: string) => { const c = text[line].split(','); c[3] = value; text[line] = c.join(','); };
    const col = text[0].split(',')[3];
    swap(1, '0x10'); swap(2, '1_000'); swap(3, 'Infinity');
    const r = await run(['estimate', DEMO, '--data', file('hex.csv', text.join('\n')), '--out', '-', '--format', 'ndjson']);
    expect(r.code).toBe(3);
    expect(r.err).toContain(`hex.csv:2: skipped: column "${col}" is "0x10": not a decimal number`);
    expect(r.err).toContain(`hex.csv:3: skipped: column "${col}" is "1_000": not a decimal number`);
    expect(r.err).toContain(`hex.csv:4: skipped: column "${col}" is "Infinity": not a decimal number`);
    expect(rowsOf(r.out).map((x) => x.line)).toEqual([5]);
  });

  it('errors from a problem file name the file (with line and column for JSON syntax) and never internal names', async () => {
    const syntax = file('syntax.json', '{\n  "model": "humanoid",\n  "base": "floating",\n}\n');
    const a = await run(['estimate', syntax, '--data', clean, '--out', '-']);
    expect(a.code).toBe(2);
    expect(a.err).toMatch(/syntax\.json:4:1: not valid JSON/);
    for (const [name, text, where] of [['token.json', '{"base": floating}', '1:10: not valid JSON: unexpected "floating"'], ['comma.json', '{\n  "gravity": [0, 0, -9.81,]\n}\n', '2:27: not valid JSON: trailing comma before "]"'], ['half.json', '{\n  "gravity": [0, 0, .5]\n}\n', '2:21: not valid JSON: unexpected ".5"']]) {
      const f = file(name, text);
      for (const args of [['analyze', f], ['estimate', f, '--data', clean, '--out', '-']]) {
        const e = await run(args);
        expect(e.code).toBe(2);
        expect(e.err).toBe(`sparsedyn: ${f}:${where}\n`);
      }
    }
    const ft = file('ft.json', JSON.stringify({ model: `${process.cwd()}/models/humanoid.urdf`, base: 'floating', contacts: ['l_sole'], sensors: [{ name: 'ft', type: 'force_torque', joint: 'l_wrist_sensor' }] }));
    for (const cmd of ['analyze', 'estimate']) {
      const b = await run(cmd === 'analyze' ? ['analyze', ft] : ['estimate', ft, '--data', clean, '--out', '-']);
      expect(b.code).toBe(2);
      expect(b.err).toMatch(/ft\.json: sensor "ft": joint "l_wrist_sensor" is not a joint of model "humanoid"/);
      expect(b.err).not.toMatch(/keepFixed/);
    }
    const link = file('link.json', JSON.stringify({ model: 'humanoid', base: 'floating', contacts: ['nowhere'], sensors: [] }));
    expect((await run(['analyze', link])).err).toMatch(/link\.json: contact "nowhere": link "nowhere" is not a link/);
  });
});

describe('sparsedyn estimate: real experiments (the walking log)', () => {
  const WALK = 'data/problems/humanoid-walk.json';
  const walkLines = readFileSync('data/demo/humanoid-walk.ndjson', 'utf8').trim().split('\n');
  const kept = walkLines.filter((_l, k) => k % 4 === 0);
  const walk = file('walk.ndjson', kept.join('\n') + '\n');

  it('each row names its contact mode and sensors; the modes are analysed once; bad data is summarised; rows follow the schema', async () => {
    const r = await run(['estimate', WALK, '--data', walk, '--out', '-', '--no-condition']);
    expect(r.code).toBe(0);
    const rows = rowsOf(r.out);
    expect(new Set(rows.map((x) => x.mode))).toEqual(new Set(['l_sole+r_sole', 'l_sole', 'r_sole']));
    for (const x of rows) {
      const truth = JSON.parse(kept[x.line - 1]).truth;
      expect(x.mode).toBe(truth.contacts.join('+'));
      expect(x.sensors).toEqual(['encoders', 'imu_acc', 'ft_left', 'ft_right']);
      expect(typeof x.bad_data.chi2).toBe('number');
    }
    expect(r.err).toMatch(/layouts met 3 \(sensor subset x contact mode\), offline analyses 3; mode switches \d+, of which to a layout seen before \d+, costing 0 new analyses/);
    // each layout's verdict, with its samples
    for (const m of ['l_sole+r_sole', 'l_sole', 'r_sole']) expect(r.err).toMatch(new RegExp(`\\n  layout ${m.replace('+', '\\+')} \\(encoders, imu_acc, ft_left, ft_right\\): well posed, \\d+ samples\\n`));
    expect(r.err).toMatch(/bad data \(chi-square at confidence 0\.99\): \d+ of 80 samples flagged/);
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    const validate = ajv.compile(JSON.parse(readFileSync('schemas/estimates.schema.json', 'utf8')));
    for (const x of rows) expect(validate(x), JSON.stringify(validate.errors)).toBe(true);
    // CSV: one header for every mode, the mode and sensors as text, inactive contacts zero
    const c = await run(['estimate', WALK, '--data', walk, '--out', '-', '--format', 'csv', '--no-condition', '--no-bad-data']);
    const lines = c.out.trim().split('\n');
    const head = lines[0].split(',');
    expect(head.slice(-2)).toEqual(['mode', 'sensors']);
    expect(head).not.toContain('suspect');
    expect(new Set(lines.slice(1).map((l) => l.split(',').length))).toEqual(new Set([head.length]));
    expect(lines.slice(1).map((l) => l.split(',').at(-2))).toContain('l_sole');
  });

  it('options are checked: --false-alarm, --quaternion-tolerance, --layout-cache', async () => {
    expect((await run(['estimate', WALK, '--data', walk, '--out', '-', '--false-alarm', '5'])).err).toMatch(/--false-alarm must be a probability between 0 and 1/);
    expect((await run(['estimate', WALK, '--data', walk, '--out', '-', '--quaternion-tolerance', 'x'])).err).toMatch(/--quaternion-tolerance must be a decimal number/);
    expect((await run(['estimate', WALK, '--data', walk, '--out', '-', '--layout-cache', '0'])).err).toMatch(/--layout-cache must be a whole number of layouts >= 1/);
    // worker threads: the same modes, bad-data and accuracy figures (without the HTML report too)
    const jobs = await run(['estimate', WALK, '--data', walk, '--out', '-', '--no-condition', '--jobs', '2', '--no-html']);
    expect(jobs.code).toBe(0);
    expect(jobs.err).toMatch(/samples by contact mode: l_sole\+r_sole 40, l_sole 20, r_sole 20/);
    expect(jobs.err).toMatch(/accuracy against the log's truth \(80 samples\)/);
    expect(jobs.err).toMatch(/bad data \(chi-square at confidence 0\.99\): \d+ of 80 samples flagged/);
    // a cache of one layout: every mode switch rebuilds a layout, from its offline work kept for the
    // run (each layout analysed once), and the estimates are those of the default cache
    const one = await run(['estimate', WALK, '--data', walk, '--out', '-', '--no-condition', '--layout-cache', '1']);
    expect(one.code).toBe(0);
    expect(one.err).toMatch(/layouts met 3 \(sensor subset x contact mode\), offline analyses 3; mode switches \d+, of which to a layout seen before [1-9]\d*, costing 0 new analyses/);
    expect(one.out).toBe((await run(['estimate', WALK, '--data', walk, '--out', '-', '--no-condition'])).out);
  });
});

describe('sparsedyn estimate: plausibility from the robot file, closest names', () => {
  /** the demo problem with a stated range on the left F/T sensor */
  const ranged = (() => {
    const p = JSON.parse(readFileSync(DEMO, 'utf8'));
    delete p.ros; delete p.$schema;
    p.model = `${process.cwd()}/models/humanoid.urdf`;
    p.sensors.find((s: { name: string }) => s.name === 'ft_left').range = 2000;
    return file('ranged.json', JSON.stringify(p));
  })();
  /** the whole demo log (300 rows: worker threads get batches of it), with values out of bounds at some rows */
  const all = readFileSync('data/demo/humanoid.ndjson', 'utf8').trim().split('\n');
  const edited = all.map((l, k) => {
    const o = JSON.parse(l);
    if (k === 2) o.q.l_knee = 4;
    else if (k === 149) o.sensors.ft_left[5] = 2500;
    else if (k === 199) o.v.l_knee = 150;
    else if (k === 249) o.sensors.ft_left[5] = 1e308;
    else return l;
    return JSON.stringify(o);
  });
  const odd = file('odd.ndjson', edited.join('\n') + '\n');
  const implausibleLines = (err: string) => err.split('\n').filter((l) => /implausible values|, first at /.test(l));

  it('rows with values beyond the limits and ranges are estimated and flagged (NDJSON field, CSV column), counted in the summary and the report, the same for any --jobs', async () => {
    const one = await run(['estimate', ranged, '--data', odd, '--out', '-', '--jobs', '1']);
    expect(one.code).toBe(3); // the 1e308 row alone is skipped: its estimate overflows
    expect(one.err).toContain(`odd.ndjson:250: skipped: the estimate is not finite`);
    expect(one.err).toMatch(/odd\.ndjson:250: skipped: .*; implausible: reading fz of sensor "ft_left" = 1e\+308 N is beyond its range ±2000 N\n/);
    const rows = rowsOf(one.out);
    expect(rows.length).toBe(299);
    const at = (line: number) => rows.find((x) => x.line === line);
    expect(at(3).implausible).toContain('q of joint "l_knee" = 4 rad is beyond its upper limit 3.142 rad');
    expect(at(150).implausible).toContain('reading fz of sensor "ft_left" = 2500 N is beyond its range ±2000 N');
    expect(at(200).implausible).toContain('v of joint "l_knee" = 150 rad/s exceeds its velocity limit 100 rad/s');
    expect(at(4).implausible).toBeUndefined();
    const validate = new Ajv2020({ allErrors: true, strict: false }).compile(JSON.parse(readFileSync('schemas/estimates.schema.json', 'utf8')));
    for (const l of [3, 150, 200]) expect(validate(at(l)), JSON.stringify(validate.errors)).toBe(true);
    expect(one.err).toMatch(/\n {2}implausible values \(beyond the robot file's joint limits or a sensor's range; flagged, never a reason to skip a row\): range\.ft_left in 2 rows, .*q\.l_knee in 1 row/);
    expect(one.err).toContain('\n  q.l_knee, first at ');
    expect(one.err).toMatch(/q\.l_knee, first at .*odd\.ndjson:3: q of joint "l_knee" = 4 rad is beyond its upper limit 3\.142 rad\n/);
    expect(one.err).toMatch(/v\.l_knee, first at .*odd\.ndjson:200: v of joint "l_knee" = 150 rad\/s exceeds its velocity limit 100 rad\/s\n/);
    // worker threads: the same estimates, byte for byte, and the same counts
    const two = await run(['estimate', ranged, '--data', odd, '--out', '-', '--jobs', '2']);
    expect(two.err).toMatch(/threads: 2 worker threads/);
    expect(two.out).toBe(one.out);
    expect(implausibleLines(two.err)).toEqual(implausibleLines(one.err));
    // CSV: one text column; the report lists the counts
    const out = join(mkdtempSync(join(tmpdir(), 'sparsedyn-plaus-')), 'est.csv');
    const csv = await run(['estimate', ranged, '--data', odd, '--out', out, '--format', 'csv', '--no-html']);
    expect(csv.code).toBe(3);
    const lines = readFileSync(out, 'utf8').trim().split('\n');
    const head = lines[0].split(',');
    expect(head.slice(-3)).toEqual(['implausible', 'mode', 'sensors']);
    expect(lines.find((l) => l.startsWith(`${JSON.parse(all[2]).t},3,`))).toContain('"q of joint ""l_knee"" = 4 rad is beyond its upper limit 3.142 rad"');
    const report = readFileSync(`${out}.report.md`, 'utf8');
    expect(report).toContain('## Layouts, contact modes, bad data and plausibility');
    expect(report).toMatch(/- q\.l_knee, first at .*odd\.ndjson:3: q of joint "l_knee" = 4 rad is beyond its upper limit 3\.142 rad/);
  });

  it('the demo log, as shipped, has no implausible value', async () => {
    const r = await run(['estimate', DEMO, '--data', clean, '--out', '-']);
    expect(r.code).toBe(0);
    expect(r.err).not.toMatch(/implausible/);
    for (const x of rowsOf(r.out)) expect(x).not.toHaveProperty('implausible');
  });

  it('a sensor named with a typo in the log: "did you mean" in the summary, and in the message of a run with no estimate', async () => {
    const renamed = (names: Record<string, string>) => demoLines.map((l) => {
      const o = JSON.parse(l);
      for (const [from, to] of Object.entries(names)) { o.sensors[to] = o.sensors[from]; delete o.sensors[from]; }
      return JSON.stringify(o);
    }).join('\n') + '\n';
    const r = await run(['estimate', DEMO, '--data', file('typo.ndjson', renamed({ ft_left: 'FT_left' })), '--out', '-']);
    expect(r.code).toBe(0); // estimated from the other sensors
    expect(r.err).toContain('\n  sensor "ft_left" got no readings; the log\'s channel "FT_left" is ignored — did you mean "ft_left"?\n');
    // without either F/T sensor no row can be estimated: the hints end the message
    const none = await run(['estimate', DEMO, '--data', file('typo2.ndjson', renamed({ ft_left: 'wrist_FT', ft_right: 'ft_rigth' })), '--out', '-']);
    expect(none.code).toBe(2);
    expect(none.err).toMatch(/typo2\.ndjson: no sample could be estimated \(12 of 12 rows skipped; the reasons are above\); nothing was written; sensor "ft_right" got no readings; the log's channel "ft_rigth" is ignored — did you mean "ft_right"\?\n/);
    // "wrist_FT" is too far from "ft_left" to be suggested
    expect(none.err).not.toMatch(/did you mean "ft_left"/);
    // a CSV column: named by its sensor part
    const csv = demoCsv(demoLines).replace(/(^|,)ft_left\./g, '$1FT_left.');
    const c = await run(['estimate', DEMO, '--data', file('typo.csv', csv), '--out', '-']);
    expect(c.code).toBe(0);
    expect(c.err).toContain('sensor "ft_left" got no readings; the log\'s columns "FT_left.…" are ignored — did you mean "ft_left"?');
  });

  it('a CSV header that lacks a column but has one of a close name: did you mean', async () => {
    const csv = demoCsv(demoLines).replace(/(^|,)q\.l_knee(,|$)/m, '$1q.L_knee$2');
    const r = await run(['estimate', DEMO, '--data', file('missing.csv', csv), '--out', '-']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/missing\.csv: CSV header \(line 1\): missing column q\.l_knee \(the header has "q\.L_knee" — did you mean "q\.l_knee"\?\)/);
  });
});
