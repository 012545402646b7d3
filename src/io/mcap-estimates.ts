/**
 * Estimates as a ROS 2 recording (MCAP) that a viewer such as Foxglove plays beside the input,
 * written with @mcap/core's writer and @foxglove/rosmsg2-serialization (CDR), each channel with its
 * ROS 2 message definition embedded (ros2msg), so that any reader decodes it without the package:
 *
 *   /sparsedyn/joint_torques         sensor_msgs/msg/JointState: effort = τ per joint (N·m or N;
 *                                    a multi-DoF joint as "<joint>[k]"), position and velocity empty
 *   /sparsedyn/contact_wrench/<link> geometry_msgs/msg/WrenchStamped: the environment's wrench on the
 *                                    contact link, frame_id = the link, torque about its origin
 *   /sparsedyn/joint_wrench/<joint>  geometry_msgs/msg/WrenchStamped: the parent's wrench on the
 *                                    child across the joint, frame_id = the child link
 *   /sparsedyn/status                sparsedyn_msgs/msg/EstimateStatus: sample number, condition,
 *                                    near-singular flag and direction, residual per sensor, staleness
 *                                    per input channel, torque standard deviations
 *
 * The status is a small message of our own rather than diagnostic_msgs/msg/DiagnosticArray, whose
 * values are strings: numbers stay numbers, so a viewer plots the residuals and the condition
 * directly. Every message is stamped with its sample's time (header.stamp, log and publish time):
 * the input's stamp when it has one (a ROS 2 recording), else t rounded to the nanosecond. Topic
 * names keep [A-Za-z0-9_] of the link and joint names (others become "_"); frame ids keep the names.
 * Strings are written as ASCII ({@link asciiText}).
 */
import { McapStreamReader, McapWriter, type IWritable } from '@mcap/core';
import { parse as parseMsgDefinition } from '@foxglove/rosmsg';
import { MessageReader, MessageWriter } from '@foxglove/rosmsg2-serialization';
import type { Model } from '../model/model.ts';
import type { NamedEstimate, Wrench } from '../estimation/outputs.ts';
import { CdrOut, JointStateTemplate, WrenchStampedTemplate } from './cdr-out.ts';

const SEP = '================================================================================\n';
const TIME = 'MSG: builtin_interfaces/Time\nint32 sec\nuint32 nanosec\n';
const HEADER = 'MSG: std_msgs/Header\nbuiltin_interfaces/Time stamp\nstring frame_id\n';
const VECTOR3 = 'MSG: geometry_msgs/Vector3\nfloat64 x\nfloat64 y\nfloat64 z\n';

