/**
 * Our Figure 1 and Figure 2 numbers next to the paper's (studies/paper-004), as tables for the
 * study pages and for reports/REPRODUCTION.md, and the tables of the three targets of the flop-count study
 * (inverse dynamics vs RNEA, forward dynamics vs ABA, estimation sparse vs dense).
 * Source: Nori (2017) Figures 1–2 and §IV–VI.
 */
import type { InverseDynamicsGap } from '../study/id-gap.ts';
import type { StudyPoint, StudyResult } from '../study/runner.ts';
import { paperSum, paperValue, type PaperTable } from './paper-data.ts';
import { esc, micros, num, ratio, type Table } from './study-page.ts';

export interface Section {
  heading: string;
  html: string[];
  tables: Table[];
}

function at(r: StudyResult, family: string, problem: string, solver: string, nb: number): StudyPoint | undefined {
  return r.points.find((p) => p.family === family && p.problem === problem && p.solver === solver && p.nb === nb && p.status === 'ok');
}

const fs = (p: StudyPoint | undefined) => (p?.flops ? p.flops.factor + p.flops.solve : undefined);
const lu = (p: StudyPoint | undefined) => (p?.lu_nnz === undefined ? undefined : p.lu_nnz + (p.off_nnz ?? 0));

/** N_B values present in the paper's table and in our points of `family`/`problem`. */
export function commonNb(r: StudyResult, t: PaperTable, family: string, problem: string, wanted?: number[]): number[] {
  const ours = new Set(r.points.filter((p) => p.family === family && p.problem === problem).map((p) => p.nb));
  const both = t.rows.map((row) => row.NB).filter((nb) => ours.has(nb));
  return wanted ? both.filter((nb) => wanted.includes(nb)) : both;
}

export function figure1Table(r: StudyResult, t: PaperTable, family: string, nbs?: number[]): Table {
  const fd = 'forward-dynamics';
  return {
    caption: `Forward dynamics, ${esc(family)}: flops per call, the paper's (P = that code) next to ours (S = sparsedyn)`,
    header: ['N_B', 'ABA P (book)', 'ABA S', 'matrix ABA P', 'matrix ABA S (product+solve)', 'matrix ABA S (total)', 'LU P,Q P as published', 'LU P,Q P standard', 'LU S factor+solve', 'LU S total', 'nnz D P / S', 'nnz L+U P / S'],
    numeric: Array(12).fill(true),
    rows: commonNb(r, t, family, fd, nbs).map((nb) => {
      const row = t.rows.find((x) => x.NB === nb)!;
      const luS = at(r, family, fd, 'lu:auto', nb), mat = at(r, family, fd, 'matrix-aba', nb);
      return [String(nb), num(paperSum(row, 'aba')), num(at(r, family, fd, 'aba', nb)?.flops?.total), num(paperSum(row, 'matrix_aba')), num(fs(mat)), num(mat?.flops?.total),
        num(paperSum(row, 'lu_pq', '_as_published')), num(paperSum(row, 'lu_pq', '_standard')), num(fs(luS)), num(luS?.flops?.total),
        `${num(row.nnz_D)} / ${num(luS?.nnz)}`, `${num(row.nnz_LU_pq)} / ${num(lu(luS))}`];
    }),
  };
}

