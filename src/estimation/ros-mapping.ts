/**
 * The `ros` section of a problem file: which ROS 2 topics (and frame ids) of a recording carry the
 * joints, the floating base and each sensor, and how the topics, which arrive at different rates,
 * are sampled (the sample clock, latest or interpolated values, staleness limits). Validation of
 * the section's shape only; the names are checked against the estimation system when a recording
 * is opened (src/io/mcap-log.ts), after the URDF's sensors have been added. No I/O here.
 */
import { clipMessage } from '../model/warnings.ts';

/** A `ros` section that does not follow the schema (problem.ts turns it into a ProblemError). */
export class RosMappingError extends Error {
  override name = 'RosMappingError';
  constructor(message: string) { super(clipMessage(message)); }
}
const ProblemError = RosMappingError;

/** Where a sensor's readings come from. */
export interface RosSensorSource {
  topic: string;
  /** only the messages of the topic with this header.frame_id (several sensors on one topic) */
  frame_id?: string;
  /** joint sensors (sensor_msgs/msg/JointState): the field read (joint_torque: "effort" by default) */
  field?: 'position' | 'velocity' | 'effort';
}

/** The sample clock: one topic's stamps, or a fixed rate from the first stamp on. */
export type RosClock = { topic: string; frame_id?: string } | { rate: number };

/** The `ros` section of a problem file, validated, with its defaults filled in. */
export interface RosMapping {
  clock: RosClock;
  /** value of a channel at a sample time: the latest message at or before it, or the linear interpolation of the two around it */
  values: 'latest' | 'interpolate';
  /** time of a message: its header.stamp, or the time it was logged */
  stamps: 'header' | 'log_time';
  /** a sample where a channel's newest value is older than this (s) is skipped; none by default */
  max_staleness?: number;
  /** a sensor without a value at a sample (none yet, stale, nothing to interpolate to): the sample is skipped (default), or the sensor is left out of it */
  stale_sensors: 'skip_sample' | 'leave_out';
  /** how far (s) a message may arrive behind the newest one and still be used (default 1) */
  reorder_window: number;
  /** JointState topics giving the positions and velocities of the joints */
  joint_states: string[];
  /**
   * floating base: its pose (nav_msgs/msg/Odometry or geometry_msgs/msg/PoseStamped), or only its
   * orientation (a sensor_msgs/msg/Imu's `orientation`, the IMU frame's, position 0); its twist
   * (Odometry or geometry_msgs/msg/TwistStamped, base frame), or none: linear velocity 0 and the
   * angular velocity from the gyroscope on the base. One of `pose` and `orientation` is given.
   */
  base?: { pose?: string; orientation?: string; twist?: string };
  /** sensor name → its source */
  sensors: Map<string, RosSensorSource>;
  /** true values a simulation recorded, for accuracy figures: joint torques (a JointState's effort) and contact wrenches (WrenchStamped, frame_id = the contact link), read at the sample's exact stamp */
  truth?: { joint_torques?: string; contact_wrenches?: string };
}

const ROS_FIELDS = ['clock', 'values', 'stamps', 'max_staleness', 'stale_sensors', 'reorder_window', 'joint_states', 'base', 'sensors', 'truth'];

const topicName = (x: unknown, where: string): string => {
  if (typeof x !== 'string' || x.trim() === '') throw new ProblemError(`${where} must be a topic name (a non-empty string)`);
  return x;
};

const positive = (x: unknown, where: string): number => {
  if (typeof x !== 'number' || !(x > 0) || !Number.isFinite(x)) throw new ProblemError(`${where} must be a positive number`);
  return x;
};

function only(o: Record<string, unknown>, keys: string[], where: string): void {
  for (const k of Object.keys(o)) if (!keys.includes(k)) throw new ProblemError(`${where}: unknown field "${k}" (expected ${keys.join(', ')})`);
}

function object(x: unknown, where: string): Record<string, unknown> {
  if (typeof x !== 'object' || x === null || Array.isArray(x)) throw new ProblemError(`${where} must be an object`);
  return x as Record<string, unknown>;
}

