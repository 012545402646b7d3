/**
 * Plausibility of a sample against what the robot file and the problem file state: joint positions
 * within the URDF's `<limit lower upper>` (with a margin), joint velocities within `velocity`,
 * estimated torques within `effort` (each with a margin fraction), sensor readings within the
 * sensor's stated `range` (problem file), and the angle of a joint without position limits within
 * ±1e6 rad (160,000 turns: an angle that large is a corrupted value or a counter gone wrong, and
 * the doubles there are 1.2e-10 rad apart, so its sine and cosine have lost six digits). Values
 * out of bounds are named in the user's words; the row is flagged, never
 * dropped. No I/O (runs in a browser); the bounds are worked out once, and a sample whose values
 * are all within them costs one comparison per checked value and builds nothing.
 */
import type { Model } from '../model/model.ts';
import type { SensorSpec } from './problem.ts';
import { sensorJoints, type EstimationSystem } from './setup.ts';

/** Margins of the checks. */
export interface PlausibilityOptions {
  /** how far a revolute joint may go beyond its position limits, rad (default 0.05) */
  angleMargin?: number;
  /** how far a prismatic joint may go beyond its position limits, m (default 0.005) */
  lengthMargin?: number;
  /** fraction by which |q̇| and |τ| may exceed the velocity and effort limits (default 0.05) */
  rateMargin?: number;
}

/** The default margins: 0.05 rad, 5 mm, 5%. */
export const DEFAULT_PLAUSIBILITY: Required<PlausibilityOptions> = { angleMargin: 0.05, lengthMargin: 0.005, rateMargin: 0.05 };

/** |q| of a joint angle beyond which it is refused as meaningless, rad (joints without position limits) */
export const ANGLE_PRECISION_LIMIT = 1e6;

/** A sensor's stated range: every component of its readings in [min, max]. */
export interface SensorRange {
  sensor: string;
  min: number;
  max: number;
  /** component names of its readings (fz, l_knee, …), in reading order */
  components: readonly string[];
  /** unit of each component (N, N·m, rad/s², …) */
  units: readonly string[];
}

/** A value out of bounds: `item` names what (q.l_knee, v.l_knee, tau.l_knee, range.ft_left), `message` says it in words. */
export interface Implausible { item: string; message: string }

/** a number as a message shows it: four significant digits (2.094, 412, -2.5e+6, 1e+308) */
function short(x: number): string {
  const a = Math.abs(x);
  if (a !== 0 && (a >= 1e6 || a < 1e-4)) return x.toExponential(3).replace(/\.?0+e/, 'e');
  return String(Number(x.toPrecision(4)));
}

/** what the joint coordinate is: an angle (rad), a length (m) */
const ANGLE = 0, LENGTH = 1;

/**
 * The checks of one model and its sensors' ranges. `sample(q, v, readings)` and
 * `torques(d, tauCol)` return the values out of bounds, or null when there are none.
 */
export class PlausibilityCheck {
  /** position checks: q index, joint (body), bounds with the margin, whether the joint states each bound */
  private readonly qAt: Int32Array;
  private readonly qBody: Int32Array;
  private readonly qLo: Float64Array;
  private readonly qHi: Float64Array;
  private readonly qStated: Uint8Array; // bit 0: lower stated, bit 1: upper stated
  /** velocity checks: v index, joint, |q̇| bound with the margin */
  private readonly vAt: Int32Array;
  private readonly vBody: Int32Array;
  private readonly vMax: Float64Array;
  /** torque checks: joint, |τ| bound with the margin */
  private readonly tBody: Int32Array;
  private readonly tMax: Float64Array;
  /** kind of each joint's coordinate (ANGLE, LENGTH) */
  private readonly kind: Uint8Array;
  readonly opts: Required<PlausibilityOptions>;

