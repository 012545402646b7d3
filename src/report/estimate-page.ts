/**
 * The HTML report of `sparsedyn estimate`: one self-contained page (d3's minified bundle, the chart
 * code and the data inlined; no network) with the time series of every estimated joint torque and
 * contact wrench (the log's truth dashed when it carries it, a ±2σ band when a covariance was
 * computed), every sensor's normalized residual, the per-sample condition figure with its limit,
 * skipped rows marked on every chart, and a table of RMSE and largest error per joint and contact.
 * Charts are drawn in the browser by drawTimeChart (time-chart.ts).
 */
import type { AccuracyRow } from '../estimation/outputs.ts';
import type { EstimateSeries } from './estimate-series.ts';
import { drawTimeChartSource, type TimeChartSpec, type TimeSeries } from './time-chart.ts';

/** A joint as the report needs it: name, kind, and the unit of each degree of freedom. */
export interface ReportJoint { name: string; type: string; units: string[] }

export interface EstimatePageInput {
  /** page title (the problem file) */
  title: string;
  /** lines of the run's summary (plain text) */
  summary: string[];
  joints: ReportJoint[];
  /** contact links */
  contacts: string[];
  /** sensors with a residual */
  sensors: string[];
  series: EstimateSeries;
  jointRows: AccuracyRow[];
  contactRows: AccuracyRow[];
  /** the condition limit, or null when the condition was not computed */
  limit: number | null;
  /** d3.min.js source */
  d3Source: string;
}

const PALETTE = ['#1f4e99', '#d1495b', '#2a9d4b', '#e4892e', '#7b4ea3', '#17a2b8'];
const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const unitText = (u: string): string => u.replace('N m', 'N·m').replace('^2', '²');
/** 6 significant digits, null for a missing value (NaN) */
const r6 = (a: number[]): (number | null)[] => a.map((x) => (Number.isFinite(x) ? Number(x.toPrecision(6)) : null));
const g = (x: number): string => (x === 0 ? '0' : Math.abs(x) >= 1e4 || Math.abs(x) < 1e-3 ? x.toExponential(2) : x.toPrecision(3));

/** The chart specs of a run (drawn in the page; exported for tests). */
export function estimateCharts(input: EstimatePageInput): { section: string; charts: TimeChartSpec[]; notes: string[] }[] {
  const s = input.series;
  const t = s.t.map((x) => Number(x.toPrecision(9)));
  const skipped = s.skippedTimes().filter(Number.isFinite);
  const col = (k: string) => s.columns.get(k);
  const xLabel = 't (s)';
  const sections: { section: string; charts: TimeChartSpec[]; notes: string[] }[] = [];
  const W = 410;
  // joint torques: one chart per joint and unit (a floating base: force, then torque)
  const tau: TimeChartSpec[] = [], tauNotes: string[] = [];
  for (const j of input.joints) {
    const keys = j.units.map((_, k) => (j.units.length === 1 ? j.name : `${j.name}[${k}]`));
    if (keys.every((k) => (col(`tau.${k}`) ?? [0]).every((v) => v === 0) && !col(`truth.tau.${k}`))) {
      tauNotes.push(`${j.name}: not actuated (τ = 0 at every sample), not drawn.`);
      continue;
    }
    const byUnit = new Map<string, number[]>();
    j.units.forEach((u, k) => { const a = byUnit.get(u) ?? []; a.push(k); byUnit.set(u, a); });
    for (const [unit, ks] of byUnit) {
      const series: TimeSeries[] = [];
      for (const [c, k] of ks.entries()) {
        const key = j.units.length === 1 ? j.name : `${j.name}[${k}]`;
        const est = col(`tau.${key}`);
        if (!est) continue;
        const color = PALETTE[c % PALETTE.length];
        const sub = ks.length > 1 || j.units.length > 1 ? ` [${k}]` : '';
        const std = col(`tau_std.${key}`);
        const y = r6(est);
        series.push({
          name: `estimate${sub}`, y, color,
          band: std ? { name: `±2σ${sub}`, lo: r6(est.map((v, i) => v - 2 * std[i])), hi: r6(est.map((v, i) => v + 2 * std[i])) } : undefined,
        });
        const tr = col(`truth.tau.${key}`);
        if (tr) series.push({ name: `truth${sub}`, y: r6(tr), color: c === 0 ? '#e4892e' : color, dashed: true });
      }
      if (series.length === 0) continue;
      const frame = j.type === 'floating' ? (unit === 'N' ? 'base force, base frame' : 'base torque, base frame') : j.type === 'prismatic' ? 'along the joint axis' : 'about the joint axis';
      tau.push({ id: `tau-${j.name}-${unit.replace(/\W/g, '')}`, title: `τ ${j.name}`, xLabel, yLabel: `τ (${unitText(unit)}, ${frame})`, t, series, skipped, width: W });
    }
  }
  const diag: TimeChartSpec[] = [];
  const res: TimeSeries[] = [];
  input.sensors.forEach((name, k) => { const c = col(`residual.${name}`); if (c) res.push({ name, y: r6(c), color: PALETTE[k % PALETTE.length] }); });
  if (res.length) diag.push({ id: 'residuals', title: 'normalized residual of each sensor', xLabel, yLabel: 'RMS residual / σ (dimensionless)', t, series: res, skipped, width: 620 });
  if (input.limit !== null) {
    diag.push({
      id: 'condition', title: 'condition of each estimate (skipped rows in red)', xLabel, yLabel: 'condition (dimensionless, 1 = typical)', t,
      series: [{ name: 'condition', y: r6(s.condition), color: PALETTE[0] }], skipped, hline: { y: input.limit, label: `limit ${input.limit}` }, yLog: true, width: 620,
    });
  }
  sections.push({ section: 'Residuals and condition', charts: diag, notes: [] });
  sections.push({ section: 'Joint torques', charts: tau, notes: tauNotes });
  // contact wrenches, in the contact link's frame
  const wr: TimeChartSpec[] = [];
  for (const link of input.contacts) {
    for (const [part, comps, unit] of [['force', ['fx', 'fy', 'fz'], 'N'], ['torque', ['tx', 'ty', 'tz'], 'N·m']] as const) {
      const series: TimeSeries[] = [];
      comps.forEach((c, k) => {
        const est = col(`contact.${link}.${c}`);
        if (!est) return;
        series.push({ name: c, y: r6(est), color: PALETTE[k] });
        const tr = col(`truth.contact.${link}.${c}`);
        if (tr) series.push({ name: `${c} truth`, y: r6(tr), color: PALETTE[k], dashed: true });
      });
      if (series.length === 0) continue;
      wr.push({
        id: `contact-${link}-${part}`, title: `contact ${link}: ${part} of the environment on the link`, xLabel,
        yLabel: part === 'force' ? `force (${unit}, ${link} frame)` : `torque (${unit}, about the ${link} origin, ${link} frame)`, t, series, skipped, width: W,
      });
    }
  }
  sections.push({ section: 'Contact wrenches', charts: wr, notes: [] });
  return sections;
}

