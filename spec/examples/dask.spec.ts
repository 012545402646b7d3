/**
 * examples/dask/estimate_shards.py on a real local Dask cluster: a scheduler and two worker
 * processes (one thread each) on loopback ports picked here. The recipe shards 2,400 samples (the
 * demo log repeated, t going on) as 8 log files and as one log cut by time range into 8 shards; the
 * Parquet parts, read by DuckDB as one table, equal one `sparsedyn estimate` run's output over the
 * whole log, value for value (bit for bit), each row's `line` mapped through parts.json. A worker
 * process killed (SIGKILL) while it runs a shard: the shard is run again elsewhere, each part is
 * written once (no row lost, none twice), no temporary file or orphan process is left, and the
 * table still equals the single run. A log whose velocities are derived over time is not cut by
 * time range (its shards would need an overlap of the fit's window): refused, saying so. Options
 * after `--` reach every `sparsedyn estimate`.
 * Needs Dask's `distributed` for /usr/bin/python3 (Debian's python3-distributed): without it the
 * file skips with one line, except in CI, where it fails.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../package/dist.ts';
import { daemon, freePort } from '../../scripts/dask-cluster.ts';

const PYTHON = '/usr/bin/python3';
const RECIPE = resolve('examples/dask/estimate_shards.py');
const BIN = resolve('bin/sparsedyn.mjs');
const DEMO = resolve('data/problems/humanoid-demo.json');
const CI = process.env.CI === '1' || process.env.CI === 'true';
const HAS_DASK = spawnSync(PYTHON, ['-c', 'import distributed'], { stdio: 'ignore' }).status === 0;
const WHY = `Dask's distributed is not importable by ${PYTHON} (apt-get install -y python3-distributed)`;
if (!HAS_DASK && !CI) process.stderr.write(`skipped spec/examples/dask.spec.ts: ${WHY}\n`);

const SHARDS = 8, PER = 300, N = SHARDS * PER;
const demo = readFileSync('data/demo/humanoid.ndjson', 'utf8').trim().split('\n');
const dir = mkdtempSync(join(tmpdir(), 'sparsedyn-dask-'));
const q = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;

/** the demo's rows over and over, t going on (as scripts/bench-throughput.ts makes a long log) */
function rows(from: number, to: number, drop?: string): string {
  const out: string[] = [];
  for (let k = from; k < to; k++) {
    const o = JSON.parse(demo[k % demo.length]);
    o.t = Number((k * 0.005).toFixed(6));
    if (drop) delete o[drop];
    out.push(JSON.stringify(o));
  }
  return out.join('\n') + '\n';
}



function recipe(args: string[]): { child: ChildProcess; done: Promise<{ code: number | null; out: string }> } {
  const child = spawn(PYTHON, [RECIPE, DEMO, '--sparsedyn', `${q(process.execPath)} ${q(BIN)}`, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (b) => { out += b; });
  child.stderr!.on('data', (b) => { out += b; });
  return { child, done: new Promise((res) => child.on('close', (code) => res({ code, out }))) };
}

type Row = Record<string, unknown>;
async function table(glob: string): Promise<Row[]> {
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  const r = (await c.runAndReadAll(`select * from read_parquet('${glob.replace(/'/g, "''")}', filename = true) order by t`)).getRowObjectsJS() as Row[];
  c.closeSync();
  return r;
}

const text = (x: unknown) => JSON.stringify(x, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v));
/** the parts' table equals the single run's, value for value (numbers bit for bit), `line` mapped by the part's offset */
function expectSameTable(parts: Row[], single: Row[], lineOffset: (file: string) => number): void {
  expect(parts.length).toBe(single.length);
  const names = Object.keys(single[0]).filter((n) => n !== 'filename');
  expect(Object.keys(parts[0]).sort()).toEqual(Object.keys(single[0]).sort());
  let compared = 0;
  const wrong: string[] = [];
  for (let k = 0; k < single.length && wrong.length < 5; k++) {
    const a = parts[k], b = single[k];
    if (a.t !== b.t) wrong.push(`row ${k}: t = ${a.t} vs ${b.t}`);
    if (Number(a.line) + lineOffset(String(a.filename)) !== Number(b.line)) wrong.push(`line of t = ${b.t}: ${a.line} in ${a.filename} vs ${b.line}`);
    for (const n of names) {
      if (n === 'line') continue;
      const x = a[n], y = b[n];
      if (typeof y === 'number') { if (!Object.is(x, y)) wrong.push(`${n} at t = ${b.t}: ${x} vs ${y}`); compared++; }
      else if (text(x) !== text(y)) wrong.push(`${n} at t = ${b.t}: ${text(x)} vs ${text(y)}`);
    }
  }
  expect(wrong).toEqual([]);
  expect(compared).toBeGreaterThan(N * 250);
}

