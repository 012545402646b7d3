/**
 * Line charts as standalone SVG strings, computed with d3-scale, d3-shape and d3-format and no DOM,
 * so the same function draws the SVG files in Node and the charts of the HTML report in the
 * browser (its source is inlined there and called with the page's d3). `drawLineChart` therefore
 * references nothing outside itself but its `d3` argument.
 * Source: the d3 v7 API (scaleLinear, scaleLog, line, format).
 *
 * Structure of the SVG (what tests and the browser check look for): one `<path class="series">`
 * per drawn series (data-series = its name), axes and grid as `<line>`, points as `<circle>` with a
 * `<title>` tooltip, the legend as `<line>` + `<text>`.
 */
import type * as D3 from 'd3';
import * as d3 from 'd3';

export interface ChartSeries {
  name: string;
  points: [number, number][];
  /** CSS colour (default: a palette colour by position) */
  color?: string;
  /** dashed line (used for the paper's data) */
  dashed?: boolean;
  /** draw a marker at every point (default: when the series has at most 40 points and the chart at most 8 series) */
  markers?: boolean;
}

export interface ChartSpec {
  id: string;
  title: string;
  subtitle?: string;
  xLabel: string;
  yLabel: string;
  xLog?: boolean;
  yLog?: boolean;
  width?: number;
  height?: number;
  series: ChartSeries[];
  /** lines of text under the chart */
  notes?: string[];
}

/**
 * The chart as an SVG document. Points that a log axis cannot show (≤ 0) or that are not finite
 * are left out, and a series left with no point is listed in the legend as "(no data)".
 */
