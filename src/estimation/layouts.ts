/**
 * Layouts of one problem met in a log: the sensors a row has readings for × the contacts active at
 * that row (its contact mode). Each layout gets its own estimation system, offline analysis
 * (verdict; with priors, the directions only the priors determine), estimator and bad-data test,
 * computed on first need; the built layouts are kept in a least-recently-used cache, and the offline
 * work of every layout met (as plain JSON, `LayoutOffline`) for the whole run, so that a mode seen
 * before costs no new analysis, even after its layout left the cache (it is rebuilt from that JSON).
 * Gyroscopes add no equation: they are in every layout.
 */
import { ANALYSIS_CONFIGURATIONS, analyzeDataAlone, analyzeProblem, type AnalysisReport } from './analysis.ts';
import { BadDataDetector, type BadDataCalibration } from './bad-data.ts';
import { EstimateConditioning, type ConditioningCalibration } from './conditioning.ts';
import { SymbolicLU, type SymbolicLUJSON } from '../sparse/symbolic.ts';
import { Estimator } from './estimator.ts';
import type { ProblemFile } from './problem.ts';
import { buildEstimationSystem, type EstimationSystem } from './setup.ts';

/** Options of a layout cache. */
export interface LayoutOptions {
  /** layouts kept (least recently used dropped first; default 32) */
  capacity?: number;
  /** build each layout's condition figure (default true) */
  condition?: boolean;
  /** confidence of the χ² bad-data test (default 0.99); 0 turns the test off */
  confidence?: number;
  /** layouts analysed elsewhere (`layoutOffline`, e.g. by the main thread for its worker threads): built without repeating that work */
  given?: LayoutOffline[];
  /**
   * never analyse: a layout must come with its offline work (`given`, `give`), else `get` throws
   * (the worker threads of one run, whose layouts the main thread analyses)
   */
  givenOnly?: boolean;
}

/** A layout by its key and what it is made of (`LayoutCache.keyOf`). */
export interface LayoutKey {
  key: string;
  /** sensors with equations used (problem order) */
  sensors: string[];
  /** active contacts (problem order) */
  contacts: string[];
}

/**
 * The offline work of a layout as plain JSON: its analysis, the sparse LU's ordering and patterns,
 * the calibration of its condition figure. A cache given it builds the layout without redoing any
 * of it, and estimates exactly as the cache that computed it.
 */
export interface LayoutOffline {
  key: string;
  analysis: AnalysisReport;
  priorOnly: string[];
  priorOnlyUnknowns: string[];
  symbolic?: SymbolicLUJSON;
  conditioning?: ConditioningCalibration;
  /** the bad-data test's offline part (a redundant layout) */
  badData?: BadDataCalibration;
}

/** A layout's offline work as plain JSON (see LayoutOffline). */
export function layoutOffline(l: Layout): LayoutOffline {
  const out: LayoutOffline = { key: l.key, analysis: l.analysis, priorOnly: l.priorOnly, priorOnlyUnknowns: l.priorOnlyUnknowns };
  if (l.estimator) out.symbolic = l.estimator.symbolicInForce.toJSON();
  if (l.conditioning) out.conditioning = l.conditioning.calibration();
  if (l.badData) out.badData = l.badData.calibration;
  return out;
}

/** One layout: its sensors and contacts, analysis, and (when it can estimate) estimator. */
export interface Layout {
  key: string;
  /** sensors with equations used (problem order) */
  sensors: string[];
  /** active contacts (problem order) */
  contacts: string[];
  /** the contact mode's name: the active contacts joined by "+", or "none" */
  mode: string;
  es: EstimationSystem;
  /** the analysis of the layout (priors included) */
  analysis: AnalysisReport;
  /** with priors: the directions the data alone leave unobservable, which only the priors determine */
  priorOnly: string[];
  /** the unknowns those directions leave undetermined by the data */
  priorOnlyUnknowns: string[];
  estimator?: Estimator;
  /** the estimator's row order once the layout was built (offline analysis and calibration): `restartPivoting` returns to it */
  initial?: SymbolicLU;
  conditioning?: EstimateConditioning;
  badData?: BadDataDetector;
  /** the input vector of this layout's system (reused row after row) */
  y: Float64Array<ArrayBuffer>;
  /** ms of the offline work of this layout (analysis, ordering, condition setup, bad-data setup) */
  setupMs: number;
}

