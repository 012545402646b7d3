/**
 * The rows of a sensor log as they come, from a stream of text chunks (a file, standard input, a
 * network stream: the caller opens it; nothing here touches the file system). A UTF-8 byte order
 * mark is dropped. The format is given, or read from the content: a first non-blank character `{`
 * is NDJSON, anything else CSV. NDJSON: one JSON object per line. CSV: RFC 4180 (quoted fields,
 * doubled quotes, line breaks inside quotes, CRLF) through csv-parse; a record the parser cannot
 * read is returned as an error with its line, and the reading goes on.
 */
import { parse } from 'csv-parse';
import { isMcap } from './mcap-log.ts';

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

/** The log's rows, blank lines skipped; `format` (detected when omitted) is set before the first row. */
export async function* logRows(chunks: AsyncIterable<string>, opts: { format?: LogFormat; onFormat?: (f: LogFormat) => void } = {}): AsyncGenerator<RawRow> {
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
  else yield* csvRows(rest);
}

async function* ndjsonRows(chunks: AsyncIterable<string>): AsyncGenerator<RawRow> {
  let carry = '';
  let line = 0;
  for await (const c of chunks) {
    carry += c;
    let nl: number;
    while ((nl = carry.indexOf('\n')) >= 0) {
      let text = carry.slice(0, nl);
      carry = carry.slice(nl + 1);
      line++;
      if (text.endsWith('\r')) text = text.slice(0, -1);
      if (text.trim() !== '') yield { kind: 'ndjson', line, text };
    }
  }
  line++;
  if (carry.endsWith('\r')) carry = carry.slice(0, -1);
  if (carry.trim() !== '') yield { kind: 'ndjson', line, text: carry };
}

async function* csvRows(chunks: AsyncIterable<string>): AsyncGenerator<RawRow> {
  const parser = parse({ info: true, relax_column_count: true, skip_empty_lines: true, skip_records_with_error: true, record_delimiter: ['\r\n', '\n'] });
  const skipped: RawRow[] = [];
  parser.on('skip', (err: Error & { lines?: number }) => {
    skipped.push({ kind: 'error', line: err.lines ?? 0, message: `not valid CSV: ${err.message.replace(/^Invalid /, 'invalid ')}` });
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
    while (skipped.length && skipped[0].line < rec.info.lines) yield skipped.shift()!;
    yield { kind: 'csv', line: rec.info.lines, cells: rec.record };
  }
  while (skipped.length) yield skipped.shift()!;
  await feed;
}
