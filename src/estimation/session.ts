/**
 * One estimation run, sample after sample, free of any I/O (it runs in a browser as well as in the
 * CLI): an `EstimationSession` holds the offline analysis, the estimators and their caches, and
 * turns one parsed log row (`Sample`, src/io/log.ts) into one estimate record, or into the reason
 * the row was skipped. The caller reads rows, writes records and reports; the session keeps the
 * run's figures (time and flops per sample, condition figures, flagged samples, accuracy against
 * the log's truth).
 *
 * Usage (stable API: fields and methods are added, never renamed):
 *
 *   const session = new EstimationSession(es, { conditionLimit: 10 });
 *   if (session.analysis.verdict === 'ill_posed') refuse(session.analysis);
 *   for (const sample of rows) {
 *     const out = session.estimate(sample);
 *     if (out.ok) write(session.toJson(out.record)); else skip(out.line, out.message);
 *   }
 *   summarise(session.stats, session.truth);
 */
import { analyzeProblem, directionsAt, type AnalysisReport } from './analysis.ts';
import { EstimateConditioning, type ConditioningCalibration } from './conditioning.ts';
import { SymbolicLU, type SymbolicLUJSON } from '../sparse/symbolic.ts';
import { Estimator } from './estimator.ts';
import { flatten, namedEstimate, TruthComparison, type NamedEstimate } from './outputs.ts';
import type { EstimationSystem } from './setup.ts';
import { inputsFromReadings } from './synthesize.ts';
import type { Sample } from '../io/log.ts';
import { SingularPivotError } from '../sparse/errors.ts';

/** The default limit of the condition figure (see the README: measured distributions). */
export const DEFAULT_CONDITION_LIMIT = 10;

/** Options of an estimation session. */
export interface SessionOptions {
  /** compute each sample's condition figure and flag samples above `conditionLimit` (default true) */
  condition?: boolean;
  /** limit of the condition figure (default DEFAULT_CONDITION_LIMIT) */
  conditionLimit?: number;
  /** add the standard deviation of each estimated torque (tau_std) */
  covariance?: boolean;
  /** the offline work of another session of the same system (`offline()`): this one repeats none of it */
  offline?: SessionOffline;
}

/**
 * The offline work of a session as plain JSON (the well-posedness analysis, the sparse LU's ordering
 * and patterns, the calibration of the condition figure), computed once and handed to the sessions
 * of worker threads, which then start without repeating it and estimate exactly as this one.
 */
export interface SessionOffline {
  analysis: AnalysisReport;
  symbolic: SymbolicLUJSON;
  conditioning?: ConditioningCalibration;
}

/** One estimated sample: the row's time and line, its condition figure and the named estimate. */
export interface EstimateRecord {
  t: number;
  line: number;
  /** condition figure (absent when the session computes none) */
  condition?: number;
  /** present when the condition figure exceeds the limit: the poorly observed direction, named */
  near_singular?: string;
  /**
   * with near_singular: the dominant outputs of the sample; a run of consecutive flagged samples with
   * the same key is named once, at its first sample (the direction above)
   */
  flag_key?: string;
  estimate: NamedEstimate;
}

/** The outcome of one row: an estimate record, or the reason the row was skipped. */
export type SessionOutcome =
  | { ok: true; record: EstimateRecord }
  | { ok: false; line: number; message: string };

/** A sample flagged near a singular configuration of the layout. */
export interface FlaggedSample { line: number; t: number; condition: number; direction: string }

/** The figures of a run so far (times in µs). */
export interface SessionStats {
  /** samples estimated */
  samples: number;
  /** time of each estimate, µs */
  times: number[];
  /** time of each condition check, µs */
  condTimes: number[];
  /** condition figure of each estimated sample */
  conditions: number[];
  /** flops of all estimates, and of all condition checks */
  flops: number;
  condFlops: number;
  flagged: FlaggedSample[];
  /** ms of the condition figure's setup (typical uncertainties of the layout) */
  condSetupMs: number;
}

