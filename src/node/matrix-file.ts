/**
 * A = readMatrix(path), writeMatrix(path, A): sparse matrix files (.mtx Matrix Market, .tri
 * 1-based triplets) on Node; the parsing and formatting are in src/sparse/io.ts.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { CscMatrix } from '../sparse/csc.ts';
import { formatMatrixMarket, formatTriplet, parseMatrixMarket, parseTriplet } from '../sparse/io.ts';

/** Reads a `.tri` or `.mtx` file (by extension; `.mtx` also recognised by its banner). */
export function readMatrix(path: string): CscMatrix {
  const text = readFileSync(path, 'utf8');
  if (path.endsWith('.mtx') || text.startsWith('%%MatrixMarket')) return parseMatrixMarket(text);
  if (path.endsWith('.tri')) return parseTriplet(text);
  throw new RangeError(`${path}: unknown matrix file type (expected .tri or .mtx)`);
}

/** Writes A to `path` as `.mtx` or `.tri` according to the extension. */
export function writeMatrix(path: string, A: CscMatrix): void {
  if (path.endsWith('.mtx')) writeFileSync(path, formatMatrixMarket(A));
  else if (path.endsWith('.tri')) writeFileSync(path, formatTriplet(A));
  else throw new RangeError(`${path}: unknown matrix file type (expected .tri or .mtx)`);
}