  constructor(readonly model: Model, readonly ranges: readonly SensorRange[] = [], opts: PlausibilityOptions = {}) {
    this.opts = { ...DEFAULT_PLAUSIBILITY, ...opts };
    for (const k of ['angleMargin', 'lengthMargin', 'rateMargin'] as const) {
      const x = this.opts[k];
      if (!(x >= 0 && Number.isFinite(x))) throw new RangeError(`plausibility: ${k} must be a number >= 0, got ${x}`);
    }
    const qAt: number[] = [], qBody: number[] = [], qLo: number[] = [], qHi: number[] = [], qStated: number[] = [];
    const vAt: number[] = [], vBody: number[] = [], vMax: number[] = [];
    const tBody: number[] = [], tMax: number[] = [];
    this.kind = new Uint8Array(model.nb);
    const f = 1 + this.opts.rateMargin;
    for (let i = 0; i < model.nb; i++) {
      const type = model.jointTypes[i];
      // limits describe the one coordinate of a revolute, prismatic or helical joint
      if (model.nqi[i] !== 1 || model.nvi[i] !== 1 || !(type === 'revolute' || type === 'prismatic' || type === 'helical')) continue;
      const angle = type !== 'prismatic';
      this.kind[i] = angle ? ANGLE : LENGTH;
      const l = model.limits[i];
      const m = angle ? this.opts.angleMargin : this.opts.lengthMargin;
      const lower = l?.lower !== undefined && Number.isFinite(l.lower), upper = l?.upper !== undefined && Number.isFinite(l.upper);
      // an angle without a stated bound keeps the precision bound on that side
      const lo = lower ? l!.lower! - m : angle ? -ANGLE_PRECISION_LIMIT : -Infinity;
      const hi = upper ? l!.upper! + m : angle ? ANGLE_PRECISION_LIMIT : Infinity;
      if (lo > -Infinity || hi < Infinity) { qAt.push(model.iq[i]); qBody.push(i); qLo.push(lo); qHi.push(hi); qStated.push((lower ? 1 : 0) | (upper ? 2 : 0)); }
      // a velocity or effort of 0 (or none) is a file that states none
      if (l?.velocity !== undefined && l.velocity > 0) { vAt.push(model.iv[i]); vBody.push(i); vMax.push(l.velocity * f); }
      if (l?.effort !== undefined && l.effort > 0) { tBody.push(i); tMax.push(l.effort * f); }
    }
    this.qAt = Int32Array.from(qAt); this.qBody = Int32Array.from(qBody); this.qLo = Float64Array.from(qLo); this.qHi = Float64Array.from(qHi); this.qStated = Uint8Array.from(qStated);
    this.vAt = Int32Array.from(vAt); this.vBody = Int32Array.from(vBody); this.vMax = Float64Array.from(vMax);
    this.tBody = Int32Array.from(tBody); this.tMax = Float64Array.from(tMax);
    for (const r of ranges) {
      if (!(r.min < r.max)) throw new RangeError(`plausibility: the range of sensor "${r.sensor}" is [${r.min}, ${r.max}], expected min < max`);
    }
  }

  /** The checks of an estimation system: its model's limits and its sensors' ranges (problem file). */
  static forSystem(es: EstimationSystem, opts: PlausibilityOptions = {}): PlausibilityCheck {
    const ranges: SensorRange[] = [];
    for (const s of es.sensors) {
      const r = s.spec.range;
      if (r === undefined) continue;
      const [min, max] = typeof r === 'number' ? [-r, r] : r;
      ranges.push({ sensor: s.spec.name, min, max, components: s.inputs.map((n) => n.slice(s.spec.name.length + 1)), units: sensorUnits(es.model, s.spec) });
    }
    return new PlausibilityCheck(es.model, ranges, opts);
  }

  /** Whether any value is checked at all. */
  get checksNothing(): boolean {
    return this.qAt.length + this.vAt.length + this.tBody.length + this.ranges.length === 0;
  }

