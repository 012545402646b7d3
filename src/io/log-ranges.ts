/**
 * A text log (NDJSON or CSV) cut into byte ranges of whole rows, so that each range can be read
 * and parsed on its own (a worker thread of `estimate --jobs N` reads its own range): the rows of a
 * range, numbered as the whole log's reader numbers them (src/io/log-reader.ts: lines counted at
 * "\n", blank lines skipped, a "\r" before "\n" dropped), and the scan that finds where ranges may
 * be cut. Nothing here touches the file system: the caller reads the bytes.
 *
 * A CSV log is cut only where its lines are plain (no double quote, no carriage return but before
 * a line feed): a quoted field may span lines, and a lone "\r" counts as a line break for the CSV
 * parser. The scan reports the first such byte; the caller reads from there on with the log's
 * reader.
 */
import type { LogFormat, RawRow } from './log-reader.ts';

const LF = 10, CR = 13, QUOTE = 34;

/** Where a scan of bytes stopped: whole rows and lines up to `end` (the byte after the last "\n" taken). */
export interface RowScan {
  /** bytes up to the end of the last whole line taken (relative to the bytes given) */
  end: number;
  /** rows (non-blank lines) and lines in bytes[0, end) */
  rows: number;
  lines: number;
  /** a CSV log: the first byte (relative) of a line holding a double quote or a lone carriage return, or -1 */
  unsafe: number;
}

/** whether a line (bytes[a, b), without its "\n") is blank as the log's reader skips it */
function blank(bytes: Uint8Array, a: number, b: number, format: LogFormat): boolean {
  if (b > a && bytes[b - 1] === CR) b--;
  if (b === a) return true;
  if (format === 'csv') return false; // a CSV line of spaces is a row (its cells are spaces)
  const c = bytes[a];
  if (c === 0x7b /* { */ || c > 0x20 && c < 0x7f) return false;
  // a line that starts with white space (or a non-ASCII character): as String.prototype.trim sees it
  return new TextDecoder().decode(bytes.subarray(a, b)).trim() === '';
}

/** the search for a byte in `bytes`: Node's Buffer.indexOf (memchr) where the bytes are a Buffer, else Uint8Array's */
function finder(bytes: Uint8Array): (v: number, from: number) => number {
  const buf = bytes as Buffer;
  return typeof buf.indexOf === 'function' && buf.indexOf !== Uint8Array.prototype.indexOf
    ? (v, from) => buf.indexOf(v, from)
    : (v, from) => bytes.indexOf(v, from);
}

/**
 * Scan whole lines of `bytes` (the last one must end with "\n" unless `final`), taking at most
 * `maxRows` rows: the scan ends after the line that completes them, or at the last whole line.
 */
export function scanRows(bytes: Uint8Array, format: LogFormat, maxRows: number, final: boolean): RowScan {
  let rows = 0, lines = 0, at = 0, unsafe = -1;
  const find = finder(bytes);
  // CSV: the first quote and carriage return ahead (searched once each, then again past them)
  let quote = format === 'csv' ? find(QUOTE, 0) : -1, cr = format === 'csv' ? find(CR, 0) : -1;
  while (rows < maxRows && at < bytes.length) {
    let nl = find(LF, at);
    if (nl < 0) { if (!final) break; nl = bytes.length; }
    if (format === 'csv' && unsafe < 0) {
      if (quote >= 0 && quote < nl) { unsafe = at; break; }
      while (cr >= 0 && cr < nl) {
        if (cr !== nl - 1) { unsafe = at; break; }
        cr = find(CR, cr + 1);
      }
      if (unsafe >= 0) break;
    }
    lines++;
    if (!blank(bytes, at, nl, format)) rows++;
    at = nl < bytes.length ? nl + 1 : nl;
  }
  return { end: at, rows, lines, unsafe };
}

/** UTF-8 as the log's reader decodes it (a malformed sequence: U+FFFD); a byte order mark within the log is kept, as it keeps it */
const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });

/**
 * The rows of a range of a log's bytes, `firstLine` the number of the line before it (0 at the start
 * of the log): NDJSON lines as text, plain CSV lines split at their commas, blank lines skipped, as
 * the log's reader makes them. The bytes are kept and each row is decoded when asked for (`at`,
 * or in order by iterating): a line feed is never part of a UTF-8 sequence, so the texts are those of
 * the whole range decoded, but a worker thread that takes its range's rows a few at a time holds
 * only those as strings. The range's text as one string cost a worker as much as parsing its rows
 * (a worker's profile, 20,000 demo rows of 3.9 kB: 340–420 ms in the decoder, now 12–41 ms); all
 * the rows decoded at once, 512 strings alive until the range was done, cost the collector a
 * third more and kept the estimates' objects in the old generation (see RowProcessor's passes).
 */
export class RangeRows implements Iterable<RawRow> {
  /** byte offsets of each row's text (without its line break and a carriage return before it), and its line */
  private readonly starts: number[] = [];
  private readonly stops: number[] = [];
  private readonly lines: number[] = [];

  constructor(private readonly bytes: Uint8Array, readonly format: LogFormat, firstLine: number) {
    const find = finder(bytes);
    let line = firstLine, start = 0;
    while (start < bytes.length) {
      let nl = find(LF, start);
      if (nl < 0) nl = bytes.length;
      line++;
      let stop = nl;
      if (stop > start && bytes[stop - 1] === CR) stop--;
      if (!blank(bytes, start, stop, format)) { this.starts.push(start); this.stops.push(stop); this.lines.push(line); }
      start = nl + 1;
    }
  }

  /** the number of rows */
  get length(): number { return this.starts.length; }

  /** row k (0 ≤ k < length), decoded now */
  at(k: number): RawRow | undefined {
    if (!(k >= 0 && k < this.starts.length)) return undefined;
    const text = utf8.decode(this.bytes.subarray(this.starts[k], this.stops[k]));
    return this.format === 'ndjson' ? { kind: 'ndjson', line: this.lines[k], text } : { kind: 'csv', line: this.lines[k], cells: text.split(',') };
  }

  *[Symbol.iterator](): Iterator<RawRow> {
    for (let k = 0; k < this.starts.length; k++) yield this.at(k)!;
  }
}
