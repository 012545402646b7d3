/**
 * End-to-end cost of `sparsedyn estimate` per sample against the solve it does, on the demo humanoid
 * (data/problems/humanoid-demo.json): a log of N samples written by scripts/make-demo-log.ts (same
 * seed as the shipped demo), as NDJSON, as CSV and as a ROS 2 recording (MCAP, scripts/make-demo-bag.ts;
 * estimates written as MCAP), run through the built command line (bin/sparsedyn.mjs, a fresh process
 * each time, `--jobs` always given: 1 is one thread).
 *
 * Wall time per sample: (T(N) − T(N/10)) / (N − N/10), each T the least of `reps` runs, the two
 * sizes run alternately: start-up, the offline analysis and the typical uncertainties cancel out.
 * Solve time per sample: the same samples estimated in this process (Estimator.estimate, plus the
 * condition check EstimateConditioning.update when the run makes it), mean over the log, the least
 * of 3 passes after a warm-up pass. Peak memory: the largest resident set of the N-sample run
 * (/usr/bin/time). With --jobs, each job count is run too (alternately, machine load permitting),
 * every format (a ROS 2 recording is sampled in the main thread, its samples estimated by the workers).
 *
 * With --baseline DIR (a built checkout of another commit), its command line runs too, one job,
 * alternately with this one's on the same logs: the before/after ratio of the same run.
 *
 *   npx tsx scripts/bench-estimate.ts [--samples 3000] [--reps 3] [--jobs 1,2] [--formats ndjson,csv,mcap] [--baseline DIR] [--note TEXT] [--out reports/bench-estimate.md]
 */
import { spawnSync } from 'node:child_process';
import { cpus, loadavg, tmpdir } from 'node:os';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EstimationSession } from '../src/estimation/session.ts';
import { inputsFromReadings } from '../src/estimation/synthesize.ts';
import { LogSchema, parseNdjsonLine, type Sample } from '../src/io/log.ts';
import { loadEstimationSystem } from '../src/node/problem-file.ts';
import { demoCsv } from './demo-csv.ts';
import { demoBag } from './make-demo-bag.ts';

function arg(name: string, dflt: string): string {
  const k = process.argv.indexOf(name);
  return k > 0 ? process.argv[k + 1] : dflt;
}
const N = Number(arg('--samples', '3000'));
const S = Math.max(10, Math.round(N / 10));
const REPS = Number(arg('--reps', '3'));
const JOBS = arg('--jobs', '1').split(',').map(Number);
const OUT = arg('--out', 'reports/bench-estimate.md');
/** a built checkout of another commit, run beside this one (one job) */
const BASELINE = arg('--baseline', '');
const baselineCommit = BASELINE ? spawnSync('git', ['-C', BASELINE, 'log', '-1', '--format=%h %s'], { encoding: 'utf8' }).stdout.trim() : '';
/** a sentence on the conditions of the run, written into the report (e.g. what else loaded the machine) */
const NOTE = arg('--note', '');
/** the log formats to run (all three by default) */
const FORMATS = arg('--formats', 'ndjson,csv,mcap').split(',');
const PROBLEM = 'data/problems/humanoid-demo.json';
const dir = mkdtempSync(join(tmpdir(), 'sparsedyn-bench-estimate-'));
const load0 = loadavg()[0];

// ── the logs ────────────────────────────────────────────────────────────────────────────────
const full = join(dir, 'full.ndjson');
const mk = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/make-demo-log.ts', String(N), full], { encoding: 'utf8' });
if (mk.status !== 0) throw new Error(`make-demo-log failed: ${mk.stderr}`);
const lines = readFileSync(full, 'utf8').trim().split('\n');
const { es } = loadEstimationSystem(PROBLEM);
const schema = new LogSchema(es);

