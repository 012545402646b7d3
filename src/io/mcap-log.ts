/**
 * ROS 2 recordings (MCAP) as a stream of samples: the same {@link Sample} objects as the NDJSON and
 * CSV readers give, from a stream of bytes (a file, standard input; nothing here touches the file
 * system). The container is read by @mcap/core's streaming reader, each message decoded by
 * @foxglove/rosmsg2-serialization (CDR) with the ROS 2 message definition the recording carries
 * (parsed by @foxglove/rosmsg), so that ROS 2 Humble and Jazzy recordings alike are read by field
 * name; schema names with and without "/msg/" are accepted.
 *
 * The problem file's `ros` section (src/estimation/ros-mapping.ts) maps topics and frame ids to the
 * joints, the floating base and the sensors. Each of these is a channel: a time series of value
 * vectors, stamped by header.stamp (or the log time). The sample clock is one topic's stamps or a
 * fixed rate; at each tick every channel gives its latest value at or before the tick, or the linear
 * interpolation of the two values around it (quaternions: spherical), and its staleness: the tick
 * minus the stamp of its newest message at or before the tick (s). A tick is sampled once every
 * channel has a message at or after it, or the newest stamp is more than `reorder_window` past it,
 * or the recording ends: memory stays bounded by the window.
 *
 * What a robot records is enough: a JointState with an empty `velocity` gives NaN velocities when the
 * schema derives them (LogSchemaOptions.derive; the estimation stage fills them in from the
 * positions over time), as does a joint_acceleration sensor mapped to no topic (its readings are
 * derived). A floating base needs its orientation only (a pose topic, or an Imu's orientation turned
 * into the base's axes by the gyroscope's mounting); without a twist topic its linear velocity is 0
 * (Sample.noBaseVelocity) and its angular velocity is the gyroscope's on the base, rotated into the
 * base's axes as the text logs' (LogSchema.baseGyro).
 *
 * A message that cannot be used (not decodable, a non-finite value, a JointState whose arrays do not
 * match its names, an unmapped frame id, a stamp that goes back past a written sample, …) is
 * returned as a {@link LogError} naming its topic and log time, and skipped; a tick whose channels
 * cannot give a value (before the first message, stale beyond `max_staleness`, nothing to
 * interpolate to) likewise, unless `stale_sensors` is "leave_out": a sensor then is left out of that
 * sample (the estimation session estimates with the others when they determine the unknowns). A recording that cannot be read at all (a mapped topic with a message
 * type that cannot carry what it is mapped to, a mapping that names no sensor of the problem) throws
 * a {@link McapLogError} before the first sample.
 */
import { clipMessage } from '../model/warnings.ts';
import { hasMcapPrefix, McapStreamReader, type McapTypes } from '@mcap/core';
import { parse as parseMsgDefinition } from '@foxglove/rosmsg';
import { MessageReader } from '@foxglove/rosmsg2-serialization';
import { isStandardJointState, JointStateReader } from './joint-state-cdr.ts';
import type { RosMapping } from '../estimation/ros-mapping.ts';
import { rotateInPlace, type LogError, type LogSchema, type Sample } from './log.ts';

/** A recording that cannot be read with this problem: the message names the topic, sensor or joint. */
export class McapLogError extends Error {
  override name = 'McapLogError';
  constructor(message: string) { super(clipMessage(message)); }
}

/** True when the bytes start with the MCAP magic (0x89 "MCAP0" CR LF). */
export function isMcap(head: Uint8Array): boolean {
  if (head.length < 8) return false;
  return hasMcapPrefix(new DataView(head.buffer, head.byteOffset, head.byteLength));
}

/** The ROS 2 type name without "/msg/" (sensor_msgs/msg/Imu and sensor_msgs/Imu are one type). */
export function rosTypeName(schemaName: string): string {
  return schemaName.replace('/msg/', '/');
}

/**
 * What an error of the MCAP container, CDR or message-definition readers means for the recording.
 * The engine's own errors (a read past the end of the bytes, a length no array can have, a stack
 * overflow on nested definitions) are told in the user's words; the readers' messages are kept.
 */
function readerWords(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  if (!(e instanceof RangeError || e instanceof TypeError || e instanceof SyntaxError)) return m.length > 200 ? `${m.slice(0, 200)}…` : m;
  if (/call stack/i.test(m)) return 'its definitions nest too deeply';
  if (/array length|array buffer allocation|invalid string length/i.test(m)) return 'a length field is larger than the data it counts';
  if (/bounds|offset|beyond|end of/i.test(m)) return 'the data end before the message does';
  return 'its bytes do not follow the message definition';
}

class MessageError extends Error {}

type Vec3 = { x: number; y: number; z: number };
type Stamp = { sec: number; nanosec?: number; nsec?: number };
type Header = { stamp: Stamp; frame_id: string };

/** one channel: a time series of value vectors */
interface Channel {
  /** name in staleness reports and messages: "joints /joint_states", "base pose", a sensor's name */
  label: string;
  topic: string;
  n: number;
  /** indices of quaternion (x, y, z, w) blocks in the value vector, interpolated spherically */
  quats: number[];
  stamps: bigint[];
  values: Float64Array[];
  /** a channel of true values (simulations): read at its exact stamps only, not an input */
  truth?: boolean;
  /** its place in the sampler's list of channels */
  index: number;
}

/** what one mapped topic feeds: a channel, from a decoded message */
interface Extractor {
  channel: Channel;
  frameId?: string;
  /** the values of the message for the channel, or a MessageError saying why not */
  read(msg: Record<string, unknown>): Float64Array;
}

/** x when it is a finite number (the test first: the name is built only for the error) */
const ok = (x: unknown): x is number => typeof x === 'number' && x - x === 0;

const finite = (x: unknown, what: string): number => {
  if (typeof x !== 'number' || !Number.isFinite(x)) throw new MessageError(`${what} is ${x === undefined ? 'missing' : String(x)}`);
  return x;
};

function stampNs(h: Header | undefined, what: string): bigint {
  const s = h?.stamp;
  if (!s || typeof s.sec !== 'number') throw new MessageError(`${what}: no header.stamp`);
  const ns = s.nanosec ?? s.nsec;
  if (typeof ns !== 'number' || !Number.isInteger(s.sec) || !Number.isInteger(ns) || ns < 0 || ns >= 1e9) throw new MessageError(`${what}: header.stamp ${s.sec} s ${ns} ns is not a time`);
  return BigInt(s.sec) * 1_000_000_000n + BigInt(ns);
}