/** The contact mode's name of a list of active contacts. */
const sameList = (a: readonly string[], b: readonly string[]): boolean => {
  if (a.length !== b.length) return false;
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return false;
  return true;
};

/** The name of a contact mode as output rows and reports give it: its active contacts joined by `+`, or `none`. */
export const modeName = (contacts: readonly string[]): string => (contacts.length ? contacts.join('+') : 'none');

/** A least-recently-used cache of the layouts of one estimation system. */
export class LayoutCache {
  readonly capacity: number;
  /**
   * offline analyses computed so far: one per layout met (a layout dropped from the cache and met
   * again is rebuilt from its offline work, without a new analysis); none for layouts given
   */
  analyses = 0;
  hits = 0;
  private readonly map = new Map<string, Layout>();
  /** the offline work of every layout built or given, by key (kept for the run: what is dropped from `map` is rebuilt from it) */
  private readonly offline = new Map<string, LayoutOffline>();
  /** the arguments of the last keyOf() and the key they gave */
  private last: { sensors: string[]; contacts: string[]; layout: LayoutKey } | null = null;
  /** every layout met, by key: its sensors, mode and verdict (kept when dropped from the cache) */
  readonly seen = new Map<string, { sensors: string[]; mode: string; verdict: string; samples: number; priorOnly: string[]; unchecked: string[]; checked: string[] }>();

  constructor(readonly es: EstimationSystem, readonly opts: LayoutOptions = {}) {
    this.capacity = Math.max(1, opts.capacity ?? 32);
    if (opts.given) this.give(opts.given);
  }

  /** Add the offline work of layouts analysed elsewhere (`layoutOffline`): they are built without repeating it. */
  give(list: readonly LayoutOffline[]): void {
    for (const g of list) if (!this.offline.has(g.key)) this.offline.set(g.key, g);
  }

  /** The analysis of a layout built or given (by key), without building anything; undefined for a layout unknown here. */
  analysisOf(key: string): AnalysisReport | undefined {
    return (this.map.get(key) ?? this.offline.get(key))?.analysis;
  }

  /** Whether the layout of this key is built or its offline work known (then `get` costs no analysis). */
  has(key: string): boolean {
    return this.map.has(key) || this.offline.has(key);
  }

  /**
   * The offline work of a layout as plain JSON (see LayoutOffline): known, or computed now (the
   * layout is built and cached, as by `get`, but not counted as met). The main thread of a run
   * with worker threads gives them this.
   */
  offlineOf(l: LayoutKey): LayoutOffline {
    const known = this.offline.get(l.key);
    if (known) return known;
    this.keep(l.key, this.build(l.sensors, l.contacts, l.key));
    return this.offline.get(l.key)!;
  }

  /** The key of the layout of these sensors (names, any order) and active contacts, with its sensors and contacts in problem order. */
  keyOf(sensors: readonly string[], contacts: readonly string[]): LayoutKey {
    const last = this.last;
    if (last !== null && sameList(sensors, last.sensors) && sameList(contacts, last.contacts)) return last.layout;
    // worked out again only when the row's sensors or contacts change (this runs once per sample)
    const p = this.es.problem;
    const sset = new Set(sensors), cset = new Set(contacts);
    const used = p.sensors.filter((s) => s.type !== 'gyroscope' && sset.has(s.name)).map((s) => s.name);
    const active = p.contacts.filter((c) => cset.has(c.link)).map((c) => c.link);
    const layout: LayoutKey = { key: `${used.join(',')}|${active.join(',')}`, sensors: used, contacts: active };
    this.last = { sensors: [...sensors], contacts: [...contacts], layout };
    return layout;
  }

