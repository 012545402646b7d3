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
import type { Model } from '../model/model.ts';
import { directionsAt, type AnalysisReport } from './analysis.ts';
import { ContactDetector } from './contact-detection.ts';
import type { BadDataResult } from './bad-data.ts';
import type { Estimator } from './estimator.ts';
import { LayoutCache, type Layout, type LayoutKey, type LayoutOffline } from './layouts.ts';
import { contactRule, WRENCH_COMPONENTS, type ContactRule } from './problem.ts';
import { flatten, namedEstimate, TruthComparison, type NamedEstimate } from './outputs.ts';
import { ReportSlots } from './report-values.ts';
import type { EstimationSystem } from './setup.ts';
import { inputsFromReadings } from './synthesize.ts';
import { BASE_CSV, type Sample } from './sample.ts';
import { closestName } from '../text/names.ts';
import { JsonLines } from '../text/json-lines.ts';
import type { ByteOutput } from '../text/byte-output.ts';
import { PlausibilityCheck, type Implausible, type PlausibilityOptions } from './plausibility.ts';
import { SingularPivotError } from '../sparse/errors.ts';

/** the printer's CSV numbers (ASCII) as text */
const latin1 = new TextDecoder('latin1');

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
  /** layouts (sensor subset × contact mode) kept built (default 32); the offline work of every layout met is kept for the run */
  layoutCache?: number;
  /** confidence of the χ² bad-data test (default 0.99); 0 turns bad-data detection off */
  confidence?: number;
  /**
   * the offline work of another session of the same problem (its `offline()`, plain JSON): the
   * layouts it names are built without repeating it (worker threads of one run)
   */
  offline?: LayoutOffline[];
  /**
   * never analyse a layout: each must be given (`offline`, `layouts.give`) before a row needs it
   * (worker threads of one run, whose layouts the main thread analyses)
   */
  givenOnly?: boolean;
  /**
   * compare each sample with the truth its row carries (`truth`; default true). A worker thread of
   * one run does not: it sends its rows' values (ReportSlots) to the main thread, which compares.
   */
  compareTruth?: boolean;
  /**
   * the rows come in time order, each given to `estimate` once (one log, one session): the
   * problem's contact_detection then keeps its state from row to row (ContactDetector: the two
   * thresholds `on` and `off`, `min_duration`), and a row that names no contacts gets those it
   * detects. Default false: each row's contacts from its own readings alone (`contactsOf`, any
   * order of rows; rows shared out among threads), where a force between `off` and `on` keeps the
   * contact active and `min_duration` is not applied.
   */
  ordered?: boolean;
  /** margins of the plausibility checks (joint limits, sensor ranges; DEFAULT_PLAUSIBILITY) */
  plausibility?: PlausibilityOptions;
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
   * with near_singular: the key of the flagged run (layout and dominant outputs); consecutive
   * flagged samples with the same key are named once, at the first of them
   */
  flag_key?: string;
  estimate: NamedEstimate;
  /** the sensors whose readings were used (those with equations; problem order) */
  sensors: string[];
  /** the contact mode: the active contacts joined by "+", or "none" */
  mode: string;
  /** the key of the row's layout (sensor subset × contact mode; `LayoutCache`) */
  layout?: string;
  /** the bad-data test of a redundant layout (absent for square layouts or when turned off) */
  bad_data?: BadDataResult;
  /**
   * the sample's values beyond what the robot file and the problem state (joint limits with a
   * margin, sensor ranges; torques: the estimated ones), in words; absent when all are plausible
   */
  implausible?: string[];
}

/** The outcome of one row: an estimate record, or the reason the row was skipped. */
export type SessionOutcome =
  | { ok: true; record: EstimateRecord }
  | { ok: false; line: number; message: string; /** the key of the row's layout */ layout?: string };

/** A sample flagged near a singular configuration of the layout. */
export interface FlaggedSample { line: number; t: number; condition: number; direction: string }

/** A contact mode met in a run (EstimationSession.modes): its verdict and its rows. */
export interface ModeSummary {
  /** the active contacts joined by "+", or "none" */
  mode: string;
  /** the verdict of the mode's layout with the most sensors met: well_posed, generically_well_posed or ill_posed */
  verdict: string;
  /** ill posed: the directions that layout leaves unobservable; with priors: those only the priors determine */
  unobservable: string[];
  /** whether the priors make that layout estimable where its data alone do not */
  byPriors: boolean;
  /** rows estimated in this mode, and rows skipped in it (ill posed, singular, out of range) */
  estimated: number;
  skipped: number;
  /** the mode's layouts of rows lacking readings whose verdict differs: the sensors they lack, their verdict */
  partial: { missing: string[]; verdict: string }[];
}

/**
 * A session's state at one moment (EstimationSession.checkpoint): its figures then (the lists
 * shared with the session, their lengths then in `lengths`), each layout's samples, and the
 * function that puts the session back there.
 */
export interface SessionCheckpoint {
  /** the figures then */
  readonly stats: SessionStats;
  /** the lengths of the figures' lists then */
  readonly lengths: { times: number; condTimes: number; badTimes: number; conditions: number; flagged: number };
  /** each layout's samples then (LayoutCache.seen) */
  readonly seen: ReadonlyMap<string, number>;
  /** Put the session back as it was at the checkpoint. */
  restore(): void;
}

