/**
 * Sensor logs: one sample per NDJSON line or CSV row, parsed into model-ordered (q, q̇) and the
 * readings of each sensor. A malformed row is reported with its line number and skipped; the
 * valid rows are kept. No I/O here (log-reader.ts turns a stream of text into rows).
 *
 * NDJSON sample:
 *   {"t": 0.01,
 *    "q": {"<joint>": θ, …}, "v": {"<joint>": θ̇, …},
 *    "base": {"position": [x,y,z], "quaternion": [x,y,z,w], "linear_velocity": [3], "angular_velocity": [3]},
 *    "sensors": {"<sensor>": [values in component order] | {"<component>": value, …}},
 *    "truth": {…}}                                     (optional, ignored by the estimator)
 * base velocities are in the base frame (Pinocchio's free-flyer layout); a multi-DoF joint takes a
 * list. A gyroscope on the base link supplies the base angular velocity when the sample has none.
 * What the problem does not use (other fields, joints the model does not have in q or v, other keys
 * of base, other sensors) is listed in Sample.ignored (`q.<joint>`, `v.<joint>`, `base.<key>`), or
 * refused by a strict schema.
 * CSV: a header with t, q.<joint>, v.<joint>, base.px … base.pz, base.qx … base.qw, base.vx …
 * base.vz, base.wx … base.wz and <sensor>.<component> columns (joint sensors: <sensor>.<joint>);
 * cells are decimal numbers (quoted or not): hexadecimal, `1_000`, `Infinity`, `NaN` are refused.
 */
import { clipMessage } from '../model/warnings.ts';
import type { Model } from '../model/model.ts';
import type { EstimationSystem } from '../estimation/setup.ts';
import { rotFromRpy } from '../spatial/vec3.ts';
import { describeValue, jsonTextError, quoteText } from '../text/json-text.ts';
import { closestName } from '../text/names.ts';
import { BASE_CSV, type LogError, type Sample } from '../estimation/sample.ts';

export { BASE_CSV, type LogError, type Sample } from '../estimation/sample.ts';

/**
 * How rows are read: `strict` refuses channels the problem does not use (default: ignored and
 * listed in Sample.ignored); a quaternion whose norm is off 1 by at most `quaternionTolerance`
 * (default DEFAULT_QUATERNION_TOLERANCE) is renormalised, beyond it the row is refused.
 */
export interface LogSchemaOptions {
  strict?: boolean;
  quaternionTolerance?: number;
  /**
   * velocities may be missing: a joint velocity the row does not carry is NaN, for the stage that
   * derives it from the positions over time (src/estimation/derive.ts) to fill in
   */
  derive?: boolean;
}

/** Default bound on |‖quaternion‖ − 1| of a log row (a quaternion rounded to 4 decimals is within 2e-4). */
export const DEFAULT_QUATERNION_TOLERANCE = 1e-3;

/** A row's named active contacts, checked against the problem's (`where`: how the row names them). */
function checkContacts(schema: LogSchema, contacts: readonly string[], where: string): void {
  for (const c of contacts) if (!schema.contactLinks.has(c)) throw new RowError(`${where}: "${c}" is not a contact of the problem (${[...schema.contactLinks].join(', ') || 'none'})`);
}

/**
 * The rotation taking a vector in a sensor's axes to its body's: the sensor frame is `rpy` (URDF
 * convention, R maps sensor to link coordinates) in a link whose frame is ˡX_body = (E_l, p) in
 * its body (E_l maps body to link coordinates), so v_body = E_lᵀ R v_sensor. Null for the identity.
 */
function sensorToBody(Xl: Float64Array, rpy: readonly number[]): Float64Array | null {
  const R = rotFromRpy(new Float64Array(9), rpy[0], rpy[1], rpy[2]);
  const E = new Float64Array(9);
  let identity = true;
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 3; j++) {
      let a = 0;
      for (let k = 0; k < 3; k++) a += Xl[3 * k + i] * R[3 * k + j];
      E[3 * i + j] = a;
      if (a !== (i === j ? 1 : 0)) identity = false;
    }
  }
  return identity ? null : E;
}

