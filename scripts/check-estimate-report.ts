/**
 * Browser check of an estimate report (`sparsedyn estimate … --html FILE`): open the self-contained
 * page in headless Chromium (Debian's /usr/bin/chromium, driven by playwright-core) with every
 * network request refused; assert that every chart rendered (<svg class="chart"> with non-empty
 * <path class="series">), that every axis has a label with its unit, that the colours drawn are the
 * colours asked for (each legend swatch its series' colour; the skipped-row markers and the
 * condition limit red, by their computed style), and that the console stayed free of errors;
 * print what was found as JSON on one line; save a screenshot.
 *
 *   npx tsx scripts/check-estimate-report.ts REPORT.html [--screenshot OUT.png]
 *   npx tsx scripts/check-estimate-report.ts --demo [--screenshot reports/estimate/demo-report.png]
 * --demo first runs `estimate` on the demo humanoid (data/demo/humanoid.ndjson, --covariance) into a
 * temporary folder. Exit 1 on a failed check; 2 when Chromium or playwright-core is missing.
 */
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { main } from '../src/cli/main.ts';

const CHROMIUM = '/usr/bin/chromium';
/** the red of the skipped-row markers and of the condition limit (src/report/time-chart.ts), as computed styles write it */
const RED = 'rgb(209, 73, 91)';
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

function arg(name: string): string | undefined {
  const k = process.argv.indexOf(name);
  return k > 0 ? process.argv[k + 1] : undefined;
}

let report = process.argv.slice(2).find((a, k, all) => !a.startsWith('--') && !(k > 0 && all[k - 1] === '--screenshot'));
if (process.argv.includes('--demo')) {
  const dir = mkdtempSync(join(tmpdir(), 'sparsedyn-demo-report-'));
  const code = await main(['node', 'sparsedyn', 'estimate', 'data/problems/humanoid-demo.json', '--data', 'data/demo/humanoid.ndjson', '--out', join(dir, 'demo.ndjson'), '--covariance', '--quiet']);
  if (code !== 0) { process.stderr.write(`check-estimate-report: FAIL — estimate on the demo exited with ${code}\n`); process.exit(1); }
  report = join(dir, 'demo.ndjson.report.html');
}
if (report === undefined || !existsSync(report)) {
  process.stderr.write(`check-estimate-report: FAIL — no report ${report ?? '(give REPORT.html or --demo)'}\n`);
  process.exit(1);
}
report = resolve(report);
const screenshot = arg('--screenshot');

let playwright: typeof import('playwright-core');
try {
  playwright = await import('playwright-core');
} catch {
  process.stderr.write('check-estimate-report: playwright-core is not installed (npm ci installs it)\n');
  process.exit(2);
}
if (!existsSync(CHROMIUM)) {
  process.stderr.write(`check-estimate-report: no Chromium at ${CHROMIUM} (apt-get install -y chromium)\n`);
  process.exit(2);
}