/** ROS 2 message definitions (ros2msg, dependencies appended as `ros2 bag record` stores them) */
export const MSG_DEFINITIONS = {
  'sensor_msgs/msg/JointState': `std_msgs/Header header\nstring[] name\nfloat64[] position\nfloat64[] velocity\nfloat64[] effort\n${SEP}${HEADER}${SEP}${TIME}`,
  'geometry_msgs/msg/WrenchStamped': `std_msgs/Header header\ngeometry_msgs/Wrench wrench\n${SEP}MSG: geometry_msgs/Wrench\ngeometry_msgs/Vector3 force\ngeometry_msgs/Vector3 torque\n${SEP}${VECTOR3}${SEP}${HEADER}${SEP}${TIME}`,
  'sparsedyn_msgs/msg/EstimateStatus': [
    '# The status of one estimated sample (sparsedyn estimate)',
    'std_msgs/Header header',
    '# the sample\'s number in the log (its line for NDJSON and CSV logs, its tick for ROS 2 recordings)',
    'uint32 sample',
    '# the condition figure (1 at a typical configuration of the sensor layout); empty when not computed',
    'float64[] condition',
    '# above the limit: near a singular configuration of the sensor layout, and what is poorly observed',
    'bool near_singular',
    'string poorly_observed',
    '# RMS over each sensor\'s readings of residual / standard deviation (dimensionless)',
    'string[] sensors',
    'float64[] residuals',
    '# ROS 2 input: the age (s) of each input channel\'s newest value at the sample time',
    'string[] channels',
    'float64[] staleness',
    '# with --covariance: standard deviation of each joint torque, in the order of /sparsedyn/joint_torques',
    'float64[] tau_std',
    `${SEP}${HEADER}${SEP}${TIME}`,
  ].join('\n'),
  'sensor_msgs/msg/Imu': `std_msgs/Header header\ngeometry_msgs/Quaternion orientation\nfloat64[9] orientation_covariance\ngeometry_msgs/Vector3 angular_velocity\nfloat64[9] angular_velocity_covariance\ngeometry_msgs/Vector3 linear_acceleration\nfloat64[9] linear_acceleration_covariance\n${SEP}MSG: geometry_msgs/Quaternion\nfloat64 x 0\nfloat64 y 0\nfloat64 z 0\nfloat64 w 1\n${SEP}${VECTOR3}${SEP}${HEADER}${SEP}${TIME}`,
  'geometry_msgs/msg/AccelStamped': `std_msgs/Header header\ngeometry_msgs/Accel accel\n${SEP}MSG: geometry_msgs/Accel\ngeometry_msgs/Vector3 linear\ngeometry_msgs/Vector3 angular\n${SEP}${VECTOR3}${SEP}${HEADER}${SEP}${TIME}`,
  'geometry_msgs/msg/PoseStamped': `std_msgs/Header header\ngeometry_msgs/Pose pose\n${SEP}MSG: geometry_msgs/Pose\ngeometry_msgs/Point position\ngeometry_msgs/Quaternion orientation\n${SEP}MSG: geometry_msgs/Point\nfloat64 x\nfloat64 y\nfloat64 z\n${SEP}MSG: geometry_msgs/Quaternion\nfloat64 x 0\nfloat64 y 0\nfloat64 z 0\nfloat64 w 1\n${SEP}${HEADER}${SEP}${TIME}`,
  'geometry_msgs/msg/TwistStamped': `std_msgs/Header header\ngeometry_msgs/Twist twist\n${SEP}MSG: geometry_msgs/Twist\ngeometry_msgs/Vector3 linear\ngeometry_msgs/Vector3 angular\n${SEP}${VECTOR3}${SEP}${HEADER}${SEP}${TIME}`,
  'nav_msgs/msg/Odometry': `std_msgs/Header header\nstring child_frame_id\ngeometry_msgs/PoseWithCovariance pose\ngeometry_msgs/TwistWithCovariance twist\n${SEP}MSG: geometry_msgs/PoseWithCovariance\ngeometry_msgs/Pose pose\nfloat64[36] covariance\n${SEP}MSG: geometry_msgs/Pose\ngeometry_msgs/Point position\ngeometry_msgs/Quaternion orientation\n${SEP}MSG: geometry_msgs/Point\nfloat64 x\nfloat64 y\nfloat64 z\n${SEP}MSG: geometry_msgs/Quaternion\nfloat64 x 0\nfloat64 y 0\nfloat64 z 0\nfloat64 w 1\n${SEP}MSG: geometry_msgs/TwistWithCovariance\ngeometry_msgs/Twist twist\nfloat64[36] covariance\n${SEP}MSG: geometry_msgs/Twist\ngeometry_msgs/Vector3 linear\ngeometry_msgs/Vector3 angular\n${SEP}${VECTOR3}${SEP}${HEADER}${SEP}${TIME}`,
} as const;

/** The ROS 2 message types this module writes (and the demo recording uses). */
export type RosMessageType = keyof typeof MSG_DEFINITIONS;

/** a ROS 2 time from integer nanoseconds */
export function rosTime(ns: bigint): { sec: number; nanosec: number } {
  const s = ns >= 0n ? ns / 1_000_000_000n : -((-ns + 999_999_999n) / 1_000_000_000n);
  return { sec: Number(s), nanosec: Number(ns - s * 1_000_000_000n) };
}

/**
 * Text as ASCII for a CDR string: @foxglove/cdr 3.5's writer counts a string's UTF-16 units as its
 * bytes, so that text beyond ASCII would be cut. "−" and "·" (in the poorly observed directions)
 * become "-" and "*", any other character beyond ASCII "\u{…}".
 */
export function asciiText(s: string): string {
  // eslint-disable-next-line no-control-regex
  return /^[\x00-\x7f]*$/.test(s) ? s : s.replace(/−/g, '-').replace(/·/g, '*').replace(/[^\x00-\x7f]/gu, (c) => `\\u{${c.codePointAt(0)!.toString(16)}}`);
}

