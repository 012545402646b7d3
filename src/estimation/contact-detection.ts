/**
 * Contact detection from a measured normal force, sample after sample in time order, as robots'
 * contact state machines do it: per contact, a Schmitt trigger (a contact is made when the force
 * exceeds `on`, broken when it falls to `off` or below: two thresholds, so that a noisy force near
 * one threshold does not chatter), then a minimum duration (a new state of the trigger is accepted
 * once it has lasted `min_duration` s; a shorter blip is ignored, and every accepted switch comes
 * that long after the trigger's). The problem file's `contact_detection` entries give the rules
 * (src/estimation/problem.ts, `contactRule`); `threshold` alone is on = off with no minimum
 * duration, which gives at every sample what the stateless rule gives (EstimationSession.contactsOf).
 *
 * Before its sensor's first reading a contact is active (unknown, as a row without that reading
 * has it in the stateless rule); the first reading sets the state at once (there is no state to
 * defend yet): active unless the force is at or below `off`. A sample lacking the sensor's reading
 * (or whose force is not finite) leaves that contact's state, and its pending switch, as they were.
 * A contact with several rules is active while every one of them is. Contacts without a rule are
 * always active.
 *
 * Usage (the samples of one log, in time order):
 *
 *   const detector = ContactDetector.of(es); // null: the problem detects no contact
 *   for (const s of samples) detector?.next(s); // s.contacts set when the row names none
 */
import type { Sample } from './sample.ts';
import { contactRule, type ContactRule, type ProblemFile } from './problem.ts';
import type { EstimationSystem } from './setup.ts';

/** two time stamps this close (s) are the same time: a duration of min_duration − 1 ns is min_duration */
const TIME_EPS = 1e-9;

/** What `next` reads of a sample: its time, its sensors' readings and the contacts it names, if any. */
export type DetectorSample = Pick<Sample, 't' | 'readings'> & { line?: number; contacts?: string[] };

/** The contact state machine of a problem's `contact_detection`, fed the samples of a log in time order. */
export class ContactDetector {
  /** the rules, in the problem's order, defaults filled in */
  readonly rules: readonly ContactRule[];
  /** every contact of the problem (problem order) */
  readonly contacts: readonly string[];
  /** the contacts active after the last sample (problem order; before any sample, every contact) */
  detected: readonly string[];
  /** per rule: the places of fx, fy, fz in its sensor's readings (-1: not measured) */
  private readonly at: Int32Array;
  /** per rule: the Schmitt trigger's state (1 active) */
  private readonly trigger: Uint8Array;
  /** per rule: the accepted state (1 active) */
  private readonly accepted: Uint8Array;
  /** per rule: whether its sensor has been read yet */
  private readonly started: Uint8Array;
  /** per rule: the time the trigger left the accepted state (NaN: it has not) */
  private readonly since: Float64Array;
  /** per contact of the problem: its rules */
  private readonly ruleOf: number[][];
  private lastT = -Infinity;
  private lastLine: number | undefined;

  /** From a problem (its contact_detection, contacts and sensors), or an estimation system's. */
  constructor(source: ProblemFile | EstimationSystem) {
    const problem = 'sys' in source ? source.problem : source;
    this.rules = (problem.contact_detection ?? []).map(contactRule);
    this.contacts = Object.freeze(problem.contacts.map((c) => c.link));
    const n = this.rules.length;
    this.at = new Int32Array(3 * n);
    this.rules.forEach((r, k) => {
      if (!this.contacts.includes(r.contact)) throw new RangeError(`contact detection: "${r.contact}" is not a contact of the problem (${this.contacts.join(', ') || 'none'})`);
      const sensor = problem.sensors.find((x) => x.name === r.sensor);
      if (!sensor) throw new RangeError(`contact detection of "${r.contact}": no sensor "${r.sensor}" in the problem`);
      ['fx', 'fy', 'fz'].forEach((c, i) => { this.at[3 * k + i] = sensor.components.indexOf(c); });
      const need = r.component === 'norm' ? [0, 1, 2] : [2];
      if (need.some((i) => this.at[3 * k + i] < 0)) throw new RangeError(`contact detection of "${r.contact}": sensor "${r.sensor}" does not measure ${r.component === 'norm' ? 'fx, fy and fz' : 'fz'}`);
    });
    this.trigger = new Uint8Array(n);
    this.accepted = new Uint8Array(n);
    this.started = new Uint8Array(n);
    this.since = new Float64Array(n);
    this.ruleOf = this.contacts.map((c) => this.rules.flatMap((r, k) => (r.contact === c ? [k] : [])));
    this.detected = this.contacts;
    this.reset();
  }

