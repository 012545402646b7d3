/**
 * A = parse(text), text = format(A): Matrix Market (.mtx, coordinate) and a 1-based triplet text
 * format (.tri, one `row col value` per line).
 * Source: NIST Matrix Market exchange format (coordinate real/integer/pattern, general/symmetric/
 * skew-symmetric). Text only: reading and writing files is in src/node/matrix-file.ts.
 */
import { compress } from './compress.ts';
import type { CscMatrix } from './csc.ts';

/**
 * The largest order (rows, columns) of a matrix file. Checked on the header's size (Matrix Market)
 * or on each index (triplets) before anything of that size is allocated: `sparsedyn lu` on an
 * n×n matrix holds about 200 bytes per row or column beside its entries (see docs/inputs.md), so
 * the cap bounds that part near 2 GB.
 */
export const MAX_MATRIX_ORDER = 10_000_000;
/**
 * The largest number of entries a Matrix Market header may declare (a file holds about 12 bytes per
 * entry at least; reading holds about 40 bytes per entry at its peak: about 4 GB at this cap).
 */
export const MAX_MATRIX_ENTRIES = 100_000_000;

/** A matrix file that cannot be read: the message names the file (when given) and the line. */
export class MatrixFormatError extends Error {
  override name = 'MatrixFormatError';
}

/** a decimal number: digits, optional fraction and exponent (no hex, binary, octal, Infinity or NaN) */
const DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
/** a 1-based index or a size: decimal digits only */
const DIGITS = /^\d+$/;

/** Options of the matrix parsers: the file name for messages. */
export interface MatrixParseOptions {
  /** named in messages (default: the format's name) */
  file?: string;
}

/** `text` quoted for a message, shortened past 60 characters. */
function shown(text: string): string {
  const t = text.trim();
  return t.length <= 60 ? `"${t}"` : `"${t.slice(0, 60)}…" (${t.length} characters)`;
}

/** Growable typed arrays of triplets (row, column, value), 0-based. */
class Triplets {
  Ti: Int32Array; Tj: Int32Array; Tx: Float64Array;
  n = 0;
  constructor(cap: number) {
    cap = Math.max(16, cap);
    this.Ti = new Int32Array(cap); this.Tj = new Int32Array(cap); this.Tx = new Float64Array(cap);
  }
  push(i: number, j: number, x: number): void {
    if (this.n === this.Ti.length) {
      const cap = 2 * this.n;
      const Ti = new Int32Array(cap); Ti.set(this.Ti); this.Ti = Ti;
      const Tj = new Int32Array(cap); Tj.set(this.Tj); this.Tj = Tj;
      const Tx = new Float64Array(cap); Tx.set(this.Tx); this.Tx = Tx;
    }
    this.Ti[this.n] = i; this.Tj[this.n] = j; this.Tx[this.n++] = x;
  }
  matrix(m: number, n: number, fail: (msg: string) => never): CscMatrix {
    return finiteSums(compress(m, n, this.Ti.subarray(0, this.n), this.Tj.subarray(0, this.n), this.Tx.subarray(0, this.n)).A, fail);
  }
}

const isSpace = (c: number): boolean => c === 32 || c === 9 || c === 13;

/**
 * A matrix file read in pieces (`push` each piece of text as it is read, then `end`): the readers
 * keep what is not yet a whole line and the line count, and hold the entries in typed arrays —
 * about 16 bytes per entry while reading, never the whole text, so that a file longer than the
 * longest string JavaScript makes (about 512 MB) reads too (src/node/matrix-file.ts).
 */
export interface MatrixReader {
  /** the next piece of the text (pieces may end anywhere, inside a line or a number) */
  push(text: string): void;
  /** the matrix of the text pushed, or a MatrixFormatError naming the file and line */
  end(): CscMatrix;
}

