/**
 * Property-based tests (fast-check) of the invariants the fuzz targets check, with inputs fast-check
 * generates and shrinks (the fuzzer mutates the corpus instead):
 * - any input to any target: a result or one of the project's named errors, no engine words or class
 *   names in a message (the time and memory bounds are the fuzzer's: no wall-clock limit here);
 * - a `__proto__`, `constructor` or `prototype` key anywhere in a problem, reference, saved analysis
 *   or log row never reaches an object's prototype;
 * - numbers are read as written: every finite double, in the shortest form or another decimal form,
 *   reads back bit for bit from an NDJSON or CSV log and from Matrix Market and triplet files; what is
 *   not a decimal number is refused naming the line and column;
 * - a saved symbolic analysis reads back as the same analysis, and factors the same.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runOne } from './engine.ts';
import { TARGETS } from './targets.ts';
import { parseProblem } from '../../src/estimation/problem.ts';
import { buildEstimationSystem } from '../../src/estimation/setup.ts';
import { modelForProblem } from '../../src/node/problem-file.ts';
import { CsvRows, LogSchema, parseNdjsonLine } from '../../src/io/log.ts';
import type { Sample } from '../../src/estimation/sample.ts';
import { formatMatrixMarket, formatTriplet, parseMatrixMarket, parseTriplet } from '../../src/sparse/io.ts';
import { analyze } from '../../src/sparse/analyze.ts';
import { factor } from '../../src/sparse/index.ts';
import { SymbolicLU } from '../../src/sparse/symbolic.ts';
import type { CscMatrix } from '../../src/sparse/csc.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
/** fixed seed: the suite is reproducible (a failure prints the seed and the shrunk input) */
const SEED = 20261128;

/** finite doubles of every kind: subnormals, ±0, the extremes, ordinary values */
const finite = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(-0, 0, 5e-324, -5e-324, 2.2250738585072014e-308, 2.225073858507201e-308, Number.MAX_VALUE, -Number.MAX_VALUE, 2 ** 53 + 2, 0.1, 1e21, 1e-7),
);

/** decimal spellings of x that read back as x: shortest, exponential with 17 digits, fixed where that is exact */
function spellings(x: number): string[] {
  const out = [String(x), x.toExponential(16), x.toPrecision(17)];
  if (Math.abs(x) < 1e21) out.push(x.toFixed(20).replace(/0+$/, '').replace(/\.$/, ''));
  return out.filter((s) => Object.is(Number(s), x));
}

describe('any input: a result or a named error', () => {
  for (const t of TARGETS) {
    // inputs built from the target's dictionary and arbitrary text, and arbitrary bytes
    const tokens = fc.array(fc.oneof(fc.constantFrom(...t.dictionary), fc.string({ maxLength: 8 }), fc.double().map(String)), { maxLength: 40 }).map((a) => Buffer.from(a.join('')));
    const bytes = fc.uint8Array({ maxLength: 600 }).map((a) => Buffer.from(a));
    it(`${t.name}: 150 generated inputs`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.oneof(tokens, bytes), async (input) => {
          const f = await runOne(t, input, Infinity);
          // memory is the fuzzer's bound (one process's peak is shared by the whole file here)
          if (f && f.kind !== 'memory') throw new Error(`${f.kind}: ${f.detail}`);
        }),
        { seed: SEED, numRuns: 150 },
      );
    }, 120_000);
  }
});

