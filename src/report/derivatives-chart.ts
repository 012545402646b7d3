/**
 * The chart of the finite-difference check (Saccon et al. (2017) Figure 5): max and mean error of geometric
 * central differences against an analytic derivative versus the step δ, both axes logarithmic, as a
 * standalone SVG string computed with d3-scale and d3-shape (no DOM). Imported by scripts only,
 * never by numerical code. Guide lines show the two regimes: truncation ∝ δ² and round-off ∝ ε/δ.
 */
import { line, scaleLog } from 'd3';

export interface SweepSeries {
  name: string;
  /** (δ, error) pairs; points with a non-positive or non-finite coordinate are left out */
  points: readonly (readonly [number, number])[];
  color?: string;
  /** dashed (used for the mean errors) */
  dashed?: boolean;
}

export interface SweepChartSpec {
  title: string;
  subtitle?: string;
  series: readonly SweepSeries[];
  width?: number;
  height?: number;
  /** draw the δ² and ε/δ guide lines through the lowest point (default true) */
  guides?: boolean;
}

const PALETTE = ['#1f4e99', '#d1495b', '#2a9d4b', '#e4892e', '#7b4ea3', '#17a2b8', '#8c564b', '#6c757d'];

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function r2(x: number): string {
  return String(Math.round(x * 100) / 100);
}

