/**
 * Matrix files read in pieces (readMatrix: the file is never held whole, so that files beyond
 * JavaScript's longest string read too): for any text — valid, or with a damaged line — and any
 * piece size, the same matrix as the text parsed whole, or the same message; the readers' memory
 * per entry measured against their text.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { readMatrix } from '../../src/node/matrix-file.ts';
import { MatrixMarketReader, parseMatrixMarket, parseTriplet, TripletReader } from '../../src/sparse/io.ts';
import type { CscMatrix } from '../../src/sparse/csc.ts';

const dir = mkdtempSync(join(tmpdir(), 'sparsedyn-matrix-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** the matrix, or the message it is refused with */
const outcome = (f: () => CscMatrix): { A?: { m: number; n: number; Ap: number[]; Ai: number[]; Ax: number[] }; error?: string } => {
  try {
    const A = f();
    return { A: { m: A.m, n: A.n, Ap: Array.from(A.Ap), Ai: Array.from(A.Ai), Ax: Array.from(A.Ax) } };
  } catch (e) {
    return { error: (e as Error).message };
  }
};

const entry = fc.tuple(fc.integer({ min: 1, max: 9 }), fc.integer({ min: 1, max: 9 }), fc.double({ min: -1e6, max: 1e6, noNaN: true }));
/** what a line of a file can be besides an entry, including damage */
const extra = fc.constantFrom('% a comment', '', '   ', '\u00a0% after a no-break space', 'é % accents', '1 1', '1 1 1 1', '0 1 2', '1 1 0x10', '1 1 1e400', '+1 1 2', '10 1 2', '1 1 NaN', '１ 1 2', '1\t2\t3.5');

const mmText = fc.record({
  kind: fc.constantFrom('real general', 'real symmetric', 'integer skew-symmetric', 'pattern general'),
  entries: fc.array(entry, { maxLength: 40 }),
  extras: fc.array(fc.tuple(fc.nat(60), extra), { maxLength: 3 }),
  crlf: fc.boolean(),
  finalBreak: fc.boolean(),
  declareMore: fc.boolean(),
}).map(({ kind, entries, extras, crlf, finalBreak, declareMore }) => {
  const pattern = kind.startsWith('pattern'), integer = kind.startsWith('integer'), sym = !kind.endsWith('general');
  const es = sym ? entries.filter(([i, j]) => i >= j && (kind.includes('skew') ? i !== j : true)) : entries;
  const lines = es.map(([i, j, x]) => (pattern ? `${i} ${j}` : `${i} ${j} ${integer ? Math.round(x) : x}`));
  for (const [at, line] of extras) lines.splice(at % (lines.length + 1), 0, line);
  const all = [`%%MatrixMarket matrix coordinate ${kind}`, '% made by the test', `9 9 ${es.length + (declareMore ? 1 : 0)}`, ...lines];
  return all.join(crlf ? '\r\n' : '\n') + (finalBreak ? '\n' : '');
});

const triText = fc.record({
  entries: fc.array(entry, { maxLength: 40 }),
  extras: fc.array(fc.tuple(fc.nat(60), extra), { maxLength: 3 }),
  crlf: fc.boolean(),
}).map(({ entries, extras, crlf }) => {
  const lines = entries.map(([i, j, x]) => `${i} ${j} ${x}`);
  for (const [at, line] of extras) lines.splice(at % (lines.length + 1), 0, line);
  return ['# made by the test', ...lines].join(crlf ? '\r\n' : '\n') + '\n';
});

describe('matrix files read in pieces', () => {
  let k = 0;
  it('Matrix Market: any text, any piece size — the same matrix or the same message as the text parsed whole', () => {
    fc.assert(
      fc.property(mmText, fc.integer({ min: 1, max: 64 }), (text, chunk) => {
        const path = join(dir, `m${k++}.mtx`);
        writeFileSync(path, text);
        const whole = outcome(() => parseMatrixMarket(text, { file: path }));
        expect(outcome(() => readMatrix(path, chunk))).toEqual(whole);
        // and pushed in pieces of characters
        const r = new MatrixMarketReader({ file: path });
        expect(outcome(() => { for (let p = 0; p < text.length; p += chunk) r.push(text.slice(p, p + chunk)); return r.end(); })).toEqual(whole);
      }),
      { seed: 20261128, numRuns: 400 },
    );
  });

  it('triplets: any text, any piece size — the same matrix or the same message', () => {
    fc.assert(
      fc.property(triText, fc.integer({ min: 1, max: 64 }), (text, chunk) => {
        const path = join(dir, `t${k++}.tri`);
        writeFileSync(path, text);
        const whole = outcome(() => parseTriplet(text, undefined, { file: path }));
        expect(outcome(() => readMatrix(path, chunk))).toEqual(whole);
        const r = new TripletReader(undefined, { file: path });
        expect(outcome(() => { for (let p = 0; p < text.length; p += chunk) r.push(text.slice(p, p + chunk)); return r.end(); })).toEqual(whole);
      }),
      { seed: 20261128, numRuns: 400 },
    );
  });

  it('a character cut between two pieces is read whole; a damaged line is named with its number', () => {
    const path = join(dir, 'accents.mtx');
    // "é" is two bytes in UTF-8: pieces of 3 bytes cut it
    writeFileSync(path, '%%MatrixMarket matrix coordinate real general\n% éééé\n2 2 2\n1 1 1\n2 2 0x2\n');
    expect(() => readMatrix(path, 3)).toThrow(`${path} line 5: value is not a decimal number in "2 2 0x2"`);
    writeFileSync(path, '%%MatrixMarket matrix coordinate real general\n% éééé\n2 2 2\n1 1 1\n2 2 2\n');
    expect(Array.from(readMatrix(path, 3).Ax)).toEqual([1, 2]);
  });

  it('a missing file, a folder, an unknown type: named', () => {
    expect(() => readMatrix(join(dir, 'none.mtx'))).toThrow('none.mtx: cannot read the matrix file (no such file)');
    expect(() => readMatrix(dir)).toThrow('cannot read the matrix file (it is a folder)');
    const p = join(dir, 'a.txt');
    writeFileSync(p, '1 1 1\n');
    expect(() => readMatrix(p)).toThrow('unknown matrix file type (expected .tri or .mtx)');
  });
});
