/**
 * Estimation problem files (Nori (2017) §VI): a robot, its contacts and its sensors, in one JSON
 * document (schema: schemas/problem.schema.json). Parsing validates every field and names the
 * offending item; it does no I/O (problem-file.ts reads files and builds the model).
 */

import { clipMessage } from '../model/warnings.ts';
import { describeValue, JsonTextError, parseJsonText } from '../text/json-text.ts';
import { parseRosMapping, RosMappingError, type RosMapping } from './ros-mapping.ts';
import { MAX_FIT_ORDER } from './differentiate.ts';

/** The kinds of sensor a problem file may declare. */
export type SensorType =
  | 'joint_acceleration' | 'joint_torque' | 'force_torque' | 'external_wrench'
  | 'accelerometer' | 'spatial_acceleration' | 'gyroscope';

/** Every sensor type a problem file may use. */
export const SENSOR_TYPES: readonly SensorType[] = [
  'joint_acceleration', 'joint_torque', 'force_torque', 'external_wrench', 'accelerometer', 'spatial_acceleration', 'gyroscope',
];

export const WRENCH_COMPONENTS = ['tx', 'ty', 'tz', 'fx', 'fy', 'fz'] as const;
export const ACCEL_COMPONENTS = ['ax', 'ay', 'az'] as const;
export const SPATIAL_ACCEL_COMPONENTS = ['alpha_x', 'alpha_y', 'alpha_z', 'ax', 'ay', 'az'] as const;
export const GYRO_COMPONENTS = ['wx', 'wy', 'wz'] as const;

/** A frame given relative to a link: origin xyz and rpy (URDF convention). */
export interface Origin {
  xyz: [number, number, number];
  rpy: [number, number, number];
}

/** One sensor of a problem file, validated, with its defaults filled in. */
export interface SensorSpec {
  name: string;
  type: SensorType;
  /** the joint(s) of joint sensors; "all" = every joint with DoF, "actuated" = all but a floating base */
  joints?: string[] | 'all' | 'actuated';
  /** the joint of a force/torque sensor */
  joint?: string;
  /** the link of link sensors */
  link?: string;
  /** sensor frame relative to the link (or the joint's child link) */
  origin: Origin;
  /** measured components (default: all of the type's) */
  components: string[];
  /** variance of each reading (default 1) */
  variance: number;
  /**
   * force_torque: which wrench the sensor reports (iDynTree's measure_direction): the one the parent
   * applies on the child ("parent_to_child", default) or the child on the parent ("child_to_parent")
   */
  measure_direction?: 'parent_to_child' | 'child_to_parent';
  /**
   * what a reading can be, as the sensor's data sheet states it: r = the largest |reading| of each
   * component, or [min, max]; a reading beyond it is flagged as implausible (plausibility.ts)
   */
  range?: number | [number, number];
}

/**
 * A contact of a problem file: a link with an unknown external wrench, some components of which may
 * be known to be zero.
 */
export interface ContactSpec {
  link: string;
  /** components of the contact wrench known to be zero, in the contact link's frame */
  zero: string[];
  /** variance of those zeros (N², N²·m²): a soft constraint; absent = exact */
  zero_variance?: number;
}

/** From time `t` on (s), the active contacts are `contacts` (until the next entry). */
export interface ContactPhase { t: number; contacts: string[] }

/**
 * Contact detection from the normal force a sensor measures (N): `threshold` alone, the contact is
 * active while the force exceeds it; or `on` and `off` (off ≤ on), a contact made when the force
 * exceeds `on` and broken when it falls to `off` or below (hysteresis), each new state accepted once
 * it has lasted `min_duration` s (default 0). `component`: the force compared, the magnitude of
 * (fx, fy, fz) ("norm", default), the sensor's fz, or −fz ("-fz", for a sensor whose fz is negative
 * under load). The fields are those of the problem file (defaults left out): `contactRule` gives the
 * rule. The hysteresis and the minimum duration need the samples in time order (ContactDetector,
 * src/estimation/contact-detection.ts).
 */
