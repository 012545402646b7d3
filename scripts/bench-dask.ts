/**
 * Throughput of the Dask recipe (examples/dask/estimate_shards.py) on a local cluster of 2 worker
 * processes (one thread each) over 8 shards, against one process over the same log.
 *
 * The demo humanoid's log (data/demo/humanoid.ndjson, 610 unknowns) repeated, t going on, to SHARDS ×
 * PER samples, written as one NDJSON log and as SHARDS log files of PER samples. Timed by wall clock:
 * - one process: `node bin/sparsedyn.mjs estimate data/problems/humanoid-demo.json --data <log> --out
 *   <file>.parquet --no-html --jobs 1`;
 * - the recipe on a running cluster (a scheduler and 2 workers started beforehand, their start-up timed
 *   apart): `python3 examples/dask/estimate_shards.py <problem> --logs <folder> --out <parts>
 *   --scheduler <address>` (one task per file) and `… --log <log> --shards SHARDS …` (cut by time
 *   range; the recipe first estimates the log's first rows on the cluster, to see whether it derives
 *   velocities), the recipe's Python start and the client's connection included.
 * Each run's parts are checked (every sample estimated once). The runs interleave (one process, by
 * file, by time range) R times; medians are reported. GNU time (/usr/bin/time) around the one process
 * and around every task's `sparsedyn` gives their CPU seconds, from which the report derives what the
 * cluster would take on 2 cores left to it (the machine is shared: wall times carry other jobs' load).
 * Each task pays a process's start-up (about a CPU second: Node, the problem's analysis, the typical
 * uncertainties), so the shards must be large (8 × 100,000 samples in one process ran, 2026-11-29).
 *
 * Writes reports/bench-dask.md. Run: npx tsx scripts/bench-dask.ts [--shards 8] [--per 12500]
 * [--runs 3] [--python /usr/bin/python3] (needs `npm run build` and Dask's distributed for that
 * Python: Debian's python3-distributed). Other processes on the machine slow it: the load average is
 * given with the figures.
 */
import { spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, openSync, writeSync, closeSync } from 'node:fs';
import { cpus, loadavg, totalmem, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { daemon, freePort } from './dask-cluster.ts';

function arg(name: string, dflt: string): string {
  const k = process.argv.indexOf(name);
  return k > 0 ? process.argv[k + 1] : dflt;
}
const SHARDS = Number(arg('--shards', '8')), PER = Number(arg('--per', '12500')), R = Number(arg('--runs', '3'));
const PYTHON = arg('--python', '/usr/bin/python3');
const N = SHARDS * PER;
const PROBLEM = resolve('data/problems/humanoid-demo.json');
const BIN = resolve('bin/sparsedyn.mjs');
const RECIPE = resolve('examples/dask/estimate_shards.py');
const dir = mkdtempSync(join(tmpdir(), 'sparsedyn-bench-dask-'));
const demo = readFileSync('data/demo/humanoid.ndjson', 'utf8').trim().split('\n');
const q = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;

if (spawnSync(PYTHON, ['-c', 'import distributed'], { stdio: 'ignore' }).status !== 0) {
  process.stderr.write(`${PYTHON} has no Dask "distributed" module (Debian: apt-get install -y python3-distributed)\n`);
  process.exit(2);
}
const versions = spawnSync(PYTHON, ['-c', 'import sys, distributed; print(sys.version.split()[0], distributed.__version__)'], { encoding: 'utf8' }).stdout.trim().split(' ');

// the logs: one file, and SHARDS files of PER samples
const whole = join(dir, 'whole.ndjson'), logs = join(dir, 'logs');
mkdirSync(logs);
{
  const fw = openSync(whole, 'w');
  for (let s = 0; s < SHARDS; s++) {
    const fs = openSync(join(logs, `robot-${String(s).padStart(2, '0')}.ndjson`), 'w');
    for (let k = s * PER; k < (s + 1) * PER; k += 1000) {
      const chunk: string[] = [];
      for (let j = k; j < Math.min(k + 1000, (s + 1) * PER); j++) {
        const o = JSON.parse(demo[j % demo.length]);
        o.t = Number((j * 0.005).toFixed(6));
        chunk.push(JSON.stringify(o));
      }
      const text = chunk.join('\n') + '\n';
      writeSync(fw, text);
      writeSync(fs, text);
    }
    closeSync(fs);
  }
  closeSync(fw);
}


function timed(cmd: string, args: string[]): { wall: number; out: string } {
  const t0 = performance.now();
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 1 << 26 });
  const wall = (performance.now() - t0) / 1000;
  if (r.status !== 0 && r.status !== 3) throw new Error(`${cmd} ${args.join(' ')} exited with ${r.status}:\n${(r.stderr ?? '').slice(-2000)}`);
  return { wall, out: `${r.stdout}${r.stderr}` };
}

