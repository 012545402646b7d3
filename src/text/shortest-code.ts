/**
 * ShortestPrinter: doubles printed as text exactly as JavaScript's String(x) (and JSON.stringify)
 * prints them, by a WebAssembly module generated at run time as raw bytecode (no .wasm file, no
 * toolchain): lines of literal byte segments interleaved with numbers, one WebAssembly call a line.
 *
 * The digits: Schubfach (R. Giulietti, "The Schubfach way to render doubles", 2020), the shortest
 * decimal that rounds to the double, the closest to its exact value among the shortest, ties to the
 * even digit, the rounding interval's ends included when the binary significand is even — what
 * ECMAScript's Number::toString (§6.1.6.1.20) asks for and V8 prints. The 126-bit powers of ten
 * g = ⌊10⁻ᵏ·2⁻ʳ⌋ + 1 (2¹²⁵ ≤ g < 2¹²⁶, k in [−324, 292]) and, per binary exponent, k and h are
 * computed exactly with BigInt when the module is made and written into its memory, g as two 63-bit
 * halves; the rest runs in i64 arithmetic. The paper's rounded product rop(g, ·) is computed for
 * cp = 4c·2ʰ from the two 128-bit products g0·cp and g1·cp (the 64 × 64 → 128-bit high words emulated
 * with 32-bit halves: WebAssembly has only the low word), and for the interval's ends cp ± 2^sh by
 * adding g·2^sh to those products in 128 bits (the same words as multiplying: rop unchanged). The
 * paper's lower bound of two digits (Java's rule, e.g. 4.9E-324) is left out: the candidate of one
 * digit fewer is tried at every length, so a tiny subnormal gets its one digit (5e-324) as in
 * ECMAScript. Integers below 2⁵³ with a fractional binary exponent print directly (the paper's fast
 * path). Schubfach's choice among its four candidates is made without branches (its tests depend on
 * the data, and mispredicted branches cost more than the arithmetic), as are the digits (eight at a
 * time in the bytes of an i64, by multiply-shift divisions exact in their ranges) and the counts
 * of leading and trailing zeros (ctz and clz of those words).
 *
 * Then the formatting of Number::toString, with k digits and the decimal point after the n-th: the
 * digits and n − k zeros when k ≤ n ≤ 21, the digits with a "." when 0 < n ≤ 21, "0.", −n zeros and
 * the digits when −6 < n ≤ 0 (the three without branches: one copy of the digit string shifted so
 * that its "." falls after max(n, 1) digits), else the exponential form ("1e+21", "1.5e-7",
 * "5e-324"); "-" for negatives, "0" for ±0, and "null" for NaN and ±Infinity (as JSON.stringify:
 * callers wanting something else check before).
 *
 * Tested bit for bit against String(x) (spec/text/shortest-code.spec.ts): a million random bit
 * patterns of every exponent and sign, 200,000 decimal-looking numbers, integers below and above 2⁵³,
 * every power of 2 and of 10 with its neighbours, every subnormal significand up to 100,000 and
 * random ones, the smallest normal, the largest value, the formatting thresholds (1e21, 1e-7 and
 * their neighbours), through `print` and `line`. No double falls back to String(x).
 *
 * Measured (`npx vitest run spec/text/shortest-code.spec.ts`, its last test: lines of 270 numbers
 * like -12.345678901234567, 0.0012345678, 1234.5 with short segments between, each line's numbers
 * new, best of 9 rounds of 1,000 lines; Node 20.20, V8 11.3, this project's 2-core Xeon VM): 35–38 ns
 * a number with the filling of `nums` included, String(x) 122–154 ns on the same numbers.
 *
 * Memory: a header (the line's count and the addresses of its segments and output), the slot of
 * `print`, the digits' scratch ('0' padding, 17 digits, '0' padding), `print`'s output, the digit
 * pairs "00".."99" (the exponents), per biased exponent k and h (both interval shapes), the table of
 * g, then the numbers (`nums`, capacity slots), the segments' lengths, and — variable, set by
 * setTemplate — the segments' bytes and the output. Copies run 8 bytes at a time and may write past
 * their end into the output's slack; the next write overwrites it.
 */
// The module is written byte by byte here, as sparse/compiled.ts (Bytes, assemble) and loops.ts
// (Body) write theirs: text/ sits below sparse/ in the import layers, and sparse/ imports nothing
// outside itself (spec/imports.spec.ts: it is a library of its own), so neither can take the other's
// builder; this file keeps its own small one (the byte buffer, one function type).

/** the WebAssembly opcodes this code uses (core spec §5.4) */
const OP = {
  block: 0x02, loop: 0x03, if: 0x04, else: 0x05, end: 0x0b, br: 0x0c, brIf: 0x0d, void: 0x40, select: 0x1b,
  get: 0x20, set: 0x21, tee: 0x22,
  i32Load: 0x28, i64Load: 0x29, f64Load: 0x2b, i32Load8U: 0x2d, i32Load16S: 0x2e, i32Load16U: 0x2f, i64Load32U: 0x35,
  i32Store: 0x36, i64Store: 0x37, i32Store8: 0x3a, i32Store16: 0x3b,
  i32Const: 0x41, i64Const: 0x42,
  i32Eqz: 0x45, i32Eq: 0x46, i32LtS: 0x48, i32LtU: 0x49, i32GtS: 0x4a, i32LeS: 0x4c, i32GeU: 0x4f,
  i64Eqz: 0x50, i64Eq: 0x51, i64LtS: 0x53, i64LtU: 0x54, i64GtU: 0x56, i64LeU: 0x58,
  i32Add: 0x6a, i32Sub: 0x6b, i32Mul: 0x6c, i32And: 0x71, i32Or: 0x72, i32Xor: 0x73, i32Shl: 0x74, i32ShrU: 0x76,
  i64Clz: 0x79, i64Ctz: 0x7a, i64Add: 0x7c, i64Sub: 0x7d, i64Mul: 0x7e, i64And: 0x83, i64Or: 0x84,
  i64Shl: 0x86, i64ShrU: 0x88,
  i32WrapI64: 0xa7, i64ExtendI32U: 0xad, i64ReinterpretF64: 0xbd,
} as const;