/** v[o … o+3) = E v[o … o+3) (E row-major 3×3; null: unchanged) */
export function rotateInPlace(E: Float64Array | null, v: Float64Array, o: number): void {
  if (E === null) return;
  const x = v[o], y = v[o + 1], z = v[o + 2];
  v[o] = E[0] * x + E[1] * y + E[2] * z;
  v[o + 1] = E[3] * x + E[4] * y + E[5] * z;
  v[o + 2] = E[6] * x + E[7] * y + E[8] * z;
}

/** What a log row must provide for an estimation system: joints and sensor inputs. */
export class LogSchema {
  readonly model: Model;
  /** sensors with readings: name → input component names (the part after "<sensor>.") */
  readonly sensors: Map<string, string[]>;
  /**
   * the gyroscope on the base body, if any (fallback for the base angular velocity): its name,
   * components, and `E` (row-major 3×3) taking its readings to the base frame, ω_base = E ω_sensor
   * (null: the sensor's axes are the base's)
   */
  readonly baseGyro?: { name: string; components: string[]; E: Float64Array | null };
  /** velocities may be missing (LogSchemaOptions.derive) */
  readonly derive: boolean;

  /** refuse channels the problem does not use */
  readonly strict: boolean;
  /** bound on |‖quaternion‖ − 1| before renormalisation */
  readonly quaternionTolerance: number;
  /** contact links of the problem (a row's "contacts" must name some of them) */
  readonly contactLinks: Set<string>;
  /** the joints a row names (every moving joint but a floating base), in model order */
  readonly joints: { name: string; iq: number; iv: number; nq: number; nv: number; type: string }[];
  /** their names */
  readonly jointNames: Set<string>;

  constructor(readonly es: EstimationSystem, opts: LogSchemaOptions = {}) {
    this.model = es.model;
    this.joints = this.model.movingJoints().filter((j) => j.type !== 'floating');
    this.jointNames = new Set(this.joints.map((j) => j.name));
    this.strict = opts.strict ?? false;
    this.quaternionTolerance = opts.quaternionTolerance ?? DEFAULT_QUATERNION_TOLERANCE;
    this.derive = opts.derive ?? false;
    this.contactLinks = new Set(es.contacts.map((c) => c.link));
    this.sensors = new Map();
    for (const s of es.sensors) {
      const comps = s.inputs.map((n) => n.slice(s.spec.name.length + 1));
      if (s.block >= 0) this.sensors.set(s.spec.name, comps);
      else if (this.model.floatingBase && s.spec.link !== undefined && this.model.frame(s.spec.link).body === 0) {
        this.baseGyro = { name: s.spec.name, components: comps, E: sensorToBody(this.model.frame(s.spec.link).X, s.spec.origin.rpy) };
      }
    }
  }

  /** CSV header for this schema (joints, base, sensors) */
  csvHeader(): string[] {
    const m = this.model;
    const h = ['t'];
    for (const j of m.movingJoints()) {
      if (j.type === 'floating') continue;
      if (j.nq === 1) { h.push(`q.${j.name}`); } else for (let k = 0; k < j.nq; k++) h.push(`q.${j.name}[${k}]`);
    }
    for (const j of m.movingJoints()) {
      if (j.type === 'floating') continue;
      if (j.nv === 1) { h.push(`v.${j.name}`); } else for (let k = 0; k < j.nv; k++) h.push(`v.${j.name}[${k}]`);
    }
    if (m.floatingBase) for (const b of BASE_CSV) h.push(`base.${b}`);
    for (const [name, comps] of this.sensors) for (const c of comps) h.push(`${name}.${c}`);
    return h;
  }
}

class RowError extends Error {
  constructor(message: string) {
    // no stack trace: the error becomes the row's message, and a log of many bad rows paid ~8 µs a row for it
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(clipMessage(message));
    Error.stackTraceLimit = limit;
  }
}

const ZERO3: readonly number[] = [0, 0, 0];

/** A sensor's three readings given as a list or as an object of components (a gyroscope's wx wy wz). */
function readingOf(r: unknown, comps: readonly string[], what: string): number[] {
  if (typeof r === 'object' && r !== null && !Array.isArray(r)) {
    const o = r as Record<string, unknown>;
    return comps.map((c) => finite(o[c], `${what} component ${c}`));
  }
  return vec(r, comps.length, what);
}

/** the fields of an NDJSON row; others are channels the problem does not use */
const ROW_FIELDS = new Set(['t', 'q', 'v', 'base', 'sensors', 'truth', 'contacts']);

