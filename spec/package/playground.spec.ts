/**
 * The sensor-layout playground (dist/playground, built from web/) in headless Chromium, opened from
 * file:// with every request other than file:, blob: and data: refused. On the project's humanoid,
 * which starts standing on both soles with an F/T sensor in each ankle (well posed), then with real
 * mouse clicks on the drawn robot, from the robot in the air with its encoders and IMU:
 *   - two load cells under the soles (contacts with unknown wrenches): ill_posed, the soles
 *     highlighted and arrows on their wrenches; the exported problem gives `sparsedyn analyze` the
 *     same verdict;
 *   - both contacts slippery (fx = fy = 0): the verdict changes (generically well posed: deficient at
 *     the neutral pose the sliders start at, full once a slider moves);
 *   - F/T sensors in both ankles: well_posed, the load cells redundant; same verdict from the CLI;
 *   - the exported file imported back gives the same layout and verdict.
 * The time from each click to the new verdict on screen is taken from the page's trace and printed
 * (not asserted: the machine may be busy). With SPARSEDYN_WRITE_REPORTS=1 the screenshots and the
 * timings are written to reports/playground/ (`npm run playground:shots`); otherwise to a temp folder.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rnea, RneaWorkspace } from '../../src/algorithms/rnea.ts';
import { analyzeProblem } from '../../src/estimation/analysis.ts';
import { Estimator } from '../../src/estimation/estimator.ts';
import { loadEstimationSystem } from '../../src/node/problem-file.ts';
import { buildProblem, CHROMIUM, NO_BROWSER, ROOT, tempDir } from './dist.ts';

const IN_CI = process.env.CI === '1' || process.env.CI === 'true';
const WRITE = process.env.SPARSEDYN_WRITE_REPORTS === '1';
if (NO_BROWSER && !IN_CI) process.stdout.write(`playground check skipped: ${NO_BROWSER}\n`);

const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];
const PAGE = pathToFileURL(resolve(ROOT, 'dist/playground/index.html')).href;
const CLI = resolve(ROOT, 'bin/sparsedyn.mjs');

interface Timing { what: string; ms: number; received: number; started: number; worker: number }

describe.skipIf(NO_BROWSER !== '' && !IN_CI)('the playground in headless Chromium', () => {
  let ctx: BrowserContext;
  let page: Page;
  const problems: string[] = [];
  const work = tempDir('playground');
  const shots = WRITE ? resolve(ROOT, 'reports/playground') : join(work, 'shots');
  let loadMs = 0;

  beforeAll(async () => {
    expect(NO_BROWSER, 'CI runs the playground check: Chromium and playwright-core must be there').toBe('');
    expect(buildProblem(), 'dist/ must be the build of these sources (npm run build)').toBe('');
    mkdirSync(shots, { recursive: true });
    const { chromium } = await import('playwright-core');
    ctx = await chromium.launchPersistentContext(join(work, 'profile'), {
      executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, viewport: { width: 1500, height: 900 }, acceptDownloads: true,
    });
    page = ctx.pages()[0] ?? await ctx.newPage();
    page.on('console', (m) => { if (m.type() === 'error') problems.push(`console error: ${m.text()}`); });
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    await page.route('**/*', (route) => {
      const url = route.request().url();
      if (/^(file|blob|data):/.test(url)) return route.continue();
      problems.push(`request refused: ${url}`);
      return route.abort();
    });
    const t0 = Date.now();
    await page.goto(PAGE);
    await page.waitForFunction(() => document.getElementById('verdict')!.textContent !== '…');
    loadMs = Date.now() - t0;
  });
  afterAll(async () => { await ctx?.close(); });

  /** wait until the newest change is fully analysed (verdict, redundancy, flops, spy plots) */
  const settled = () => page.waitForFunction(() => {
    const pg = (window as unknown as { playground: { pending(): number } }).playground;
    return document.getElementById('status')!.dataset.done === String(pg.pending());
  });
  const text = async (id: string) => (await page.textContent(`#${id}`))!.trim();
  /** a real click where the page draws a link or joint */
  async function clickOn(name: string, alongAxis = 0): Promise<void> {
    const p = await page.evaluate(([n, a]) => (window as unknown as { playground: { screenPoint(n: string, a: number): { x: number; y: number } | null } }).playground.screenPoint(n as string, a as number), [name, alongAxis]);
    expect(p, `${name} is on screen`).not.toBeNull();
    await page.mouse.click(p!.x, p!.y);
  }
  const tool = (t: string) => page.click(`[data-tool="${t}"]`);
  const view = (az: number, el: number) => page.evaluate(([a, e]) => (window as unknown as { playground: { view(a: number, e: number): void } }).playground.view(a, e), [az, el]);
  const sensorNames = () => page.$$eval('#sensors li', (ls) => ls.map((l) => l.getAttribute('data-sensor')));
  async function exportAndAnalyze(name: string): Promise<{ verdict: string; redundant: string[]; unobservable: string[] }> {
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export')]);
    const file = join(work, `${name}.json`);
    await download.saveAs(file);
    let out: string;
    try {
      out = execFileSync(process.execPath, [CLI, 'analyze', file, '--json'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (e) {
      out = (e as { stdout: string }).stdout; // ill_posed exits with 1
    }
    const r = JSON.parse(out) as { verdict: string; redundant_sensors: string[]; unobservable: string[] };
    return { verdict: r.verdict, redundant: r.redundant_sensors, unobservable: r.unobservable };
  }
  async function shot(name: string): Promise<void> {
    const path = join(shots, `${name}.png`);
    await page.screenshot({ path: `${path}.tmp`, type: 'png' });
    renameSync(`${path}.tmp`, path);
  }

  it('loads from file:// with the humanoid standing on both soles, an F/T sensor in each ankle, all its scripts bundled', async () => {
    await settled();
    expect(await page.inputValue('#model')).toBe('humanoid');
    expect(await text('model-name')).toMatch(/^humanoid: 30 bodies, 35 DoF/);
    // the default layout is data/problems/humanoid-demo.json's: on the ground, not floating with no contact
    expect(await page.$$eval('#contacts li', (ls) => ls.map((l) => l.getAttribute('data-contact')))).toEqual(['l_sole', 'r_sole']);
    expect(await sensorNames()).toEqual(['encoders', 'imu_pelvis', 'ft_l_ankle_roll', 'ft_r_ankle_roll']);
    expect(await text('verdict')).toBe('well_posed');
    expect(await page.$$eval('link[rel="icon"]', (ls) => ls.map((l) => l.getAttribute('href')))).toEqual(['favicon.svg']);
    process.stdout.write(`playground: file:// page loaded with its first verdict in ${loadMs} ms\n`);
    await shot('1-loaded');
    // the steps below start from the robot in the air with its encoders and IMU: the F/T sensors and contacts removed
    for (const s of ['ft_l_ankle_roll', 'ft_r_ankle_roll']) { await page.click(`#sensors li[data-sensor="${s}"] button.x`); await settled(); }
    for (const c of ['l_sole', 'r_sole']) { await page.click(`#contacts li[data-contact="${c}"] button.x`); await settled(); }
    expect(await sensorNames()).toEqual(['encoders', 'imu_pelvis']);
    expect(await page.$$eval('#contacts li', (ls) => ls.length)).toBe(0);
    expect(await text('verdict')).toBe('well_posed');
  });

  it('two load cells: ill_posed, the soles highlighted with arrows on their wrenches; the CLI agrees', async () => {
    await tool('cell');
    await view(0, -12); // from the front (x forward), a little below: the soles face the camera
    await clickOn('l_sole');
    await settled();
    await clickOn('r_sole');
    await settled();
    expect(await sensorNames()).toEqual(['encoders', 'imu_pelvis', 'cell_l_sole', 'cell_r_sole']);
    expect(await page.$$eval('#contacts li', (ls) => ls.map((l) => l.getAttribute('data-contact')))).toEqual(['l_sole', 'r_sole']);
    expect(await text('verdict')).toBe('ill_posed');
    // fx, fy, tz of the two soles: only their sums are observable (the base's Newton–Euler rows)
    const dirs = await page.$$eval('#directions li', (ls) => ls.map((l) => l.textContent));
    expect(dirs).toHaveLength(3);
    expect(dirs.join(' ')).toContain('w[l_sole].tz');
    expect(dirs.join(' ')).toContain('w[r_sole].tz');
    expect(await page.$$eval('#highlighted li', (ls) => ls.map((l) => l.getAttribute('data-item')).sort())).toEqual(['l_sole', 'r_sole']);
    const arrows = await page.evaluate(() => (window as unknown as { playground: { arrows(): { variable: string }[] } }).playground.arrows());
    expect(new Set(arrows.map((a) => a.variable))).toEqual(new Set(['w[l_sole].tz', 'w[r_sole].tz', 'w[l_sole].fx', 'w[r_sole].fx', 'w[l_sole].fy', 'w[r_sole].fy']));
    await view(-35, 15);
    await shot('2-two-load-cells-ill-posed');
    const cli = await exportAndAnalyze('two-cells');
    expect(cli.verdict).toBe('ill_posed');
    expect(cli.unobservable.join(' ')).toMatch(/w\[l_sole\]\..*w\[r_sole\]\./);
  });

  it('both contacts slippery: the verdict changes; deficient at the neutral pose only', async () => {
    for (const link of ['l_sole', 'r_sole']) {
      await page.click(`#contacts li[data-contact="${link}"] button.slippery`);
      await settled();
    }
    expect(await page.$$eval('#contacts li input:checked', (ls) => ls.map((l) => l.getAttribute('data-component')))).toEqual(['fx', 'fy', 'fx', 'fy']);
    expect(await text('verdict')).toBe('generically_well_posed');
    // the sliders start at the neutral pose, a special configuration: the direction is drawn there
    expect(await page.$$eval('#directions li', (ls) => ls.map((l) => l.textContent))).toEqual(['w[l_sole].tz − w[r_sole].tz']);
    expect(await page.$$eval('#configs tr:last-child td', (ts) => ts.map((t) => t.textContent))).toEqual(['sliders', 'the configuration of the sliders', '609', 'deficient by 1']);
    expect(await text('flops')).toMatch(/^estimation \(weighted least squares \(augmented sparse LU\)\): [\d,]+ flops per sample; RNEA: [\d,]+ \(×[\d.]+\); counted at random 1$/);
    await shot('3-slippery-contacts');
    expect((await exportAndAnalyze('slippery')).verdict).toBe('generically_well_posed');
    // a slider away from the neutral pose: the analysis follows
    await page.locator('input[data-joint="l_hip_roll"]').fill('25');
    await page.waitForFunction(() => document.querySelector('#configs tr:last-child td:last-child')?.textContent === 'full');
    expect(await text('verdict')).toBe('generically_well_posed');
    await page.locator('input[data-joint="l_hip_roll"]').fill('0');
    await page.waitForFunction(() => document.querySelector('#configs tr:last-child td:last-child')?.textContent === 'deficient by 1');
  });

  it('F/T sensors in both ankles: well_posed and redundant; the CLI agrees; the export imports back', async () => {
    await tool('ft');
    // the ankle's pitch and roll joints are at one place: click the roll joint's axis rod
    await view(-20, 10);
    await clickOn('l_ankle_roll', 2.5);
    await settled();
    await clickOn('r_ankle_roll', 2.5);
    await settled();
    expect(await sensorNames()).toEqual(['encoders', 'imu_pelvis', 'cell_l_sole', 'cell_r_sole', 'ft_l_ankle_roll', 'ft_r_ankle_roll']);
    expect(await text('verdict')).toBe('well_posed');
    const redundant = (await text('redundant')).split(', ');
    expect(redundant).toEqual(expect.arrayContaining(['cell_l_sole', 'cell_r_sole']));
    expect(await page.$$eval('#directions li', (ls) => ls.length)).toBe(0);
    expect(await text('flops')).toMatch(/^estimation \(weighted least squares \(augmented sparse LU\)\): [\d,]+ flops per sample; RNEA: [\d,]+/);
    expect(await page.$$eval('#spy svg .panel', (ps) => ps.length)).toBe(2);
    await view(-35, 15);
    await shot('4-ankle-ft-well-posed');
    const cli = await exportAndAnalyze('ankle-ft');
    expect(cli.verdict).toBe('well_posed');
    // the flops shown are the estimator's and RNEA's, counted here on the exported problem
    {
      const { es, model } = loadEstimationSystem(join(work, 'ankle-ft.json'));
      const q = Float64Array.from(analyzeProblem(es, { redundancy: false }).configurations[0].q);
      const qd = new Float64Array(model.nv).fill(0.1);
      const est = new Estimator(es);
      est.estimate(q, qd, new Float64Array(es.sys.ny));
      const ws = new RneaWorkspace(model);
      rnea(model, ws, q, qd, new Float64Array(model.nv));
      const fmt = (x: number) => x.toLocaleString('en-US');
      expect(await text('flops')).toContain(`: ${fmt(est.totalFlops().total)} flops per sample; RNEA: ${fmt(ws.flops.total)} (×`);
    }
    expect(cli.redundant).toEqual(redundant);
    // import: another robot first, then the file: the same layout and verdict
    await page.selectOption('#model', 'chain:6');
    await settled();
    expect(await text('verdict')).not.toBe('');
    await page.setInputFiles('#file', join(work, 'ankle-ft.json'));
    await page.waitForFunction(() => document.getElementById('model-name')!.textContent!.startsWith('humanoid'));
    await settled();
    expect(await sensorNames()).toEqual(['encoders', 'imu_pelvis', 'cell_l_sole', 'cell_r_sole', 'ft_l_ankle_roll', 'ft_r_ankle_roll']);
    expect(await text('verdict')).toBe('well_posed');
  });

  it('a URDF dropped on the page: drawn, analysed, fixed or floating; its export reads beside the URDF', async () => {
    const urdf = readFileSync(resolve(ROOT, 'models/chain6.urdf'), 'utf8');
    await page.evaluate((text) => {
      const dt = new DataTransfer();
      dt.items.add(new File([text], 'chain6.urdf', { type: 'application/xml' }));
      document.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    }, urdf);
    await page.waitForFunction(() => document.getElementById('model-name')!.textContent!.startsWith('chain:6'));
    await settled();
    expect(await page.inputValue('#model')).toBe('chain6.urdf');
    expect(await text('model-name')).toMatch(/^chain:6: 6 bodies, 6 DoF/);
    expect(await sensorNames()).toEqual(['encoders']);
    expect(await page.$$eval('#sliders input', (ls) => ls.map((l) => l.getAttribute('data-joint')))).toEqual(['joint1', 'joint2', 'joint3', 'joint4', 'joint5', 'joint6']);
    // fixed base, every joint acceleration measured: inverse dynamics, well posed
    expect(await text('verdict')).toBe('well_posed');
    // a torque sensor on the last joint: redundant
    await tool('torque');
    await clickOn('joint6', 2.5);
    await settled();
    expect(await sensorNames()).toEqual(['encoders', 'tau_joint6']);
    expect(await text('redundant')).toBe('tau_joint6');
    const unknowns = async () => Number(/of (\d+) unknowns/.exec(await text('ranks'))![1]);
    const fixedUnknowns = await unknowns();
    copyFileSync(resolve(ROOT, 'models/chain6.urdf'), join(work, 'chain6.urdf'));
    expect((await exportAndAnalyze('chain6-fixed')).verdict).toBe('well_posed');
    // floating base, free-flying: the base's Newton–Euler rows (no force on the base) give its acceleration
    await page.click('#base');
    await settled();
    expect(await text('base')).toMatch(/^floating base/);
    expect(await unknowns()).toBeGreaterThan(fixedUnknowns);
    expect(await text('verdict')).toBe('well_posed');
    // a contact on link 3 with an unknown wrench: six more unknowns, nothing measures them
    await tool('contact');
    await clickOn('link3');
    await settled();
    expect(await page.$$eval('#contacts li', (ls) => ls.map((l) => l.getAttribute('data-contact')))).toEqual(['link3']);
    expect(await text('verdict')).toBe('ill_posed');
    expect((await exportAndAnalyze('chain6-floating-contact')).verdict).toBe('ill_posed');
    // a problem file that does not parse: the message names the field, the layout stays
    await page.setInputFiles('#file', { name: 'bad.json', mimeType: 'application/json', buffer: Buffer.from('{"model": "humanoid", "base": "flying"}') });
    await page.waitForFunction(() => document.getElementById('error')!.textContent !== '');
    expect(await text('error')).toBe('imported problem: "base" must be "fixed" or "floating"');
    expect(await page.inputValue('#model')).toBe('chain6.urdf');
  });

  it('reports the click-to-verdict times and no page problems', async () => {
    const timings = await page.evaluate(() => (window as unknown as { playground: { timings: Timing[] } }).playground.timings) as Timing[];
    const clicks = timings.filter((t) => /^(cell|ft) on .*_(sole|ankle_roll)$/.test(t.what));
    expect(clicks.length).toBe(4);
    const ms = clicks.map((t) => t.ms).sort((a, b) => a - b);
    const median = (ms[1] + ms[2]) / 2;
    const renders = (await page.evaluate(() => (window as unknown as { playground: { renderMs: number[] } }).playground.renderMs)).slice().sort((a, b) => a - b);
    process.stdout.write(`playground: ${renders.length} frames rendered, median ${renders[renders.length >> 1].toFixed(0)} ms\n`);
    const line = `playground: click → verdict on the humanoid ${clicks.map((t) => t.ms.toFixed(0)).join(', ')} ms (median ${median.toFixed(0)} ms; worker started after ${clicks.map((t) => t.started.toFixed(0)).join(', ')} ms, worked ${clicks.map((t) => t.worker.toFixed(0)).join(', ')} ms, result on the page after ${clicks.map((t) => t.received.toFixed(0)).join(', ')} ms); file:// load → first verdict ${loadMs} ms`;
    process.stdout.write(`${line}\n`);
    if (WRITE) {
      const out = resolve(ROOT, 'reports/playground/timings.md');
      writeFileSync(`${out}.tmp`, `# Playground timings\n\nMeasured by \`npm run playground:shots\` (spec/package/playground.spec.ts in headless Chromium, software rendering), ${new Date().toISOString().slice(0, 10)}:\n\n| change | click → verdict on screen | click → worker starts | analysis in the worker | click → result on the page |\n| --- | --- | --- | --- | --- |\n${clicks.map((t) => `| ${t.what} | ${t.ms.toFixed(0)} ms | ${t.started.toFixed(0)} ms | ${t.worker.toFixed(0)} ms | ${t.received.toFixed(0)} ms |`).join('\n')}\n\nMedian click → verdict: ${median.toFixed(0)} ms. Page load from file:// to the first verdict: ${loadMs} ms. Load average of the machine (1 min) at the end: ${loadavg()[0].toFixed(1)}.\n`);
      renameSync(`${out}.tmp`, out);
    }
    expect(problems).toEqual([]);
  });
});