/** The rows as CSV with the schema's header (truth left out: CSV logs carry none). */
const toCsv = (rows: string[]): string => demoCsv(rows, String, PROBLEM);
const logs = {
  ndjson: { big: full, small: join(dir, 'small.ndjson') },
  csv: { big: join(dir, 'full.csv'), small: join(dir, 'small.csv') },
  mcap: { big: join(dir, 'full.mcap'), small: join(dir, 'small.mcap') },
};
writeFileSync(logs.ndjson.small, lines.slice(0, S).join('\n') + '\n');
writeFileSync(logs.csv.big, toCsv(lines));
writeFileSync(logs.csv.small, toCsv(lines.slice(0, S)));
writeFileSync(logs.mcap.big, await demoBag(lines.join('\n') + '\n', PROBLEM));
writeFileSync(logs.mcap.small, await demoBag(lines.slice(0, S).join('\n') + '\n', PROBLEM));

// ── solve time, in this process ─────────────────────────────────────────────────────────────
const samples = lines.map((l, k) => parseNdjsonLine(schema, l, k + 1) as Sample);
/** µs per sample of the solve: wall (least of 3 passes) and CPU time of this process (least of 3 passes) */
function solveMicros(condition: boolean): { wall: number; cpu: number } {
  // the numerical work the command does on each sample of the full layout: the estimate, the
  // condition check when asked, the chi-square bad-data test (on by default)
  const session = new EstimationSession(es, { condition });
  const est = session.full.estimator!, cond = session.full.conditioning ?? null, bad = session.full.badData ?? null;
  const y = new Float64Array(es.sys.ny);
  let best = Infinity, bestCpu = Infinity;
  for (let pass = 0; pass < 4; pass++) {
    let total = 0, cpu = 0;
    for (const s of samples) {
      inputsFromReadings(es, s.readings, y);
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      est.estimate(s.q, s.v, y);
      cond?.update();
      bad?.test();
      total += performance.now() - t0;
      const c = process.cpuUsage(c0);
      cpu += c.user + c.system;
    }
    if (pass > 0) { best = Math.min(best, (total * 1000) / samples.length); bestCpu = Math.min(bestCpu, cpu / samples.length); }
  }
  return { wall: best, cpu: bestCpu };
}

// ── the command line ────────────────────────────────────────────────────────────────────────
const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : null;
function run(log: string, out: string, extra: string[], bin = 'bin/sparsedyn.mjs'): { ms: number; rssKB: number; cpuMs: number } {
  const args = [bin, 'estimate', PROBLEM, '--data', log, '--out', out, '--quiet', ...extra];
  const t0 = performance.now();
  // the baseline keeps its compiled code in a cache folder of its own (one build's cache replaces another's)
  const env = bin === 'bin/sparsedyn.mjs' ? process.env : { ...process.env, XDG_CACHE_HOME: join(dir, 'cache-baseline') };
  const r = TIME ? spawnSync(TIME, ['-f', 'maxrss=%M cpu=%U+%S', process.execPath, ...args], { encoding: 'utf8', env }) : spawnSync(process.execPath, args, { encoding: 'utf8', env });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`estimate failed (${r.status}): ${r.stderr}`);
  const m = /maxrss=(\d+) cpu=([\d.]+)\+([\d.]+)/.exec(r.stderr ?? '');
  return { ms, rssKB: m ? Number(m[1]) : NaN, cpuMs: m ? 1000 * (Number(m[2]) + Number(m[3])) : NaN };
}

