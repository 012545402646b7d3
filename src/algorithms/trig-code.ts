/**
 * cos x and sin x in WebAssembly (which has no trigonometric instruction), the same values bit for
 * bit as the engine's Math.cos and Math.sin: fdlibm's algorithms (Sun Microsystems, 1993; the port
 * V8 runs for Math.sin and Math.cos), the argument reduced once for both. For |x| ≤ π/4 the
 * kernels directly; up to 3π/4 one subtraction of π/2 in two or three parts; up to TRIG_CODE_RANGE
 * (below fdlibm's 2²⁰·π/2 bound of its medium path) the reduction x − n·π/2 in up to three steps
 * of 33 bits of π/2 each; beyond, and for values that are not finite, the caller takes Math.cos and
 * Math.sin (`anglesIn` says so). Tested against Math.cos and Math.sin on millions of random angles
 * of every magnitude, bit for bit.
 *
 * The code is one function: for i < n, cos and sin of the angle at slot QA + i into slots CS + 2i,
 * CS + 2i + 1. Generated modules add it beside their code (`sinCosBody`: the sparse solvers'
 * kinematics, kinematics-code.ts, and the recursive algorithms' kernels through writeTransforms,
 * spatial-code.ts); JavaScript writes the angles (`anglesIn`) and calls it before their code. Measured (µs, best of 31 alternating rounds in one process, the machine slow that
 * day): 32 angles 0.60–0.66 by Math.cos and Math.sin, 0.45–0.46 by this code (one reduction for
 * both, no call per value); the inverse dynamics by the sparse LU per call, Math → this code: TALOS
 * floating 3.91 → 3.66, fixed 3.54 → 3.40, kinova floating 0.780 → 0.747, fixed 0.607 → 0.597,
 * panda floating 0.957 → 0.950, a 24-link chain 2.37 → 2.27; the generated recursive algorithms
 * (the same scheme, 21 rounds; RNEA, ABA, CRBA, M⁻¹, ∂RNEA): TALOS floating 2.45 → 2.28, 5.30 →
 * 5.10, 2.07 → 1.86, 5.60 → 5.18, 10.7 → 10.4; kinova 0.297 → 0.244, 0.648 → 0.610, 0.226 → 0.193,
 * 0.599 → 0.565, 1.42 → 1.31; a 24-link chain 1.20 → 0.83, 3.67 → 3.38, 2.00 → 1.73, 3.66 → 3.36,
 * 6.97 → 6.64.
 */
import type { Model } from '../model/model.ts';
import { Body, O } from '../sparse/loops.ts';
import { SimdBody } from '../sparse/wasm-simd.ts';

/** largest |x| whose cosine and sine the code takes (below 2²⁰·π/2, where fdlibm's medium reduction ends) */
export const TRIG_CODE_RANGE = 1e6;

const S1 = -1.66666666666666324348e-01, S2 = 8.33333333332248946124e-03, S3 = -1.98412698298579493134e-04;
const S4 = 2.75573137070700676789e-06, S5 = -2.50507602534068634195e-08, S6 = 1.58969099521155010221e-10;
const C1 = 4.16666666666666019037e-02, C2 = -1.38888888888741095749e-03, C3 = 2.48015872894767294178e-05;
const C4 = -2.75573143513906633035e-07, C5 = 2.08757232129817482790e-09, C6 = -1.13596475577881948265e-11;
const INVPIO2 = 6.36619772367581382433e-01;
const PIO2_1 = 1.57079632673412561417e+00, PIO2_1T = 6.07710050650619224932e-11;
const PIO2_2 = 6.07710050630396597660e-11, PIO2_2T = 2.02226624879595063154e-21;
const PIO2_3 = 2.02226624871116645580e-21, PIO2_3T = 8.47842766036889956997e-32;

/** the loop kernels' opcodes (loops.ts) and the few more this code needs */
const OP = {
  ...O, else: 0x05, f64: 0x7c, i32Ne: 0x47, i32ShrS: 0x75,
  i32WrapI64: 0xa7, i32TruncF64S: 0xaa, i64ExtendI32U: 0xad, f64ConvertI32S: 0xb7,
  i64ReinterpretF64: 0xbd, f64ReinterpretI64: 0xbf, i64Const: 0x42, i64ShrU: 0x88, i64Shl: 0x86,
} as const;