/** The figures of a run so far (times in µs). */
export interface SessionStats {
  /** samples estimated */
  samples: number;
  /** time of each estimate, µs */
  times: number[];
  /** time of each condition check, µs */
  condTimes: number[];
  /** µs of each bad-data test (the χ² test, and the identification of the suspect when it fires) */
  badTimes: number[];
  /** condition figure of each estimated sample */
  conditions: number[];
  /** flops of all estimates, and of all condition checks */
  flops: number;
  condFlops: number;
  flagged: FlaggedSample[];
  /** ms of the condition figure's setup (typical uncertainties of the layout) */
  condSetupMs: number;
  /** samples per contact mode */
  modes: Map<string, number>;
  /** samples estimated from fewer sensors than the problem has */
  partial: number;
  /** channels of the log the problem does not use (ignored), by name */
  ignored: Set<string>;
  /** largest |‖quaternion‖ − 1| met (before renormalisation) */
  maxQuaternionDeviation: number;
  /** mode switches (a sample whose layout differs from the previous one's) */
  switches: number;
  /** switches to a layout seen before, and the offline analyses they cost */
  switchesToSeen: number;
  analysesAtSeenSwitches: number;
  /** samples tested for bad data, samples flagged by the χ² test, suspects by sensor */
  badDataTested: number;
  badDataDetected: number;
  suspects: Map<string, number>;
  /** flagged samples whose suspect another sensor explains about as well (BadDataResult.alternatives) */
  badDataAmbiguous: number;
  /** rows with a value out of bounds, by item (q.<joint>, v.<joint>, tau.<joint>, range.<sensor>; PlausibilityCheck) */
  implausible: Map<string, number>;
  /** the first such row of each item: its line (or sample) and the message */
  implausibleFirst: Map<string, { line: number; message: string }>;
  /** the sensors (with equations) that had a reading in at least one row */
  sensorsRead: Set<string>;
}

/**
 * A run of estimates on one estimation system. The constructor runs the well-posedness analysis;
 * the estimator is built on first need (never for an ill-posed layout). `estimate(sample)` returns
 * the record of the sample or the reason it is skipped; it never throws for a bad row.
 */
export class EstimationSession {
  /** the analysis of the full layout (verdict, unobservable directions) */
  readonly analysis: AnalysisReport;
  readonly opts: Required<Omit<SessionOptions, 'offline' | 'givenOnly' | 'plausibility' | 'ordered'>>;
  /** the contact state machine `estimate` runs on each row (option `ordered`; null without it, or without contact_detection) */
  readonly detector: ContactDetector | null;
  readonly stats: SessionStats = {
    samples: 0, times: [], condTimes: [], badTimes: [], conditions: [], flops: 0, condFlops: 0, flagged: [], condSetupMs: 0,
    modes: new Map(), partial: 0, ignored: new Set(), maxQuaternionDeviation: 0, switches: 0, switchesToSeen: 0, analysesAtSeenSwitches: 0,
    badDataTested: 0, badDataDetected: 0, suspects: new Map(), badDataAmbiguous: 0,
    implausible: new Map(), implausibleFirst: new Map(), sensorsRead: new Set(),
  };
  /** the checks of each sample against the joint limits and the sensors' ranges */
  readonly plausibility: PlausibilityCheck;
  /** accuracy against the truth the log's rows carry */
  readonly truth: TruthComparison;
  /** the places of each sample's values in the reports' rows (ReportSlots: the problem's joints, contacts and sensors) */
  readonly reportSlots: ReportSlots;
  /** every layout met (sensor subset × contact mode), with its analysis, estimator and bad-data test */
  readonly layouts: LayoutCache;
  /** the layout with every sensor and every contact */
  readonly full: Layout;
  /** the sensors with equations, and the contacts, of the problem */
  private readonly allSensors: string[];
  /** the same list, frozen: the `sensors` of every record estimated from all of them */
  private readonly everySensor: string[];
  private readonly allContacts: string[];
  /** the last run of flagged samples with the same dominant outputs (one analysis per run) */
  private run: { key: string; direction: string } | null = null;
  private lastKey: string | null = null;
  /** the problem's contact_detection rules, defaults filled in (on first need) */
  private rules?: ContactRule[];
  /** whether a row had every sensor's readings (stats.sensorsRead holds them all) */
  private allRead = false;

  constructor(readonly es: EstimationSystem, opts: SessionOptions = {}) {
    this.opts = {
      condition: opts.condition ?? true, conditionLimit: opts.conditionLimit ?? DEFAULT_CONDITION_LIMIT, covariance: opts.covariance ?? false,
      layoutCache: opts.layoutCache ?? 32, confidence: opts.confidence ?? 0.99, compareTruth: opts.compareTruth ?? true,
    };
    this.allSensors = es.sensors.filter((s) => s.block >= 0).map((s) => s.spec.name);
    this.allContacts = es.contacts.map((c) => c.link);
    this.everySensor = Object.freeze([...this.allSensors]) as string[];
    this.layouts = new LayoutCache(es, { capacity: this.opts.layoutCache, condition: this.opts.condition, confidence: this.opts.confidence, given: opts.offline, givenOnly: opts.givenOnly });
    this.full = this.layouts.get(this.allSensors, this.allContacts);
    this.layouts.seen.get(this.full.key)!.samples--; // built up front, not met in a row yet
    this.stats.condSetupMs = this.full.setupMs;
    this.analysis = this.full.analysis;
    this.reportSlots = new ReportSlots(es.model, this.allContacts, this.allSensors);
    this.truth = new TruthComparison(es.model, this.reportSlots);
    this.detector = opts.ordered ? ContactDetector.of(es) : null;
    this.plausibility = PlausibilityCheck.forSystem(es, opts.plausibility);
  }

  /**
   * Does the problem name contact modes (a schedule or force thresholds)? Then a full layout that is
   * ill posed may still serve the modes. Rows may also name their own (`Sample.contacts`): `modes()`
   * says which were met.
   */
  get hasContactModes(): boolean {
    return this.es.problem.contact_schedule !== undefined || this.es.problem.contact_detection !== undefined;
  }

