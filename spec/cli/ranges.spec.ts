/**
 * A text log read in byte ranges (estimate --jobs N on a file: each worker reads and parses its own
 * range): the ranges' rows, numbered by lines, are the rows the log's reader makes of the whole text
 * (blank and white-space lines, CRLF, a byte order mark, a last line without a line break, a line
 * longer than the scan's buffer, multi-byte characters at range ends); a CSV log is cut up to its
 * first line with a quote or a lone carriage return, the rest read by the log's reader. End to end,
 * the estimates are the same bytes with 2 jobs (reading ranges) as with one.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RangeScanner, readRange } from '../../src/cli/estimate-ranges.ts';
import { logRows, type LogFormat, type RawRow } from '../../src/io/log-reader.ts';
import { runCli as run } from './run.ts';
import { toCsv } from './synthetic.ts';

const dir = mkdtempSync(join(tmpdir(), 'sparsedyn-ranges-'));

async function whole(text: string, format: LogFormat): Promise<RawRow[]> {
  const out: RawRow[] = [];
  for await (const r of logRows((async function* () { yield text; })(), { format })) out.push(r);
  return out;
}

/** the rows of every range of the file, and where a CSV log stopped being plain */
function ranged(path: string, format: LogFormat, per: number, bom: number): { rows: RawRow[]; unsafe: RangeScanner['unsafe'] } {
  const s = new RangeScanner(path, format, per, bom, 0, 0);
  const rows: RawRow[] = [];
  let prevEnd = bom, count = 0;
  for (let r = s.next(); r !== null; r = s.next()) {
    expect(r.start).toBe(prevEnd);
    prevEnd = r.end;
    const got = readRange(r);
    expect(got.length).toBe(r.rows);
    if (s.unsafe === null || r.rows === per) expect(r.rows).toBeLessThanOrEqual(per);
    rows.push(...got);
    count++;
  }
  expect(count).toBeGreaterThan(0);
  return { rows, unsafe: s.unsafe };
}

describe('ranges of a log', () => {
  const long = `{"t": 5, "note": "${'x'.repeat(5_000_000)}"}`;
  // a byte order mark at the start of the log is dropped; one starting a later line is kept (its row is malformed), whatever range it starts
  const ndjson = '\ufeff{"t": 0}\r\n\n   \t\n{"t": 1, "ü": "é"}\n{bad\n\r\n{"t": 2}\n\ufeff{"t": 3}\n' + long + '\n' + Array.from({ length: 40 }, (_, k) => `{"t": ${k + 6}, "s": "ß${k}"}`).join('\n') + '\n  {"t": 99}';

  it('NDJSON: the rows of the whole text, for any range size', async () => {
    const path = join(dir, 'a.ndjson');
    writeFileSync(path, ndjson);
    const want = await whole(ndjson.slice(1), 'ndjson');
    expect(want.length).toBe(47);
    expect(want.some((r) => r.kind === 'ndjson' && r.text.startsWith('\ufeff'))).toBe(true);
    for (const per of [1, 2, 3, 7, 100]) {
      const { rows, unsafe } = ranged(path, 'ndjson', per, 3);
      expect(unsafe).toBeNull();
      expect(rows, `ranges of ${per} rows`).toEqual(want);
    }
  });

  it('CSV: plain lines in ranges, then from the first quote (or lone carriage return) on, the log\'s reader', async () => {
    const lines = ['t,a.x', '', '0,1', '1,2\r', '2,3', ' ', '3,4', '4,"5"', '5,6\r7', '6,8'];
    const text = lines.join('\n') + '\n';
    const path = join(dir, 'a.csv');
    writeFileSync(path, text);
    const want = await whole(text, 'csv');
    for (const per of [1, 2, 5]) {
      const { rows, unsafe } = ranged(path, 'csv', per, 0);
      expect(unsafe).not.toBeNull();
      // the rows before the first quote are the reader's, and the quote's line is where the scan stopped
      const before = want.filter((r) => r.line <= unsafe!.line);
      expect(rows, `ranges of ${per} rows`).toEqual(before);
      expect(unsafe!.line).toBe(7);
      expect(unsafe!.row).toBe(6);
      expect(text.slice(unsafe!.start).split('\n')[0]).toBe('4,"5"');
    }
    // a lone carriage return alone stops it too
    const cr = 't,a.x\n0,1\n1,2\r3\n';
    writeFileSync(path, cr);
    const s = new RangeScanner(path, 'csv', 10, 0, 0, 0);
    expect(s.next()!.rows).toBe(2);
    expect(s.unsafe).toEqual({ start: 10, line: 2, row: 2 });
  });
});

describe('estimate --jobs 2 reading ranges: the same bytes as one job', () => {
  const demo = readFileSync('data/demo/humanoid.ndjson', 'utf8').trim().split('\n');
  const rows = (n: number) => Array.from({ length: n }, (_, k) => { const o = JSON.parse(demo[k % demo.length]); o.t = Number((k * 0.005).toFixed(6)); return o; });

  it('NDJSON with a byte order mark, CRLF, blank and malformed lines', async () => {
    const lines = rows(1300).map((o) => JSON.stringify(o));
    lines[10] = '{"t": 0.05, "q": [1';
    lines.splice(600, 0, '', '   ');
    const path = join(dir, 'log.ndjson');
    writeFileSync(path, '\ufeff' + lines.join('\r\n') + '\r\n');
    const common = ['estimate', 'data/problems/humanoid-demo.json', '--data', path, '--no-html'];
    const one = await run([...common, '--out', join(dir, 'one.ndjson'), '--jobs', '1']);
    const two = await run([...common, '--out', join(dir, 'two.ndjson'), '--jobs', '2']);
    expect(one.code).toBe(3);
    expect(two.code).toBe(3);
    expect(two.err).toMatch(/2 worker threads \(reading and parsing their own ranges of the log\)/);
    expect(readFileSync(join(dir, 'two.ndjson'), 'utf8')).toBe(readFileSync(join(dir, 'one.ndjson'), 'utf8'));
    expect(readFileSync(join(dir, 'one.ndjson'), 'utf8').split('\n').length).toBe(1300);
    // the skipped row by its line, as one job names it
    expect(two.err).toMatch(new RegExp(`log\\.ndjson:11: skipped`));
  }, 120_000);

  it('CSV with a quoted cell late in the log: ranges up to it, the reader after, the same bytes', async () => {
    const lines = toCsv(rows(1300).map((o) => JSON.stringify(o))).trim().split('\n');
    const cells = lines[1101].split(',');
    cells[1] = `"${cells[1]}"`;
    lines[1101] = cells.join(',');
    const path = join(dir, 'log.csv');
    writeFileSync(path, lines.join('\n') + '\n');
    const common = ['estimate', 'data/problems/humanoid-demo.json', '--data', path, '--no-html'];
    const one = await run([...common, '--out', join(dir, 'one.csv'), '--jobs', '1']);
    const two = await run([...common, '--out', join(dir, 'two.csv'), '--jobs', '2']);
    expect(one.code, one.err).toBe(0);
    expect(two.code, two.err).toBe(0);
    expect(two.err).toMatch(/reading and parsing their own ranges/);
    expect(readFileSync(join(dir, 'two.csv'), 'utf8')).toBe(readFileSync(join(dir, 'one.csv'), 'utf8'));
    expect(readFileSync(join(dir, 'one.csv'), 'utf8').trim().split('\n').length).toBe(1301);
  }, 120_000);
});