const finite = (x: unknown, what: string): number => {
  if (typeof x !== 'number' || !Number.isFinite(x)) throw new RowError(`${what} is ${describeValue(x)}: expected a finite number`);
  return x;
};

/** a decimal number as text: digits, optional fraction and exponent (what JSON and C's strtod agree on) */
const DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/** The number in a CSV cell, or a RowError naming the column. */
function decimal(cell: string, column: string): number {
  const s = cell.trim();
  if (s === '') throw new RowError(`column "${column}" is empty: expected a decimal number`);
  if (!DECIMAL.test(s)) throw new RowError(`column "${column}" is ${quoteText(s)}: not a decimal number`);
  const x = Number(s);
  if (!Number.isFinite(x)) throw new RowError(`column "${column}" is ${quoteText(s)}: out of the range of double precision`);
  return x;
}

function vec(x: unknown, n: number, what: string): number[] {
  if (!Array.isArray(x) || x.length !== n) throw new RowError(`${what} must be a list of ${n} numbers${Array.isArray(x) ? ` (got ${x.length})` : ''}`);
  for (let k = 0; k < n; k++) { const e = x[k]; if (!(typeof e === 'number' && e - e === 0)) finite(e, `${what}[${k}]`); }
  return x as number[];
}

/**
 * Fill q, v of the joints (not the base) from name → value maps; a joint the model does not have is
 * a channel the problem does not use, added to `ignored` (as `q.<joint>`, `v.<joint>`).
 */
function jointsFrom(schema: LogSchema, q: Float64Array, v: Float64Array, qm: unknown, vm: unknown, ignored: string[]): void {
  if (typeof qm !== 'object' || qm === null) throw new RowError('"q" must be an object {joint: value}');
  if (vm === undefined && schema.derive) vm = {};
  else if (typeof vm !== 'object' || vm === null) throw new RowError(schema.derive || vm !== undefined ? '"v" must be an object {joint: value}' : '"v" (the joint velocities) is missing: give "t" and the velocities are derived from the positions over time');
  const qo = qm as Record<string, unknown>, vo = vm as Record<string, unknown>;
  // the messages are built only on an error: this runs once per sample
  for (const j of schema.joints) {
    const qx = qo[j.name], vx = vo[j.name];
    if (j.nq === 1 && typeof qx === 'number' && qx - qx === 0) q[j.iq] = qx;
    else {
      const qv = j.nq === 1 ? [finite(qx, `q of joint "${j.name}"`)] : vec(qx, j.nq, `q of joint "${j.name}"`);
      for (let k = 0; k < j.nq; k++) q[j.iq + k] = qv[k];
    }
    if (j.nv === 1 && typeof vx === 'number' && vx - vx === 0) v[j.iv] = vx;
    else if (vx === undefined && schema.derive) for (let k = 0; k < j.nv; k++) v[j.iv + k] = NaN; // derived later, or refused
    else {
      const vv = j.nv === 1 ? [finite(vx, `v of joint "${j.name}"`)] : vec(vx, j.nv, `v of joint "${j.name}"`);
      for (let k = 0; k < j.nv; k++) v[j.iv + k] = vv[k];
    }
  }
  // every joint was found: a map with as many keys names no other
  const names = schema.jointNames;
  let nqKeys = 0, nvKeys = 0;
  for (const _ in qo) nqKeys++;
  for (const _ in vo) nvKeys++;
  if (nqKeys !== names.size) for (const k of Object.keys(qo)) if (!names.has(k)) ignored.push(`q.${k}`);
  if (nvKeys !== names.size && nvKeys > 0) for (const k of Object.keys(vo)) if (!names.has(k)) ignored.push(`v.${k}`);
}

/** the keys of an NDJSON row's "base"; others are channels the problem does not use */
const isBaseField = (k: string): boolean => k === 'position' || k === 'quaternion' || k === 'linear_velocity' || k === 'angular_velocity';

/** Renormalise the quaternion at q[o..o+3]; returns |‖q‖ − 1|, or throws beyond the tolerance. */
function checkQuaternion(q: Float64Array, o: number, what: string, tol: number): number {
  const n = Math.hypot(q[o], q[o + 1], q[o + 2], q[o + 3]);
  const dev = Math.abs(n - 1);
  if (!(dev <= tol)) throw new RowError(`${what} has norm ${n}, off 1 by ${dev.toExponential(2)}, beyond the bound ${tol} (expected a unit quaternion)`);
  for (let k = 0; k < 4; k++) q[o + k] /= n;
  return dev;
}