export interface ContactDetection {
  contact: string;
  sensor: string;
  /** on = off = threshold */
  threshold?: number;
  on?: number;
  off?: number;
  min_duration?: number;
  component?: ContactForceComponent;
}

/** The force a contact detection compares with its thresholds. */
export type ContactForceComponent = 'norm' | 'fz' | '-fz';

/** The rule of a contact detection, its defaults filled in. */
export interface ContactRule { contact: string; sensor: string; on: number; off: number; min_duration: number; component: ContactForceComponent }

/**
 * The rule of a contact detection: `threshold` alone is on = off = threshold; min_duration 0 and the
 * force's magnitude unless given. Throws a RangeError for an entry a problem file could not hold.
 */
export function contactRule(d: ContactDetection): ContactRule {
  const where = `contact detection of "${d.contact}"`;
  if (d.threshold !== undefined && (d.on !== undefined || d.off !== undefined)) throw new RangeError(`${where}: give "threshold", or "on" and "off", not both`);
  const on = d.threshold ?? d.on, off = d.threshold ?? d.off;
  if (on === undefined || off === undefined) throw new RangeError(`${where}: needs "threshold", or "on" and "off"`);
  if (!(on > 0 && Number.isFinite(on)) || !(off >= 0 && off <= on)) throw new RangeError(`${where}: needs 0 <= off <= on, on > 0 (got on ${on}, off ${off})`);
  const min = d.min_duration ?? 0;
  if (!(min >= 0 && Number.isFinite(min))) throw new RangeError(`${where}: "min_duration" must be a duration >= 0 (s), got ${min}`);
  const component = d.component ?? 'norm';
  if (!CONTACT_FORCE_COMPONENTS.includes(component)) throw new RangeError(`${where}: unknown component "${String(component)}" (expected ${CONTACT_FORCE_COMPONENTS.join(', ')})`);
  return { contact: d.contact, sensor: d.sensor, on, off, min_duration: min, component };
}

/** Every force a contact detection may compare. */
export const CONTACT_FORCE_COMPONENTS: readonly ContactForceComponent[] = ['norm', 'fz', '-fz'];

/**
 * A Gaussian prior (mean, variance) on unknowns: `on` is "torques", "accelerations",
 * "contact_wrenches" (all of a group), "torque:<joint>", "acceleration:<joint>" or
 * "contact:<link>" (its six components tx … fz in the link frame). `mean`: one number for every
 * component, or one per component.
 */
export interface PriorSpec { on: string; mean: number | number[]; variance: number }

/** An estimation problem (a problem file, validated): the model, its base, contacts and sensors. */
export interface ProblemFile {
  /** URDF path (relative to the problem file) or a generator SPEC (chain:N, tree:N:SEED, humanoid) */
  model: string;
  base: 'fixed' | 'floating';
  gravity?: [number, number, number];
  /** joints whose generalized force is known to be zero (default: the floating base, if any) */
  unactuated?: string[];
  contacts: ContactSpec[];
  sensors: SensorSpec[];
  /** variance of the unactuated joints' zero torque (a soft constraint); absent = exact */
  unactuated_variance?: number;
  /** contact modes by time (sorted by t) */
  contact_schedule?: ContactPhase[];
  /** contact modes from a force threshold on measured wrenches */
  contact_detection?: ContactDetection[];
  /** Gaussian priors on unknowns (maximum a posteriori estimation) */
  priors?: PriorSpec[];
  /** import the URDF's <sensor> elements (all, or those named) as sensors (problem-file.ts) */
  urdf_sensors?: boolean | string[];
  /** ROS 2 topics of a recording (MCAP) that carry the joints, the base and each sensor */
  ros?: RosMapping;
  /** how velocities and accelerations a log does not carry are derived from it over time (derive.ts) */
  differentiation?: DifferentiationSpec;
  /** messages from loading the problem (not read from the JSON): e.g. URDF sensors left out */
  notes?: string[];
}