/** Reads `.tri` text: lines `row col value` (1-based), `%`/`#` comments; size from the largest indices unless given. */
export class TripletReader implements MatrixReader {
  private readonly file: string;
  private readonly t: Triplets;
  private rest = '';
  private line = 0;
  private m = 0;
  private n = 0;
  private readonly fields = [0, 0];
  constructor(private readonly size?: { m: number; n: number }, opts: MatrixParseOptions = {}, expected = 0) {
    this.file = opts.file ?? '.tri';
    this.t = new Triplets(Math.min(expected, 1 << 24));
  }
  /** the next piece of the text (MatrixReader.push): its whole lines are read now */
  push(text: string): void {
    const last = text.lastIndexOf('\n');
    if (last < 0) { this.rest += text; return; }
    const whole = this.rest + text.slice(0, last + 1);
    this.rest = text.slice(last + 1);
    this.lines(whole);
  }
  /** the matrix (MatrixReader.end) */
  end(): CscMatrix {
    if (this.rest !== '') { const r = this.rest; this.rest = ''; this.lines(r); }
    let { m, n } = this;
    const file = this.file, size = this.size;
    if (size) {
      if (m > size.m || n > size.n) throw new MatrixFormatError(`${file}: entries reach ${m}×${n}, beyond the given size ${size.m}×${size.n}`);
      m = size.m;
      n = size.n;
    }
    return this.t.matrix(m, n, (msg) => { throw new MatrixFormatError(`${file}: ${msg}`); });
  }
  /** whole lines (the last one may lack its line break only at the end of the file) */
  private lines(text: string): void {
    // A hand-written scanner: no per-line arrays or strings except the value field.
    const file = this.file, fields = this.fields, t = this.t;
    const len = text.length;
    let pos = 0;
    let line = this.line;
    while (pos < len) {
      line++;
      let eol = text.indexOf('\n', pos);
      if (eol < 0) eol = len;
      let a = pos;
      while (a < eol && isSpace(text.charCodeAt(a))) a++;
      const c0 = text.charCodeAt(a);
      if (a < eol && c0 !== 37 && c0 !== 35) {
        // row and column: decimal integers, refused past MAX_MATRIX_ORDER before they can grow further
        for (let f = 0; f < 2; f++) {
          let v = 0;
          const start = a;
          while (a < eol) {
            const c = text.charCodeAt(a);
            if (c < 48 || c > 57) break;
            v = v * 10 + (c - 48);
            if (v > MAX_MATRIX_ORDER) throw new MatrixFormatError(`${file} line ${line}: index beyond ${MAX_MATRIX_ORDER.toLocaleString('en-US')}, the largest order sparsedyn reads, in ${shown(text.slice(pos, eol))}`);
            a++;
          }
          if (a === start || (a < eol && !isSpace(text.charCodeAt(a))) || v < 1) {
            throw new MatrixFormatError(`${file} line ${line}: indices must be integers ≥ 1, got ${shown(text.slice(pos, eol))}`);
          }
          fields[f] = v;
          while (a < eol && isSpace(text.charCodeAt(a))) a++;
        }
        let b = a;
        while (b < eol && !isSpace(text.charCodeAt(b))) b++;
        const field = text.slice(a, b);
        let after = b;
        while (after < eol && isSpace(text.charCodeAt(after))) after++;
        if (after < eol) throw new MatrixFormatError(`${file} line ${line}: expected "row col value", found more in ${shown(text.slice(pos, eol))}`);
        if (b > a && !DECIMAL.test(field)) throw new MatrixFormatError(`${file} line ${line}: value is not a decimal number in ${shown(text.slice(pos, eol))}`);
        const x = b > a ? Number(field) : 1;
        if (!Number.isFinite(x)) throw new MatrixFormatError(`${file} line ${line}: value is not a finite number: ${shown(text.slice(pos, eol))}`);
        t.push(fields[0] - 1, fields[1] - 1, x);
        if (fields[0] > this.m) this.m = fields[0];
        if (fields[1] > this.n) this.n = fields[1];
      }
      pos = eol + 1;
    }
    this.line = line;
  }
}

/** Parses `.tri` text: lines `row col value` (1-based), `%`/`#` comments; size from the largest indices unless given. */
export function parseTriplet(text: string, size?: { m: number; n: number }, opts: MatrixParseOptions = {}): CscMatrix {
  const r = new TripletReader(size, opts, text.length >> 4);
  r.push(text);
  return r.end();
}

/** Entries given twice at one position are summed: a sum beyond double precision is refused. */
function finiteSums(A: CscMatrix, fail: (msg: string) => never): CscMatrix {
  for (let j = 0; j < A.n; j++) {
    for (let p = A.Ap[j]; p < A.Ap[j + 1]; p++) if (!Number.isFinite(A.Ax[p])) fail(`the entries at row ${A.Ai[p] + 1}, column ${j + 1} sum to a value beyond double precision`);
  }
  return A;
}