/** The δ sweep as an SVG document (error vs δ, log-log, δ decreasing to the right as in Figure 5). */
export function sweepChartSvg(spec: SweepChartSpec): string {
  const W = spec.width ?? 820, H = spec.height ?? 460, legendW = 250;
  const m = { top: spec.subtitle ? 52 : 36, right: legendW + 16, bottom: 50, left: 72 };
  const iw = W - m.left - m.right, ih = H - m.top - m.bottom;
  const ok = (p: readonly [number, number]) => p[0] > 0 && p[1] > 0 && Number.isFinite(p[0]) && Number.isFinite(p[1]);
  const series = spec.series.map((s, k) => ({ ...s, color: s.color ?? PALETTE[k % PALETTE.length], pts: s.points.filter(ok).map((p) => [p[0], p[1]] as [number, number]).sort((a, b) => b[0] - a[0]) }));
  const all = series.flatMap((s) => s.pts);
  if (all.length === 0) throw new RangeError(`sweepChartSvg: "${spec.title}" has no point with positive δ and error`);
  const dx = [Math.min(...all.map((p) => p[0])), Math.max(...all.map((p) => p[0]))];
  const dy = [Math.min(...all.map((p) => p[1])), Math.max(...all.map((p) => p[1]))];
  // δ decreasing from left to right (Saccon et al. (2017) Figure 5 reads towards small δ)
  const xs = scaleLog().domain([dx[1], dx[0]]).range([0, iw]).nice();
  const ys = scaleLog().domain([dy[0] / 3, dy[1] * 3]).range([ih, 0]).nice();
  const decades = (lo: number, hi: number) => {
    const t: number[] = [];
    const a = Math.ceil(Math.log10(Math.min(lo, hi)) - 1e-9), b = Math.floor(Math.log10(Math.max(lo, hi)) + 1e-9);
    const step = Math.max(1, Math.ceil((b - a) / 10));
    for (let e = a; e <= b; e += step) t.push(10 ** e);
    return t;
  };
  const [x0, x1] = xs.domain(), [y0, y1] = ys.domain();
  const xt = decades(x0, x1), yt = decades(y0, y1);
  const exp = (v: number) => `1e${Math.round(Math.log10(v))}`;
  const out: string[] = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="11">`);
  out.push(`<title>${esc(spec.title)}</title>`);
  out.push('<style>.grid line{stroke:#e6e6e6}.axis line{stroke:#444}.title{font-size:14px;font-weight:bold}.subtitle{fill:#555}.series{fill:none;stroke-width:1.8}.guide{fill:none;stroke:#999;stroke-width:1;stroke-dasharray:2 3}</style>');
  out.push(`<rect width="${W}" height="${H}" fill="white"/>`);
  out.push(`<text class="title" x="${m.left}" y="20">${esc(spec.title)}</text>`);
  if (spec.subtitle) out.push(`<text class="subtitle" x="${m.left}" y="38">${esc(spec.subtitle)}</text>`);
  out.push(`<g transform="translate(${m.left},${m.top})">`);
  out.push('<g class="grid">');
  for (const t of xt) out.push(`<line x1="${r2(xs(t))}" x2="${r2(xs(t))}" y1="0" y2="${r2(ih)}"/>`);
  for (const t of yt) out.push(`<line x1="0" x2="${r2(iw)}" y1="${r2(ys(t))}" y2="${r2(ys(t))}"/>`);
  out.push('</g>');
  out.push(`<g class="axis"><line x1="0" x2="${r2(iw)}" y1="${r2(ih)}" y2="${r2(ih)}"/><line x1="0" x2="0" y1="0" y2="${r2(ih)}"/>`);
  for (const t of xt) out.push(`<text x="${r2(xs(t))}" y="${r2(ih + 16)}" text-anchor="middle">${exp(t)}</text>`);
  for (const t of yt) out.push(`<text x="-8" y="${r2(ys(t) + 4)}" text-anchor="end">${exp(t)}</text>`);
  out.push(`<text x="${r2(iw / 2)}" y="${r2(ih + 38)}" text-anchor="middle">step δ</text>`);
  out.push(`<text transform="translate(-54,${r2(ih / 2)}) rotate(-90)" text-anchor="middle">error / max |analytic entry|</text></g>`);
  const path = line<[number, number]>().x((p) => xs(p[0])).y((p) => ys(p[1]));
  const clip = (d: string | null) => (d ?? '').replace(/(\d+\.\d{2})\d+/g, '$1');
  if (spec.guides ?? true) {
    // through the lowest point (δ*, e*): truncation e* (δ/δ*)², round-off e* δ*/δ
    const best = all.reduce((a, b) => (b[1] < a[1] ? b : a));
    const gx = [x0, x1].sort((a, b) => a - b);
    const pts = (f: (d: number) => number) => {
      const p: [number, number][] = [];
      for (let k = 0; k <= 40; k++) {
        const d = gx[0] * (gx[1] / gx[0]) ** (k / 40);
        const e = f(d);
        if (e >= y0 && e <= y1) p.push([d, e]);
      }
      return p;
    };
    out.push(`<path class="guide" d="${clip(path(pts((d) => best[1] * (d / best[0]) ** 2)))}"/>`);
    out.push(`<path class="guide" d="${clip(path(pts((d) => best[1] * best[0] / d)))}"/>`);
  }
  for (const s of series) {
    if (s.pts.length === 0) continue;
    out.push(`<path class="series" data-series="${esc(s.name)}" d="${clip(path(s.pts))}" stroke="${s.color}"${s.dashed ? ' stroke-dasharray="6 4"' : ''}/>`);
    for (const p of s.pts) out.push(`<circle cx="${r2(xs(p[0]))}" cy="${r2(ys(p[1]))}" r="2.2" fill="${s.dashed ? 'white' : s.color}" stroke="${s.color}"><title>${esc(`${s.name}: δ = ${p[0].toExponential(1)}, error ${p[1].toExponential(2)}`)}</title></circle>`);
  }
  out.push('</g>');
  out.push(`<g transform="translate(${W - legendW},${m.top})">`);
  series.forEach((s, k) => {
    const y = 6 + 16 * k;
    out.push(`<line x1="0" x2="22" y1="${y}" y2="${y}" stroke="${s.color}" stroke-width="2"${s.dashed ? ' stroke-dasharray="6 4"' : ''}/><text x="28" y="${y + 4}">${esc(s.name)}</text>`);
  });
  if (spec.guides ?? true) {
    const y = 6 + 16 * series.length + 6;
    out.push(`<line x1="0" x2="22" y1="${y}" y2="${y}" class="guide"/><text x="28" y="${y + 4}">guides ∝ δ² and ∝ ε/δ</text>`);
  }
  out.push('</g></svg>');
  return out.join('\n') + '\n';
}