/** seconds as text, exact to the nanosecond */
export function nsText(ns: bigint): string {
  const neg = ns < 0n, a = neg ? -ns : ns;
  return `${neg ? '-' : ''}${a / 1_000_000_000n}.${(a % 1_000_000_000n).toString().padStart(9, '0')}`;
}

const vec3 = (v: Vec3 | undefined, what: string): number[] => {
  if (typeof v !== 'object' || v === null) throw new MessageError(`${what} is missing`);
  return [ok(v.x) ? v.x : finite(v.x, `${what}.x`), ok(v.y) ? v.y : finite(v.y, `${what}.y`), ok(v.z) ? v.z : finite(v.z, `${what}.z`)];
};

/** a Vector3 written into out at o (this runs for every message: no list is built) */
function vec3Into(out: Float64Array, o: number, v: Vec3 | undefined, what: string): Float64Array {
  if (typeof v !== 'object' || v === null) throw new MessageError(`${what} is missing`);
  const x = v.x, y = v.y, z = v.z;
  if (!(typeof x === 'number' && x - x === 0)) finite(x, `${what}.x`);
  if (!(typeof y === 'number' && y - y === 0)) finite(y, `${what}.y`);
  if (!(typeof z === 'number' && z - z === 0)) finite(z, `${what}.z`);
  out[o] = x; out[o + 1] = y; out[o + 2] = z;
  return out;
}

function unitQuaternion(o: { x: number; y: number; z: number; w: number } | undefined, what: string, tol: number): number[] {
  if (typeof o !== 'object' || o === null) throw new MessageError(`${what} is missing`);
  const q = [ok(o.x) ? o.x : finite(o.x, `${what}.x`), ok(o.y) ? o.y : finite(o.y, `${what}.y`), ok(o.z) ? o.z : finite(o.z, `${what}.z`), ok(o.w) ? o.w : finite(o.w, `${what}.w`)];
  const n = Math.hypot(q[0], q[1], q[2], q[3]);
  const dev = Math.abs(n - 1);
  if (!(dev <= tol)) throw new MessageError(`${what} has norm ${n}, off 1 by ${dev.toExponential(2)}, beyond the bound ${tol} (expected a unit quaternion)`);
  return q;
}

/**
 * the named values of a JointState field, by joint name (names repeated or arrays of the wrong
 * length are errors), written into `out` from `o` (a new list when no `out` is given)
 */
function jointField(msg: Record<string, unknown>, field: 'position' | 'velocity' | 'effort', joints: readonly string[], out: { [k: number]: number; length: number } = new Array<number>(joints.length), o = 0): { [k: number]: number; length: number } {
  const names = msg.name as string[] | undefined;
  const vals = msg[field] as ArrayLike<number> | undefined;
  if (!Array.isArray(names)) throw new MessageError('JointState without "name"');
  if (!vals || vals.length === 0) throw new MessageError(`JointState.${field} is empty`);
  if (vals.length !== names.length) throw new MessageError(`JointState.${field} has ${vals.length} values for ${names.length} names`);
  // where each joint is in the message's names, worked out again only when the names change (a
  // recorder sends the same list in every message)
  const c = jointOrder.get(joints);
  if (c !== undefined && sameNames(c.names, names)) {
    const at = c.at;
    for (let i = 0; i < joints.length; i++) {
      const x = vals[at[i]];
      out[o + i] = typeof x === 'number' && x - x === 0 ? x : finite(x, `${field} of joint "${joints[i]}"`);
    }
    return out;
  }
  const at = new Array<number>(joints.length);
  for (let i = 0; i < joints.length; i++) {
    const k = names.indexOf(joints[i]);
    if (k < 0) throw new MessageError(`JointState has no joint "${joints[i]}"`);
    at[i] = k;
    out[o + i] = finite(vals[k], `${field} of joint "${joints[i]}"`);
  }
  jointOrder.set(joints, { names: names.slice(), at });
  return out;
}

/** the same list of names (a recorder sends the same list in every message) */
function sameNames(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return false;
  return true;
}
/** per list of joints read, the last names met and the index of each joint in them */
const jointOrder = new WeakMap<readonly string[], { names: string[]; at: number[] }>();

const WRENCH_INDEX: Record<string, [part: 'torque' | 'force', axis: 'x' | 'y' | 'z']> = {
  tx: ['torque', 'x'], ty: ['torque', 'y'], tz: ['torque', 'z'], fx: ['force', 'x'], fy: ['force', 'y'], fz: ['force', 'z'],
};
const ACCEL_INDEX: Record<string, [part: 'angular' | 'linear', axis: 'x' | 'y' | 'z']> = {
  alpha_x: ['angular', 'x'], alpha_y: ['angular', 'y'], alpha_z: ['angular', 'z'], ax: ['linear', 'x'], ay: ['linear', 'y'], az: ['linear', 'z'],
};

/** the message types each kind of channel can be read from */
/** the message types each channel may carry (names without "/msg/"); the guide's log-format reference lists them */
export const ACCEPTED: Record<string, string[]> = {
  joints: ['sensor_msgs/JointState'],
  joint_acceleration: ['sensor_msgs/JointState'],
  joint_torque: ['sensor_msgs/JointState'],
  force_torque: ['geometry_msgs/WrenchStamped'],
  external_wrench: ['geometry_msgs/WrenchStamped'],
  accelerometer: ['sensor_msgs/Imu', 'geometry_msgs/AccelStamped'],
  gyroscope: ['sensor_msgs/Imu'],
  spatial_acceleration: ['geometry_msgs/AccelStamped', 'sensor_msgs/Imu'],
  'base pose': ['nav_msgs/Odometry', 'geometry_msgs/PoseStamped'],
  'base orientation': ['sensor_msgs/Imu'],
  'base twist': ['nav_msgs/Odometry', 'geometry_msgs/TwistStamped'],
  'true joint torques': ['sensor_msgs/JointState'],
  'true contact wrench': ['geometry_msgs/WrenchStamped'],
  clock: [],
};