/** Parse one NDJSON line. */
export function parseNdjsonLine(schema: LogSchema, text: string, line: number): Sample | LogError {
  try {
    let o: Record<string, unknown>;
    // JSON.parse's SyntaxError without a stack trace (its message is all that is read): a log of many
    // lines that are not JSON paid ~9 µs a line for it
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      o = JSON.parse(text);
    } catch (e) {
      Error.stackTraceLimit = limit;
      const j = jsonTextError('', text, (e as Error).message);
      throw new RowError(`not valid JSON at column ${j.column}: ${j.reason}`);
    }
    Error.stackTraceLimit = limit;
    if (typeof o !== 'object' || o === null || Array.isArray(o)) throw new RowError('expected a JSON object');
    const m = schema.model;
    const q = new Float64Array(m.nq), v = new Float64Array(m.nv);
    const untimed = o.t === undefined;
    const t = untimed ? line : finite(o.t, '"t"');
    const ignored: string[] = [];
    jointsFrom(schema, q, v, o.q, o.v, ignored);
    const readings = new Map<string, Float64Array>();
    const sensors = (o.sensors ?? {}) as Record<string, unknown>;
    if (typeof sensors !== 'object' || sensors === null) throw new RowError('"sensors" must be an object');
    for (const k in o) if (!ROW_FIELDS.has(k)) ignored.push(k);
    if (m.floatingBase && typeof o.base === 'object' && o.base !== null) for (const k in o.base) if (!isBaseField(k)) ignored.push(`base.${k}`);
    for (const k in sensors) {
      if (!schema.sensors.has(k) && k !== schema.baseGyro?.name) ignored.push(`sensors.${k}`);
    }
    if (schema.strict && ignored.length) throw new RowError(`unknown ${ignored.length > 1 ? 'channels' : 'channel'} ${ignored.map((x) => `"${x.replace(/^sensors\./, '')}"`).join(', ')} (--strict)`);
    let contacts: string[] | undefined;
    if (o.contacts !== undefined) {
      if (!Array.isArray(o.contacts) || !o.contacts.every((c) => typeof c === 'string')) throw new RowError('"contacts" must be a list of contact links');
      checkContacts(schema, o.contacts as string[], '"contacts"');
      contacts = o.contacts as string[];
    }
    for (const [name, comps] of schema.sensors) {
      const r = sensors[name];
      if (r === undefined || r === null) continue; // a reading the row lacks: the session estimates from the others
      let vals: number[];
      if (Array.isArray(r)) {
        // a list of readings: copied as it is checked (this runs once per sensor and sample)
        const n = comps.length, a = new Float64Array(n);
        if (r.length !== n) vec(r, n, `sensor "${name}"`);
        for (let k = 0; k < n; k++) { const e = r[k]; if (typeof e === 'number' && e - e === 0) a[k] = e; else vec(r, n, `sensor "${name}"`); }
        readings.set(name, a);
        continue;
      }
      if (typeof r === 'object' && r !== null) {
        const ro = r as Record<string, unknown>;
        for (const k of Object.keys(ro)) if (!comps.includes(k)) throw new RowError(`sensor "${name}": unknown component "${k}" (expected ${comps.join(' ')})`);
        vals = comps.map((c) => { const x = ro[c]; return typeof x === 'number' && x - x === 0 ? x : finite(x, `sensor "${name}" component ${c}`); });
      } else throw new RowError(`sensor "${name}" must be a list or an object of readings`);
      const a = new Float64Array(vals.length);
      for (let k = 0; k < vals.length; k++) a[k] = vals[k];
      readings.set(name, a);
    }
    let qdev = 0, noBaseVelocity = false;
    if (m.floatingBase) {
      const b = o.base as Record<string, unknown> | undefined;
      if (typeof b !== 'object' || b === null) throw new RowError('"base" (quaternion; position, linear_velocity, angular_velocity optional) is missing');
      // the base's position and linear velocity change no joint torque or contact wrench: zero when the row has none
      const p = b.position === undefined ? ZERO3 : vec(b.position, 3, 'base.position'), qu = vec(b.quaternion, 4, 'base.quaternion');
      const lv = b.linear_velocity === undefined ? ZERO3 : vec(b.linear_velocity, 3, 'base.linear_velocity');
      let av: number[], gyro = false;
      if (b.angular_velocity !== undefined) av = vec(b.angular_velocity, 3, 'base.angular_velocity');
      else if (schema.baseGyro) { av = readingOf(sensors[schema.baseGyro.name], schema.baseGyro.components, `gyroscope "${schema.baseGyro.name}" (no base.angular_velocity)`); gyro = true; }
      else throw new RowError('base.angular_velocity is missing (and no gyroscope on the base link)');
      for (let k = 0; k < 3; k++) { q[k] = p[k]; v[k] = lv[k]; v[3 + k] = av[k]; }
      if (gyro) rotateInPlace(schema.baseGyro!.E, v, 3);
      if (b.linear_velocity === undefined) noBaseVelocity = true;
      for (let k = 0; k < 4; k++) q[3 + k] = qu[k];
      qdev = checkQuaternion(q, 3, 'base.quaternion', schema.quaternionTolerance);
    }
    for (const j of schema.joints) if (j.type === 'spherical') qdev = Math.max(qdev, checkQuaternion(q, j.iq, `q of joint "${j.name}"`, schema.quaternionTolerance));
    const sample: Sample = { line, t, q, v, readings, truth: o.truth, quaternionDeviation: qdev };
    if (untimed) sample.untimed = true;
    if (noBaseVelocity) sample.noBaseVelocity = true;
    if (ignored.length) sample.ignored = ignored.map((x) => x.replace(/^sensors\./, ''));
    if (contacts) sample.contacts = contacts;
    return sample;
  } catch (e) {
    if (e instanceof RowError) return { line, message: e.message };
    throw e;
  }
}

