/**
 * Spy plots of Nori's system as a standalone SVG string (no DOM): the pattern of D as assembled
 * (body blocks marked), after the offline permutations P D Q with its block triangular form, and
 * of the factors L+U with the fill entries in another colour.
 * Source: Nori (2017) §IV-D, §V-D (the worst-case pattern and its ordering); Davis, Direct Methods for
 * Sparse Linear Systems, §7 (BTF) for what the panels show. Geometry with d3-scale and d3-path.
 */
import { format, path, scaleLinear, scaleLog } from 'd3';
import type { SymbolicSystem } from '../assembly/system.ts';
import type { SymbolicLU } from '../sparse/symbolic.ts';

/** entry classes: an entry of the matrix shown, or fill (in L+U, not in P D Q) */
export const SPY_ENTRY = 0;
export const SPY_FILL = 1;

export interface SpyPanel {
  /** short id (used as the panel's element id) and title */
  id: string;
  title: string;
  m: number;
  n: number;
  /** the entries to draw and their class (SPY_ENTRY or SPY_FILL) */
  rows: Int32Array;
  cols: Int32Array;
  cls: Uint8Array;
  /** row and column group boundaries drawn as thin lines (e.g. where each body's rows start) */
  rowBreaks?: readonly number[];
  colBreaks?: readonly number[];
  /** diagonal blocks (boundaries, length nblocks+1) drawn as squares when of size ≥ 2 */
  blocks?: Int32Array;
}

export interface SpyOptions {
  /** side of each panel in px (default 420) */
  panelSize?: number;
  /** above this many rows or columns, entries are aggregated into one cell per pixel (default 3000) */
  aggregateAbove?: number;
  /** above this many group boundaries per axis, they are not drawn (default 400) */
  maxBreaks?: number;
  /** caption under the panels */
  caption?: string;
}

const fmt = format(',d');

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** a coordinate with at most 3 decimals */
function c3(x: number): string {
  return String(Math.round(x * 1000) / 1000);
}

/** The three panels for one problem: D as assembled, P D Q with the BTF blocks, L+U with fill. */
export function spyPanels(sys: SymbolicSystem, S: SymbolicLU): SpyPanel[] {
  const A = sys.pattern, n = sys.n, nz = A.Ap[n], model = sys.model, L = sys.layout;
  if (S.n !== n || S.nnz !== nz) throw new RangeError(`spyPanels: the SymbolicLU (n = ${S.n}, nnz = ${S.nnz}) does not belong to the system "${sys.problem.name}" (n = ${n}, nnz = ${nz})`);
  const rows = new Int32Array(nz), cols = new Int32Array(nz);
  for (let j = 0; j < n; j++) for (let t = A.Ap[j]; t < A.Ap[j + 1]; t++) { rows[t] = A.Ai[t]; cols[t] = j; }
  const rowBreaks: number[] = [], colBreaks: number[] = [];
  for (let i = 1; i < model.nb; i++) { rowBreaks.push(sys.rowA[i]); colBreaks.push(L.a[i]); }
  const nDyn = model.nb > 0 ? sys.rowTau[model.nb - 1] + model.nvi[model.nb - 1] : 0;
  if (nDyn < sys.m) rowBreaks.push(nDyn);
  const assembled: SpyPanel = {
    id: 'assembled',
    title: `D as assembled: ${fmt(sys.m)}×${fmt(n)}, ${fmt(nz)} nonzeros, ${fmt(model.nb)} bodies`,
    m: sys.m, n, rows, cols, cls: new Uint8Array(nz), rowBreaks, colBreaks,
  };
  const qinv = new Int32Array(n);
  for (let k = 0; k < n; k++) qinv[S.q[k]] = k;
  const prow = new Int32Array(nz), pcol = new Int32Array(nz);
  for (let t = 0; t < nz; t++) { prow[t] = S.pinv[rows[t]]; pcol[t] = qinv[cols[t]]; }
  const permuted: SpyPanel = {
    id: 'permuted',
    title: `P D Q: ${fmt(S.nblocks)} BTF blocks, largest ${fmt(S.maxBlock)}`,
    m: n, n, rows: prow, cols: pcol, cls: new Uint8Array(nz), blocks: S.r,
  };
  // L+U: per column k of C, U above the pivot, the pivot, L below, and the off-diagonal blocks
  const total = S.luNnz + S.offNnz;
  const lr = new Int32Array(total), lc = new Int32Array(total), lcls = new Uint8Array(total);
  const inC = new Int32Array(n).fill(-1);
  let e = 0, fill = 0;
  for (let k = 0; k < n; k++) {
    for (let t = S.Bp[k]; t < S.Bp[k + 1]; t++) inC[S.Bi[t]] = k;
    const put = (i: number, original: boolean) => {
      lr[e] = i; lc[e] = k;
      lcls[e] = original ? SPY_ENTRY : SPY_FILL;
      if (!original) fill++;
      e++;
    };
    for (let t = S.Up[k]; t < S.Up[k + 1]; t++) put(S.Ui[t], inC[S.Ui[t]] === k);
    put(k, inC[k] === k);
    for (let t = S.Lp[k]; t < S.Lp[k + 1]; t++) put(S.Li[t], inC[S.Li[t]] === k);
    for (let t = S.Op[k]; t < S.Op[k + 1]; t++) put(S.Oi[t], true);
  }
  const factors: SpyPanel = {
    id: 'factors',
    title: `L+U: ${fmt(total)} entries, ${fmt(fill)} fill`,
    m: n, n, rows: lr, cols: lc, cls: lcls, blocks: S.r,
  };
  return [assembled, permuted, factors];
}