/** locals: i32 i, hx, ix, n, iy, j, k; f64 x, y0, y1, z, v, r, w, t, fn, s, c */
const I = 0, HX = 1, IX = 2, N = 3, IY = 4, J = 5, K = 6;
const X = 7, Y0 = 8, Y1 = 9, Z = 10, V = 11, R = 12, W = 13, T = 14, FN = 15, S = 16, C = 17;

/** a function body (no parameters, no result) computing cos and sin of the angles at slots QA..QA+n into CS (see the file's comment) */
export function sinCosBody(QA: number, CS: number, n: number): Uint8Array {
  const e = new SimdBody();
  const f = (x: number) => e.f64(x);
  /** the high word of the f64 on the stack */
  const high = () => { e.op(OP.i64ReinterpretF64, OP.i64Const, 32, OP.i64ShrU, OP.i32WrapI64); };
  /** ((high word of local y) >> 20) & 0x7ff */
  const expOf = (y: number) => { e.get(y); high(); e.i32(20).op(OP.i32ShrS).i32(0x7ff).op(OP.i32And); };
  if (n > 0) {
    e.i32(0).set(I);
    e.op(OP.loop, OP.void);
    // x = QA[i]; hx, ix
    e.get(I).i32(3).op(OP.i32Shl).ldf(8 * QA).set(X);
    e.get(X); high(); e.tee(HX).i32(0x7fffffff).op(OP.i32And).set(IX);
    e.get(IX).i32(0x3fe921fb).op(OP.i32LeS);
    e.op(OP.if, OP.void);
    // |x| ≤ π/4: no reduction
    e.get(X).set(Y0).f64(0).set(Y1).i32(0).set(N).i32(0).set(K); // K: whether reduced (the kernel sin's iy)
    e.op(OP.else);
    reduce(e, f, expOf);
    e.i32(1).set(K);
    e.op(OP.end);
    // the kernels on (y0, y1): iy = |y0|'s high word
    e.get(Y0); high(); e.i32(0x7fffffff).op(OP.i32And).set(IY);
    e.get(Y0).get(Y0).op(OP.f64Mul).set(Z);
    // s = __kernel_sin(y0, y1, K)
    e.get(IY).i32(0x3e400000).op(OP.i32LtS);
    e.op(OP.if, OP.f64);
    e.get(Y0);
    e.op(OP.else);
    e.get(Z).get(Y0).op(OP.f64Mul).set(V);
    // r = S2 + z (S3 + z (S4 + z (S5 + z S6)))
    f(S2); e.get(Z); f(S3); e.get(Z); f(S4); e.get(Z); f(S5); e.get(Z); f(S6);
    e.op(OP.f64Mul, OP.f64Add, OP.f64Mul, OP.f64Add, OP.f64Mul, OP.f64Add, OP.f64Mul, OP.f64Add).set(R);
    e.get(K).op(OP.i32Eqz);
    e.op(OP.if, OP.f64);
    // x + v (S1 + z r)
    e.get(Y0).get(V); f(S1); e.get(Z).get(R).op(OP.f64Mul, OP.f64Add, OP.f64Mul, OP.f64Add);
    e.op(OP.else);
    // x − ((z (0.5 y − v r) − y) − v S1)
    e.get(Y0).get(Z); f(0.5); e.get(Y1).op(OP.f64Mul).get(V).get(R).op(OP.f64Mul, OP.f64Sub, OP.f64Mul).get(Y1).op(OP.f64Sub).get(V); f(S1);
    e.op(OP.f64Mul, OP.f64Sub, OP.f64Sub);
    e.op(OP.end);
    e.op(OP.end);
    e.set(S);
    // c = __kernel_cos(y0, y1)
    e.get(IY).i32(0x3e400000).op(OP.i32LtS);
    e.op(OP.if, OP.f64);
    f(1);
    e.op(OP.else);
    // r = z (C1 + z (C2 + z (C3 + z (C4 + z (C5 + z C6)))))
    e.get(Z); f(C1); e.get(Z); f(C2); e.get(Z); f(C3); e.get(Z); f(C4); e.get(Z); f(C5); e.get(Z); f(C6);
    e.op(OP.f64Mul, OP.f64Add, OP.f64Mul, OP.f64Add, OP.f64Mul, OP.f64Add, OP.f64Mul, OP.f64Add, OP.f64Mul, OP.f64Add, OP.f64Mul).set(R);
    // W = z r − y0 y1
    e.get(Z).get(R).op(OP.f64Mul).get(Y0).get(Y1).op(OP.f64Mul, OP.f64Sub).set(W);
    e.get(IY).i32(0x3fd33333).op(OP.i32LtS);
    e.op(OP.if, OP.f64);
    // 1 − (0.5 z − W)
    f(1); f(0.5); e.get(Z).op(OP.f64Mul).get(W).op(OP.f64Sub, OP.f64Sub);
    e.op(OP.else);
    // qx = 0.28125 above 0.78125, else the value of high word iy − 2²¹ (low word 0); (1 − qx) − ((0.5 z − qx) − W)
    e.get(IY).i32(0x3fe90000).op(OP.i32GtS);
    e.op(OP.if, OP.f64);
    f(0.28125);
    e.op(OP.else);
    e.get(IY).i32(0x00200000).op(OP.i32Sub, OP.i64ExtendI32U, OP.i64Const, 32, OP.i64Shl, OP.f64ReinterpretI64);
    e.op(OP.end);
    e.set(T);
    f(1); e.get(T).op(OP.f64Sub); f(0.5); e.get(Z).op(OP.f64Mul).get(T).op(OP.f64Sub).get(W).op(OP.f64Sub, OP.f64Sub);
    e.op(OP.end);
    e.op(OP.end);
    e.set(C);
    // the quadrant n & 3: (cos, sin) = (c, s), (−s, c), (−c, −s), (s, −c)
    e.get(I).i32(4).op(OP.i32Shl).set(J); // byte offset of CS + 2i: 16 i
    e.get(N).i32(3).op(OP.i32And).set(N);
    const put = (cosOf: () => void, sinOf: () => void) => { e.get(J); cosOf(); e.stf(8 * CS); e.get(J); sinOf(); e.stf(8 * CS + 8); };
    const pos = (l: number) => () => { e.get(l); }, neg = (l: number) => () => { e.get(l).op(OP.f64Neg); };
    e.get(N).op(OP.i32Eqz, OP.if, OP.void); put(pos(C), pos(S));
    e.op(OP.else); e.get(N).i32(1).op(OP.i32Eq, OP.if, OP.void); put(neg(S), pos(C));
    e.op(OP.else); e.get(N).i32(2).op(OP.i32Eq, OP.if, OP.void); put(neg(C), neg(S));
    e.op(OP.else); put(pos(S), neg(C));
    e.op(OP.end, OP.end, OP.end);
    e.get(I).i32(1).op(OP.i32Add).tee(I).i32(n).op(OP.i32LtS, OP.brIf, 0);
    e.op(OP.end);
  }
  return e.finishWith([[7, 0x7f], [11, 0x7c]]);
}