const browser = await playwright.chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
const problems: string[] = [];
try {
  const page = await browser.newPage({ viewport: { width: 1340, height: 1900 } });
  page.on('console', (msg) => { if (msg.type() === 'error') problems.push(`console error: ${msg.text()}`); });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith('file:')) return route.continue();
    problems.push(`network request refused: ${url}`);
    return route.abort();
  });
  await page.goto(pathToFileURL(report).href, { waitUntil: 'load' });
  const found = await page.evaluate(() => {
    const boxes = [...document.querySelectorAll('[data-chart]')];
    return {
      charts: boxes.map((b) => ({
        id: b.getAttribute('data-chart') ?? '',
        svg: b.querySelector('svg.chart') !== null,
        series: [...b.querySelectorAll('path.series')].map((p) => ({ name: p.getAttribute('data-series') ?? '', drawn: (p.getAttribute('d') ?? '').length > 1 })),
        bands: [...b.querySelectorAll('path.band')].filter((p) => (p.getAttribute('d') ?? '').length > 1).length,
        skipped: b.querySelectorAll('line.skipped').length,
        labels: [...b.querySelectorAll('text.label')].map((t) => t.textContent ?? ''),
      })),
      accuracyRows: document.querySelectorAll('#accuracy tbody tr').length,
      skippedRows: document.querySelectorAll('#skipped tbody tr').length,
      // the colours as drawn (computed style), beside the colours the SVG asks for
      swatches: [...document.querySelectorAll('svg.chart g.legend line')].map((l) => ({ asked: l.getAttribute('stroke') ?? '', drawn: getComputedStyle(l).stroke })),
      skippedStroke: [...new Set([...document.querySelectorAll('svg.chart line.skipped')].map((l) => getComputedStyle(l).stroke))],
      limitStroke: [...new Set([...document.querySelectorAll('svg.chart line.hline')].map((l) => getComputedStyle(l).stroke))],
    };
  });
  // "#d1495b" → "rgb(209, 73, 91)", as getComputedStyle writes it
  const rgb = (hex: string) => /^#[0-9a-f]{6}$/i.test(hex) ? `rgb(${[1, 3, 5].map((k) => parseInt(hex.slice(k, k + 2), 16)).join(', ')})` : hex;
  const wrongSwatches = found.swatches.filter((w) => rgb(w.asked) !== w.drawn);
  if (wrongSwatches.length) problems.push(`${wrongSwatches.length} legend swatches drawn in another colour than theirs, e.g. ${wrongSwatches[0].drawn} for ${wrongSwatches[0].asked}`);
  for (const [what, drawn] of [['skipped-row markers', found.skippedStroke], ['condition-limit lines', found.limitStroke]] as const) {
    if (drawn.some((c) => c !== RED)) problems.push(`${what} drawn in ${drawn.join(', ')}, not red (${RED})`);
  }
  if (found.charts.length === 0) problems.push('no chart containers ([data-chart]) in the page');
  for (const c of found.charts) {
    if (!c.svg) problems.push(`chart ${c.id}: no <svg class="chart"> rendered`);
    else if (c.series.length === 0) problems.push(`chart ${c.id}: no <path class="series">`);
    else if (c.series.some((s) => !s.drawn)) problems.push(`chart ${c.id}: empty series ${c.series.filter((s) => !s.drawn).map((s) => s.name).join(', ')}`);
    if (c.labels.length !== 2 || !c.labels.every((l) => /\(.+\)/.test(l))) problems.push(`chart ${c.id}: axis labels without a unit: ${JSON.stringify(c.labels)}`);
  }
  if (screenshot) {
    mkdirSync(dirname(resolve(screenshot)), { recursive: true });
    await page.screenshot({ path: screenshot, fullPage: false });
  }
  const summary = {
    report,
    charts: found.charts.length,
    rendered: found.charts.filter((c) => c.svg).length,
    series: found.charts.reduce((s, c) => s + c.series.length, 0),
    truthSeries: found.charts.reduce((s, c) => s + c.series.filter((x) => /truth/.test(x.name)).length, 0),
    bands: found.charts.reduce((s, c) => s + c.bands, 0),
    skippedMarks: found.charts.find((c) => c.id === 'condition')?.skipped ?? 0,
    ids: found.charts.map((c) => c.id),
    accuracyRows: found.accuracyRows,
    skippedRows: found.skippedRows,
    colours: { swatches: found.swatches.length, swatch: found.swatches[0] ?? null, skipped: found.skippedStroke, limit: found.limitStroke },
  };
  process.stdout.write(JSON.stringify(summary) + '\n');
} finally {
  await browser.close();
}
if (problems.length > 0) {
  for (const p of problems) process.stderr.write(`check-estimate-report: FAIL — ${p}\n`);
  process.exit(1);
}
process.stdout.write(`check-estimate-report: OK${screenshot ? ` (screenshot ${screenshot})` : ''}\n`);