  /**
   * The joint positions q, velocities v (model order) and the readings (by sensor name) of a
   * sample that are out of bounds, appended to `out` (null: a list is made when one is found). A
   * NaN is a value the sample does not carry (a velocity left to be derived), not an implausible one.
   */
  sample(q: ArrayLike<number>, v: ArrayLike<number>, readings: ReadonlyMap<string, ArrayLike<number>>, out: Implausible[] | null = null): Implausible[] | null {
    const { qAt, qLo, qHi, vAt, vMax } = this;
    for (let k = 0; k < qAt.length; k++) {
      const x = q[qAt[k]];
      if (x < qLo[k] || x > qHi[k]) (out ??= []).push(this.position(k, x));
    }
    for (let k = 0; k < vAt.length; k++) {
      const x = v[vAt[k]];
      if (x < -vMax[k] || x > vMax[k]) {
        const i = this.vBody[k], name = this.model.jointNames[i];
        (out ??= []).push({ item: `v.${name}`, message: `v of joint "${name}" = ${short(x)} ${this.kind[i] === ANGLE ? 'rad/s' : 'm/s'} exceeds its velocity limit ${short(this.model.limits[i]!.velocity!)} ${this.kind[i] === ANGLE ? 'rad/s' : 'm/s'}` });
      }
    }
    for (const r of this.ranges) {
      const y = readings.get(r.sensor);
      if (y === undefined) continue;
      for (let k = 0; k < y.length; k++) {
        const x = y[k];
        if (x < r.min || x > r.max) {
          const unit = r.units[k] ? ` ${r.units[k]}` : '';
          const range = r.min === -r.max ? `±${short(r.max)}${unit}` : `[${short(r.min)}, ${short(r.max)}]${unit}`;
          (out ??= []).push({ item: `range.${r.sensor}`, message: `reading ${r.components[k] ?? k + 1} of sensor "${r.sensor}" = ${short(x)}${unit} is beyond its range ${range}` });
        }
      }
    }
    return out;
  }

  /**
   * The estimated torques out of their effort limits: the torque of joint i is d[tauCol[i]]
   * (VariableLayout.tau), appended to `out` (null: a list is made when one is found).
   */
  torques(d: ArrayLike<number>, tauCol: ArrayLike<number>, out: Implausible[] | null = null): Implausible[] | null {
    const { tBody, tMax } = this;
    for (let k = 0; k < tBody.length; k++) {
      const i = tBody[k], x = d[tauCol[i]];
      if (x < -tMax[k] || x > tMax[k]) {
        const name = this.model.jointNames[i], unit = this.kind[i] === ANGLE ? 'N·m' : 'N';
        (out ??= []).push({ item: `tau.${name}`, message: `torque of joint "${name}" = ${short(x)} ${unit} exceeds its effort limit ${short(this.model.limits[i]!.effort!)} ${unit}` });
      }
    }
    return out;
  }

  /** the message of position check k, whose value x is out of bounds */
  private position(k: number, x: number): Implausible {
    const i = this.qBody[k], name = this.model.jointNames[i], l = this.model.limits[i];
    const unit = this.kind[i] === ANGLE ? 'rad' : 'm', below = x < this.qLo[k];
    const stated = this.qStated[k] & (below ? 1 : 2);
    const message = stated
      ? `q of joint "${name}" = ${short(x)} ${unit} is beyond its ${below ? 'lower' : 'upper'} limit ${short(below ? l!.lower! : l!.upper!)} ${unit}`
      : `q of joint "${name}" = ${short(x)} ${unit} is beyond ±1e6 rad, where an angle loses its precision (the joint states no ${below ? 'lower' : 'upper'} limit)`;
    return { item: `q.${name}`, message };
  }
}

/** The unit of each reading of a sensor, in reading order (N, N·m, m/s², rad/s², rad/s; by joint type for joint sensors). */
export function sensorUnits(model: Model, s: SensorSpec): string[] {
  switch (s.type) {
    case 'force_torque': case 'external_wrench': return s.components.map((c) => (c.startsWith('t') ? 'N·m' : 'N'));
    case 'accelerometer': return s.components.map(() => 'm/s²');
    case 'spatial_acceleration': return s.components.map((c) => (c.startsWith('alpha') ? 'rad/s²' : 'm/s²'));
    case 'gyroscope': return s.components.map(() => 'rad/s');
    default: {
      const out: string[] = [];
      const acc = s.type === 'joint_acceleration';
      for (const i of sensorJoints(model, s)) {
        const t = model.jointTypes[i];
        for (let k = 0; k < model.nvi[i]; k++) {
          // a floating base's and a planar joint's coordinates: linear ones first
          const linear = t === 'prismatic' || (t === 'floating' && k < 3) || (t === 'planar' && k < 2);
          out.push(acc ? (linear ? 'm/s²' : 'rad/s²') : (linear ? 'N' : 'N·m'));
        }
      }
      return out;
    }
  }
}