/** A growable byte buffer with WebAssembly's encodings. */
class Bytes {
  buf: Uint8Array<ArrayBuffer> = new Uint8Array(1 << 12);
  len = 0;
  byte(b: number): void {
    if (this.len === this.buf.length) {
      const nb = new Uint8Array(this.buf.length * 2);
      nb.set(this.buf);
      this.buf = nb;
    }
    this.buf[this.len++] = b;
  }
  bytes(a: ArrayLike<number>): void {
    for (let i = 0; i < a.length; i++) this.byte(a[i]);
  }
  /** unsigned LEB128 */
  u32(n: number): void {
    do {
      let b = n & 0x7f;
      n >>>= 7;
      if (n !== 0) b |= 0x80;
      this.byte(b);
    } while (n !== 0);
  }
  /** signed LEB128 of a 64-bit value (taken modulo 2⁶⁴) */
  s64(v: bigint): void {
    let x = BigInt.asIntN(64, v);
    for (;;) {
      const b = Number(x & 0x7fn);
      x >>= 7n;
      if ((x === 0n && (b & 0x40) === 0) || (x === -1n && (b & 0x40) !== 0)) { this.byte(b); return; }
      this.byte(b | 0x80);
    }
  }
  view(): Uint8Array<ArrayBuffer> {
    return this.buf.subarray(0, this.len);
  }
}

/** A function body under construction (chained calls), closed with its local declarations. */
class Code {
  readonly c = new Bytes();
  op(...b: number[]): this { for (const x of b) this.c.byte(x); return this; }
  /** i32.const (an i32: v taken modulo 2³²) */
  i32(v: number): this { this.c.byte(OP.i32Const); this.c.s64(BigInt(v | 0)); return this; }
  /** i64.const (taken modulo 2⁶⁴) */
  i64(v: bigint): this { this.c.byte(OP.i64Const); this.c.s64(v); return this; }
  get(i: number): this { return this.op(OP.get, i); }
  set(i: number): this { return this.op(OP.set, i); }
  tee(i: number): this { return this.op(OP.tee, i); }
  /** a load or a store at address (stack) + offset (alignment hint 1 byte: no alignment assumed) */
  mem(op: number, offset: number): this { this.c.byte(op); this.c.byte(0); this.c.u32(offset); return this; }
  /** the body: its locals ([count, type] runs: 0x7f i32, 0x7e i64, 0x7c f64), the code, `end` */
  finish(locals: readonly [number, number][]): Uint8Array {
    const b = new Bytes();
    b.u32(locals.length);
    for (const [n, t] of locals) { b.u32(n); b.byte(t); }
    b.bytes(this.c.view());
    b.byte(OP.end);
    return b.view().slice();
  }
}

/** The module: the memory imported as "e"."m" (at least `pages` pages), functions () → i32 exported as f0, f1, … */
function assemble(bodies: readonly Uint8Array[], pages: number): Uint8Array<ArrayBuffer> {
  const m = new Bytes();
  m.bytes([0x00, 0x61, 0x73, 0x6d, 1, 0, 0, 0]);
  const section = (id: number, fill: (s: Bytes) => void) => {
    const s = new Bytes();
    fill(s);
    m.byte(id);
    m.u32(s.len);
    m.bytes(s.view());
  };
  section(1, (s) => s.bytes([1, 0x60, 0, 1, 0x7f])); // one type: () → i32
  section(2, (s) => { s.bytes([1, 1, 0x65, 1, 0x6d, 0x02, 0x00]); s.u32(pages); }); // "e"."m": a memory, its least pages
  section(3, (s) => { s.u32(bodies.length); for (let i = 0; i < bodies.length; i++) s.byte(0); });
  section(7, (s) => {
    s.u32(bodies.length);
    for (let i = 0; i < bodies.length; i++) {
      const name = `f${i}`;
      s.u32(name.length);
      for (let k = 0; k < name.length; k++) s.byte(name.charCodeAt(k));
      s.byte(0x00);
      s.u32(i);
    }
  });
  section(10, (s) => { s.u32(bodies.length); for (const b of bodies) { s.u32(b.length); s.bytes(b); } });
  return new Uint8Array(m.view());
}

// ---- memory layout (byte addresses)
/** header: the line's count, the address of its segments' bytes, of its output */
const HDR = 0;
/** `print`'s number */
const XSLOT = 16;
/** the digits' scratch: the 17 digits at SCR, '0' padding (it stays) in the 8 bytes before and up to SCR_END */
const SCR = 64, SCR_END = 128;
/** `print`'s output (a number and the copies' overrun) */
const POUT = 128;
/** "00".."99" */
const PAIRS = 256;
/** per biased exponent e and interval shape a (0 symmetric, 1 asymmetric): k (i16) and h (u8) at EXPT + 8e + 4a */
const EXPT = 464;
/** g1 and g0 (i64 each) of k at GT + 16 (k − K_MIN) */
const GT = EXPT + 2048 * 8;
const K_MIN = -324, K_MAX = 292;
/** the numbers */
const NUMS = GT + 16 * (K_MAX - K_MIN + 1);

/** bytes per number in the output's worst case ("-0.0000012345678901234567") */
const PER_NUMBER = 25;
/** slack after the output and the segments (the 8-byte copies' overrun) */
const SLACK = 64;

