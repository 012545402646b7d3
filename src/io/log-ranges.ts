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

/**
 * Scan whole lines of `bytes` (the last one must end with "\n" unless `final`), taking at most
 * `maxRows` rows: the scan ends after the line that completes them, or at the last whole line.
 */
export function scanRows(bytes: Uint8Array, format: LogFormat, maxRows: number, final: boolean): RowScan {
  let rows = 0, lines = 0, at = 0, unsafe = -1;
  const buf = bytes as Buffer;
  const find = typeof buf.indexOf === 'function' && buf.indexOf !== Uint8Array.prototype.indexOf
    ? (v: number, from: number) => buf.indexOf(v, from)
    : (v: number, from: number) => bytes.indexOf(v, from);
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

/**
 * The rows of a range of a log's text, `firstLine` the number of the line before it (0 at the start
 * of the log): NDJSON lines as text, plain CSV lines split at their commas, blank lines skipped, as
 * the log's reader makes them.
 */
export function rangeRows(text: string, format: LogFormat, firstLine: number): RawRow[] {
  const rows: RawRow[] = [];
  let line = firstLine, start = 0;
  while (start < text.length) {
    let nl = text.indexOf('\n', start);
    if (nl < 0) nl = text.length;
    line++;
    let stop = nl;
    if (stop > start && text.charCodeAt(stop - 1) === CR) stop--;
    if (format === 'ndjson') {
      const t = text.slice(start, stop);
      if (t.trim() !== '') rows.push({ kind: 'ndjson', line, text: t });
    } else if (stop > start) rows.push({ kind: 'csv', line, cells: text.slice(start, stop).split(',') });
    start = nl + 1;
  }
  return rows;
}
