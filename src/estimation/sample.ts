/**
 * sample = { t, q, v, readings, … }: one valid row of a sensor log as the estimation reads it, the
 * LogError of a row that is not, and the floating base's CSV column names. The log formats that make
 * them are above (src/io/log.ts parses NDJSON and CSV rows into these and re-exports them; mcap-log.ts
 * ROS 2 recordings); the estimation (session.ts, derive.ts, contact-detection.ts) only reads them.
 */

/**
 * One valid row of a sensor log: time, model-ordered q and q̇, each sensor's readings, and the
 * row's `truth` when it has one.
 */
export interface Sample {
  line: number;
  t: number;
  q: Float64Array;
  v: Float64Array;
  /** readings by sensor name, in the sensor's input order */
  readings: Map<string, Float64Array>;
  /**
   * the sample's `truth` object, if any: NDJSON's "truth"; a CSV log's `truth.tau.<joint>` and
   * `truth.contact.<link>.<tx … fz>` columns (named as the estimates' columns), as
   * {tau: {joint: x}, contact_wrenches: {link: {torque, force}}}
   */
  truth?: unknown;
  /** the sample time in integer nanoseconds, exact (ROS 2 recordings) */
  stamp?: bigint;
  /** ROS 2 recordings: per channel, the age (s) of its newest value at or before t */
  staleness?: Map<string, number>;
  /** channels of the row the problem does not use (ignored unless the schema is strict) */
  ignored?: string[];
  /** the contacts the row names as active (NDJSON `"contacts": [link, …]`; CSV: a `contacts` column, `l_sole+r_sole` or `none`), if it names them */
  contacts?: string[];
  /** largest |‖quaternion‖ − 1| of the row before it was renormalised */
  quaternionDeviation?: number;
  /** the row has no time: `t` is its line number */
  untimed?: boolean;
  /**
   * a floating base whose linear velocity the row does not carry: estimated at zero linear
   * velocity (joint torques and contact wrenches do not depend on a uniform velocity: Galilean
   * invariance)
   */
  noBaseVelocity?: boolean;
}

/** A malformed log row: its line number and what is wrong with it. */
export interface LogError {
  line: number;
  message: string;
  /** where, when a line number does not say it (ROS 2 recordings: topic and log time, or the sample) */
  where?: string;
}

/** the floating base's CSV columns (`base.<name>`): position, quaternion (q[0..7)), then linear and angular velocity (v[0..6)) */
export const BASE_CSV = ['px', 'py', 'pz', 'qx', 'qy', 'qz', 'qw', 'vx', 'vy', 'vz', 'wx', 'wy', 'wz'] as const;