const load0 = loadavg();
const t0 = performance.now();
const port = await freePort();
const address = `tcp://127.0.0.1:${port}`;
const cluster: ChildProcess[] = [await daemon(PYTHON, ['-m', 'distributed.cli.dask_scheduler', '--host', '127.0.0.1', '--port', String(port), '--no-dashboard'], /Scheduler at:/)];
cluster.push(...await Promise.all([0, 1].map((k) => daemon(PYTHON, ['-m', 'distributed.cli.dask_worker', address, '--nthreads', '1', '--no-nanny', '--host', '127.0.0.1',
  '--no-dashboard', '--name', `w${k}`, '--local-directory', join(dir, `w${k}`)], /Registered to:/))));
const clusterStart = (performance.now() - t0) / 1000;

const single: number[] = [], byFile: number[] = [], byTime: number[] = [];
/** every sparsedyn process of the cluster appends its wall, user and system seconds here (GNU time) */
const cpuLog = join(dir, 'tasks-cpu.txt');
const sparsedyn = `/usr/bin/time -a -o ${q(cpuLog)} -f '%e %U %S' ${q(process.execPath)} ${q(BIN)}`;
/** the tasks' (wall, CPU) seconds logged since the last call */
const taskTimes = (): { wall: number; cpu: number; n: number } => {
  let text = '';
  try { text = readFileSync(cpuLog, 'utf8'); } catch { /* none */ }
  rmSync(cpuLog, { force: true });
  const rows = text.split('\n').map((l) => l.trim().split(/\s+/).map(Number)).filter((x) => x.length === 3 && x.every(Number.isFinite));
  return { wall: rows.reduce((a, x) => a + x[0], 0), cpu: rows.reduce((a, x) => a + x[1] + x[2], 0), n: rows.length };
};
/** CPU seconds of the one process, and of the cluster's sparsedyn processes with the recipe's time outside them */
const singleCpu: number[] = [];
const clusterCpu: Record<string, { cpu: number; wall: number; outside: number; n: number }[]> = { file: [], time: [] };
const samplesIn = (out: string) => Number(/(\d+) samples estimated/.exec(out)?.[1]);
try {
  for (let r = 0; r < R; r++) {
    const a = timed('/usr/bin/time', ['-f', 'cpu-seconds %U %S', process.execPath, BIN, 'estimate', PROBLEM, '--data', whole, '--out', join(dir, 'single.parquet'), '--no-html', '--jobs', '1']);
    const cpu = /cpu-seconds ([0-9.]+) ([0-9.]+)/.exec(a.out);
    singleCpu.push(cpu ? Number(cpu[1]) + Number(cpu[2]) : NaN);
    if (!new RegExp(`samples estimated ${N},`).test(a.out)) throw new Error(`one process: not ${N} samples estimated:\n${a.out.slice(-1500)}`);
    single.push(a.wall);
    process.stderr.write(`one process: ${a.wall.toFixed(1)} s\n`);
    for (const [mode, args, into] of [['by file', ['--logs', logs], byFile], ['by time range', ['--log', whole, '--shards', String(SHARDS)], byTime]] as const) {
      const out = join(dir, `parts-${r}-${into === byFile ? 'file' : 'time'}`);
      taskTimes();
      const b = timed(PYTHON, [RECIPE, PROBLEM, ...args, '--out', out, '--scheduler', address, '--sparsedyn', sparsedyn]);
      const tt = taskTimes();
      // the recipe's time outside its tasks: its wall less the tasks' wall shared by the 2 workers
      clusterCpu[into === byFile ? 'file' : 'time'].push({ cpu: tt.cpu, wall: tt.wall, outside: Math.max(0, b.wall - tt.wall / 2), n: tt.n });
      if (samplesIn(b.out) !== N) throw new Error(`the recipe ${mode}: not ${N} samples estimated:\n${b.out.slice(-1500)}`);
      into.push(b.wall);
      rmSync(out, { recursive: true, force: true });
      process.stderr.write(`2 workers, ${mode}: ${b.wall.toFixed(1)} s\n`);
    }
  }
} finally {
  // the workers, then the scheduler; a worker that does not close within 5 s (it may wait for the
  // scheduler) is killed, so that nothing keeps this process up
  for (const p of cluster.reverse()) {
    if (p.exitCode !== null || p.signalCode !== null) continue;
    const gone = new Promise((res) => p.once('exit', res));
    p.kill('SIGTERM');
    const timer = setTimeout(() => p.kill('SIGKILL'), 5000);
    await gone;
    clearTimeout(timer);
  }
}
const load1 = loadavg();

