/**
 * The charts of a study report, as ChartSpecs (drawn by charts.ts): for every problem and every
 * model family swept over N_B, flops, time and flops ratio against the baseline vs N_B on log axes,
 * one line per solver; and, when the study reproduces one of Nori (2017)'s figures, that figure with
 * the paper's data (studies/paper-004) overlaid as dashed lines.
 * Source: Nori (2017) Figures 1 and 2.
 */
import { denseLuFactorFlops, denseLuSolveFlops } from '../study/dense.ts';
import type { StudyPoint, StudyResult } from '../study/runner.ts';
import type { ChartSeries, ChartSpec } from './charts.ts';
import { paperSum, type PaperTable } from './paper-data.ts';

const ORDERING_COLORS: Readonly<Record<string, string>> = {
  amd: '#7b4ea3', 'amd-noagg': '#b07cc6', 'amd-fifo': '#5e3c99', amf: '#e377c2', 'amf-fifo': '#c2185b', 'amf-noagg': '#c49c94',
  colamd: '#9e9d24', 'colamd-rows': '#cddc39', markowitz: '#ff7f0e', natural: '#6c757d',
};

/** A fixed colour per solver, so a solver looks the same in every chart. */
export function solverColor(solver: string): string {
  switch (solver) {
    case 'rnea': case 'aba': case 'carpentier': case 'iim': case 'recursive': return '#111111';
    case 'lu-adjoint': return '#e4892e';
    case 'fd': return '#6c757d';
    case 'lu:auto': return '#1f4e99';
    case 'lu:paper': return '#17a2b8';
    case 'matrix-aba': return '#2a9d4b';
    case 'dense': return '#d1495b';
    case 'crba-cholesky': return '#8c564b';
    case 'eufm': return '#e4892e';
    default: return ORDERING_COLORS[solver.slice(3)] ?? '#999999';
  }
}

export const PROBLEM_TITLES: Readonly<Record<string, string>> = {
  'inverse-dynamics': 'Inverse dynamics',
  'forward-dynamics': 'Forward dynamics',
  minv: 'M⁻¹',
  iwim: 'M⁻¹B (fully actuated)',
  'load-cells': 'Estimation: chain with load cells at both ends (Figure 2 layout)',
  estimation: 'Estimation',
  'id-derivatives': 'Inverse-dynamics derivatives',
  'fd-derivatives': 'Forward-dynamics derivatives',
};

/** Families of a problem with at least two model sizes, in the study's order. */
export function sweptFamilies(r: StudyResult, problem: string): string[] {
  const fams: string[] = [];
  for (const p of r.points) if (p.problem === problem && !fams.includes(p.family)) fams.push(p.family);
  return fams.filter((f) => new Set(r.points.filter((p) => p.problem === problem && p.family === f).map((p) => p.nb)).size >= 2);
}

export function chartId(...parts: string[]): string {
  return parts.join('-').replace(/[^A-Za-z0-9_-]+/g, '_');
}

function series(points: StudyPoint[], y: (p: StudyPoint) => number | undefined): ChartSeries[] {
  const solvers: string[] = [];
  for (const p of points) if (!solvers.includes(p.solver)) solvers.push(p.solver);
  return solvers.map((s) => ({
    name: s,
    color: solverColor(s),
    points: points.filter((p) => p.solver === s && p.status === 'ok').flatMap((p) => {
      const v = y(p);
      return v === undefined ? [] : [[p.nb, v] as [number, number]];
    }),
  }));
}

/** Flops, time and flops-ratio charts of every swept family of every problem. */
export function sweepCharts(r: StudyResult): ChartSpec[] {
  const out: ChartSpec[] = [];
  const problems = [...new Set(r.points.map((p) => p.problem))];
  for (const problem of problems) {
    for (const fam of sweptFamilies(r, problem)) {
      const pts = r.points.filter((p) => p.problem === problem && p.family === fam);
      const base = pts[0]?.baseline ?? '';
      const what = `${PROBLEM_TITLES[problem] ?? problem} — ${fam}`;
      out.push({
        id: chartId(problem, fam, 'flops'), title: `${what}: flops per call`, subtitle: 'exact kernel counts (dense factor/solve by formula); a multiply-add = 2 flops',
        xLabel: 'N_B (bodies)', yLabel: 'flops', xLog: true, yLog: true, series: series(pts, (p) => p.flops?.total),
      });
      out.push({
        id: chartId(problem, fam, 'time'), title: `${what}: time per call`, subtitle: `median µs (${r.meta.cpu}, Node ${r.meta.node})`,
        xLabel: 'N_B (bodies)', yLabel: 'µs per call', xLog: true, yLog: true, series: series(pts, (p) => p.time_us),
      });
      out.push({
        id: chartId(problem, fam, 'ratio'), title: `${what}: flops / ${base}'s flops`, subtitle: `the same model and state; ${base} = 1`,
        xLabel: 'N_B (bodies)', yLabel: `flops ratio to ${base}`, xLog: true, yLog: true,
        series: series(pts, (p) => p.flops_ratio).filter((s) => s.name !== base),
      });
    }
  }
  return out;
}

const fs = (p: StudyPoint | undefined) => (p?.flops ? p.flops.factor + p.flops.solve : undefined);

