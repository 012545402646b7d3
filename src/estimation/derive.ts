/**
 * Logs as robots record them: joint positions and time, IMU readings, no velocities and no
 * accelerations. What a log does not carry is derived from what it does, sample after sample in
 * the log's order, before estimation:
 * - q̇ of a joint whose velocity the log does not carry: the first derivative of its positions;
 * - the readings of a joint_acceleration sensor the log does not carry: the second derivative of
 *   the positions of its joints, with the variance σ_q² Σ w2² of the fit (σ_q: the encoder noise);
 * - a floating base's angular acceleration: the first derivative of its angular velocity (a
 *   gyroscope on the base, or the log's base.angular_velocity), as the readings of a sensor
 *   `<gyroscope>_rate` measuring the base link's angular acceleration, with variance σ_ω² Σ w1².
 * Each derivative is that of a local polynomial fit (differentiate.ts, Savitzky–Golay) over a
 * window of samples centred on the sample where the log allows it, shifted inside the log at its
 * ends and at gaps (a fit never spans a gap: an interval longer than `max_gap`, by default 2.5
 * sample periods, so that one lost sample is bridged and two are not). Time going back splits the
 * log as a gap does; a row repeating the previous row's time is skipped. What a log carries is
 * never replaced: the plan is made per channel from the log's first samples.
 *
 * The stage holds half a window of samples back (the fit's look-ahead): read from a file or a
 * stream, in one thread or many (the stage runs in the reading thread, in the log's order), every
 * sample gets the same derivatives. A causal fit (no look-ahead) would have a larger noise gain
 * and follow the motion with a lag; it is not offered (see the guide).
 */
import type { LogError, Sample } from './sample.ts';
import { LocalPolyFit, noiseGain, windowSamples } from './differentiate.ts';
import { DIFFERENTIATION_DEFAULTS, ProblemError, type DifferentiationSpec, type ProblemFile, type SensorSpec } from './problem.ts';
import { sensorJoints, type EstimationSystem } from './setup.ts';

/** Samples the sample period is judged from (the first ones of the log). */
export const PERIOD_SAMPLES = 64;

/**
 * What a run derives, decided from the log's first samples (plain JSON: the worker threads build
 * their estimation system from it).
 */
export interface DerivationPlan {
  /** nominal sample period, s (median interval of the first samples) */
  period: number;
  /** samples of a fit window (odd) */
  samples: number;
  order: number;
  /** the longest interval a fit spans, s */
  maxGap: number;
  /** joints whose q̇ is derived from q (model order) */
  velocities: string[];
  /** joint_acceleration sensors whose readings are derived from q */
  accelerations: string[];
  /** the sensor added for the base's angular acceleration, derived from its angular velocity */
  baseRate?: { sensor: string; link: string; from: string };
  /** variance of each derived sensor's readings */
  variances: Record<string, number>;
  /** the noise figures used: encoder (rad or m) and gyroscope (rad/s) */
  encoderNoise: number;
  gyroNoise: number;
}

/**
 * Does the problem measure the floating base's angular acceleration: a spatial_acceleration sensor
 * with an alpha component on the base body, or a joint_acceleration sensor on the floating joint?
 */
function measuresBaseAngularAcceleration(es: EstimationSystem): boolean {
  return es.sensors.some((s) => (s.spec.type === 'spatial_acceleration' && s.spec.components.some((c) => c.startsWith('alpha')) && es.model.frame(s.spec.link!).body === 0)
    || (s.spec.type === 'joint_acceleration' && sensorJoints(es.model, s.spec).includes(0)));
}

/** The median of the positive intervals between consecutive times (NaN when there are none). */
function medianInterval(t: readonly number[]): number {
  const d: number[] = [];
  for (let k = 1; k < t.length; k++) if (t[k] > t[k - 1]) d.push(t[k] - t[k - 1]);
  d.sort((a, b) => a - b);
  return d.length ? d[d.length >> 1] : NaN;
}

/**
 * The plan of a run from the log's first valid samples (`first`, parsed leniently: a velocity the
 * row does not carry is NaN), or null when the log carries everything the problem needs. Throws
 * ProblemError when something must be derived and cannot be (no time stamps, a multi-DoF joint).
 */