/** The `differentiation` section of a problem file: how derivatives are taken (all optional). */
export interface DifferentiationSpec {
  /** polynomial order of the fits (default 3) */
  order?: number;
  /** span of a fit window, s (default: chosen from the sample rate for `bandwidth`) */
  window?: number;
  /** cut-off frequency the window is chosen for, Hz (default 10) */
  bandwidth?: number;
  /** the longest interval between two samples that a fit spans, s (default 2.5 sample periods) */
  max_gap?: number;
  /** standard deviation of a joint position reading (rad or m; default 1e-4) */
  encoder_noise?: number;
  /** standard deviation of an angular velocity reading (rad/s; default 1e-3) */
  gyro_noise?: number;
}

/** The defaults of a problem file's `differentiation` section (`gapPeriods`: max_gap in sample periods). */
export const DIFFERENTIATION_DEFAULTS = { order: 3, bandwidth: 10, gapPeriods: 2.5, encoder_noise: 1e-4, gyro_noise: 1e-3 } as const;


/** A problem file that does not follow the schema; the message names the field or item. */
export class ProblemError extends Error {
  override name = 'ProblemError';
  constructor(message: string) { super(clipMessage(message)); }
}

function componentsOf(type: SensorType): readonly string[] {
  switch (type) {
    case 'force_torque': case 'external_wrench': return WRENCH_COMPONENTS;
    case 'accelerometer': return ACCEL_COMPONENTS;
    case 'spatial_acceleration': return SPATIAL_ACCEL_COMPONENTS;
    case 'gyroscope': return GYRO_COMPONENTS;
    default: return [];
  }
}

/**
 * The reading components of a sensor type (e.g. tx … fz for force_torque); empty for joint sensors,
 * which read one value per joint.
 */
export function sensorComponents(type: SensorType): readonly string[] {
  return componentsOf(type);
}

const isVec3 = (x: unknown): x is [number, number, number] =>
  Array.isArray(x) && x.length === 3 && x.every((e) => typeof e === 'number' && Number.isFinite(e));

function parseOrigin(x: unknown, where: string): Origin {
  if (x === undefined) return { xyz: [0, 0, 0], rpy: [0, 0, 0] };
  if (typeof x !== 'object' || x === null) throw new ProblemError(`${where}: origin must be an object {xyz, rpy}`);
  const o = x as Record<string, unknown>;
  for (const k of Object.keys(o)) if (k !== 'xyz' && k !== 'rpy') throw new ProblemError(`${where}: origin has an unknown field "${k}" (expected xyz, rpy)`);
  const xyz = o.xyz ?? [0, 0, 0], rpy = o.rpy ?? [0, 0, 0];
  if (!isVec3(xyz)) throw new ProblemError(`${where}: origin.xyz must be 3 finite numbers`);
  if (!isVec3(rpy)) throw new ProblemError(`${where}: origin.rpy must be 3 finite numbers`);
  return { xyz, rpy };
}

function strings(x: unknown, where: string): string[] {
  if (!Array.isArray(x) || !x.every((e) => typeof e === 'string')) throw new ProblemError(`${where} must be a list of strings`);
  return x as string[];
}

const SENSOR_FIELDS = ['name', 'type', 'joints', 'joint', 'link', 'origin', 'components', 'variance', 'measure_direction', 'range'];

/** A sensor's "range": a positive number (largest |reading|) or [min, max] with min < max. */
function parseRange(x: unknown, where: string): number | [number, number] {
  if (typeof x === 'number') {
    if (!(x > 0 && Number.isFinite(x))) throw new ProblemError(`${where}: "range" must be a positive number (the largest |reading| of each component) or [min, max], got ${x}`);
    return x;
  }
  if (!Array.isArray(x) || x.length !== 2 || !x.every((e) => typeof e === 'number' && Number.isFinite(e))) {
    throw new ProblemError(`${where}: "range" must be a positive number (the largest |reading| of each component) or [min, max], got ${describeValue(x)}`);
  }
  if (!(x[0] < x[1])) throw new ProblemError(`${where}: "range" [${x[0]}, ${x[1]}] must have min < max`);
  return [x[0], x[1]];
}

