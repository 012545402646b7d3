/**
 * Study configuration files (`sparsedyn study CONFIG.json`): which models (with an N_B sweep),
 * which problems and which solvers to run, how to time them, and what the report shows. Parsing
 * validates every field and names the offending one; it does no I/O (the caller reads the file).
 * Source: Nori (2017) Figures 1 and 2.
 *
 * {
 *   "name": "figure1", "title": "…", "description": "…",
 *   "models":   ["../models/humanoid.urdf+floating", { "spec": "chain:{N}:axes=z", "N": [1, 2, 5, 10], "label": "planar chain" }],
 *   "problems": ["inverse-dynamics", "forward-dynamics", "minv", "iwim", "load-cells", "id-derivatives", "fd-derivatives",
 *                { "problem": "minv", "maxNb": 200 }, { "problem": "estimation", "file": "../data/problems/x.json" }],
 *   "solvers":  ["rnea", "aba", "matrix-aba", "lu", "lu:amd", "lu:*", "lu:paper", "dense", "carpentier", "recursive", "lu-adjoint", "fd", …],
 *   "timing":   { "enabled": true, "rounds": 9, "minMs": 2, "warmupMs": 400, "maxNb": 1000, "maxCallMs": 250, "finiteDifferences": false },
 *   "dense":    { "maxRunOrder": 400 },
 *   "seed": 1,
 *   "spy":      { "model": "chain:{N}:axes=z", "N": 10, "problem": "forward-dynamics", "ordering": "auto" },
 *   "paper":    { "figure": 1, "csv": "paper-004/figure1_forward_dynamics_chain.csv", "model": "planar chain" }
 * }
 * Paths (URDF models, problem files, paper CSVs) are relative to the configuration file.
 * The derivative problems compare factor reuse (`lu`, `lu:<ordering>`, `lu-adjoint`) with
 * the recursive algorithms (`recursive`, Carpentier & Mansard 2018's RNEA derivatives, the baseline) and central
 * differences (`fd`, a reference timed only with timing.finiteDifferences = true).
 */
import { isAbsolute, resolve } from 'node:path';
import { isOrderingName, ORDERINGS, type OrderingName } from '../sparse/orderings.ts';
import { JsonTextError, parseJsonText } from '../text/json-text.ts';

/** A configuration that does not follow the format; the message names the file and the field. */
export class StudyConfigError extends Error {
  override name = 'StudyConfigError';
}

export type ProblemKind = 'inverse-dynamics' | 'forward-dynamics' | 'minv' | 'iwim' | 'load-cells' | 'estimation' | 'id-derivatives' | 'fd-derivatives';
export const PROBLEM_KINDS: readonly ProblemKind[] = ['inverse-dynamics', 'forward-dynamics', 'minv', 'iwim', 'load-cells', 'estimation', 'id-derivatives', 'fd-derivatives'];

/** The derivative problems: (∂τ/∂q, ∂τ/∂q̇, M) and (∂q̈/∂q, ∂q̈/∂q̇, M⁻¹). */
export function isDerivativeProblem(problem: ProblemKind): problem is 'id-derivatives' | 'fd-derivatives' {
  return problem === 'id-derivatives' || problem === 'fd-derivatives';
}
const PROBLEM_ALIASES: Readonly<Record<string, ProblemKind>> = { id: 'inverse-dynamics', fd: 'forward-dynamics' };

/** Fixed solver names; sparse LU solvers are `lu:<ordering>` (`lu` = `lu:auto`). */
export const ALGORITHM_SOLVERS = ['rnea', 'aba', 'matrix-aba', 'dense', 'lu:paper', 'carpentier', 'crba-cholesky', 'iim', 'eufm', 'recursive', 'lu-adjoint', 'fd'] as const;
export type SolverName = (typeof ALGORITHM_SOLVERS)[number] | `lu:${OrderingName | 'auto'}`;