export function drawLineChart(d3: typeof D3, spec: ChartSpec): string {
  const palette = ['#1f4e99', '#d1495b', '#2a9d4b', '#e4892e', '#7b4ea3', '#17a2b8', '#8c564b', '#e377c2', '#6c757d', '#bcbd22', '#003f5c', '#ff6f61', '#4caf50', '#9c27b0'];
  const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
  const r2 = (x: number) => String(Math.round(x * 100) / 100);
  const longest = Math.max(0, ...spec.series.map((s) => s.name.length + (s.points.length === 0 ? 10 : 0)));
  const legendW = Math.min(380, Math.max(150, 36 + 6.3 * longest));
  const W = spec.width ?? 500 + legendW, H = spec.height ?? 400;
  const notes = spec.notes ?? [];
  const m = { top: spec.subtitle ? 50 : 34, right: legendW + 16, bottom: 48 + 15 * notes.length, left: 70 };
  const iw = W - m.left - m.right, ih = H - m.top - m.bottom;
  const ok = (p: [number, number]) => Number.isFinite(p[0]) && Number.isFinite(p[1]) && (!spec.xLog || p[0] > 0) && (!spec.yLog || p[1] > 0);
  const series = spec.series.map((s, k) => ({ ...s, color: s.color ?? palette[k % palette.length], pts: s.points.filter(ok).sort((a, b) => a[0] - b[0]) }));
  const all = series.flatMap((s) => s.pts);
  const ext = (k: 0 | 1, log: boolean | undefined): [number, number] => {
    if (all.length === 0) return log ? [1, 10] : [0, 1];
    let lo = Math.min(...all.map((p) => p[k])), hi = Math.max(...all.map((p) => p[k]));
    if (lo === hi) { lo = log ? lo / 2 : lo - 1; hi = log ? hi * 2 : hi + 1; }
    if (!log && k === 1 && lo > 0) lo = 0;
    return [lo, hi];
  };
  const xs = spec.xLog ? d3.scaleLog().domain(ext(0, true)).range([0, iw]) : d3.scaleLinear().domain(ext(0, false)).range([0, iw]);
  const ys = spec.yLog ? d3.scaleLog().domain(ext(1, true)).range([ih, 0]) : d3.scaleLinear().domain(ext(1, false)).range([ih, 0]);
  xs.nice(); ys.nice();
  const si = d3.format('~s'), gen = d3.format('~g');
  const tickFmt = (v: number) => (Math.abs(v) >= 1000 ? si(v) : gen(v));
  const logTicks = (s: D3.ScaleLogarithmic<number, number>) => {
    const [a, b] = s.domain();
    const decades = Math.log10(b / a);
    if (decades < 1.5) return s.ticks(6);
    const step = Math.max(1, Math.ceil(decades / 8));
    const t: number[] = [];
    for (let e = Math.ceil(Math.log10(a) - 1e-9); e <= Math.floor(Math.log10(b) + 1e-9); e += step) t.push(10 ** e);
    return t;
  };
  const xt = spec.xLog ? logTicks(xs as D3.ScaleLogarithmic<number, number>) : (xs as D3.ScaleLinear<number, number>).ticks(8);
  const yt = spec.yLog ? logTicks(ys as D3.ScaleLogarithmic<number, number>) : (ys as D3.ScaleLinear<number, number>).ticks(6);
  const out: string[] = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" class="chart" id="chart-${esc(spec.id)}" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="11">`);
  out.push(`<title>${esc(spec.title)}</title>`);
  out.push('<style>.grid line{stroke:#e4e4e4;stroke-width:1}.axis line{stroke:#444;stroke-width:1}.axis text,.legend text,.note{fill:#333}'
    + '.title{font-size:14px;font-weight:bold;fill:#111}.subtitle{fill:#555}.series{fill:none;stroke-width:1.8}.label{fill:#222;font-size:12px}</style>');
  out.push(`<rect x="0" y="0" width="${W}" height="${H}" fill="white"/>`);
  out.push(`<text class="title" x="${m.left}" y="18">${esc(spec.title)}</text>`);
  if (spec.subtitle) out.push(`<text class="subtitle" x="${m.left}" y="36">${esc(spec.subtitle)}</text>`);
  out.push(`<g class="plot" transform="translate(${m.left},${m.top})">`);
  out.push('<g class="grid">');
  for (const t of xt) out.push(`<line x1="${r2(xs(t))}" x2="${r2(xs(t))}" y1="0" y2="${r2(ih)}"/>`);
  for (const t of yt) out.push(`<line x1="0" x2="${r2(iw)}" y1="${r2(ys(t))}" y2="${r2(ys(t))}"/>`);
  out.push('</g>');
  out.push(`<g class="axis x"><line x1="0" x2="${r2(iw)}" y1="${r2(ih)}" y2="${r2(ih)}"/>`);
  for (const t of xt) out.push(`<line x1="${r2(xs(t))}" x2="${r2(xs(t))}" y1="${r2(ih)}" y2="${r2(ih + 5)}"/><text x="${r2(xs(t))}" y="${r2(ih + 17)}" text-anchor="middle">${esc(tickFmt(t))}</text>`);
  out.push(`<text class="label" x="${r2(iw / 2)}" y="${r2(ih + 36)}" text-anchor="middle">${esc(spec.xLabel)}</text></g>`);
  out.push(`<g class="axis y"><line x1="0" x2="0" y1="0" y2="${r2(ih)}"/>`);
  for (const t of yt) out.push(`<line x1="-5" x2="0" y1="${r2(ys(t))}" y2="${r2(ys(t))}"/><text x="-8" y="${r2(ys(t) + 4)}" text-anchor="end">${esc(tickFmt(t))}</text>`);
  out.push(`<text class="label" transform="translate(${-56},${r2(ih / 2)}) rotate(-90)" text-anchor="middle">${esc(spec.yLabel)}</text></g>`);
  const line = d3.line<[number, number]>().x((p) => xs(p[0])).y((p) => ys(p[1]));
  out.push('<g class="lines">');
  for (const s of series) {
    if (s.pts.length === 0) continue;
    const d = (line(s.pts) ?? '').replace(/(\d+\.\d{2})\d+/g, '$1');
    out.push(`<path class="series" data-series="${esc(s.name)}" d="${d}" stroke="${s.color}"${s.dashed ? ' stroke-dasharray="6 4"' : ''}/>`);
  }
  out.push('</g><g class="points">');
  for (const s of series) {
    if (!(s.markers ?? (s.pts.length <= 40 && series.length <= 8))) continue;
    for (const p of s.pts) {
      out.push(`<circle cx="${r2(xs(p[0]))}" cy="${r2(ys(p[1]))}" r="${s.dashed ? 2 : 2.5}" fill="${s.dashed ? 'white' : s.color}" stroke="${s.color}"><title>${esc(`${s.name}: N_B = ${gen(p[0])}, ${tickFmt(p[1])}`)}</title></circle>`);
    }
  }
  out.push('</g></g>');
  out.push(`<g class="legend" transform="translate(${W - legendW},${m.top})">`);
  series.forEach((s, k) => {
    const y = 6 + 16 * k;
    out.push(`<line x1="0" x2="22" y1="${y}" y2="${y}" stroke="${s.color}" stroke-width="2"${s.dashed ? ' stroke-dasharray="6 4"' : ''}/><text x="28" y="${y + 4}">${esc(s.name)}${s.pts.length === 0 ? ' (no data)' : ''}</text>`);
  });
  out.push('</g>');
  notes.forEach((t, k) => out.push(`<text class="note" x="${m.left}" y="${r2(H - 10 - 15 * (notes.length - 1 - k))}">${esc(t)}</text>`));
  out.push('</svg>');
  return out.join('\n') + '\n';
}

/** The chart drawn with the d3 installed in node_modules (for the SVG files beside a report). */
export function chartSvg(spec: ChartSpec): string {
  return drawLineChart(d3, spec);
}

/**
 * Source of drawLineChart for inlining in a page, as `const drawLineChart = …;`. Transpilers may
 * wrap nested functions in a `__name(fn, "name")` helper (esbuild's keepNames); an identity
 * `__name` is defined first so the inlined code runs unchanged.
 */
export function drawLineChartSource(): string {
  return `const __name = (f) => f;\nconst drawLineChart = ${drawLineChart.toString()};`;
}