/** One panel's SVG group at (x0, y0); `drawn.breaks` is set when group boundaries were drawn. */
function panelSvg(p: SpyPanel, x0: number, y0: number, size: number, opts: Required<Omit<SpyOptions, 'caption'>>, drawn: { breaks: boolean }): string {
  const side = Math.max(p.m, p.n, 1);
  const sx = scaleLinear().domain([0, side]).range([0, size]);
  const cell = sx(1);
  const out: string[] = [];
  const counts = [0, 0];
  for (let t = 0; t < p.cls.length; t++) counts[p.cls[t]]++;
  out.push(`<g class="panel" id="panel-${esc(p.id)}" transform="translate(${c3(x0)},${c3(y0)})" data-rows="${p.m}" data-cols="${p.n}" data-entries="${counts[SPY_ENTRY]}" data-fill="${counts[SPY_FILL]}">`);
  out.push(`<text class="title" x="0" y="-8">${esc(p.title)}</text>`);
  out.push(`<rect class="frame" x="0" y="0" width="${c3(sx(p.n))}" height="${c3(sx(p.m))}"/>`);
  const breaks = path();
  if ((p.rowBreaks?.length ?? 0) <= opts.maxBreaks && (p.colBreaks?.length ?? 0) <= opts.maxBreaks) {
    for (const r of p.rowBreaks ?? []) { breaks.moveTo(0, sx(r)); breaks.lineTo(sx(p.n), sx(r)); }
    for (const c of p.colBreaks ?? []) { breaks.moveTo(sx(c), 0); breaks.lineTo(sx(c), sx(p.m)); }
  }
  const d = breaks.toString();
  if (d) { out.push(`<path class="breaks" d="${d}"/>`); drawn.breaks = true; }
  if (side <= opts.aggregateAbove) {
    // one rect per entry
    for (const k of [SPY_ENTRY, SPY_FILL]) {
      if (counts[k] === 0) continue;
      out.push(`<g class="${k === SPY_ENTRY ? 'nz' : 'fill'}">`);
      const w = c3(Math.max(cell, 0.001));
      for (let t = 0; t < p.cls.length; t++) {
        if (p.cls[t] !== k) continue;
        out.push(`<rect x="${c3(sx(p.cols[t]))}" y="${c3(sx(p.rows[t]))}" width="${w}" height="${w}"/>`);
      }
      out.push('</g>');
    }
  } else {
    // one cell per pixel: `bin` rows and columns per cell, opacity by the number of entries
    const bin = Math.ceil(side / size);
    const g = Math.ceil(side / bin);
    const w = c3(sx(bin));
    for (const k of [SPY_ENTRY, SPY_FILL]) {
      if (counts[k] === 0) continue;
      const grid = new Map<number, number>();
      for (let t = 0; t < p.cls.length; t++) {
        if (p.cls[t] !== k) continue;
        const key = Math.floor(p.rows[t] / bin) * g + Math.floor(p.cols[t] / bin);
        grid.set(key, (grid.get(key) ?? 0) + 1);
      }
      let most = 1;
      for (const cnt of grid.values()) most = Math.max(most, cnt);
      const op = scaleLog().domain([1, Math.max(2, most)]).range([0.4, 1]).clamp(true);
      out.push(`<g class="${k === SPY_ENTRY ? 'nz' : 'fill'}" data-bin="${bin}">`);
      for (const [key, cnt] of grid) {
        const br = Math.floor(key / g), bc = key - br * g;
        out.push(`<rect class="cell" x="${c3(sx(bc * bin))}" y="${c3(sx(br * bin))}" width="${w}" height="${w}" fill-opacity="${c3(op(cnt))}" data-count="${cnt}"/>`);
      }
      out.push('</g>');
    }
  }
  if (p.blocks) {
    out.push('<g class="blocks">');
    for (let b = 0; b + 1 < p.blocks.length; b++) {
      const k1 = p.blocks[b], k2 = p.blocks[b + 1];
      if (k2 - k1 < 2) continue;
      out.push(`<rect x="${c3(sx(k1))}" y="${c3(sx(k1))}" width="${c3(sx(k2 - k1))}" height="${c3(sx(k2 - k1))}"/>`);
    }
    out.push('</g>');
  }
  out.push('</g>');
  return out.join('\n');
}