/** Parse and check a problem file's `differentiation` section. */
export function parseDifferentiation(x: unknown, where: string): DifferentiationSpec {
  if (typeof x !== 'object' || x === null || Array.isArray(x)) throw new ProblemError(`${where} must be an object {order, window, bandwidth, max_gap, encoder_noise, gyro_noise}`);
  const o = x as Record<string, unknown>;
  const fields = ['order', 'window', 'bandwidth', 'max_gap', 'encoder_noise', 'gyro_noise'];
  for (const k of Object.keys(o)) if (!fields.includes(k)) throw new ProblemError(`${where}: unknown field "${k}" (expected ${fields.join(', ')})`);
  const out: DifferentiationSpec = {};
  if (o.order !== undefined) {
    if (!(typeof o.order === 'number' && Number.isInteger(o.order) && o.order >= 2 && o.order <= MAX_FIT_ORDER)) throw new ProblemError(`${where}: "order" must be a whole number from 2 to ${MAX_FIT_ORDER}`);
    out.order = o.order;
  }
  for (const k of ['window', 'bandwidth', 'max_gap', 'encoder_noise', 'gyro_noise'] as const) {
    const v = o[k];
    if (v === undefined) continue;
    if (!(typeof v === 'number' && v > 0 && Number.isFinite(v))) throw new ProblemError(`${where}: "${k}" must be a positive number`);
    out[k] = v;
  }
  if (out.window !== undefined && out.bandwidth !== undefined) throw new ProblemError(`${where}: give "window" or "bandwidth", not both`);
  return out;
}

