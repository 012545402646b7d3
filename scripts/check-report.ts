/**
 * Browser check of a study report: open the self-contained HTML page in headless Chromium (Debian's
 * `chromium` at /usr/bin/chromium, driven by playwright-core) with every network request blocked,
 * assert that every chart rendered (an <svg class="chart"> with its <path class="series"> lines),
 * that the spy plot is there and that the console stayed free of errors, and save a PNG screenshot.
 * Skips (exit 0, with a message) where playwright-core or Chromium is not installed.
 *
 *   npx tsx scripts/check-report.ts [REPORT.html] [--screenshot OUT.png] [--chromium PATH]
 * Defaults: reports/figure1/index.html, its screenshot beside it (screenshot.png).
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const CHROMIUM_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

function arg(name: string): string | undefined {
  const k = process.argv.indexOf(name);
  return k > 0 ? process.argv[k + 1] : undefined;
}

const positional = process.argv.slice(2).filter((a, k, all) => !a.startsWith('--') && !(k > 0 && all[k - 1].startsWith('--')));
const report = resolve(positional[0] ?? 'reports/figure1/index.html');
const screenshot = resolve(arg('--screenshot') ?? join(dirname(report), 'screenshot.png'));
const executablePath = arg('--chromium') ?? '/usr/bin/chromium';

if (!existsSync(report)) {
  process.stderr.write(`check-report: ${report} does not exist (run \`npm run study\` first)\n`);
  process.exit(1);
}
type Playwright = typeof import('playwright-core');
let playwright: Playwright;
try {
  playwright = (await import('playwright-core')) as Playwright;
} catch {
  process.stdout.write('check-report: SKIPPED — playwright-core is not installed (npm install --no-save playwright-core)\n');
  process.exit(0);
}
if (!existsSync(executablePath)) {
  process.stdout.write(`check-report: SKIPPED — no Chromium at ${executablePath} (apt-get install -y chromium)\n`);
  process.exit(0);
}

const browser = await playwright.chromium.launch({ executablePath, headless: true, args: CHROMIUM_FLAGS });
const problems: string[] = [];
try {
  const page = await browser.newPage({ viewport: { width: 1300, height: 1700 } });
  page.on('console', (msg) => { if (msg.type() === 'error') problems.push(`console error: ${msg.text()}`); });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith('file:')) return route.continue();
    problems.push(`network request blocked: ${url}`);
    return route.abort();
  });
  await page.goto(pathToFileURL(report).href, { waitUntil: 'load' });
  const found = await page.evaluate(() => {
    const boxes = [...document.querySelectorAll('[data-chart]')];
    return {
      boxes: boxes.length,
      charts: boxes.map((b) => ({
        id: b.getAttribute('data-chart') ?? '',
        svg: b.querySelector('svg.chart') !== null,
        series: b.querySelectorAll('path.series').length,
        legend: b.querySelectorAll('.legend text').length,
        paths: [...b.querySelectorAll('path.series')].filter((p) => (p.getAttribute('d') ?? '').length > 1).length,
      })),
      spy: document.querySelectorAll('.spy svg .panel').length,
    };
  });
  if (found.boxes === 0) problems.push('no chart containers ([data-chart]) in the page');
  for (const c of found.charts) {
    if (!c.svg) problems.push(`chart ${c.id}: no <svg class="chart"> rendered`);
    else if (c.series === 0) problems.push(`chart ${c.id}: no <path class="series">`);
    else if (c.paths !== c.series) problems.push(`chart ${c.id}: ${c.series - c.paths} empty series path(s)`);
  }
  if (found.spy === 0) problems.push('no spy plot panels (.spy svg .panel)');
  await page.screenshot({ path: screenshot, fullPage: false });
  const series = found.charts.reduce((s, c) => s + c.series, 0);
  process.stdout.write(`check-report: ${report}: ${found.charts.filter((c) => c.svg).length}/${found.boxes} charts rendered, ${series} series paths, ${found.spy} spy panels; screenshot ${screenshot}\n`);
} finally {
  await browser.close();
}
if (problems.length > 0) {
  for (const p of problems) process.stderr.write(`check-report: FAIL — ${p}\n`);
  process.exit(1);
}
process.stdout.write('check-report: OK\n');