function ours(r: StudyResult, family: string, problem: string, solver: string, maxNb: number): StudyPoint[] {
  return r.points.filter((p) => p.family === family && p.problem === problem && p.solver === solver && p.status === 'ok' && p.nb <= maxNb);
}

function pts(list: StudyPoint[], y: (p: StudyPoint) => number | undefined): [number, number][] {
  return list.flatMap((p) => { const v = y(p); return v === undefined ? [] : [[p.nb, v] as [number, number]]; });
}

function paperSeries(t: PaperTable, name: string, color: string, value: (row: Record<string, number>) => number | undefined): ChartSeries {
  return { name, color, dashed: true, points: t.rows.flatMap((row) => { const v = value(row); return v === undefined ? [] : [[row.NB, v] as [number, number]]; }) };
}

/** Paper 004 Figure 1 (forward dynamics of a serial chain) with the paper's data overlaid. */
export function figure1Chart(r: StudyResult, t: PaperTable, family: string, maxNb = 100): ChartSpec {
  const fd = 'forward-dynamics';
  return {
    id: 'paper-figure1', title: 'Nori (2017), Figure 1: forward dynamics of a serial chain',
    subtitle: `solid: ours (${family}, worst-case pattern); dashed: the paper's code (Octave/UMFPACK, numerical pattern)`,
    xLabel: 'N_B (bodies)', yLabel: 'flops (adds + mults + divs)', xLog: false, yLog: true,
    series: [
      { name: 'ABA (ours, kernel count)', color: '#111111', points: pts(ours(r, family, fd, 'aba', maxNb), (p) => p.flops?.total) },
      { name: 'matrix ABA (ours, no I^A)', color: '#2a9d4b', points: pts(ours(r, family, fd, 'matrix-aba', maxNb), fs) },
      { name: 'sparse LU (ours, factor+solve)', color: '#1f4e99', points: pts(ours(r, family, fd, 'lu:auto', maxNb), fs) },
      { name: 'sparse LU (ours, total)', color: '#17a2b8', points: pts(ours(r, family, fd, 'lu:auto', maxNb), (p) => p.flops?.total) },
      paperSeries(t, 'ABA (paper: book formula)', '#111111', (row) => paperSum(row, 'aba')),
      paperSeries(t, 'matrix ABA (paper)', '#2a9d4b', (row) => paperSum(row, 'matrix_aba')),
      paperSeries(t, 'LU P,Q (paper, as published)', '#1f4e99', (row) => paperSum(row, 'lu_pq', '_as_published')),
      paperSeries(t, 'LU P,Q (paper, standard count)', '#7b4ea3', (row) => paperSum(row, 'lu_pq', '_standard')),
      paperSeries(t, 'LU row pivoting (paper, standard)', '#d1495b', (row) => paperSum(row, 'lu_rowpivot', '_standard')),
    ],
    notes: ['the paper\'s ABA is the book formula (RBDA p. 202); its LU and matrix-ABA counts cover', 'the factorization and the solves only (our "factor+solve")'],
  };
}

/** Paper 004 Figure 2 (estimation with load cells at both end links) with the paper's data overlaid. */
export function figure2Chart(r: StudyResult, t: PaperTable, family: string, maxNb = 1000): ChartSpec {
  const lc = 'load-cells';
  const dense = (n: number) => denseLuFactorFlops(n).total + denseLuSolveFlops(n).total;
  return {
    id: 'paper-figure2', title: 'Nori (2017), Figure 2: joint torques from load cells at both end links',
    subtitle: `solid: ours (${family}); dashed: the paper's code (planar chain, 26 unknowns per body)`,
    xLabel: 'N_B (bodies)', yLabel: 'flops per sample', xLog: true, yLog: true,
    series: [
      { name: 'sparse LU (ours, factor+solve)', color: '#1f4e99', points: pts(ours(r, family, lc, 'lu:auto', maxNb), fs) },
      { name: 'sparse LU (ours, total)', color: '#17a2b8', points: pts(ours(r, family, lc, 'lu:auto', maxNb), (p) => p.flops?.total) },
      { name: 'dense LU (ours, factor+solve)', color: '#d1495b', points: pts(ours(r, family, lc, 'dense', maxNb), fs) },
      { name: 'RNEA, all inputs known (ours)', color: '#111111', points: pts(ours(r, family, lc, 'rnea', maxNb), (p) => p.flops?.total) },
      paperSeries(t, 'LU P,Q (paper, as published)', '#1f4e99', (row) => paperSum(row, 'lu_pq', '_as_published')),
      paperSeries(t, 'LU P,Q (paper, standard count)', '#7b4ea3', (row) => paperSum(row, 'lu_pq', '_standard')),
      paperSeries(t, 'LU row pivoting (paper, standard)', '#ff7f0e', (row) => paperSum(row, 'lu_rowpivot', '_standard')),
      paperSeries(t, 'dense LU at the paper\'s order 26·N_B (formula)', '#d1495b', (row) => dense(row.rows)),
    ],
    notes: ['dense: ml-matrix LU + one solve, counted by formula (run only up to dense.maxRunOrder);', 'the last dashed line applies that formula to the paper\'s matrix order 26·N_B'],
  };
}
