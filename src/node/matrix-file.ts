/**
 * A = readMatrix(path), writeMatrix(path, A): sparse matrix files (.mtx Matrix Market, .tri
 * 1-based triplets) on Node; the parsing and formatting are in src/sparse/io.ts.
 */
import { closeSync, fstatSync, openSync, readSync, writeFileSync } from 'node:fs';
import type { CscMatrix } from '../sparse/csc.ts';
import { formatMatrixMarket, formatTriplet, MatrixFormatError, MatrixMarketReader, type MatrixReader, TripletReader } from '../sparse/io.ts';

/** bytes read at a time: the file is never held whole (a file longer than JavaScript's longest string, ~512 MB, reads too) */
const CHUNK = 1 << 24;

/**
 * Reads a `.tri` or `.mtx` file (by extension; `.mtx` also recognised by its banner), in pieces of
 * `chunk` bytes decoded as UTF-8 (a character cut between two pieces is decoded whole).
 */
export function readMatrix(path: string, chunk = CHUNK): CscMatrix {
  const cannot = (e: unknown): never => {
    const code = (e as NodeJS.ErrnoException).code;
    throw new MatrixFormatError(`${path}: cannot read the matrix file (${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a folder' : code ?? 'read error'})`);
  };
  let fd: number;
  try {
    fd = openSync(path, 'r');
    if (fstatSync(fd).isDirectory()) { closeSync(fd); cannot({ code: 'EISDIR' }); }
  } catch (e) {
    if (e instanceof MatrixFormatError) throw e;
    return cannot(e);
  }
  try {
    const buf = Buffer.allocUnsafe(chunk);
    const dec = new TextDecoder('utf-8');
    let reader: MatrixReader | null = null;
    let head = '';
    for (;;) {
      let got: number;
      try { got = readSync(fd, buf, 0, chunk, null); } catch (e) { return cannot(e); }
      const text = got > 0 ? dec.decode(buf.subarray(0, got), { stream: true }) : dec.decode();
      if (reader === null) {
        // the format: the extension, or the banner at the start of the text
        head += text;
        if (head.length < 14 && got > 0) continue;
        const h = head.charCodeAt(0) === 0xfeff ? head.slice(1) : head;
        if (path.endsWith('.mtx') || h.startsWith('%%MatrixMarket')) reader = new MatrixMarketReader({ file: path });
        else if (path.endsWith('.tri')) reader = new TripletReader(undefined, { file: path });
        else throw new MatrixFormatError(`${path}: unknown matrix file type (expected .tri or .mtx)`);
        reader.push(head);
      } else if (text !== '') reader.push(text);
      if (got === 0) return reader.end();
    }
  } finally {
    closeSync(fd);
  }
}

/** Writes A to `path` as `.mtx` or `.tri` according to the extension. */
export function writeMatrix(path: string, A: CscMatrix): void {
  if (path.endsWith('.mtx')) writeFileSync(path, formatMatrixMarket(A));
  else if (path.endsWith('.tri')) writeFileSync(path, formatTriplet(A));
  else throw new RangeError(`${path}: unknown matrix file type (expected .tri or .mtx)`);
}