const M32 = 0xffffffffn, M63 = (1n << 63n) - 1n, M52 = (1n << 52n) - 1n;
/** ⌈2⁹⁰/10⁸⌉: f / 10⁸ = high64(f·M8) >> 26 for f < 2⁶⁴ (the error times f stays below 2⁹⁰) */
const M8 = 12379400392853802749n;
/** eight '0' bytes */
const Z8 = 0x3030303030303030n;

// ---- the tables: exact integer logarithms and the powers g (BigInt)
/** the fixed part of the memory: scratch padding, digit pairs, the exponent table and the g table */
function writeTables(buf: ArrayBuffer): void {
  // exact powers of ten, logarithms and g (computed once: fixedPart)
  const pow10: bigint[] = [1n];
  for (let i = 1; i <= 330; i++) pow10.push(pow10[i - 1] * 10n);
  /** bits of 10^e */
  const bits10 = pow10.map((x) => x.toString(2).length);
  /** ⌊e log₂ 10⌋ (10^|e| is not a power of 2 for e ≠ 0) */
  function flog2pow10(e: number): number {
    if (e === 0) return 0;
    return e > 0 ? bits10[e] - 1 : -bits10[-e];
  }
  /** ⌊log₁₀(m·2^p)⌋ for m = 1 or 3 (the largest k with 10^k ≤ m·2^p) */
  function flog10(m: bigint, p: number): number {
    const atMost = (k: number): boolean => {
      let l = 1n, r = m;
      if (k >= 0) l *= pow10[k]; else r *= pow10[-k];
      if (p >= 0) r <<= BigInt(p); else l <<= BigInt(-p);
      return l <= r;
    };
    let k = Math.floor((p + (m === 3n ? Math.log2(3) : 0)) * Math.LOG10E * Math.LN2) - 2;
    while (atMost(k + 1)) k++;
    return k;
  }
  /** g = ⌊10⁻ᵏ·2⁻ʳ⌋ + 1 with r = ⌊−k log₂ 10⌋ − 125 */
  function gOf(k: number): bigint {
    const e = -k, sh = 125 - flog2pow10(e);
    let v: bigint;
    if (e >= 0) v = sh >= 0 ? pow10[e] << BigInt(sh) : pow10[e] >> BigInt(-sh);
    else v = (1n << BigInt(sh)) / pow10[-e];
    const g = v + 1n;
    if (g < 1n << 125n || g >= 1n << 126n) throw new Error(`shortest-code: g of ${k} out of range`);
    return g;
  }
  const u8 = new Uint8Array(buf), dv = new DataView(buf);
  u8.fill(0x30, SCR - 8, SCR_END);
  for (let i = 0; i < 100; i++) { u8[PAIRS + 2 * i] = 0x30 + Math.floor(i / 10); u8[PAIRS + 2 * i + 1] = 0x30 + (i % 10); }
  for (let be = 0; be < 2047; be++) {
    const q = Math.max(be, 1) - 1075;
    for (let a = 0; a < 2; a++) {
      // symmetric: k = ⌊log₁₀ 2^q⌋; asymmetric (c = 2⁵², the lower neighbour half as far): ⌊log₁₀ ¾·2^q⌋
      const k = a === 0 ? flog10(1n, q) : flog10(3n, q - 2);
      const h = q + flog2pow10(-k) + 2;
      // cp = 4c·2ʰ < 2⁶⁰ and k within the table (h is 2..5)
      if (h < 1 || h > 5 || k < K_MIN || k > K_MAX) throw new Error(`shortest-code: k ${k}, h ${h} at ${be}`);
      dv.setInt16(EXPT + 8 * be + 4 * a, k, true);
      dv.setUint8(EXPT + 8 * be + 4 * a + 2, h);
    }
  }
  for (let k = K_MIN; k <= K_MAX; k++) {
    const g = gOf(k), at = GT + 16 * (k - K_MIN);
    dv.setBigUint64(at, g >> 63n, true);
    dv.setBigUint64(at + 8, g & M63, true);
  }
}

// ---- locals
const I32 = ['dst', 'out0', 'i', 'cnt', 'src', 'end', 'p', 'qp', 'len', 'be', 'k', 'h', 'asym', 'lead', 'trail', 'kd', 'n', 'sd', 'exp', 'tmp', 'x8', 'a', 'b', 'mq', 'hi9', 'up', 'fast'] as const;
const I64 = ['bits', 'c', 'cp', 'cph', 'cpl', 'g1', 'g0', 'g1h', 'g1l', 'g0h', 'g0l', 'lh', 'hl', 'z', 'vb', 'vbl', 'vbr', 's', 'f', 'odd', 'w', 'cmp', 'p0h', 'p0l', 'p1h', 'p1l', 'sh', 'x1', 'y0', 'y1', 'dm', 'dl'] as const;
type Local = (typeof I32)[number] | (typeof I64)[number] | 'x';
const L = {} as Record<Local, number>;
I32.forEach((n, i) => { L[n] = i; });
I64.forEach((n, i) => { L[n] = I32.length + i; });
L.x = I32.length + I64.length;
const LOCALS: [number, number][] = [[I32.length, 0x7f], [I64.length, 0x7e], [1, 0x7c]];

/** pushes an i64 */
type Push = () => void;

/**
 * The number in local x printed at local dst, dst advanced past it (the same code in both
 * functions: no call per number).
 */