export function planDerivation(es: EstimationSystem, first: readonly Sample[], spec: DifferentiationSpec = {}): DerivationPlan | null {
  const model = es.model;
  if (first.length === 0) return null;
  const s0 = first[0];
  const velocities: string[] = [];
  for (const j of model.movingJoints()) {
    if (j.type === 'floating') continue;
    let missing = false;
    for (let k = 0; k < j.nv; k++) if (Number.isNaN(s0.v[model.iv[j.body] + k])) missing = true;
    if (!missing) continue;
    if (j.nq !== 1 || j.nv !== 1) throw new ProblemError(`the log carries no velocity of joint "${j.name}" (${j.type}): velocities are derived for one-DoF joints only; log its "v"`);
    velocities.push(j.name);
  }
  const accelerations = es.sensors
    .filter((s) => s.block >= 0 && s.spec.type === 'joint_acceleration' && !first.some((x) => x.readings.has(s.spec.name)))
    .map((s) => s.spec.name);
  for (const name of accelerations) {
    const s = es.sensors.find((x) => x.spec.name === name)!;
    for (const i of sensorJoints(model, s.spec)) {
      if (model.nqi[i] !== 1 || model.nvi[i] !== 1) throw new ProblemError(`sensor "${name}": the log carries no readings, and the accelerations of joint "${model.jointNames[i]}" (${model.jointTypes[i]}) cannot be derived from its positions (one-DoF joints only)`);
    }
  }
  let baseRate: DerivationPlan['baseRate'];
  if (model.floatingBase && !measuresBaseAngularAcceleration(es)) {
    const gyro = es.sensors.find((s) => s.block < 0 && s.spec.type === 'gyroscope' && model.frame(s.spec.link!).body === 0);
    const base = model.frames.find((f) => f.body === 0 && isIdentity(f.X))?.name ?? model.bodyNames[0];
    const sensor = `${gyro ? gyro.spec.name : 'base'}_rate`;
    if (es.sensors.some((s) => s.spec.name === sensor)) throw new ProblemError(`sensor "${sensor}": the name is taken by the base's angular acceleration derived from ${gyro ? `gyroscope "${gyro.spec.name}"` : 'its angular velocity'}; rename the sensor`);
    baseRate = { sensor, link: base, from: gyro ? `gyroscope "${gyro.spec.name}"` : 'base.angular_velocity' };
  }
  if (velocities.length === 0 && accelerations.length === 0 && baseRate === undefined) return null;
  if (first.some((x) => x.untimed)) {
    throw new ProblemError(`the log has no time ("t"): ${velocities.length ? `the velocities of ${velocities.length} joints` : accelerations.length ? `the readings of sensor "${accelerations[0]}"` : 'the base\'s angular acceleration'} must be derived from time-stamped samples`);
  }
  const period = medianInterval(first.map((x) => x.t));
  if (!(period > 0)) throw new ProblemError(`the first ${first.length} samples of the log do not advance in time: derivatives need at least two samples at different times`);
  const order = spec.order ?? DIFFERENTIATION_DEFAULTS.order;
  const samples = windowSamples(period, order, { window: spec.window, bandwidth: spec.bandwidth ?? DIFFERENTIATION_DEFAULTS.bandwidth });
  const maxGap = spec.max_gap ?? DIFFERENTIATION_DEFAULTS.gapPeriods * period;
  if (!(maxGap > period)) throw new ProblemError(`differentiation: "max_gap" ${maxGap} s is not longer than the log's sample period ${period} s`);
  // the noise gains of a centred window at the nominal period
  const fit = new LocalPolyFit(samples, order);
  const t = Float64Array.from({ length: samples }, (_, k) => k * period);
  fit.fit(t, 0, samples, t[(samples - 1) / 2]);
  const encoderNoise = spec.encoder_noise ?? DIFFERENTIATION_DEFAULTS.encoder_noise;
  const gyroNoise = spec.gyro_noise ?? DIFFERENTIATION_DEFAULTS.gyro_noise;
  const variances: Record<string, number> = {};
  for (const a of accelerations) variances[a] = encoderNoise * encoderNoise * noiseGain(fit.w2, samples);
  if (baseRate) variances[baseRate.sensor] = gyroNoise * gyroNoise * noiseGain(fit.w1, samples);
  const plan: DerivationPlan = { period, samples, order, maxGap, velocities, accelerations, variances, encoderNoise, gyroNoise };
  if (baseRate) plan.baseRate = baseRate;
  return plan;
}

