/**
 * A log stored as Parquet (flat columns named as a CSV log's): the same estimates as the CSV log of
 * the same numbers (rows numbered from 1 rather than by their CSV line), a null cell read as a
 * missing reading, a nested column refused by name.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { describe, expect, it } from 'vitest';
import { ParquetEstimateWriter } from '../../src/io/parquet-estimates.ts';
import { runCli as run } from './run.ts';
import { toCsv } from './synthetic.ts';

const DEMO = 'data/problems/humanoid-demo.json';
const dir = mkdtempSync(join(tmpdir(), 'sparsedyn-parquet-log-'));

/** a CSV log's text as a Parquet file of DOUBLE columns (an empty cell: null) */
function csvToParquet(csv: string): Uint8Array {
  const [head, ...rows] = csv.trim().split('\n').map((l) => l.split(','));
  const columnData = head.map((name, j) => ({
    name, type: 'DOUBLE' as const, nullable: true,
    data: rows.map((r) => (r[j] === '' ? null : Number(r[j]))),
  }));
  return new Uint8Array(parquetWriteBuffer({ columnData, rowGroupSize: 128 }));
}

describe('a Parquet log', () => {
  const demo = readFileSync('data/demo/humanoid.ndjson', 'utf8').trim().split('\n');

  it('gives the estimates of the CSV log of the same numbers, row by row', async () => {
    const csvText = toCsv(demo);
    const lines = csvText.trim().split('\n');
    // a missing reading in row 10 (an empty cell: a null in the Parquet file)
    const cells = lines[10].split(',');
    const k = lines[0].split(',').findIndex((h) => h.startsWith('ft_left.'));
    cells[k] = '';
    lines[10] = cells.join(',');
    const csv = join(dir, 'log.csv'), pq = join(dir, 'log.parquet');
    writeFileSync(csv, lines.join('\n') + '\n');
    writeFileSync(pq, csvToParquet(lines.join('\n')));
    const a = await run(['estimate', DEMO, '--data', csv, '--out', join(dir, 'from-csv.ndjson'), '--format', 'ndjson', '--no-html', '--quiet', '--jobs', '1']);
    const b = await run(['estimate', DEMO, '--data', pq, '--out', join(dir, 'from-parquet.ndjson'), '--no-html', '--jobs', '1']);
    expect(a.code, a.err).toBe(0);
    expect(b.code, b.err).toBe(0);
    expect(b.err).toMatch(/\(parquet\): samples estimated 300/);
    const fromCsv = readFileSync(join(dir, 'from-csv.ndjson'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const fromPq = readFileSync(join(dir, 'from-parquet.ndjson'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(fromPq.length).toBe(300);
    // rows numbered from 1 (the CSV log's line 2 is row 1)
    expect(fromPq.map((o) => o.line)).toEqual(fromCsv.map((o) => o.line - 1));
    for (let r = 0; r < 300; r++) { delete fromPq[r].line; delete fromCsv[r].line; }
    expect(fromPq).toEqual(fromCsv);
    // the row with the missing reading was estimated without that sensor
    expect(fromPq[9].sensors).not.toContain('ft_left');
    // and, without --out's extension saying otherwise, estimates of a Parquet log are written as Parquet
    const c = await run(['estimate', DEMO, '--data', pq, '--out', join(dir, 'est'), '--no-html', '--quiet', '--jobs', '1']);
    expect(c.code).toBe(0);
    expect(readFileSync(join(dir, 'est')).subarray(0, 4).toString('latin1')).toBe('PAR1');
  }, 120_000);

  it('refuses a nested column by name, in the user\'s words', async () => {
    const pq = join(dir, 'nested.parquet');
    const parts: Uint8Array[] = [];
    const w = new ParquetEstimateWriter([{ name: 't', type: 'DOUBLE', optional: false }, { name: 'q', type: 'STRINGS', optional: false }], (b) => parts.push(b.slice()), {});
    w.row([0], 0, [['1', '2']]);
    w.end();
    writeFileSync(pq, Buffer.concat(parts));
    const r = await run(['estimate', DEMO, '--data', pq, '--out', join(dir, 'x.ndjson'), '--no-html', '--quiet']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/nested\.parquet: column "q" is nested/);
    expect(r.err).not.toMatch(/TypeError|at .*\.js/);
  });
});