function numberCode(e: Code): void {
  const get = (n: Local): Push => () => { e.get(L[n]); };
  const k64 = (v: bigint): Push => () => { e.i64(v); };
  /** ⌊a·b / 2⁶⁴⌋ from 32-bit halves (each below 2³²): four products; uses locals lh, hl */
  const mulhi = (aH: Push, aL: Push, bH: Push, bL: Push) => {
    aL(); bL(); e.op(OP.i64Mul).i64(32n).op(OP.i64ShrU);
    aL(); bH(); e.op(OP.i64Mul).tee(L.lh).i64(M32).op(OP.i64And, OP.i64Add);
    aH(); bL(); e.op(OP.i64Mul).tee(L.hl).i64(M32).op(OP.i64And, OP.i64Add);
    e.i64(32n).op(OP.i64ShrU);
    aH(); bH(); e.op(OP.i64Mul, OP.i64Add);
    e.get(L.lh).i64(32n).op(OP.i64ShrU, OP.i64Add);
    e.get(L.hl).i64(32n).op(OP.i64ShrU, OP.i64Add);
  };
  /** the i64 on the stack split into cph (high 32 bits) and cpl (low) */
  const split = () => { e.tee(L.cp).i64(32n).op(OP.i64ShrU).set(L.cph); e.get(L.cp).i64(M32).op(OP.i64And).set(L.cpl); };
  /**
   * Schubfach's rop(g, cp) from the products g0·cp and g1·cp: x1 = their high word, y0 and y1 = the
   * low and high words of g1·cp; z = (y0 >> 1) + x1; (y1 + (z >> 63)) | (z mod 2⁶³ ≠ 0): ⌊g·cp / 2¹²⁷⌋
   * with the bits below as a sticky bit
   */
  const rop = (x1: Push, y0: Push, y1: Push) => {
    y0(); e.i64(1n).op(OP.i64ShrU); x1(); e.op(OP.i64Add).set(L.z);
    y1(); e.get(L.z).i64(63n).op(OP.i64ShrU, OP.i64Add);
    e.get(L.z).i64(M63).op(OP.i64And).i64(M63).op(OP.i64Add).i64(63n).op(OP.i64ShrU, OP.i64Or);
  };
  /**
   * x1 = high(P0 ± g0·2^sh), y0 and y1 = the words of P1 ± g1·2^sh (sh in local sh, 1..7): each low
   * word ± g << sh, each high word ± g >> (64 − sh) ± the carry or borrow
   */
  const adjust = (add: boolean) => {
    const op = add ? OP.i64Add : OP.i64Sub;
    for (const [g, hi, lo, outHi, outLo] of [['g0', 'p0h', 'p0l', 'x1', 'y0'], ['g1', 'p1h', 'p1l', 'y1', 'y0']] as const) {
      e.get(L[lo]).get(L[g]).get(L.sh).op(OP.i64Shl, op).set(L[outLo]);
      e.get(L[hi]).get(L[g]).i64(64n).get(L.sh).op(OP.i64Sub, OP.i64ShrU, op);
      e.get(L[outLo]).get(L[lo]).op(add ? OP.i64LtU : OP.i64GtU, OP.i64ExtendI32U, op).set(L[outHi]);
    }
  };
  const store8 = (addr: Push, byte: number, off = 0) => { addr(); e.i32(byte).mem(OP.i32Store8, off); };
  const advance = (by: Push) => { e.get(L.dst); by(); e.op(OP.i32Add).set(L.dst); };
  const constant = (v: number): Push => () => { e.i32(v); };
  /** 24 bytes from address src to dst (the 8-byte copies: the output's slack and the scratch's padding absorb the overrun) */
  const copy24 = (src: Push, dst: Push, dstOffset = 0) => {
    for (const o of [0, 8, 16]) { dst(); src(); e.mem(OP.i64Load, o).mem(OP.i64Store, o + dstOffset); }
  };
  const sum = (a: Local, b: number | Local): Push => () => { e.get(L[a]); if (typeof b === 'number') e.i32(b); else e.get(L[b]); e.op(OP.i32Add); };
  /**
   * The 8 digits of i32 local `x` (< 10⁸) as the bytes of i64 local `to`, the first digit in the
   * lowest byte (digit values 0..9), in registers: x / 10⁴ = (x·109951163) >> 40 into two 32-bit
   * lanes, each lane / 100 = (y·10486) >> 20 (exact below 43690) into two 16-bit lanes, each / 10 =
   * (y·103) >> 10 (exact below 170) into bytes; no lane's product reaches the next lane
   */
  const eight = (x: Local, to: Local) => {
    e.get(L[x]).op(OP.i64ExtendI32U).i64(109951163n).op(OP.i64Mul).i64(40n).op(OP.i64ShrU).tee(L[to]);
    e.get(L[x]).op(OP.i64ExtendI32U).get(L[to]).i64(10000n).op(OP.i64Mul, OP.i64Sub).i64(32n).op(OP.i64Shl, OP.i64Or).set(L[to]);
    for (const [m, d, sh, mask, w] of [[10486n, 100n, 20n, 0x0000007f0000007fn, 16n], [103n, 10n, 10n, 0x000f000f000f000fn, 8n]] as const) {
      e.get(L[to]).i64(m).op(OP.i64Mul).i64(sh).op(OP.i64ShrU).i64(mask).op(OP.i64And).tee(L.w);
      e.get(L[to]).get(L.w).i64(d).op(OP.i64Mul, OP.i64Sub).i64(w).op(OP.i64Shl, OP.i64Or).set(L[to]);
    }
  };

  e.get(L.x).op(OP.i64ReinterpretF64).set(L.bits);
  e.get(L.bits).i64(52n).op(OP.i64ShrU, OP.i32WrapI64).i32(0x7ff).op(OP.i32And).set(L.be);
  e.get(L.be).i32(0x7ff).op(OP.i32Eq, OP.if, OP.void);
  {
    // NaN, ±Infinity: "null"
    e.get(L.dst).i32(0x6c6c756e).mem(OP.i32Store, 0);
    advance(constant(4));
  }
  e.op(OP.else);
  e.get(L.bits).i64(1n).op(OP.i64Shl, OP.i64Eqz, OP.if, OP.void);
  {
    // ±0: "0"
    store8(get('dst'), 0x30);
    advance(constant(1));
  }
  e.op(OP.else);
  {
    // "-" written always, kept when the sign bit is set (no branch on the sign)
    store8(get('dst'), 0x2d);
    advance(() => { e.get(L.bits).i64(63n).op(OP.i64ShrU, OP.i32WrapI64); });
    // c = 2⁵² + t (normal) or t (subnormal); q = max(e, 1) − 1075; mq = −q
    e.get(L.bits).i64(M52).op(OP.i64And).set(L.c);
    e.get(L.be).op(OP.if, OP.void).get(L.c).i64(1n << 52n).op(OP.i64Or).set(L.c).op(OP.end);
    e.i32(1075).get(L.be).get(L.be).op(OP.i32Eqz, OP.i32Add, OP.i32Sub).set(L.mq);
    // the decimal f·10^k (k in local k): an integer below 2⁵³ directly (0 < mq < 53 and c's low mq
    // bits zero: f = c >> mq, k = 0), else Schubfach from s = ⌊v·10⁻ᵏ⌋; either split into hi9 = ⌊·/10⁸⌋
    // and x8 (the rest), Schubfach's choice then added to x8 as f − s
    e.i32(0).set(L.fast);
    e.get(L.mq).i32(1).op(OP.i32Sub).i32(52).op(OP.i32LtU, OP.if, OP.void);
    e.get(L.c).get(L.mq).op(OP.i64ExtendI32U, OP.i64ShrU).tee(L.f).get(L.mq).op(OP.i64ExtendI32U, OP.i64Shl).get(L.c).op(OP.i64Eq).set(L.fast);
    e.op(OP.end);
    e.get(L.fast).op(OP.if, OP.void);
    e.i32(0).set(L.k);
    e.op(OP.else);
    {
      // the asymmetric interval: c = 2⁵² and e > 1 (the lower neighbour half as far)
      e.get(L.c).i64(1n << 52n).op(OP.i64Eq).get(L.be).i32(1).op(OP.i32GtS, OP.i32And).set(L.asym);
      e.get(L.be).i32(3).op(OP.i32Shl).get(L.asym).i32(2).op(OP.i32Shl, OP.i32Add).tee(L.tmp).mem(OP.i32Load16S, EXPT).set(L.k);
      e.get(L.tmp).mem(OP.i32Load8U, EXPT + 2).set(L.h);
      e.get(L.k).i32(-K_MIN).op(OP.i32Add).i32(4).op(OP.i32Shl).set(L.tmp);
      e.get(L.tmp).mem(OP.i64Load, GT).set(L.g1);
      e.get(L.tmp).mem(OP.i64Load32U, GT).set(L.g1l);
      e.get(L.tmp).mem(OP.i64Load32U, GT + 4).set(L.g1h);
      e.get(L.tmp).mem(OP.i64Load, GT + 8).set(L.g0);
      e.get(L.tmp).mem(OP.i64Load32U, GT + 8).set(L.g0l);
      e.get(L.tmp).mem(OP.i64Load32U, GT + 12).set(L.g0h);
      e.get(L.c).i64(1n).op(OP.i64And).set(L.odd);
      // P0 = g0·cp and P1 = g1·cp (128 bits each) for cp = 4c·2ʰ: vb = rop(g, cp)
      e.get(L.c).i64(2n).op(OP.i64Shl).get(L.h).op(OP.i64ExtendI32U, OP.i64Shl); split();
      mulhi(get('g0h'), get('g0l'), get('cph'), get('cpl')); e.set(L.p0h);
      e.get(L.g0).get(L.cp).op(OP.i64Mul).set(L.p0l);
      mulhi(get('g1h'), get('g1l'), get('cph'), get('cpl')); e.set(L.p1h);
      e.get(L.g1).get(L.cp).op(OP.i64Mul).set(L.p1l);
      rop(get('p0h'), get('p1l'), get('p1h')); e.set(L.vb);
      // the interval's ends: cp ± 2^sh (cbr·2ʰ = cp + 2ʰ⁺¹, cbl·2ʰ = cp − 2ʰ⁺¹ or − 2ʰ when
      // asymmetric), so their products are P0 ± g0·2^sh and P1 ± g1·2^sh, added in 128 bits
      e.get(L.h).i32(1).op(OP.i32Add, OP.i64ExtendI32U).set(L.sh);
      adjust(true); rop(get('x1'), get('y0'), get('y1')); e.set(L.vbr);
      e.get(L.sh).get(L.asym).op(OP.i64ExtendI32U, OP.i64Sub).set(L.sh);
      adjust(false); rop(get('x1'), get('y0'), get('y1')); e.set(L.vbl);
      e.get(L.vb).i64(2n).op(OP.i64ShrU).tee(L.s).set(L.f);
    }
    e.op(OP.end);
    e.get(L.f); split();
    mulhi(get('cph'), get('cpl'), k64(M8 >> 32n), k64(M8 & M32));
    e.i64(26n).op(OP.i64ShrU).tee(L.w).op(OP.i32WrapI64).set(L.hi9);
    e.get(L.f).get(L.w).i64(100000000n).op(OP.i64Mul, OP.i64Sub, OP.i32WrapI64).set(L.x8);
    e.get(L.fast).op(OP.i32Eqz, OP.if, OP.void);
    {
      // one digit fewer: sp10 = s − s mod 10 (x8 / 10 = (x8·3435973837) >> 35), tp10 = sp10 + 10, at
      // every length (no two-digit minimum)
      e.get(L.x8).op(OP.i64ExtendI32U).i64(3435973837n).op(OP.i64Mul).i64(35n).op(OP.i64ShrU, OP.i32WrapI64).i32(10).op(OP.i32Mul).set(L.tmp);
      e.get(L.s).get(L.x8).get(L.tmp).op(OP.i32Sub, OP.i64ExtendI32U, OP.i64Sub).set(L.w);
      // Schubfach's choice, without branches (its tests are data-dependent), as δ = f − s:
      // upin = vbl + out ≤ 4 sp10, wpin = 4 tp10 + out ≤ vbr (out: c odd, the ends excluded); when
      // exactly one holds, that one; else uin = vbl + out ≤ 4s, win = 4t + out ≤ vbr (t = s + 1): when
      // exactly one holds, that one; else the closer, ties to even (cmp = vb − 2(s + t))
      e.get(L.vbl).get(L.odd).op(OP.i64Add).tee(L.cp).get(L.w).i64(2n).op(OP.i64Shl, OP.i64LeU).set(L.up);
      e.get(L.w).i64(10n).op(OP.i64Add).i64(2n).op(OP.i64Shl).get(L.odd).op(OP.i64Add).get(L.vbr).op(OP.i64LeU).set(L.a);
      e.get(L.cp).get(L.s).i64(2n).op(OP.i64Shl, OP.i64LeU).set(L.b);
      // −last or 10 − last
      e.get(L.tmp).get(L.x8).op(OP.i32Sub).tee(L.tmp).get(L.tmp).i32(10).op(OP.i32Add).get(L.up).op(OP.select);
      // 1 − uin, or 0 when closer to s (cmp < 0, or cmp = 0 and s even), else 1
      e.i32(1).get(L.b).op(OP.i32Sub);
      e.get(L.vb).get(L.s).i64(2n).op(OP.i64Shl, OP.i64Sub).i64(2n).op(OP.i64Sub).tee(L.cmp).i64(0n).op(OP.i64LtS);
      e.get(L.cmp).op(OP.i64Eqz).get(L.s).i64(1n).op(OP.i64And, OP.i64Eqz, OP.i32And, OP.i32Or, OP.i32Eqz);
      e.get(L.b);
      e.get(L.s).i64(1n).op(OP.i64Add).i64(2n).op(OP.i64Shl).get(L.odd).op(OP.i64Add).get(L.vbr).op(OP.i64LeU); // win
      e.op(OP.i32Xor, OP.select);
      e.get(L.up).get(L.a).op(OP.i32Xor, OP.select).set(L.tmp);
      // x8 += δ (in [−9, 10]), carried into hi9 at 10⁸
      e.get(L.x8).get(L.tmp).op(OP.i32Add).tee(L.x8).i32(100000000).op(OP.i32GeU, OP.if, OP.void);
      e.get(L.x8).i32(100000000).op(OP.i32Sub).set(L.x8).get(L.hi9).i32(1).op(OP.i32Add).set(L.hi9);
      e.op(OP.end);
    }
    e.op(OP.end);
    // the 17 digits of f (< 10¹⁷) at SCR: the top digit of hi9 and its 8 others, then x8
    // top = hi9 / 10⁸ = (hi9·1441151881) >> 57 (exact below 5.9·10⁹)
    e.get(L.hi9).op(OP.i64ExtendI32U).i64(1441151881n).op(OP.i64Mul).i64(57n).op(OP.i64ShrU, OP.i32WrapI64).set(L.tmp);
    e.i32(0).get(L.tmp).i32(0x30).op(OP.i32Add).mem(OP.i32Store8, SCR);
    e.get(L.hi9).get(L.tmp).i32(100000000).op(OP.i32Mul, OP.i32Sub).set(L.hi9);
    eight('hi9', 'dm');
    eight('x8', 'dl');
    e.i32(0).get(L.dm).i64(Z8).op(OP.i64Or).mem(OP.i64Store, SCR + 1);
    e.i32(0).get(L.dl).i64(Z8).op(OP.i64Or).mem(OP.i64Store, SCR + 9);
    // leading zeros (none when top ≠ 0) and trailing zeros of the 17 digits, from the registers
    const bytes = (v: Local, count: number) => { e.get(L[v]).op(count, OP.i32WrapI64).i32(3).op(OP.i32ShrU); };
    e.i32(0);
    bytes('dm', OP.i64Ctz); e.i32(1).op(OP.i32Add);
    bytes('dl', OP.i64Ctz); e.i32(0).get(L.dm).op(OP.i64Eqz, OP.select, OP.i32Add);
    e.get(L.tmp).op(OP.select).set(L.lead);
    bytes('dl', OP.i64Clz);
    bytes('dm', OP.i64Clz); e.i32(0).get(L.dl).op(OP.i64Eqz, OP.select, OP.i32Add).set(L.trail);
    // kd significant digits at sd; the value is 0.d₁…d_kd × 10ⁿ
    e.i32(17).get(L.lead).op(OP.i32Sub).get(L.trail).op(OP.i32Sub).set(L.kd);
    e.get(L.k).i32(17).op(OP.i32Add).get(L.lead).op(OP.i32Sub).set(L.n);
    e.get(L.lead).i32(SCR).op(OP.i32Add).set(L.sd);
    // −6 < n ≤ 21, without branches: with np = max(n, 1) digits before the "." of the digit string
    // from src = sd − (np − n) (the scratch's zeros before and after the digits): np digits, ".", the
    // others; its length kd + 1 + np − n (0 < n < kd: the digits with a "."; n ≤ 0: "0.", −n zeros,
    // the digits), or n when kd ≤ n (the digits and n − kd zeros; the "." and after dropped)
    e.get(L.n).i32(-6).op(OP.i32GtS).get(L.n).i32(21).op(OP.i32LeS, OP.i32And, OP.if, OP.void);
    e.get(L.n).i32(1).get(L.n).i32(0).op(OP.i32GtS, OP.select).set(L.p);
    e.get(L.sd).get(L.n).op(OP.i32Add).get(L.p).op(OP.i32Sub).set(L.qp);
    copy24(get('qp'), get('dst'));
    e.get(L.dst).get(L.p).op(OP.i32Add).i32(0x2e).mem(OP.i32Store8, 0);
    copy24(() => { e.get(L.qp).get(L.p).op(OP.i32Add); }, () => { e.get(L.dst).get(L.p).op(OP.i32Add); }, 1);
    advance(() => { e.get(L.n).get(L.kd).i32(1).op(OP.i32Add).get(L.p).op(OP.i32Add).get(L.n).op(OP.i32Sub).get(L.kd).get(L.n).op(OP.i32LeS, OP.select); });
    e.op(OP.else);
    {
      // exponential: d₁, "." and the others when kd > 1, "e", the sign, |n − 1|
      copy24(get('sd'), get('dst'));
      e.get(L.kd).i32(1).op(OP.i32GtS, OP.if, OP.void);
      store8(get('dst'), 0x2e, 1);
      copy24(sum('sd', 1), sum('dst', 2));
      e.get(L.dst).get(L.kd).op(OP.i32Add).i32(1).op(OP.i32Add).set(L.dst);
      e.op(OP.else);
      advance(constant(1));
      e.op(OP.end);
      store8(get('dst'), 0x65);
      e.get(L.n).i32(1).op(OP.i32Sub).tee(L.exp).i32(0).op(OP.i32LtS, OP.if, OP.void);
      store8(get('dst'), 0x2d, 1);
      e.i32(0).get(L.exp).op(OP.i32Sub).set(L.exp);
      e.op(OP.else);
      store8(get('dst'), 0x2b, 1);
      e.op(OP.end);
      advance(constant(2));
      e.get(L.exp).i32(10).op(OP.i32LtS, OP.if, OP.void);
      e.get(L.dst).get(L.exp).i32(0x30).op(OP.i32Add).mem(OP.i32Store8, 0);
      advance(constant(1));
      e.op(OP.else);
      e.get(L.exp).i32(100).op(OP.i32LtS, OP.if, OP.void);
      e.get(L.dst).get(L.exp).i32(1).op(OP.i32Shl).mem(OP.i32Load16U, PAIRS).mem(OP.i32Store16, 0);
      advance(constant(2));
      e.op(OP.else);
      e.get(L.exp).i32(5243).op(OP.i32Mul).i32(19).op(OP.i32ShrU).set(L.tmp);
      e.get(L.dst).get(L.tmp).i32(0x30).op(OP.i32Add).mem(OP.i32Store8, 0);
      e.get(L.dst).get(L.exp).get(L.tmp).i32(100).op(OP.i32Mul, OP.i32Sub).i32(1).op(OP.i32Shl).mem(OP.i32Load16U, PAIRS).mem(OP.i32Store16, 1);
      advance(constant(3));
      e.op(OP.end, OP.end);
    }
    e.op(OP.end);
  }
  e.op(OP.end, OP.end);
}