function isIdentity(X: Float64Array): boolean {
  for (let k = 0; k < 12; k++) if (X[k] !== (k === 0 || k === 4 || k === 8 ? 1 : 0)) return false;
  return true;
}

/**
 * The problem a plan estimates: the derived sensors' variances from the fit, and the sensor of the
 * base's derived angular acceleration added.
 */
export function derivedProblem(problem: ProblemFile, plan: DerivationPlan | null): ProblemFile {
  if (plan === null) return problem;
  const sensors: SensorSpec[] = problem.sensors.map((s) => (plan.variances[s.name] !== undefined ? { ...s, variance: plan.variances[s.name] } : s));
  if (plan.baseRate) {
    sensors.push({
      name: plan.baseRate.sensor, type: 'spatial_acceleration', link: plan.baseRate.link, origin: { xyz: [0, 0, 0], rpy: [0, 0, 0] },
      components: ['alpha_x', 'alpha_y', 'alpha_z'], variance: plan.variances[plan.baseRate.sensor],
    });
  }
  return { ...problem, sensors };
}

/** The plan in words (summary and report). */
export function describePlan(plan: DerivationPlan): string[] {
  const hz = 1 / plan.period;
  const what = [
    plan.velocities.length ? `the velocities of ${plan.velocities.length} joint${plan.velocities.length > 1 ? 's' : ''}` : '',
    ...plan.accelerations.map((a) => `the readings of sensor "${a}" (joint accelerations)`),
    plan.baseRate ? `the base's angular acceleration (sensor "${plan.baseRate.sensor}", from ${plan.baseRate.from})` : '',
  ].filter((x) => x !== '');
  const out = [
    `derived from the log over time: ${what.join(', ')}; local polynomial fits of order ${plan.order} over ${plan.samples} samples (${(plan.samples - 1) * plan.period < 1 ? `${((plan.samples - 1) * plan.period * 1000).toPrecision(3)} ms` : `${((plan.samples - 1) * plan.period).toPrecision(3)} s`} at the log's ${hz >= 100 ? hz.toFixed(0) : hz.toPrecision(3)} Hz), centred where the log allows; a fit never spans a gap longer than ${(plan.maxGap * 1000).toPrecision(3)} ms`,
  ];
  for (const a of plan.accelerations) out.push(`sensor "${a}": derived joint accelerations, variance ${plan.variances[a].toExponential(2)} (rad/s²)² from an encoder noise of ${plan.encoderNoise} rad`);
  if (plan.baseRate) out.push(`sensor "${plan.baseRate.sensor}": derived angular acceleration, variance ${plan.variances[plan.baseRate.sensor].toExponential(2)} (rad/s²)² from a gyroscope noise of ${plan.gyroNoise} rad/s`);
  return out;
}

/** What the stage met: segments, gaps, time going back, repeated times, and its cost. */
export interface SequenceStats {
  /** samples passed on */
  samples: number;
  /** stretches of the log a fit may span (split by gaps and by time going back) */
  segments: number;
  /** gaps: the first row after each, and the interval (s) */
  gaps: { line: number; t: number; dt: number }[];
  /** time going back: the row, its time and the previous row's */
  backwards: { line: number; t: number; previous: number }[];
  /** rows repeating the previous row's time (skipped when derivatives are taken, else kept) */
  repeats: { line: number; t: number; previous: number }[];
  /** rows skipped in segments too short for a fit */
  short: number;
  /** samples whose fit window is not centred (ends of the log, gaps) */
  offCentre: number;
  /** time spent deriving, ms */
  ms: number;
  /** time of each row's derivatives, µs (the row that completes a window, whose sample is then derived) */
  times: number[];
  /** intervals shorter than a quarter of the sample period: stamps that may record delivery rather than sampling */
  shortIntervals: number;
}

