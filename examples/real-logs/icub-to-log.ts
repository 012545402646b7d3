/**
 * Convert an iCub recording (the standing robot of ami-iit's base-estimation paper, as CSV with
 * named columns) to a sparsedyn CSV log for the problem files icub.json and icub-load-cells.json
 * beside this file. What a user writes for their own robot: the recording's columns renamed, the
 * base orientation turned into a quaternion.
 *
 *   recording                               log
 *   t                                       t
 *   q_<joint> (26 joints, rad)              q.<joint>; the URDF's 6 forearm and wrist joints,
 *                                           not logged, held at 0 (they carry the hands only)
 *   gt_base_pos_{x,y,z} (mocap, m)          base.px base.py base.pz
 *   gt_base_rpy_{r,p,y} (mocap, rad)        base.qx base.qy base.qz base.qw
 *   imu_acc_{x,y,z} (m/s², proper)          imu_acc.ax imu_acc.ay imu_acc.az    (accelerometer)
 *   imu_gyro_{x,y,z} (rad/s)                imu_gyro.wx imu_gyro.wy imu_gyro.wz (gyroscope)
 *   lfoot_Fz, rfoot_Fz (N)                  l_sole_load.fz r_sole_load.fz       (load cells)
 *
 * No joint velocities, base velocities or accelerations: the robot's joint velocities are written
 * only with --velocities (as v.<joint>); otherwise they are derived from the positions, as are the
 * accelerations, and the base's angular velocity is the gyroscope's.
 *
 * The recording's time stamps are those of delivery, not of sampling: the rows are 100 Hz samples
 * (the motion capture moves by equal steps from row to row), but some arrive in bursts stamped
 * 0.3 ms apart after gaps of up to 0.17 s. --uniform-time writes t = t₀ + k·Δ instead (Δ: the
 * mean step of the recording), which is what derivatives over time need.
 *
 * Run: npx tsx examples/real-logs/icub-to-log.ts IN.csv OUT.csv [--uniform-time] [--velocities]
 */
import { readFileSync, writeFileSync } from 'node:fs';

const flags = new Set(['--uniform-time', '--velocities']);
const args = process.argv.slice(2);
const [input, output] = args.filter((a) => !flags.has(a));
if (input === undefined || output === undefined || args.some((a) => a.startsWith('--') && !flags.has(a))) {
  console.error('usage: npx tsx examples/real-logs/icub-to-log.ts IN.csv OUT.csv [--uniform-time] [--velocities]');
  process.exit(2);
}
const uniformTime = args.includes('--uniform-time');
const velocities = args.includes('--velocities');

// joints of the URDF the recording does not log
const UNLOGGED = ['l_wrist_prosup', 'l_wrist_pitch', 'l_wrist_yaw', 'r_wrist_prosup', 'r_wrist_pitch', 'r_wrist_yaw'];

/**
 * Unit quaternion [x, y, z, w] of the URDF's roll-pitch-yaw: rotations about the fixed axes x, then
 * y, then z, R = Rz(yaw) Ry(pitch) Rx(roll), so q = q_z(yaw) ⊗ q_y(pitch) ⊗ q_x(roll).
 */
function quaternionFromRpy(roll: number, pitch: number, yaw: number): [number, number, number, number] {
  const cr = Math.cos(roll / 2), sr = Math.sin(roll / 2);
  const cp = Math.cos(pitch / 2), sp = Math.sin(pitch / 2);
  const cy = Math.cos(yaw / 2), sy = Math.sin(yaw / 2);
  return [
    sr * cp * cy - cr * sp * sy,
    cr * sp * cy + sr * cp * sy,
    cr * cp * sy - sr * sp * cy,
    cr * cp * cy + sr * sp * sy,
  ];
}

// the recording: a header of names, then one row of plain numbers per sample
const lines = readFileSync(input, 'utf8').split(/\r?\n/).filter((l) => l.trim() !== '');
const header = lines[0].split(',').map((h) => h.trim());
const column = (name: string): number => {
  const k = header.indexOf(name);
  if (k < 0) throw new Error(`${input}: no column "${name}"`);
  return k;
};
const joints = header.filter((h) => h.startsWith('q_')).map((h) => h.slice(2));
const rows = lines.slice(1).map((l) => l.split(',').map(Number));
const cell = (row: number[], name: string): number => row[column(name)];

const out = ['t', ...[...joints, ...UNLOGGED].map((j) => `q.${j}`)];
if (velocities) out.push(...[...joints, ...UNLOGGED].map((j) => `v.${j}`));
out.push('base.px', 'base.py', 'base.pz', 'base.qx', 'base.qy', 'base.qz', 'base.qw');
out.push('imu_acc.ax', 'imu_acc.ay', 'imu_acc.az', 'imu_gyro.wx', 'imu_gyro.wy', 'imu_gyro.wz', 'l_sole_load.fz', 'r_sole_load.fz');

const t0 = cell(rows[0], 't'), step = (cell(rows[rows.length - 1], 't') - t0) / (rows.length - 1);
const text = [out.join(',')];
rows.forEach((r, k) => {
  const t = uniformTime ? t0 + k * step : cell(r, 't');
  const values = [t, ...joints.map((j) => cell(r, `q_${j}`)), ...UNLOGGED.map(() => 0)];
  if (velocities) values.push(...joints.map((j) => cell(r, `qd_${j}`)), ...UNLOGGED.map(() => 0));
  values.push(cell(r, 'gt_base_pos_x'), cell(r, 'gt_base_pos_y'), cell(r, 'gt_base_pos_z'));
  values.push(...quaternionFromRpy(cell(r, 'gt_base_rpy_r'), cell(r, 'gt_base_rpy_p'), cell(r, 'gt_base_rpy_y')));
  values.push(cell(r, 'imu_acc_x'), cell(r, 'imu_acc_y'), cell(r, 'imu_acc_z'));
  values.push(cell(r, 'imu_gyro_x'), cell(r, 'imu_gyro_y'), cell(r, 'imu_gyro_z'));
  values.push(cell(r, 'lfoot_Fz'), cell(r, 'rfoot_Fz'));
  text.push(values.join(','));
});
writeFileSync(output, `${text.join('\n')}\n`);
console.log(`${output}: ${rows.length} samples, ${joints.length} joints logged and ${UNLOGGED.length} held at 0${uniformTime ? `, uniform time step ${(1000 * step).toFixed(2)} ms` : ''}`);
