/**
 * A CSV log of many lines csv-parse refuses at once (a quote inside an unquoted field), one after
 * the other (src/io/log-reader.ts): each is reported with csv-parse's own message for it (the
 * reference: csv-parse run on that line alone) and its line, the good rows around them are kept,
 * and csv-parse's parser is not made again for each bad line (a fuzzed 100 kB log of 23,000 such
 * lines took 1.4–1.7 s: a new parser per line).
 */
import { parse as parseSync } from 'csv-parse/sync';
import { describe, expect, it, vi } from 'vitest';
import type { RawRow } from '../../src/io/log-reader.ts';

const made = vi.hoisted(() => ({ parsers: 0 }));
vi.mock('csv-parse', async (original) => {
  const m = await original<typeof import('csv-parse')>();
  return { ...m, parse: (...a: Parameters<typeof m.parse>) => { made.parsers++; return m.parse(...a); } };
});
// the reader imported afresh, with the mock: the suite's workers keep the modules an earlier test file imported
vi.resetModules();
const { logRows } = await import('../../src/io/log-reader.ts');

async function read(text: string, chunk: number): Promise<RawRow[]> {
  const out: RawRow[] = [];
  const chunks = (async function* () { for (let i = 0; i < text.length; i += chunk) yield text.slice(i, i + chunk); })();
  for await (const r of logRows(chunks, { format: 'csv' })) out.push(r);
  return out;
}

/** csv-parse's message for one line read alone, at line `line`, as the reader words it */
function reference(line: string, at: number): string {
  try {
    parseSync(line, { relax_column_count: true, record_delimiter: ['\r\n', '\n'] });
  } catch (e) {
    return `not valid CSV: ${(e as Error).message.replace(/^Invalid /, 'invalid ').replace(/at line 1\b/, `at line ${at}`)}`;
  }
  throw new Error(`csv-parse reads ${JSON.stringify(line)}`);
}

describe('CSV: many bad lines in a row', () => {
  it('each bad line has csv-parse\'s message and its line; good rows are kept; no parser per bad line', async () => {
    const bad = ['µ""', '1,ab"c,3', ' "x"', '1,2,3"', 'é\u00e8"', '7,8,9""'];
    const lines = ['t,a', '1,2', '"q",3', '1,x"y'];
    // among them one csv-parse must read (a quoted field, then a character that is not a delimiter)
    for (let k = 0; k < 2000; k++) lines.push(k === 1000 ? '"a"b,1' : bad[k % bad.length]);
    lines.push('4,5', '6,"7"', 'z"', '8,9', '');
    const text = lines.join('\r\n').replace(/\r\n(?=8,9)/, '\n');
    for (const chunk of [4096, 65536, text.length]) {
      made.parsers = 0;
      const rows = await read(text, chunk);
      const errors = rows.filter((r) => r.kind === 'error') as { line: number; message: string }[];
      // line 4 and the 2,000 after it, and the line before 8,9
      expect(errors.map((e) => e.line)).toEqual([...Array.from({ length: 2001 }, (_, k) => 4 + k), 2007]);
      errors.forEach((e) => expect(e.message).toBe(reference(lines[e.line - 1], e.line)));
      expect(rows.filter((r) => r.kind === 'csv').map((r) => [r.line, ...(r as { cells: string[] }).cells])).toEqual([[1, 't', 'a'], [2, '1', '2'], [3, 'q', '3'], [2005, '4', '5'], [2006, '6', '7'], [2008, '8', '9']]);
      // one parser from the first quote on, one after each line csv-parse refused (4 here) and at most
      // one more per chunk of text (a bad line cut by a chunk's end goes to the parser): not 2,000
      // (and csv-parse's parser is the counted one: the mock is in force, whatever ran in this worker before)
      expect(made.parsers).toBeGreaterThan(0);
      expect(made.parsers).toBeLessThanOrEqual(4 + Math.ceil(text.length / chunk));
    }
  });

  it('bad lines between blank lines (CRLF): the blank lines skipped as csv-parse skips them, no parser per bad line', async () => {
    // a fuzzed 100 kB log of `]t""-` lines between blank ones took 0.4 s: a new parser per bad line
    const lines = ['t,a', '1,2'];
    for (let k = 0; k < 2000; k++) lines.push(k % 2 ? '' : ']t""-');
    lines.push('3,4', '');
    const text = lines.join('\r\n');
    for (const chunk of [4096, text.length]) {
      made.parsers = 0;
      const rows = await read(text, chunk);
      const errors = rows.filter((r) => r.kind === 'error') as { line: number; message: string }[];
      expect(errors.map((e) => e.line)).toEqual(Array.from({ length: 1000 }, (_, k) => 3 + 2 * k));
      errors.forEach((e) => expect(e.message).toBe(reference(lines[e.line - 1], e.line)));
      expect(rows.filter((r) => r.kind === 'csv').map((r) => [r.line, ...(r as { cells: string[] }).cells])).toEqual([[1, 't', 'a'], [2, '1', '2'], [2003, '3', '4']]);
      expect(made.parsers).toBeGreaterThan(0);
      expect(made.parsers).toBeLessThanOrEqual(4 + Math.ceil(text.length / chunk));
    }
  });

  it('good and bad lines in turn: the same rows and messages as csv-parse gives line by line, no parser per bad line', async () => {
    // a fuzzed 100 kB log of `]`, `]t""-`, blank lines in turn took 0.3–0.4 s: a new parser per bad line
    const good = [']', '1,2,3', 'a, b ,c', 'é,ü', '', ' ', ',', '1,,2'];
    const badLines = [']t""-', 'x"y', '1,2"'];
    const lines = ['t,a'];
    for (let k = 0; k < 3000; k++) lines.push(k % 2 ? good[k % good.length] : badLines[k % badLines.length]);
    lines.push('"q",1', '4,5', '');
    const text = lines.join('\r\n');
    const expected = (line: string): string[][] => parseSync(line, { relax_column_count: true, skip_empty_lines: true, record_delimiter: ['\r\n', '\n'] });
    for (const chunk of [4096, text.length]) {
      made.parsers = 0;
      const rows = await read(text, chunk);
      const errors = rows.filter((r) => r.kind === 'error') as { line: number; message: string }[];
      expect(errors.map((e) => e.line)).toEqual(Array.from({ length: 1500 }, (_, k) => 2 + 2 * k));
      errors.forEach((e) => expect(e.message).toBe(reference(lines[e.line - 1], e.line)));
      const csv = rows.filter((r) => r.kind === 'csv') as { line: number; cells: string[] }[];
      const want = lines.flatMap((l, k) => (errors.some((e) => e.line === k + 1) ? [] : expected(l).map((cells) => ({ line: k + 1, cells }))));
      expect(csv.map((r) => [r.line, r.cells])).toEqual(want.map((r) => [r.line, r.cells]));
      expect(made.parsers).toBeGreaterThan(0);
      expect(made.parsers).toBeLessThanOrEqual(4 + Math.ceil(text.length / chunk));
    }
  });
});
