/**
 * Run a study: every model (with its N_B sweep) × problem × solver, one point each — exact flops
 * from the kernels' counters split into kinematics / fill / factor / solve, matrix size and
 * structure, offline analysis time, median time per call with ratios against the problem's
 * baseline measured in the same process, the agreement with the baseline's result, and the
 * process's peak memory. No I/O: the caller writes the points (output.ts) and the report.
 * 
 */
import os from 'node:os';
import { forwardDynamicsProblem, inverseDynamicsProblem } from '../assembly/problems.ts';
import { SymbolicSystem } from '../assembly/system.ts';
import type { Model } from '../model/model.ts';
import { parseModelSpec } from '../node/spec.ts';
import { analyze } from '../sparse/analyze.ts';
import type { SymbolicLU } from '../sparse/symbolic.ts';
import { estimationCase, loadCellsProblem, modelCase, type StudyCase } from './cases.ts';
import { BASELINE, expandModels, solverApplies, type ProblemEntry, type ProblemKind, type SolverName, type StudyConfig } from './config.ts';
import { buildEstimationSystem } from '../estimation/setup.ts';
import { prepareSolver, SolverSkip, type FlopPart, type PreparedSolver } from './solvers.ts';
import { medianMicros } from './timing.ts';

/** One flop figure. */
export interface FlopFigure {
  mul: number;
  add: number;
  div: number;
  total: number;
}

/** Columns of the CSV the parts map to (any other part counts as "other"). */
export const FLOP_COLUMNS = ['kinematics', 'fill', 'factor', 'solve', 'other'] as const;
export type FlopColumn = (typeof FLOP_COLUMNS)[number];

/**
 * Which column a named part goes to: matrix ABA's product is its factorization analogue; for the
 * derivatives by factor reuse, filling the jacobians J_q, J_v goes with the fill and the further
 * solves with the solve.
 */
export function flopColumn(part: string): FlopColumn {
  switch (part) {
    case 'kinematics': case 'fill': case 'factor': case 'solve': return part;
    case 'product': return 'factor';
    case 'jacobians': return 'fill';
    case 'derivative solves': case 'transposed solves': return 'solve';
    default: return 'other';
  }
}

export interface StudyPoint {
  study: string;
  /** legend label of the model family, the SPEC as run, the model's name */
  family: string;
  spec: string;
  model: string;
  /** the sweep variable (N of the entry) when the family has one */
  N?: number;
  nb: number;
  nv: number;
  problem: ProblemKind;
  solver: SolverName;
  /** the problem's reference solver (ratios are against it) */
  baseline: SolverName;
  status: 'ok' | 'skipped' | 'failed';
  notes: string[];
  /** flops by column and total (kernel counts; dense factor/solve by formula) */
  flops?: Record<FlopColumn, number> & { total: number; mul: number; add: number; div: number };
  /** the solver's own parts (names as the kernels report them) */
  parts?: Record<string, FlopFigure>;
  n?: number;
  nnz?: number;
  lu_nnz?: number;
  off_nnz?: number;
  fill_nnz?: number;
  blocks?: number;
  max_block?: number;
  chosen_orderings?: string;
  repivoted_blocks?: number;
  analyze_ms?: number;
  time_us?: number;
  /** the fastest round's µs per call */
  time_min_us?: number;
  time_rounds?: number;
  time_reps?: number;
  /** flops and time over the baseline's at the same model (baseline: 1); time_min_ratio from the fastest rounds */
  flops_ratio?: number;
  time_ratio?: number;
  time_min_ratio?: number;
  /** largest |x − x_ref| / max(1, |x_ref|) against the baseline's result (estimation: the true τ) */
  error?: number;
  peak_rss_mib: number;
}

export interface SpyArtifact {
  sys: SymbolicSystem;
  S: SymbolicLU;
  caption: string;
}

export interface StudyResult {
  config: StudyConfig;
  points: StudyPoint[];
  /** run information: date, machine, totals */
  meta: { date: string; node: string; cpu: string; cpus: number; platform: string; seconds: number; peak_rss_mib: number; points: number; load_average: [number, number] };
  /** notes about skipped models or problems */
  notes: string[];
  /** the spy plot's system and ordering (not serialised) */
  spy?: SpyArtifact;
}

export interface RunOptions {
  /** called before each point: done points, total points, what runs now */
  onProgress?: (done: number, total: number, label: string) => void;
  /** called once with every model the study loads (the command line prints its warnings) */
  onModel?: (model: Model) => void;
}

function figure(parts: FlopPart[]): Pick<StudyPoint, 'flops' | 'parts'> {
  const cols: Record<FlopColumn, number> = { kinematics: 0, fill: 0, factor: 0, solve: 0, other: 0 };
  const named: Record<string, FlopFigure> = {};
  let mul = 0, add = 0, div = 0;
  for (const p of parts) {
    const f = p.flops;
    cols[flopColumn(p.name)] += f.total;
    named[p.name] = { mul: f.mul, add: f.add, div: f.div, total: f.total };
    mul += f.mul; add += f.add; div += f.div;
  }
  return { flops: { ...cols, total: mul + add + div, mul, add, div }, parts: named };
}