/** a planned read of one topic: the channel it feeds and how, once the topic's type is known */
interface Plan {
  kind: string;
  /** the channel fed (none for the sample clock) */
  channel?: Channel;
  frameId?: string;
  /** a spatial_acceleration sensor with angular components: only AccelStamped carries them */
  needsAccel?: boolean;
  make(type: string): Extractor['read'];
}

/** A CRC-32 (IEEE 802.3, MCAP's) of the bytes, unsigned: Node's zlib.crc32, for instance. */
export type Crc32 = (data: Uint8Array) => number;

/**
 * Sampling of an MCAP recording for one estimation system. Feed it bytes with {@link McapSampler.push}
 * and take the rows with {@link McapSampler.drain}; {@link McapSampler.end} at the end of the stream.
 */
export class McapSampler {
  private readonly reader: McapStreamReader;
  private readonly schemas = new Map<number, McapTypes.Schema>();
  /** channel id → decoder and extractors (undefined: a topic not mapped) */
  private readonly byChannel = new Map<number, { topic: string; decode: MessageReader; fast: JointStateReader | null; extractors: Extractor[]; clock: Plan | undefined } | null>();
  private readonly plans = new Map<string, Plan[]>();
  private readonly channels: Channel[] = [];
  /** each channel's value at the tick being sampled (reused tick after tick) */
  private at: (Float64Array | null)[] = [];
  private readonly jointChannels: { channel: Channel; joints: string[] }[] = [];
  /** the base: pose (or orientation, position 0), and twist, or else the gyroscope on it (linear velocity 0) */
  private baseChannels: { pose: Channel; twist: Channel | null; gyro: Channel | null } | null = null;
  private readonly sensorChannels = new Map<string, Channel>();
  private readonly sensorSet = new Set<Channel>();
  private truthTau: { channel: Channel; names: string[] } | null;
  private readonly truthContacts = new Map<string, Channel>();
  private readonly out: (Sample | LogError)[] = [];
  private readonly ticks: bigint[] = [];
  private tickCount = 0;
  private lastTick: bigint | null = null;
  private lastWritten: bigint | null = null;
  private newest: bigint | null = null;
  private rateStart: bigint | null = null;
  private readonly period: number;
  private failed = false;
  /** topics mapped, for the end-of-stream check */
  private readonly topicsSeen = new Set<string>();
  private readonly window: bigint;
  private readonly jointIndex = new Map<string, { iq: number; iv: number }>();
  /** per list of joints of a joint state topic, their places in q and v */
  private readonly jointSlots = new WeakMap<string[], { iq: number; iv: number }[]>();
  /** every moving joint was found in the joint state topics (checked at the samples until then) */
  private covered = false;
  /** the chunks' CRC check when the caller gives a CRC-32 (`crc32`): the CRC the next chunk's records must have (0: not recorded), and the recording's library for the message */
  private readonly crc32: Crc32 | null;
  private chunkCrc = 0;
  private library: string | null = null;