/**
 * `line`: () → i32, the line's length. For i in 0..count: segment i copied (8 bytes at a time),
 * then number i printed; segment `count` last.
 */
function lineBody(segLens: number): Uint8Array {
  const e = new Code();
  e.i32(HDR).mem(OP.i32Load, 0).set(L.cnt);
  e.i32(HDR).mem(OP.i32Load, 4).set(L.src);
  e.i32(HDR).mem(OP.i32Load, 8).tee(L.dst).set(L.out0);
  e.i32(0).set(L.i);
  e.op(OP.loop, OP.void);
  {
    e.get(L.i).i32(2).op(OP.i32Shl).mem(OP.i32Load, segLens).tee(L.len).get(L.src).op(OP.i32Add).set(L.end);
    e.get(L.src).set(L.p).get(L.dst).set(L.qp);
    e.op(OP.block, OP.void, OP.loop, OP.void);
    e.get(L.p).get(L.end).op(OP.i32GeU, OP.brIf, 1);
    e.get(L.qp).get(L.p).mem(OP.i64Load, 0).mem(OP.i64Store, 0);
    e.get(L.p).i32(8).op(OP.i32Add).set(L.p).get(L.qp).i32(8).op(OP.i32Add).set(L.qp);
    e.op(OP.br, 0, OP.end, OP.end);
    e.get(L.end).set(L.src).get(L.dst).get(L.len).op(OP.i32Add).set(L.dst);
    e.get(L.i).get(L.cnt).op(OP.i32LtS, OP.if, OP.void);
    e.get(L.i).i32(3).op(OP.i32Shl).mem(OP.f64Load, NUMS).set(L.x);
    numberCode(e);
    e.get(L.i).i32(1).op(OP.i32Add).set(L.i);
    e.op(OP.br, 1, OP.end);
  }
  e.op(OP.end);
  e.get(L.dst).get(L.out0).op(OP.i32Sub);
  return e.finish(LOCALS);
}

