/**
 * A = parse(text), text = format(A): Matrix Market (.mtx, coordinate) and a 1-based triplet text
 * format (.tri, one `row col value` per line).
 * Source: NIST Matrix Market exchange format (coordinate real/integer/pattern, general/symmetric/
 * skew-symmetric). Text only: reading and writing files is in src/node/matrix-file.ts.
 */
import { compress } from './compress.ts';
import type { CscMatrix } from './csc.ts';

/** Parses `.tri` text: lines `row col value` (1-based), `%`/`#` comments; size from the largest indices unless given. */
export function parseTriplet(text: string, size?: { m: number; n: number }): CscMatrix {
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
      // row and column: decimal integers
      for (let f = 0; f < 2; f++) {
        let v = 0;
        const start = a;
        while (a < eol) {
          const c = text.charCodeAt(a);
          if (c < 48 || c > 57) break;
          v = v * 10 + (c - 48);
          a++;
        }
        if (a === start || (a < eol && !isSpace(text.charCodeAt(a))) || v < 1) {
          throw new RangeError(`.tri line ${line}: indices must be integers ≥ 1, got "${text.slice(pos, eol).trim()}"`);
        }
        fields[f] = v;
        while (a < eol && isSpace(text.charCodeAt(a))) a++;
      }
      let b = a;
      while (b < eol && !isSpace(text.charCodeAt(b))) b++;
      const x = b > a ? Number(text.slice(a, b)) : 1;
      if (!Number.isFinite(x)) throw new RangeError(`.tri line ${line}: value is not a finite number: "${text.slice(pos, eol).trim()}"`);
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
    if (m > size.m || n > size.n) throw new RangeError(`.tri entries reach ${m}×${n}, beyond the given size ${size.m}×${size.n}`);
    m = size.m;
    n = size.n;
  }
  return compress(m, n, Ti.subarray(0, nt), Tj.subarray(0, nt), Tx.subarray(0, nt)).A;
}

/** Parses Matrix Market coordinate text (real, integer or pattern; general, symmetric or skew-symmetric). */
export function parseMatrixMarket(text: string): CscMatrix {
  const lines = text.split('\n');
  const banner = lines[0]?.trim().toLowerCase().split(/\s+/) ?? [];
  if (banner[0] !== '%%matrixmarket' || banner[1] !== 'matrix') throw new RangeError('not a Matrix Market file: first line must start with %%MatrixMarket matrix');
  if (banner[2] !== 'coordinate') throw new RangeError(`Matrix Market format "${banner[2]}" is not supported (only coordinate)`);
  const field = banner[3];
  if (field !== 'real' && field !== 'integer' && field !== 'pattern') throw new RangeError(`Matrix Market field "${field}" is not supported (real, integer, pattern)`);
  const sym = banner[4] ?? 'general';
  if (sym !== 'general' && sym !== 'symmetric' && sym !== 'skew-symmetric') throw new RangeError(`Matrix Market symmetry "${sym}" is not supported`);
  let l = 1;
  while (l < lines.length && (lines[l].trim() === '' || lines[l].trim()[0] === '%')) l++;
  const head = (lines[l] ?? '').trim().split(/\s+/).map(Number);
  if (head.length < 3 || head.some((v) => !Number.isInteger(v) || v < 0)) throw new RangeError(`Matrix Market size line ${l + 1} must be "m n nnz"`);
  const [m, n, nzDeclared] = head;
  const Ti: number[] = [];
  const Tj: number[] = [];
  const Tx: number[] = [];
  let read = 0;
  for (l++; l < lines.length; l++) {
    const line = lines[l].trim();
    if (line === '' || line[0] === '%') continue;
    const f = line.split(/\s+/);
    const i = Number(f[0]) - 1;
    const j = Number(f[1]) - 1;
    const x = field === 'pattern' ? 1 : Number(f[2]);
    if (!Number.isInteger(i) || i < 0 || i >= m || !Number.isInteger(j) || j < 0 || j >= n) throw new RangeError(`Matrix Market line ${l + 1}: index out of range in "${line}"`);
    if (!Number.isFinite(x)) throw new RangeError(`Matrix Market line ${l + 1}: value is not a finite number: "${line}"`);
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
  if (read !== nzDeclared) throw new RangeError(`Matrix Market header declares ${nzDeclared} entries, file has ${read}`);
  return compress(m, n, Ti, Tj, Tx).A;
}

function fmt(x: number): string {
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