/** How a CSV reader fills a sample from a record's cells (see CsvRows.plan). */
interface CsvPlan {
  q: string[]; cq: number[]; iq: number[];
  v: string[]; cv: number[]; iv: number[];
  base: string[]; cbase: number[]; ibase: number[];
  sensors: { name: string; cols: string[]; at: number[] }[];
  t: number;
  /** the cell of the active contacts (-1: no `contacts` column) */
  contacts: number;
  /** the base's angular velocity is read from the gyroscope on it (rotated into the base frame) */
  gyroBase: boolean;
  /** truth columns: joint torques (name, cell) and contact wrenches (link, cells of tx … fz, −1 where absent) */
  truthTau: { name: string; at: number }[];
  truthContact: { link: string; at: number[] }[];
}

/** A CSV row's truth (CsvPlan.truthTau, truthContact): empty cells are values the row does not have. */
function csvTruth(plan: CsvPlan, cells: readonly string[]): Record<string, unknown> {
  const tau: Record<string, number> = {};
  for (const { name, at } of plan.truthTau) if (cells[at]?.trim()) tau[name] = decimal(cells[at], `truth.tau.${name}`);
  const contact_wrenches: Record<string, { torque: number[]; force: number[] }> = {};
  for (const { link, at } of plan.truthContact) {
    if (at.some((k) => k < 0 || !cells[k]?.trim())) continue;
    const w = at.map((k, c) => decimal(cells[k], `truth.contact.${link}.${WRENCH[c]}`));
    contact_wrenches[link] = { torque: w.slice(0, 3), force: w.slice(3) };
  }
  return { tau, contact_wrenches };
}

const WRENCH = ['tx', 'ty', 'tz', 'fx', 'fy', 'fz'] as const;

/** A CSV reader bound to its header line. */
export class CsvRows {
  private readonly col = new Map<string, number>();
  /** header columns the problem does not use (ignored unless the schema is strict) */
  readonly ignored: string[] = [];

