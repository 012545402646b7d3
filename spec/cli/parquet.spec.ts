/**
 * `estimate --out x.parquet`: read back by an independent reader (DuckDB), every value of every
 * estimated row equals the NDJSON output's (the same run's options), column by column, with the
 * column names of the CSV header, typed columns (line BIGINT, flagged BOOLEAN, sensors a list), nulls
 * where the NDJSON row has no value, units and frames in the key-value metadata; the same bytes for
 * any --jobs; rows skipped as in the NDJSON output; nothing left behind when the run is refused.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli as run } from './run.ts';

const DEMO = 'data/problems/humanoid-demo.json';
const dir = mkdtempSync(join(tmpdir(), 'sparsedyn-parquet-'));
const demo = readFileSync('data/demo/humanoid.ndjson', 'utf8').trim().split('\n');

/** the demo's 300 rows and 300 more (t going on), one malformed, one out of range, one blank */
function log(): string {
  const r: string[] = [];
  for (let k = 0; k < 600; k++) { const o = JSON.parse(demo[k % demo.length]); o.t = Number((k * 0.005).toFixed(6)); r.push(JSON.stringify(o)); }
  r[40] = '{"t": 0.2, "q": [1, 2';
  const big = JSON.parse(r[170]);
  big.v.l_knee = 1e200;
  r[170] = JSON.stringify(big);
  r.splice(200, 0, '');
  return r.join('\n') + '\n';
}

type Row = Record<string, unknown>;

async function readParquet(path: string): Promise<{ rows: Row[]; types: Map<string, string>; kv: Map<string, string> }> {
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  const q = `'${path.replace(/'/g, "''")}'`;
  const rows = (await c.runAndReadAll(`select * from read_parquet(${q})`)).getRowObjectsJS() as Row[];
  const types = new Map((await c.runAndReadAll(`describe select * from read_parquet(${q})`)).getRows().map((x) => [String(x[0]), String(x[1])]));
  const kv = new Map((await c.runAndReadAll(`select decode(key), decode(value) from parquet_kv_metadata(${q})`)).getRows().map((x) => [String(x[0]), String(x[1])]));
  c.closeSync();
  return { rows, types, kv };
}

/** an NDJSON estimate as the columns of the CSV header (names built here from the NDJSON schema, not by the code under test) */
function asColumns(o: Record<string, any>, joints: string[], nv: Map<string, number>): Map<string, unknown> {
  const m = new Map<string, unknown>([['t', o.t], ['line', o.line]]);
  if ('condition' in o) { m.set('condition', o.condition); m.set('flagged', 'near_singular' in o); m.set('near_singular', o.near_singular ?? null); }
  for (const part of ['tau', 'qdd', 'tau_std']) {
    if (!(part in o)) continue;
    for (const j of joints) {
      const x = o[part][j];
      if ((nv.get(j) ?? 1) === 1) m.set(`${part}.${j}`, x ?? null);
      else for (let k = 0; k < nv.get(j)!; k++) m.set(`${part}.${j}[${k}]`, x?.[k] ?? null);
    }
  }
  const w = ['tx', 'ty', 'tz', 'fx', 'fy', 'fz'];
  for (const [c, v] of Object.entries(o.contact_wrenches as Record<string, { torque: number[]; force: number[] }>)) w.forEach((n, k) => m.set(`contact.${c}.${n}`, k < 3 ? v.torque[k] : v.force[k - 3]));
  for (const [j, v] of Object.entries(o.joint_wrenches as Record<string, { torque: number[]; force: number[] }>)) w.forEach((n, k) => m.set(`wrench.${j}.${n}`, k < 3 ? v.torque[k] : v.force[k - 3]));
  for (const [s, v] of Object.entries(o.residuals as Record<string, number>)) m.set(`residual.${s}`, v);
  if (o.bad_data) { m.set('chi2', o.bad_data.chi2); m.set('chi2_threshold', o.bad_data.threshold); m.set('suspect', o.bad_data.suspect ?? null); }
  m.set('implausible', o.implausible ?? null);
  m.set('mode', o.mode);
  m.set('sensors', o.sensors);
  return m;
}

