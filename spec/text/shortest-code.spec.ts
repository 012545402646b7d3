import { describe, expect, it } from 'vitest';
import { ShortestPrinter } from '../../src/text/shortest-code.ts';
import { rng } from '../sparse/util.ts';

/** what String(x) prints, "null" for what JSON.stringify prints as null */
const expected = (x: number): string => (Number.isFinite(x) ? String(x) : 'null');

/** a seeded generator of 32-bit words (the sparse specs' mulberry32, scaled back): failures reproduce */
function words(seed: number): () => number {
  const r = rng(seed);
  return () => Math.floor(r() * 4294967296);
}

const dv = new DataView(new ArrayBuffer(8));
/** the double of the bit pattern hi:lo */
function fromBits(hi: number, lo: number): number {
  dv.setUint32(0, hi >>> 0);
  dv.setUint32(4, lo >>> 0);
  return dv.getFloat64(0);
}
function bitsOf(x: number): bigint {
  dv.setFloat64(0, x);
  return dv.getBigUint64(0);
}
function fromBig(b: bigint): number {
  dv.setBigUint64(0, BigInt.asUintN(64, b));
  return dv.getFloat64(0);
}
/** x and its neighbours by `ulps` ulps down and up (same sign; the bit pattern ± 1 each), both signs */
function around(x: number, ulps = 1): number[] {
  const b = bitsOf(Math.abs(x)), out: number[] = [];
  for (let d = -ulps; d <= ulps; d++) {
    const y = fromBig(b + BigInt(d));
    if (b + BigInt(d) >= 0n) out.push(y, -y);
  }
  return out;
}

const printer = ShortestPrinter.create(2048);
const hex = (x: number) => `0x${bitsOf(x).toString(16).padStart(16, '0')}`;

/**
 * Every value through `print` and, in lines of up to `capacity` numbers separated by ",", through
 * `line`; returns the first mismatches (value, its bits, ours, String's).
 */
function check(values: ArrayLike<number>): string[] {
  const p = printer!;
  const bad: string[] = [];
  const note = (x: number, got: string) => { if (bad.length < 10) bad.push(`${x} (${hex(x)}): ${got} ≠ ${expected(x)}`); };
  for (let i = 0; i < values.length; i++) {
    const x = values[i], got = p.print(x);
    if (got !== expected(x)) note(x, got);
  }
  const comma = new Uint8Array([44]), empty = new Uint8Array(0), decoder = new TextDecoder();
  for (let at = 0; at < values.length; at += p.capacity) {
    const n = Math.min(p.capacity, values.length - at);
    p.setTemplate(Array.from({ length: n + 1 }, (_, i) => (i === 0 || i === n ? empty : comma)));
    const nums = p.nums;
    const want: string[] = [];
    for (let i = 0; i < n; i++) { nums[i] = values[at + i]; want.push(expected(values[at + i])); }
    const len = p.line();
    const got = decoder.decode(p.out.subarray(0, len));
    if (got !== want.join(',')) {
      const parts = got.split(',');
      for (let i = 0; i < n; i++) if (parts[i] !== want[i]) note(values[at + i], `line: ${parts[i]}`);
    }
  }
  return bad;
}

