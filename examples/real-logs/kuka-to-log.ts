/**
 * Convert a KUKA LWR4+ recording (FloBaRoID's measurements, as CSV with named columns) to a
 * sparsedyn CSV log for the problem file kuka.json beside this file. What a user writes for their
 * own robot: one column of the recording per column of the log, values unchanged.
 *
 *   recording: t, q_<joint>, qd_<joint>, qdd_<joint>, tau_<joint>      (rad, rad/s, rad/s², N·m)
 *   log:       t, q.<joint>, v.<joint>, encoders.<joint>, truth.tau.<joint>
 *
 * `encoders` is kuka.json's joint_acceleration sensor: its readings are the recording's filtered
 * accelerations. The measured joint torques go to `truth.tau.<joint>` columns, which the estimator
 * does not read (they are what the estimates are compared with). With --positions-only the log has
 * t and q only: what the robot itself records; velocities and accelerations must then come from
 * differentiating q.
 *
 * Run: npx tsx examples/real-logs/kuka-to-log.ts IN.csv OUT.csv [--positions-only]
 */
import { readFileSync, writeFileSync } from 'node:fs';

const args = process.argv.slice(2);
const positionsOnly = args.includes('--positions-only');
const [input, output] = args.filter((a) => a !== '--positions-only');
if (input === undefined || output === undefined || args.some((a) => a.startsWith('--') && a !== '--positions-only')) {
  console.error('usage: npx tsx examples/real-logs/kuka-to-log.ts IN.csv OUT.csv [--positions-only]');
  process.exit(2);
}

// the recording: a header of names, then one row of plain numbers per sample
const lines = readFileSync(input, 'utf8').split(/\r?\n/).filter((l) => l.trim() !== '');
const header = lines[0].split(',').map((h) => h.trim());
const column = (name: string): number => {
  const k = header.indexOf(name);
  if (k < 0) throw new Error(`${input}: no column "${name}"`);
  return k;
};

// the joints, named by the q_ columns (the URDF's joint names: lwr_0_joint … lwr_6_joint)
const joints = header.filter((h) => h.startsWith('q_')).map((h) => h.slice(2));
const out: [string, number][] = [['t', column('t')]];
for (const j of joints) out.push([`q.${j}`, column(`q_${j}`)]);
if (!positionsOnly) {
  for (const j of joints) out.push([`v.${j}`, column(`qd_${j}`)]);
  for (const j of joints) out.push([`encoders.${j}`, column(`qdd_${j}`)]);
  for (const j of joints) out.push([`truth.tau.${j}`, column(`tau_${j}`)]);
}

const text = [out.map(([name]) => name).join(',')];
for (const line of lines.slice(1)) {
  const cells = line.split(',');
  text.push(out.map(([, k]) => cells[k].trim()).join(','));
}
writeFileSync(output, `${text.join('\n')}\n`);
console.log(`${output}: ${lines.length - 1} samples, ${joints.length} joints${positionsOnly ? ', positions only' : ''}`);
