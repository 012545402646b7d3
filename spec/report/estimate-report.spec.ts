/**
 * The HTML report of `sparsedyn estimate`: the series it keeps (bounded, every k-th sample, skipped
 * rows placed in time), the charts it draws (every estimated torque and contact wrench, truth and
 * ±2σ where available, units and frames on every axis), and the page rendered in headless Chromium
 * with no network (scripts/check-estimate-report.ts). In CI (CI=1) the browser check must run.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EstimateSeries } from '../../src/report/estimate-series.ts';
import { estimateCharts } from '../../src/report/estimate-page.ts';
import type { NamedEstimate } from '../../src/estimation/outputs.ts';
import { ReportSlots } from '../../src/estimation/report-values.ts';
import type { Model } from '../../src/model/model.ts';
import { runCli as run } from '../cli/run.ts';
import { NO_BROWSER } from '../package/dist.ts';

const CI = process.env.CI === '1' || process.env.CI === 'true';
const dir = mkdtempSync(join(tmpdir(), 'sparsedyn-html-'));
const DEMO = 'data/problems/humanoid-demo.json';
const demo = readFileSync('data/demo/humanoid.ndjson', 'utf8').trim().split('\n').slice(0, 40);

const named = (x: number): NamedEstimate => ({
  tau: { a: x, b: [x, 2 * x] }, qdd: {}, joint_wrenches: {},
  contact_wrenches: { foot: { torque: [x, 0, 0], force: [0, 0, 10 * x] } }, residuals: { s: 0.5 },
});

/** the places of the values of `named` (joints a, 1 DoF, and b, 2 DoF; contact foot; sensor s) */
const slots = new ReportSlots({ movingJoints: () => [{ name: 'a', nv: 1 }, { name: 'b', nv: 2 }] } as unknown as Model, ['foot'], ['s']);

describe('EstimateSeries', () => {
  it('keeps every sample up to maxPoints, then every 2nd, 4th, … (the kept samples are the multiples of the stride)', () => {
    const s = new EstimateSeries(slots, 8);
    for (let k = 0; k < 37; k++) s.add(k + 1, 0.01 * k, 1, named(k), { tau: { a: k + 0.5 } });
    expect(s.stride).toBe(8);
    expect(s.seen).toBe(37);
    expect(s.line).toEqual([1, 9, 17, 25, 33]);
    expect(s.columns.get('tau.a')).toEqual([0, 8, 16, 24, 32]);
    expect(s.columns.get('tau.b[1]')).toEqual([0, 16, 32, 48, 64]);
    expect(s.columns.get('truth.tau.a')).toEqual([0.5, 8.5, 16.5, 24.5, 32.5]);
    expect(s.columns.get('contact.foot.fz')).toEqual([0, 80, 160, 240, 320]);
    for (const c of s.columns.values()) expect(c.length).toBe(s.t.length);
  });

  it('fills NaN where a sample lacks a quantity (truth on some samples only) and places skipped rows in time', () => {
    const s = new EstimateSeries(slots);
    s.add(2, 1.0, 1, named(1), undefined);
    s.add(3, 1.1, 1, named(2), { tau: { a: 7 } });
    s.add(6, 1.4, 1, named(3), undefined);
    expect(s.columns.get('truth.tau.a')).toEqual([NaN, 7, NaN]);
    s.skip(4, 'bad row');
    s.skip(5, 'singular', 1.33);
    s.skip(1, 'header');
    // line 4 lies between lines 3 (t = 1.1) and 6 (t = 1.4); line 1 precedes every sample
    const ts = s.skippedTimes();
    expect(ts[0]).toBeCloseTo(1.2, 14);
    expect(ts.slice(1)).toEqual([1.33, 1.0]);
  });
});

