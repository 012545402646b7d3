/** Log reading: rows as they come (format from the content, BOM, RFC 4180 CSV), decimals only. */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { CsvRows, LogSchema, parseNdjsonLine } from '../../src/io/log.ts';
import { logRows, sniffFormat, type RawRow } from '../../src/io/log-reader.ts';
import { loadEstimationSystem } from '../../src/node/problem-file.ts';

async function rows(text: string, chunk = 5, csvParseOnly = false): Promise<{ format?: string; rows: RawRow[] }> {
  async function* chunks() { for (let i = 0; i < text.length; i += chunk) yield text.slice(i, i + chunk); }
  let format: string | undefined;
  const out: RawRow[] = [];
  for await (const r of logRows(chunks(), { onFormat: (f) => { format = f; }, csvParseOnly })) out.push(r);
  return { format, rows: out };
}

describe('logRows', () => {
  it('reads the format from the content', () => {
    expect(sniffFormat('\ufeff  \n {"t": 1}')).toBe('ndjson');
    expect(sniffFormat('t,q.a\n')).toBe('csv');
    expect(sniffFormat(' \n\t')).toBeNull();
  });

  it('NDJSON: BOM dropped, blank lines skipped, CRLF, line numbers kept, a last line without newline', async () => {
    const r = await rows('\ufeff{"t":1}\r\n\n{"t":2}\n{"t":3}');
    expect(r.format).toBe('ndjson');
    expect(r.rows).toEqual([{ kind: 'ndjson', line: 1, text: '{"t":1}' }, { kind: 'ndjson', line: 3, text: '{"t":2}' }, { kind: 'ndjson', line: 4, text: '{"t":3}' }]);
  });

  it('CSV (RFC 4180): BOM, quoted fields, doubled quotes, a line break inside quotes, CRLF; a broken record reported at its line, in order', async () => {
    const r = await rows('\ufefft,a,b\r\n1,"2.5",3\r\n\r\n4,"x""y",5\r\n6,"two\r\nlines",7\r\n8,"bad"x,9\r\n');
    expect(r.format).toBe('csv');
    const seen = r.rows.map((x) => (x.kind === 'csv' ? [x.line, ...x.cells] : [x.line, x.kind]));
    expect(seen.slice(0, 4)).toEqual([[1, 't', 'a', 'b'], [2, '1', '2.5', '3'], [4, '4', 'x"y', '5'], [7, '6', 'two\r\nlines', '7']]); // a record is numbered by its last line
    expect(r.rows[4]).toMatchObject({ kind: 'error', line: 8 });
    expect((r.rows[4] as { message: string }).message).toMatch(/^not valid CSV: invalid Closing Quote/);
  });

  it('CSV: the rows split here (lines without a quote) are those of csv-parse, line numbers and errors included, whatever the chunks', async () => {
    // logs made of numbers, separators, blank lines, CR, spaces, and now and then a quoted field (csv-parse reads from there on)
    let seed = 12345;
    const rnd = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648; };
    const plain = ['1', '-2.5e3', '', ' ', 'x', ',', ',', ',', '\n', '\n', '\r\n', '\r', ' 7 '];
    const quoted = ['"a,b"', '"x""y"', '"two\nlines"', '"bad"x', '"open'];
    let checked = 0;
    for (let trial = 0; trial < 300; trial++) {
      const n = 1 + Math.floor(rnd() * 40);
      let text = 't,a\n';
      for (let k = 0; k < n; k++) text += trial % 3 === 0 && rnd() < 0.05 ? quoted[Math.floor(rnd() * quoted.length)] : plain[Math.floor(rnd() * plain.length)];
      for (const chunk of [1, 3, 7, 1000]) {
        const fast = await rows(text, chunk), ref = await rows(text, chunk, true);
        expect(fast, JSON.stringify(text)).toEqual(ref);
        checked++;
      }
    }
    expect(checked).toBe(1200);
    // a broken record after many plain lines: the same line number in the row and in the message
    const late = 't,a\n' + '1,2\n'.repeat(50) + '3,"bad"x\n4,5\n';
    const [a, b] = [await rows(late, 64), await rows(late, 64, true)];
    expect(a).toEqual(b);
    expect(a.rows.find((r) => r.kind === 'error')).toMatchObject({ line: 52, message: expect.stringMatching(/at line 52\b/) });
  });

  it('no content: no rows and no format', async () => {
    expect(await rows('')).toEqual({ format: undefined, rows: [] });
    expect(await rows('\ufeff \n\n')).toEqual({ format: undefined, rows: [] });
  });
});