/** `print`: () → i32, the number at XSLOT printed at POUT, its length */
function printBody(): Uint8Array {
  const e = new Code();
  e.i32(0).mem(OP.f64Load, XSLOT).set(L.x);
  e.i32(POUT).set(L.dst);
  numberCode(e);
  e.get(L.dst).i32(POUT).op(OP.i32Sub);
  return e.finish(LOCALS);
}

/** the memory below NUMS (tables and padding), computed once (exact, with BigInt) */
let fixed: Uint8Array | null = null;
function fixedPart(): Uint8Array {
  if (fixed === null) {
    const buf = new ArrayBuffer(NUMS);
    writeTables(buf);
    fixed = new Uint8Array(buf);
  }
  return fixed;
}

const PAGE = 65536;
const align8 = (n: number) => (n + 7) & ~7;

/**
 * A line of text: literal byte segments interleaved with numbers printed as String(x) prints them,
 * by generated WebAssembly (see the file's comment). One instance per writer; not reentrant.
 * @experimental
 */
export class ShortestPrinter {
  readonly capacity: number;
  private readonly memory: WebAssembly.Memory;
  private readonly lineFn: () => number;
  private readonly printFn: () => number;
  /** the segments' lengths (i32 at SEGLEN) and where the variable part begins */
  private readonly segLens: number;
  private readonly varStart: number;
  private numsView: Float64Array;
  private outView: Uint8Array;
  private u8: Uint8Array;
  private i32: Int32Array;
  private f64: Float64Array;
  /** each segment list given to setTemplate, packed: its bytes one after the other and their lengths */
  private readonly packed = new WeakMap<readonly Uint8Array[], { bytes: Uint8Array; lens: Int32Array }>();

