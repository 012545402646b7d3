/**
 * What the playground's worker computes for one layout (no DOM, so that it also runs in Node's
 * tests): the well-posedness analysis of `sparsedyn analyze` (same options, so the same verdict),
 * the directions at the configuration the sliders set, the flops of one estimated sample against
 * RNEA's, and the spy plots of [D; D_Y] and of the factors of the system the estimator factorizes.
 */
import { rnea, RneaWorkspace } from '../src/algorithms/rnea.ts';
import { analyzeProblem, directionsAt, type AnalysisReport } from '../src/estimation/analysis.ts';
import { Estimator } from '../src/estimation/estimator.ts';
import { parseProblem } from '../src/estimation/problem.ts';
import { fitProblem, problemModel, withUrdfSensorsFromText } from '../src/estimation/problem-model.ts';
import { buildEstimationSystem, type EstimationSystem } from '../src/estimation/setup.ts';
import type { Model } from '../src/model/model.ts';
import { spyPanels, spySvg, type SpyPanel } from '../src/report/spy.ts';
import { analyze } from '../src/sparse/analyze.ts';

/** A request: the problem's JSON text, the URDF texts it may name, the configuration of the sliders. */
export interface AnalysisRequest {
  id: number;
  problem: string;
  urdfs: Record<string, string>;
  q: number[];
  /** leave out the spy plots (they change only with the layout, not with q) */
  spy: boolean;
}

export interface AnalysisResult {
  id: number;
  error?: string;
  report?: AnalysisReport;
  /** the directions at the sliders' configuration (the least observable one when there are none) */
  current?: { deficiency: number; ratio: number; directions: string[] };
  flops?: { estimate: number | null; mode: string; rnea: number; why?: string };
  spy?: string;
  removed?: string[];
  ms: number;
}

let cached: { key: string; model: Model } | null = null;

function modelOf(problemText: string, urdfs: Record<string, string>): { model: Model; removed: string[]; problem: ReturnType<typeof parseProblem> } {
  const parsed = withUrdfSensorsFromText(parseProblem(problemText, 'layout'), urdfs);
  const ftJoints = parsed.sensors.filter((s) => s.type === 'force_torque').map((s) => s.joint).sort().join(',');
  const key = `${parsed.model}|${parsed.base}|${JSON.stringify(parsed.gravity ?? null)}|${ftJoints}|${parsed.model.endsWith('.urdf') ? (urdfs[parsed.model] ?? '').length : 0}`;
  if (!cached || cached.key !== key) cached = { key, model: problemModel(parsed, urdfs) };
  const { problem, removed } = fitProblem(parsed, cached.model);
  return { model: cached.model, problem, removed };
}

/** The panel of [D; D_Y] as assembled, for a system with more equations than unknowns. */
function assembledPanel(sys: EstimationSystem['sys']): SpyPanel {
  const A = sys.pattern, nz = A.Ap[sys.n];
  const rows = new Int32Array(nz), cols = new Int32Array(nz);
  for (let j = 0; j < sys.n; j++) for (let t = A.Ap[j]; t < A.Ap[j + 1]; t++) { rows[t] = A.Ai[t]; cols[t] = j; }
  return { id: 'assembled', title: `[D; D_Y] as assembled: ${sys.m}×${sys.n}, ${nz} nonzeros`, m: sys.m, n: sys.n, rows, cols, cls: new Uint8Array(nz) };
}

/** The L+U panel of a factorization of the augmented system (least squares), for the spy plot. */
function factorPanel(S: ReturnType<typeof analyze>, title: string): SpyPanel {
  const n = S.n, total = S.luNnz + S.offNnz;
  const rows = new Int32Array(total), cols = new Int32Array(total), cls = new Uint8Array(total);
  const inC = new Int32Array(n).fill(-1);
  let e = 0;
  for (let k = 0; k < n; k++) {
    for (let t = S.Bp[k]; t < S.Bp[k + 1]; t++) inC[S.Bi[t]] = k;
    const put = (i: number, original: boolean) => { rows[e] = i; cols[e] = k; cls[e] = original ? 0 : 1; e++; };
    for (let t = S.Up[k]; t < S.Up[k + 1]; t++) put(S.Ui[t], inC[S.Ui[t]] === k);
    put(k, inC[k] === k);
    for (let t = S.Lp[k]; t < S.Lp[k + 1]; t++) put(S.Li[t], inC[S.Li[t]] === k);
    for (let t = S.Op[k]; t < S.Op[k + 1]; t++) put(S.Oi[t], true);
  }
  return { id: 'factors', title, m: n, n, rows, cols, cls, blocks: S.r };
}