describe.skipIf(printer === null)('ShortestPrinter: String(x) bit for bit', () => {
  it('1,000,000 random bit patterns (every exponent, both signs)', () => {
    const w = words(20240601);
    const xs = new Float64Array(1_000_000);
    for (let i = 0; i < xs.length; i++) xs[i] = fromBits(w(), w());
    expect(check(xs)).toEqual([]);
  });

  it('200,000 decimal-looking numbers, integers below and above 2^53', () => {
    const w = words(7), r = () => w() / 4294967296;
    const xs: number[] = [];
    for (let i = 0; i < 200_000; i++) {
      const e = Math.floor(r() * 44) - 22, d = Math.floor(r() * 21);
      const x = Number((r() * 10 ** e).toFixed(d));
      xs.push(i % 2 === 0 ? x : -x);
    }
    for (let i = 0; i < 50_000; i++) {
      xs.push(Math.floor(r() * 2 ** 53), -Math.floor(r() * 2 ** 32), Math.floor(r() * 1e6), Math.floor(r() * 2 ** 64), Math.floor(r() * 2 ** (53 + Math.floor(r() * 970))));
    }
    for (let i = 0; i <= 1000; i++) xs.push(i, -i, 2 ** 53 - i, 2 ** 53 + 2 * i, 10 ** 15 + i, 10 ** 21 - 2 ** 17 * i);
    expect(check(xs)).toEqual([]);
  });

  it('powers of 2 and of 10 and their neighbours', () => {
    const xs: number[] = [];
    for (let e = -1074; e <= 1023; e++) xs.push(...around(2 ** e, 2));
    for (let e = -323; e <= 308; e++) xs.push(...around(Number(`1e${e}`), 2), ...around(Number(`5e${e}`)), ...around(Number(`9.999999999999999e${e}`)));
    expect(check(xs.filter(Number.isFinite))).toEqual([]);
  });

  it('subnormals, the smallest normal, the largest value, the formatting thresholds', () => {
    const w = words(99);
    const xs: number[] = [
      0, -0, NaN, Infinity, -Infinity, Number.MIN_VALUE, -Number.MIN_VALUE, fromBits(0x000fffff, 0xffffffff), 2 ** -1022, Number.MAX_VALUE, -Number.MAX_VALUE,
      Number.EPSILON, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER, 123e-20, 1.5e-7, 1e21, 1e-7, 1e-6, 1.2345e-6, 0.000001, 999999999999999900000,
      123456789012345680000, 0.1, 0.2, 0.30000000000000004, 1 / 3, 2 / 3, Math.PI, Math.E, -12.345678901234567, 0.0012345678, 1234.5,
    ];
    for (const t of [1e21, 1e-7, 1e-6, 1e20, 1e22]) xs.push(...around(t, 3));
    // the exhaustive tiny subnormals (significands 1..100000: the one- and two-digit decimals), random ones
    for (let c = 1; c <= 100_000; c++) xs.push(fromBits(0, c));
    for (let i = 0; i < 50_000; i++) xs.push(fromBits(w() & 0xfffff, w()), -fromBits(w() & 0xfffff, w()));
    // every exponent with a random significand, and with the extreme significands
    for (let be = 0; be < 2047; be++) xs.push(fromBits((be << 20) | (w() & 0xfffff), w()), fromBits((be << 20) | 0xfffff, 0xffffffff), fromBits(be << 20, 1));
    for (const x of xs) if (Number.isFinite(x)) expect(JSON.stringify(x)).toBe(expected(x));
    expect(check(xs)).toEqual([]);
  });

  it('lines: segments with multi-byte UTF-8 and empty ones; setTemplate again with more (memory growth)', () => {
    const p = ShortestPrinter.create(300)!;
    const enc = new TextEncoder(), dec = new TextDecoder();
    const w = words(3), r = () => w() / 4294967296;
    const run = (texts: string[], values: number[]) => {
      p.setTemplate(texts.map((t) => enc.encode(t)));
      const nums = p.nums;
      values.forEach((v, i) => { nums[i] = v; });
      const len = p.line();
      expect(len).toBeLessThanOrEqual(p.out.length);
      const want = texts.map((t, i) => t + (i < values.length ? expected(values[i]) : '')).join('');
      expect(dec.decode(p.out.subarray(0, len))).toBe(want);
      expect(len).toBe(enc.encode(want).length);
    };
    // before any template: an empty line
    expect(p.line()).toBe(0);
    // small: a record with multi-byte keys and empty segments
    const small = ['{"τ.knee":', ',"ωₓ":[', ',', '', ',', ']', ',"é":', '}'];
    const smallValues = [-12.345678901234567, 0.0012345678, 1234.5, NaN, -0, 5e-324, 1e21];
    const nums0 = p.nums;
    run(small, smallValues);
    run(small, smallValues.map((v) => v * 3));
    expect(p.nums).toBe(nums0); // no growth: the same view
    // large: 300 numbers and segments of ~2 kB each (~600 kB: the memory grows)
    const big = Array.from({ length: 301 }, (_, i) => `,"${'τ'.repeat(1000)}${i}":`);
    big[0] = '{';
    const bigValues = Array.from({ length: 300 }, (_, i) => [(r() - 0.5) * 30, r() * 1e-3, Math.round(r() * 1e5) / 10, fromBits(w(), w())][i % 4]);
    const before = p.out.length;
    run(big, bigValues);
    expect(p.out.length).toBeGreaterThan(before);
    expect(p.nums.length).toBe(300);
    // and back to the small template (the views stay valid)
    run(small, smallValues);
    run(['', ''], [Number.MAX_VALUE]);
    run([''], []);
    expect(() => p.setTemplate(Array.from({ length: 302 }, () => new Uint8Array(0)))).toThrow(RangeError);
  });

  it('measures line() against String(x) (printed, not asserted)', () => {
    const p = ShortestPrinter.create(270)!;
    const N = 270, LINES = 1000, ROUNDS = 9;
    const enc = new TextEncoder();
    p.setTemplate(Array.from({ length: N + 1 }, (_, i) => enc.encode(i === 0 ? '{"x":[' : i === N ? ']}' : i % 10 === 0 ? '],"τ.knee":[' : ',')));
    const w = words(11), r = () => w() / 4294967296;
    // typical values, each line's different (V8 caches the strings of numbers it printed lately)
    const kinds = [() => (r() - 0.5) * 30, () => r() * 0.01, () => Math.round(r() * 1e5) / 10];
    const pool = new Float64Array(N * LINES);
    for (let j = 0; j < pool.length; j++) pool[j] = kinds[j % 3]();
    const nums = p.nums;
    let ours = Infinity, theirs = Infinity, sink = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const scale = 1 + round * 1e-9; // new values each round, for String's cache
      let t0 = performance.now();
      for (let k = 0; k < LINES; k++) {
        for (let i = 0; i < N; i++) nums[i] = pool[k * N + i] * scale;
        sink += p.line();
      }
      ours = Math.min(ours, (performance.now() - t0) / (N * LINES));
      t0 = performance.now();
      for (let k = 0; k < LINES; k++) for (let i = 0; i < N; i++) sink += String(pool[k * N + i] * scale).length;
      theirs = Math.min(theirs, (performance.now() - t0) / (N * LINES));
    }
    console.log(`ShortestPrinter.line: ${(ours * 1e6).toFixed(1)} ns per number (filling nums included), String(x): ${(theirs * 1e6).toFixed(1)} ns (${N} numbers a line, best of ${ROUNDS} rounds of ${LINES} lines; ${sink > 0 ? 'ok' : ''})`);
    expect(sink).toBeGreaterThan(0);
  });
});