/**
 * A run of estimates on one estimation system. The constructor runs the well-posedness analysis;
 * the estimator is built on first need (never for an ill-posed layout). `estimate(sample)` returns
 * the record of the sample or the reason it is skipped; it never throws for a bad row.
 */
export class EstimationSession {
  /** the analysis of the full layout (verdict, unobservable directions) */
  readonly analysis: AnalysisReport;
  readonly opts: Required<Omit<SessionOptions, 'offline'>>;
  private readonly given?: SessionOffline;
  readonly stats: SessionStats = { samples: 0, times: [], condTimes: [], conditions: [], flops: 0, condFlops: 0, flagged: [], condSetupMs: 0 };
  /** accuracy against the truth the log's rows carry */
  readonly truth: TruthComparison;
  private est: Estimator | null = null;
  private cond: EstimateConditioning | null = null;
  private readonly y: Float64Array<ArrayBuffer>;
  /** the last run of flagged samples with the same dominant outputs (one analysis per run) */
  private run: { key: string; direction: string } | null = null;

  constructor(readonly es: EstimationSystem, opts: SessionOptions = {}) {
    this.opts = { condition: opts.condition ?? true, conditionLimit: opts.conditionLimit ?? DEFAULT_CONDITION_LIMIT, covariance: opts.covariance ?? false };
    this.given = opts.offline;
    this.analysis = opts.offline?.analysis ?? analyzeProblem(es, { random: 2, special: 0, redundancy: false });
    this.truth = new TruthComparison(es.model);
    this.y = new Float64Array(es.sys.ny);
  }

  /** the estimator of the full layout (built on first call); throws for an ill-posed layout */
  get estimator(): Estimator {
    if (this.est === null) {
      if (this.analysis.verdict === 'ill_posed') throw new RangeError('the sensor layout is ill posed: no estimator (see the analysis)');
      this.est = new Estimator(this.es, { symbolic: this.given ? SymbolicLU.fromJSON(this.given.symbolic) : undefined });
      if (this.opts.condition) {
        const t0 = performance.now();
        this.cond = new EstimateConditioning(this.est, { calibration: this.given?.conditioning });
        this.stats.condSetupMs = performance.now() - t0;
      }
    }
    return this.est;
  }

  /** The offline work of this session as plain JSON, for other sessions of the same system (`opts.offline`). */
  offline(): SessionOffline {
    const est = this.estimator;
    const out: SessionOffline = { analysis: this.analysis, symbolic: est.offline.toJSON() };
    if (this.cond) out.conditioning = this.cond.calibration();
    return out;
  }

  /** 'square' or 'wls' (weighted least squares) for the full layout */
  get method(): string {
    return this.estimator.mode === 'square' ? 'square system, permuted sparse LU' : 'redundant sensors, weighted least squares (augmented system, sparse LU)';
  }

