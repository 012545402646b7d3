/**
 * Writes data/demo/humanoid.mcap, the demo log as a ROS 2 recording (MCAP, CDR, ros2msg schemas):
 * the same samples as data/demo/humanoid.ndjson, stamped 1 750 000 000 s + t, on the topics that
 * the "ros" section of data/problems/humanoid-demo.json maps:
 *   /joint_states        sensor_msgs/msg/JointState   positions and velocities of the joints
 *   /joint_accelerations sensor_msgs/msg/JointState   the encoder accelerations, in "position"
 *   /imu                 sensor_msgs/msg/Imu          gyroscope (angular_velocity), frame "imu_link"
 *   /imu/accel           geometry_msgs/msg/AccelStamped the IMU's angular and linear acceleration
 *   /odom                nav_msgs/msg/Odometry        base pose (world) and twist (base frame)
 *   /ft                  geometry_msgs/msg/WrenchStamped both ankle sensors, frame ids
 *                                                     "l_ankle_ft" and "r_ankle_ft"
 *   /truth/joint_torques sensor_msgs/msg/JointState   the log's true torques, in "effort"
 *   /truth/contact_wrench geometry_msgs/msg/WrenchStamped the true contact wrenches, frame ids
 *                                                     "l_sole" and "r_sole" (the contact links)
 * The base twist's angular velocity is the gyroscope's reading, as the NDJSON run takes it (the
 * log has no base.angular_velocity). Reproducible from the NDJSON file.
 * Run: npx tsx scripts/make-demo-bag.ts [samples=100] (the first samples of the log: the file stays small)
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { LogSchema, parseNdjsonLine, type Sample } from '../src/io/log.ts';
import { MemoryWritable, RosMcapWriter, rosTime, secondsToNs } from '../src/io/mcap-estimates.ts';
import { loadEstimationSystem } from '../src/node/problem-file.ts';

export const DEMO_EPOCH_NS = 1_750_000_000_000_000_000n;

/** The demo log's samples as a ROS 2 recording (bytes). */
export async function demoBag(ndjson: string, problemPath: string, limit = Infinity, edit?: (topic: string, sample: number, message: unknown) => boolean | void): Promise<Uint8Array> {
  const { es, model } = loadEstimationSystem(problemPath);
  const schema = new LogSchema(es);
  const joints = model.movingJoints().filter((j) => j.type !== 'floating');
  const encoderJoints = schema.sensors.get('encoders')!;
  const out = new MemoryWritable();
  const bag = new RosMcapWriter(out, 64 * 1024);
  // `edit`: a test's change to a message before it is written (a damaged recording); false drops it
  let k = 0;
  const w = {
    write: async (topic: string, type: Parameters<RosMcapWriter['write']>[1], ns: bigint, msg: unknown) => { if (edit?.(topic, k, msg) !== false) await bag.write(topic, type, ns, msg); },
    start: () => bag.start(), end: () => bag.end(),
  };
  await w.start();
  const lines = ndjson.split('\n').filter((l) => l.trim() !== '');
  for (; k < Math.min(lines.length, limit); k++) {
    const s = parseNdjsonLine(schema, lines[k], k + 1) as Sample;
    if ('message' in s) throw new Error(`line ${k + 1}: ${(s as { message: string }).message}`);
    const ns = DEMO_EPOCH_NS + secondsToNs(s.t);
    const stamp = rosTime(ns);
    const hdr = (frame_id: string) => ({ stamp, frame_id });
    const v3 = (a: ArrayLike<number>, o = 0) => ({ x: a[o], y: a[o + 1], z: a[o + 2] });
    await w.write('/joint_states', 'sensor_msgs/msg/JointState', ns, {
      header: hdr(''), name: joints.map((j) => j.name), position: joints.map((j) => s.q[j.iq]), velocity: joints.map((j) => s.v[j.iv]), effort: [],
    });
    await w.write('/joint_accelerations', 'sensor_msgs/msg/JointState', ns, {
      header: hdr(''), name: encoderJoints, position: Array.from(s.readings.get('encoders')!), velocity: [], effort: [],
    });
    const acc = s.readings.get('imu_acc')!;
    await w.write('/imu', 'sensor_msgs/msg/Imu', ns, {
      header: hdr('imu_link'), orientation: { x: s.q[3], y: s.q[4], z: s.q[5], w: s.q[6] }, orientation_covariance: Array(9).fill(0),
      angular_velocity: v3(s.v, 3), angular_velocity_covariance: Array(9).fill(0), linear_acceleration: v3(acc, 3), linear_acceleration_covariance: Array(9).fill(0),
    });
    await w.write('/imu/accel', 'geometry_msgs/msg/AccelStamped', ns, { header: hdr('imu_link'), accel: { angular: v3(acc, 0), linear: v3(acc, 3) } });
    await w.write('/odom', 'nav_msgs/msg/Odometry', ns, {
      header: hdr('odom'), child_frame_id: 'pelvis',
      pose: { pose: { position: v3(s.q, 0), orientation: { x: s.q[3], y: s.q[4], z: s.q[5], w: s.q[6] } }, covariance: Array(36).fill(0) },
      twist: { twist: { linear: v3(s.v, 0), angular: v3(s.v, 3) }, covariance: Array(36).fill(0) },
    });
    for (const [sensor, frame] of [['ft_left', 'l_ankle_ft'], ['ft_right', 'r_ankle_ft']]) {
      const r = s.readings.get(sensor)!;
      await w.write('/ft', 'geometry_msgs/msg/WrenchStamped', ns, { header: hdr(frame), wrench: { torque: v3(r, 0), force: v3(r, 3) } });
    }
    const truth = s.truth as { tau: Record<string, number>; contact_wrenches: Record<string, { torque: number[]; force: number[] }> };
    await w.write('/truth/joint_torques', 'sensor_msgs/msg/JointState', ns, { header: hdr(''), name: Object.keys(truth.tau), position: [], velocity: [], effort: Object.values(truth.tau) });
    for (const [link, c] of Object.entries(truth.contact_wrenches)) {
      await w.write('/truth/contact_wrench', 'geometry_msgs/msg/WrenchStamped', ns, { header: hdr(link), wrench: { torque: v3(c.torque), force: v3(c.force) } });
    }
  }
  await w.end();
  return out.bytes();
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const limit = process.argv[2] ? Number(process.argv[2]) : 100;
  const bytes = await demoBag(readFileSync('data/demo/humanoid.ndjson', 'utf8'), 'data/problems/humanoid-demo.json', limit);
  writeFileSync('data/demo/.humanoid.mcap.tmp', bytes);
  renameSync('data/demo/.humanoid.mcap.tmp', 'data/demo/humanoid.mcap');
  console.log(`wrote data/demo/humanoid.mcap (${bytes.length} bytes)`);
}