/** Reads Matrix Market coordinate text (real, integer or pattern; general, symmetric or skew-symmetric). */
export class MatrixMarketReader implements MatrixReader {
  private readonly file?: string;
  private rest = '';
  /** lines read (the 1-based number of the last one) */
  private l = 0;
  private state: 'banner' | 'size' | 'entries' = 'banner';
  private field = '';
  private sym = '';
  private want = 3;
  private VALUE = DECIMAL;
  private m = 0;
  private n = 0;
  private nzDeclared = 0;
  private read = 0;
  private t: Triplets | null = null;
  constructor(opts: MatrixParseOptions = {}) {
    this.file = opts.file;
  }
  private at(l: number): string { return this.file === undefined ? `Matrix Market line ${l}` : `${this.file} line ${l}`; }
  private fail(msg: string): never { throw new MatrixFormatError(this.file === undefined ? msg : `${this.file}: ${msg}`); }
  /** the next piece of the text (MatrixReader.push): its whole lines are read now */
  push(text: string): void {
    const last = text.lastIndexOf('\n');
    if (last < 0) { this.rest += text; return; }
    const whole = this.rest + text.slice(0, last);
    this.rest = text.slice(last + 1);
    this.lines(whole);
  }
  /** the matrix (MatrixReader.end) */
  end(): CscMatrix {
    // the last line (text.split's last part: empty after a final line break)
    this.lines(this.rest);
    this.rest = '';
    if (this.state === 'banner') this.fail('not a Matrix Market file: first line must start with %%MatrixMarket matrix');
    if (this.state === 'size') this.fail(`Matrix Market size line ${this.l + 1} must be "m n nnz" (three whole numbers), got ""`);
    if (this.read !== this.nzDeclared) this.fail(`Matrix Market header declares ${this.nzDeclared} entries, file has ${this.read}`);
    return this.t!.matrix(this.m, this.n, (msg) => this.fail(msg));
  }
  /** lines separated by line breaks, the last one without its break */
  private lines(text: string): void {
    let pos = 0;
    for (;;) {
      let eol = text.indexOf('\n', pos);
      const final = eol < 0;
      if (final) eol = text.length;
      this.l++;
      if (this.state === 'entries') this.entry(text, pos, eol);
      else this.headerLine(text.slice(pos, eol));
      if (final) return;
      pos = eol + 1;
    }
  }
  private headerLine(raw: string): void {
    if (this.state === 'banner') {
      const banner = raw.trim().toLowerCase().split(/\s+/);
      if (banner[0] !== '%%matrixmarket' || banner[1] !== 'matrix') this.fail('not a Matrix Market file: first line must start with %%MatrixMarket matrix');
      if (banner[2] !== 'coordinate') this.fail(`Matrix Market format ${shown(banner[2] ?? '')} is not supported (only coordinate)`);
      const field = banner[3];
      if (field !== 'real' && field !== 'integer' && field !== 'pattern') this.fail(`Matrix Market field ${shown(field ?? '')} is not supported (real, integer, pattern)`);
      const sym = banner[4] ?? 'general';
      if (sym !== 'general' && sym !== 'symmetric' && sym !== 'skew-symmetric') this.fail(`Matrix Market symmetry ${shown(sym)} is not supported`);
      this.field = field; this.sym = sym;
      this.want = field === 'pattern' ? 2 : 3;
      this.VALUE = field === 'integer' ? /^[+-]?\d+$/ : DECIMAL;
      this.state = 'size';
      return;
    }
    const line = raw.trim();
    if (line === '' || line[0] === '%') return;
    const l = this.l;
    const headText = line.split(/\s+/);
    if (headText.length !== 3 || !headText.every((f) => DIGITS.test(f))) this.fail(`Matrix Market size line ${l} must be "m n nnz" (three whole numbers), got ${shown(raw)}`);
    const [m, n, nzDeclared] = headText.map(Number);
    if (m > MAX_MATRIX_ORDER || n > MAX_MATRIX_ORDER) this.fail(`Matrix Market size line ${l} declares ${m}×${n}, beyond ${MAX_MATRIX_ORDER.toLocaleString('en-US')} rows or columns, the largest order sparsedyn reads`);
    if (nzDeclared > MAX_MATRIX_ENTRIES || nzDeclared > m * n) this.fail(`Matrix Market size line ${l} declares ${nzDeclared} entries, more than ${nzDeclared > m * n ? `the ${m}×${n} matrix has places` : `${MAX_MATRIX_ENTRIES.toLocaleString('en-US')}, the most sparsedyn reads`}`);
    if (this.sym !== 'general' && m !== n) this.fail(`Matrix Market size line ${l}: a ${this.sym} matrix must be square, got ${m}×${n}`);
    this.m = m; this.n = n; this.nzDeclared = nzDeclared;
    // the declared entries (a symmetric file's mirrored ones are added as they come)
    this.t = new Triplets(Math.min(nzDeclared, 1 << 24));
    this.state = 'entries';
  }
  /** an entry line: a fast scan of `row col [value]`, or the exact checks and their messages */
  private entry(text: string, pos: number, eol: number): void {
    let a = pos;
    while (a < eol && isSpace(text.charCodeAt(a))) a++;
    if (a === eol) return;
    const c0 = text.charCodeAt(a);
    if (c0 === 37) return;
    // fast path: digits, space, digits[, space, value], spaces
    let i = 0, j = 0, ok = true;
    const s0 = a;
    while (a < eol) { const c = text.charCodeAt(a); if (c < 48 || c > 57) break; i = i * 10 + (c - 48); a++; }
    if (a === s0 || a === eol || !isSpace(text.charCodeAt(a)) || i > MAX_MATRIX_ORDER) ok = false;
    if (ok) {
      while (a < eol && isSpace(text.charCodeAt(a))) a++;
      const s1 = a;
      while (a < eol) { const c = text.charCodeAt(a); if (c < 48 || c > 57) break; j = j * 10 + (c - 48); a++; }
      if (a === s1 || j > MAX_MATRIX_ORDER || (a < eol && !isSpace(text.charCodeAt(a)))) ok = false;
    }
    let x = 1;
    if (ok && this.want === 3) {
      while (a < eol && isSpace(text.charCodeAt(a))) a++;
      const s2 = a;
      while (a < eol && !isSpace(text.charCodeAt(a))) a++;
      if (a === s2) ok = false;
      else {
        const f = text.slice(s2, a);
        if (!this.VALUE.test(f)) ok = false;
        else x = Number(f);
      }
    }
    if (ok) {
      while (a < eol && isSpace(text.charCodeAt(a))) a++;
      if (a < eol || i < 1 || j < 1 || i > this.m || j > this.n || !Number.isFinite(x) || this.read === this.nzDeclared) ok = false;
    }
    if (!ok) { this.checked(text.slice(pos, eol)); return; }
    this.add(i - 1, j - 1, x);
  }
  /** an entry line through the exact checks: refused with its message, or added */
  private checked(raw: string): void {
    const line = raw.trim(), at = this.at(this.l), want = this.want, field = this.field;
    // blank or a comment once trimmed of every kind of space (the fast scan skips ASCII spaces only)
    if (line === '' || line[0] === '%') return;
    const f = line.split(/\s+/);
    if (f.length !== want) throw new MatrixFormatError(`${at}: expected ${want === 2 ? '"row col"' : '"row col value"'}, got ${shown(line)}`);
    if (!DIGITS.test(f[0]) || !DIGITS.test(f[1])) throw new MatrixFormatError(`${at}: indices must be whole numbers, got ${shown(line)}`);
    const i = Number(f[0]) - 1;
    const j = Number(f[1]) - 1;
    if (i < 0 || i >= this.m || j < 0 || j >= this.n) throw new MatrixFormatError(`${at}: index out of range in ${shown(line)}`);
    if (want === 3 && !this.VALUE.test(f[2])) throw new MatrixFormatError(`${at}: value is not ${field === 'integer' ? 'a whole' : 'a decimal'} number in ${shown(line)}`);
    const x = want === 2 ? 1 : Number(f[2]);
    if (!Number.isFinite(x)) throw new MatrixFormatError(`${at}: value is not a finite number: ${shown(line)}`);
    this.add(i, j, x);
  }
  private add(i: number, j: number, x: number): void {
    if (this.read === this.nzDeclared) throw new MatrixFormatError(`${this.at(this.l)}: more entries than the ${this.nzDeclared} the header declares`);
    const t = this.t!;
    t.push(i, j, x);
    if (this.sym !== 'general' && i !== j) t.push(j, i, this.sym === 'symmetric' ? x : -x);
    this.read++;
  }
}

/** Parses Matrix Market coordinate text (real, integer or pattern; general, symmetric or skew-symmetric). */
export function parseMatrixMarket(text: string, opts: MatrixParseOptions = {}): CscMatrix {
  const r = new MatrixMarketReader(opts);
  r.push(text);
  return r.end();
}

/** a value that reads back bit for bit (−0 included) */
function fmt(x: number): string {
  if (Object.is(x, -0)) return '-0.0';
  return Number.isInteger(x) ? x.toFixed(1) : x.toPrecision(17);
}

/** `.tri` text of A (1-based, column by column). */
export function formatTriplet(A: CscMatrix): string {
  const out: string[] = [];
  for (let j = 0; j < A.n; j++) for (let p = A.Ap[j]; p < A.Ap[j + 1]; p++) out.push(`${A.Ai[p] + 1} ${j + 1} ${fmt(A.Ax[p])}`);
  return out.join('\n') + '\n';
}

/** Matrix Market coordinate real general text of A. */
export function formatMatrixMarket(A: CscMatrix): string {
  return `%%MatrixMarket matrix coordinate real general\n${A.m} ${A.n} ${A.Ap[A.n]}\n` + formatTriplet(A);
}