/** t (s) to integer nanoseconds, rounded */
export const secondsToNs = (t: number): bigint => BigInt(Math.round(t * 1e9));

/** a ROS name token from any name: [A-Za-z0-9_], not starting with a digit */
export function topicToken(name: string): string {
  const s = name.replace(/[^A-Za-z0-9_]/g, '_');
  return /^[0-9]/.test(s) || s === '' ? `_${s}` : s;
}

/**
 * A writer of channels of ROS 2 messages into MCAP: one schema per type, one channel per topic,
 * each message serialized to CDR. Calls must be awaited one after the other.
 */
export class RosMcapWriter {
  private readonly mcap: McapWriter;
  private readonly schemas = new Map<string, { id: number; writer: MessageWriter }>();
  private readonly topics = new Map<string, { id: number; writer: MessageWriter }>();
  private seq = 0;

  constructor(writable: IWritable, chunkSize = 256 * 1024) {
    this.mcap = new McapWriter({ writable, chunkSize });
  }

  /** writes the file's header (profile `ros2`); call once, before any message */
  async start(): Promise<void> {
    await this.mcap.start({ profile: 'ros2', library: 'sparsedyn' });
  }

  /**
   * register (once) and return a topic's channel; `as` overrides the schema's name and definition
   * (a recording of another ROS 2 release, for tests)
   */
  async channel(topic: string, type: RosMessageType, as: { schemaName?: string; definition?: string } = {}): Promise<{ id: number; writer: MessageWriter }> {
    let c = this.topics.get(topic);
    if (c) return c;
    const name = as.schemaName ?? type, text = as.definition ?? MSG_DEFINITIONS[type];
    const key = `${name}\u0000${text}`;
    let s = this.schemas.get(key);
    if (!s) {
      const id = await this.mcap.registerSchema({ name, encoding: 'ros2msg', data: new TextEncoder().encode(text) });
      s = { id, writer: new MessageWriter(parseMsgDefinition(text, { ros2: true })) };
      this.schemas.set(key, s);
    }
    const id = await this.mcap.registerChannel({ topic, schemaId: s.id, messageEncoding: 'cdr', metadata: new Map() });
    c = { id, writer: s.writer };
    this.topics.set(topic, c);
    return c;
  }

  /** one message on a topic at `ns` (log and publish time) */
  async write(topic: string, type: RosMessageType, ns: bigint, message: unknown, logNs = ns): Promise<void> {
    const c = await this.channel(topic, type);
    await this.writeRaw(c.id, ns, c.writer.writeMessage(message), logNs);
  }

  /** one message already serialized (or deliberately not: tests of damaged recordings) */
  writeRaw(channelId: number, ns: bigint, data: Uint8Array, logNs = ns): Promise<void> {
    return this.mcap.addMessage({ channelId, sequence: ++this.seq, logTime: logNs, publishTime: ns, data });
  }

  /** writes the summary, index and footer; the file is complete after this */
  async end(): Promise<void> {
    await this.mcap.end();
  }
}

/** What a sample's estimate is written with, beside the named estimate. */
export interface EstimateStamp {
  /** sample time, integer nanoseconds */
  stamp: bigint;
  /** the sample's line (NDJSON, CSV) or tick (ROS 2) number */
  line: number;
  /** the condition figure, when computed */
  condition?: number;
  /** the poorly observed direction, when the sample is flagged */
  nearSingular?: string;
  /** per input channel, the age of its value (s) */
  staleness?: Map<string, number>;
}

/**
 * The messages of one sample's estimates but its status, serialized: every message's CDR bytes one
 * after the other in `data`, and per message the channel it goes to (`keys`: "T" the joint
 * torques, "c" + link a contact wrench, "j" + joint a joint wrench) and its length. Made where the
 * sample is estimated (a worker thread with `--jobs`), written by {@link McapEstimateWriter}, which
 * names the topics in the order it meets them, as with one thread.
 */
export interface EncodedEstimate {
  data: Uint8Array;
  keys: string[];
  lengths: number[];
}

const EMPTY = new Uint8Array(0);
const same = <T>(a: readonly T[], b: readonly T[]): boolean => {
  if (a.length !== b.length) return false;
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return false;
  return true;
};

/**
 * The CDR bytes of a sample's estimate messages (topics in the file's header comment). The key and
 * length lists returned are shared between samples that have the same: they are read, never changed.
 */