describe('cells and values', () => {
  const { es } = loadEstimationSystem('data/problems/humanoid-demo.json');
  const schema = new LogSchema(es);
  const header = schema.csvHeader();
  const good: string[] = header.map((h) => (h === 'base.qw' ? '1' : '0'));

  it('CSV cells are decimal numbers, quoted or not, spaces around them allowed; anything else names the column', () => {
    const csv = new CsvRows(schema, header, 1);
    expect('message' in csv.parse(good, 2)).toBe(false);
    const k = header.indexOf('q.l_knee');
    for (const [cell, msg] of [
      ['0x10', 'is "0x10": not a decimal number'], ['1_000', 'is "1_000": not a decimal number'], ['Infinity', 'is "Infinity": not a decimal number'],
      ['NaN', 'is "NaN": not a decimal number'], ['1,5', 'is "1,5": not a decimal number'], [' ', 'is empty'], ['1e400', 'is "1e400": out of the range of double precision'],
    ] as const) {
      const cells = [...good];
      cells[k] = cell;
      expect(csv.parse(cells, 7)).toEqual({ line: 7, message: `column "q.l_knee" ${msg}${msg === 'is empty' ? ': expected a decimal number' : ''}` });
    }
    for (const cell of [' 1.5e-3 ', '+2', '-.5', '3.']) {
      const cells = [...good];
      cells[k] = cell;
      expect('message' in csv.parse(cells, 3)).toBe(false);
    }
  });

  it('CSV: a "contacts" column names the active contacts as the estimates\' "mode" column writes them (l_sole+r_sole, none); an empty cell names none', () => {
    const withContacts = [...header, 'contacts'];
    const csv = new CsvRows(schema, withContacts, 1);
    expect(csv.ignored).toEqual([]);
    const row = (c: string) => csv.parse([...good, c], 4);
    expect((row('l_sole') as { contacts?: string[] }).contacts).toEqual(['l_sole']);
    expect((row(' l_sole+r_sole ') as { contacts?: string[] }).contacts).toEqual(['l_sole', 'r_sole']);
    expect((row('none') as { contacts?: string[] }).contacts).toEqual([]);
    expect('contacts' in (row('') as object)).toBe(false);
    expect(row('l_hand')).toEqual({ line: 4, message: 'column "contacts": "l_hand" is not a contact of the problem (l_sole, r_sole)' });
    // the same row without the column: the same sample, no contacts named
    const plain = new CsvRows(schema, header, 1).parse(good, 4);
    const { contacts: _c, ...rest } = row('l_sole') as { contacts?: string[] };
    expect(rest).toEqual(plain);
  });

  it('NDJSON: a number beyond double precision is named as the value it became', () => {
    const o = JSON.parse(readFileSync('data/demo/humanoid.ndjson', 'utf8').split('\n')[0]);
    const text = JSON.stringify(o).replace(/"l_knee":[-\d.e]+/, '"l_knee":1e400');
    expect(parseNdjsonLine(schema, text, 5)).toEqual({ line: 5, message: 'q of joint "l_knee" is Infinity: expected a finite number' });
  });

  it('NDJSON: a joint the model does not have in "q" or "v", or another key in "base", is a channel the problem does not use: ignored and listed (strict: refused); the sample is that of the row without it', () => {
    const text = readFileSync('data/demo/humanoid.ndjson', 'utf8').split('\n')[0];
    const o = JSON.parse(text);
    o.q.ghost_joint = 0.3;
    o.v.ghost_joint = -1;
    o.v.other_joint = 2;
    o.base.acceleration = [0, 0, 9.81];
    const plain = parseNdjsonLine(schema, text, 1) as { q: Float64Array; v: Float64Array; ignored?: string[] };
    const s = parseNdjsonLine(schema, JSON.stringify(o), 1) as { q: Float64Array; v: Float64Array; ignored?: string[] };
    expect('message' in s).toBe(false);
    expect(s.ignored).toEqual(['q.ghost_joint', 'v.ghost_joint', 'v.other_joint', 'base.acceleration']);
    expect(plain.ignored).toBeUndefined();
    expect([...s.q]).toEqual([...plain.q]);
    expect([...s.v]).toEqual([...plain.v]);
    expect(parseNdjsonLine(new LogSchema(es, { strict: true }), JSON.stringify(o), 4)).toEqual({ line: 4, message: 'unknown channels "q.ghost_joint", "v.ghost_joint", "v.other_joint", "base.acceleration" (--strict)' });
    // a joint of the model still missing from "q" is an error, named as before
    delete o.q.l_knee;
    expect(parseNdjsonLine(schema, JSON.stringify(o), 5)).toEqual({ line: 5, message: 'q of joint "l_knee" is missing: expected a finite number' });
  });
});