/** Validate the `ros` section of a problem file (`file` names it in messages). */
export function parseRosMapping(x: unknown, file: string): RosMapping {
  const where = `${file}: "ros"`;
  const o = object(x, where);
  only(o, ROS_FIELDS, where);
  if (o.clock === undefined) throw new ProblemError(`${where}: "clock" is missing: give {"topic": "<topic whose stamps are the samples>"} or {"rate": <samples per second>}`);
  const c = object(o.clock, `${where}.clock`);
  let clock: RosClock;
  if (c.topic !== undefined && c.rate !== undefined) throw new ProblemError(`${where}.clock: give "topic" or "rate", not both`);
  if (c.rate !== undefined) {
    only(c, ['rate'], `${where}.clock`);
    clock = { rate: positive(c.rate, `${where}.clock.rate`) };
  } else {
    only(c, ['topic', 'frame_id'], `${where}.clock`);
    clock = { topic: topicName(c.topic, `${where}.clock.topic`) };
    if (c.frame_id !== undefined) clock.frame_id = topicName(c.frame_id, `${where}.clock.frame_id`);
  }
  const values = o.values ?? 'latest';
  if (values !== 'latest' && values !== 'interpolate') throw new ProblemError(`${where}.values must be "latest" or "interpolate"`);
  const stamps = o.stamps ?? 'header';
  if (stamps !== 'header' && stamps !== 'log_time') throw new ProblemError(`${where}.stamps must be "header" or "log_time"`);
  const max_staleness = o.max_staleness === undefined ? undefined : positive(o.max_staleness, `${where}.max_staleness`);
  const reorder_window = o.reorder_window === undefined ? 1 : positive(o.reorder_window, `${where}.reorder_window`);
  const stale_sensors = o.stale_sensors ?? 'skip_sample';
  if (stale_sensors !== 'skip_sample' && stale_sensors !== 'leave_out') throw new ProblemError(`${where}.stale_sensors must be "skip_sample" or "leave_out"`);
  if (o.joint_states === undefined) throw new ProblemError(`${where}: "joint_states" is missing (the sensor_msgs/msg/JointState topic(s) with the joint positions and velocities)`);
  const js = Array.isArray(o.joint_states) ? o.joint_states : [o.joint_states];
  if (js.length === 0) throw new ProblemError(`${where}.joint_states is empty`);
  const joint_states = js.map((t, k) => topicName(t, `${where}.joint_states[${k}]`));
  let base: RosMapping['base'];
  if (o.base !== undefined) {
    const b = object(o.base, `${where}.base`);
    if (b.topic !== undefined) {
      only(b, ['topic'], `${where}.base`);
      const t = topicName(b.topic, `${where}.base.topic`);
      base = { pose: t, twist: t };
    } else {
      only(b, ['pose', 'orientation', 'twist'], `${where}.base`);
      if ((b.pose === undefined) === (b.orientation === undefined)) throw new ProblemError(`${where}.base: give "topic" (nav_msgs/msg/Odometry), or "pose" (geometry_msgs/msg/PoseStamped or Odometry) or "orientation" (sensor_msgs/msg/Imu), not both, with "twist" optional (geometry_msgs/msg/TwistStamped or Odometry; without it the linear velocity is 0 and the angular velocity is the gyroscope's on the base)`);
      base = b.pose !== undefined ? { pose: topicName(b.pose, `${where}.base.pose`) } : { orientation: topicName(b.orientation, `${where}.base.orientation`) };
      if (b.twist !== undefined) base.twist = topicName(b.twist, `${where}.base.twist`);
    }
  }
  const sensors = new Map<string, RosSensorSource>();
  if (o.sensors !== undefined) {
    const s = object(o.sensors, `${where}.sensors`);
    for (const [name, v] of Object.entries(s)) {
      const w = `${where}.sensors["${name}"]`;
      const src: RosSensorSource = typeof v === 'string' ? { topic: topicName(v, w) } : (() => {
        const e = object(v, w);
        only(e, ['topic', 'frame_id', 'field'], w);
        const r: RosSensorSource = { topic: topicName(e.topic, `${w}.topic`) };
        if (e.frame_id !== undefined) r.frame_id = topicName(e.frame_id, `${w}.frame_id`);
        if (e.field !== undefined) {
          if (e.field !== 'position' && e.field !== 'velocity' && e.field !== 'effort') throw new ProblemError(`${w}.field must be "position", "velocity" or "effort" (a field of sensor_msgs/msg/JointState)`);
          r.field = e.field;
        }
        return r;
      })();
      sensors.set(name, src);
    }
  }
  const out: RosMapping = { clock, values, stamps, max_staleness, stale_sensors, reorder_window, joint_states, base, sensors };
  if (o.truth !== undefined) {
    const t = object(o.truth, `${where}.truth`);
    only(t, ['joint_torques', 'contact_wrenches'], `${where}.truth`);
    out.truth = {};
    if (t.joint_torques !== undefined) out.truth.joint_torques = topicName(t.joint_torques, `${where}.truth.joint_torques`);
    if (t.contact_wrenches !== undefined) out.truth.contact_wrenches = topicName(t.contact_wrenches, `${where}.truth.contact_wrenches`);
  }
  return out;
}

/** The `ros` section as a problem file writes it (defaults left out): `parseRosMapping` reads it back as it was. */
export function rosJson(r: RosMapping): Record<string, unknown> {
  const o: Record<string, unknown> = { clock: r.clock };
  if (r.values !== 'latest') o.values = r.values;
  if (r.stamps !== 'header') o.stamps = r.stamps;
  if (r.max_staleness !== undefined) o.max_staleness = r.max_staleness;
  if (r.stale_sensors !== 'skip_sample') o.stale_sensors = r.stale_sensors;
  if (r.reorder_window !== 1) o.reorder_window = r.reorder_window;
  o.joint_states = r.joint_states.length === 1 ? r.joint_states[0] : r.joint_states;
  if (r.base) o.base = r.base.pose !== undefined && r.base.pose === r.base.twist ? { topic: r.base.pose } : { ...r.base };
  o.sensors = Object.fromEntries(r.sensors);
  if (r.truth) o.truth = r.truth;
  return o;
}