interface Row { format: string; mode: string; jobs: number; wallUs: number; cpuUs: number; solveUs: number; solveCpuUs: number; rssMB: number; baseline?: boolean }
const rows: Row[] = [];
const modes: [string, string[], boolean][] = [
  ['condition check (default)', [], true],
  ['--no-condition', ['--no-condition'], false],
];
const solve = new Map<boolean, { wall: number; cpu: number }>();
for (const [, , c] of modes) solve.set(c, solveMicros(c));
for (const [format, f] of Object.entries(logs)) {
  if (!FORMATS.includes(format)) continue;
  for (const [mode, extra, c] of modes) {
    const best = new Map<number, { big: number; small: number; rss: number; cpuBig: number; cpuSmall: number }>();
    for (let r = 0; r < REPS; r++) {
      // job count 0: the baseline's command line, one job
      for (const jobs of [...JOBS, ...(BASELINE ? [0] : [])]) {
        const jx = ['--jobs', String(Math.max(1, jobs))];
        const bin = jobs === 0 ? join(BASELINE, 'bin/sparsedyn.mjs') : undefined;
        const b = best.get(jobs) ?? { big: Infinity, small: Infinity, rss: 0, cpuBig: Infinity, cpuSmall: Infinity };
        const big = run(f.big, join(dir, `out.${format}`), [...extra, ...jx], bin);
        const small = run(f.small, join(dir, `out-small.${format}`), [...extra, ...jx], bin);
        b.big = Math.min(b.big, big.ms); b.small = Math.min(b.small, small.ms); b.rss = Math.max(b.rss, big.rssKB);
        b.cpuBig = Math.min(b.cpuBig, big.cpuMs); b.cpuSmall = Math.min(b.cpuSmall, small.cpuMs);
        best.set(jobs, b);
      }
    }
    for (const [jobs, b] of best) {
      rows.push({ format, mode, jobs: Math.max(1, jobs), wallUs: ((b.big - b.small) * 1000) / (N - S), cpuUs: ((b.cpuBig - b.cpuSmall) * 1000) / (N - S), solveUs: solve.get(c)!.wall, solveCpuUs: solve.get(c)!.cpu, rssMB: b.rss / 1024, ...(jobs === 0 ? { baseline: true } : {}) });
      const r = rows[rows.length - 1];
      process.stdout.write(`${format} ${mode} ${jobs === 0 ? 'baseline, ' : ''}jobs ${r.jobs}: wall ${r.wallUs.toFixed(1)} µs/sample, CPU ${r.cpuUs.toFixed(1)} µs/sample, solve ${r.solveUs.toFixed(1)} µs, ratio ${(r.wallUs / r.solveUs).toFixed(2)}; CPU ${r.cpuUs.toFixed(1)} vs solve CPU ${r.solveCpuUs.toFixed(1)} ratio ${(r.cpuUs / r.solveCpuUs).toFixed(2)}, peak ${r.rssMB.toFixed(0)} MB\n`);
    }
  }
}

/** per format and run, the speed-up of each job count over one job (wall time), and per core */
function speedups(): string[] {
  const out: string[] = [];
  for (const r of rows) {
    if (r.jobs === 1 || r.baseline) continue;
    const one = rows.find((x) => x.format === r.format && x.mode === r.mode && x.jobs === 1 && !x.baseline);
    if (!one) continue;
    const sp = one.wallUs / r.wallUs;
    const cpuBound = (r.jobs * one.cpuUs) / r.cpuUs;
    out.push(`- ${r.format.toUpperCase()}, ${r.mode}: ${r.jobs} jobs ${sp.toFixed(2)}× the throughput of one by wall time (${(sp / r.jobs).toFixed(2)} per core; ${(1e6 / r.wallUs).toFixed(0)} samples/s); CPU per sample ${(r.cpuUs / one.cpuUs).toFixed(2)}× one job's, so ${r.jobs} idle cores would give at most ${cpuBound.toFixed(2)}× (${(cpuBound / r.jobs).toFixed(2)} per core)`);
  }
  return out.length ? ['Speed-up of --jobs over one job, wall time:', '', ...out] : [];
}