function relError(x: ArrayLike<number>, ref: ArrayLike<number>): number {
  let e = 0, s = 1;
  for (let k = 0; k < ref.length; k++) { e = Math.max(e, Math.abs(x[k] - ref[k])); s = Math.max(s, Math.abs(ref[k])); }
  return e / s;
}

function peakRssMiB(): number {
  return process.resourceUsage().maxRSS / 1024;
}

interface Instance {
  family: string;
  spec: string;
  N?: number;
  /** built lazily (one model per instance) */
  model?: Model;
}

/** The solvers run on a problem: the baseline first, then the configured ones that apply. */
export function solversFor(config: StudyConfig, problem: ProblemKind): SolverName[] {
  const base = BASELINE[problem];
  return [base, ...config.solvers.filter((s) => s !== base && solverApplies(s, problem))];
}

export function runStudy(config: StudyConfig, opts: RunOptions = {}): StudyResult {
  const t0 = performance.now();
  const load0 = os.loadavg()[0];
  const points: StudyPoint[] = [];
  const notes: string[] = [];
  const instances: Instance[] = config.models.flatMap((e) => expandModels(e).map((m) => ({ family: e.label, spec: m.spec, N: m.N })));
  const modelProblems = config.problems.filter((p) => p.problem !== 'estimation');
  const fileProblems = config.problems.filter((p) => p.problem === 'estimation');
  // plan: (instance or file, problem) pairs, with their solvers
  interface Job { inst?: Instance; problem: ProblemEntry; solvers: SolverName[] }
  const jobs: Job[] = [];
  for (const inst of instances) for (const p of modelProblems) jobs.push({ inst, problem: p, solvers: solversFor(config, p.problem) });
  for (const p of fileProblems) jobs.push({ problem: p, solvers: solversFor(config, p.problem) });
  const total = jobs.reduce((s, j) => s + j.solvers.length, 0);
  let done = 0;
  const skippedByMaxNb = new Map<string, number[]>();
  for (const job of jobs) {
    const label = job.inst ? job.inst.spec : job.problem.file!;
    let c: StudyCase;
    try {
      if (job.inst) {
        if (!job.inst.model) {
          job.inst.model = parseModelSpec(job.inst.spec);
          opts.onModel?.(job.inst.model);
        }
        const model = job.inst.model;
        if (model.nb > job.problem.maxNb) {
          const key = `${job.problem.problem} (maxNb ${job.problem.maxNb})`;
          skippedByMaxNb.set(key, [...(skippedByMaxNb.get(key) ?? []), model.nb]);
          done += job.solvers.length;
          continue;
        }
        c = modelCase(job.problem.problem as Exclude<ProblemKind, 'estimation'>, model, job.inst.spec, config.seed);
      } else {
        c = estimationCase(job.problem.file!, config.seed);
      }
    } catch (e) {
      notes.push(`${label}, ${job.problem.problem}: ${(e as Error).message}`);
      done += job.solvers.length;
      continue;
    }
    const family = job.inst ? job.inst.family : job.problem.file!.replace(/^.*[\\/]/, '');
    const timed = config.timing.enabled && c.model.nb <= config.timing.maxNb;
    const group: StudyPoint[] = [];
    let refOutput: ArrayLike<number> | undefined = c.kind === 'estimation' || c.kind === 'load-cells' ? c.truthTau : undefined;
    for (const solver of job.solvers) {
      opts.onProgress?.(done, total, `${label} · ${c.kind} · ${solver}`);
      done++;
      const point: StudyPoint = {
        study: config.name, family, spec: c.modelSpec, model: c.model.name, N: job.inst?.N, nb: c.model.nb, nv: c.model.nv,
        problem: c.kind, solver, baseline: BASELINE[c.kind], status: 'ok', notes: [], peak_rss_mib: 0,
      };
      group.push(point);
      let prep: PreparedSolver | SolverSkip;
      try {
        prep = prepareSolver(c, solver, { denseMaxRunOrder: config.dense.maxRunOrder, timeFiniteDifferences: config.timing.finiteDifferences });
      } catch (e) {
        point.status = 'failed';
        point.notes.push(failureNote(e));
        point.peak_rss_mib = peakRssMiB();
        continue;
      }
      if (prep instanceof SolverSkip) {
        point.status = 'skipped';
        point.notes.push(prep.note);
        point.peak_rss_mib = peakRssMiB();
        continue;
      }
      point.notes.push(...prep.notes);
      try {
        let firstMs = 0;
        if (prep.run) {
          const t1 = performance.now();
          prep.run();
          firstMs = performance.now() - t1;
          const out = prep.output!();
          if (solver === point.baseline && refOutput === undefined) refOutput = Float64Array.from(out);
          if (refOutput !== undefined) point.error = relError(out, refOutput);
        }
        Object.assign(point, figure(prep.parts()));
        if (prep.structure) {
          const s = prep.structure();
          point.n = s.n; point.nnz = s.nnz;
          if (s.luNnz !== undefined) point.lu_nnz = s.luNnz;
          if (s.offNnz !== undefined) point.off_nnz = s.offNnz;
          if (s.fill !== undefined) point.fill_nnz = s.fill;
          if (s.blocks !== undefined) point.blocks = s.blocks;
          if (s.maxBlock !== undefined) point.max_block = s.maxBlock;
          if (s.chosen !== undefined && s.chosen !== '') point.chosen_orderings = s.chosen;
        }
        if (prep.analyzeMs !== undefined) point.analyze_ms = prep.analyzeMs;
        if (prep.repivoted) {
          point.repivoted_blocks = prep.repivoted();
          if (point.repivoted_blocks > 0) point.notes.push(`numeric pivoting re-ordered ${point.repivoted_blocks} block(s) at this state; the counts are for those factors`);
        }
        if (prep.run && timed && prep.untimed !== undefined) {
          point.notes.push(prep.untimed);
        } else if (prep.run && timed && firstMs > config.timing.maxCallMs) {
          point.notes.push(`not timed: one call took ${firstMs.toFixed(0)} ms > timing.maxCallMs = ${config.timing.maxCallMs}`);
        } else if (prep.run && timed) {
          const run = prep.run;
          const t = medianMicros(run, { rounds: solver === 'dense' ? Math.min(5, config.timing.rounds) : config.timing.rounds, minMs: config.timing.minMs, warmupMs: config.timing.warmupMs });
          point.time_us = t.us; point.time_min_us = t.minUs; point.time_rounds = t.rounds; point.time_reps = t.reps;
        } else if (prep.run && !timed) {
          point.notes.push(config.timing.enabled ? `not timed: N_B = ${c.model.nb} > timing.maxNb = ${config.timing.maxNb}` : 'not timed: timing.enabled is false');
        }
      } catch (e) {
        point.status = 'failed';
        point.notes.unshift(failureNote(e));
        delete point.flops; delete point.parts; delete point.error;
      }
      point.peak_rss_mib = peakRssMiB();
    }
    const base = group.find((p) => p.solver === p.baseline && p.status === 'ok');
    for (const p of group) {
      if (base?.flops && p.flops) p.flops_ratio = p.flops.total / base.flops.total;
      if (base?.time_us !== undefined && p.time_us !== undefined && base.time_us > 0) p.time_ratio = p.time_us / base.time_us;
      if (base?.time_min_us !== undefined && p.time_min_us !== undefined && base.time_min_us > 0) p.time_min_ratio = p.time_min_us / base.time_min_us;
    }
    points.push(...group);
  }
  for (const [key, nbs] of skippedByMaxNb) notes.push(`${key}: not run for N_B = ${[...new Set(nbs)].sort((a, b) => a - b).join(', ')}`);
  opts.onProgress?.(total, total, 'done');
  const spy = config.spy ? spyArtifact(config) : undefined;
  return {
    config, points, notes, spy,
    meta: {
      date: new Date().toISOString(), node: process.version, cpu: os.cpus()[0]?.model ?? 'unknown CPU', cpus: os.cpus().length, platform: `${os.platform()} ${os.arch()}`,
      seconds: (performance.now() - t0) / 1000, peak_rss_mib: peakRssMiB(), points: points.length, load_average: [load0, os.loadavg()[0]],
    },
  };
}

