/**
 * What a contact-mode switch costs on the walking log (data/demo/humanoid-walk.ndjson,
 * data/problems/humanoid-walk.json), and a row lacking a sensor: time of each row's estimate
 * through EstimationSession (parse excluded), split into a layout's first row (its offline analysis,
 * ordering, condition and bad-data setup), rows that switch to a layout seen before, and the other
 * rows; offline analyses counted. Every tenth row loses its left F/T reading (a dropped packet).
 * Writes reports/layouts/README.md. Run: npx tsx scripts/study-layouts.ts
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { EstimationSession } from '../src/estimation/session.ts';
import { LogSchema, parseNdjsonLine, type Sample } from '../src/io/log.ts';
import { loadEstimationSystem } from '../src/node/problem-file.ts';

const PROBLEM = 'data/problems/humanoid-walk.json', LOG = 'data/demo/humanoid-walk.ndjson';
const { es } = loadEstimationSystem(PROBLEM);
const schema = new LogSchema(es);
const rows = readFileSync(LOG, 'utf8').trim().split('\n').map((l, k) => parseNdjsonLine(schema, l, k + 1) as Sample);
rows.forEach((s, k) => { if (k % 10 === 5) s.readings.delete('ft_left'); });
const heapBefore = process.memoryUsage().heapUsed;
const t0 = performance.now();
const session = new EstimationSession(es, { condition: true });
const setupFull = performance.now() - t0;
const first: { line: number; mode: string; sensors: string; ms: number }[] = [];
const toSeen: number[] = [], steady: number[] = [];
let last = '';
for (const s of rows) {
  const before = session.layouts.analyses;
  const ta = performance.now();
  const out = session.estimate(s);
  const ms = performance.now() - ta;
  if (!out.ok) throw new Error(`${LOG}:${s.line}: ${out.message}`);
  const key = `${out.record.mode}|${out.record.sensors.join(',')}`;
  if (session.layouts.analyses > before) first.push({ line: s.line, mode: out.record.mode, sensors: out.record.sensors.join(', '), ms });
  else if (key !== last && last !== '') toSeen.push(ms);
  else steady.push(ms);
  last = key;
}
const heapMb = (process.memoryUsage().heapUsed - heapBefore) / 2 ** 20;
const med = (a: number[]) => [...a].sort((x, y) => x - y)[a.length >> 1];
const st = session.stats;
const md = [
  '# Contact modes and sensor subsets: what a switch costs', '',
  `Written by \`npx tsx scripts/study-layouts.ts\`: ${rows.length} rows of ${LOG} (${PROBLEM}: contacts from force thresholds on the ankle F/T sensors); every tenth row lost its ft_left reading. Times through EstimationSession.estimate (estimate, condition figure, bad-data test), parsing excluded; this machine was shared with other jobs, so read the ratios.`, '',
  `- layouts met: ${session.layouts.seen.size} (sensor subset × contact mode); offline analyses: ${session.layouts.analyses} (the full layout's built before the first row, ${setupFull.toFixed(0)} ms)`,
  `- mode or subset switches: ${st.switches}; to a layout seen before: ${st.switchesToSeen}, costing ${st.analysesAtSeenSwitches} new analyses`,
  `- median time of a row: ${med(steady).toFixed(2)} ms when its layout is the previous row's (${steady.length} rows), ${med(toSeen).toFixed(2)} ms when it switches to a layout seen before (${toSeen.length} rows): ratio ${(med(toSeen) / med(steady)).toFixed(2)}`,
  `- heap growth over the run (layouts cached, results kept): ${heapMb.toFixed(1)} MB`,
  `- samples by mode: ${[...st.modes].map(([m, n]) => `${m} ${n}`).join(', ')}; estimated from fewer sensors: ${st.partial}`, '',
  '| first row of a layout | mode | sensors | time of that row (ms, offline work included) |', '|---:|---|---|---:|',
  ...first.map((f) => `| ${f.line} | ${f.mode} | ${f.sensors} | ${f.ms.toFixed(0)} |`), '',
];
mkdirSync('reports/layouts', { recursive: true });
writeFileSync('reports/layouts/README.md', md.join('\n'));
process.stdout.write(md.join('\n'));