export class McapEstimateEncoder {
  private readonly childLink = new Map<string, string>();
  private readonly cdr = new CdrOut();
  /** the sample's messages, one after the other (grown as needed, reused) */
  private acc = new Uint8Array(16 * 1024);
  private size = 0;
  private readonly names = new Map<string, string>();
  /** each frame's WrenchStamped template (frame ids as ASCII) */
  private readonly frames = new Map<string, WrenchStampedTemplate>();
  /** the JointState template of the last sample's joints */
  private torques: JointStateTemplate | null = null;
  /** a DataView over `acc` */
  private view = new DataView(this.acc.buffer);
  private readonly contactKeys = new Map<string, string>();
  private readonly jointKeys = new Map<string, string>();
  /** the keys and lengths of the sample being encoded, and the lists of the last sample returned */
  private readonly keys: string[] = [];
  private readonly lengths: number[] = [];
  private last: EncodedEstimate | null = null;

  constructor(model: Model) {
    for (let i = 0; i < model.nb; i++) this.childLink.set(model.jointNames[i], model.bodyNames[i]);
  }

  /** the joint torques and the wrenches of a sample stamped `ns` (integer nanoseconds) */
  encode(ns: bigint, e: NamedEstimate): EncodedEstimate {
    const { sec, nanosec } = rosTime(ns);
    const keys = this.keys, lengths = this.lengths;
    keys.length = 0; lengths.length = 0;
    this.size = 0;
    // the torques: the JointState of these joints, patched (a new template when the joints change)
    const [names, tau] = this.flat(e.tau);
    let tpl = this.torques;
    if (tpl === null || !same(tpl.names, names)) tpl = this.torques = new JointStateTemplate(names);
    const len = tpl.bytes.length;
    this.reserve(len);
    tpl.write(this.acc, this.view, this.size, sec, nanosec, tau);
    this.size += len;
    keys.push('T');
    lengths.push(len);
    for (const link in e.contact_wrenches) this.wrench(sec, nanosec, link, e.contact_wrenches[link], this.key(this.contactKeys, 'c', link));
    for (const joint in e.joint_wrenches) this.wrench(sec, nanosec, this.childLink.get(joint) ?? joint, e.joint_wrenches[joint], this.key(this.jointKeys, 'j', joint));
    // the lists of the previous sample when they are the same (the usual case): nothing to keep per sample but the bytes
    const last = this.last;
    if (last === null || !same(last.keys, keys) || !same(last.lengths, lengths)) this.last = { data: EMPTY, keys: keys.slice(), lengths: lengths.slice() };
    return { data: this.acc.slice(0, this.size), keys: this.last!.keys, lengths: this.last!.lengths };
  }

  /** a message's key, built once per name */
  private key(keys: Map<string, string>, kind: string, name: string): string {
    let k = keys.get(name);
    if (k === undefined) { k = `${kind}${name}`; keys.set(name, k); }
    return k;
  }

  /** the status message of a sample (a view into a reused buffer, valid until the next message) */
  status(s: EstimateStamp, e: Pick<NamedEstimate, 'residuals' | 'tau_std'>): Uint8Array {
    const { sec, nanosec } = rosTime(s.stamp), c = this.cdr;
    c.begin().header(sec, nanosec, '').uint32(s.line);
    if (s.condition !== undefined) c.uint32(1).float64(s.condition); else c.uint32(0);
    c.uint8(s.nearSingular !== undefined ? 1 : 0).string(asciiText(s.nearSingular ?? ''));
    const sensors: string[] = [], residuals: number[] = [];
    for (const n in e.residuals) { sensors.push(this.ascii(n)); residuals.push(e.residuals[n]); }
    c.strings(sensors).float64s(residuals);
    if (s.staleness) {
      c.count(s.staleness.size);
      for (const k of s.staleness.keys()) c.string(this.ascii(k));
      c.count(s.staleness.size);
      for (const a of s.staleness.values()) c.float64(a);
    } else c.uint32(0).uint32(0);
    c.float64s(e.tau_std ? this.flat(e.tau_std)[1] : []);
    return c.data();
  }

  /** room for `n` more bytes in the sample's bytes */
  private reserve(n: number): void {
    if (this.size + n > this.acc.length) {
      const grown = new Uint8Array(2 * (this.size + n));
      grown.set(this.acc.subarray(0, this.size));
      this.acc = grown;
      this.view = new DataView(grown.buffer);
    }
  }