/**
 * Something that follows the samples in the log's order (contact detection) and may set their
 * active contacts; `reset` where time goes back (the log starts again).
 */
export interface SampleFollower {
  /** the next sample, in the log's order (may set `sample.contacts`) */
  next(sample: Sample): unknown;
  /** the log starts again (time went back) */
  reset?(): void;
}

/** x[cols], a new array (a sample's readings) */
function gather(x: Float64Array, cols: Int32Array): Float64Array {
  const out = new Float64Array(cols.length);
  for (let k = 0; k < cols.length; k++) out[k] = x[cols[k]];
  return out;
}

/**
 * The per-sample stage in the log's order: time checks, derivatives (`plan`), and anything that
 * follows the samples in order (`follower`, e.g. contact detection with hysteresis). Push parsed
 * rows (samples or errors) in the log's order, take what is ready with `drain()`, in the same
 * order; `end()` at the end of the log. Without a plan, only the time checks run.
 *
 * The values differentiated (per sample: the positions of the joints whose velocity or
 * acceleration is derived, the base's angular velocity) are copied into one row each of a
 * contiguous store, so that a window's weights run over adjacent memory.
 */
export class SampleSequence {
  readonly stats: SequenceStats = { samples: 0, segments: 0, gaps: [], backwards: [], repeats: [], short: 0, offCentre: 0, ms: 0, times: [], shortIntervals: 0 };
  private readonly out: (Sample | LogError)[] = [];
  /** the rows waiting, in order: errors and samples; the derived samples are the first `readySamples` samples of it */
  private readonly fifo: (Sample | LogError)[] = [];
  private readySamples = 0;
  /** the current segment's samples still needed: the window history and the samples not yet derived */
  private seg: Sample[] = [];
  /** index in `seg` of the first sample not derived yet */
  private next = 0;
  private lastTime: { line: number; t: number } | null = null;
  /** the time of the last sample the follower saw */
  private followerT = -Infinity;
  private readonly fit: LocalPolyFit | null;
  private readonly half: number;
  /** the store: seg[i]'s time at T[base + i], its values at Y[(base + i)·width …] */
  private readonly T: Float64Array;
  private readonly Y: Float64Array;
  private base = 0;
  /**
   * a recording's first stamp (ns): its samples' times in the store are counted from it, exact to
   * the nanosecond (a stamp since the epoch in seconds, as a double, is good to 0.2 µs only)
   */
  private origin: bigint | null = null;
  private readonly rowsCap: number;
  /** per value of a store row: its index in q (a joint's position) or −1 − k for v[k] (the base's angular velocity) */
  private readonly source: Int32Array;
  private readonly width: number;
  /** derived velocities: the store column and the v index each fills */
  private readonly velCol: Int32Array;
  private readonly velV: Int32Array;
  /** derived acceleration sensors: name and the store column of each reading */
  private readonly acc: { name: string; cols: Int32Array }[];
  /** the base's angular acceleration: sensor name and its three store columns */
  private readonly rate: { name: string; cols: Int32Array } | null;
  /** scratch: Σ w1·y and Σ w2·y per store column */
  private readonly d1: Float64Array;
  private readonly d2: Float64Array;

  constructor(readonly es: EstimationSystem, readonly plan: DerivationPlan | null, readonly follower?: SampleFollower) {
    const m = es.model;
    this.fit = plan ? new LocalPolyFit(plan.samples, plan.order) : null;
    this.half = plan ? (plan.samples - 1) / 2 : 0;
    const cols = new Map<number, number>();
    const col = (src: number): number => {
      let c = cols.get(src);
      if (c === undefined) { c = cols.size; cols.set(src, c); }
      return c;
    };
    const joints = (plan?.velocities ?? []).map((n) => m.joint(n));
    this.velCol = Int32Array.from(joints, (i) => col(m.iq[i]));
    this.velV = Int32Array.from(joints, (i) => m.iv[i]);
    this.acc = (plan?.accelerations ?? []).map((name) => {
      const s = es.sensors.find((x) => x.spec.name === name)!;
      return { name, cols: Int32Array.from(sensorJoints(m, s.spec), (i) => col(m.iq[i])) };
    });
    this.rate = plan?.baseRate ? { name: plan.baseRate.sensor, cols: Int32Array.from([3, 4, 5], (k) => col(-1 - k)) } : null;
    this.width = cols.size;
    this.source = new Int32Array(this.width);
    for (const [src, c] of cols) this.source[c] = src;
    this.rowsCap = plan ? 4 * plan.samples + 4 : 0;
    this.T = new Float64Array(this.rowsCap);
    this.Y = new Float64Array(this.rowsCap * this.width);
    this.d1 = new Float64Array(this.width);
    this.d2 = new Float64Array(this.width);
  }

