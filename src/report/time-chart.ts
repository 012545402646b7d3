/**
 * Time-series charts of an estimation run as standalone SVG strings, computed with d3-scale,
 * d3-shape and d3-format and no DOM: the estimate report (estimate-page.ts) inlines the source of
 * `drawTimeChart` and calls it in the browser with the page's own d3, so the function references
 * nothing outside itself but its `d3` argument.
 *
 * Structure of the SVG (what the browser check looks for): `<svg class="chart">`, one
 * `<path class="series">` per drawn series (data-series = its name), one `<path class="band">` per
 * ±2σ band, one `<line class="skipped">` per skipped row (at its time), axes with their labels
 * (`<text class="label">`), a legend.
 */
import type * as D3 from 'd3';

/** One line of a time chart: values aligned with the chart's `t` (null: no value at that sample). */
export interface TimeSeries {
  name: string;
  y: (number | null)[];
  color?: string;
  /** dashed (the log's truth) */
  dashed?: boolean;
  /** a band around the line, e.g. ±2σ: lower and upper values aligned with `t` */
  band?: { lo: (number | null)[]; hi: (number | null)[]; name: string };
}

/** A chart of several series against time. */
export interface TimeChartSpec {
  id: string;
  title: string;
  /** x axis label, with unit */
  xLabel: string;
  /** y axis label, with unit and frame */
  yLabel: string;
  /** sample times, s */
  t: number[];
  series: TimeSeries[];
  /** times of skipped rows, drawn as thin red vertical lines */
  skipped?: number[];
  /** a horizontal reference line (e.g. the condition limit) */
  hline?: { y: number; label: string };
  yLog?: boolean;
  width?: number;
  height?: number;
}