  private constructor(capacity: number) {
    this.capacity = capacity;
    this.segLens = NUMS + 8 * capacity;
    this.varStart = align8(this.segLens + 4 * (capacity + 1));
    const pages = Math.ceil((this.varStart + 4 * SLACK) / PAGE);
    const bytes = assemble([lineBody(this.segLens), printBody()], pages);
    this.memory = new WebAssembly.Memory({ initial: pages });
    new Uint8Array(this.memory.buffer).set(fixedPart());
    const instance = new WebAssembly.Instance(new WebAssembly.Module(bytes), { e: { m: this.memory } });
    const ex = instance.exports as Record<string, () => number>;
    this.lineFn = ex.f0;
    this.printFn = ex.f1;
    const buf = this.memory.buffer;
    this.numsView = new Float64Array(buf, NUMS, capacity);
    this.u8 = new Uint8Array(buf);
    this.i32 = new Int32Array(buf);
    this.f64 = new Float64Array(buf);
    this.outView = this.u8.subarray(0, 0);
    this.setTemplate([new Uint8Array(0)]);
  }

  /** null when WebAssembly is not available (callers then use String(x)); capacity: numbers a line may have (default 1024) */
  static create(capacity = 1024): ShortestPrinter | null {
    if (!(capacity >= 0 && capacity <= 1 << 24 && capacity === Math.floor(capacity))) throw new RangeError(`ShortestPrinter.create: capacity ${capacity}`);
    if (typeof WebAssembly !== 'object' || typeof WebAssembly.Module !== 'function') return null;
    try {
      return new ShortestPrinter(capacity);
    } catch {
      return null;
    }
  }

