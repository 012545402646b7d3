/**
 * Throughput of `sparsedyn estimate` as one process on one core: the figure that sizes a sharded
 * job (Spark's RDD.pipe, Hadoop Streaming, GNU parallel --pipe), where each shard is one process
 * reading standard input and writing standard output. The demo humanoid's log is repeated (t
 * increasing) to N1 and N2 samples, as NDJSON on stdin and as a ROS 2 recording (MCAP); each run
 * is `node bin/sparsedyn.mjs estimate data/problems/humanoid-demo.json --data - --out - --quiet`
 * (with and without the per-sample condition check), timed by wall clock (median of R runs,
 * peak resident memory by /usr/bin/time). Marginal throughput = (N2 − N1) / (T2 − T1): samples/s of
 * one core once the process is up; start-up = T1 − N1 / throughput (start, problem analysis).
 * Writes reports/throughput.md. Run: npx tsx scripts/bench-throughput.ts [N1=500] [N2=5000] [R=5]
 * (needs `npm run build`). Other processes on the machine slow it: the figures are for this
 * machine as loaded when run, stated with the date.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { demoBag } from './make-demo-bag.ts';

const N1 = Number(process.argv[2] ?? 500), N2 = Number(process.argv[3] ?? 5000), R = Number(process.argv[4] ?? 5);
const PROBLEM = 'data/problems/humanoid-demo.json';
const dir = mkdtempSync(join(tmpdir(), 'sparsedyn-throughput-'));
const demo = readFileSync('data/demo/humanoid.ndjson', 'utf8').trim().split('\n');

function ndjson(n: number): string {
  const out: string[] = [];
  for (let k = 0; k < n; k++) {
    const o = JSON.parse(demo[k % demo.length]);
    o.t = Number((k * 0.005).toFixed(6));
    out.push(JSON.stringify(o));
  }
  return out.join('\n') + '\n';
}

const hasTime = existsSync('/usr/bin/time');

/** one run: wall time (s), peak resident memory (kB, when /usr/bin/time is there), samples written */
function once(input: string, extra: string[]): { wall: number; rssKb?: number } {
  const args = ['bin/sparsedyn.mjs', 'estimate', PROBLEM, '--data', '-', '--out', '-', '--quiet', ...extra];
  const cmd = hasTime ? '/usr/bin/time' : process.execPath;
  const argv = hasTime ? ['-f', 'peak-rss-kb %M', process.execPath, ...args] : args;
  const t0 = performance.now();
  const r = spawnSync(cmd, argv, { input: readFileSync(input), maxBuffer: 1 << 30, stdio: ['pipe', 'pipe', 'pipe'] });
  const wall = (performance.now() - t0) / 1000;
  if (r.status !== 0) throw new Error(`estimate exited with ${r.status}: ${r.stderr.toString().slice(-400)}`);
  const m = /peak-rss-kb (\d+)/.exec(r.stderr.toString());
  return { wall, rssKb: m ? Number(m[1]) : undefined };
}

const median = (a: number[]) => [...a].sort((x, y) => x - y)[a.length >> 1];

interface Row { input: string; condition: boolean; t1: number; t2: number; perSec: number; startup: number; usPerSample: number; rssMb?: number }

const rows: Row[] = [];
const files: Record<string, [string, string]> = {};
for (const n of [N1, N2]) {
  const text = ndjson(n);
  const nd = join(dir, `log-${n}.ndjson`), bag = join(dir, `log-${n}.mcap`);
  writeFileSync(nd, text);
  // the demo's recording, truth topics included as the NDJSON log has its truth (the problem's "ros"
  // section maps them: a recording without them is refused)
  writeFileSync(bag, await demoBag(text, PROBLEM));
  (files.ndjson ??= ['', ''])[n === N1 ? 0 : 1] = nd;
  (files.mcap ??= ['', ''])[n === N1 ? 0 : 1] = bag;
}
for (const condition of [false, true]) {
  for (const input of ['ndjson', 'mcap']) {
    const extra = condition ? [] : ['--no-condition'];
    const t1s: number[] = [], t2s: number[] = [], rss: number[] = [];
    for (let r = 0; r < R; r++) {
      // interleaved, so that a change of load touches both sizes alike
      t1s.push(once(files[input][0], extra).wall);
      const b = once(files[input][1], extra);
      t2s.push(b.wall);
      if (b.rssKb !== undefined) rss.push(b.rssKb);
    }
    const t1 = median(t1s), t2 = median(t2s);
    const perSec = (N2 - N1) / (t2 - t1);
    rows.push({ input, condition, t1, t2, perSec, startup: t1 - N1 / perSec, usPerSample: 1e6 / perSec, rssMb: rss.length ? Math.max(...rss) / 1024 : undefined });
    process.stderr.write(`${input}${condition ? ' with condition check' : ''}: ${perSec.toFixed(0)} samples/s per core, start-up ${(t1 - N1 / perSec).toFixed(2)} s\n`);
  }
}

const date = new Date().toISOString().slice(0, 10);
const md = [
  '# Throughput of one `sparsedyn estimate` process (one core)',
  '',
  `Measured ${date} on ${cpus()[0]?.model ?? 'this machine'} (${cpus().length} cores, Node ${process.version}), by \`npx tsx scripts/bench-throughput.ts ${N1} ${N2} ${R}\`:`,
  `the demo humanoid (29 joints, floating base, 5 sensors, 610 unknowns; data/problems/humanoid-demo.json), its log repeated to ${N1} and ${N2} samples, fed on standard input, estimates on standard output (NDJSON for NDJSON, MCAP for MCAP).`,
  `Wall time: median of ${R} runs; throughput = (N2 − N1) / (T2 − T1), start-up = T1 − N1 / throughput. The machine was shared with other jobs: the figures are a floor for an idle core.`,
  '',
  '| input → output | per-sample condition check | T(N1) s | T(N2) s | samples/s per core | µs per sample | start-up s | peak memory MB |',
  '|---|---|---:|---:|---:|---:|---:|---:|',
  ...rows.map((r) => `| ${r.input} → ${r.input} | ${r.condition ? 'yes (default)' : 'no (--no-condition)'} | ${r.t1.toFixed(2)} | ${r.t2.toFixed(2)} | ${r.perSec.toFixed(0)} | ${r.usPerSample.toFixed(0)} | ${r.startup.toFixed(2)} | ${r.rssMb !== undefined ? r.rssMb.toFixed(0) : '—'} |`),
  '',
  'Sizing: a job of S samples on C cores takes about S / (C × samples/s) + (shards per core) × start-up seconds; shards of at least 100 × start-up × samples/s samples keep the start-up under 1 %.',
  '',
];
mkdirSync('reports', { recursive: true });
writeFileSync('reports/throughput.md', md.join('\n'));
process.stderr.write('wrote reports/throughput.md\n');