  /**
   * Every contact mode the rows met so far, in the order met: its verdict (that of its layout with
   * the most sensors met: every sensor, unless no row had them all), the directions left
   * unobservable, and its rows estimated and skipped (a row skipped before it had a layout, e.g.
   * malformed, is in no mode). Taken from `layouts.seen` and `stats.modes`, which a run with worker
   * threads fills as one thread does.
   */
  modes(): ModeSummary[] {
    const byMode = new Map<string, { key: string; sensors: string[]; verdict: string; samples: number; priorOnly: string[] }[]>();
    for (const [key, l] of this.layouts.seen) {
      if (l.samples <= 0) continue;
      const list = byMode.get(l.mode);
      if (list) list.push({ key, ...l }); else byMode.set(l.mode, [{ key, ...l }]);
    }
    const out: ModeSummary[] = [];
    for (const [mode, list] of byMode) {
      const main = list.reduce((a, b) => (b.sensors.length > a.sensors.length ? b : a));
      const rows = list.reduce((n, l) => n + l.samples, 0), estimated = this.stats.modes.get(mode) ?? 0;
      out.push({
        mode, verdict: main.verdict, byPriors: main.priorOnly.length > 0,
        unobservable: main.verdict === 'ill_posed' ? this.layouts.analysisOf(main.key)?.unobservable ?? [] : main.priorOnly,
        estimated, skipped: rows - estimated,
        partial: list.filter((l) => l !== main && l.verdict !== main.verdict).map((l) => ({ missing: this.allSensors.filter((n) => !l.sensors.includes(n)), verdict: l.verdict })),
      });
    }
    return out;
  }

  /** the estimator of the full layout; throws for an ill-posed layout */
  get estimator(): Estimator {
    if (!this.full.estimator) throw new RangeError('the sensor layout is ill posed: no estimator (see the analysis)');
    return this.full.estimator;
  }

  /**
   * The active contacts of a sample: its own list, else the schedule at its time, else the force
   * thresholds, else every contact. Stateless (any order of rows): a contact is active unless its
   * force is at or below `off` (`threshold`); a force between `off` and `on` cannot be judged
   * without the rows before and keeps the contact active, as a missing reading does, and
   * `min_duration` is not applied. Rows in time order get the hysteresis and the minimum duration
   * from a ContactDetector (option `ordered`, or the caller's own, which sets `contacts`).
   */
  contactsOf(s: Sample): string[] {
    if (s.contacts) return s.contacts;
    const p = this.es.problem;
    if (p.contact_schedule) {
      let phase = p.contact_schedule[0];
      for (const ph of p.contact_schedule) if (ph.t <= s.t) phase = ph;
      return phase.contacts;
    }
    if (p.contact_detection) {
      const off = new Set<string>();
      this.rules ??= p.contact_detection.map(contactRule);
      for (const d of this.rules) {
        const r = s.readings.get(d.sensor);
        if (!r) continue; // no reading: the contact stays unknown (active)
        const comps = this.es.sensors.find((x) => x.spec.name === d.sensor)!.spec.components;
        const z = r[comps.indexOf('fz')];
        const f = d.component === 'fz' ? z : d.component === '-fz' ? -z : Math.hypot(r[comps.indexOf('fx')], r[comps.indexOf('fy')], z);
        if (!(f > d.off)) off.add(d.contact);
      }
      return this.allContacts.filter((c) => !off.has(c));
    }
    return this.allContacts;
  }

  /**
   * Forget the run of flagged samples in progress, so that the next flagged sample is named at
   * itself (a worker thread starting a batch that does not follow its previous one).
   */
  breakRun(): void {
    this.run = null;
  }

  /**
   * Every layout's sparse LU returns to its row order at build time (after re-pivotings at earlier
   * samples): called every fixed number of rows, in one thread as in worker threads, it makes the
   * estimates independent of how the rows are shared out.
   */
  restartPivoting(): void {
    this.layouts.restartPivoting();
  }

  /**
   * The session's state now: its figures (`stats`: the counts, copies of the maps and sets, the
   * lengths of the lists), the samples of each layout met, the run of flagged samples and the last
   * layout; `restore()` puts them back. A worker thread's batch reports what it added to the figures
   * (the difference from its checkpoint), and a batch that meets, part way, a layout the worker was
   * not given is abandoned and estimated again once given it, as if the first attempt had not been
   * (estimate-rows.ts). Not kept: the accuracy against the truth (a session comparing with the truth
   * is refused) and the LU's row order (the caller restarts it, `restartPivoting`, where a batch starts).
   */
  checkpoint(): SessionCheckpoint {
    if (this.opts.compareTruth) throw new Error('checkpoint: a session comparing with the truth cannot be put back');
    const st = this.stats;
    const stats: SessionStats = {
      ...st, modes: new Map(st.modes), suspects: new Map(st.suspects), implausible: new Map(st.implausible),
      implausibleFirst: new Map(st.implausibleFirst), ignored: new Set(st.ignored), sensorsRead: new Set(st.sensorsRead),
    };
    const lengths = { times: st.times.length, condTimes: st.condTimes.length, badTimes: st.badTimes.length, conditions: st.conditions.length, flagged: st.flagged.length };
    const seen = new Map([...this.layouts.seen].map(([k, v]) => [k, v.samples]));
    const run = this.run, lastKey = this.lastKey, allRead = this.allRead;
    const refill = <K, V>(m: Map<K, V>, from: Map<K, V>): void => { m.clear(); for (const [k, v] of from) m.set(k, v); };
    const restore = (): void => {
      const { times, condTimes, badTimes, conditions, flagged, modes, suspects, implausible, implausibleFirst, ignored, sensorsRead } = st;
      Object.assign(st, stats, { times, condTimes, badTimes, conditions, flagged, modes, suspects, implausible, implausibleFirst, ignored, sensorsRead });
      times.length = lengths.times; condTimes.length = lengths.condTimes; badTimes.length = lengths.badTimes;
      conditions.length = lengths.conditions; flagged.length = lengths.flagged;
      refill(modes, stats.modes); refill(suspects, stats.suspects); refill(implausible, stats.implausible); refill(implausibleFirst, stats.implausibleFirst);
      ignored.clear(); for (const c of stats.ignored) ignored.add(c);
      sensorsRead.clear(); for (const n of stats.sensorsRead) sensorsRead.add(n);
      for (const [k, v] of this.layouts.seen) {
        const n = seen.get(k);
        if (n === undefined) this.layouts.seen.delete(k); else v.samples = n;
      }
      this.run = run; this.lastKey = lastKey; this.allRead = allRead;
    };
    return { stats, lengths, seen, restore };
  }

