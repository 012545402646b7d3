/**
 * Synthetic samples (src/estimation/synth.ts) written as the logs `estimate` reads (log.ts,
 * mcap-log.ts), with their truth. No I/O: text rows and MCAP bytes.
 *
 * NDJSON row:  {"t", "q": {joint: x}, "v": {joint: ẋ}, "base": {"position", "quaternion",
 *   "linear_velocity", "angular_velocity"}, "sensors": {sensor: [readings]}, "contacts": [link],
 *   "truth": {"contacts": [link], "tau": {joint: τ}, "contact_wrenches": {link: {"torque", "force"}}}}
 * - `positionsOnly`: what a robot records: t, q, the base's orientation, the sensors' readings; no
 *   joint velocities, no joint_acceleration readings, no base position or velocity (estimate derives
 *   what it needs over time, src/estimation/derive.ts);
 * - the base's angular velocity is written only when no gyroscope on the base link gives it;
 *   gyroscopes elsewhere are left out (they add no equation); a multi-DoF joint takes a list;
 * - "contacts" (the row's active contacts, which `estimate` then uses) with `rowContacts`; the truth
 *   names them with `truthContacts`. Contact wrenches are in the contact link frame, torque first.
 * CSV: the same as columns: t, q.<joint>, v.<joint>, base.px … base.pz, base.qx … base.qw,
 * base.vx … base.vz, base.wx … base.wz, <sensor>.<component>, contacts, truth.tau.<joint> and
 * truth.contact.<link>.<tx … fz> (no truth column for a multi-DoF joint).
 * MCAP (ROS 2): the topics of a `ros` mapping (the problem's, or {@link defaultRosSection}'s).
 */
import { LogSchema, BASE_CSV } from './log.ts';
import { MemoryWritable, RosMcapWriter, rosTime, secondsToNs, topicToken, type RosMessageType } from './mcap-estimates.ts';
import { parseRosMapping, rosJson, type RosMapping } from '../estimation/ros-mapping.ts';
import type { EstimationSystem } from '../estimation/setup.ts';
import type { SynthSample } from '../estimation/synth.ts';
import { WRENCH_COMPONENTS } from '../estimation/problem.ts';

/** What a row carries (see the file header). */
export interface LogRowOptions {
  /** what a robot records: no velocities, no joint accelerations, no base position */
  positionsOnly?: boolean;
  /** applied to every number written (e.g. to 12 significant digits); default: as computed */
  round?: (x: number) => number;
  /** the row names its active contacts ("contacts"): estimate uses them */
  rowContacts?: boolean;
  /** the truth names the active contacts */
  truthContacts?: boolean;
}

/** A sample as a row needs it: a {@link SynthSample}, or any sample with these fields. */
export type LogRowSample = Pick<SynthSample, 't' | 'q' | 'v' | 'contacts' | 'wrenches'> & { truth: { tau: Float64Array }; readings: ReadonlyMap<string, ArrayLike<number>> };

/** The rows of a log of one estimation system: NDJSON objects and lines, CSV header and lines. */
export class LogRowWriter {
  private readonly joints: { name: string; iq: number; iv: number; nq: number; nv: number }[];
  /** the sensors written, in the problem's order: name and CSV component names */
  private readonly sensors: { name: string; comps: string[] }[];
  /** the base's angular velocity is written (no gyroscope on the base gives it) */
  private readonly baseOmega: boolean;
  private readonly round: (x: number) => number;

  constructor(readonly es: EstimationSystem, readonly opts: LogRowOptions = {}) {
    const schema = new LogSchema(es);
    this.joints = schema.joints;
    this.baseOmega = es.model.floatingBase && schema.baseGyro === undefined;
    this.sensors = es.sensors
      .filter((s) => (schema.sensors.has(s.spec.name) || s.spec.name === schema.baseGyro?.name) && !(opts.positionsOnly && s.spec.type === 'joint_acceleration'))
      .map((s) => ({ name: s.spec.name, comps: schema.sensors.get(s.spec.name) ?? schema.baseGyro!.components }));
    this.round = opts.round ?? ((x) => x);
  }

