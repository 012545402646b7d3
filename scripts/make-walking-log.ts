/**
 * Writes the shipped walking demo log data/demo/humanoid-walk.ndjson for
 * data/problems/humanoid-walk.json: the humanoid in double support, left single support, double
 * support, right single support, … (0.4 s each, scripts/walking.ts), readings with Gaussian noise
 * of each sensor's variance, rounded to 12 significant digits; each row's truth carries its
 * contacts. Seeded: the file is reproducible. Run: npx tsx scripts/make-walking-log.ts [samples=320]
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadEstimationSystem } from '../src/node/problem-file.ts';
import { walkingSamples, walkRow } from './walking.ts';

const N = Number(process.argv[2] ?? 320);
const { es } = loadEstimationSystem('data/problems/humanoid-walk.json');
const round = (x: number) => Number(x.toPrecision(12));
const lines = walkingSamples(es, N, { noise: true }).map((s) => JSON.stringify(walkRow(es, s, round)));
mkdirSync('data/demo', { recursive: true });
writeFileSync('data/demo/humanoid-walk.ndjson', lines.join('\n') + '\n');
process.stdout.write(`wrote data/demo/humanoid-walk.ndjson (${N} samples)\n`);