  /** The offline work of this session (the full layout's) as plain JSON, for sessions of worker threads (`opts.offline`). */
  offline(): LayoutOffline[] {
    return [this.layouts.offlineOf(this.full)];
  }

  /** The sensors with equations a sample has readings for (problem order; every sensor's shared frozen list when it has them all). */
  private presentOf(s: Sample): string[] {
    const present = this.everySensor;
    if (s.readings.size !== present.length || !this.allSensors.every((n) => s.readings.has(n))) return this.allSensors.filter((n) => s.readings.has(n));
    return present;
  }

  /** The layout a sample falls in (its sensors × its contact mode), without building it. */
  layoutOf(s: Sample): LayoutKey {
    return this.layouts.keyOf(this.presentOf(s), this.contactsOf(s));
  }

  /** 'square' or 'wls' (weighted least squares) for the full layout */
  get method(): string {
    return this.estimator.mode === 'square' ? 'square system, permuted sparse LU' : 'redundant sensors, weighted least squares (augmented system, sparse LU)';
  }

  /** Estimate one parsed row: its record, or the reason it is skipped (line and message). */
  estimate(s: Sample): SessionOutcome {
    const st = this.stats;
    if (s.ignored) for (const c of s.ignored) st.ignored.add(c);
    if (s.quaternionDeviation !== undefined && s.quaternionDeviation > st.maxQuaternionDeviation) st.maxQuaternionDeviation = s.quaternionDeviation;
    if (this.detector) {
      // rows in time order (option `ordered`): the contact state machine gives a row that names none its contacts
      try {
        this.detector.next(s);
      } catch (e) {
        if (e instanceof RangeError) return { ok: false, line: s.line, message: e.message };
        throw e;
      }
    }
    // the layout of this row: the sensors it has readings for, its contact mode
    // a row with every sensor (the usual case) shares one frozen list: nothing to build per row
    const present = this.presentOf(s);
    if (present !== this.everySensor) for (const n of present) st.sensorsRead.add(n);
    else if (!this.allRead) { for (const n of present) st.sensorsRead.add(n); this.allRead = true; }
    // values beyond the joint limits or a sensor's range: named and counted, never a reason to skip the row
    let found = this.plausibility.sample(s.q, s.v, s.readings);
    if (found) this.countImplausible(found, 0, s.line);
    const contacts = this.contactsOf(s);
    const before = this.layouts.analyses;
    const layout = this.layouts.get(present, contacts);
    const skip = (message: string): SessionOutcome => ({
      ok: false, line: s.line, message: found ? `${message}; implausible: ${found.map((f) => f.message).join('; ')}` : message, layout: layout.key,
    });
    if (this.lastKey !== null && layout.key !== this.lastKey) {
      st.switches++;
      if (this.layouts.seen.get(layout.key)!.samples > 1) { st.switchesToSeen++; st.analysesAtSeenSwitches += this.layouts.analyses - before; }
    }
    this.lastKey = layout.key;
    const est = layout.estimator;
    if (!est) {
      const missing = this.allSensors.filter((n) => !s.readings.has(n));
      const what = missing.length ? `the sensors it has (${present.join(', ') || 'none'}; no readings for ${missing.join(', ')})` : 'its sensors';
      return skip(`${what} in contact mode ${layout.mode} do not determine every unknown: ${layout.analysis.unobservable.slice(0, 3).join('; ') || layout.analysis.undetermined.slice(0, 6).join(', ')} (no estimate)`);
    }
    const es = layout.es;
    let d: Float64Array;
    const y = layout.y;
    try {
      inputsFromReadings(es, s.readings, y);
      const ta = performance.now();
      d = est.estimate(s.q, s.v, y);
      st.times.push((performance.now() - ta) * 1000);
    } catch (e) {
      if (e instanceof SingularPivotError) {
        const at = directionsAt(es, s.q);
        return skip(`singular configuration of the sensor layout${layout === this.full ? '' : ` (sensors ${present.join(', ')}; contact mode ${layout.mode})`}: ${at.directions.join('; ') || 'a combination of the unknowns'} ${at.directions.length > 1 ? 'are' : 'is'} not observed here (no estimate)`);
      }
      if (e instanceof RangeError && /finite/.test(e.message)) return skip(`the inputs give values that are not finite (${largestInput(s, this.es.model)})`);
      if (e instanceof RangeError) return skip(e.message);
      throw e;
    }
    if (!allFinite(d) || !allFinite(est.residual)) return skip(`the estimate is not finite: the inputs are out of range (${largestInput(s, this.es.model)})`);
    let condition = NaN, direction: string | undefined, flagKey: string | undefined;
    const cond = layout.conditioning;
    if (cond) {
      const tc = performance.now();
      cond.update();
      condition = cond.value;
      st.condTimes.push((performance.now() - tc) * 1000);
      st.condFlops += cond.flops.mul + cond.flops.add + cond.flops.div;
      if (!(condition <= this.opts.conditionLimit)) {
        const key = `${layout.key}#${cond.dominant().slice(0, 3).sort().join(',')}`;
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
    // inactive contacts: their wrench is known to be zero
    for (const c of this.allContacts) if (!(c in named.contact_wrenches)) named.contact_wrenches[c] = { torque: [0, 0, 0], force: [0, 0, 0] };
    if (layout !== this.full && es.contacts.length !== this.allContacts.length) {
      named.contact_wrenches = Object.fromEntries(this.allContacts.map((c) => [c, named.contact_wrenches[c]]));
    }
    if (!derivedFinite(named)) return skip(`the estimate is not finite: the inputs are out of range (${largestInput(s, this.es.model)})`);
    const nFound = found?.length ?? 0;
    found = this.plausibility.torques(d, es.sys.layout.tau, found);
    if (found && found.length > nFound) this.countImplausible(found, nFound, s.line);
    let bad: BadDataResult | undefined;
    if (layout.badData) {
      const tb = performance.now();
      bad = layout.badData.test();
      st.badTimes.push((performance.now() - tb) * 1000);
      if (bad.notFinite) return skip(`the bad-data test is not finite: the inputs are out of range (${largestInput(s, this.es.model)})`);
      st.badDataTested++;
      if (bad.detected) {
        st.badDataDetected++;
        if (bad.suspect !== undefined) st.suspects.set(bad.suspect, (st.suspects.get(bad.suspect) ?? 0) + 1);
        if (bad.alternatives?.length) st.badDataAmbiguous++;
      }
    }
    if (cond && Number.isFinite(condition)) st.conditions.push(condition);
    st.samples++;
    st.modes.set(layout.mode, (st.modes.get(layout.mode) ?? 0) + 1);
    if (present.length < this.allSensors.length) st.partial++;
    const f = est.flops;
    st.flops += f.kinematics.total + f.fill.total + f.factor.total + f.solve.total; // est.totalFlops().total, without a Flops per row
    if (this.opts.compareTruth) this.truth.add(named, s.truth);
    const record: EstimateRecord = { t: s.t, line: s.line, estimate: named, sensors: present, mode: layout.mode, layout: layout.key };
    if (cond) record.condition = condition;
    if (direction !== undefined) { record.near_singular = direction; record.flag_key = flagKey; }
    if (bad) record.bad_data = bad;
    if (found) record.implausible = found.map((f) => f.message);
    return { ok: true, record };
  }

  /** Count the rows of each item among found[from..] (one per item and row), keeping the first row's message. */
  private countImplausible(found: Implausible[], from: number, line: number): void {
    const st = this.stats;
    for (let k = from; k < found.length; k++) {
      const { item, message } = found[k];
      if (k > from && found[k - 1].item === item) continue; // a sensor's components, one after the other
      st.implausible.set(item, (st.implausible.get(item) ?? 0) + 1);
      if (!st.implausibleFirst.has(item)) st.implausibleFirst.set(item, { line, message });
    }
  }

  /**
   * What may explain a sensor that had no reading in any row so far: a channel of the log the
   * problem does not use (stats.ignored) whose name is close to the sensor's (`wrist_FT` for
   * `wrist_ft`; a CSV column `wrist_FT.fx` counts by its sensor part), as one hint per sensor.
   */
  sensorHints(): string[] {
    const st = this.stats, out: string[] = [];
    if (st.ignored.size === 0) return out;
    // a channel by its own name and, for a CSV column or a nested key, by the part before its first "."
    const channels = new Map<string, string>();
    for (const c of st.ignored) {
      channels.set(c, c);
      const dot = c.indexOf('.');
      if (dot > 0 && !channels.has(c.slice(0, dot))) channels.set(c.slice(0, dot), c);
    }
    for (const n of this.allSensors) {
      if (st.sensorsRead.has(n)) continue;
      const near = closestName(n, channels.keys());
      if (near === undefined) continue;
      const full = channels.get(near)!;
      out.push(`sensor "${n}" got no readings; the log's ${full === near ? `channel "${near}" is` : `columns "${near}.…" are`} ignored — did you mean "${n}"?`);
    }
    return out;
  }

  /** The NDJSON object of a record (schemas/estimates.schema.json). */
  toJson(r: EstimateRecord): Record<string, unknown> {
    const head: Record<string, unknown> = { t: r.t, line: r.line };
    if (r.condition !== undefined) head.condition = r.condition;
    if (r.near_singular !== undefined) head.near_singular = r.near_singular;
    const tail: Record<string, unknown> = { sensors: r.sensors, mode: r.mode };
    if (r.bad_data) tail.bad_data = r.bad_data;
    if (r.implausible) tail.implausible = r.implausible;
    return { ...head, ...r.estimate, ...tail };
  }

  /**
   * JSON.stringify(toJson(r)), the same text: the numbers printed by WebAssembly (json-lines.ts,
   * the digits of String(x)) where the engine has it, else written part by part (this runs once per
   * sample).
   */
  toJsonText(r: EstimateRecord): string {
    const lines = this.jsonLines();
    return lines !== null ? lines.textOf(this.jsonPartsOf(r)) : this.jsonByParts(r);
  }

  /** toJsonText(r) written as UTF-8: the printer's bytes copied as they are, never made a string to be encoded again */
  writeJson(r: EstimateRecord, out: ByteOutput): void {
    const lines = this.jsonLines();
    const x = lines !== null ? lines.bytesOf(this.jsonPartsOf(r)) : this.jsonByParts(r);
    if (typeof x === 'string') out.text(x); else out.bytes(x);
  }

  /** toJson's three parts, each of one shape whatever the record (an absent field undefined: left out) */
  private jsonPartsOf(r: EstimateRecord): object[] {
    const parts = this.jsonParts;
    parts[0] = { t: r.t, line: r.line, condition: r.condition, near_singular: r.near_singular };
    parts[1] = r.estimate;
    parts[2] = { sensors: r.sensors, mode: r.mode, bad_data: r.bad_data || undefined, implausible: r.implausible || undefined };
    return parts;
  }

  /** toJsonText without the printer: JSON.stringify part by part */
  private jsonByParts(r: EstimateRecord): string {
    let head = `{"t":${JSON.stringify(r.t)},"line":${JSON.stringify(r.line)}`;
    if (r.condition !== undefined) head += `,"condition":${JSON.stringify(r.condition)}`;
    if (r.near_singular !== undefined) head += `,"near_singular":${JSON.stringify(r.near_singular)}`;
    const body = JSON.stringify(r.estimate);
    let tail = `"sensors":${JSON.stringify(r.sensors)},"mode":${JSON.stringify(r.mode)}`;
    if (r.bad_data) tail += `,"bad_data":${JSON.stringify(r.bad_data)}`;
    if (r.implausible) tail += `,"implausible":${JSON.stringify(r.implausible)}`;
    return `${head}${body.length > 2 ? `,${body.slice(1, -1)}` : ''},${tail}}`;
  }

  /** Every CSV column of this problem's records, in order (the header; text columns last). */
  columns(): string[] {
    const cols = ['t', 'line', ...(this.opts.condition ? ['condition', 'flagged'] : [])];
    const model = this.es.model;
    const dofs = (p: string) => model.movingJoints().flatMap((j) => (j.nv === 1 ? [`${p}.${j.name}`] : Array.from({ length: j.nv }, (_x, k) => `${p}.${j.name}[${k}]`)));
    cols.push(...dofs('tau'), ...dofs('qdd'));
    for (const c of this.allContacts) for (const w of WRENCH_COMPONENTS) cols.push(`contact.${c}.${w}`);
    for (const j of model.jointNames) for (const w of WRENCH_COMPONENTS) cols.push(`wrench.${j}.${w}`);
    for (const n of this.allSensors) cols.push(`residual.${n}`);
    if (this.opts.covariance) cols.push(...dofs('tau_std'));
    if (this.full.badData || this.opts.confidence > 0) cols.push('chi2', 'chi2_threshold', 'suspect');
    cols.push('implausible', 'mode', 'sensors');
    return cols;
  }

  /** The CSV cells of a record under `columns()`: numbers, text for suspect, implausible, mode and sensors, empty where the record has no value. */
  cells(r: EstimateRecord): string[] {
    // in the order of columns(), read straight from the record (this runs once per sample)
    const e = r.estimate, out: string[] = [String(r.t), String(r.line)];
    const num = (v: number | undefined): string => (v === undefined || !Number.isFinite(v) ? '' : String(v));
    if (this.opts.condition) {
      out.push(num(r.condition), r.condition === undefined ? '' : r.near_singular !== undefined ? '1' : '0');
    }
    const joints = this.joints ??= this.es.model.movingJoints();
    const dofs = (rec: Record<string, number | number[]> | undefined) => {
      for (const j of joints) {
        const x = rec?.[j.name];
        if (j.nv === 1) out.push(typeof x === 'number' ? num(x) : '');
        else for (let k = 0; k < j.nv; k++) out.push(Array.isArray(x) ? num(x[k]) : '');
      }
    };
    const wrench = (w: { torque: number[]; force: number[] } | undefined) => {
      for (let k = 0; k < 3; k++) out.push(w ? num(w.torque[k]) : '');
      for (let k = 0; k < 3; k++) out.push(w ? num(w.force[k]) : '');
    };
    dofs(e.tau);
    dofs(e.qdd);
    for (const c of this.allContacts) wrench(e.contact_wrenches[c]);
    for (const j of this.es.model.jointNames) wrench(e.joint_wrenches[j]);
    for (const n of this.allSensors) out.push(num(e.residuals[n]));
    if (this.opts.covariance) dofs(e.tau_std);
    if (this.full.badData || this.opts.confidence > 0) {
      out.push(r.bad_data ? String(r.bad_data.chi2) : '', r.bad_data && Number.isFinite(r.bad_data.threshold) ? String(r.bad_data.threshold) : '', r.bad_data?.suspect ?? '');
    }
    out.push(r.implausible?.join('; ') ?? '', r.mode, r.sensors.join(';'));
    return out;
  }

  /**
   * The CSV line of a record under `columns()`, without the line break: the same text as `cells(r)`
   * with a cell quoted when it holds a comma, a quote or a line break, joined by commas. The numbers
   * are printed by WebAssembly (json-lines.ts: the digits of String(x)) where the engine has it, else
   * by one JSON.stringify of a list (the same digits); a record with a missing or non-finite value
   * takes `cells`.
   */
  csvLine(r: EstimateRecord): string {
    const [head, tail] = this.csvParts(r);
    return `${typeof head === 'string' ? head : latin1.decode(head)}${tail}`;
  }

  /** csvLine(r) written as UTF-8: the numbers as the printer's bytes, copied as they are */
  writeCsv(r: EstimateRecord, out: ByteOutput): void {
    const [head, tail] = this.csvParts(r);
    if (typeof head === 'string') out.text(head); else out.bytes(head);
    out.text(tail);
  }

  /** csvLine's numbers (the printer's ASCII bytes, valid until its next line, or text) and the text after them */
  private csvParts(r: EstimateRecord): [Uint8Array | string, string] {
    const e = r.estimate, nums = this.numBuf;
    // written in place (the list keeps its length from line to line)
    let ok = true, n = 0;
    const put = (v: number | undefined) => { if (typeof v === 'number' && v - v === 0) nums[n++] = v; else ok = false; };
    put(r.t);
    put(r.line);
    if (this.opts.condition) { put(r.condition); put(r.near_singular !== undefined ? 1 : 0); }
    const joints = this.joints ??= this.es.model.movingJoints();
    const dofs = (rec: Record<string, number | number[]> | undefined) => {
      if (rec === undefined) { ok = false; return; }
      for (const j of joints) {
        const x = rec[j.name];
        if (j.nv === 1) put(typeof x === 'number' ? x : undefined);
        else if (Array.isArray(x)) for (let k = 0; k < j.nv; k++) put(x[k]);
        else ok = false;
      }
    };
    const wrench = (w: { torque: number[]; force: number[] } | undefined) => {
      if (w === undefined) { ok = false; return; }
      for (let k = 0; k < 3; k++) put(w.torque[k]);
      for (let k = 0; k < 3; k++) put(w.force[k]);
    };
    dofs(e.tau);
    dofs(e.qdd);
    for (const c of this.allContacts) wrench(e.contact_wrenches[c]);
    for (const j of this.es.model.jointNames) wrench(e.joint_wrenches[j]);
    for (const n of this.allSensors) put(e.residuals[n]);
    if (this.opts.covariance) dofs(e.tau_std);
    if (!ok) return [this.cells(r).map(csvQuote).join(','), ''];
    const lines = this.jsonLines();
    let head: Uint8Array | string;
    if (lines !== null) head = lines.listBytes(nums, n);
    else {
      if (nums.length !== n) nums.length = n;
      head = JSON.stringify(nums).slice(1, -1);
    }
    let tail = '';
    if (this.full.badData || this.opts.confidence > 0) {
      tail += `,${r.bad_data ? String(r.bad_data.chi2) : ''},${r.bad_data && Number.isFinite(r.bad_data.threshold) ? String(r.bad_data.threshold) : ''},${csvQuote(r.bad_data?.suspect ?? '')}`;
    }
    return [head, `${tail},${r.implausible ? csvQuote(r.implausible.join('; ')) : ''},${csvQuote(r.mode)},${csvQuote(r.sensors.join(';'))}`];
  }

  /**
   * The typed columns of a columnar file (Parquet) of this problem's records: the CSV header's
   * columns in its order, `line` an integer, `flagged` a boolean, the direction of a near-singular
   * sample beside it (NDJSON's `near_singular`), the sensors used and the implausible values as
   * lists of strings. `t`, `line`, the torques, accelerations, contact and joint wrenches, `mode` and
   * `sensors` have a value in every row; the others may lack one (a residual of a sensor the row has
   * no readings for, the condition figure without the check, the bad-data test's figures).
   */
  typedColumns(): { name: string; type: 'DOUBLE' | 'INT64' | 'BOOLEAN' | 'STRING' | 'STRINGS'; optional: boolean }[] {
    const out: ReturnType<EstimationSession['typedColumns']> = [];
    for (const name of this.columns()) {
      if (name === 't') out.push({ name, type: 'DOUBLE', optional: false });
      else if (name === 'line') out.push({ name, type: 'INT64', optional: false });
      else if (name === 'flagged') out.push({ name, type: 'BOOLEAN', optional: true }, { name: 'near_singular', type: 'STRING', optional: true });
      else if (name === 'suspect') out.push({ name, type: 'STRING', optional: true });
      else if (name === 'implausible') out.push({ name, type: 'STRINGS', optional: true });
      else if (name === 'mode') out.push({ name, type: 'STRING', optional: false });
      else if (name === 'sensors') out.push({ name, type: 'STRINGS', optional: false });
      // torques, accelerations and wrenches: in every estimated row (finite, checked before the row is kept)
      else out.push({ name, type: 'DOUBLE', optional: !/^(tau|qdd|contact|wrench)\./.test(name) });
    }
    return out;
  }

  /**
   * The numbers of a record under `typedColumns()` (its DOUBLE, INT64 and BOOLEAN columns, in order)
   * into `out[at …]`: NaN where the record has no finite value, 1 or 0 for `flagged`. Returns the
   * number of values written. Nothing is formatted (this runs once per sample).
   */
  numbers(r: EstimateRecord, out: Float64Array, at: number): number {
    // module-level helpers rather than three closures per sample: a demo sample allocates 3.3 kB
    // instead of 5.7 (what is left: the numbers boxed by the lookups by name) and takes half the time
    const e = r.estimate;
    let n = at;
    out[n++] = finiteOrNaN(r.t);
    out[n++] = finiteOrNaN(r.line);
    if (this.opts.condition) { out[n++] = finiteOrNaN(r.condition); out[n++] = r.condition === undefined ? NaN : r.near_singular !== undefined ? 1 : 0; }
    const joints = this.joints ??= this.es.model.movingJoints();
    n = dofsInto(joints, e.tau, out, n);
    n = dofsInto(joints, e.qdd, out, n);
    const contacts = this.allContacts, cw = e.contact_wrenches;
    for (let k = 0; k < contacts.length; k++) n = wrenchInto(cw[contacts[k]], out, n);
    const names = this.es.model.jointNames, jw = e.joint_wrenches;
    for (let k = 0; k < names.length; k++) n = wrenchInto(jw[names[k]], out, n);
    const sensors = this.allSensors, res = e.residuals;
    for (let k = 0; k < sensors.length; k++) out[n++] = finiteOrNaN(res[sensors[k]]);
    if (this.opts.covariance) n = dofsInto(joints, e.tau_std, out, n);
    if (this.full.badData || this.opts.confidence > 0) { out[n++] = finiteOrNaN(r.bad_data?.chi2); out[n++] = finiteOrNaN(r.bad_data?.threshold); }
    return n - at;
  }

  /** The texts of a record under `typedColumns()` (its STRING and STRINGS columns, in order; undefined: none). */
  texts(r: EstimateRecord): (string | string[] | undefined)[] {
    const out: (string | string[] | undefined)[] = [];
    if (this.opts.condition) out.push(r.near_singular);
    if (this.full.badData || this.opts.confidence > 0) out.push(r.bad_data?.suspect);
    out.push(r.implausible, r.mode, r.sensors);
    return out;
  }

  /** the numbers of one CSV line (reused line after line) */
  private readonly numBuf: number[] = [];
  /** the lines' numbers printed by WebAssembly (null: none in this engine; undefined: not made yet) */
  private lines?: JsonLines | null;
  private jsonLines(): JsonLines | null {
    if (this.lines === undefined) this.lines = JsonLines.create();
    return this.lines;
  }
  /** the parts of an NDJSON line (reused line after line) */
  private readonly jsonParts: object[] = [{}, {}, {}];

  /** the model's moving joints (listed once) */
  private joints?: ReturnType<EstimationSystem['model']['movingJoints']>;

  /** The CSV cells of a record under `columns()`, by name (the reference for `cells`). */
  cellsByName(r: EstimateRecord): string[] {
    const m = this.toColumns(r);
    return this.columns().map((k) => {
      if (k === 'mode') return r.mode;
      if (k === 'sensors') return r.sensors.join(';');
      if (k === 'suspect') return r.bad_data?.suspect ?? '';
      if (k === 'implausible') return r.implausible?.join('; ') ?? '';
      if (k === 'chi2') return r.bad_data ? String(r.bad_data.chi2) : '';
      if (k === 'chi2_threshold') return r.bad_data && Number.isFinite(r.bad_data.threshold) ? String(r.bad_data.threshold) : '';
      const v = m.get(k);
      return v === undefined || !Number.isFinite(v) ? '' : String(v);
    });
  }

  /** The CSV cells of a record by column name (t, line, condition, flagged, then the estimate's columns). */
  toColumns(r: EstimateRecord): Map<string, number> {
    const m = new Map<string, number>([['t', r.t], ['line', r.line]]);
    if (r.condition !== undefined) { m.set('condition', r.condition); m.set('flagged', r.near_singular !== undefined ? 1 : 0); }
    for (const [k, v] of flatten(r.estimate)) m.set(k, v);
    return m;
  }
}

/** a CSV cell: as it is, or quoted when it holds a separator, a quote or a line break */
const csvQuote = (x: string): string => (/[",\n]/.test(x) ? `"${x.replace(/"/g, '""')}"` : x);

function allFinite(x: Float64Array): boolean {
  for (let k = 0; k < x.length; k++) if (!(x[k] - x[k] === 0)) return false;
  return true;
}

/**
 * Whether the values of an estimate computed from d are finite: contact wrenches (transformed),
 * residuals and standard deviations; torques, accelerations and joint wrenches are copies of d,
 * checked before (this runs once per sample).
 */
function derivedFinite(e: NamedEstimate): boolean {
  for (const c in e.contact_wrenches) {
    const w = e.contact_wrenches[c];
    for (let k = 0; k < 3; k++) if (!(w.torque[k] - w.torque[k] === 0 && w.force[k] - w.force[k] === 0)) return false;
  }
  for (const n in e.residuals) if (!(e.residuals[n] - e.residuals[n] === 0)) return false;
  return e.tau_std === undefined || namedFinite({ tau: e.tau_std, qdd: {}, contact_wrenches: {}, joint_wrenches: {}, residuals: {} });
}

/** whether every number of an estimate is finite (a walk over its values; no string is built) */
function namedFinite(e: NamedEstimate): boolean {
  const fin = (x: unknown): boolean => {
    if (typeof x === 'number') return x - x === 0;
    if (Array.isArray(x)) { for (const v of x) if (!fin(v)) return false; return true; }
    if (typeof x === 'object' && x !== null) { for (const k in x) if (!fin((x as Record<string, unknown>)[k])) return false; return true; }
    return true;
  };
  return fin(e);
}

/**
 * the input of largest magnitude of a sample, named as the log names it when the model is given
 * (`v.l_knee`, `base.wz`; else by index, `v[9]`): a hint for values out of range
 */
export function largestInput(s: Sample, model?: Model): string {
  let best = 0, name = '';
  const named = (kind: 'q' | 'v', k: number): string => {
    if (!model) return `${kind}[${k}]`;
    for (const j of model.movingJoints()) {
      const at = kind === 'q' ? j.iq : j.iv, n = kind === 'q' ? j.nq : j.nv;
      if (k < at || k >= at + n) continue;
      if (j.type === 'floating') return `base.${BASE_CSV[kind === 'q' ? k - at : 7 + k - at]}`;
      return n === 1 ? `${kind}.${j.name}` : `${kind}.${j.name}[${k - at}]`;
    }
    return `${kind}[${k}]`;
  };
  s.q.forEach((x, k) => { if (Math.abs(x) > best) { best = Math.abs(x); name = named('q', k); } });
  s.v.forEach((x, k) => { if (Math.abs(x) > best) { best = Math.abs(x); name = named('v', k); } });
  for (const [sn, r] of s.readings) r.forEach((x, k) => { if (Math.abs(x) > best) { best = Math.abs(x); name = `sensor "${sn}" reading ${k + 1}`; } });
  return name ? `largest input: ${name} = ${best.toExponential(3)}` : 'no input';
}

/** v when it is a finite number, else NaN (a value a Parquet row has not) */
function finiteOrNaN(v: unknown): number {
  return typeof v === 'number' && v - v === 0 ? v : NaN;
}

/** The values of a joint-indexed record (tau, qdd, tau_std) in the joints' order into out[n …]; returns the next n. */
function dofsInto(joints: readonly { name: string; nv: number }[], rec: Record<string, number | number[]> | undefined, out: Float64Array, n: number): number {
  for (let i = 0; i < joints.length; i++) {
    const j = joints[i], x = rec?.[j.name];
    if (j.nv === 1) out[n++] = finiteOrNaN(x);
    else for (let k = 0; k < j.nv; k++) out[n++] = Array.isArray(x) ? finiteOrNaN(x[k]) : NaN;
  }
  return n;
}

/** A wrench's torque then force into out[n …] (NaN for a wrench the record has not); returns the next n. */
function wrenchInto(w: { torque: number[]; force: number[] } | undefined, out: Float64Array, n: number): number {
  if (w === undefined) { out.fill(NaN, n, n + 6); return n + 6; }
  const t = w.torque, f = w.force;
  out[n] = finiteOrNaN(t[0]); out[n + 1] = finiteOrNaN(t[1]); out[n + 2] = finiteOrNaN(t[2]);
  out[n + 3] = finiteOrNaN(f[0]); out[n + 4] = finiteOrNaN(f[1]); out[n + 5] = finiteOrNaN(f[2]);
  return n + 6;
}