  constructor(readonly schema: LogSchema, header: readonly string[], readonly headerLine = 1) {
    const names = header.map((s) => s.trim());
    names.forEach((n, k) => {
      if (this.col.has(n)) throw new RangeError(`CSV header (line ${headerLine}): column "${n}" appears twice`);
      this.col.set(n, k);
    });
    const sensorCols = new Set<string>();
    for (const [name, comps] of schema.sensors) for (const c of comps) sensorCols.add(`${name}.${c}`);
    const missing = schema.csvHeader().filter((h) => h !== 't' && !this.col.has(h) && !sensorCols.has(h));
    const gyro = schema.baseGyro;
    // optional: the base's angular velocity given a gyroscope on it, its position and linear velocity
    // (zero when absent: they change no torque or wrench), joint velocities that are derived
    const missingNeeded = missing.filter((h) => !(gyro && h.startsWith('base.w')) && !/^base\.[pv][xyz]$/.test(h) && !(schema.derive && h.startsWith('v.')));
    if (missingNeeded.length) {
      // a column of the header that the problem does not know, and whose name is close to a missing one, is named
      const expected = new Set(schema.csvHeader());
      const others = names.filter((n) => !expected.has(n));
      const hints: string[] = [];
      for (const h of missingNeeded) {
        const near = closestName(h, others);
        if (near !== undefined && hints.length < 4) hints.push(`the header has "${near}" — did you mean "${h}"?`);
      }
      throw new RangeError(`CSV header (line ${headerLine}): missing column${missingNeeded.length > 1 ? 's' : ''} ${missingNeeded.slice(0, 8).join(', ')}${missingNeeded.length > 8 ? ', …' : ''}${hints.length ? ` (${hints.join('; ')})` : ''}`);
    }
    const known = new Set(schema.csvHeader());
    for (const n of names) {
      if (!known.has(n) && n !== 'contacts' && !n.startsWith('truth.') && !(gyro && n.startsWith(`${gyro.name}.`))) {
        if (schema.strict) throw new RangeError(`CSV header (line ${headerLine}): unknown column "${n}" (--strict)`);
        this.ignored.push(n);
      }
    }
  }

  /**
   * Where each value comes from, worked out once: per value of q and v its column's name and cell
   * index (-1: no such column) and the index it fills; per sensor its columns' names and indices.
   */
  private plan(): CsvPlan {
    if (this.planned) return this.planned;
    const at = (name: string) => this.col.get(name) ?? -1;
    const q: string[] = [], iq: number[] = [], v: string[] = [], iv: number[] = [];
    for (const j of this.schema.joints) {
      for (let k = 0; k < j.nq; k++) { q.push(j.nq === 1 ? `q.${j.name}` : `q.${j.name}[${k}]`); iq.push(j.iq + k); }
      for (let k = 0; k < j.nv; k++) { v.push(j.nv === 1 ? `v.${j.name}` : `v.${j.name}[${k}]`); iv.push(j.iv + k); }
    }
    // the base: position and quaternion into q[0..7), linear velocity into v[0..3), angular velocity
    // into v[3..6) from base.w* or else the gyroscope on the base link
    const base: string[] = [], ibase: number[] = [];
    let gyroBase = false;
    if (this.schema.model.floatingBase) {
      const gyro = this.schema.baseGyro;
      for (let k = 0; k < 7; k++) { base.push(`base.${BASE_CSV[k]}`); ibase.push(k); }
      for (let k = 0; k < 3; k++) { base.push(`base.${BASE_CSV[7 + k]}`); ibase.push(this.schema.model.nq + k); }
      gyroBase = gyro !== undefined && !this.col.has(`base.${BASE_CSV[10]}`);
      for (let k = 0; k < 3; k++) { base.push(!gyroBase ? `base.${BASE_CSV[10 + k]}` : `${gyro!.name}.${gyro!.components[k]}`); ibase.push(this.schema.model.nq + 3 + k); }
    }
    const sensors = [...this.schema.sensors].map(([name, comps]) => {
      const cols = comps.map((c) => `${name}.${c}`);
      return { name, cols, at: cols.map(at) };
    });
    this.planned = { q, cq: q.map(at), iq, v, cv: v.map(at), iv, base, cbase: base.map(at), ibase, sensors, t: at('t'), contacts: at('contacts'), gyroBase, truthTau: [], truthContact: [] };
    // truth columns, named as the estimates' columns: truth.tau.<joint>, truth.contact.<link>.<component>
    const contacts = new Map<string, number[]>();
    for (const [name, k] of this.col) {
      if (name.startsWith('truth.tau.')) this.planned.truthTau.push({ name: name.slice(10), at: k });
      const m = /^truth\.contact\.(.+)\.(tx|ty|tz|fx|fy|fz)$/.exec(name);
      if (m) {
        if (!contacts.has(m[1])) contacts.set(m[1], [-1, -1, -1, -1, -1, -1]);
        contacts.get(m[1])![['tx', 'ty', 'tz', 'fx', 'fy', 'fz'].indexOf(m[2])] = k;
      }
    }
    for (const [link, cells] of contacts) this.planned.truthContact.push({ link, at: cells });
    return this.planned;
  }
  private planned?: CsvPlan;