  /** The NDJSON object of a sample (JSON.stringify it, or use {@link LogRowWriter.ndjson}). */
  object(s: LogRowSample): Record<string, unknown> {
    const r = this.round, es = this.es, model = es.model, o = this.opts;
    const named = (x: Float64Array, at: 'iq' | 'iv', n: 'nq' | 'nv') =>
      Object.fromEntries(this.joints.map((j) => [j.name, j[n] === 1 ? r(x[j[at]]) : Array.from(x.subarray(j[at], j[at] + j[n]), r)]));
    const row: Record<string, unknown> = { t: r(s.t), q: named(s.q, 'iq', 'nq') };
    if (!o.positionsOnly) row.v = named(s.v, 'iv', 'nv');
    if (model.floatingBase) {
      const b: Record<string, number[]> = {};
      if (!o.positionsOnly) b.position = [0, 1, 2].map((k) => r(s.q[k]));
      b.quaternion = [3, 4, 5, 6].map((k) => r(s.q[k]));
      if (!o.positionsOnly) b.linear_velocity = [0, 1, 2].map((k) => r(s.v[k]));
      if (this.baseOmega) b.angular_velocity = [3, 4, 5].map((k) => r(s.v[k]));
      row.base = b;
    }
    // a sensor without readings in the sample is left out of the row (as a log row lacking a reading)
    row.sensors = Object.fromEntries(this.sensors.filter(({ name }) => s.readings.has(name)).map(({ name }) => [name, Array.from(s.readings.get(name)!, r)]));
    if (o.rowContacts) row.contacts = [...s.contacts];
    const truth: Record<string, unknown> = {};
    if (o.truthContacts) truth.contacts = [...s.contacts];
    truth.tau = named(s.truth.tau, 'iv', 'nv');
    truth.contact_wrenches = Object.fromEntries(es.contacts.map((c, k) => {
      const w = s.wrenches[k];
      return [c.link, { torque: [w[0], w[1], w[2]].map(r), force: [w[3], w[4], w[5]].map(r) }];
    }));
    row.truth = truth;
    return row;
  }

  /** One NDJSON line (without its newline). */
  ndjson(s: LogRowSample): string {
    return JSON.stringify(this.object(s));
  }

  /** The CSV header line (without its newline). */
  csvHeader(): string {
    const h = ['t'];
    const cols = (prefix: string, n: 'nq' | 'nv') => { for (const j of this.joints) if (j[n] === 1) h.push(`${prefix}.${j.name}`); else for (let k = 0; k < j[n]; k++) h.push(`${prefix}.${j.name}[${k}]`); };
    cols('q', 'nq');
    if (!this.opts.positionsOnly) cols('v', 'nv');
    for (const b of this.baseColumns()) h.push(`base.${BASE_CSV[b]}`);
    for (const s of this.sensors) for (const c of s.comps) h.push(`${s.name}.${c}`);
    if (this.opts.rowContacts) h.push('contacts');
    for (const j of this.joints) if (j.nv === 1) h.push(`truth.tau.${j.name}`);
    for (const c of this.es.contacts) for (const w of WRENCH_COMPONENTS) h.push(`truth.contact.${c.link}.${w}`);
    return h.join(',');
  }