/** The page. */
export function estimatePage(input: EstimatePageInput): string {
  const sections = estimateCharts(input);
  const s = input.series;
  const out: string[] = [];
  out.push('<!DOCTYPE html>', '<html lang="en"><head><meta charset="utf-8">', `<title>Estimation report: ${esc(input.title)}</title>`);
  out.push('<style>body{font-family:sans-serif;margin:16px 24px;color:#222;max-width:1360px}h1{font-size:20px}h2{font-size:16px;margin-top:22px}'
    + 'pre{background:#f6f6f6;padding:8px;font-size:12px;white-space:pre-wrap}.charts{display:flex;flex-wrap:wrap;gap:6px}'
    + 'table{border-collapse:collapse;font-size:12px;margin:6px 0}td,th{border:1px solid #ccc;padding:2px 8px}td.num{text-align:right;font-variant-numeric:tabular-nums}'
    + '.note{color:#555;font-size:12px}</style></head><body>');
  out.push(`<h1>Estimation report: ${esc(input.title)}</h1>`);
  out.push(`<pre>${esc(input.summary.join('\n'))}</pre>`);
  out.push(`<p class="note">Time t in s from the log. Joint torques in N·m about a revolute joint's axis (N along a prismatic one); a floating base's in its own frame. Contact wrenches: the wrench the environment applies on the contact link, in the link's frame, torque about its origin. Residuals: RMS over a sensor's readings of residual / standard deviation. Truth (dashed) when the log carries it; ±2σ bands when a covariance was computed (--covariance). Red vertical lines: skipped rows (${s.skipped.length}).${s.stride > 1 ? ` Charts show every ${s.stride}th of ${s.seen} samples; the table uses all.` : ''}</p>`);
  for (const sec of sections) {
    if (sec.charts.length === 0 && sec.notes.length === 0) continue;
    out.push(`<h2>${esc(sec.section)}</h2><div class="charts">`);
    for (const c of sec.charts) out.push(`<div class="chart-box" id="chart-box-${esc(c.id)}" data-chart="${esc(c.id)}"></div>`);
    out.push('</div>');
    for (const n of sec.notes) out.push(`<p class="note">${esc(n)}</p>`);
  }
  out.push('<h2>Accuracy against the log\'s truth</h2>');
  const rows = [...input.jointRows, ...input.contactRows];
  if (rows.length === 0) out.push('<p>The log carries no truth for the estimated joints and contacts: no accuracy figure.</p>');
  else {
    out.push('<table id="accuracy"><thead><tr><th>joint or contact</th><th>unit</th><th>samples</th><th>RMSE</th><th>max error</th><th>max |truth|</th><th>max rel. error</th></tr></thead><tbody>');
    for (const r of rows) {
      out.push(`<tr><td>${esc(r.name)}</td><td>${esc(unitText(r.unit))}</td><td class="num">${r.samples}</td><td class="num">${g(r.rmse)}</td><td class="num">${g(r.max_error)}</td><td class="num">${g(r.max_truth)}</td><td class="num">${r.max_rel_error === null ? '— (truth 0)' : r.max_rel_error.toExponential(2)}</td></tr>`);
    }
    out.push('</tbody></table>');
  }
  out.push('<h2>Skipped rows</h2>');
  if (s.skipped.length === 0) out.push('<p>None.</p>');
  else {
    out.push('<table id="skipped"><thead><tr><th>line</th><th>reason</th></tr></thead><tbody>');
    for (const r of s.skipped.slice(0, 500)) out.push(`<tr><td class="num">${r.line}</td><td>${esc(r.message)}</td></tr>`);
    if (s.skipped.length > 500) out.push(`<tr><td>…</td><td>${s.skipped.length - 500} more (all in the Markdown report)</td></tr>`);
    out.push('</tbody></table>');
  }
  out.push(`<script>/* d3 (https://d3js.org), ISC licence */\n${input.d3Source.replace(/<\/script/gi, '<\\/script')}</script>`);
  const data = JSON.stringify(sections.flatMap((x) => x.charts)).replace(/</g, '\\u003c');
  out.push(`<script>\n${drawTimeChartSource()}\nconst CHARTS = ${data};\n`
    + 'for (const spec of CHARTS) {\n  const el = document.getElementById("chart-box-" + spec.id);\n  if (el) el.innerHTML = drawTimeChart(d3, spec);\n}\n</script>');
  out.push('</body></html>');
  return out.join('\n') + '\n';
}