  /** one WrenchStamped appended to the sample's bytes (its frame's template, patched) */
  private wrench(sec: number, nanosec: number, frame: string, x: Wrench, key: string): void {
    let tpl = this.frames.get(frame);
    if (tpl === undefined) { tpl = new WrenchStampedTemplate(asciiText(frame)); this.frames.set(frame, tpl); }
    const len = tpl.bytes.length;
    this.reserve(len);
    tpl.write(this.acc, this.view, this.size, sec, nanosec, x.force, x.torque);
    this.size += len;
    this.keys.push(key);
    this.lengths.push(len);
  }

  /** names (ASCII; a multi-DoF joint's as "<joint>[k]") and values of a record by joint, the names worked out once per joint */
  private flat(r: Record<string, number | number[]>): [string[], number[]] {
    const names: string[] = [], vals: number[] = [];
    for (const k in r) {
      const v = r[k];
      if (typeof v === 'number') { names.push(this.nameOf(k, -1)); vals.push(v); } else for (let i = 0; i < v.length; i++) { names.push(this.nameOf(k, i)); vals.push(v[i]); }
    }
    return [names, vals];
  }

  private nameOf(joint: string, k: number): string {
    return this.ascii(k < 0 ? joint : `${joint}[${k}]`);
  }

  /** a name as ASCII, worked out once per name */
  private ascii(key: string): string {
    let n = this.names.get(key);
    if (n === undefined) { n = asciiText(key); this.names.set(key, n); }
    return n;
  }
}

/** The estimates of a run as MCAP (topics in the file's header comment). */
export class McapEstimateWriter {
  private readonly w: RosMcapWriter;
  /** the encoder of this thread's samples (and of every status message) */
  readonly encoder: McapEstimateEncoder;
  private readonly topicNames = new Map<string, string>();
  private readonly used = new Set<string>();
  /** channel id by message key (EncodedEstimate.keys) */
  private readonly ids = new Map<string, number>();
  private status?: { id: number };

  constructor(writable: IWritable, model: Model) {
    this.w = new RosMcapWriter(writable);
    this.encoder = new McapEstimateEncoder(model);
  }

  /** a unique topic for a kind and a name */
  private topic(kind: string, name: string): string {
    const key = `${kind}\u0000${name}`;
    let t = this.topicNames.get(key);
    if (t === undefined) {
      const base = `/sparsedyn/${kind}/${topicToken(name)}`;
      t = base;
      for (let k = 2; this.used.has(t); k++) t = `${base}_${k}`;
      this.used.add(t);
      this.topicNames.set(key, t);
    }
    return t;
  }

  /** writes the file's header; call once, before the first sample */
  async start(): Promise<void> {
    await this.w.start();
  }

  /** one sample's estimates */
  async write(s: EstimateStamp, e: NamedEstimate): Promise<void> {
    await this.writeEncoded(s, this.encoder.encode(s.stamp, e), e);
  }

  /**
   * one sample's estimates, its messages but the status already serialized (`m`, by any thread's
   * encoder); the status is made here from `s` and the estimate's residuals and tau_std
   */
  async writeEncoded(s: EstimateStamp, m: EncodedEstimate, e: Pick<NamedEstimate, 'residuals' | 'tau_std'>): Promise<void> {
    const ns = s.stamp;
    let off = 0;
    for (let k = 0; k < m.keys.length; k++) {
      const key = m.keys[k], len = m.lengths[k];
      let id = this.ids.get(key);
      if (id === undefined) {
        const name = key.slice(1);
        id = key === 'T'
          ? (await this.w.channel('/sparsedyn/joint_torques', 'sensor_msgs/msg/JointState')).id
          : (await this.w.channel(this.topic(key[0] === 'c' ? 'contact_wrench' : 'joint_wrench', name), 'geometry_msgs/msg/WrenchStamped')).id;
        this.ids.set(key, id);
      }
      await this.w.writeRaw(id, ns, m.data.subarray(off, off + len));
      off += len;
    }
    const status = this.status ??= await this.w.channel('/sparsedyn/status', 'sparsedyn_msgs/msg/EstimateStatus');
    await this.w.writeRaw(status.id, ns, this.encoder.status(s, e));
  }

