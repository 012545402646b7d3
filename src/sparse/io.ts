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
/** The largest number of entries a Matrix Market header may declare (a file holds about 12 bytes per entry at least). */
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

/** Parses `.tri` text: lines `row col value` (1-based), `%`/`#` comments; size from the largest indices unless given. */
export function parseTriplet(text: string, size?: { m: number; n: number }, opts: MatrixParseOptions = {}): CscMatrix {
  const file = opts.file ?? '.tri';
  // A hand-written scanner: no per-line arrays or strings except the value field.
  let cap = Math.max(16, text.length >> 4);
  let Ti = new Int32Array(cap);
  let Tj = new Int32Array(cap);
  let Tx = new Float64Array(cap);
  let nt = 0;
  let m = 0;
  let n = 0;
  const len = text.length;
  let pos = 0;
  let line = 0;
  const isSpace = (c: number): boolean => c === 32 || c === 9 || c === 13;
  const fields = [0, 0];
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
      if (nt === cap) {
        cap *= 2;
        const Ti2 = new Int32Array(cap);
        Ti2.set(Ti);
        Ti = Ti2;
        const Tj2 = new Int32Array(cap);
        Tj2.set(Tj);
        Tj = Tj2;
        const Tx2 = new Float64Array(cap);
        Tx2.set(Tx);
        Tx = Tx2;
      }
      Ti[nt] = fields[0] - 1;
      Tj[nt] = fields[1] - 1;
      Tx[nt++] = x;
      if (fields[0] > m) m = fields[0];
      if (fields[1] > n) n = fields[1];
    }
    pos = eol + 1;
  }
  if (size) {
    if (m > size.m || n > size.n) throw new MatrixFormatError(`${file}: entries reach ${m}×${n}, beyond the given size ${size.m}×${size.n}`);
    m = size.m;
    n = size.n;
  }
  return finiteSums(compress(m, n, Ti.subarray(0, nt), Tj.subarray(0, nt), Tx.subarray(0, nt)).A, (msg) => { throw new MatrixFormatError(`${file}: ${msg}`); });
}

/** Entries given twice at one position are summed: a sum beyond double precision is refused. */
function finiteSums(A: CscMatrix, fail: (msg: string) => never): CscMatrix {
  for (let j = 0; j < A.n; j++) {
    for (let p = A.Ap[j]; p < A.Ap[j + 1]; p++) if (!Number.isFinite(A.Ax[p])) fail(`the entries at row ${A.Ai[p] + 1}, column ${j + 1} sum to a value beyond double precision`);
  }
  return A;
}

/** Parses Matrix Market coordinate text (real, integer or pattern; general, symmetric or skew-symmetric). */
export function parseMatrixMarket(text: string, opts: MatrixParseOptions = {}): CscMatrix {
  const file = opts.file;
  const at = (l: number): string => (file === undefined ? `Matrix Market line ${l}` : `${file} line ${l}`);
  const fail = (msg: string): never => { throw new MatrixFormatError(file === undefined ? msg : `${file}: ${msg}`); };
  const lines = text.split('\n');
  const banner = lines[0]?.trim().toLowerCase().split(/\s+/) ?? [];
  if (banner[0] !== '%%matrixmarket' || banner[1] !== 'matrix') fail('not a Matrix Market file: first line must start with %%MatrixMarket matrix');
  if (banner[2] !== 'coordinate') fail(`Matrix Market format ${shown(banner[2] ?? '')} is not supported (only coordinate)`);
  const field = banner[3];
  if (field !== 'real' && field !== 'integer' && field !== 'pattern') fail(`Matrix Market field ${shown(field ?? '')} is not supported (real, integer, pattern)`);
  const sym = banner[4] ?? 'general';
  if (sym !== 'general' && sym !== 'symmetric' && sym !== 'skew-symmetric') fail(`Matrix Market symmetry ${shown(sym)} is not supported`);
  let l = 1;
  while (l < lines.length && (lines[l].trim() === '' || lines[l].trim()[0] === '%')) l++;
  const headText = (lines[l] ?? '').trim().split(/\s+/);
  if (headText.length !== 3 || !headText.every((f) => DIGITS.test(f))) fail(`Matrix Market size line ${l + 1} must be "m n nnz" (three whole numbers), got ${shown(lines[l] ?? '')}`);
  const [m, n, nzDeclared] = headText.map(Number);
  if (m > MAX_MATRIX_ORDER || n > MAX_MATRIX_ORDER) fail(`Matrix Market size line ${l + 1} declares ${m}×${n}, beyond ${MAX_MATRIX_ORDER.toLocaleString('en-US')} rows or columns, the largest order sparsedyn reads`);
  if (nzDeclared > MAX_MATRIX_ENTRIES || nzDeclared > m * n) fail(`Matrix Market size line ${l + 1} declares ${nzDeclared} entries, more than ${nzDeclared > m * n ? `the ${m}×${n} matrix has places` : `${MAX_MATRIX_ENTRIES.toLocaleString('en-US')}, the most sparsedyn reads`}`);
  if (sym !== 'general' && m !== n) fail(`Matrix Market size line ${l + 1}: a ${sym} matrix must be square, got ${m}×${n}`);
  const Ti: number[] = [];
  const Tj: number[] = [];
  const Tx: number[] = [];
  const want = field === 'pattern' ? 2 : 3;
  const VALUE = field === 'integer' ? /^[+-]?\d+$/ : DECIMAL;
  let read = 0;
  for (l++; l < lines.length; l++) {
    const line = lines[l].trim();
    if (line === '' || line[0] === '%') continue;
    const f = line.split(/\s+/);
    if (f.length !== want) throw new MatrixFormatError(`${at(l + 1)}: expected ${want === 2 ? '"row col"' : '"row col value"'}, got ${shown(line)}`);
    if (!DIGITS.test(f[0]) || !DIGITS.test(f[1])) throw new MatrixFormatError(`${at(l + 1)}: indices must be whole numbers, got ${shown(line)}`);
    const i = Number(f[0]) - 1;
    const j = Number(f[1]) - 1;
    if (i < 0 || i >= m || j < 0 || j >= n) throw new MatrixFormatError(`${at(l + 1)}: index out of range in ${shown(line)}`);
    if (want === 3 && !VALUE.test(f[2])) throw new MatrixFormatError(`${at(l + 1)}: value is not ${field === 'integer' ? 'a whole' : 'a decimal'} number in ${shown(line)}`);
    const x = want === 2 ? 1 : Number(f[2]);
    if (!Number.isFinite(x)) throw new MatrixFormatError(`${at(l + 1)}: value is not a finite number: ${shown(line)}`);
    if (read === nzDeclared) throw new MatrixFormatError(`${at(l + 1)}: more entries than the ${nzDeclared} the header declares`);
    Ti.push(i);
    Tj.push(j);
    Tx.push(x);
    if (sym !== 'general' && i !== j) {
      Ti.push(j);
      Tj.push(i);
      Tx.push(sym === 'symmetric' ? x : -x);
    }
    read++;
  }
  if (read !== nzDeclared) fail(`Matrix Market header declares ${nzDeclared} entries, file has ${read}`);
  return finiteSums(compress(m, n, Ti, Tj, Tx).A, fail);
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