  /**
   * The time of the next sample, checked against the previous one's (the stats keep what was met):
   * 'repeat' (the same time), 'back' (earlier: the log is split there), 'gap' (a longer interval
   * than a fit spans), else 'ok'. Without a plan this is all the stage does for a sample, and
   * callers that pass samples on elsewhere use it alone.
   */
  checkTime(line: number, t: number): 'ok' | 'repeat' | 'back' | 'gap' {
    const prev = this.lastTime;
    if (prev === null) { this.lastTime = { line, t }; this.stats.segments++; return 'ok'; }
    const dt = t - prev.t;
    if (dt === 0) { this.stats.repeats.push({ line, t, previous: prev.line }); return 'repeat'; }
    prev.line = line; prev.t = t;
    if (dt < 0) { this.stats.backwards.push({ line, t, previous: t - dt }); this.stats.segments++; return 'back'; }
    if (this.plan && dt > this.plan.maxGap) { this.stats.gaps.push({ line, t, dt }); this.stats.segments++; return 'gap'; }
    if (this.plan && dt < 0.25 * this.plan.period) this.stats.shortIntervals++;
    return 'ok';
  }

  /** The next row of the log: a sample or a row that could not be parsed. */
  push(x: Sample | LogError): void {
    if (!('q' in x)) { this.fifo.push(x); this.flush(); return; }
    const prevLine = this.lastTime?.line;
    const time = this.checkTime(x.line, x.t);
    if (time === 'repeat' && this.plan) {
      // a derivative cannot take two readings at one time: the row is skipped
      this.fifo.push({ line: x.line, message: `time ${x.t} s repeats that of line ${prevLine} (the row is skipped: derivatives need distinct times)` });
      this.flush();
      return;
    }
    if (time === 'back' || time === 'gap') this.closeSegment();
    this.fifo.push(x);
    if (!this.plan) { this.readySamples++; this.flush(); return; }
    const t0 = performance.now();
    this.store(x);
    this.deriveReady(false);
    const ms = performance.now() - t0;
    this.stats.ms += ms;
    this.stats.times.push(1000 * ms);
    this.flush();
  }

  /** The end of the log: every sample waiting is derived (or skipped) and ready. */
  end(): void {
    this.closeSegment();
    this.flush();
  }

  /** The rows ready, in the log's order (samples derived, errors, skipped rows). */
  drain(): (Sample | LogError)[] {
    return this.out.splice(0, this.out.length);
  }

  /** Append a sample to the segment and its values to the store (moved to the store's start when full). */
  private store(x: Sample): void {
    const w = this.width, Y = this.Y;
    if (this.base + this.seg.length >= this.rowsCap) {
      const n = this.seg.length;
      this.T.copyWithin(0, this.base, this.base + n);
      Y.copyWithin(0, this.base * w, (this.base + n) * w);
      this.base = 0;
    }
    const r = this.base + this.seg.length;
    if (x.stamp === undefined) this.T[r] = x.t;
    else { this.origin ??= x.stamp; this.T[r] = Number(x.stamp - this.origin) / 1e9; }
    const src = this.source;
    for (let c = 0; c < w; c++) { const k = src[c]; Y[r * w + c] = k >= 0 ? x.q[k] : x.v[-1 - k]; }
    this.seg.push(x);
  }