describe('estimate → Parquet, read by DuckDB', () => {
  const data = join(dir, 'log.ndjson');
  let nd: Record<string, any>[] = [];
  let pq: Awaited<ReturnType<typeof readParquet>>;
  beforeAll(async () => {
    writeFileSync(data, log());
    // a low condition limit: some samples flagged near a singular configuration (near_singular filled)
    const common = ['estimate', DEMO, '--data', data, '--condition-limit', '3.6', '--no-html', '--quiet'];
    const a = await run([...common, '--out', join(dir, 'e.ndjson'), '--jobs', '1']);
    expect(a.code).toBe(3); // rows skipped
    const b = await run([...common, '--out', join(dir, 'e.parquet'), '--jobs', '1']);
    expect(b.code, b.err).toBe(3);
    nd = readFileSync(join(dir, 'e.ndjson'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    pq = await readParquet(join(dir, 'e.parquet'));
  }, 120_000);

  it('has the NDJSON output\'s rows, skipped rows skipped alike', () => {
    expect(nd.length).toBe(598);
    expect(pq.rows.length).toBe(nd.length);
    expect(pq.rows.map((r) => Number(r.line))).toEqual(nd.map((o) => o.line));
    expect(nd.some((o) => 'near_singular' in o)).toBe(true);
    expect(nd.some((o) => !('near_singular' in o))).toBe(true);
  });

  it('every value equals the NDJSON output\'s (as doubles: the text drops only the sign of a zero)', () => {
    const joints = [...new Set(Object.keys(nd[0].tau))];
    const nv = new Map(joints.map((j) => [j, Array.isArray(nd[0].tau[j]) ? nd[0].tau[j].length : 1]));
    const names = Object.keys(pq.rows[0]);
    let compared = 0;
    for (let k = 0; k < nd.length; k++) {
      const want = asColumns(nd[k], joints, nv), got = pq.rows[k];
      // the same set of columns, with a value where the NDJSON row has one
      for (const [name, v] of want) {
        expect(names, name).toContain(name);
        const g = got[name];
        if (typeof v === 'number') { expect(typeof g, `${name} row ${k}`).toBe(name === 'line' ? 'bigint' : 'number'); expect(Number(g) === v, `${name} row ${k}: ${g} vs ${v}`).toBe(true); compared++; }
        else expect(g, `${name} row ${k}`).toEqual(v);
      }
      for (const n of names) if (!want.has(n)) expect(got[n], `${n} row ${k}: only in the Parquet file`).toBeNull();
    }
    expect(compared).toBeGreaterThan(598 * 250);
  });

  it('types its columns and carries units and frames', () => {
    expect(pq.types.get('t')).toBe('DOUBLE');
    expect(pq.types.get('line')).toBe('BIGINT');
    expect(pq.types.get('flagged')).toBe('BOOLEAN');
    expect(pq.types.get('sensors')).toBe('VARCHAR[]');
    expect(pq.types.get('mode')).toBe('VARCHAR');
    expect(pq.types.get('tau.l_knee')).toBe('DOUBLE');
    const units = JSON.parse(pq.kv.get('sparsedyn.units')!);
    expect(units['tau.l_knee']).toBe('N m');
    expect(units['contact.l_sole.fz']).toBe('N');
    expect(units.t).toBe('s');
    expect(pq.kv.get('sparsedyn.frames')).toMatch(/link's frame/);
  });

  it('is the same file, byte for byte, with two jobs, and with --format parquet under another name', async () => {
    const common = ['estimate', DEMO, '--data', data, '--condition-limit', '3.6', '--no-html', '--quiet'];
    expect((await run([...common, '--out', join(dir, 'j2.parquet'), '--jobs', '2'])).code).toBe(3);
    expect(readFileSync(join(dir, 'j2.parquet')).equals(readFileSync(join(dir, 'e.parquet')))).toBe(true);
    expect((await run([...common, '--out', join(dir, 'named.bin'), '--format', 'parquet', '--jobs', '1'])).code).toBe(3);
    expect(readFileSync(join(dir, 'named.bin')).equals(readFileSync(join(dir, 'e.parquet')))).toBe(true);
  }, 120_000);

  it('a long log: the same file for 1, 2 and 3 jobs, skipped rows and all, in row groups of 8,192 samples', async () => {
    // 8,892 rows: a bad line in the first row group, a row that is not finite in the second (the worker threads read the log in ranges)
    const lines: string[] = [];
    for (let k = 0; k < 2 * 4096 + 700; k++) { const o = JSON.parse(demo[k % demo.length]); o.t = Number((k * 0.005).toFixed(6)); lines.push(JSON.stringify(o)); }
    lines[100] = '{"t": oops}';
    const big = JSON.parse(lines[5000]);
    big.sensors.imu_acc[3] = 1e152;
    lines[5000] = JSON.stringify(big);
    const log = join(dir, 'long.ndjson');
    writeFileSync(log, lines.join('\n') + '\n');
    const files: Buffer[] = [];
    for (const jobs of [1, 2, 3]) {
      const out = join(dir, `long-${jobs}.parquet`);
      const r = await run(['estimate', DEMO, '--data', log, '--out', out, '--no-html', '--quiet', '--jobs', String(jobs)]);
      expect(r.code).toBe(3);
      files.push(readFileSync(out));
    }
    expect(files[1].equals(files[0])).toBe(true);
    expect(files[2].equals(files[0])).toBe(true);
    const db = await DuckDBInstance.create(':memory:');
    const c = await db.connect();
    const q = `'${join(dir, 'long-2.parquet').replace(/'/g, "''")}'`;
    const groups = (await c.runAndReadAll(`select row_group_id, max(row_group_num_rows) from parquet_metadata(${q}) group by 1 order by 1`)).getRows().map((x) => Number(x[1]));
    expect(groups).toEqual([8192, 2 * 4096 + 700 - 2 - 8192]);
    const lineNumbers = (await c.runAndReadAll(`select line from read_parquet(${q})`)).getRows().map((x) => Number(x[0]));
    expect(lineNumbers.length).toBe(lines.length - 2);
    expect(lineNumbers.includes(101) || lineNumbers.includes(5001)).toBe(false);
  }, 180_000);

  it('writes nothing when the run is refused, and leaves an existing file as it was', async () => {
    const out = join(dir, 'refused.parquet');
    writeFileSync(out, 'old');
    const bad = join(dir, 'bad.ndjson');
    writeFileSync(bad, '{"t": 0}\n{"t": 1}\n');
    const r = await run(['estimate', DEMO, '--data', bad, '--out', out, '--no-html', '--quiet']);
    expect(r.code).not.toBe(0);
    expect(readFileSync(out, 'utf8')).toBe('old');
    expect(readdirSync(dir).filter((f) => f.startsWith('.refused'))).toEqual([]);
    expect(existsSync(`${out}.report.md`)).toBe(false);
  });
});