/** Parse and validate the JSON text of a problem file. `file` is used in messages. */
export function parseProblem(text: string, file = 'problem'): ProblemFile {
  let d: unknown;
  try {
    d = parseJsonText(text, file);
  } catch (e) {
    throw e instanceof JsonTextError ? new ProblemError(e.message) : e;
  }
  if (typeof d !== 'object' || d === null || Array.isArray(d)) throw new ProblemError(`${file}: expected a JSON object`);
  const p = d as Record<string, unknown>;
  const allowed = ['$schema', 'description', 'model', 'base', 'gravity', 'unactuated', 'unactuated_variance', 'contacts', 'contact_schedule', 'contact_detection', 'priors', 'sensors', 'urdf_sensors', 'ros', 'differentiation'];
  for (const k of Object.keys(p)) if (!allowed.includes(k)) throw new ProblemError(`${file}: unknown field "${k}" (expected ${allowed.join(', ')})`);
  if (typeof p.model !== 'string' || p.model.trim() === '') throw new ProblemError(`${file}: "model" must be a URDF path or a model spec`);
  if (p.base !== 'fixed' && p.base !== 'floating') throw new ProblemError(`${file}: "base" must be "fixed" or "floating"`);
  if (p.gravity !== undefined && !isVec3(p.gravity)) throw new ProblemError(`${file}: "gravity" must be 3 finite numbers`);
  const unactuated = p.unactuated === undefined ? undefined : strings(p.unactuated, `${file}: "unactuated"`);
  const contactsRaw = p.contacts ?? [];
  if (!Array.isArray(contactsRaw)) throw new ProblemError(`${file}: "contacts" must be a list`);
  const contacts: ContactSpec[] = contactsRaw.map((c: unknown, k: number) => {
    const where = `${file}: contacts[${k}]`;
    if (typeof c === 'string') return { link: c, zero: [] };
    if (typeof c !== 'object' || c === null) throw new ProblemError(`${where} must be a link name or {link, zero, zero_variance}`);
    const o = c as Record<string, unknown>;
    for (const key of Object.keys(o)) if (key !== 'link' && key !== 'zero' && key !== 'zero_variance') throw new ProblemError(`${where}: unknown field "${key}" (expected link, zero, zero_variance)`);
    if (typeof o.link !== 'string') throw new ProblemError(`${where}: "link" must be a link name`);
    const zero = o.zero === undefined ? [] : strings(o.zero, `${where} (link "${o.link}"): "zero"`);
    for (const z of zero) if (!WRENCH_COMPONENTS.includes(z as never)) throw new ProblemError(`${where} (link "${o.link}"): unknown wrench component "${z}" (expected ${WRENCH_COMPONENTS.join(' ')})`);
    const spec: ContactSpec = { link: o.link, zero };
    if (o.zero_variance !== undefined) spec.zero_variance = positive(o.zero_variance, `${where} (link "${o.link}"): "zero_variance"`);
    return spec;
  });
  const seenLinks = new Set<string>();
  for (const c of contacts) {
    if (seenLinks.has(c.link)) throw new ProblemError(`${file}: link "${c.link}" is listed twice in "contacts"`);
    seenLinks.add(c.link);
  }
  const sensorsRaw = p.sensors ?? [];
  if (!Array.isArray(sensorsRaw)) throw new ProblemError(`${file}: "sensors" must be a list`);
  const names = new Set<string>();
  const sensors: SensorSpec[] = sensorsRaw.map((s: unknown, k: number) => {
    if (typeof s !== 'object' || s === null) throw new ProblemError(`${file}: sensors[${k}] must be an object`);
    const o = s as Record<string, unknown>;
    if (typeof o.name !== 'string' || o.name === '') throw new ProblemError(`${file}: sensors[${k}] needs a "name"`);
    const where = `${file}: sensor "${o.name}"`;
    if (names.has(o.name)) throw new ProblemError(`${where} is defined twice`);
    names.add(o.name);
    for (const key of Object.keys(o)) if (!SENSOR_FIELDS.includes(key)) throw new ProblemError(`${where}: unknown field "${key}" (expected ${SENSOR_FIELDS.join(', ')})`);
    if (!SENSOR_TYPES.includes(o.type as SensorType)) throw new ProblemError(`${where}: unknown type ${describeValue(o.type)} (expected ${SENSOR_TYPES.join(', ')})`);
    const type = o.type as SensorType;
    const variance = o.variance === undefined ? 1 : o.variance;
    if (typeof variance !== 'number' || !(variance > 0) || !Number.isFinite(variance)) throw new ProblemError(`${where}: "variance" must be a positive number`);
    const spec: SensorSpec = { name: o.name, type, origin: parseOrigin(o.origin, where), components: [], variance };
    if (o.range !== undefined) spec.range = parseRange(o.range, where);
    if (type === 'joint_acceleration' || type === 'joint_torque') {
      if (o.joint !== undefined && o.joints !== undefined) throw new ProblemError(`${where}: give "joint" or "joints", not both`);
      if (typeof o.joint === 'string') spec.joints = [o.joint];
      else if (o.joints === 'all' || o.joints === 'actuated') spec.joints = o.joints;
      else if (o.joints !== undefined) spec.joints = strings(o.joints, `${where}: "joints"`);
      else throw new ProblemError(`${where}: a ${type} sensor needs "joint" or "joints" ("all", "actuated" or a list)`);
      if (o.link !== undefined || o.origin !== undefined || o.components !== undefined || o.measure_direction !== undefined) throw new ProblemError(`${where}: a ${type} sensor takes no link, origin, components or measure_direction`);
    } else if (type === 'force_torque') {
      if (typeof o.joint !== 'string') throw new ProblemError(`${where}: a force_torque sensor needs "joint" (the joint it sits in)`);
      if (o.link !== undefined || o.joints !== undefined) throw new ProblemError(`${where}: a force_torque sensor takes "joint", not link/joints`);
      spec.joint = o.joint;
      if (o.measure_direction !== undefined) {
        if (o.measure_direction !== 'parent_to_child' && o.measure_direction !== 'child_to_parent') {
          throw new ProblemError(`${where}: "measure_direction" must be "parent_to_child" or "child_to_parent"`);
        }
        spec.measure_direction = o.measure_direction;
      }
    } else {
      if (typeof o.link !== 'string') throw new ProblemError(`${where}: a ${type} sensor needs "link"`);
      if (o.joint !== undefined || o.joints !== undefined) throw new ProblemError(`${where}: a ${type} sensor takes "link", not joint/joints`);
      if (o.measure_direction !== undefined) throw new ProblemError(`${where}: "measure_direction" is for force_torque sensors`);
      spec.link = o.link;
    }
    const all = componentsOf(type);
    if (all.length > 0) {
      spec.components = o.components === undefined ? [...all] : strings(o.components, `${where}: "components"`);
      if (spec.components.length === 0) throw new ProblemError(`${where}: "components" is empty`);
      for (const c of spec.components) if (!all.includes(c)) throw new ProblemError(`${where}: unknown component "${c}" for a ${type} sensor (expected ${all.join(' ')})`);
      if (new Set(spec.components).size !== spec.components.length) throw new ProblemError(`${where}: a component is listed twice`);
    }
    return spec;
  });
  let urdfSensors: boolean | string[] | undefined;
  if (p.urdf_sensors !== undefined) {
    urdfSensors = typeof p.urdf_sensors === 'boolean' ? p.urdf_sensors : strings(p.urdf_sensors, `${file}: "urdf_sensors"`);
  }
  const out: ProblemFile = { model: p.model, base: p.base, gravity: p.gravity as [number, number, number] | undefined, unactuated, contacts, sensors, urdf_sensors: urdfSensors };
  if (p.ros !== undefined) {
    try {
      out.ros = parseRosMapping(p.ros, file);
    } catch (e) {
      if (e instanceof RosMappingError) throw new ProblemError(e.message);
      throw e;
    }
  }
  if (p.differentiation !== undefined) out.differentiation = parseDifferentiation(p.differentiation, `${file}: "differentiation"`);
  if (p.unactuated_variance !== undefined) out.unactuated_variance = positive(p.unactuated_variance, `${file}: "unactuated_variance"`);
  const links = new Set(contacts.map((c) => c.link));
  const contactList = (x: unknown, where: string): string[] => {
    const l = strings(x, where);
    for (const c of l) if (!links.has(c)) throw new ProblemError(`${where}: "${c}" is not a contact of the problem (${[...links].join(', ') || 'none'})`);
    return l;
  };
  if (p.contact_schedule !== undefined) {
    if (!Array.isArray(p.contact_schedule) || p.contact_schedule.length === 0) throw new ProblemError(`${file}: "contact_schedule" must be a non-empty list of {t, contacts}`);
    let last = -Infinity;
    out.contact_schedule = p.contact_schedule.map((e: unknown, k: number) => {
      const where = `${file}: contact_schedule[${k}]`;
      const o = e as Record<string, unknown>;
      if (typeof o !== 'object' || o === null || typeof o.t !== 'number' || !Number.isFinite(o.t)) throw new ProblemError(`${where} must be {t (s), contacts}`);
      for (const key of Object.keys(o)) if (key !== 't' && key !== 'contacts') throw new ProblemError(`${where}: unknown field "${key}" (expected t, contacts)`);
      if (!(o.t > last)) throw new ProblemError(`${where}: t = ${o.t} must be later than the entry before`);
      last = o.t;
      return { t: o.t, contacts: contactList(o.contacts, `${where}: "contacts"`) };
    });
  }
  if (p.contact_detection !== undefined) {
    if (!Array.isArray(p.contact_detection)) throw new ProblemError(`${file}: "contact_detection" must be a list of {contact, sensor, threshold} or {contact, sensor, on, off, min_duration, component}`);
    const fields = ['contact', 'sensor', 'threshold', 'on', 'off', 'min_duration', 'component'];
    out.contact_detection = p.contact_detection.map((e: unknown, k: number) => {
      const where = `${file}: contact_detection[${k}]`;
      const o = e as Record<string, unknown>;
      if (typeof o !== 'object' || o === null) throw new ProblemError(`${where} must be {contact, sensor, threshold} or {contact, sensor, on, off, min_duration, component}`);
      for (const key of Object.keys(o)) if (!fields.includes(key)) throw new ProblemError(`${where}: unknown field "${key}" (expected ${fields.join(', ')})`);
      const contact = contactList([o.contact], `${where}: "contact"`)[0];
      const sensor = sensors.find((x) => x.name === o.sensor);
      if (!sensor || (sensor.type !== 'force_torque' && sensor.type !== 'external_wrench')) throw new ProblemError(`${where}: "sensor" must name a force_torque or external_wrench sensor of the problem (got ${describeValue(o.sensor)})`);
      const component = o.component ?? 'norm';
      if (!CONTACT_FORCE_COMPONENTS.includes(component as ContactForceComponent)) throw new ProblemError(`${where}: "component" must be ${CONTACT_FORCE_COMPONENTS.map((c) => `"${c}"`).join(', ')} (got ${describeValue(o.component)})`);
      const needs = component === 'norm' ? ['fx', 'fy', 'fz'] : ['fz'];
      if (!needs.every((c) => sensor.components.includes(c))) throw new ProblemError(`${where}: sensor "${sensor.name}" must measure ${component === 'norm' ? 'fx, fy and fz (or give "component": "fz")' : 'fz'}`);
      const d: ContactDetection = { contact, sensor: sensor.name };
      if (o.threshold !== undefined) {
        if (o.on !== undefined || o.off !== undefined) throw new ProblemError(`${where}: give "threshold", or "on" and "off" (hysteresis), not both`);
        d.threshold = positive(o.threshold, `${where}: "threshold"`);
      } else if (o.on !== undefined || o.off !== undefined) {
        if (o.on === undefined || o.off === undefined) throw new ProblemError(`${where}: give both "on" (make contact above) and "off" (break contact at or below), or "threshold" alone`);
        d.on = positive(o.on, `${where}: "on"`);
        if (typeof o.off !== 'number' || !(o.off >= 0) || !Number.isFinite(o.off)) throw new ProblemError(`${where}: "off" must be a number >= 0 (N)`);
        if (o.off > d.on) throw new ProblemError(`${where}: "off" (${o.off} N) must not exceed "on" (${d.on} N): a contact is made above "on" and broken at or below "off"`);
        d.off = o.off;
      } else throw new ProblemError(`${where}: needs "threshold" (N), or "on" and "off" (N, hysteresis)`);
      if (o.min_duration !== undefined) {
        if (typeof o.min_duration !== 'number' || !(o.min_duration >= 0) || !Number.isFinite(o.min_duration)) throw new ProblemError(`${where}: "min_duration" must be a duration >= 0 (s)`);
        d.min_duration = o.min_duration;
      }
      if (o.component !== undefined) d.component = component as ContactForceComponent;
      return d;
    });
  }
  if (p.priors !== undefined) {
    if (!Array.isArray(p.priors)) throw new ProblemError(`${file}: "priors" must be a list of {on, mean, variance}`);
    out.priors = p.priors.map((e: unknown, k: number) => {
      const where = `${file}: priors[${k}]`;
      const o = e as Record<string, unknown>;
      if (typeof o !== 'object' || o === null) throw new ProblemError(`${where} must be {on, mean, variance}`);
      for (const key of Object.keys(o)) if (!['on', 'mean', 'variance'].includes(key)) throw new ProblemError(`${where}: unknown field "${key}" (expected on, mean, variance)`);
      if (typeof o.on !== 'string' || !/^(torques|accelerations|contact_wrenches|torque:.+|acceleration:.+|contact:.+)$/.test(o.on)) {
        throw new ProblemError(`${where}: "on" must be "torques", "accelerations", "contact_wrenches", "torque:<joint>", "acceleration:<joint>" or "contact:<link>"`);
      }
      if (o.on.startsWith('contact:')) contactList([o.on.slice(8)], `${where}: "on"`);
      const mean = o.mean ?? 0;
      if (!(typeof mean === 'number' && Number.isFinite(mean)) && !(Array.isArray(mean) && mean.every((x) => typeof x === 'number' && Number.isFinite(x)))) throw new ProblemError(`${where}: "mean" must be a number or a list of numbers`);
      return { on: o.on, mean: mean as number | number[], variance: positive(o.variance, `${where}: "variance"`) };
    });
  }
  return out;
}

function positive(x: unknown, where: string): number {
  if (typeof x !== 'number' || !(x > 0) || !Number.isFinite(x)) throw new ProblemError(`${where} must be a positive number`);
  return x;
}
