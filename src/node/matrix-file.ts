/**
 * A = readMatrix(path), writeMatrix(path, A): sparse matrix files (.mtx Matrix Market, .tri
 * 1-based triplets) on Node; the parsing and formatting are in src/sparse/io.ts.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { CscMatrix } from '../sparse/csc.ts';
import { formatMatrixMarket, formatTriplet, MatrixFormatError, parseMatrixMarket, parseTriplet } from '../sparse/io.ts';

/** Reads a `.tri` or `.mtx` file (by extension; `.mtx` also recognised by its banner). */
export function readMatrix(path: string): CscMatrix {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new MatrixFormatError(`${path}: cannot read the matrix file (${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a folder' : code ?? 'read error'})`);
  }
  if (path.endsWith('.mtx') || text.startsWith('%%MatrixMarket')) return parseMatrixMarket(text, { file: path });
  if (path.endsWith('.tri')) return parseTriplet(text, undefined, { file: path });
  throw new MatrixFormatError(`${path}: unknown matrix file type (expected .tri or .mtx)`);
}

/** Writes A to `path` as `.mtx` or `.tri` according to the extension. */
export function writeMatrix(path: string, A: CscMatrix): void {
  if (path.endsWith('.mtx')) writeFileSync(path, formatMatrixMarket(A));
  else if (path.endsWith('.tri')) writeFileSync(path, formatTriplet(A));
  else throw new RangeError(`${path}: unknown matrix file type (expected .tri or .mtx)`);
}