/** The panels side by side as a standalone SVG document. */
export function spySvg(panels: readonly SpyPanel[], options: SpyOptions = {}): string {
  const opts = {
    panelSize: options.panelSize ?? 420,
    aggregateAbove: options.aggregateAbove ?? 3000,
    maxBreaks: options.maxBreaks ?? 400,
  };
  const size = opts.panelSize, gap = 40, top = 36, bottom = options.caption ? 48 : 24;
  const width = gap + panels.length * (size + gap);
  const height = top + size + bottom;
  const out: string[] = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`);
  out.push(`<title>${esc(options.caption ?? panels.map((p) => p.title).join('; '))}</title>`);
  out.push('<style>.frame{fill:none;stroke:#444;stroke-width:0.6}.breaks{fill:none;stroke:#bbb;stroke-width:0.4}'
    + '.nz rect{fill:#1f4e99}.fill rect{fill:#e4572e}.blocks rect{fill:none;stroke:#2a9d4b;stroke-width:0.8}.title{fill:#222}.legend{fill:#555}</style>');
  out.push(`<rect x="0" y="0" width="${width}" height="${height}" fill="white"/>`);
  const drawn = { breaks: false };
  panels.forEach((p, k) => out.push(panelSvg(p, gap + k * (size + gap), top, size, opts, drawn)));
  const legendY = top + size + 18;
  const aggregated = panels.some((p) => Math.max(p.m, p.n) > opts.aggregateAbove) ? ' · one cell per pixel, darker = more entries' : '';
  out.push(`<text class="legend" x="${gap}" y="${legendY}">blue: structural nonzero · orange: fill of the LU · green squares: BTF diagonal blocks (size ≥ 2)${drawn.breaks ? ' · grey lines: body blocks' : ''}${aggregated}</text>`);
  if (options.caption) out.push(`<text class="legend" x="${gap}" y="${legendY + 18}">${esc(options.caption)}</text>`);
  out.push('</svg>');
  return out.join('\n') + '\n';
}