  /**
   * `decompress`: the chunk decompressors by compression name (`zstd`, `lz4`, `bz2`), for recordings
   * with compressed chunks; `loadDecompressHandlers()` of `@mcap/support` gives them (the command
   * line loads them). Without one, a compressed recording is refused naming its compression.
   * `crc32`: a CRC-32 to check the chunks with (Node's zlib.crc32; the command line gives it) in
   * place of @mcap/core's own, which runs in JavaScript at ~180 MB/s (a quarter of the reading of
   * the demo recording); the same chunks are refused, with the same message, at the same point
   * (attachments, which the sampling does not read, are then not checked).
   */
  constructor(readonly schema: LogSchema, readonly mapping: RosMapping, decompress?: McapTypes.DecompressHandlers, crc32?: Crc32) {
    this.crc32 = crc32 ?? null;
    if (crc32 === undefined) this.reader = new McapStreamReader({ validateCrcs: true, decompressHandlers: decompress });
    else {
      // as the reader checks a chunk: its records after decompression, before any of them is read
      // (the chunk record comes first, includeChunks; the decompressor runs next)
      const checked: McapTypes.DecompressHandlers = {};
      for (const [name, f] of Object.entries(decompress ?? {})) {
        checked[name] = (buffer, size) => {
          const out = f(buffer, size);
          this.checkChunk(out);
          return out;
        };
      }
      this.reader = new McapStreamReader({ validateCrcs: false, includeChunks: true, decompressHandlers: checked });
    }
    const m = schema.model;
    this.window = BigInt(Math.round(mapping.reorder_window * 1e9));
    this.period = 'rate' in mapping.clock ? 1e9 / mapping.clock.rate : 0;
    const channel = (label: string, topic: string, n: number, quats: number[] = []): Channel => {
      const c: Channel = { label, topic, n, quats, stamps: [], values: [], index: this.channels.length };
      this.channels.push(c);
      return c;
    };
    const plan = (topic: string, p: Plan) => {
      const l = this.plans.get(topic) ?? [];
      l.push(p);
      this.plans.set(topic, l);
    };
    // joints: q and v from every JointState topic, each joint from the first topic that names it
    const joints = m.movingJoints().filter((j) => j.type !== 'floating');
    for (const j of joints) if (j.nq !== 1 || j.nv !== 1) throw new McapLogError(`joint "${j.name}" (${j.type}) has ${j.nq} position coordinates: a sensor_msgs/msg/JointState carries one per joint name`);
    const jointNames = joints.map((j) => j.name);
    for (const j of joints) this.jointIndex.set(j.name, { iq: j.iq, iv: j.iv });
    for (const topic of mapping.joint_states) {
      // the joints a topic carries are learnt from its first message
      const entry = { channel: channel(`joints ${topic}`, topic, 0), joints: [] as string[] };
      this.jointChannels.push(entry);
      plan(topic, {
        kind: 'joints', channel: entry.channel,
        make: () => (msg) => {
          if (entry.joints.length === 0) {
            const names = (msg.name as string[] | undefined) ?? [];
            const taken = new Set(this.jointChannels.flatMap((e) => e.joints));
            entry.joints = jointNames.filter((n) => names.includes(n) && !taken.has(n));
            if (entry.joints.length === 0) throw new MessageError(`names none of the model's joints that other topics do not carry (names: ${names.slice(0, 6).join(', ')}${names.length > 6 ? ', …' : ''})`);
            entry.channel.n = 2 * entry.joints.length;
          }
          const n = entry.joints.length, out = new Float64Array(2 * n);
          jointField(msg, 'position', entry.joints, out, 0);
          // no velocities (many drivers publish an empty array): NaN, derived from the positions over time
          const vel = msg.velocity as ArrayLike<number> | undefined;
          if (schema.derive && (vel === undefined || vel.length === 0)) out.fill(NaN, n);
          else jointField(msg, 'velocity', entry.joints, out, n);
          return out;
        },
      });
    }
    if (m.floatingBase) {
      const b = mapping.base;
      if (!b) throw new McapLogError('the base is floating: "ros.base" must name the topic of its pose (nav_msgs/msg/Odometry, or geometry_msgs/msg/PoseStamped) or of its orientation (a sensor_msgs/msg/Imu), and optionally of its twist (geometry_msgs/msg/TwistStamped)');
      const gyro = schema.baseGyro;
      const pose = channel(b.pose !== undefined ? 'base pose' : 'base orientation', (b.pose ?? b.orientation)!, 7, [3]);
      if (b.pose !== undefined) {
        plan(b.pose, {
          kind: 'base pose', channel: pose,
          make: (type) => (msg) => {
            const p = (type === 'nav_msgs/Odometry' ? (msg.pose as { pose: unknown }).pose : msg.pose) as { position: Vec3; orientation: { x: number; y: number; z: number; w: number } };
            const out = vec3Into(new Float64Array(7), 0, p?.position, 'pose.position');
            out.set(unitQuaternion(p?.orientation, 'pose.orientation', schema.quaternionTolerance), 3);
            return out;
          },
        });
      } else {
        // an IMU's orientation is its own frame's in the world (sensor_msgs/msg/Imu); the base's is
        // q_imu ⊗ q_mount, q_mount the rotation from the base's axes to the IMU's: the mounting of the
        // problem's gyroscope on the base (its link and origin), the base's axes without one
        const mount = gyro?.E ? quaternionOf(gyro.E, true) : null;
        plan(b.orientation!, {
          kind: 'base orientation', channel: pose,
          make: () => (msg) => {
            const cov = msg.orientation_covariance as ArrayLike<number> | undefined;
            if (cov !== undefined && cov[0] === -1) throw new MessageError('orientation_covariance[0] is -1: this IMU publishes no orientation');
            const qi = unitQuaternion(msg.orientation as { x: number; y: number; z: number; w: number } | undefined, 'orientation', schema.quaternionTolerance);
            const out = new Float64Array(7); // position 0: no joint torque or contact wrench depends on it
            if (mount === null) out.set(qi, 3); else quaternionProduct(out, 3, qi, mount);
            return out;
          },
        });
      }
      let twist: Channel | null = null, gyroChannel: Channel | null = null;
      if (b.twist !== undefined) {
        twist = channel('base twist', b.twist, 6);
        plan(b.twist, {
          kind: 'base twist', channel: twist,
          make: (type) => (msg) => {
            const t = (type === 'nav_msgs/Odometry' ? (msg.twist as { twist: unknown }).twist : msg.twist) as { linear: Vec3; angular: Vec3 };
            return vec3Into(vec3Into(new Float64Array(6), 0, t?.linear, 'twist.linear'), 3, t?.angular, 'twist.angular');
          },
        });
      } else {
        // no twist: linear velocity 0 (Galilean invariance), the angular velocity the gyroscope's, in the base's axes
        if (!gyro) throw new McapLogError('"ros.base" names no twist topic, and the problem has no gyroscope on the base link to give the base\'s angular velocity: add "twist" (geometry_msgs/msg/TwistStamped or nav_msgs/msg/Odometry), or a gyroscope sensor on the base link mapped in "ros.sensors"');
        const src = mapping.sensors.get(gyro.name);
        if (!src) throw new McapLogError(`"ros.base" names no twist topic: the base's angular velocity is the reading of gyroscope "${gyro.name}", which "ros.sensors" must map (a sensor_msgs/msg/Imu topic, its angular_velocity)`);
        if (src.field !== undefined) throw new McapLogError(`"ros.sensors["${gyro.name}"].field" is for joint sensors (a gyroscope reads a sensor_msgs/msg/Imu's angular_velocity)`);
        const E = gyro.E;
        gyroChannel = channel(gyro.name, src.topic, 3);
        plan(src.topic, {
          kind: 'gyroscope', channel: gyroChannel, frameId: src.frame_id,
          make: () => (msg) => {
            const out = vec3Into(new Float64Array(3), 0, msg.angular_velocity as Vec3 | undefined, 'angular_velocity');
            rotateInPlace(E, out, 0);
            return out;
          },
        });
      }
      this.baseChannels = { pose, twist, gyro: gyroChannel };
    } else if (mapping.base) throw new McapLogError('"ros.base" is given but the base is fixed');
    // sensors: every sensor with readings must be mapped
    const known = new Set([...schema.sensors.keys(), ...(schema.baseGyro ? [schema.baseGyro.name] : [])]);
    for (const name of mapping.sensors.keys()) if (!known.has(name)) throw new McapLogError(`"ros.sensors" maps "${name}", which is not a sensor of the problem with readings (sensors: ${[...known].join(', ')})`);
    const types = new Map(schema.es.sensors.map((s) => [s.spec.name, s.spec.type]));
    for (const [name, comps] of schema.sensors) {
      const src = mapping.sensors.get(name);
      const type = types.get(name)!;
      // joint accelerations without a topic (ROS 2 has no message for them): derived from the positions over time
      if (!src && schema.derive && type === 'joint_acceleration') continue;
      if (!src) throw new McapLogError(`sensor "${name}" has no topic: add it to "ros.sensors" ({"topic": …, "frame_id": …})`);
      const ch = channel(name, src.topic, comps.length);
      this.sensorChannels.set(name, ch);
      this.sensorSet.add(ch);
      const isJoint = type === 'joint_acceleration' || type === 'joint_torque';
      if (src.field !== undefined && !isJoint) throw new McapLogError(`"ros.sensors["${name}"].field" is for joint sensors (a ${type} sensor reads its message type's fields)`);
      if (isJoint && src.frame_id !== undefined) throw new McapLogError(`"ros.sensors["${name}"].frame_id": a joint sensor reads a JointState by joint names, not by frame`);
      const field = src.field ?? (type === 'joint_torque' ? 'effort' : undefined);
      if (isJoint && field === undefined) throw new McapLogError(`sensor "${name}" (joint_acceleration): "ros.sensors["${name}"].field" must name the JointState field that carries the accelerations (ROS 2 has no standard message for them)`);
      const wrenchAt = comps.map((c) => WRENCH_INDEX[c]), accelAt = comps.map((c) => ACCEL_INDEX[c]);
      const gyroAt = comps.map((c) => ['wx', 'wy', 'wz'].indexOf(c)), accAt = comps.map((c) => ['ax', 'ay', 'az'].indexOf(c));
      for (const c of comps) if (isJoint && /\[/.test(c)) throw new McapLogError(`sensor "${name}": joint "${c}" has several coordinates; a JointState carries one per name`);
      plan(src.topic, {
        kind: type, channel: ch, frameId: src.frame_id, needsAccel: type === 'spatial_acceleration' && comps.some((c) => c.startsWith('alpha')),
        make: (mt) => (msg) => {
          if (isJoint) return jointField(msg, field!, comps, new Float64Array(comps.length)) as Float64Array;
          if (type === 'force_torque' || type === 'external_wrench') {
            const w = msg.wrench as { torque: Vec3; force: Vec3 } | undefined;
            if (!w) throw new MessageError('no wrench');
            const out = new Float64Array(wrenchAt.length);
            for (let k = 0; k < wrenchAt.length; k++) { const [p, a] = wrenchAt[k], x = w[p]?.[a]; out[k] = ok(x) ? x : finite(x, `wrench.${p}.${a}`); }
            return out;
          }
          if (mt === 'geometry_msgs/AccelStamped') {
            const a = msg.accel as { angular: Vec3; linear: Vec3 } | undefined;
            if (!a) throw new MessageError('no accel');
            const out = new Float64Array(accelAt.length);
            for (let k = 0; k < accelAt.length; k++) { const [p, ax] = accelAt[k], x = a[p]?.[ax]; out[k] = ok(x) ? x : finite(x, `accel.${p}.${ax}`); }
            return out;
          }
          // sensor_msgs/Imu
          if (type === 'gyroscope') {
            const w = vec3(msg.angular_velocity as Vec3, 'angular_velocity');
            return Float64Array.from(gyroAt, (k) => w[k]);
          }
          const a = vec3(msg.linear_acceleration as Vec3, 'linear_acceleration');
          return Float64Array.from(accAt, (k) => a[k]);
        },
      });
    }
    // true values (a simulation's): joint torques by name, contact wrenches by frame id = contact link
    this.truthTau = null;
    if (mapping.truth?.joint_torques !== undefined) {
      const entry = { channel: channel('true joint torques', mapping.truth.joint_torques, 0), names: [] as string[] };
      entry.channel.truth = true;
      this.truthTau = entry;
      plan(entry.channel.topic, {
        kind: 'true joint torques', channel: entry.channel,
        make: () => (msg) => {
          if (entry.names.length === 0) entry.names = ((msg.name as string[] | undefined) ?? []).slice();
          return jointField(msg, 'effort', entry.names, new Float64Array(entry.names.length)) as Float64Array;
        },
      });
    }
    if (mapping.truth?.contact_wrenches !== undefined) {
      for (const link of schema.es.contacts.map((c) => c.link)) {
        const ch = channel(`true contact wrench ${link}`, mapping.truth.contact_wrenches, 6);
        ch.truth = true;
        this.truthContacts.set(link, ch);
        plan(ch.topic, {
          kind: 'true contact wrench', channel: ch, frameId: link,
          make: () => (msg) => {
            const w = msg.wrench as { torque: Vec3; force: Vec3 } | undefined;
            return vec3Into(vec3Into(new Float64Array(6), 0, w?.torque, 'wrench.torque'), 3, w?.force, 'wrench.force');
          },
        });
      }
    }
    if ('topic' in mapping.clock) {
      const clockTopic = mapping.clock.topic;
      const frame = mapping.clock.frame_id;
      plan(clockTopic, { kind: 'clock', frameId: frame, make: () => () => new Float64Array(0) });
    }
    this.at = new Array<Float64Array | null>(this.channels.length).fill(null);
  }

  /**
   * The labels of the input channels (joint topics, base pose and twist, sensors), in the order of a
   * sample's staleness: the staleness columns of estimates written as CSV.
   */
  inputChannels(): string[] {
    return this.channels.filter((c) => !c.truth).map((c) => c.label);
  }

  /** bytes of the recording, as they come */
  push(bytes: Uint8Array): void {
    if (this.failed) return;
    try {
      this.reader.append(bytes);
      for (let r; (r = this.reader.nextRecord());) this.record(r);
    } catch (e) {
      if (e instanceof McapLogError) throw e;
      const c = /Unsupported compression (\S+)/.exec((e as Error).message);
      if (c) throw new McapLogError(`its chunks are compressed with ${c[1]}, which this reader was given no decompressor for: write an uncompressed copy first (the MCAP command-line tool's "mcap decompress")`);
      this.failed = true;
      this.out.push({ line: this.tickCount + 1, where: 'the recording', message: `cannot be read further (${readerWords(e)}): the samples before this point are kept` });
    }
  }

  /** the rows ready so far, in order */
  drain(): (Sample | LogError)[] {
    return this.out.splice(0, this.out.length);
  }

  /** the end of the stream: every pending tick is sampled */
  end(): void {
    if (!this.failed && !this.reader.done()) {
      this.out.push({ line: this.tickCount + 1, where: 'the recording', message: `ends early (${this.reader.bytesRemaining()} bytes of an incomplete record, no footer): the samples before this point are kept` });
    }
    for (const [topic] of this.plans) {
      if (!this.topicsSeen.has(topic)) throw new McapLogError(`topic "${topic}" (${this.plans.get(topic)!.map((p) => p.kind === 'joints' ? 'joint states' : p.kind === 'clock' ? 'sample clock' : p.channel!.label).join(', ')}) is not in the recording`);
    }
    this.flush(null);
  }

  private record(r: McapTypes.TypedMcapRecord): void {
    if (r.type === 'Message') this.message(r);
    else if (r.type === 'Schema') this.schemas.set(r.id, r);
    else if (r.type === 'Channel') this.openChannel(r);
    else if (r.type === 'Chunk') {
      // (crc32 given) an uncompressed chunk is checked here, a compressed one by its decompressor
      this.chunkCrc = r.uncompressedCrc;
      if (r.compression === '' || r.records.byteLength === 0) this.checkChunk(r.records);
    } else if (r.type === 'Header') this.library = r.library;
  }

  /** the records of the chunk just read against its CRC (0: none recorded), as @mcap/core checks them, with its message */
  private checkChunk(records: Uint8Array): void {
    const expected = this.chunkCrc;
    this.chunkCrc = 0;
    if (expected === 0) return;
    const crc = this.crc32!(records);
    if (crc !== expected) throw new Error(`Incorrect chunk CRC ${crc} (expected ${expected}) ${this.library === null ? '[no header]' : `[library=${this.library}]`}`);
  }

  private openChannel(c: McapTypes.Channel): void {
    const plans = this.plans.get(c.topic);
    if (!plans) { this.byChannel.set(c.id, null); return; }
    const schema = this.schemas.get(c.schemaId);
    const where = `topic "${c.topic}"`;
    if (!schema) throw new McapLogError(`${where}: its channel has no schema (schema id ${c.schemaId})`);
    if (c.messageEncoding !== 'cdr') throw new McapLogError(`${where}: message encoding "${c.messageEncoding}", expected "cdr" (ROS 2)`);
    if (schema.encoding !== 'ros2msg') throw new McapLogError(`${where}: schema encoding "${schema.encoding}", expected "ros2msg"`);
    const type = rosTypeName(schema.name);
    for (const p of plans) {
      const ok = p.kind === 'clock' ? true : ACCEPTED[p.kind].includes(type);
      const needsAccel = p.needsAccel && type !== 'geometry_msgs/AccelStamped';
      if (!ok || needsAccel) {
        const what = p.kind === 'joints' ? 'the joint states' : p.kind.startsWith('base') ? `the ${p.kind}` : `sensor "${p.channel!.label}" (${p.kind})`;
        throw new McapLogError(`${where} carries ${schema.name}, which cannot give ${what}: expected ${needsAccel ? 'geometry_msgs/msg/AccelStamped (an Imu has no angular acceleration)' : ACCEPTED[p.kind].map((t) => t.replace('/', '/msg/')).join(' or ')}`);
      }
    }
    let decode: MessageReader, fast: JointStateReader | null;
    try {
      const definition = parseMsgDefinition(new TextDecoder().decode(schema.data), { ros2: true });
      decode = new MessageReader(definition);
      // the standard JointState (the joint topics) is read without decoding its names every time
      fast = isStandardJointState(definition) ? new JointStateReader() : null;
    } catch (e) {
      throw new McapLogError(`${where}: the message definition of ${schema.name} cannot be parsed (${readerWords(e)})`);
    }
    this.topicsSeen.add(c.topic);
    const extractors: Extractor[] = plans.filter((p) => p.channel !== undefined).map((p) => ({ channel: p.channel!, frameId: p.frameId, read: p.make(type) }));
    this.byChannel.set(c.id, { topic: c.topic, decode, fast, extractors, clock: plans.find((p) => p.kind === 'clock') });
  }

  private bad(topic: string, logTime: bigint, message: string): void {
    this.out.push({ line: this.tickCount + 1, where: `topic "${topic}", log time ${nsText(logTime)} s`, message });
  }

  private message(r: McapTypes.Message): void {
    const ch = this.byChannel.get(r.channelId);
    if (ch === undefined) { this.bad(`(channel ${r.channelId})`, r.logTime, 'a message on a channel that was never declared'); return; }
    if (ch === null) return;
    let msg: Record<string, unknown>;
    try {
      msg = ch.fast?.read(r.data) ?? ch.decode.readMessage<Record<string, unknown>>(r.data);
    } catch (e) {
      this.bad(ch.topic, r.logTime, `cannot be decoded (${readerWords(e)})`);
      return;
    }
    let stamp: bigint;
    const header = msg.header as Header | undefined;
    try {
      stamp = this.mapping.stamps === 'log_time' ? r.logTime : stampNs(header, 'message');
    } catch (e) {
      this.bad(ch.topic, r.logTime, (e as Error).message);
      return;
    }
    const frame = header?.frame_id;
    const clockPlan = ch.clock;
    let used = false, failed = false;
    for (const x of ch.extractors) {
      if (x.frameId !== undefined && frame !== x.frameId) continue;
      used = true;
      let vals: Float64Array;
      try {
        vals = x.read(msg);
      } catch (e) {
        if (!(e instanceof MessageError)) throw e;
        this.bad(ch.topic, r.logTime, `${x.channel.label}: ${e.message}`);
        failed = true;
        continue;
      }
      this.insert(x.channel, stamp, vals, ch.topic, r.logTime);
    }
    if (clockPlan && (clockPlan.frameId === undefined || clockPlan.frameId === frame)) {
      used = true;
      if (failed) { /* a message reported as bad gives no tick */ } else if (this.lastTick !== null && stamp <= this.lastTick) this.bad(ch.topic, r.logTime, `sample clock: stamp ${nsText(stamp)} s is not after the previous sample's (${nsText(this.lastTick)} s)`);
      else { this.ticks.push(stamp); this.lastTick = stamp; }
    }
    if (!used) this.bad(ch.topic, r.logTime, `frame id "${frame}" is mapped to no sensor of this topic (mapped: ${ch.extractors.map((x) => `"${x.frameId}"`).join(', ')})`);
    if (this.newest === null || stamp > this.newest) this.newest = stamp;
    if ('rate' in this.mapping.clock) {
      this.rateStart ??= stamp;
      if (stamp < this.rateStart) return;
      const k0 = this.tickCount + this.ticks.length;
      if (Number(this.newest - this.rateStart) / this.period - k0 > 1e6) {
        throw new McapLogError(`topic "${ch.topic}": a stamp of ${nsText(stamp)} s lies more than a million sample periods after the previous ones (from ${nsText(this.rateStart + BigInt(Math.round(k0 * this.period)))} s): stamps from different clocks? ("ros.stamps": "log_time" uses the recorder's)`);
      }
      for (;;) {
        const k = this.tickCount + this.ticks.length;
        const t = this.rateStart + BigInt(Math.round(k * this.period));
        if (t > this.newest) break;
        this.ticks.push(t);
      }
    }
    this.flush(this.newest);
  }

  private insert(c: Channel, stamp: bigint, vals: Float64Array, topic: string, logTime: bigint): void {
    if (this.lastWritten !== null && stamp <= this.lastWritten && c.stamps.length > 0 && stamp < c.stamps[c.stamps.length - 1]) {
      this.bad(topic, logTime, `${c.label}: stamp ${nsText(stamp)} s arrives after the samples up to ${nsText(this.lastWritten)} s were written (out of order by more than "reorder_window")`);
      return;
    }
    let k = c.stamps.length;
    while (k > 0 && c.stamps[k - 1] > stamp) k--;
    if (k > 0 && c.stamps[k - 1] === stamp) {
      this.bad(topic, logTime, `${c.label}: a second message with stamp ${nsText(stamp)} s (the first one is kept)`);
      return;
    }
    c.stamps.splice(k, 0, stamp);
    c.values.splice(k, 0, vals);
  }

  /** sample the ticks that are ready (all when `newest` is null: the end of the stream) */
  private flush(newest: bigint | null): void {
    while (this.ticks.length > 0) {
      const t = this.ticks[0];
      if (newest !== null) {
        const waited = newest - t > this.window;
        if (!waited && !this.allReached(t)) return;
      }
      this.ticks.shift();
      this.tickCount++;
      this.out.push(this.sample(t, this.tickCount));
      this.lastWritten = t;
      // keep, per channel, the last message at or before t and everything after it
      for (const c of this.channels) {
        let k = 0;
        while (k + 1 < c.stamps.length && c.stamps[k + 1] <= t) k++;
        if (k > 0) { c.stamps.splice(0, k); c.values.splice(0, k); }
      }
    }
  }

  /** every channel has a message at or after t */
  private allReached(t: bigint): boolean {
    for (const c of this.channels) if (c.stamps.length === 0 || c.stamps[c.stamps.length - 1] < t) return false;
    return true;
  }

  /**
   * why channel c gives no value at tick `line` (t), or null when it is a sensor the mapping leaves
   * out of such samples
   */
  private why(c: Channel, line: number, t: bigint, message: string): LogError | null {
    return this.mapping.stale_sensors === 'leave_out' && this.sensorSet.has(c) ? null : { line, where: `sample ${line} (t = ${nsText(t)} s)`, message: `${c.label}: ${message}` };
  }

  /** the values of every channel at t, assembled into a Sample (or why not) */
  private sample(t: bigint, line: number): Sample | LogError {
    const staleness = new Map<string, number>();
    const at = this.at;
    at.fill(null);
    for (let ci = 0; ci < this.channels.length; ci++) {
      const c = this.channels[ci];
      if (c.truth) continue;
      // a sensor without a value here is left out of the sample when the mapping says so
      const why = (message: string) => this.why(c, line, t, message);
      let k = c.stamps.length - 1;
      while (k >= 0 && c.stamps[k] > t) k--;
      if (k < 0) {
        const e = why(`no message at or before t${c.stamps.length ? ` (the first is at ${nsText(c.stamps[0])} s)` : ''}`);
        if (e) return e;
        continue;
      }
      const age = Number(t - c.stamps[k]) / 1e9;
      staleness.set(c.label, age);
      if (this.mapping.max_staleness !== undefined && age > this.mapping.max_staleness) {
        const e = why(`newest value is ${age} s old (max_staleness ${this.mapping.max_staleness} s)`);
        if (e) return e;
        continue;
      }
      if (c.stamps[k] === t || this.mapping.values === 'latest') { at[ci] = c.values[k]; continue; }
      if (k + 1 >= c.stamps.length) {
        const e = why(`no message after t to interpolate to (the last is at ${nsText(c.stamps[k])} s)`);
        if (e) return e;
        continue;
      }
      at[ci] = interpolate(c, c.values[k], c.values[k + 1], Number(t - c.stamps[k]) / Number(c.stamps[k + 1] - c.stamps[k]));
    }
    const m = this.schema.model;
    const q = new Float64Array(m.nq), v = new Float64Array(m.nv);
    for (const entry of this.jointChannels) {
      const x = at[entry.channel.index]!, joints = entry.joints;
      // where each joint goes in q and v, worked out once per list of joints (this runs once per sample)
      let idx = this.jointSlots.get(joints);
      if (idx === undefined) { idx = joints.map((name) => this.jointIndex.get(name)!); this.jointSlots.set(joints, idx); }
      for (let k = 0; k < joints.length; k++) { q[idx[k].iq] = x[k]; v[idx[k].iv] = x[joints.length + k]; }
    }
    if (!this.covered) {
      // every moving joint in some joint state message (checked until it holds: the lists are fixed once met)
      const covered = new Set(this.jointChannels.flatMap((e) => e.joints));
      for (const j of m.movingJoints()) {
        if (j.type !== 'floating' && !covered.has(j.name)) throw new McapLogError(`joint "${j.name}" is in no message of the joint state topic${this.mapping.joint_states.length > 1 ? 's' : ''} ${this.mapping.joint_states.join(', ')}`);
      }
      this.covered = this.jointChannels.every((e) => e.joints.length > 0);
    }
    let quaternionDeviation = 0, noBaseVelocity = false;
    if (this.baseChannels) {
      const { pose, twist, gyro } = this.baseChannels;
      const p = at[pose.index]!;
      for (let k = 0; k < 7; k++) q[k] = p[k];
      if (twist !== null) { const w = at[twist.index]!; for (let k = 0; k < 6; k++) v[k] = w[k]; } else {
        // linear velocity 0 (see Sample.noBaseVelocity), the gyroscope's angular velocity (base axes)
        const g = at[gyro!.index]!;
        for (let k = 0; k < 3; k++) v[3 + k] = g[k];
        noBaseVelocity = true;
      }
      // renormalised as the text logs' (src/io/log.ts); each message was checked against the bound
      const n = Math.hypot(q[3], q[4], q[5], q[6]);
      quaternionDeviation = Math.abs(n - 1);
      for (let k = 3; k < 7; k++) q[k] /= n;
    }
    const readings = new Map<string, Float64Array>();
    for (const [name, c] of this.sensorChannels) { const x = at[c.index]; if (x) readings.set(name, x); }
    const sample: Sample = { line, t: Number(t) / 1e9, stamp: t, q, v, readings, staleness, quaternionDeviation };
    if (noBaseVelocity) sample.noBaseVelocity = true;
    // the truth stamped exactly t, when the recording carries it
    const exact = (c: Channel) => { const k = c.stamps.indexOf(t); return k < 0 ? undefined : c.values[k]; };
    const truth: { tau?: Record<string, number>; contact_wrenches?: Record<string, { torque: number[]; force: number[] }> } = {};
    const tt = this.truthTau && exact(this.truthTau.channel);
    if (tt && this.truthTau) {
      const tau: Record<string, number> = {}, names = this.truthTau.names;
      for (let k = 0; k < names.length; k++) tau[names[k]] = tt[k];
      truth.tau = tau;
    }
    for (const [link, c] of this.truthContacts) {
      const w = exact(c);
      if (w) (truth.contact_wrenches ??= {})[link] = { torque: [w[0], w[1], w[2]], force: [w[3], w[4], w[5]] };
    }
    if (truth.tau || truth.contact_wrenches) sample.truth = truth;
    return sample;
  }
}

/**
 * The unit quaternion (x, y, z, w) of the rotation matrix E (row-major 3×3), or of Eᵀ with
 * `transpose` (Shepperd's method: the largest of w, x, y, z is found first, then the others from it).
 */
function quaternionOf(E: Float64Array, transpose: boolean): number[] {
  const R = (i: number, j: number) => (transpose ? E[3 * j + i] : E[3 * i + j]);
  const tr = R(0, 0) + R(1, 1) + R(2, 2);
  let x: number, y: number, z: number, w: number;
  if (tr > 0) {
    const s = 2 * Math.sqrt(tr + 1);
    w = s / 4; x = (R(2, 1) - R(1, 2)) / s; y = (R(0, 2) - R(2, 0)) / s; z = (R(1, 0) - R(0, 1)) / s;
  } else if (R(0, 0) > R(1, 1) && R(0, 0) > R(2, 2)) {
    const s = 2 * Math.sqrt(1 + R(0, 0) - R(1, 1) - R(2, 2));
    w = (R(2, 1) - R(1, 2)) / s; x = s / 4; y = (R(0, 1) + R(1, 0)) / s; z = (R(0, 2) + R(2, 0)) / s;
  } else if (R(1, 1) > R(2, 2)) {
    const s = 2 * Math.sqrt(1 + R(1, 1) - R(0, 0) - R(2, 2));
    w = (R(0, 2) - R(2, 0)) / s; x = (R(0, 1) + R(1, 0)) / s; y = s / 4; z = (R(1, 2) + R(2, 1)) / s;
  } else {
    const s = 2 * Math.sqrt(1 + R(2, 2) - R(0, 0) - R(1, 1));
    w = (R(1, 0) - R(0, 1)) / s; x = (R(0, 2) + R(2, 0)) / s; y = (R(1, 2) + R(2, 1)) / s; z = s / 4;
  }
  const n = Math.hypot(x, y, z, w);
  return [x / n, y / n, z / n, w / n];
}

/** out[o … o+4) = a ⊗ b (Hamilton product, (x, y, z, w)): the rotation R(a) R(b) */
function quaternionProduct(out: Float64Array, o: number, a: ArrayLike<number>, b: ArrayLike<number>): void {
  const [ax, ay, az, aw] = [a[0], a[1], a[2], a[3]], [bx, by, bz, bw] = [b[0], b[1], b[2], b[3]];
  out[o] = aw * bx + ax * bw + ay * bz - az * by;
  out[o + 1] = aw * by - ax * bz + ay * bw + az * bx;
  out[o + 2] = aw * bz + ax * by - ay * bx + az * bw;
  out[o + 3] = aw * bw - ax * bx - ay * by - az * bz;
}

/** linear interpolation of two value vectors, spherical for quaternion blocks */
function interpolate(c: Channel, a: Float64Array, b: Float64Array, s: number): Float64Array {
  const x = new Float64Array(a.length);
  for (let k = 0; k < a.length; k++) x[k] = a[k] + s * (b[k] - a[k]);
  for (const o of c.quats) {
    const d = a[o] * b[o] + a[o + 1] * b[o + 1] + a[o + 2] * b[o + 2] + a[o + 3] * b[o + 3];
    const sign = d < 0 ? -1 : 1;
    // the angle between the two unit 4-vectors, accurate at any size: 2 atan2(|a − b|, |a + b|)
    let dm = 0, dp = 0;
    for (let k = 0; k < 4; k++) { const m = a[o + k] - sign * b[o + k], p = a[o + k] + sign * b[o + k]; dm += m * m; dp += p * p; }
    const th = 2 * Math.atan2(Math.sqrt(dm), Math.sqrt(dp));
    let wa: number, wb: number;
    if (th < 1e-9) { wa = 1 - s; wb = s; } else {
      const sn = Math.sin(th);
      wa = Math.sin((1 - s) * th) / sn; wb = Math.sin(s * th) / sn;
    }
    let n = 0;
    for (let k = 0; k < 4; k++) { x[o + k] = wa * a[o + k] + sign * wb * b[o + k]; n += x[o + k] * x[o + k]; }
    n = Math.sqrt(n);
    for (let k = 0; k < 4; k++) x[o + k] /= n;
  }
  return x;
}

/**
 * The samples of a recording, from a stream of byte chunks: a {@link Sample} per tick of the sample
 * clock, a {@link LogError} (with `where`: topic and log time, or the tick) per message or tick that
 * cannot be used. Throws {@link McapLogError} when the recording cannot be read with this problem.
 * `sampler`: one made beforehand (its constructor checks the mapping against the problem).
 */
export async function* mcapSamples(chunks: AsyncIterable<Uint8Array>, schema: LogSchema, mapping: RosMapping | undefined, sampler?: McapSampler): AsyncGenerator<Sample | LogError> {
  if (!mapping) throw new McapLogError('the log is a ROS 2 recording (MCAP): the problem file needs a "ros" section that maps its topics to the joints, the base and the sensors');
  const s = sampler ?? new McapSampler(schema, mapping);
  for await (const c of chunks) {
    s.push(c);
    yield* s.drain();
  }
  s.end();
  yield* s.drain();
}