  /** The samples of the current segment whose window is complete (all of them: the segment ended). */
  private deriveReady(ended: boolean): void {
    const seg = this.seg, n = this.plan!.samples, h = this.half, order = this.plan!.order;
    while (this.next < seg.length) {
      const i = this.next;
      let from: number, w: number;
      if (seg.length >= n || !ended) {
        from = i - h < 0 ? 0 : i - h;
        if (from + n > seg.length) {
          if (!ended) break;
          from = seg.length - n;
        }
        w = n;
      } else if (seg.length >= order + 2) {
        from = 0; w = seg.length;
      } else {
        // a stretch too short for a fit: its samples are skipped
        const s = seg[i];
        this.stats.short++;
        this.replace(s, { line: s.line, message: `only ${seg.length} sample${seg.length > 1 ? 's' : ''} between gaps in time (t = ${seg[0].t} … ${seg[seg.length - 1].t} s): a derivative needs ${order + 2} (the row is skipped)` });
        this.next++;
        continue;
      }
      this.derive(i, from, w);
      this.next++;
    }
    // keep the history the next windows need
    const drop = this.next - n;
    if (drop > 0) { seg.splice(0, drop); this.next -= drop; this.base += drop; }
  }

  /** Sample seg[i] from the window seg[from … from + w). */
  private derive(i: number, from: number, w: number): void {
    const s = this.seg[i], fit = this.fit!, r0 = this.base + from;
    if (from !== i - this.half || w !== this.plan!.samples) this.stats.offCentre++;
    if (!fit.fit(this.T, r0, w, this.T[this.base + i])) {
      this.replace(s, { line: s.line, message: `the times around t = ${s.t} s do not determine a fit of order ${this.plan!.order} (the row is skipped)` });
      return;
    }
    const w1 = fit.w1, w2 = fit.w2, Y = this.Y, width = this.width, d1 = this.d1, d2 = this.d2;
    d1.fill(0);
    d2.fill(0);
    for (let k = 0; k < w; k++) {
      const a = w1[k], b = w2[k], o = (r0 + k) * width;
      for (let c = 0; c < width; c++) { const y = Y[o + c]; d1[c] += a * y; d2[c] += b * y; }
    }
    for (let c = 0; c < this.velCol.length; c++) s.v[this.velV[c]] = d1[this.velCol[c]];
    for (const { name, cols } of this.acc) s.readings.set(name, gather(d2, cols));
    if (this.rate !== null) s.readings.set(this.rate.name, gather(d1, this.rate.cols));
    this.readySamples++;
  }

  /** A sample that cannot be derived becomes the error in its place. */
  private replace(s: Sample, e: LogError): void {
    const k = this.fifo.indexOf(s);
    if (k >= 0) this.fifo[k] = e;
  }

  private closeSegment(): void {
    if (this.plan) {
      const t0 = performance.now();
      this.deriveReady(true);
      this.stats.ms += performance.now() - t0;
    }
    this.seg = [];
    this.next = 0;
    this.base = 0;
  }

  /** Pass on the rows at the head of the queue that are ready. */
  private flush(): void {
    const f = this.fifo;
    let k = 0;
    for (; k < f.length; k++) {
      const x = f[k];
      if ('q' in x) {
        if (this.readySamples === 0) break;
        this.readySamples--;
        this.finish(x, k);
      }
    }
    if (k === 0) return;
    const done = k === f.length ? f.splice(0) : f.splice(0, k);
    for (const x of done) this.out.push(x);
  }

  /** A ready sample: a velocity still missing makes it an error in its place; else the follower sees it. */
  private finish(s: Sample, k: number): void {
    const v = s.v, m = this.es.model;
    for (let i = 0; i < v.length; i++) {
      if (v[i] !== v[i]) {
        const b = m.movingJoints().find((j) => i >= m.iv[j.body] && i < m.iv[j.body] + j.nv);
        this.fifo[k] = { line: s.line, message: `v of joint "${b?.name ?? i}" is missing (the log's first rows carry it, so it is not derived)` };
        return;
      }
    }
    this.stats.samples++;
    if (this.follower) {
      if (s.t < this.followerT) this.follower.reset?.();
      this.followerT = s.t;
      this.follower.next(s);
    }
  }
}
