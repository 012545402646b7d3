/**
 * The rows of a sensor log as they come, from a stream of text chunks (a file, standard input, a
 * network stream: the caller opens it; nothing here touches the file system). A UTF-8 byte order
 * mark is dropped. The format is given, or read from the content: a first non-blank character `{`
 * is NDJSON, anything else CSV. NDJSON: one JSON object per line. CSV: RFC 4180 (quoted fields,
 * doubled quotes, line breaks inside quotes, CRLF) through csv-parse; a record the parser cannot
 * read is returned as one error with its line, and the reading goes on at the next line. Lines
 * without a double quote (a log of numbers) are split at their commas here, which is what
 * csv-parse makes of them at a fraction of its cost; from the first line with a quote on, the rest
 * of the log goes through csv-parse (a quoted field may span lines), line numbers continuing.
 */
import { parse, type Parser } from 'csv-parse';
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
 * The log's rows as they come in groups: the complete rows of each chunk of text read. A caller
 * that waits for more text only after a group has what arrived so far, and can work on the group
 * as a whole.
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
  else if (opts.csvParseOnly) yield* csvRows(rest);
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
        yield* csvRows(rest, line);
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

const NL = 10, CR = 13, QUOTE = 34, COMMA = 44;

/**
 * Where line `target` starts in `b`, whose first byte is on line `line`, lines counted as
 * csv-parse counts them (a "\r" or "\n" ends one; "\r\n" outside quotes ends one, inside two):
 * the text before the line csv-parse read without an error, so its quotes pair up.
 */
function lineStart(b: Uint8Array, line: number, target: number): number {
  let inQuote = false, brk = false;
  for (let i = 0; i < b.length; i++) {
    if (brk) { line++; brk = false; }
    if (line >= target) return i;
    const c = b[i];
    if (c === QUOTE) inQuote = !inQuote;
    else if (c === CR || c === NL) {
      brk = true;
      if (c === CR && !inQuote && b[i + 1] === NL) i++;
    }
  }
  return b.length;
}

/**
 * csv-parse's error for a line (without its "\n") whose first quote is inside an unquoted field
 * and none of whose fields is quoted (no field starts with a quote), no "\r" but the last byte: the
 * message it gives, at line `line` ("invalid Opening Quote: … value is" the field's text before the
 * quote); null for any other line, which csv-parse reads.
 */
function openingQuoteError(b: Uint8Array, line: number): string | null {
  let end = b.length;
  if (end > 0 && b[end - 1] === CR) end--;
  let field = 0, fieldStart = 0;
  for (let i = 0; i < end; i++) {
    const c = b[i];
    if (c === CR) return null;
    if (c === COMMA) { field++; fieldStart = i + 1; continue; }
    if (c !== QUOTE) continue;
    if (i === fieldStart) return null; // a quoted field: csv-parse's to read
    const value = utf8Text.decode(b.subarray(fieldStart, i));
    return `invalid Opening Quote: a quote is found on field ${field} at line ${line}, value is ${JSON.stringify(value)}`;
  }
  return null;
}

const utf8Text = new TextDecoder();

/**
 * The cells of a line without a quote and without a carriage return (but a last one, before its
 * "\n"): its text split at the commas, which is how csv-parse reads such a line (no quote to open
 * a field, no trimming, no comments); null for any other line.
 */
function plainCells(b: Uint8Array): string[] | null {
  let end = b.length;
  if (end > 0 && b[end - 1] === CR) end--;
  for (let i = 0; i < end; i++) if (b[i] === QUOTE || b[i] === CR) return null;
  return utf8Text.decode(b.subarray(0, end)).split(',');
}

/**
 * CSV rows through csv-parse, in groups (the rows each chunk of text completes); `lineOffset`: the
 * lines before the text (added to its line numbers). A record csv-parse cannot read is reported
 * once, at the line of its first error; the rest of that line is skipped and a new parser reads on
 * from the next line (csv-parse would report every stray quote of the line, each at a cost: a
 * 30 kB line of quotes took it a third of a second).
 */
