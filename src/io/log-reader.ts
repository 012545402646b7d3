/**
 * The rows of a sensor log as they come, from a stream of text chunks (a file, standard input, a
 * network stream: the caller opens it; nothing here touches the file system). A UTF-8 byte order
 * mark is dropped. The format is given, or read from the content: a first non-blank character `{`
 * is NDJSON, anything else CSV. NDJSON: one JSON object per line. CSV: RFC 4180 (quoted fields,
 * doubled quotes, line breaks inside quotes, CRLF) through csv-parse; a record the parser cannot
 * read is returned as an error with its line, and the reading goes on. Lines without a double
 * quote (a log of numbers) are split at their commas here, which is what csv-parse makes of them at
 * a fraction of its cost; from the first line with a quote on, the rest of the log goes through
 * csv-parse (a quoted field may span lines), line numbers continuing.
 */
import { parse } from 'csv-parse';
import { isMcap } from './mcap-log.ts';
import { clipMessage } from '../model/warnings.ts';

/** The text formats of a sensor log (a ROS 2 recording, MCAP, is told by its magic bytes). */
export type LogFormat = 'ndjson' | 'csv';

/** A log's format, binary ones included: a ROS 2 recording (MCAP) is told by its magic bytes. */
export type AnyLogFormat = LogFormat | 'mcap';

/**
 * The format a log's first bytes announce: "mcap" for the MCAP magic, else the text's
 * ({@link sniffFormat}); null when there is no content yet.
 */
export function sniffBytes(head: Uint8Array): AnyLogFormat | null {
  if (isMcap(head)) return 'mcap';
  return sniffFormat(new TextDecoder().decode(head.subarray(0, 4096)));
}

export type RawRow =
  | { kind: 'ndjson'; line: number; text: string }
  | { kind: 'csv'; line: number; cells: string[] }
  | { kind: 'error'; line: number; message: string };