export function figure2Table(r: StudyResult, t: PaperTable, family: string, nbs?: number[]): Table {
  const lc = 'load-cells';
  return {
    caption: `Estimation with load cells at both end links, ${esc(family)}: flops per sample, the paper's (P) next to ours (S)`,
    header: ['N_B', 'order P / S', 'nnz D P / S', 'nnz L+U P / S', 'LU P,Q P as published', 'LU P,Q P standard', 'LU row-pivot P standard', 'LU S factor+solve', 'LU S total', 'dense S factor+solve', 'dense / sparse S (factor+solve)', 'τ error P / S'],
    numeric: Array(12).fill(true),
    rows: commonNb(r, t, family, lc, nbs).map((nb) => {
      const row = t.rows.find((x) => x.NB === nb)!;
      const s = at(r, family, lc, 'lu:auto', nb), d = at(r, family, lc, 'dense', nb);
      const fsS = fs(s), fsD = fs(d);
      return [String(nb), `${num(row.rows)} / ${num(s?.n)}`, `${num(row.nnz_D)} / ${num(s?.nnz)}`, `${num(row.nnz_LU_pq)} / ${num(lu(s))}`,
        num(paperSum(row, 'lu_pq', '_as_published')), num(paperSum(row, 'lu_pq', '_standard')), num(paperSum(row, 'lu_rowpivot', '_standard')),
        num(fsS), num(s?.flops?.total), num(fsD), fsS && fsD ? ratio(fsD / fsS) : '—',
        `${paperValue(t, nb, 'tau_error')?.toExponential(1) ?? '—'} / ${s?.error?.toExponential(1) ?? '—'}`];
    }),
  };
}

export function figure1Section(r: StudyResult, t: PaperTable, family: string): Section {
  return {
    heading: 'Reproduction of Figure 1',
    html: ['<p>The paper\'s columns come from the author\'s code run under Octave (studies/paper-004/README.md says how; the tables are read at run time, not shipped). Ours: every count is the kernels\' own; "factor+solve" is the part the paper counts for its LU and matrix ABA; "total" adds the velocity kinematics and the fill of D and b. The differences are explained in reports/REPRODUCTION.md.</p>'],
    tables: [figure1Table(r, t, family)],
  };
}

export function figure2Section(r: StudyResult, t: PaperTable, family: string): Section {
  return {
    heading: 'Reproduction of Figure 2',
    html: ['<p>The paper\'s chain is planar (26 unknowns per body, numerical pattern); ours is the 3-D chain (20 unknowns per body, worst-case pattern): with all joint axes parallel this sensor layout is ill posed (spec/estimation/cases.spec.ts). The differences are explained in reports/REPRODUCTION.md.</p>'],
    tables: [figure2Table(r, t, family)],
  };
}

/** Target 1: inverse dynamics by sparse LU vs RNEA, per N_B. */
export function inverseDynamicsTable(r: StudyResult, family: string): Table {
  const id = 'inverse-dynamics';
  const nbs = [...new Set(r.points.filter((p) => p.family === family && p.problem === id).map((p) => p.nb))].sort((a, b) => a - b);
  return {
    caption: `Inverse dynamics, ${esc(family)}: sparse LU (auto ordering) and the paper's permutation (lu:paper) against RNEA`,
    header: ['N_B', 'n', 'fill entries', 'BTF blocks', 'RNEA flops', 'LU flops', 'LU / RNEA', 'lu:paper flops', 'lu:paper / RNEA', 'RNEA µs', 'LU µs', 'LU / RNEA (time: median, fastest)'],
    numeric: Array(12).fill(true),
    rows: nbs.map((nb) => {
      const rn = at(r, family, id, 'rnea', nb), l = at(r, family, id, 'lu:auto', nb), pp = at(r, family, id, 'lu:paper', nb);
      return [String(nb), num(l?.n), num(l?.fill_nnz), num(l?.blocks), num(rn?.flops?.total), num(l?.flops?.total), ratio(l?.flops_ratio), num(pp?.flops?.total), ratio(pp?.flops_ratio),
        micros(rn?.time_us), micros(l?.time_us), `${ratio(l?.time_ratio)}, ${ratio(l?.time_min_ratio)}`];
    }),
  };
}