async function* csvRows(chunks: AsyncIterable<string>, lineOffset = 0): AsyncGenerator<RawRow[]> {
  let out: RawRow[] = [];
  let parser: Parser;
  let base = lineOffset; // the log's lines before the current parser's text (set before it reads)
  // the text given to the parser from the end of its last record on: the chunks that hold it (kept
  // as a list, not joined: one record may span many chunks), the first starting at `heldAt`
  let held: Buffer[] = [];
  let heldAt = 0;
  let pendingAt = 0; // the parser's offset just after its last record
  let pendingLine = 1; // the parser's line there
  let recEnd = 0, recLine = 0; // the parser's offset just after its last record, and that record's line
  let failed: (Error & { lines?: number }) | null = null;
  // after an error: the lines of the skipped line so far (lone "\r" count, as csv-parse counts them) until its "\n"
  let skipping: { lines: number; cr: boolean } | null = null;

  const start = (): void => {
    failed = null;
    held = []; heldAt = 0;
    pendingAt = 0; pendingLine = 1; recEnd = 0; recLine = 0;
    parser = parse({
      relax_column_count: true, skip_empty_lines: true, skip_records_with_error: true, record_delimiter: ['\r\n', '\n'],
      on_record: (record: string[], ctx: { lines: number; bytes: number }) => {
        out.push({ kind: 'csv', line: ctx.lines + base, cells: record });
        recEnd = ctx.bytes; recLine = ctx.lines;
        return null;
      },
      on_skip: (err: Error | undefined) => {
        // the first error of a record stops this parser (an error thrown here ends its parse)
        failed = err ?? new Error('unreadable record');
        throw failed;
      },
    });
    parser.on('error', () => {}); // the error is `failed`, handled below
  };

  /** The failed parser's error reported; the rest of its line skipped; a new parser for what follows. */
  const resync = (): Buffer => {
    const err = failed!;
    const lines = err.lines ?? pendingLine;
    // csv-parse numbers the lines it was given: the log's lines before them are added
    const message = base ? err.message.replace(/\bat line (\d+)/g, (_m, n: string) => `at line ${Number(n) + base}`) : err.message;
    out.push({ kind: 'error', line: lines + base, message: clipMessage(`not valid CSV: ${message.replace(/^Invalid /, 'invalid ')}`) });
    // (one chunk held, as mostly: a view of it, not a copy — a copy per bad line made a log of many bad lines quadratic)
    const pending = (held.length === 1 ? held[0] : Buffer.concat(held)).subarray(pendingAt - heldAt);
    const from = lineStart(pending, pendingLine, lines);
    skipping = { lines: base + lines, cr: false };
    const rest = pending.subarray(from);
    start();
    return rest;
  };

  /** Text to the parser, or skipped up to the end of a bad line. */
  const feed = (b: Buffer): void => {
    while (b.length) {
      if (skipping) {
        const nl = b.indexOf(NL);
        const end = nl < 0 ? b.length : nl;
        for (let i = 0; i < end; i++) {
          if (skipping.cr) skipping.lines++;
          skipping.cr = b[i] === CR;
        }
        if (nl < 0) return;
        base = skipping.lines;
        skipping = null;
        b = b.subarray(nl + 1);
        // the lines after it that csv-parse would refuse at once (a quote inside an unquoted field):
        // refused here, with its message, instead of a new parser for each (a log of many such lines
        // was quadratic in time)
        for (;;) {
          const next = b.indexOf(NL);
          if (next < 0) break;
          // an empty line (or a lone "\r" before its "\n"): skipped, as csv-parse skips it (skip_empty_lines)
          // — a log of bad lines between blank ones made a new parser for each (0.4 s for 100 kB)
          if (next === 0 || (next === 1 && b[0] === CR)) { base++; b = b.subarray(next + 1); continue; }
          const message = openingQuoteError(b.subarray(0, next), base + 1);
          if (message === null) {
            // a line without quotes and without a carriage return inside: its cells are its text split at
            // the commas, as csv-parse reads it — read here, so that good and bad lines in turn do not
            // make a new parser for each bad line
            const cells = plainCells(b.subarray(0, next));
            if (cells === null) break;
            base++;
            out.push({ kind: 'csv', line: base, cells });
            b = b.subarray(next + 1);
            continue;
          }
          base++;
          out.push({ kind: 'error', line: base, message: clipMessage(`not valid CSV: ${message}`) });
          b = b.subarray(next + 1);
        }
        continue;
      }
      held.push(b);
      // csv-parse's errors become our messages: their stack traces (a tenth of a millisecond each, with
      // a line of stray quotes after another) are not captured
      const limit = Error.stackTraceLimit;
      Error.stackTraceLimit = 0;
      try {
        parser.write(b);
      } finally {
        Error.stackTraceLimit = limit;
      }
      if (failed) { b = resync(); continue; }
      // what the records read took is not needed again
      if (recEnd > pendingAt) {
        pendingAt = recEnd;
        pendingLine = recLine + 1;
        while (held.length && heldAt + held[0].length <= pendingAt) heldAt += held.shift()!.length;
      }
      return;
    }
  };

  start();
  for await (const c of chunks) {
    feed(Buffer.from(c));
    if (out.length) { yield out; out = []; }
  }
  if (!skipping) {
    const p = parser!;
    await new Promise<void>((res) => { p.once('finish', res); p.once('error', () => res()); p.end(); });
    if (failed) resync();
  }
  if (out.length) yield out;
}