/** per format and run, this build against the baseline's, one job */
function beforeAfter(): string[] {
  const out: string[] = [];
  for (const r of rows) {
    if (!r.baseline) continue;
    const now = rows.find((x) => x.format === r.format && x.mode === r.mode && x.jobs === 1 && !x.baseline);
    if (!now) continue;
    out.push(`| ${r.format.toUpperCase()} | ${r.mode} | ${r.wallUs.toFixed(1)} | ${now.wallUs.toFixed(1)} | ${(r.wallUs / now.wallUs).toFixed(2)} | ${(r.wallUs / r.solveUs).toFixed(2)} → ${(now.wallUs / now.solveUs).toFixed(2)} | ${r.cpuUs.toFixed(1)} | ${now.cpuUs.toFixed(1)} | ${(r.cpuUs / now.cpuUs).toFixed(2)} | ${(r.cpuUs / r.solveCpuUs).toFixed(2)} → ${(now.cpuUs / now.solveCpuUs).toFixed(2)} |`);
  }
  return out.length ? [
    `Before and after, one job, the same logs, runs alternated: the baseline is the command line built from commit ${baselineCommit.split(' ')[0]} ("${baselineCommit.slice(baselineCommit.indexOf(' ') + 1)}"), given by --baseline.`, '',
    '| log | run | baseline wall µs / sample | this wall µs / sample | speed-up | wall / solve | baseline CPU µs / sample | this CPU µs / sample | speed-up | CPU / solve CPU |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...out, '',
  ] : [];
}

const cpu = cpus();
const md = [
  '# `estimate` end to end: wall time per sample against the solve', '',
  `Written by \`npx tsx scripts/bench-estimate.ts --samples ${N} --reps ${REPS} --jobs ${JOBS.join(',')}${BASELINE ? ' --baseline DIR' : ''}\` on ${new Date().toISOString().slice(0, 10)}: ${cpu.length} × ${cpu[0]?.model.trim() ?? 'CPU'}, Node ${process.version}.`,
  `Demo humanoid (${PROBLEM}: 610 unknowns, 616 equations, weighted least squares), a log of ${N} samples from scripts/make-demo-log.ts, as NDJSON (with truth), as CSV (without) and as a ROS 2 recording (MCAP, with truth; scripts/make-demo-bag.ts), each written in its own format (MCAP: 34 messages per sample); a recording is sampled in the main thread and, with several jobs, its samples estimated by the worker threads.`,
  `Wall: (T(${N}) − T(${S})) / ${N - S} per sample, each T the least of ${REPS} runs of the built command line (fresh process, HTML and Markdown reports written), the sizes run alternately, so start-up and offline analysis cancel.`,
  'Solve: the same samples estimated in the benchmark\'s process (the estimate, the chi-square bad-data test, and the condition check when the run makes it: the numerical work on each sample), mean per sample, least of 3 passes after a warm-up; wall time (performance.now) and CPU time (process.cpuUsage) around each solve.',
  `Other sessions share this machine (1-minute load average ${load0.toFixed(1)} at the start, ${loadavg()[0].toFixed(1)} at the end): times are indicative; ratios are of runs made side by side.${NOTE ? ` ${NOTE}` : ''}`,
  '',
  'CPU: user + system time of the run (/usr/bin/time; all its threads), same differencing: what a sample costs whatever the load of the machine. On a loaded machine compare the CPU columns; wall times there include waiting for a core.',
  '',
  '| log | run | jobs | wall µs / sample | solve wall µs | wall / solve | CPU µs / sample | solve CPU µs | CPU / solve CPU | peak memory MB |',
  '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  ...rows.filter((r) => !r.baseline).map((r) => `| ${r.format.toUpperCase()} | ${r.mode} | ${r.jobs} | ${r.wallUs.toFixed(1)} | ${r.solveUs.toFixed(1)} | ${(r.wallUs / r.solveUs).toFixed(2)} | ${r.cpuUs.toFixed(1)} | ${r.solveCpuUs.toFixed(1)} | ${(r.cpuUs / r.solveCpuUs).toFixed(2)} | ${r.rssMB.toFixed(0)} |`),
  '',
  ...beforeAfter(),
  ...speedups(),
  '',
];
writeFileSync(OUT, md.join('\n'));
process.stdout.write(`wrote ${OUT}\n`);