/** Which problems each solver solves. */
export function solverApplies(solver: SolverName, problem: ProblemKind): boolean {
  switch (solver) {
    case 'rnea': return problem === 'inverse-dynamics';
    case 'aba': case 'matrix-aba': return problem === 'forward-dynamics';
    case 'lu:paper': return problem === 'inverse-dynamics';
    case 'carpentier': case 'crba-cholesky': return problem === 'minv';
    case 'iim': case 'eufm': return problem === 'iwim';
    case 'recursive': case 'lu-adjoint': case 'fd': return isDerivativeProblem(problem);
    case 'dense': return !isDerivativeProblem(problem);
    default: return true; // every lu:<ordering> (factor reuse on the derivative problems)
  }
}

/** The reference each problem's ratios are taken against (always run, in the same process). */
export const BASELINE: Readonly<Record<ProblemKind, SolverName>> = {
  'inverse-dynamics': 'rnea',
  'forward-dynamics': 'aba',
  minv: 'carpentier',
  iwim: 'iim',
  'load-cells': 'rnea',
  estimation: 'rnea',
  'id-derivatives': 'recursive',
  'fd-derivatives': 'recursive',
};

export interface ModelEntry {
  /** model SPEC with `{N}` replaced by each value of N (URDF paths resolved against the config's folder) */
  spec: string;
  /** the N values (absent: one model) */
  N?: number[];
  /** legend label of this family (default: the spec) */
  label: string;
}

export interface ProblemEntry {
  problem: ProblemKind;
  /** skip models with more bodies than this */
  maxNb: number;
  /** estimation: the problem file (absolute path), which names its own model */
  file?: string;
}

export interface StudyConfig {
  name: string;
  title: string;
  description: string;
  models: ModelEntry[];
  problems: ProblemEntry[];
  solvers: SolverName[];
  /**
   * warmupMs: untimed calls before the rounds, for that long (default 400 ms: with 40 ms, or 5000
   *   calls, some points were timed before V8 had optimized the code: ABA on the 100-link chain
   *   measured 483 µs against 46 µs warmed, on the 1,000-link chain 810 against 455);
   * maxCallMs: a solver whose first (untimed) call takes longer is not timed (its flops still count);
   * finiteDifferences: time the central differences (`fd`) too (default false: a reference only)
   */
  timing: { enabled: boolean; rounds: number; minMs: number; warmupMs: number; maxNb: number; maxCallMs: number; finiteDifferences: boolean };
  dense: { maxRunOrder: number };
  seed: number;
  spy?: { model: string; N?: number; problem: ProblemKind; ordering: OrderingName | 'auto' };
  paper?: { figure: 1 | 2; csv: string; model: string };
  /** folder of the configuration file (paths were resolved against it) */
  baseDir: string;
}

type Obj = Record<string, unknown>;