  /** completes the file (summary, index, footer) */
  async end(): Promise<void> {
    await this.w.end();
  }
}

/** One sample read back from an estimates recording. */
export interface McapEstimateRecord extends EstimateStamp {
  tau: Map<string, number>;
  contact_wrenches: Map<string, Wrench & { frame: string }>;
  joint_wrenches: Map<string, Wrench & { frame: string }>;
  residuals: Map<string, number>;
  tau_std: number[];
}

/**
 * The samples of an estimates recording written by {@link McapEstimateWriter}, in order: every
 * topic's messages of one stamp gathered (wrenches by their topic's last name token).
 */
export function readMcapEstimates(bytes: Uint8Array): McapEstimateRecord[] {
  const r = new McapStreamReader();
  r.append(bytes);
  const schemas = new Map<number, MessageReader>();
  const chans = new Map<number, { topic: string; reader: MessageReader }>();
  const bySample = new Map<bigint, McapEstimateRecord>();
  const rec = (ns: bigint): McapEstimateRecord => {
    let x = bySample.get(ns);
    if (!x) {
      x = { stamp: ns, line: 0, tau: new Map(), contact_wrenches: new Map(), joint_wrenches: new Map(), residuals: new Map(), tau_std: [] };
      bySample.set(ns, x);
    }
    return x;
  };
  type Msg = { header: { stamp: { sec: number; nanosec: number }; frame_id: string } } & Record<string, unknown>;
  for (let m; (m = r.nextRecord());) {
    if (m.type === 'Schema') schemas.set(m.id, new MessageReader(parseMsgDefinition(new TextDecoder().decode(m.data), { ros2: true })));
    else if (m.type === 'Channel') chans.set(m.id, { topic: m.topic, reader: schemas.get(m.schemaId)! });
    else if (m.type === 'Message') {
      const c = chans.get(m.channelId)!;
      const o = c.reader.readMessage<Msg>(m.data);
      const ns = BigInt(o.header.stamp.sec) * 1_000_000_000n + BigInt(o.header.stamp.nanosec);
      if (ns !== m.logTime) throw new Error(`${c.topic}: header stamp ${ns} differs from the log time ${m.logTime}`);
      const x = rec(ns);
      if (c.topic === '/sparsedyn/joint_torques') (o.name as string[]).forEach((n, k) => x.tau.set(n, (o.effort as number[])[k]));
      else if (c.topic === '/sparsedyn/status') {
        x.line = o.sample as number;
        const cond = o.condition as number[];
        if (cond.length) x.condition = cond[0];
        if (o.near_singular) x.nearSingular = o.poorly_observed as string;
        (o.sensors as string[]).forEach((n, k) => x.residuals.set(n, (o.residuals as number[])[k]));
        const ch = o.channels as string[];
        if (ch.length) x.staleness = new Map(ch.map((n, k) => [n, (o.staleness as number[])[k]]));
        x.tau_std = Array.from(o.tau_std as number[]);
      } else {
        const w = o.wrench as { force: { x: number; y: number; z: number }; torque: { x: number; y: number; z: number } };
        const v: Wrench & { frame: string } = { torque: [w.torque.x, w.torque.y, w.torque.z], force: [w.force.x, w.force.y, w.force.z], frame: o.header.frame_id };
        const name = c.topic.split('/').at(-1)!;
        if (c.topic.startsWith('/sparsedyn/contact_wrench/')) x.contact_wrenches.set(name, v);
        else if (c.topic.startsWith('/sparsedyn/joint_wrench/')) x.joint_wrenches.set(name, v);
      }
    }
  }
  if (!r.done()) throw new Error('the estimates recording is incomplete (no footer)');
  return [...bySample.values()];
}

/** An MCAP byte sink in memory (each write copied): `bytes()` gives the file. */
export class MemoryWritable implements IWritable {
  private readonly parts: Uint8Array[] = [];
  private size = 0;
  /** appends a copy of `buffer` */
  async write(buffer: Uint8Array): Promise<void> {
    this.parts.push(buffer.slice());
    this.size += buffer.length;
  }
  /** bytes written so far */
  position(): bigint {
    return BigInt(this.size);
  }
  /** the bytes written, as one array */
  bytes(): Uint8Array {
    const out = new Uint8Array(this.size);
    let o = 0;
    for (const p of this.parts) { out.set(p, o); o += p.length; }
    return out;
  }
}
