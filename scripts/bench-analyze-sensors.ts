/**
 * `npx tsx scripts/bench-analyze-sensors.ts [N] [link]`: the time of `analyze` (analyzeProblem) on
 * the demo humanoid problem with N accelerometers (default 800) added on one link (default pelvis),
 * each at its own origin — N distinct sensors, each tested for redundancy. Prints the verdict, the
 * number of redundant sensors and the wall and CPU time of the analysis.
 */
import { readFileSync } from 'node:fs';
import { parseProblem } from '../src/estimation/problem.ts';
import { buildEstimationSystem } from '../src/estimation/setup.ts';
import { analyzeProblem } from '../src/estimation/analysis.ts';
import { modelFromSpec } from '../src/model/spec.ts';

/** The demo humanoid problem plus n accelerometers on `link`, at origins spread over a 20 cm cube. */
export function manyAccelerometers(n: number, link = 'pelvis'): string {
  const problem = JSON.parse(readFileSync('data/problems/humanoid-demo.json', 'utf8'));
  problem.model = 'humanoid';
  delete problem.ros;
  for (let k = 0; k < n; k++) {
    const origin = [37, 53, 71].map((a, i) => Math.round(((k * a) % (101 + 2 * i)) * 2 - 100) / 1000);
    problem.sensors.push({ name: `acc${k}`, type: 'accelerometer', link, origin: { xyz: origin } });
  }
  return JSON.stringify(problem);
}

if (process.argv[1]?.endsWith('bench-analyze-sensors.ts')) {
  const n = Number(process.argv[2] ?? 800), link = process.argv[3] ?? 'pelvis';
  const text = manyAccelerometers(n, link);
  const es = buildEstimationSystem(modelFromSpec('humanoid'), parseProblem(text, 'many.json'));
  const t0 = performance.now(), c0 = process.cpuUsage();
  const r = analyzeProblem(es);
  const c = process.cpuUsage(c0), wall = (performance.now() - t0) / 1000;
  console.log(`${n} accelerometers on ${link} (${(text.length / 1000).toFixed(0)} kB): ${r.verdict}, ${r.redundant_sensors.length} of ${es.sensors.length} sensors redundant; analyze ${wall.toFixed(2)} s wall, ${((c.user + c.system) / 1e6).toFixed(2)} s CPU`);
}