function isObj(x: unknown): x is Obj {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/** A model SPEC split into its body and its `+floating` / `+fixed` suffix ('' when it has none). */
function splitBaseSuffix(spec: string): [body: string, suffix: string] {
  const m = /^(.*?)(\+(?:floating|fixed))?$/.exec(spec.trim())!;
  return [m[1], m[2] ?? ''];
}

/** Resolve a model SPEC's URDF path (before a `+floating`/`+fixed` suffix) against baseDir. */
export function resolveModelSpec(spec: string, baseDir: string): string {
  const [body, suffix] = splitBaseSuffix(spec);
  return /\.urdf$/i.test(body) && !isAbsolute(body) ? resolve(baseDir, body) + suffix : body + suffix;
}

export function parseStudyConfig(text: string, file: string, baseDir: string): StudyConfig {
  let raw: unknown;
  try {
    raw = parseJsonText(text, file);
  } catch (e) {
    throw e instanceof JsonTextError ? new StudyConfigError(e.message) : e;
  }
  const fail = (field: string, msg: string): never => { throw new StudyConfigError(`${file}: ${field} ${msg}`); };
  if (!isObj(raw)) fail('the document', 'must be a JSON object');
  const o = raw as Obj;
  const known = ['$schema', 'name', 'title', 'description', 'models', 'problems', 'solvers', 'timing', 'dense', 'seed', 'spy', 'paper'];
  for (const k of Object.keys(o)) if (!known.includes(k)) fail(`field "${k}"`, `is not a study field (expected ${known.slice(1).join(', ')})`);
  const str = (v: unknown, field: string, def?: string): string => {
    if (v === undefined && def !== undefined) return def;
    if (typeof v !== 'string' || v.trim() === '') return fail(field, `must be a non-empty string, got ${JSON.stringify(v)}`);
    return v;
  };
  const posInt = (v: unknown, field: string): number => {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) return fail(field, `must be a positive integer, got ${JSON.stringify(v)}`);
    return v;
  };
  const name = str(o.name, 'name');
  if (!/^[A-Za-z0-9._-]+$/.test(name)) fail('name', `must be a file-name-safe identifier (letters, digits, . _ -), got "${name}"`);

  // models
  if (!Array.isArray(o.models) || o.models.length === 0) fail('models', 'must be a non-empty array');
  const models: ModelEntry[] = (o.models as unknown[]).map((m, k) => {
    const where = `models[${k}]`;
    if (typeof m === 'string') return { spec: resolveModelSpec(str(m, where), baseDir), label: m };
    if (!isObj(m)) return fail(where, 'must be a model SPEC string or an object { spec, N, label }');
    for (const key of Object.keys(m)) if (!['spec', 'N', 'label'].includes(key)) fail(`${where}.${key}`, 'is not a model field (expected spec, N, label)');
    const spec = str(m.spec, `${where}.spec`);
    let N: number[] | undefined;
    if (m.N !== undefined) {
      if (!Array.isArray(m.N) || m.N.length === 0) fail(`${where}.N`, 'must be a non-empty array of positive integers');
      N = (m.N as unknown[]).map((x, j) => posInt(x, `${where}.N[${j}]`));
      if (!spec.includes('{N}')) fail(`${where}.spec`, `must contain {N} when N is given, got "${spec}"`);
    } else if (spec.includes('{N}')) {
      fail(`${where}.N`, `is missing: the spec "${spec}" contains {N}`);
    }
    return { spec: resolveModelSpec(spec, baseDir), N, label: str(m.label, `${where}.label`, spec) };
  });

  // problems
  if (!Array.isArray(o.problems) || o.problems.length === 0) fail('problems', 'must be a non-empty array');
  const problemKind = (v: unknown, field: string): ProblemKind => {
    const s = str(v, field);
    const kind = PROBLEM_ALIASES[s] ?? s;
    if (!(PROBLEM_KINDS as readonly string[]).includes(kind)) fail(field, `"${s}" is not a problem (expected ${PROBLEM_KINDS.join(', ')}, or id / fd)`);
    return kind as ProblemKind;
  };
  const problems: ProblemEntry[] = (o.problems as unknown[]).map((p, k) => {
    const where = `problems[${k}]`;
    if (typeof p === 'string') {
      const kind = problemKind(p, where);
      if (kind === 'estimation') fail(where, 'an estimation problem needs a file: { "problem": "estimation", "file": "PROBLEM.json" }');
      return { problem: kind, maxNb: Infinity };
    }
    if (!isObj(p)) return fail(where, 'must be a problem name or an object { problem, maxNb, file }');
    for (const key of Object.keys(p)) if (!['problem', 'maxNb', 'file'].includes(key)) fail(`${where}.${key}`, 'is not a problem field (expected problem, maxNb, file)');
    const kind = problemKind(p.problem, `${where}.problem`);
    const maxNb = p.maxNb === undefined ? Infinity : posInt(p.maxNb, `${where}.maxNb`);
    if (kind === 'estimation') {
      const f = str(p.file, `${where}.file`);
      return { problem: kind, maxNb, file: isAbsolute(f) ? f : resolve(baseDir, f) };
    }
    if (p.file !== undefined) fail(`${where}.file`, `only an estimation problem takes a file (this one is ${kind})`);
    return { problem: kind, maxNb };
  });

  // solvers
  if (!Array.isArray(o.solvers) || o.solvers.length === 0) fail('solvers', 'must be a non-empty array');
  const solvers: SolverName[] = [];
  const push = (s: SolverName) => { if (!solvers.includes(s)) solvers.push(s); };
  (o.solvers as unknown[]).forEach((s, k) => {
    const where = `solvers[${k}]`;
    const v = str(s, where);
    if (v === 'lu') push('lu:auto');
    else if (v === 'lu:*') { push('lu:auto'); for (const ord of ORDERINGS) push(`lu:${ord}`); }
    else if (v.startsWith('lu:') && v !== 'lu:paper') {
      const ord = v.slice(3);
      if (ord !== 'auto' && !isOrderingName(ord)) fail(where, `"${v}": unknown ordering "${ord}" (expected auto or one of ${ORDERINGS.join(', ')})`);
      push(v as SolverName);
    } else if ((ALGORITHM_SOLVERS as readonly string[]).includes(v)) push(v as SolverName);
    else fail(where, `"${v}" is not a solver (expected ${ALGORITHM_SOLVERS.join(', ')}, lu, lu:*, or lu:<ordering>)`);
  });
  for (const s of solvers) {
    if (!problems.some((p) => solverApplies(s, p.problem))) {
      fail('solvers', `"${s}" solves none of the problems listed (${problems.map((p) => p.problem).join(', ')})`);
    }
  }

  // timing, dense, seed
  const timing = { enabled: true, rounds: 9, minMs: 2, warmupMs: 400, maxNb: Infinity, maxCallMs: 250, finiteDifferences: false };
  if (o.timing !== undefined) {
    const fields = ['enabled', 'rounds', 'minMs', 'warmupMs', 'maxNb', 'maxCallMs', 'finiteDifferences'];
    if (!isObj(o.timing)) fail('timing', `must be an object { ${fields.join(', ')} }`);
    const t = o.timing as Obj;
    for (const key of Object.keys(t)) if (!fields.includes(key)) fail(`timing.${key}`, `is not a timing field (expected ${fields.join(', ')})`);
    for (const key of ['enabled', 'finiteDifferences'] as const) {
      if (t[key] === undefined) continue;
      if (typeof t[key] !== 'boolean') fail(`timing.${key}`, `must be true or false, got ${JSON.stringify(t[key])}`);
      timing[key] = t[key] as boolean;
    }
    if (t.rounds !== undefined) timing.rounds = posInt(t.rounds, 'timing.rounds');
    if (t.minMs !== undefined) {
      if (typeof t.minMs !== 'number' || !(t.minMs > 0) || !Number.isFinite(t.minMs)) fail('timing.minMs', `must be a positive number, got ${JSON.stringify(t.minMs)}`);
      timing.minMs = t.minMs as number;
    }
    if (t.warmupMs !== undefined) {
      if (typeof t.warmupMs !== 'number' || !(t.warmupMs >= 0) || !Number.isFinite(t.warmupMs)) fail('timing.warmupMs', `must be a number ≥ 0, got ${JSON.stringify(t.warmupMs)}`);
      timing.warmupMs = t.warmupMs as number;
    }
    if (t.maxNb !== undefined) timing.maxNb = posInt(t.maxNb, 'timing.maxNb');
    if (t.maxCallMs !== undefined) {
      if (typeof t.maxCallMs !== 'number' || !(t.maxCallMs > 0)) fail('timing.maxCallMs', `must be a positive number, got ${JSON.stringify(t.maxCallMs)}`);
      timing.maxCallMs = t.maxCallMs as number;
    }
  }
  const dense = { maxRunOrder: 400 };
  if (o.dense !== undefined) {
    if (!isObj(o.dense)) fail('dense', 'must be an object { maxRunOrder }');
    for (const key of Object.keys(o.dense as Obj)) if (key !== 'maxRunOrder') fail(`dense.${key}`, 'is not a dense field (expected maxRunOrder)');
    const d = (o.dense as Obj).maxRunOrder;
    if (d !== undefined) dense.maxRunOrder = posInt(d, 'dense.maxRunOrder');
  }
  const seed = o.seed === undefined ? 1 : posInt(o.seed, 'seed');

  // spy
  let spy: StudyConfig['spy'];
  if (o.spy !== undefined) {
    if (!isObj(o.spy)) fail('spy', 'must be an object { model, N, problem, ordering }');
    const s = o.spy as Obj;
    for (const key of Object.keys(s)) if (!['model', 'N', 'problem', 'ordering'].includes(key)) fail(`spy.${key}`, 'is not a spy field (expected model, N, problem, ordering)');
    const model = str(s.model, 'spy.model');
    const N = s.N === undefined ? undefined : posInt(s.N, 'spy.N');
    if (model.includes('{N}') && N === undefined) fail('spy.N', `is missing: the spec "${model}" contains {N}`);
    const problem = problemKind(s.problem, 'spy.problem');
    if (problem === 'estimation') fail('spy.problem', 'must be a problem built from the model (not an estimation file)');
    const ordering = s.ordering === undefined ? 'auto' : str(s.ordering, 'spy.ordering');
    if (ordering !== 'auto' && !isOrderingName(ordering)) fail('spy.ordering', `"${ordering}" is not an ordering (expected auto or one of ${ORDERINGS.join(', ')})`);
    spy = { model: resolveModelSpec(model, baseDir), N, problem, ordering: ordering as OrderingName | 'auto' };
  }

  // paper overlay
  let paper: StudyConfig['paper'];
  if (o.paper !== undefined) {
    if (!isObj(o.paper)) fail('paper', 'must be an object { figure, csv, model }');
    const p = o.paper as Obj;
    for (const key of Object.keys(p)) if (!['figure', 'csv', 'model'].includes(key)) fail(`paper.${key}`, 'is not a paper field (expected figure, csv, model)');
    if (p.figure !== 1 && p.figure !== 2) fail('paper.figure', `must be 1 or 2 (the figures of Nori's 2017 paper), got ${JSON.stringify(p.figure)}`);
    const csv = str(p.csv, 'paper.csv');
    const model = str(p.model, 'paper.model');
    if (!models.some((m) => m.label === model)) fail('paper.model', `"${model}" is not the label of any models[] entry`);
    paper = { figure: p.figure as 1 | 2, csv: isAbsolute(csv) ? csv : resolve(baseDir, csv), model };
  }

  return {
    name,
    title: str(o.title, 'title', name),
    description: o.description === undefined ? '' : str(o.description, 'description'),
    models, problems, solvers, timing, dense, seed, spy, paper, baseDir,
  };
}

/** The model SPECs of one entry, with {N} substituted. */
export function expandModels(entry: ModelEntry): { spec: string; N?: number }[] {
  if (!entry.N) return [{ spec: entry.spec }];
  return entry.N.map((N) => ({ spec: entry.spec.split('{N}').join(String(N)), N }));
}

/**
 * The URDF files a study reads (its models and its spy plot's model; absolute paths, each once), so
 * that a caller can check they are there before running anything.
 */
export function studyModelFiles(config: StudyConfig): string[] {
  const specs = config.models.flatMap((e) => expandModels(e).map((m) => m.spec));
  if (config.spy) specs.push(config.spy.model);
  const files = specs.map((s) => splitBaseSuffix(s)[0]).filter((f) => /\.urdf$/i.test(f));
  return [...new Set(files)];
}