/** The gap between RNEA and the LU, operation by operation. */
export function gapTable(g: InverseDynamicsGap): Table {
  const rows = g.rows.map((x) => [esc(x.operation), num(x.rnea), num(x.lu), num(x.lu - x.rnea), num(x.paper), num(x.paper - x.rnea)]);
  rows.push(['<b>total</b> (= the solvers\' measured totals' + (g.closes ? ')' : ': DOES NOT CLOSE)'), num(g.measured.rnea), num(g.measured.lu), num(g.measured.lu - g.measured.rnea), num(g.measured.paper), num(g.measured.paper - g.measured.rnea)]);
  return {
    caption: `${esc(g.model)} (N_B = ${g.nb}): inverse-dynamics flops by operation — RNEA, the sparse LU, and lu:paper (±1 products skipped)`,
    header: ['operation', 'RNEA', 'LU', 'LU − RNEA', 'lu:paper', 'lu:paper − RNEA'],
    numeric: [false, true, true, true, true, true],
    rows,
  };
}

/** Target 2: forward dynamics by sparse LU vs ABA, per N_B, with the best single ordering. */
export function forwardDynamicsTable(r: StudyResult, family: string): Table {
  const fd = 'forward-dynamics';
  const pts = r.points.filter((p) => p.family === family && p.problem === fd);
  const nbs = [...new Set(pts.map((p) => p.nb))].sort((a, b) => a - b);
  return {
    caption: `Forward dynamics, ${esc(family)}: sparse LU against ABA (flops per call; time ratios in the same run)`,
    header: ['N_B', 'ABA flops', 'LU auto flops', 'LU auto / ABA', 'of which factor', 'best ordering', 'best / ABA', 'matrix ABA / ABA', 'largest block', 'fill entries', 'LU auto / ABA (time: median, fastest)'],
    numeric: [true, true, true, true, true, false, true, true, true, true, true],
    rows: nbs.map((nb) => {
      const a = at(r, family, fd, 'aba', nb), l = at(r, family, fd, 'lu:auto', nb), m = at(r, family, fd, 'matrix-aba', nb);
      const lus = pts.filter((p) => p.nb === nb && p.solver.startsWith('lu:') && p.status === 'ok' && p.flops);
      const best = lus.reduce<StudyPoint | undefined>((b, p) => (b === undefined || p.flops!.total < b.flops!.total ? p : b), undefined);
      const bestName = best === undefined ? '—' : best.solver === 'lu:auto' ? `auto (${esc(best.chosen_orderings ?? 'triangular')})` : esc(best.solver.slice(3));
      return [String(nb), num(a?.flops?.total), num(l?.flops?.total), ratio(l?.flops_ratio), num(l?.flops?.factor), bestName, ratio(best?.flops_ratio), ratio(m?.flops_ratio),
        num(l?.max_block), num(l?.fill_nnz), `${ratio(l?.time_ratio)}, ${ratio(l?.time_min_ratio)}`];
    }),
  };
}

/** Target 3: estimation, sparse LU vs the dense LU of the same system, per sample. */
export function estimationTable(r: StudyResult, family: string, nbs: number[]): Table {
  const lc = 'load-cells';
  return {
    caption: `Estimation (Figure 2 layout), ${esc(family)}: flops per sample, sparse LU vs dense LU of the same ${'[D; D_Y]'} (both with the same kinematics and fill)`,
    header: ['N_B', 'order n', 'nnz', 'sparse: factor+solve', 'sparse: total', 'dense: factor+solve', 'dense: total', 'dense / sparse (total)', 'sparse µs', 'dense µs', 'offline ordering ms'],
    numeric: Array(11).fill(true),
    rows: nbs.map((nb) => {
      const s = at(r, family, lc, 'lu:auto', nb), d = at(r, family, lc, 'dense', nb);
      return [String(nb), num(s?.n), num(s?.nnz), num(fs(s)), num(s?.flops?.total), num(fs(d)), num(d?.flops?.total),
        s?.flops && d?.flops ? ratio(d.flops.total / s.flops.total) : '—', micros(s?.time_us), micros(d?.time_us), s?.analyze_ms === undefined ? '—' : s.analyze_ms.toFixed(1)];
    }),
  };
}