/** __ieee754_rem_pio2 for π/4 < |x| ≤ TRIG_CODE_RANGE: n into N, x − n π/2 as y0 + y1 */
function reduce(e: Body, f: (x: number) => void, expOf: (y: number) => void): void {
  e.get(IX).i32(0x4002d97c).op(OP.i32LtS);
  e.op(OP.if, OP.void);
  // |x| < 3π/4: n = ±1
  const near = (sub: boolean) => {
    const add = sub ? OP.f64Sub : OP.f64Add;
    e.get(X); f(PIO2_1); e.op(add).set(Z);
    e.get(IX).i32(0x3ff921fb).op(OP.i32Ne);
    e.op(OP.if, OP.void);
    e.get(Z); f(PIO2_1T); e.op(add).set(Y0);
    e.get(Z).get(Y0).op(OP.f64Sub); f(PIO2_1T); e.op(add).set(Y1);
    e.op(OP.else);
    e.get(Z); f(PIO2_2); e.op(add).set(Z);
    e.get(Z); f(PIO2_2T); e.op(add).set(Y0);
    e.get(Z).get(Y0).op(OP.f64Sub); f(PIO2_2T); e.op(add).set(Y1);
    e.op(OP.end);
    e.i32(sub ? 1 : -1).set(N);
  };
  e.get(HX).i32(0).op(OP.i32GtS);
  e.op(OP.if, OP.void);
  near(true);
  e.op(OP.else);
  near(false);
  e.op(OP.end);
  e.op(OP.else);
  // medium: t = |x|, n = (int)(t 2/π + 1/2), r = t − n pio2_1, w = n pio2_1t, then more bits of π/2 while y0 lost them
  e.get(X).op(OP.f64Abs).set(T);
  e.get(T); f(INVPIO2); e.op(OP.f64Mul); f(0.5); e.op(OP.f64Add, OP.i32TruncF64S).tee(N).op(OP.f64ConvertI32S).set(FN);
  e.get(T).get(FN); f(PIO2_1); e.op(OP.f64Mul, OP.f64Sub).set(R);
  e.get(FN); f(PIO2_1T); e.op(OP.f64Mul).set(W);
  e.get(IX).i32(20).op(OP.i32ShrS).set(J);
  e.get(R).get(W).op(OP.f64Sub).set(Y0);
  const step = (p: number, pt: number) => {
    // t = r; w = fn p; r = t − w; w = fn pt − ((t − r) − w); y0 = r − w
    e.get(R).set(T);
    e.get(FN); f(p); e.op(OP.f64Mul).set(W);
    e.get(T).get(W).op(OP.f64Sub).set(R);
    e.get(FN); f(pt); e.op(OP.f64Mul).get(T).get(R).op(OP.f64Sub).get(W).op(OP.f64Sub, OP.f64Sub).set(W);
    e.get(R).get(W).op(OP.f64Sub).set(Y0);
  };
  e.get(J); expOf(Y0); e.op(OP.i32Sub).i32(16).op(OP.i32GtS);
  e.op(OP.if, OP.void);
  step(PIO2_2, PIO2_2T);
  e.get(J); expOf(Y0); e.op(OP.i32Sub).i32(49).op(OP.i32GtS);
  e.op(OP.if, OP.void);
  step(PIO2_3, PIO2_3T);
  e.op(OP.end);
  e.op(OP.end);
  e.get(R).get(Y0).op(OP.f64Sub).get(W).op(OP.f64Sub).set(Y1);
  e.get(HX).i32(0).op(OP.i32LtS);
  e.op(OP.if, OP.void);
  e.get(Y0).op(OP.f64Neg).set(Y0).get(Y1).op(OP.f64Neg).set(Y1).i32(0).get(N).op(OP.i32Sub).set(N);
  e.op(OP.end);
  e.op(OP.end);
}