/** The format a log's first characters announce, or null when there is no content yet. */
export function sniffFormat(text: string): LogFormat | null {
  const m = /\S/.exec(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  if (!m) return null;
  return m[0] === '{' ? 'ndjson' : 'csv';
}

/** How a log is read: its format (read from the content when omitted), told before the first row; `csvParseOnly`: every CSV line through csv-parse (tests). */
export interface LogRowOptions { format?: LogFormat; onFormat?: (f: LogFormat) => void; csvParseOnly?: boolean }

/** The log's rows, blank lines skipped; `format` (detected when omitted) is set before the first row. */
export async function* logRows(chunks: AsyncIterable<string>, opts: LogRowOptions = {}): AsyncGenerator<RawRow> {
  for await (const rows of logRowBatches(chunks, opts)) yield* rows;
}

/**
 * The log's rows as they come in groups: the complete rows of each chunk of text read (rows read
 * through csv-parse one by one). A caller that waits for more text only after a group has what
 * arrived so far, and can work on the group as a whole.
 */
export async function* logRowBatches(chunks: AsyncIterable<string>, opts: LogRowOptions = {}): AsyncGenerator<RawRow[]> {
  const it = chunks[Symbol.asyncIterator]();
  // read until the format is known
  let head = '';
  let first = true;
  let format = opts.format ?? null;
  while (format === null) {
    const r = await it.next();
    if (r.done) break;
    head += r.value;
    if (first && head.length > 0) {
      if (head.charCodeAt(0) === 0xfeff) head = head.slice(1);
      first = false;
    }
    format = sniffFormat(head);
  }
  if (format === null) return; // no content at all
  if (first) {
    // format given: still drop a BOM
    const r = await it.next();
    if (!r.done) head = r.value.charCodeAt(0) === 0xfeff ? r.value.slice(1) : r.value;
    else return;
  }
  opts.onFormat?.(format);
  const rest: AsyncIterable<string> = {
    [Symbol.asyncIterator]: () => {
      let pre: string | null = head;
      return {
        next: async () => {
          if (pre !== null) { const v = pre; pre = null; return { done: false, value: v }; }
          return it.next();
        },
      };
    },
  };
  if (format === 'ndjson') yield* ndjsonRows(rest);
  else if (opts.csvParseOnly) for await (const r of csvRows(rest)) yield [r];
  else yield* csvLines(rest);
}

async function* ndjsonRows(chunks: AsyncIterable<string>): AsyncGenerator<RawRow[]> {
  let carry = '';
  let line = 0;
  for await (const c of chunks) {
    carry += c;
    let nl: number, start = 0;
    const rows: RawRow[] = [];
    while ((nl = carry.indexOf('\n', start)) >= 0) {
      let text = carry.slice(start, nl);
      start = nl + 1;
      line++;
      if (text.endsWith('\r')) text = text.slice(0, -1);
      if (text.trim() !== '') rows.push({ kind: 'ndjson', line, text });
    }
    carry = carry.slice(start);
    if (rows.length) yield rows;
  }
  line++;
  if (carry.endsWith('\r')) carry = carry.slice(0, -1);
  if (carry.trim() !== '') yield [{ kind: 'ndjson', line, text: carry }];
}

/**
 * CSV rows: each line without a double quote split at its commas (records end at "\n" or "\r\n",
 * empty lines skipped, as csv-parse does with the options below); from the first line with a
 * quote on, csv-parse reads the rest, numbered after the lines before.
 */
async function* csvLines(chunks: AsyncIterable<string>): AsyncGenerator<RawRow[]> {
  const it = chunks[Symbol.asyncIterator]();
  let carry = '';
  let line = 0;
  for (;;) {
    const r = await it.next();
    const last = r.done === true;
    if (!last) carry = carry.length ? carry + r.value : r.value;
    let start = 0, nl: number;
    const rows: RawRow[] = [];
    // the first quote of the text (searched once: a line before it has none)
    const quote = carry.indexOf('"');
    let cr = carry.indexOf('\r');
    while ((nl = carry.indexOf('\n', start)) >= 0 || (last && start < carry.length)) {
      const end = nl >= 0 ? nl : carry.length;
      if (quote >= 0 && quote < end) {
        // a quoted field: csv-parse reads this line and all that follows
        const restText = carry.slice(start);
        const rest: AsyncIterable<string> = {
          [Symbol.asyncIterator]: () => {
            let pre: string | null = restText;
            return {
              next: async () => {
                if (pre !== null) { const v = pre; pre = null; return { done: false, value: v }; }
                return last ? { done: true, value: undefined } : it.next();
              },
            };
          },
        };
        if (rows.length) yield rows;
        for await (const r of csvRows(rest, line)) yield [r];
        return;
      }
      line++;
      // "\r\n" ends a record as "\n" does; a "\r" elsewhere is data, and csv-parse counts it as a
      // line break (one followed by more text)
      const stop = nl >= 0 && end > start && carry.charCodeAt(end - 1) === 13 ? end - 1 : end;
      if (cr >= 0 && cr < start) cr = carry.indexOf('\r', start);
      for (; cr >= 0 && cr < stop; cr = carry.indexOf('\r', cr + 1)) if (cr < carry.length - 1) line++;
      if (stop > start) rows.push({ kind: 'csv', line, cells: carry.slice(start, stop).split(',') });
      start = nl >= 0 ? nl + 1 : carry.length;
    }
    carry = start < carry.length ? carry.slice(start) : '';
    if (rows.length) yield rows;
    if (last) return;
  }
}

/** CSV rows through csv-parse; `lineOffset`: the lines before the text (added to its line numbers). */
async function* csvRows(chunks: AsyncIterable<string>, lineOffset = 0): AsyncGenerator<RawRow> {
  const parser = parse({ info: true, relax_column_count: true, skip_empty_lines: true, skip_records_with_error: true, record_delimiter: ['\r\n', '\n'] });
  const skipped: RawRow[] = [];
  parser.on('skip', (err: Error & { lines?: number }) => {
    // csv-parse numbers the lines it was given: the log's lines before them are added
    const message = lineOffset ? err.message.replace(/\bat line (\d+)/g, (_m, n: string) => `at line ${Number(n) + lineOffset}`) : err.message;
    skipped.push({ kind: 'error', line: (err.lines ?? 0) + lineOffset, message: clipMessage(`not valid CSV: ${message.replace(/^Invalid /, 'invalid ')}`) });
  });
  const feed = (async () => {
    try {
      for await (const c of chunks) {
        if (!parser.write(c)) await new Promise<void>((res) => parser.once('drain', () => res()));
      }
      parser.end();
    } catch (e) {
      parser.destroy(e as Error);
    }
  })();
  for await (const rec of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
    // the parser reports a bad record as soon as it meets it: keep the rows in line order
    while (skipped.length && skipped[0].line < rec.info.lines + lineOffset) yield skipped.shift()!;
    yield { kind: 'csv', line: rec.info.lines + lineOffset, cells: rec.record };
  }
  while (skipped.length) yield skipped.shift()!;
  await feed;
}