describe('keys that name a prototype stay data', () => {
  const PROTO_KEYS = ['__proto__', 'constructor', 'prototype'];
  /** a seed's text with `"key": value,` inserted after its k-th opening brace */
  const inject = (text: string, k: number, key: string, value: string): string => {
    const braces = [...text.matchAll(/\{/g)].map((m) => m.index!);
    const at = braces[k % braces.length] + 1;
    return `${text.slice(0, at)}"${key}": ${value}${text[at] === '}' ? '' : ','}${text.slice(at)}`;
  };
  const seeds: Array<[string, string]> = [
    ['problem', readFileSync(join(ROOT, 'data/problems/humanoid-demo.json'), 'utf8')],
    ['ndjson', readFileSync(join(ROOT, 'data/demo/humanoid.ndjson'), 'utf8').split('\n').slice(0, 2).join('\n') + '\n'],
    ['reference', readFileSync(join(ROOT, 'spec/fuzz/corpus/reference/seed-chain6.fixed.json'), 'utf8')],
    ['symbolic', readFileSync(join(ROOT, 'spec/fuzz/corpus/symbolic/seed-band12.json'), 'utf8')],
  ];
  for (const [name, text] of seeds) {
    it(`${name}: "__proto__", "constructor", "prototype" anywhere`, async () => {
      const t = TARGETS.find((x) => x.name === name)!;
      const value = fc.constantFrom('{"polluted": true}', '{"toString": 1}', '[1, 2]', '"x"', '1', 'null', '{"__proto__": {"polluted": true}}');
      await fc.assert(
        fc.asyncProperty(fc.nat(), fc.constantFrom(...PROTO_KEYS), value, async (k, key, v) => {
          const f = await runOne(t, Buffer.from(inject(text, k, key, v)), Infinity);
          if (f && f.kind !== 'memory') throw new Error(`${f.kind}: ${f.detail}`);
          const probe = {} as Record<string, unknown>;
          expect(probe.polluted).toBeUndefined();
          expect(Object.getOwnPropertyNames(Object.prototype)).not.toContain('polluted');
          expect(typeof probe.toString).toBe('function');
          expect(Object.getPrototypeOf(probe)).toBe(Object.prototype);
        }),
        { seed: SEED, numRuns: 40 },
      );
    }, 120_000);
  }
});

describe('numbers are read as written', () => {
  const p = parseProblem(readFileSync(join(ROOT, 'data/problems/humanoid-demo.json'), 'utf8'), 'humanoid-demo.json');
  const es = buildEstimationSystem(modelForProblem(p, join(ROOT, 'data/problems')), p);
  const schema = new LogSchema(es, {});
  const knee = es.model.iq[es.model.jointNames.indexOf('l_knee')];
  const line = readFileSync(join(ROOT, 'data/demo/humanoid.ndjson'), 'utf8').split('\n')[0];
  const header = schema.csvHeader();
  const csv = new CsvRows(schema, header, 1);
  const col = header.indexOf('q.l_knee'), fz = header.indexOf('ft_left.fz');
  const cells = (v: string, at: number): string[] => header.map((c, j) => (j === at ? v : c === 'base.qw' ? '1' : '0'));
  const readingFz = (s: Sample): number => {
    const r = s.readings.get('ft_left')!;
    return r[r.length - 1];
  };

  it('NDJSON: every finite double, in every decimal spelling, bit for bit', () => {
    fc.assert(
      fc.property(finite, (x) => {
        for (const s of spellings(x)) {
          const got = parseNdjsonLine(schema, line.replace(/"l_knee":[-0-9.e]+/, `"l_knee":${s}`), 5);
          expect('message' in got ? got.message : null).toBeNull();
          expect(Object.is((got as Sample).q[knee], x)).toBe(true);
        }
      }),
      { seed: SEED, numRuns: 500 },
    );
  });

  it('CSV: every finite double, in every decimal spelling, bit for bit (a joint position and a force)', () => {
    fc.assert(
      fc.property(finite, (x) => {
        for (const s of spellings(x)) {
          const a = csv.parse(cells(s, col), 3), b = csv.parse(cells(s, fz), 4);
          expect('message' in a ? a.message : null).toBeNull();
          expect('message' in b ? b.message : null).toBeNull();
          expect(Object.is((a as Sample).q[knee], x)).toBe(true);
          expect(Object.is(readingFz(b as Sample), x)).toBe(true);
        }
      }),
      { seed: SEED, numRuns: 500 },
    );
  });

  it('CSV: a cell that is not a decimal number is refused, naming its line and column', () => {
    // what JavaScript's Number() would take but a decimal reader must not, and arbitrary junk around numbers
    const notDecimal = fc.oneof(
      fc.constantFrom('0x10', '0b11', '0o7', 'Infinity', '-Infinity', 'NaN', '1_000', '1e', 'e5', '--1', '1..2', '0x1p3', '١', '１'),
      fc.tuple(finite, fc.constantFrom('x', 'e', '%', ',5', 'f', 'd0')).map(([x, junk]) => `${x}${junk}`),
    );
    fc.assert(
      fc.property(notDecimal, fc.integer({ min: 2, max: 1_000_000 }), (s, lineNo) => {
        const got = csv.parse(cells(s, col), lineNo);
        expect('message' in got).toBe(true);
        const e = got as { line: number; message: string };
        expect(e.line).toBe(lineNo);
        expect(e.message).toContain('"q.l_knee"');
      }),
      { seed: SEED, numRuns: 300 },
    );
  });

  /** a random square sparse matrix with a full diagonal (nonsingular pattern), of any finite entries */
  const matrix = fc.integer({ min: 1, max: 25 }).chain((n) =>
    fc.tuple(
      fc.constant(n),
      fc.array(fc.tuple(fc.nat(n - 1), fc.nat(n - 1), finite), { maxLength: 4 * n }),
      fc.array(fc.double({ min: 1, max: 1e3, noNaN: true }), { minLength: n, maxLength: n }),
    ).map(([n, entries, diag]): CscMatrix => {
      const cols: Map<number, number>[] = Array.from({ length: n }, (_, j) => new Map([[j, diag[j]]]));
      for (const [i, j, x] of entries) if (i !== j) cols[j].set(i, x);
      const Ap = new Int32Array(n + 1), Ai: number[] = [], Ax: number[] = [];
      for (let j = 0; j < n; j++) {
        for (const [i, x] of [...cols[j]].sort((a, b) => a[0] - b[0])) { Ai.push(i); Ax.push(x); }
        Ap[j + 1] = Ai.length;
      }
      return { m: n, n, Ap, Ai: Int32Array.from(Ai), Ax: Float64Array.from(Ax) };
    }),
  );
  const show = (x: number): string => (Object.is(x, -0) ? '-0' : String(x));
  const same = (A: CscMatrix, B: CscMatrix): void => {
    expect([B.m, B.n]).toEqual([A.m, A.n]);
    expect(Array.from(B.Ap)).toEqual(Array.from(A.Ap));
    expect(Array.from(B.Ai)).toEqual(Array.from(A.Ai));
    for (let k = 0; k < A.Ap[A.n]; k++) if (!Object.is(B.Ax[k], A.Ax[k])) throw new Error(`entry ${k}: ${show(A.Ax[k])} written, ${show(B.Ax[k])} read`);
  };

  it('Matrix Market and triplet files: written and read back, bit for bit', () => {
    fc.assert(
      fc.property(matrix, (A) => {
        same(A, parseMatrixMarket(formatMatrixMarket(A), { file: 'a.mtx' }));
        same(A, parseTriplet(formatTriplet(A), { m: A.m, n: A.n }, { file: 'a.tri' }));
      }),
      { seed: SEED, numRuns: 300 },
    );
  });

  it('a saved symbolic analysis reads back as the same analysis and factors the same', () => {
    fc.assert(
      fc.property(matrix, fc.constantFrom('auto', 'amd', 'colamd', 'markowitz', 'natural') as fc.Arbitrary<never>, (A0, ordering) => {
        // a well-scaled matrix of that pattern: the same factorization twice must agree bit for bit
        const A = { ...A0, Ax: A0.Ax.map((x, k) => (Number.isFinite(x) ? 1 + (Math.abs(x) % 1) + (k % 3) : 1)) };
        const S = analyze(A, { ordering });
        const back = SymbolicLU.fromJSON(JSON.stringify(S.toJSON()));
        expect(back.toJSON()).toEqual(S.toJSON());
        const b = Float64Array.from({ length: A.n }, (_, i) => i + 1);
        const x1 = new Float64Array(A.n), x2 = new Float64Array(A.n);
        factor(A, S).solve(x1, b);
        factor(A, back).solve(x2, b);
        expect(Array.from(x2)).toEqual(Array.from(x1));
      }),
      { seed: SEED, numRuns: 200 },
    );
  });
});
