/**
 * A study's points as CSV (one row per point, fixed columns; a field that does not apply is
 * empty) and as JSON (the configuration, run information, notes and every point with its named
 * flop parts). Strings only: the caller writes them.
 */
import type { StudyPoint, StudyResult } from './runner.ts';

/** CSV columns, in order. */
export const CSV_COLUMNS = [
  'study', 'family', 'spec', 'model', 'N', 'nb', 'nv', 'problem', 'solver', 'baseline', 'status',
  'flops_total', 'flops_mul', 'flops_add', 'flops_div',
  'flops_kinematics', 'flops_fill', 'flops_factor', 'flops_solve', 'flops_other',
  'n', 'nnz', 'lu_nnz', 'off_nnz', 'fill_nnz', 'blocks', 'max_block', 'chosen_orderings', 'repivoted_blocks',
  'analyze_ms', 'time_us', 'time_min_us', 'time_rounds', 'time_reps', 'flops_ratio', 'time_ratio', 'time_min_ratio', 'error', 'peak_rss_mib', 'notes',
] as const;

function cell(v: unknown): string {
  if (v === undefined) return '';
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : String(Number(v.toPrecision(6)));
  const s = String(v);
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

function row(p: StudyPoint, relativize: (path: string) => string): string {
  const f = p.flops;
  const values: Record<(typeof CSV_COLUMNS)[number], unknown> = {
    study: p.study, family: p.family, spec: relativize(p.spec), model: p.model, N: p.N, nb: p.nb, nv: p.nv, problem: p.problem, solver: p.solver,
    baseline: p.baseline, status: p.status,
    flops_total: f?.total, flops_mul: f?.mul, flops_add: f?.add, flops_div: f?.div,
    flops_kinematics: f?.kinematics, flops_fill: f?.fill, flops_factor: f?.factor, flops_solve: f?.solve, flops_other: f?.other,
    n: p.n, nnz: p.nnz, lu_nnz: p.lu_nnz, off_nnz: p.off_nnz, fill_nnz: p.fill_nnz, blocks: p.blocks, max_block: p.max_block,
    chosen_orderings: p.chosen_orderings, repivoted_blocks: p.repivoted_blocks,
    analyze_ms: p.analyze_ms, time_us: p.time_us, time_min_us: p.time_min_us, time_rounds: p.time_rounds, time_reps: p.time_reps,
    flops_ratio: p.flops_ratio, time_ratio: p.time_ratio, time_min_ratio: p.time_min_ratio, error: p.error, peak_rss_mib: p.peak_rss_mib, notes: p.notes.join('; '),
  };
  return CSV_COLUMNS.map((k) => cell(values[k])).join(',');
}

/** `relativize` rewrites the absolute paths of URDF models and problem files (e.g. relative to the repository). */
export function studyCsv(r: StudyResult, relativize: (path: string) => string = (p) => p): string {
  return [CSV_COLUMNS.join(','), ...r.points.map((p) => row(p, relativize))].join('\n') + '\n';
}

/** The JSON document; `relativize` as for studyCsv (absolute paths are machine specific). */
export function studyJson(r: StudyResult, relativize: (path: string) => string = (p) => p): string {
  const c = r.config;
  const config = {
    ...c,
    baseDir: undefined,
    models: c.models.map((m) => ({ ...m, spec: relativize(m.spec) })),
    problems: c.problems.map((p) => ({ ...p, maxNb: Number.isFinite(p.maxNb) ? p.maxNb : undefined, file: p.file === undefined ? undefined : relativize(p.file) })),
    timing: { ...c.timing, maxNb: Number.isFinite(c.timing.maxNb) ? c.timing.maxNb : undefined },
    spy: c.spy ? { ...c.spy, model: relativize(c.spy.model) } : undefined,
    paper: c.paper ? { ...c.paper, csv: relativize(c.paper.csv) } : undefined,
  };
  const points = r.points.map((p) => ({ ...p, spec: relativize(p.spec) }));
  return JSON.stringify({ format: 'sparsedyn.study', version: 1, config, meta: r.meta, notes: r.notes, points }) + '\n';
}