/**
 * The analysis of one layout, in steps so that the page shows the verdict first: `first` (verdict,
 * ranks, directions; no redundancy search), `rest` (redundant sensors, flops, spy plots), and `at`
 * (the directions at another configuration of the sliders, the layout unchanged).
 */
export class LayoutAnalysis {
  readonly model: Model;
  readonly es: EstimationSystem;
  readonly removed: string[];

  constructor(readonly problemText: string, urdfs: Record<string, string>) {
    const { model, problem, removed } = modelOf(problemText, urdfs);
    this.model = model;
    this.removed = removed;
    this.es = buildEstimationSystem(model, problem);
  }

  /** the directions at the configuration q (the least observable one when none is unobservable) */
  at(q: number[]): { deficiency: number; ratio: number; directions: string[] } {
    if (q.length !== this.model.nq) throw new RangeError(`the configuration has ${q.length} values, the model ${this.model.nq}`);
    return directionsAt(this.es, Float64Array.from(q));
  }

  /** verdict, ranks, configurations tried, unobservable directions (no redundancy search) */
  first(): AnalysisReport {
    return analyzeProblem(this.es, { redundancy: false });
  }

  /** the full report (with the redundant sensors, as `sparsedyn analyze`), flops per sample, spy plots */
  rest(q: number[], spy = true): { report: AnalysisReport; flops: NonNullable<AnalysisResult['flops']>; spy?: string } {
    const es = this.es, model = this.model;
    const report = analyzeProblem(es);
    const qv = Float64Array.from(q);
    // flops of one sample: the estimator (when the layout determines every unknown) and RNEA
    const qd = new Float64Array(model.nv).fill(0.1);
    const ws = new RneaWorkspace(model);
    rnea(model, ws, qv, qd, new Float64Array(model.nv));
    const rneaFlops = ws.flops.total;
    let estimate: number | null = null, mode = 'none', why: string | undefined;
    let est: Estimator | undefined;
    if (report.verdict === 'ill_posed') why = 'the layout does not determine every unknown';
    else {
      try {
        est = new Estimator(es);
        est.estimate(qv, qd, new Float64Array(es.sys.ny));
        estimate = est.totalFlops().total;
        mode = est.mode === 'square' ? 'sparse LU' : 'weighted least squares (augmented sparse LU)';
      } catch (e) {
        why = `${(e as Error).message.split(':')[0]} at the sliders' configuration`;
      }
    }
    let svg: string | undefined;
    if (spy) {
      const sys = es.sys;
      let panels: SpyPanel[];
      if (sys.m === sys.n) panels = spyPanels(sys, analyze(sys.pattern, {}));
      else {
        panels = [assembledPanel(sys)];
        if (est?.lu) panels.push(factorPanel(est.lu.symbolic, `L+U of the least-squares system: ${est.lu.symbolic.n}×${est.lu.symbolic.n}`));
      }
      svg = spySvg(panels, { panelSize: 260, aggregateAbove: 260, maxBreaks: 0, caption: `${sys.m} equations, ${sys.n} unknowns` });
    }
    return { report, flops: { estimate, mode, rnea: rneaFlops, why }, spy: svg };
  }
}

/** Run the whole analysis of one request at once (the tests; the worker runs it in steps). */
export function runAnalysis(req: AnalysisRequest): AnalysisResult {
  const t0 = performance.now();
  try {
    const la = new LayoutAnalysis(req.problem, req.urdfs);
    const current = la.at(req.q);
    const { report, flops, spy } = la.rest(req.q, req.spy);
    return { id: req.id, report, current, flops, spy: spy, removed: la.removed, ms: performance.now() - t0 };
  } catch (e) {
    return { id: req.id, error: (e as Error).message, ms: performance.now() - t0 };
  }
}