  /** Parse one record (its cells, as the CSV parser gives them; `line`: its line number): a Sample, or a LogError saying what is wrong. */
  parse(cells: readonly string[], line: number): Sample | LogError {
    try {
      // a cell by its index in the header (-1: the column is missing); the messages are built only on an error
      const get = (k: number, name: string): number => {
        if (k < 0) throw new RowError(`column "${name}" is missing`);
        if (k >= cells.length) throw new RowError(`the row has ${cells.length} cells, column "${name}" is cell ${k + 1}`);
        return decimal(cells[k], name);
      };
      if (cells.length !== this.col.size) throw new RowError(`the row has ${cells.length} cells, the header ${this.col.size}`);
      const m = this.schema.model;
      const q = new Float64Array(m.nq), v = new Float64Array(m.nv);
      let qdev = 0;
      const plan = this.plan();
      for (let k = 0; k < plan.q.length; k++) q[plan.iq[k]] = get(plan.cq[k], plan.q[k]);
      const derive = this.schema.derive;
      for (let k = 0; k < plan.v.length; k++) {
        const c = plan.cv[k];
        // a velocity the log does not carry (no column, an empty cell): NaN, derived later or refused
        v[plan.iv[k]] = derive && (c < 0 || cells[c]?.trim() === '') ? NaN : get(c, plan.v[k]);
      }
      let noBaseVelocity = false;
      if (m.floatingBase) {
        for (let k = 0; k < plan.base.length; k++) {
          const c = plan.cbase[k], i = plan.ibase[k];
          // no position or linear velocity of the base: zero (Galilean invariance; see Sample.noBaseVelocity)
          const optional = k < 3 || (k >= 7 && k < 10);
          const x = c < 0 && optional ? 0 : get(c, plan.base[k]);
          if (c < 0 && k >= 7 && k < 10) noBaseVelocity = true;
          if (i < m.nq) q[i] = x; else v[i - m.nq] = x;
        }
        if (plan.gyroBase) rotateInPlace(this.schema.baseGyro!.E, v, 3);
        qdev = checkQuaternion(q, 3, 'base quaternion (base.qx … base.qw)', this.schema.quaternionTolerance);
      }
      for (const j of this.schema.joints) if (j.type === 'spherical') qdev = Math.max(qdev, checkQuaternion(q, j.iq, `q of joint "${j.name}"`, this.schema.quaternionTolerance));
      const readings = new Map<string, Float64Array>();
      for (const { name, cols, at } of plan.sensors) {
        // a sensor without columns, or with an empty cell, is a reading the row lacks
        let lacking = false;
        for (let k = 0; k < at.length; k++) if (at[k] < 0 || cells[at[k]]?.trim() === '') { lacking = true; break; }
        if (lacking) continue;
        const r = new Float64Array(cols.length);
        for (let k = 0; k < cols.length; k++) r[k] = get(at[k], cols[k]);
        readings.set(name, r);
      }
      const t = plan.t >= 0 ? get(plan.t, 't') : line;
      const sample: Sample = { line, t, q, v, readings, quaternionDeviation: qdev };
      if (plan.t < 0) sample.untimed = true;
      if (plan.truthTau.length || plan.truthContact.length) sample.truth = csvTruth(plan, cells);
      if (noBaseVelocity) sample.noBaseVelocity = true;
      // the active contacts, as the estimates' "mode" column writes them (l_sole+r_sole, none); an empty cell names none
      const named = plan.contacts < 0 ? '' : cells[plan.contacts].trim();
      if (named !== '') {
        const contacts = named === 'none' ? [] : named.split('+').map((c) => c.trim());
        checkContacts(this.schema, contacts, 'column "contacts"');
        sample.contacts = contacts;
      }
      return sample;
    } catch (e) {
      if (e instanceof RowError) return { line, message: e.message };
      throw e;
    }
  }
}