  /** Estimate one parsed row: its record, or the reason it is skipped (line and message). */
  estimate(s: Sample): SessionOutcome {
    const est = this.estimator, es = this.es, st = this.stats;
    const skip = (message: string): SessionOutcome => ({ ok: false, line: s.line, message });
    let d: Float64Array;
    try {
      inputsFromReadings(es, s.readings, this.y);
      const ta = performance.now();
      d = est.estimate(s.q, s.v, this.y);
      st.times.push((performance.now() - ta) * 1000);
    } catch (e) {
      if (e instanceof SingularPivotError) {
        const at = directionsAt(es, s.q);
        return skip(`singular configuration of the sensor layout: ${at.directions.join('; ') || 'a combination of the unknowns'} ${at.directions.length > 1 ? 'are' : 'is'} not observed here (no estimate)`);
      }
      if (e instanceof RangeError && /finite/.test(e.message)) return skip(`the inputs give values that are not finite (${largestInput(s)})`);
      if (e instanceof RangeError) return skip(e.message);
      throw e;
    }
    if (!allFinite(d) || !allFinite(est.residual)) return skip(`the estimate is not finite: the inputs are out of range (${largestInput(s)})`);
    let condition = NaN, direction: string | undefined, flagKey: string | undefined;
    const cond = this.cond;
    if (cond) {
      const tc = performance.now();
      cond.update();
      condition = cond.value;
      st.condTimes.push((performance.now() - tc) * 1000);
      st.condFlops += cond.flops.mul + cond.flops.add + cond.flops.div;
      if (!(condition <= this.opts.conditionLimit)) {
        const key = cond.dominant().slice(0, 3).sort().join(',');
        if (this.run === null || this.run.key !== key) {
          const at = directionsAt(es, s.q);
          this.run = { key, direction: at.directions.join('; ') };
        }
        direction = this.run.direction;
        flagKey = key;
        st.flagged.push({ line: s.line, t: s.t, condition, direction });
      } else this.run = null;
    }
    const named = namedEstimate(es, est, d, this.opts.covariance);
    if (!namedFinite(named)) return skip(`the estimate is not finite: the inputs are out of range (${largestInput(s)})`);
    if (cond && Number.isFinite(condition)) st.conditions.push(condition);
    st.samples++;
    st.flops += est.totalFlops().total;
    this.truth.add(named, s.truth);
    const record: EstimateRecord = { t: s.t, line: s.line, estimate: named };
    if (cond) record.condition = condition;
    if (direction !== undefined) { record.near_singular = direction; record.flag_key = flagKey; }
    return { ok: true, record };
  }

  /** The NDJSON object of a record (schemas/estimates.schema.json). */
  toJson(r: EstimateRecord): Record<string, unknown> {
    const head: Record<string, unknown> = { t: r.t, line: r.line };
    if (r.condition !== undefined) head.condition = r.condition;
    if (r.near_singular !== undefined) head.near_singular = r.near_singular;
    return { ...head, ...r.estimate };
  }

  /** The CSV cells of a record by column name (t, line, condition, flagged, then the estimate's columns). */
  toColumns(r: EstimateRecord): Map<string, number> {
    const m = new Map<string, number>([['t', r.t], ['line', r.line]]);
    if (this.opts.condition) { m.set('condition', r.condition ?? NaN); m.set('flagged', r.near_singular !== undefined ? 1 : 0); }
    for (const [k, v] of flatten(r.estimate)) m.set(k, v);
    return m;
  }
}

function allFinite(x: Float64Array): boolean {
  for (let k = 0; k < x.length; k++) if (!(x[k] - x[k] === 0)) return false;
  return true;
}

/** whether every number of an estimate is finite (a walk over its values; no string is built: this runs once per sample) */
function namedFinite(e: NamedEstimate): boolean {
  const fin = (x: unknown): boolean => {
    if (typeof x === 'number') return x - x === 0;
    if (Array.isArray(x)) { for (const v of x) if (!fin(v)) return false; return true; }
    if (typeof x === 'object' && x !== null) { for (const k in x) if (!fin((x as Record<string, unknown>)[k])) return false; return true; }
    return true;
  };
  return fin(e);
}

/** the input of largest magnitude of a sample, named (a hint for values out of range) */
export function largestInput(s: Sample): string {
  let best = 0, name = '';
  s.q.forEach((x, k) => { if (Math.abs(x) > best) { best = Math.abs(x); name = `q[${k}]`; } });
  s.v.forEach((x, k) => { if (Math.abs(x) > best) { best = Math.abs(x); name = `v[${k}]`; } });
  for (const [sn, r] of s.readings) r.forEach((x, k) => { if (Math.abs(x) > best) { best = Math.abs(x); name = `sensor "${sn}" reading ${k + 1}`; } });
  return name ? `largest input: ${name} = ${best.toExponential(3)}` : 'no input';
}