const manifest = (out: string): { part: string; line_offset: number; code: number; estimated: number }[] => JSON.parse(readFileSync(join(out, 'parts.json'), 'utf8'));
const byPart = (out: string) => { const m = new Map(manifest(out).map((p) => [p.part, p.line_offset])); return (file: string) => m.get(file.split('/').pop()!)!; };
/** pids of processes whose parent is `pid` */
function children(pid: number): { pid: number; cmd: string }[] {
  const out: { pid: number; cmd: string }[] = [];
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const stat = readFileSync(`/proc/${e}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) out.push({ pid: Number(e), cmd: readFileSync(`/proc/${e}/cmdline`, 'utf8').split('\0').join(' ') });
    } catch { /* gone */ }
  }
  return out;
}
/** processes whose command line holds `s` */
function processesWith(s: string): number[] {
  return readdirSync('/proc').filter((e) => /^\d+$/.test(e)).filter((e) => { try { return readFileSync(`/proc/${e}/cmdline`, 'utf8').includes(s); } catch { return false; } }).map(Number);
}

describe.skipIf(!HAS_DASK && !CI)('the Dask recipe on a local cluster (a scheduler, two worker processes)', () => {
  const logs = join(dir, 'logs'), whole = join(dir, 'whole.ndjson');
  let address = '';
  const cluster: ChildProcess[] = [];
  let single: Row[] = [];

  beforeAll(async () => {
    expect(HAS_DASK, WHY).toBe(true);
    ensureBuilt();
    mkdirSync(logs);
    for (let s = 0; s < SHARDS; s++) writeFileSync(join(logs, `robot-${s}.ndjson`), rows(s * PER, (s + 1) * PER));
    writeFileSync(whole, rows(0, N));
    const port = await freePort();
    address = `tcp://127.0.0.1:${port}`;
    cluster.push(await daemon(PYTHON, ['-m', 'distributed.cli.dask_scheduler', '--host', '127.0.0.1', '--port', String(port), '--no-dashboard'], /Scheduler at:/));
    const workers = await Promise.all([0, 1].map((k) => daemon(PYTHON, ['-m', 'distributed.cli.dask_worker', address, '--nthreads', '1', '--no-nanny', '--host', '127.0.0.1', '--no-dashboard',
      '--name', `w${k}`, '--local-directory', join(dir, `w${k}`), '--death-timeout', '60'], /Registered to:/)));
    cluster.push(...workers);
    // the reference: one process over the whole log
    const r = spawnSync(process.execPath, [BIN, 'estimate', DEMO, '--data', whole, '--out', join(dir, 'single.parquet'), '--no-html', '--jobs', '1'], { encoding: 'utf8' });
    expect([0, 3], r.stderr).toContain(r.status);
    single = await table(join(dir, 'single.parquet'));
    expect(single.length).toBe(N);
  }, 120_000);

  afterAll(async () => {
    for (const p of cluster.reverse()) {
      if (p.exitCode !== null || p.signalCode !== null) continue;
      const gone = new Promise((res) => p.on('exit', res));
      p.kill('SIGTERM');
      // a worker may wait for the scheduler before it closes: killed after 5 s, so that nothing is left running
      const timer = setTimeout(() => p.kill('SIGKILL'), 5000);
      await gone;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('a folder of logs, one task per file: the parts read as one table equal one run over the whole log', async () => {
    const out = join(dir, 'by-file');
    const r = await recipe(['--logs', logs, '--out', out, '--scheduler', address]).done;
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain(`${SHARDS} parts in ${out}: ${N} samples estimated, 0 rows skipped`);
    expect(readdirSync(out).filter((f) => f.endsWith('.parquet')).sort()).toEqual([...Array(SHARDS).keys()].map((s) => `robot-${s}.parquet`));
    // a file's lines are counted from its first; robot-s holds the whole log's lines s × PER + 1 …
    expectSameTable(await table(join(out, '*.parquet')), single, (f) => PER * Number(/robot-(\d+)\.parquet$/.exec(f)![1]));
  });

  it('one long log cut by time range into 8 shards of whole rows: the same table, lines mapped by parts.json', async () => {
    const out = join(dir, 'by-time');
    const r = await recipe(['--log', whole, '--shards', String(SHARDS), '--out', out, '--scheduler', address]).done;
    expect(r.code, r.out).toBe(0);
    const m = manifest(out);
    expect(m.map((p) => p.part)).toEqual([...Array(SHARDS).keys()].map((s) => `part-${String(s).padStart(5, '0')}.parquet`));
    expect(m.reduce((a, p) => a + p.estimated, 0)).toBe(N);
    // each shard starts where one run returns its LU to its initial row order (every 128 rows)
    expect(m.map((p) => p.line_offset % 128)).toEqual(m.map(() => 0));
    expectSameTable(await table(join(out, '*.parquet')), single, byPart(out));
  });

  it('refuses to cut by time a log whose velocities are derived, naming the overlap a shard would need', async () => {
    const noV = join(dir, 'no-velocities.ndjson');
    writeFileSync(noV, rows(0, 600, 'v'));
    const out = join(dir, 'derived');
    const r = await recipe(['--log', noV, '--shards', '4', '--out', out, '--scheduler', address]).done;
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/derived from positions over time \(local fits over 27 samples\), so a shard cut by time range would differ from one run at its edges\. Exact shards would need 26 rows of overlap at each end/);
    expect(readdirSync(out).filter((f) => f.endsWith('.parquet'))).toEqual([]);
  });

  it('passes the options after -- to every sparsedyn estimate', async () => {
    const one = join(dir, 'one-log');
    mkdirSync(one);
    writeFileSync(join(one, 'robot.ndjson'), rows(0, 100));
    const out = join(dir, 'options');
    const r = await recipe(['--logs', one, '--out', out, '--scheduler', address, '--', '--no-condition']).done;
    expect(r.code, r.out).toBe(0);
    const t = await table(join(out, '*.parquet'));
    expect(t.length).toBe(100);
    expect(Object.keys(t[0])).not.toContain('condition');
    expect(Object.keys(single[0])).toContain('condition');
  });

  it('a worker process killed mid-run: its shard runs again elsewhere, every part is written once, the table is the same', async () => {
    const out = join(dir, 'fault');
    const victim = cluster[1];
    const run = recipe(['--log', whole, '--shards', String(SHARDS), '--out', out, '--scheduler', address, '--retries', '2']);
    // wait until the victim runs a shard's sparsedyn process (not the probe of the log's first rows), then kill the worker
    let killedPart: string | undefined;
    while (killedPart === undefined && run.child.exitCode === null) {
      killedPart = children(victim.pid!).map((c) => /\sestimate\s.*--out (\S+\.parquet)/.exec(c.cmd)?.[1]).find((x) => x !== undefined);
      if (killedPart === undefined) await new Promise((r) => setTimeout(r, 10));
    }
    expect(killedPart, 'the killed worker was running a shard').toBeDefined();
    const dead = new Promise((res) => victim.on('exit', (_code, signal) => res(signal)));
    victim.kill('SIGKILL');
    expect(await dead).toBe('SIGKILL');
    const r = await run.done;
    expect(r.code, r.out).toBe(0);
    // the shard's process died with its worker: nothing runs on the parts' folder any more
    expect(processesWith(out)).toEqual([]);
    const files = readdirSync(out);
    const parts = [...Array(SHARDS).keys()].map((s) => `part-${String(s).padStart(5, '0')}.parquet`);
    expect(files.filter((f) => f.endsWith('.parquet')).sort()).toEqual(parts);
    expect(files.filter((f) => f.endsWith('.tmp'))).toEqual([]);
    expect(existsSync(killedPart!)).toBe(true);
    const t = await table(join(out, '*.parquet'));
    // each t once: no row lost, none twice
    expect(new Set(t.map((x) => x.t)).size).toBe(N);
    expectSameTable(t, single, byPart(out));
  });
});