  /**
   * The detector of an estimation system's problem, or null when it has none to run: no
   * contact_detection, or a contact_schedule (which the problem's contact modes follow instead).
   */
  static of(es: EstimationSystem): ContactDetector | null {
    const p = es.problem;
    return p.contact_detection?.length && !p.contact_schedule ? new ContactDetector(es) : null;
  }

  /** Forget every state (a new log, or a log that starts again): every contact active, no reading met. */
  reset(): void {
    this.trigger.fill(1);
    this.accepted.fill(1);
    this.started.fill(0);
    this.since.fill(NaN);
    this.lastT = -Infinity;
    this.lastLine = undefined;
    this.detected = this.contacts;
  }

  /** the force a rule compares with its thresholds, from its sensor's readings (N) */
  private force(k: number, r: Float64Array): number {
    const at = this.at, z = r[at[3 * k + 2]];
    switch (this.rules[k].component) {
      case 'fz': return z;
      case '-fz': return -z;
      default: return Math.hypot(r[at[3 * k]], r[at[3 * k + 1]], z);
    }
  }

  /**
   * The next sample of the log (time order: a sample earlier than the one before is a RangeError,
   * and changes nothing): the states updated from its readings, and the active contacts. A sample
   * that names its contacts keeps them (they are returned); one that names none is given the
   * detected contacts (`sample.contacts`, a frozen list shared while they do not change).
   */
  next(sample: DetectorSample): string[] {
    const t = sample.t;
    if (!(t >= this.lastT)) {
      const where = (line: number | undefined) => (line === undefined ? '' : ` (line ${line})`);
      throw new RangeError(`contact detection takes the samples in time order: t = ${t} s${where(sample.line)} comes after t = ${this.lastT} s${where(this.lastLine)}`);
    }
    this.lastT = t;
    this.lastLine = sample.line;
    const { rules, trigger, accepted, started, since } = this;
    let changed = false;
    for (let k = 0; k < rules.length; k++) {
      const r = sample.readings.get(rules[k].sensor);
      if (r === undefined) continue;
      const f = this.force(k, r);
      if (!Number.isFinite(f)) continue;
      // the Schmitt trigger: made above `on`, broken at or below `off`
      if (trigger[k] === 1) { if (!(f > rules[k].off)) trigger[k] = 0; } else if (f > rules[k].on) trigger[k] = 1;
      let next = accepted[k];
      if (started[k] === 0) { started[k] = 1; next = trigger[k]; since[k] = NaN; }
      else if (trigger[k] === accepted[k]) since[k] = NaN;
      else {
        // a new state, accepted once it has lasted min_duration
        if (Number.isNaN(since[k])) since[k] = t;
        if (t - since[k] >= rules[k].min_duration - TIME_EPS) { next = trigger[k]; since[k] = NaN; }
      }
      if (next !== accepted[k]) { accepted[k] = next; changed = true; }
    }
    if (changed) this.detected = Object.freeze(this.contacts.filter((_c, i) => this.ruleOf[i].every((k) => accepted[k] === 1)));
    if (sample.contacts === undefined) sample.contacts = this.detected as string[];
    return sample.contacts;
  }
}