  /**
   * The numbers of the next call to `line`, slots 0..count−1: a view into the module's memory of
   * `capacity` slots. The same object until a setTemplate call grows the memory, which re-creates it
   * (values kept): read it again after setTemplate. It changes nowhere else.
   */
  get nums(): Float64Array { return this.numsView; }

  /**
   * Sets the literal segments (UTF-8 bytes) of the lines that follow: segments.length = count + 1,
   * count ≤ capacity numbers a line; line = seg[0] num[0] seg[1] … num[count−1] seg[count]. Copies
   * them into the module's memory, growing it when needed (then `nums` and `out` are new views).
   */
  setTemplate(segments: readonly Uint8Array[]): void {
    const count = segments.length - 1;
    if (count < 0 || count > this.capacity) throw new RangeError(`ShortestPrinter.setTemplate: ${count} numbers a line, capacity ${this.capacity}`);
    // the segments packed once per list (a writer going back to a template it had copies two arrays)
    let packed = this.packed.get(segments);
    if (packed === undefined) {
      let total = 0;
      for (const s of segments) total += s.length;
      const bytes = new Uint8Array(total), lens = new Int32Array(count + 1);
      let at = 0;
      for (let i = 0; i <= count; i++) { bytes.set(segments[i], at); at += segments[i].length; lens[i] = segments[i].length; }
      packed = { bytes, lens };
      this.packed.set(segments, packed);
    }
    const total = packed.bytes.length;
    const segAt = this.varStart, outAt = align8(segAt + total + SLACK), outLen = total + PER_NUMBER * count;
    const need = outAt + outLen + SLACK;
    if (need > this.memory.buffer.byteLength) {
      this.memory.grow(Math.ceil((need - this.memory.buffer.byteLength) / PAGE));
      const buf = this.memory.buffer;
      this.numsView = new Float64Array(buf, NUMS, this.capacity);
      this.u8 = new Uint8Array(buf);
      this.i32 = new Int32Array(buf);
      this.f64 = new Float64Array(buf);
    }
    const i32 = this.i32;
    this.u8.set(packed.bytes, segAt);
    i32.set(packed.lens, this.segLens >> 2);
    i32[(HDR >> 2)] = count;
    i32[(HDR >> 2) + 1] = segAt;
    i32[(HDR >> 2) + 2] = outAt;
    if (this.outView.byteOffset !== outAt || this.outView.length !== outLen || this.outView.buffer !== this.memory.buffer) this.outView = new Uint8Array(this.memory.buffer, outAt, outLen);
  }

  /** Prints one line from `nums` with the template; returns its length in bytes, the bytes in `out`. Allocates nothing. */
  line(): number {
    return this.lineFn();
  }

  /**
   * The output area (a view, the worst case's length: the segments and 25 bytes a number): the last
   * `line` call's bytes are out.subarray(0, length). The same object until the next setTemplate.
   */
  get out(): Uint8Array { return this.outView; }

  /** One number as String(x) prints it ("null" for NaN and ±Infinity; for tests and small uses, not the fast path). */
  print(x: number): string {
    this.f64[XSLOT >> 3] = x;
    const n = this.printFn();
    const u8 = this.u8;
    let s = '';
    for (let i = 0; i < n; i++) s += String.fromCharCode(u8[POUT + i]);
    return s;
  }
}