/** A generated module's cosines and sines: its angles' first slot, its function, the revolute joints about a frame axis (body, q index). */
export interface ModuleTrig { readonly QA: number; readonly run: () => void; readonly body: Int32Array; readonly qi: Int32Array }

/** The ModuleTrig of a module whose function `run` is sinCosBody(QA, CS, nb) (kinds: spatial-code.ts's kindsOf) */
export function moduleTrig(model: Model, kinds: readonly { t: string }[], QA: number, run: () => void): ModuleTrig {
  const axis = kinds.flatMap((k, i) => (k.t === 'axis' ? [i] : []));
  return { QA, run, body: Int32Array.from(axis), qi: Int32Array.from(axis, (i) => model.iq[i]) };
}

/** cos q and sin q of the module's joints into its slots CS + 2 body: by its code, or by Math.cos and Math.sin for an angle beyond its range */
export function cosSinInto(mem: Float64Array, CS: number, t: ModuleTrig, q: ArrayLike<number>): void {
  const body = t.body, qi = t.qi;
  if (body.length === 0) return;
  if (anglesIn(mem, t.QA, body, qi, q)) { t.run(); return; }
  for (let k = 0; k < body.length; k++) {
    const x = q[qi[k]], s = CS + 2 * body[k];
    mem[s] = Math.cos(x); mem[s + 1] = Math.sin(x);
  }
}

/**
 * The angles into the code's slots: mem[QA + body[k]] = q[qi[k]]. Returns false when one is beyond
 * TRIG_CODE_RANGE or not finite: the caller then takes Math.cos and Math.sin for all.
 */
export function anglesIn(mem: Float64Array, QA: number, body: Int32Array, qi: Int32Array, q: ArrayLike<number>): boolean {
  let ok = true;
  for (let k = 0; k < body.length; k++) {
    const x = q[qi[k]];
    mem[QA + body[k]] = x;
    if (!(x <= TRIG_CODE_RANGE && x >= -TRIG_CODE_RANGE)) ok = false;
  }
  return ok;
}