  /**
   * Every cached layout's estimator returns to its row order at build time, so that what follows
   * does not depend on the samples before (the runs of worker threads start their batches here).
   */
  restartPivoting(): void {
    for (const l of this.map.values()) if (l.estimator && l.initial) l.estimator.restartPivoting(l.initial);
  }

  /** The layout of these sensors (names, any order) and active contacts; built on first need. */
  get(sensors: readonly string[], contacts: readonly string[]): Layout {
    const { key, sensors: used, contacts: active } = this.keyOf(sensors, contacts);
    const hit = this.map.get(key);
    if (hit) {
      this.hits++;
      this.map.delete(key); this.map.set(key, hit); // most recently used last
      this.seen.get(key)!.samples++;
      return hit;
    }
    const layout = this.build(used, active, key);
    this.keep(key, layout);
    const s = this.seen.get(key);
    if (s) s.samples++;
    else this.seen.set(key, { sensors: used, mode: layout.mode, verdict: layout.analysis.verdict, samples: 1, priorOnly: layout.priorOnly, unchecked: layout.badData?.unchecked ?? [], checked: layout.badData?.checked ?? [] });
    return layout;
  }

  /** a layout built now, kept as the most recently used; the least recently used leaves beyond the capacity */
  private keep(key: string, layout: Layout): void {
    this.map.set(key, layout);
    if (this.map.size > this.capacity) this.map.delete(this.map.keys().next().value!);
  }

  private build(used: string[], active: string[], key: string): Layout {
    const t0 = performance.now();
    const p = this.es.problem;
    const full = used.length === p.sensors.filter((s) => s.type !== 'gyroscope').length && active.length === p.contacts.length;
    const sub: ProblemFile = full ? p : {
      ...p,
      sensors: p.sensors.filter((s) => s.type === 'gyroscope' || used.includes(s.name)),
      contacts: p.contacts.filter((c) => active.includes(c.link)),
    };
    const es = full ? this.es : buildEstimationSystem(this.es.model, sub);
    const given = this.offline.get(key);
    if (!given && this.opts.givenOnly) throw new Error(`internal: the layout ${key} was not given its offline work`);
    if (!given) this.analyses++;
    // judged on the configurations `sparsedyn analyze` tries, so that both give one verdict
    const analysis = given ? given.analysis : analyzeProblem(es, { ...ANALYSIS_CONFIGURATIONS, redundancy: false });
    let priorOnly: string[] = given?.priorOnly ?? [], priorOnlyUnknowns: string[] = given?.priorOnlyUnknowns ?? [];
    if (!given && es.priors.length > 0) {
      const data = analyzeDataAlone(es, { ...ANALYSIS_CONFIGURATIONS, redundancy: false });
      priorOnly = data.unobservable;
      priorOnlyUnknowns = data.undetermined;
    }
    const layout: Layout = { key, sensors: used, contacts: active, mode: modeName(active), es, analysis, priorOnly, priorOnlyUnknowns, y: new Float64Array(es.sys.ny), setupMs: 0 };
    if (analysis.verdict !== 'ill_posed' && es.sys.m >= es.sys.n) {
      // the solve without refinement compiled only for the condition check, which runs it
      const est = new Estimator(es, { symbolic: given?.symbolic ? SymbolicLU.fromJSON(given.symbolic) : undefined, plainSolve: this.opts.condition ?? true });
      layout.estimator = est;
      const conf = this.opts.confidence ?? 0.99;
      if (conf > 0 && est.mode === 'wls') layout.badData = new BadDataDetector(est, conf, given?.badData);
      if (this.opts.condition ?? true) layout.conditioning = new EstimateConditioning(est, { calibration: given?.conditioning });
    }
    if (layout.estimator) layout.initial = layout.estimator.symbolicInForce;
    if (!given) this.offline.set(key, layoutOffline(layout));
    layout.setupMs = performance.now() - t0;
    return layout;
  }
}
