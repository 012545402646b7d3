/**
 * The HTML page of a study: self-contained (d3's minified bundle, the chart code and the chart data
 * inlined; no network), with the charts drawn in the browser by the same drawLineChart that writes
 * the SVG files, the spy plots (spy.ts), tables of ratios against the baseline, the offline
 * orderings, where flops and time disagree (and why), and the reproduction tables when the study
 * reproduces a paper figure.
 * Source: the project's study pages.
 */
import { format } from 'd3';
import type { StudyPoint, StudyResult } from '../study/runner.ts';
import { drawLineChartSource, type ChartSpec } from './charts.ts';
import { PROBLEM_TITLES, sweptFamilies } from './study-charts.ts';

/** A table as header + rows of already formatted cells. */
export interface Table {
  caption?: string;
  header: string[];
  rows: string[][];
  /** columns aligned right (numbers) */
  numeric?: boolean[];
}

export interface PageInput {
  result: StudyResult;
  charts: ChartSpec[];
  /** charts drawn first, under their own heading (the paper's figure) */
  paperCharts: ChartSpec[];
  /** extra sections before the problems: heading, paragraphs (HTML), tables */
  sections: { heading: string; html: string[]; tables: Table[] }[];
  /** spy plot SVG (inlined as is) */
  spySvg?: string;
  /** d3.min.js source */
  d3Source: string;
  /** file names beside the page (CSV, JSON, SVGs) */
  files: string[];
  /** the configuration file as given (shown verbatim) */
  configText: string;
}

export function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