describe('estimateCharts', () => {
  it('one chart per joint and unit, per contact force and torque, residuals and condition; every axis with its unit and frame', () => {
    const s = new EstimateSeries(slots);
    for (let k = 0; k < 5; k++) s.add(k + 1, 0.1 * k, 2, { ...named(k + 1), tau_std: { a: 0.1, b: [0.1, 0.2] } }, { tau: { a: k } });
    const secs = estimateCharts({
      title: 'p', summary: [], series: s, jointRows: [], contactRows: [], limit: 10, d3Source: '',
      joints: [{ name: 'a', type: 'revolute', units: ['N m'] }, { name: 'b', type: 'planar', units: ['N', 'N m'] }], contacts: ['foot'], sensors: ['s'],
    });
    const charts = secs.flatMap((x) => x.charts);
    expect(charts.map((c) => c.id)).toEqual(['residuals', 'condition', 'tau-a-Nm', 'tau-b-N', 'tau-b-Nm', 'contact-foot-force', 'contact-foot-torque']);
    for (const c of charts) {
      expect(c.xLabel).toBe('t (s)');
      expect(c.yLabel).toMatch(/\((N|N·m|dimensionless)[,)]/);
    }
    const a = charts.find((c) => c.id === 'tau-a-Nm')!;
    expect(a.series.map((x) => x.name)).toEqual(['estimate', 'truth']);
    expect(a.series[0].band!.lo).toEqual([0.8, 1.8, 2.8, 3.8, 4.8]);
    expect(a.series[1].y).toEqual([0, 1, 2, 3, 4]);
    expect(charts.find((c) => c.id === 'contact-foot-force')!.yLabel).toBe('force (N, foot frame)');
    expect(charts.find((c) => c.id === 'condition')!.hline).toEqual({ y: 10, label: 'limit 10' });
  });
});

describe('estimate --html', () => {
  const bad = [...demo];
  bad[9] = '{"t": 0.045, "q": oops';
  const log = join(dir, 'bad.ndjson');
  writeFileSync(log, bad.join('\n') + '\n');

  it('writes <out>.report.html beside a file --out, self-contained (no URL loaded), with the skipped row listed', async () => {
    const r = await run(['estimate', DEMO, '--data', log, '--out', join(dir, 'est.ndjson'), '--covariance', '-q']);
    expect(r.code).toBe(3);
    expect(r.err).toMatch(/est\.ndjson\.report\.html/);
    const html = readFileSync(join(dir, 'est.ndjson.report.html'), 'utf8');
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+href=|@import/);
    expect(html).toMatch(/<td class="num">10<\/td><td>/);
    expect(html).toMatch(/id="accuracy"/);
  });

  it('--html FILE names it, --no-html writes none, --html - is refused before anything is written', async () => {
    let r = await run(['estimate', DEMO, '--data', log, '--out', join(dir, 'named.ndjson'), '--html', join(dir, 'plots.html'), '-q']);
    expect(r.code).toBe(3);
    expect(existsSync(join(dir, 'plots.html'))).toBe(true);
    expect(existsSync(join(dir, 'named.ndjson.report.html'))).toBe(false);
    r = await run(['estimate', DEMO, '--data', log, '--out', join(dir, 'none.ndjson'), '--no-html', '-q']);
    expect(existsSync(join(dir, 'none.ndjson.report.html'))).toBe(false);
    expect(existsSync(join(dir, 'none.ndjson.report.md'))).toBe(true);
    r = await run(['estimate', DEMO, '--data', log, '--out', join(dir, 'dash.ndjson'), '--html', '-']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--html must name a file/);
    expect(existsSync(join(dir, 'dash.ndjson'))).toBe(false);
  });

  it.skipIf(NO_BROWSER !== '' && !CI)('renders in headless Chromium: every chart drawn, truth and ±2σ bands, the skipped row marked in red, the legend in the series\' colours, no network', () => {
    if (NO_BROWSER) throw new Error(`CI: the browser check must run: ${NO_BROWSER}`);
    const shot = join(dir, 'shot.png');
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/check-estimate-report.ts', join(dir, 'est.ndjson.report.html'), '--screenshot', shot], { encoding: 'utf8', timeout: 120_000 });
    expect(r.stderr).not.toMatch(/FAIL/);
    expect(r.status, r.stderr).toBe(0);
    const found = JSON.parse(r.stdout.split('\n')[0]);
    // 29 actuated joints (the unactuated floating base is not drawn), 2 contacts × (force, torque), residuals, condition
    expect(found.charts).toBe(29 + 4 + 2);
    expect(found.rendered).toBe(found.charts);
    expect(found.truthSeries).toBe(29 + 4 * 3);
    expect(found.bands).toBe(29);
    expect(found.skippedMarks).toBe(1);
    expect(found.skippedRows).toBe(1);
    expect(found.accuracyRows).toBe(29 + 4);
    // the colours as Chromium draws them (computed style): a legend swatch in its series' colour, the
    // skipped row and the condition limit red ("red vertical lines: skipped rows", the page says)
    expect(found.colours.swatches).toBeGreaterThan(29);
    expect(found.colours.swatch).toEqual({ asked: '#1f4e99', drawn: 'rgb(31, 78, 153)' });
    expect(found.colours.skipped).toEqual(['rgb(209, 73, 91)']);
    expect(found.colours.limit).toEqual(['rgb(209, 73, 91)']);
    expect(existsSync(shot)).toBe(true);
  });
});