  /** the BASE_CSV columns written: position and quaternion q[0..7), then velocities v[0..6) */
  private baseColumns(): number[] {
    if (!this.es.model.floatingBase) return [];
    const out = this.opts.positionsOnly ? [3, 4, 5, 6] : [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
    if (this.baseOmega) out.push(10, 11, 12);
    return out;
  }

  /** One CSV line (without its newline), in the columns of {@link LogRowWriter.csvHeader}. */
  csv(s: LogRowSample): string {
    const r = this.round;
    const cells: (number | string)[] = [r(s.t)];
    for (const j of this.joints) for (let k = 0; k < j.nq; k++) cells.push(r(s.q[j.iq + k]));
    if (!this.opts.positionsOnly) for (const j of this.joints) for (let k = 0; k < j.nv; k++) cells.push(r(s.v[j.iv + k]));
    for (const b of this.baseColumns()) cells.push(r(b < 7 ? s.q[b] : s.v[b - 7]));
    for (const x of this.sensors) {
      const y = s.readings.get(x.name);
      if (y) for (let k = 0; k < y.length; k++) cells.push(r(y[k])); else for (const _c of x.comps) cells.push(''); // no reading: empty cells
    }
    if (this.opts.rowContacts) cells.push(s.contacts.length ? s.contacts.join('+') : 'none');
    for (const j of this.joints) if (j.nv === 1) cells.push(r(s.truth.tau[j.iv]));
    for (const w of s.wrenches) for (let k = 0; k < 6; k++) cells.push(r(w[k]));
    return cells.join(',');
  }
}

/**
 * A `ros` section for a problem without one, naming the topics {@link mcapLog} writes: the joints on
 * /joint_states (clock), the base's pose and twist on /odom (positions only: its orientation in the
 * sensor_msgs/Imu of the gyroscope on it, as an IMU's filter gives it), one topic per sensor (/<sensor>: a
 * JointState's effort for joint torques and position for joint accelerations, WrenchStamped,
 * sensor_msgs/Imu for accelerometers and gyroscopes, AccelStamped for spatial accelerations), and
 * the truth on /truth/joint_torques and /truth/contact_wrench.
 */
export function defaultRosSection(es: EstimationSystem, opts: { positionsOnly?: boolean } = {}): Record<string, unknown> {
  const schema = new LogSchema(es);
  const o: Record<string, unknown> = { clock: { topic: '/joint_states' }, joint_states: '/joint_states' };
  // positions only: the base's orientation as the IMU's filter gives it, on the gyroscope's topic
  if (es.model.floatingBase) o.base = opts.positionsOnly && schema.baseGyro ? { orientation: `/${topicToken(schema.baseGyro.name)}` } : { topic: '/odom' };
  const sensors: Record<string, unknown> = {};
  for (const s of es.sensors) {
    const name = s.spec.name;
    if (!schema.sensors.has(name) && name !== schema.baseGyro?.name) continue;
    if (s.spec.type === 'joint_acceleration') { if (!opts.positionsOnly) sensors[name] = { topic: `/${topicToken(name)}`, field: 'position' }; continue; }
    sensors[name] = s.spec.type === 'joint_torque' ? { topic: `/${topicToken(name)}`, field: 'effort' } : `/${topicToken(name)}`;
  }
  o.sensors = sensors;
  const truth: Record<string, string> = {};
  if (schema.joints.length) truth.joint_torques = '/truth/joint_torques';
  if (es.contacts.length) truth.contact_wrenches = '/truth/contact_wrench';
  o.truth = truth;
  return o;
}

/** One message per sample for a topic (and frame id): its type and what each contributor writes into it. */
interface Draft { topic: string; type: RosMessageType; frame: string; parts: ((s: LogRowSample, msg: Record<string, unknown>) => void)[] }

/** x, y, z of a vector; unnamed components 0 */
const v3 = (a: ArrayLike<number>, o = 0) => ({ x: a[o], y: a[o + 1], z: a[o + 2] });

/** quaternion (x, y, z, w) of a rotation matrix (row-major) */
function quaternionOfMatrix(R: ArrayLike<number>): number[] {
  const tr = R[0] + R[4] + R[8];
  let x: number, y: number, z: number, w: number;
  if (tr > 0) { const s = 2 * Math.sqrt(tr + 1); w = s / 4; x = (R[7] - R[5]) / s; y = (R[2] - R[6]) / s; z = (R[3] - R[1]) / s; } else if (R[0] > R[4] && R[0] > R[8]) { const s = 2 * Math.sqrt(1 + R[0] - R[4] - R[8]); w = (R[7] - R[5]) / s; x = s / 4; y = (R[1] + R[3]) / s; z = (R[2] + R[6]) / s; } else if (R[4] > R[8]) { const s = 2 * Math.sqrt(1 + R[4] - R[0] - R[8]); w = (R[2] - R[6]) / s; x = (R[1] + R[3]) / s; y = s / 4; z = (R[5] + R[7]) / s; } else { const s = 2 * Math.sqrt(1 + R[8] - R[0] - R[4]); w = (R[3] - R[1]) / s; x = (R[2] + R[6]) / s; y = (R[5] + R[7]) / s; z = s / 4; }
  const n = Math.hypot(x, y, z, w);
  return [x / n, y / n, z / n, w / n];
}

/** a ⊗ b (Hamilton product, (x, y, z, w)) */
function quaternionProduct(a: ArrayLike<number>, b: ArrayLike<number>): number[] {
  return [
    a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
    a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
    a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
    a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2],
  ];
}