const int = format(',d');
/** a flop count or another integer with thousands separators */
export const num = (x: number | undefined): string => (x === undefined ? '—' : int(Math.round(x)));
/** a ratio with 2–3 significant decimals */
export const ratio = (x: number | undefined): string => (x === undefined ? '—' : x >= 100 ? format(',.0f')(x) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
/** a time in µs */
export const micros = (x: number | undefined): string => (x === undefined ? '—' : x >= 100 ? format(',.0f')(x) : x >= 1 ? x.toFixed(2) : x.toFixed(3));

export function tableHtml(t: Table): string {
  const out: string[] = ['<table>'];
  if (t.caption) out.push(`<caption>${t.caption}</caption>`);
  out.push('<thead><tr>' + t.header.map((h) => `<th>${h}</th>`).join('') + '</tr></thead><tbody>');
  for (const r of t.rows) out.push('<tr>' + r.map((c, k) => `<td${t.numeric?.[k] ? ' class="num"' : ''}>${c}</td>`).join('') + '</tr>');
  out.push('</tbody></table>');
  return out.join('\n');
}

export function tableMarkdown(t: Table): string {
  const out = [`| ${t.header.join(' | ')} |`, `|${t.header.map((_, k) => (t.numeric?.[k] ? '---:' : '---')).join('|')}|`];
  for (const r of t.rows) out.push(`| ${r.join(' | ')} |`);
  return out.join('\n');
}

function solversOf(points: StudyPoint[]): string[] {
  const s: string[] = [];
  for (const p of points) if (!s.includes(p.solver)) s.push(p.solver);
  return s;
}

/** Per problem and family: rows N_B (or models), columns solvers, cells "flops ratio · time ratio". */
export function ratioTables(r: StudyResult, problem: string): Table[] {
  const pts = r.points.filter((p) => p.problem === problem);
  const families: string[] = [];
  for (const p of pts) if (!families.includes(p.family)) families.push(p.family);
  const swept = sweptFamilies(r, problem);
  const tables: Table[] = [];
  const cell = (p: StudyPoint | undefined) => (p === undefined ? '' : p.status !== 'ok' ? p.status : `${ratio(p.flops_ratio)} · ${ratio(p.time_ratio)}`);
  for (const fam of swept) {
    const fp = pts.filter((p) => p.family === fam);
    const solvers = solversOf(fp);
    const nbs = [...new Set(fp.map((p) => p.nb))].sort((a, b) => a - b);
    tables.push({
      caption: `${esc(fam)}: flops ratio · time ratio to ${esc(fp[0].baseline)} (same model, same state, same run); ${esc(fp[0].baseline)}'s own flops and µs in the second and third columns`,
      header: ['N_B', `${esc(fp[0].baseline)} flops`, `${esc(fp[0].baseline)} µs`, ...solvers.filter((s) => s !== fp[0].baseline).map(esc)],
      numeric: [true, true, true, ...solvers.map(() => true)],
      rows: nbs.map((nb) => {
        const at = fp.filter((p) => p.nb === nb);
        const base = at.find((p) => p.solver === p.baseline);
        return [String(nb), num(base?.flops?.total), micros(base?.time_us), ...solvers.filter((s) => s !== fp[0].baseline).map((s) => cell(at.find((p) => p.solver === s)))];
      }),
    });
  }
  const single = pts.filter((p) => !swept.includes(p.family));
  if (single.length > 0) {
    tables.push({
      caption: 'single models: flops, µs, and ratios to the baseline (flops · time)',
      header: ['model', 'N_B', 'solver', 'flops', 'µs', 'ratio', 'n', 'nnz', 'L+U', 'notes'],
      numeric: [false, true, false, true, true, true, true, true, true, false],
      rows: single.map((p) => [esc(p.family), String(p.nb), esc(p.solver), num(p.flops?.total), micros(p.time_us), p.status === 'ok' ? `${ratio(p.flops_ratio)} · ${ratio(p.time_ratio)}` : p.status,
        num(p.n), num(p.nnz), p.lu_nnz === undefined ? '—' : num(p.lu_nnz + (p.off_nnz ?? 0)), esc(p.notes.join('; '))]),
    });
  }
  return tables;
}

/**
 * Why a solver's time ratio departs from its flops ratio (against the recursive baseline), by the
 * way its arithmetic is laid out; `slower` says in which direction the time departs.
 */
export function whyTimeDiffers(solver: string, slower: boolean): string {
  if (solver === 'dense') {
    return slower ? 'ml-matrix\'s dense LU works on arrays of row arrays with bounds-checked accessors: memory traffic and call overhead per entry, not flops, set its time'
      : 'dense loops run without index loads; most of the counted work multiplies structural zeros';
  }
  if (solver === 'matrix-aba') {
    return slower ? 'the product W^L D W^R runs as a stored plan of terms: two index loads per multiplication, where ABA runs dense 6-vector kernels on per-body data'
      : 'most terms of the plan are copies of exact ±1 entries, which cost a load and no flop';
  }
  if (solver.startsWith('lu') || solver === 'lu-adjoint') {
    return slower ? 'a scalar compressed-column LU pays an index load for every multiply-add and walks its block triangular form block by block (most blocks 1×1), where the recursive algorithms run dense 6-vector kernels with no indices; at small N the fixed cost per call (fill loops, refinement residual) outweighs the arithmetic'
      : 'its exact zeros and unit entries are skipped structurally, and the solves reach only the rows the right-hand side can';
  }
  if (solver === 'fd') return 'each evaluation of the recursive algorithm carries its fixed per-call cost; flops count only arithmetic';
  return slower ? 'the recursion\'s bookkeeping (loops over bodies and DoF, small matrices of varying size, function calls) costs time that flops do not count'
    : 'its arithmetic is on longer contiguous kernels than the baseline\'s, so it runs closer to the machine\'s rate';
}

/**
 * Where flops and time disagree: per swept family and solver, at the smallest and largest N_B
 * with both ratios, the time ratio over the flops ratio when it is outside [1/1.5, 1.5], and why.
 */
export function disagreementTable(r: StudyResult, problem: string): Table | undefined {
  const rows: string[][] = [];
  for (const fam of sweptFamilies(r, problem)) {
    const fp = r.points.filter((p) => p.problem === problem && p.family === fam && p.status === 'ok' && p.solver !== p.baseline
      && p.flops_ratio !== undefined && p.time_ratio !== undefined && p.flops_ratio > 0);
    for (const solver of solversOf(fp)) {
      const sp = fp.filter((p) => p.solver === solver).sort((a, b) => a.nb - b.nb);
      if (sp.length === 0) continue;
      const ends = sp.length > 1 ? [sp[0], sp[sp.length - 1]] : [sp[0]];
      for (const p of ends) {
        const q = p.time_ratio! / p.flops_ratio!;
        if (q <= 1.5 && q >= 1 / 1.5) continue;
        rows.push([esc(fam), esc(solver), String(p.nb), ratio(p.flops_ratio), ratio(p.time_ratio), ratio(q), esc(whyTimeDiffers(solver, q > 1))]);
      }
    }
  }
  if (rows.length === 0) return undefined;
  return {
    caption: 'where flops and time disagree: at the smallest and largest N_B of each sweep, the solvers whose time ratio is more than 1.5× (or less than 1/1.5×) their flops ratio to the baseline, and why',
    header: ['family', 'solver', 'N_B', 'flops ratio', 'time ratio', 'time / flops', 'why'],
    numeric: [false, false, true, true, true, true, false],
    rows,
  };
}

/** Per problem and family: the sparse LU with each ordering — fill, factor + solve flops, offline ms. */
export function orderingTables(r: StudyResult, problem: string): Table[] {
  const pts = r.points.filter((p) => p.problem === problem && p.solver.startsWith('lu:') && p.solver !== 'lu:paper' && p.status === 'ok');
  const solvers = solversOf(pts);
  if (solvers.length < 2) return [];
  const families: string[] = [];
  for (const p of pts) if (!families.includes(p.family)) families.push(p.family);
  return families.map((fam) => {
    const fp = pts.filter((p) => p.family === fam);
    const nbs = [...new Set(fp.map((p) => p.nb))].sort((a, b) => a - b);
    return {
      caption: `${esc(fam)}: per ordering, fill entries / factor + solve flops / offline analysis ms (auto: the orderings it chose)`,
      header: ['N_B', 'n', 'blocks (largest)', ...solvers.map(esc)],
      numeric: [true, true, true, ...solvers.map(() => true)],
      rows: nbs.map((nb) => {
        const at = fp.filter((p) => p.nb === nb);
        const any = at[0];
        return [String(nb), num(any.n), `${num(any.blocks)} (${num(any.max_block)})`, ...solvers.map((s) => {
          const p = at.find((x) => x.solver === s);
          if (!p?.flops) return '—';
          const chosen = s === 'lu:auto' && p.chosen_orderings ? `<br><small>${esc(p.chosen_orderings)}</small>` : '';
          return `${num(p.fill_nnz)} / ${num(p.flops.factor + p.flops.solve)} / ${p.analyze_ms === undefined ? '—' : p.analyze_ms.toFixed(1)}${chosen}`;
        })];
      }),
    };
  });
}

const CSS = `body{font-family:system-ui,sans-serif;margin:24px auto;max-width:1440px;color:#222;line-height:1.45;padding:0 16px}
h1{font-size:24px}h2{font-size:19px;margin-top:34px;border-bottom:1px solid #ddd}h3{font-size:15px}
table{border-collapse:collapse;margin:10px 0 22px;font-size:12px}caption{text-align:left;font-size:12px;color:#444;padding:4px 0}
th,td{border:1px solid #ddd;padding:3px 7px;vertical-align:top}th{background:#f4f6f8}td.num{text-align:right;font-variant-numeric:tabular-nums}
.charts{display:flex;flex-wrap:wrap;gap:12px}.chart-box{border:1px solid #eee}.chart .series:hover{stroke-width:4}
.meta{color:#555;font-size:13px}pre{background:#f6f8fa;padding:8px;font-size:12px;overflow-x:auto}.spy svg{max-width:100%;height:auto}`;

export function studyPage(input: PageInput): string {
  const { result: r } = input;
  const c = r.config;
  const allCharts = [...input.paperCharts, ...input.charts];
  const box = (spec: ChartSpec) => `<div class="chart-box" id="chart-box-${esc(spec.id)}" data-chart="${esc(spec.id)}"></div>`;
  const out: string[] = [];
  out.push('<!DOCTYPE html>', '<html lang="en"><head><meta charset="utf-8">', `<title>${esc(c.title)}</title>`, `<style>${CSS}</style></head><body>`);
  out.push(`<h1>${esc(c.title)}</h1>`);
  if (c.description) out.push(`<p>${esc(c.description)}</p>`);
  const load = r.meta.load_average ? `; load average ${r.meta.load_average[0].toFixed(1)} → ${r.meta.load_average[1].toFixed(1)} on ${r.meta.cpus} CPUs (times are disturbed by other load; flops are exact)` : '';
  out.push(`<p class="meta">Study <code>${esc(c.name)}</code>: ${r.meta.points} points in ${r.meta.seconds.toFixed(1)} s on ${esc(r.meta.cpu)} (${esc(r.meta.platform)}, Node ${esc(r.meta.node)}), ${esc(r.meta.date.slice(0, 10))}; peak RSS ${r.meta.peak_rss_mib.toFixed(0)} MiB${load}. `
    + `Data: <a href="points.csv">points.csv</a>, <a href="points.json">points.json</a>.</p>`);
  out.push(`<details class="meta"><summary>${input.files.length} files beside this page (SVG of every chart, spy plot)</summary><p>${input.files.map((f) => `<a href="${esc(f)}">${esc(f)}</a>`).join(', ')}</p></details>`);
  out.push('<p class="meta">Flops are the kernels\' own counts (a multiply-add is two flops; products with an exact constant 0 or ±1 that a kernel skips are not counted; total = mul + add + div; sin/cos/sqrt apart). '
    + 'Parts: <em>kinematics</em> (ⁱX_λ, v_i, c_i), <em>fill</em> (the other values of D and b), <em>factor</em> (numeric LU; for the matrix ABA, forming W^L D W^R), <em>solve</em> (triangular solves), <em>other</em> (the recursions of RNEA, ABA, Carpentier, IIM, eUFM; the I^A recursion of the matrix ABA). '
    + 'The dense LU (ml-matrix) is counted by formula for the loops it runs. Times are medians of µs per call over several rounds, inputs prepared before the timer; ratios are against the problem\'s baseline measured in the same process.</p>');
  if (r.points.some((p) => p.problem === 'id-derivatives' || p.problem === 'fd-derivatives')) {
    out.push('<p class="meta">Derivatives: one call computes the value and its three derivative matrices at a seeded random state without external wrenches. '
      + '<em>recursive</em> (the baseline): J. Carpentier and N. Mansard, &ldquo;Analytical Derivatives of Rigid Body Dynamics Algorithms&rdquo; (RSS 2018) — the RNEA derivatives in the world frame with M from the same pass for inverse dynamics; ABA, the same derivatives at the ABA acceleration, and M⁻¹ and ∂q̈/∂x = −M⁻¹ ∂τ/∂x by the articulated-body factorization of M for forward dynamics. '
      + '<em>lu:auto</em>: factor reuse — the LU step of Nori\'s system (kinematics, fill, factor, solve), then the jacobians J_q, J_v (counted in the fill column) and 3·nv more solves with the same factors (solve column). '
      + '<em>lu-adjoint</em>: the same step and jacobians, nv transposed solves (solve column) and the sparse products −wᵀJ (other). '
      + '<em>fd</em>: central differences (6·nv evaluations of RNEA or ABA), a reference. '
      + 'Inverse-dynamics derivatives are ∂τ/∂q, ∂τ/∂q̇ and M; forward-dynamics derivatives ∂q̈/∂q, ∂q̈/∂q̇ and M⁻¹ (∂/∂q along tangent directions in velocity order). '
      + 'The error (points.csv) is the largest difference of [∂/∂q; ∂/∂q̇; M or M⁻¹] from the recursive result over max(1, its largest entry); every part as the kernels named it is in points.json.</p>');
  }
  if (r.notes.length) out.push('<h3>Notes</h3><ul>' + r.notes.map((n) => `<li>${esc(n)}</li>`).join('') + '</ul>');
  if (input.paperCharts.length) {
    out.push('<h2>The paper\'s figure</h2><div class="charts">' + input.paperCharts.map(box).join('') + '</div>');
  }
  for (const s of input.sections) {
    out.push(`<h2>${s.heading}</h2>`);
    out.push(...s.html);
    for (const t of s.tables) out.push(tableHtml(t));
  }
  const problems = [...new Set(r.points.map((p) => p.problem))];
  for (const problem of problems) {
    out.push(`<h2>${esc(PROBLEM_TITLES[problem] ?? problem)}</h2>`);
    const charts = input.charts.filter((ch) => ch.id.startsWith(`${problem}-`));
    if (charts.length) out.push('<div class="charts">' + charts.map(box).join('') + '</div>');
    const dis = disagreementTable(r, problem);
    if (dis) out.push(tableHtml(dis));
    for (const t of ratioTables(r, problem)) out.push(tableHtml(t));
    for (const t of orderingTables(r, problem)) out.push(tableHtml(t));
  }
  if (input.spySvg) {
    out.push('<h2>Sparsity: D as assembled, after the offline ordering, and L+U</h2>');
    out.push(`<div class="spy">${input.spySvg}</div>`);
  }
  out.push('<h2>Configuration</h2>', `<pre>${esc(input.configText)}</pre>`);
  out.push(`<script>/* d3 (https://d3js.org), ISC licence */\n${input.d3Source.replace(/<\/script/gi, '<\\/script')}</script>`);
  const data = JSON.stringify(allCharts).replace(/</g, '\\u003c');
  out.push(`<script>\n${drawLineChartSource()}\nconst CHARTS = ${data};\n`
    + 'for (const spec of CHARTS) {\n  const el = document.getElementById("chart-box-" + spec.id);\n  if (el) el.innerHTML = drawLineChart(d3, spec);\n}\n</script>');
  out.push('</body></html>');
  return out.join('\n') + '\n';
}