/** The system and ordering the spy plots show. */
function spyArtifact(config: StudyConfig): SpyArtifact {
  const s = config.spy!;
  const spec = s.N === undefined ? s.model : s.model.split('{N}').join(String(s.N));
  const model = parseModelSpec(spec);
  const inverse = s.problem === 'inverse-dynamics' || s.problem === 'id-derivatives';
  const sys = s.problem === 'load-cells'
    ? buildEstimationSystem(model, loadCellsProblem(model, spec)).sys
    : new SymbolicSystem(model, inverse ? inverseDynamicsProblem(model) : forwardDynamicsProblem(model));
  const S = analyze(sys.pattern, { ordering: s.ordering, rowNames: sys.rowNames, colNames: sys.layout.names });
  const caption = `${spec}, ${s.problem} (ordering ${s.ordering}): D is ${sys.m}×${sys.n} with ${sys.nnz} nonzeros; L+U ${S.luNnz} + ${S.offNnz} off-diagonal-block entries, ${S.luNnz + S.offNnz - S.nnz} fill`;
  return { sys, S, caption };
}

/** A failed point's note: the error's message, in words (no class name); an error only a bug can cause says so. */
function failureNote(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  return e instanceof TypeError || e instanceof ReferenceError ? `internal error (a bug in sparsedyn): ${m}` : m;
}