/** The chart as an SVG document; points that are not finite (or ≤ 0 on a log axis) are gaps. */
export function drawTimeChart(d3: typeof D3, spec: TimeChartSpec): string {
  const palette = ['#1f4e99', '#d1495b', '#2a9d4b', '#e4892e', '#7b4ea3', '#17a2b8', '#8c564b', '#e377c2'];
  const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
  const r2 = (x: number) => String(Math.round(x * 100) / 100);
  const W = spec.width ?? 410, H = spec.height ?? 250;
  const legendRows = Math.ceil((spec.series.length + spec.series.filter((s) => s.band).length) / 3);
  const m = { top: 26 + 14 * legendRows, right: 14, bottom: 40, left: 66 };
  const iw = W - m.left - m.right, ih = H - m.top - m.bottom;
  const ok = (v: number | null | undefined): v is number => typeof v === 'number' && Number.isFinite(v) && (!spec.yLog || v > 0);
  const t = spec.t;
  let lo = Infinity, hi = -Infinity;
  const see = (v: number | null | undefined) => { if (ok(v)) { if (v < lo) lo = v; if (v > hi) hi = v; } };
  for (const s of spec.series) {
    for (const v of s.y) see(v);
    if (s.band) { for (const v of s.band.lo) see(v); for (const v of s.band.hi) see(v); }
  }
  if (spec.hline) see(spec.hline.y);
  if (!(lo <= hi)) { lo = spec.yLog ? 1 : 0; hi = spec.yLog ? 10 : 1; }
  if (lo === hi) { lo = spec.yLog ? lo / 2 : lo - 1; hi = spec.yLog ? hi * 2 : hi + 1; }
  const t0 = t.length ? t[0] : 0, t1 = t.length ? t[t.length - 1] : 1;
  const xs = d3.scaleLinear().domain(t1 > t0 ? [t0, t1] : [t0 - 1, t0 + 1]).range([0, iw]);
  const ys = spec.yLog ? d3.scaleLog().domain([lo, hi]).range([ih, 0]) : d3.scaleLinear().domain([lo, hi]).range([ih, 0]);
  ys.nice();
  const fmt = d3.format('~g');
  const xt = xs.ticks(6), yt = spec.yLog ? (ys as D3.ScaleLogarithmic<number, number>).ticks(5) : (ys as D3.ScaleLinear<number, number>).ticks(5);
  const out: string[] = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" class="chart" id="chart-${esc(spec.id)}" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="10">`);
  out.push(`<title>${esc(spec.title)}</title>`);
  // the rules are the chart's own (svg.chart …): inlined in a page, an SVG's <style> applies to the whole
  // page, and a bare `.grid line` would grey every line inside any element of class "grid"
  out.push('<style>svg.chart .gridlines line{stroke:#e8e8e8}svg.chart .axis line{stroke:#444}svg.chart .series{fill:none;stroke-width:1.4}svg.chart .band{stroke:none;opacity:0.22}'
    + 'svg.chart .skipped{stroke:#d1495b;stroke-width:1;opacity:0.7}svg.chart .hline{stroke:#d1495b;stroke-dasharray:5 3}svg.chart .title{font-size:12px;font-weight:bold}svg.chart .label{font-size:10.5px}</style>');
  out.push(`<rect width="${W}" height="${H}" fill="white"/>`);
  out.push(`<text class="title" x="${m.left}" y="14">${esc(spec.title)}</text>`);
  let k = 0;
  const legend = (name: string, color: string, kind: 'line' | 'dash' | 'band') => {
    const x = m.left + (k % 3) * Math.floor(iw / 3), y = 28 + 14 * Math.floor(k / 3);
    k++;
    const mark = kind === 'band' ? `<rect x="${x}" y="${y - 5}" width="18" height="8" fill="${color}" opacity="0.3"/>`
      : `<line x1="${x}" x2="${x + 18}" y1="${y - 1}" y2="${y - 1}" stroke="${color}" stroke-width="2"${kind === 'dash' ? ' stroke-dasharray="4 3"' : ''}/>`;
    out.push(`${mark}<text x="${x + 22}" y="${y + 3}">${esc(name)}</text>`);
  };
  out.push('<g class="legend">');
  spec.series.forEach((s, i) => {
    const c = s.color ?? palette[i % palette.length];
    legend(s.name, c, s.dashed ? 'dash' : 'line');
    if (s.band) legend(s.band.name, c, 'band');
  });
  out.push('</g>');
  out.push(`<g class="plot" transform="translate(${m.left},${m.top})">`);
  out.push('<g class="gridlines">');
  for (const v of xt) out.push(`<line x1="${r2(xs(v))}" x2="${r2(xs(v))}" y1="0" y2="${r2(ih)}"/>`);
  for (const v of yt) out.push(`<line x1="0" x2="${r2(iw)}" y1="${r2(ys(v))}" y2="${r2(ys(v))}"/>`);
  out.push('</g>');
  for (const ts of spec.skipped ?? []) {
    if (Number.isFinite(ts)) out.push(`<line class="skipped" x1="${r2(xs(ts))}" x2="${r2(xs(ts))}" y1="0" y2="${r2(ih)}"><title>skipped row at t = ${esc(fmt(ts))} s</title></line>`);
  }
  if (spec.hline && ok(spec.hline.y)) {
    out.push(`<line class="hline" x1="0" x2="${r2(iw)}" y1="${r2(ys(spec.hline.y))}" y2="${r2(ys(spec.hline.y))}"/><text x="${r2(iw - 2)}" y="${r2(ys(spec.hline.y) - 3)}" text-anchor="end" fill="#d1495b">${esc(spec.hline.label)}</text>`);
  }
  const idx = t.map((_, i) => i);
  spec.series.forEach((s, i) => {
    if (!s.band) return;
    const b = s.band;
    const area = d3.area<number>().defined((j) => ok(b.lo[j]) && ok(b.hi[j])).x((j) => xs(t[j])).y0((j) => ys(b.lo[j] as number)).y1((j) => ys(b.hi[j] as number));
    const d = (area(idx) ?? '').replace(/(\d+\.\d{2})\d+/g, '$1');
    out.push(`<path class="band" data-series="${esc(b.name)}" d="${d}" fill="${s.color ?? palette[i % palette.length]}"/>`);
  });
  spec.series.forEach((s, i) => {
    const line = d3.line<number>().defined((j) => ok(s.y[j])).x((j) => xs(t[j])).y((j) => ys(s.y[j] as number));
    const d = (line(idx) ?? '').replace(/(\d+\.\d{2})\d+/g, '$1');
    out.push(`<path class="series" data-series="${esc(s.name)}" d="${d}" stroke="${s.color ?? palette[i % palette.length]}"${s.dashed ? ' stroke-dasharray="4 3"' : ''}/>`);
  });
  out.push(`<g class="axis x"><line x1="0" x2="${r2(iw)}" y1="${r2(ih)}" y2="${r2(ih)}"/>`);
  for (const v of xt) out.push(`<line x1="${r2(xs(v))}" x2="${r2(xs(v))}" y1="${r2(ih)}" y2="${r2(ih + 4)}"/><text x="${r2(xs(v))}" y="${r2(ih + 15)}" text-anchor="middle">${esc(fmt(v))}</text>`);
  out.push(`<text class="label" x="${r2(iw / 2)}" y="${r2(ih + 31)}" text-anchor="middle">${esc(spec.xLabel)}</text></g>`);
  out.push(`<g class="axis y"><line x1="0" x2="0" y1="0" y2="${r2(ih)}"/>`);
  // a log axis has a tick per unit of each decade: the powers of ten are labelled, and the others at least 12 px from every label
  const labelled: number[] = [];
  const decade = (v: number) => Math.abs(Math.log10(v) - Math.round(Math.log10(v))) < 1e-9;
  for (const v of spec.yLog ? [...yt.filter(decade), ...yt.filter((v) => !decade(v))] : yt) {
    if (!spec.yLog || labelled.every((y) => Math.abs(y - ys(v)) >= 12)) labelled.push(ys(v));
  }
  for (const v of yt) {
    const y = ys(v);
    out.push(`<line x1="-4" x2="0" y1="${r2(y)}" y2="${r2(y)}"/>${labelled.includes(y) ? `<text x="-6" y="${r2(y + 3)}" text-anchor="end">${esc(fmt(v))}</text>` : ''}`);
  }
  out.push(`<text class="label" transform="translate(${-52},${r2(ih / 2)}) rotate(-90)" text-anchor="middle">${esc(spec.yLabel)}</text></g>`);
  out.push('</g></svg>');
  return out.join('\n');
}

/**
 * Source of drawTimeChart for inlining in a page. Transpilers may wrap nested functions in a
 * `__name(fn, "name")` helper (esbuild's keepNames); an identity `__name` is defined first.
 */
export function drawTimeChartSource(): string {
  return `var __name = (f) => f;\nconst drawTimeChart = ${drawTimeChart.toString()};`;
}
