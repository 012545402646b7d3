/**
 * Writes the shipped demo log data/demo/humanoid.ndjson: the project's humanoid (floating base) moving
 * its joints sinusoidally while turning about the vertical, with a smooth random wrench on the left
 * sole and the right-sole wrench that leaves the unactuated base with none (as when standing on two
 * feet). True values from RNEA (src/estimation/synthesize.ts); sensor readings = ideal readings +
 * Gaussian noise with the variances of data/problems/humanoid-demo.json. Seeded: the file is
 * reproducible. Run: npx tsx scripts/make-demo-log.ts [samples=300] [out=data/demo/humanoid.ndjson]
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { loadProblem } from '../src/node/problem-file.ts';
import { buildEstimationSystem } from '../src/estimation/setup.ts';
import { idealReadings, synthesize } from '../src/estimation/synthesize.ts';
import { contactWrenches } from '../src/estimation/synth.ts';
import { LogRowWriter } from '../src/io/synth-log.ts';
import { Rng } from '../src/model/rng.ts';
import { rotFromQuat } from '../src/spatial/vec3.ts';

const N = Number(process.argv[2] ?? 300);
const dt = 0.005;
const { problem, model } = loadProblem('data/problems/humanoid-demo.json');
const es = buildEstimationSystem(model, problem);
const rng = new Rng(2024);
const joints = model.movingJoints().filter((j) => j.type !== 'floating');
const amp = joints.map(() => rng.uniform(0.1, 0.5)), freq = joints.map(() => rng.uniform(0.5, 2)), phase = joints.map(() => rng.uniform(0, 2 * Math.PI));
const wrenchAmp = [5, 5, 5, 40, 40, 40], wrenchFreq = Array.from({ length: 6 }, () => rng.uniform(0.3, 1.5));
const Omega = 0.4; // yaw rate, rad/s
const lb = model.frame('l_sole').body, rb = model.frame('r_sole').body;
const lines: string[] = [];
const rows = new LogRowWriter(es, { round: (x) => Number(x.toPrecision(12)) });
for (let s = 0; s < N; s++) {
  const t = s * dt;
  const q = new Float64Array(model.nq), v = new Float64Array(model.nv), a = new Float64Array(model.nv);
  // base: yaw Ωt, position swaying in x and y
  const half = (Omega * t) / 2;
  const quat = [0, 0, Math.sin(half), Math.cos(half)];
  const p = [0.02 * Math.sin(2 * t), 0.01 * Math.sin(3 * t), 0.9];
  const pd = [0.04 * Math.cos(2 * t), 0.03 * Math.cos(3 * t), 0];
  const pdd = [-0.08 * Math.sin(2 * t), -0.09 * Math.sin(3 * t), 0];
  const R = rotFromQuat(new Float64Array(9), quat[0], quat[1], quat[2], quat[3]);
  const RT = (x: number[]) => [0, 1, 2].map((i) => R[i] * x[0] + R[3 + i] * x[1] + R[6 + i] * x[2]);
  const w = [0, 0, Omega]; // body frame = world z for a pure yaw
  const vb = RT(pd);
  const ab = RT(pdd).map((x, i) => x - [w[1] * vb[2] - w[2] * vb[1], w[2] * vb[0] - w[0] * vb[2], w[0] * vb[1] - w[1] * vb[0]][i]);
  for (let k = 0; k < 3; k++) { q[k] = p[k]; v[k] = vb[k]; v[3 + k] = w[k]; a[k] = ab[k]; }
  for (let k = 0; k < 4; k++) q[3 + k] = quat[k];
  joints.forEach((j, k) => {
    const th = freq[k] * t + phase[k];
    q[j.iq] = amp[k] * Math.sin(th);
    v[j.iv] = amp[k] * freq[k] * Math.cos(th);
    a[j.iv] = -amp[k] * freq[k] * freq[k] * Math.sin(th);
  });
  const fext = Array.from({ length: model.nb }, () => new Float64Array(6));
  for (let k = 0; k < 6; k++) fext[lb][k] = wrenchAmp[k] * Math.sin(wrenchFreq[k] * t) + (k === 5 ? 600 : 0);
  const truth = synthesize(model, q, v, a, fext, rb);
  const ideal = idealReadings(es, truth);
  const readings = new Map<string, number[]>();
  for (const sinfo of es.sensors) {
    const sd = Math.sqrt(sinfo.spec.variance);
    const noise = sinfo.spec.type === 'gyroscope' ? 0 : sd;
    readings.set(sinfo.spec.name, ideal.get(sinfo.spec.name)!.map((x) => x + noise * rng.normal()));
  }
  // the row as the library writes a synthetic log's (src/io/synth-log.ts): contact wrenches in the soles' frames
  lines.push(rows.ndjson({ t, q, v, contacts: ['l_sole', 'r_sole'], wrenches: contactWrenches(es, truth), truth, readings }));
}
const outFile = process.argv[3] ?? 'data/demo/humanoid.ndjson';
mkdirSync(dirname(outFile), { recursive: true });
writeFileSync(outFile, lines.join('\n') + '\n');
process.stdout.write(`wrote ${outFile} (${N} samples)\n`);