const median = (a: number[]) => [...a].sort((x, y) => x - y)[a.length >> 1];
const f1 = (x: number) => x.toFixed(1), f2 = (x: number) => x.toFixed(2);
const s1 = median(single), sf = median(byFile), st = median(byTime);
const rate = (wall: number) => Math.round(N / wall).toLocaleString('en-US');
const cmd = `npx tsx scripts/bench-dask.ts --shards ${SHARDS} --per ${PER} --runs ${R}${PYTHON !== '/usr/bin/python3' ? ` --python ${PYTHON}` : ''}`;
/**
 * What the cluster would take with the 2 cores to itself: its tasks' CPU seconds shared by the 2
 * workers, plus the recipe's time outside the tasks; against the one process's CPU seconds.
 */
function cpuSection(): string {
  const c1 = median(singleCpu);
  const line = (what: string, key: 'file' | 'time') => {
    const xs = clusterCpu[key];
    const cpu = median(xs.map((x) => x.cpu)), outside = median(xs.map((x) => x.outside));
    const idle = cpu / 2 + outside;
    return `| ${what} | ${xs[0]?.n ?? 0} | ${f1(cpu)} | ${f1(outside)} | ${f1(idle)} | ${f2(c1 / idle)}× |`;
  };
  return `The wall times above are those of a machine shared with other jobs (see the load average). What the cores
themselves did, measured by GNU time around every \`sparsedyn\` process (medians of the runs): the one process used
${f1(c1)} CPU s (user + system). On 2 cores left to it, the cluster would take its tasks' CPU seconds shared by the 2
workers plus the recipe's time outside them (its wall less the tasks' wall shared by 2: Python start, connection,
the probe task, gaps between tasks, all measured under the load), against the one process's CPU seconds:

| run | sparsedyn processes | their CPU s | recipe outside them, s | cluster on 2 idle cores, s | vs one process |
|---|---:|---:|---:|---:|---:|
${line(`2 workers, ${SHARDS} log files`, 'file')}
${line(`2 workers, ${SHARDS} time ranges`, 'time')}`;
}

const md = `# Dask recipe: a 2-worker local cluster against one process

${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, \`${cmd}\`. Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB;
Node ${process.version}; Python ${versions[0]}, Dask distributed ${versions[1]}. **Load average** (1, 5, 15 min) before: ${load0.map(f2).join(', ')};
after: ${load1.map(f2).join(', ')}. The machine is shared with other jobs: a load above 2 on these 2 cores means the
runs below competed with other processes for the cores, which costs the cluster (two busy processes) more than
the one process.

The demo humanoid (\`data/problems/humanoid-demo.json\`, 610 unknowns), its log repeated with t going on to
${N.toLocaleString('en-US')} samples (${SHARDS} × ${PER.toLocaleString('en-US')}), NDJSON in, Parquet out, every option at its default (the condition
check and the bad-data test on). Wall clock, median of ${R} runs, interleaved:

| run | wall s | samples/s | vs one process |
|---|---:|---:|---:|
| one process (\`estimate … --jobs 1\`) | ${f1(s1)} | ${rate(s1)} | 1.00× |
| 2 workers, ${SHARDS} log files (\`--logs\`) | ${f1(sf)} | ${rate(sf)} | ${f2(s1 / sf)}× |
| 2 workers, one log cut into ${SHARDS} time ranges (\`--log … --shards ${SHARDS}\`) | ${f1(st)} | ${rate(st)} | ${f2(s1 / st)}× |

${cpuSection()}

All runs: one process ${single.map(f1).join(', ')} s; by file ${byFile.map(f1).join(', ')} s; by time range ${byTime.map(f1).join(', ')} s.
Starting the cluster (a scheduler and 2 workers, \`--nthreads 1 --no-nanny\`, on loopback) took ${f1(clusterStart)} s, once, not
counted above. The recipe's times include its Python start, its connection to the scheduler and, cut by time
range, a first task that estimates the log's first 200 rows (to refuse a log whose velocities are derived over
time); each of the ${SHARDS} tasks starts one \`sparsedyn\` process (Node start, problem analysis, typical uncertainties:
about a second here), which is why shards should hold thousands of samples. Target: ≥ 1.7× one process.
`;
writeFileSync('reports/bench-dask.md', md);
process.stdout.write(md);
rmSync(dir, { recursive: true, force: true });