/** Options of {@link mcapLog}. */
export interface McapLogOptions {
  /** what a robot records: JointStates without velocities, no joint accelerations, no base twist */
  positionsOnly?: boolean;
  /** the topics: the problem's `ros` section by default, else {@link defaultRosSection}'s */
  mapping?: RosMapping;
  /** stamp of t = 0, ns (default 1 750 000 000 s) */
  epochNs?: bigint;
}

/**
 * The samples as a ROS 2 recording (MCAP bytes) on the topics of a `ros` mapping: one message per
 * topic (and frame id) and sample, stamped epoch + t. Returns the bytes and the mapping used, as a
 * problem file's `ros` section. Throws a RangeError for a mapping it cannot write (several joint
 * state topics; with `positionsOnly`, a topic for what a robot does not record).
 */
export async function mcapLog(es: EstimationSystem, samples: readonly LogRowSample[], opts: McapLogOptions = {}): Promise<{ bytes: Uint8Array; ros: Record<string, unknown> }> {
  const model = es.model, schema = new LogSchema(es);
  const m = opts.mapping ?? es.problem.ros ?? parseRosMapping(defaultRosSection(es, opts), 'synth');
  const po = opts.positionsOnly === true;
  if (m.joint_states.length > 1) throw new RangeError(`the "ros" mapping lists ${m.joint_states.length} joint state topics: a synthetic recording puts every joint on one (give one topic)`);
  const joints = schema.joints;
  for (const j of joints) if (j.nq !== 1 || j.nv !== 1) throw new RangeError(`joint "${j.name}" (${j.type}) has several coordinates: a sensor_msgs/msg/JointState carries one per joint name`);
  const types = new Map(es.sensors.map((s) => [s.spec.name, s.spec]));
  const drafts = new Map<string, Draft>();
  const draft = (topic: string, type: RosMessageType, frame = '') => {
    const key = `${topic}\u0000${frame}`;
    let d = drafts.get(key);
    if (d && d.type !== type) throw new RangeError(`topic "${topic}"${frame ? ` (frame "${frame}")` : ''} would carry both ${d.type} and ${type}: map them to two topics`);
    if (!d) {
      d = { topic, type, frame, parts: [] };
      drafts.set(key, d);
    }
    return d;
  };
  // JointState topics: names and fields from every contributor
  const jointStates = new Map<string, { names: string[]; fields: Map<string, Map<string, (s: LogRowSample) => number>> }>();
  const jointField = (topic: string, field: string, names: string[], value: (s: LogRowSample, k: number) => number) => {
    draft(topic, 'sensor_msgs/msg/JointState');
    let js = jointStates.get(topic);
    if (!js) { js = { names: [], fields: new Map() }; jointStates.set(topic, js); }
    const f = js.fields.get(field) ?? new Map<string, (s: LogRowSample) => number>();
    js.fields.set(field, f);
    names.forEach((n, k) => {
      if (!js!.names.includes(n)) js!.names.push(n);
      if (f.has(n)) throw new RangeError(`topic "${topic}": the ${field} of joint "${n}" would be written twice: map the sensors to other topics or fields`);
      f.set(n, (s) => value(s, k));
    });
  };
  const J = m.joint_states[0];
  jointField(J, 'position', joints.map((j) => j.name), (s, k) => s.q[joints[k].iq]);
  if (!po) jointField(J, 'velocity', joints.map((j) => j.name), (s, k) => s.v[joints[k].iv]);
  // the floating base
  if (model.floatingBase) {
    const b = m.base;
    if (!b) throw new RangeError('the base is floating: the "ros" mapping must name its pose topic ("base")');
    if (po && !schema.baseGyro) throw new RangeError('the base is floating and the problem has no gyroscope on the base link: a robot\'s recording gives the base\'s angular velocity by one; add one to the problem or leave out --positions-only');
    if (po && b.twist !== undefined) throw new RangeError(`the "ros" mapping names a base twist topic ("${b.twist}"): a robot records no linear velocity of its base; remove it (the angular velocity then comes from the gyroscope on the base) or leave out --positions-only`);
    const quat = (s: LogRowSample) => ({ x: s.q[3], y: s.q[4], z: s.q[5], w: s.q[6] });
    const twist = (s: LogRowSample) => ({ linear: v3(s.v, 0), angular: v3(s.v, 3) });
    if (b.pose !== undefined) {
      if (b.twist === b.pose) {
        draft(b.pose, 'nav_msgs/msg/Odometry').parts.push((s, msg) => {
          msg.child_frame_id = model.bodyNames[0];
          msg.pose = { pose: { position: v3(s.q, 0), orientation: quat(s) }, covariance: Array(36).fill(0) };
          msg.twist = { twist: twist(s), covariance: Array(36).fill(0) };
        });
      } else draft(b.pose, 'geometry_msgs/msg/PoseStamped').parts.push((s, msg) => { msg.pose = { position: v3(s.q, 0), orientation: quat(s) }; });
    } else {
      // an IMU's orientation is its own frame's: R_imu = R_base E, E the gyroscope's mounting (its readings to the base's axes)
      const E = schema.baseGyro?.E ?? null, qm = E ? quaternionOfMatrix(E) : null;
      draft(b.orientation!, 'sensor_msgs/msg/Imu').parts.push((s, msg) => {
        const qb = [s.q[3], s.q[4], s.q[5], s.q[6]], qi = qm ? quaternionProduct(qb, qm) : qb;
        msg.orientation = { x: qi[0], y: qi[1], z: qi[2], w: qi[3] };
        msg.orientation_covariance = Array(9).fill(0);
      });
    }
    if (b.twist !== undefined && b.twist !== b.pose) draft(b.twist, 'geometry_msgs/msg/TwistStamped').parts.push((s, msg) => { msg.twist = twist(s); });
  }
  // the sensors
  for (const s of es.sensors) {
    const name = s.spec.name, src = m.sensors.get(name);
    if (!schema.sensors.has(name) && name !== schema.baseGyro?.name) continue;
    if (po && s.spec.type === 'joint_acceleration') {
      if (src) throw new RangeError(`the "ros" mapping gives sensor "${name}" (joint accelerations) a topic: a robot records none; remove it from "ros.sensors" (estimate derives them) or leave out --positions-only`);
      continue;
    }
    if (!src) throw new RangeError(`sensor "${name}" has no topic in the "ros" mapping`);
    const comps = schema.sensors.get(name) ?? schema.baseGyro!.components;
    const at = (s2: LogRowSample, c: string) => { const k = comps.indexOf(c); return k < 0 ? 0 : s2.readings.get(name)![k]; };
    switch (types.get(name)!.type) {
      case 'joint_acceleration':
      case 'joint_torque':
        jointField(src.topic, src.field ?? (s.spec.type === 'joint_torque' ? 'effort' : 'position'), comps, (s2, k) => s2.readings.get(name)![k]);
        break;
      case 'force_torque':
      case 'external_wrench':
        draft(src.topic, 'geometry_msgs/msg/WrenchStamped', src.frame_id).parts.push((s2, msg) => {
          msg.wrench = { torque: { x: at(s2, 'tx'), y: at(s2, 'ty'), z: at(s2, 'tz') }, force: { x: at(s2, 'fx'), y: at(s2, 'fy'), z: at(s2, 'fz') } };
        });
        break;
      case 'gyroscope':
        draft(src.topic, 'sensor_msgs/msg/Imu', src.frame_id).parts.push((s2, msg) => { msg.angular_velocity = { x: at(s2, 'wx'), y: at(s2, 'wy'), z: at(s2, 'wz') }; });
        break;
      case 'accelerometer':
        draft(src.topic, 'sensor_msgs/msg/Imu', src.frame_id).parts.push((s2, msg) => { msg.linear_acceleration = { x: at(s2, 'ax'), y: at(s2, 'ay'), z: at(s2, 'az') }; });
        break;
      case 'spatial_acceleration':
        draft(src.topic, 'geometry_msgs/msg/AccelStamped', src.frame_id).parts.push((s2, msg) => {
          msg.accel = { angular: { x: at(s2, 'alpha_x'), y: at(s2, 'alpha_y'), z: at(s2, 'alpha_z') }, linear: { x: at(s2, 'ax'), y: at(s2, 'ay'), z: at(s2, 'az') } };
        });
        break;
    }
  }
  // the truth
  if (m.truth?.joint_torques !== undefined) jointField(m.truth.joint_torques, 'effort', joints.map((j) => j.name), (s, k) => s.truth.tau[joints[k].iv]);
  if (m.truth?.contact_wrenches !== undefined) {
    es.contacts.forEach((c, k) => draft(m.truth!.contact_wrenches!, 'geometry_msgs/msg/WrenchStamped', c.link).parts.push((s, msg) => {
      msg.wrench = { torque: v3(s.wrenches[k], 0), force: v3(s.wrenches[k], 3) };
    }));
  }
  if ('topic' in m.clock && ![...drafts.values()].some((d) => d.topic === (m.clock as { topic: string }).topic)) {
    throw new RangeError(`the sample clock's topic "${m.clock.topic}" carries nothing the problem maps: give the clock a mapped topic or a rate`);
  }
  // one message per draft and sample, each type with its full set of fields
  const message = (d: Draft, s: LogRowSample, ns: bigint): Record<string, unknown> => {
    const header = { stamp: rosTime(ns), frame_id: d.frame };
    const zero = { x: 0, y: 0, z: 0 };
    const msg: Record<string, unknown> =
      d.type === 'sensor_msgs/msg/JointState' ? { header, name: [], position: [], velocity: [], effort: [] }
      : d.type === 'sensor_msgs/msg/Imu' ? { header, orientation: { x: 0, y: 0, z: 0, w: 1 }, orientation_covariance: [-1, 0, 0, 0, 0, 0, 0, 0, 0], angular_velocity: zero, angular_velocity_covariance: Array(9).fill(0), linear_acceleration: zero, linear_acceleration_covariance: Array(9).fill(0) }
      : { header };
    const js = jointStates.get(d.topic);
    if (d.type === 'sensor_msgs/msg/JointState' && js) {
      msg.name = js.names;
      for (const [field, f] of js.fields) msg[field] = js.names.map((n) => f.get(n)?.(s) ?? 0);
    }
    for (const p of d.parts) p(s, msg);
    return msg;
  };
  const out = new MemoryWritable();
  const bag = new RosMcapWriter(out, 256 * 1024);
  await bag.start();
  const epoch = opts.epochNs ?? 1_750_000_000_000_000_000n;
  for (const s of samples) {
    const ns = epoch + secondsToNs(s.t);
    for (const d of drafts.values()) await bag.write(d.topic, d.type, ns, message(d, s, ns));
  }
  await bag.end();
  return { bytes: out.bytes(), ros: rosJson(m) };
}
