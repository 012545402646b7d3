/**
 * The fill as WebAssembly (straight-line, or for large systems a loop over the bodies), generated
 * for one system once its factorization runs compiled code (FactorOptions.gather), in that code's
 * memory: per body the structural terms of
 * −E r× (sys.skewTerms) into the source, and into the right-hand side buffer (NumericLU.rhsBuffer)
 * b(3a) = c_i, b(3f) = ν_i = v_i ×* I_i v_i (the model's inertias as constants), the zero rows of
 * τ (and of c_i, ν_i without q̇), and −y on the known inputs' rows. The JavaScript side
 * (system.ts, fillSourceCompiled) copies the kinematics and the inputs in whole into the source's
 * regions (sourceRegions) and writes the measurement blocks; the code also writes b(3a) = ⁱX_0 a_0 of
 * the bodies hanging from the fixed world (a_0 as constants). The
 * same IEEE operations in the same order as the JavaScript fill, so the same values bit for bit;
 * the flop counts are the JavaScript fill's (`mul`, `add`; with q̇ `mulWithVelocity`, …).
 */
import { assemble, Bytes } from '../sparse/compiled.ts';
import { Body, O } from '../sparse/loops.ts';
import { sourceRegions, type GeneratedFill, type SymbolicSystem } from './system.ts';

const OP = {
  end: 0x0b, localGet: 0x20, localSet: 0x21, i32Const: 0x41, f64Const: 0x44, f64Load: 0x2b, f64Store: 0x39,
  f64Neg: 0x9a, f64Add: 0xa0, f64Sub: 0xa1, f64Mul: 0xa2,
} as const;

/** bodies per generated function (~100 statements each; small functions are optimized by the engine sooner) */
const BODIES_PER_FUNCTION = 16;

/** The generated fill kernels of one system, bound to one WebAssembly memory. */
export class FillCode implements GeneratedFill {
  /** the memory the code works in (the factorization's) */
  readonly memory: WebAssembly.Memory;
  /** the source's regions (sourceRegions) */
  readonly regions: ReturnType<typeof sourceRegions>;
  /** flops of the fill this code stands for, without and with q̇ (the kinematics' and the blocks' apart) */
  readonly mul: number;
  readonly add: number;
  readonly mulWithVelocity: number;
  readonly addWithVelocity: number;
  private readonly skewFns: (() => void)[];
  private readonly bothFns: (() => void)[];

  /**
   * @param srcBase slot (f64 index) of the source vector in the memory
   * @param bBase slot of the right-hand side buffer (b, unpermuted)
   * @param a0 the base's spatial acceleration a_0 (−gravity: KinematicsWorkspace.a0), folded into the code
   * @param form the code's form, kept: 'straight': one statement per operation (BODIES_PER_FUNCTION bodies a function);
   *   'loops': a loop over the bodies reading their rows, inertias and term codes from tables in
   *   the source (sourceRegions), for large systems, whose straight-line code the engine takes long
   *   to optimize
   */
  constructor(sys: SymbolicSystem, memory: WebAssembly.Memory, srcBase: number, bBase: number, a0: Float64Array, readonly form: 'straight' | 'loops' = 'straight') {
    const model = sys.model, nb = model.nb, st = sys.skewTerms;
    const R = sourceRegions(sys);
    this.regions = R;
    // the bodies hanging from the fixed world, whose b(3a) = ⁱX_0 a_0 the code writes (rootRows)
    const roots = model.parents.filter((p) => p < 0).length;
    let skewMul = 0, skewAdd = 0;
    for (let i = 0; i < nb; i++) {
      if (model.parents[i] < 0) continue;
      for (let k = 0; k < 9; k++) { const c = st[9 * i + k]; skewMul += c === 0 ? 0 : c === 3 ? 2 : 1; skewAdd += c === 3 ? 1 : 0; }
    }
    this.mul = skewMul + 24 * roots;
    this.add = skewAdd + 18 * roots;
    this.mulWithVelocity = this.mul + 42 * nb;
    this.addWithVelocity = this.add + 30 * nb;
    this.memory = memory;
    if (form === 'loops') {
      const [without, withV] = fillLoops(sys, memory, srcBase, bBase, a0);
      this.skewFns = [without];
      this.bothFns = [withV];
      return;
    }
    let b = new Bytes();
    const load = (slot: number) => { b.byte(OP.i32Const); b.byte(0); b.byte(OP.f64Load); b.byte(3); b.u32(slot * 8); };
    const store = (slot: number) => { b.byte(OP.f64Store); b.byte(3); b.u32(slot * 8); };
    const addr = () => { b.byte(OP.i32Const); b.byte(0); };
    const get = (i: number) => { b.byte(OP.localGet); b.byte(i); };
    const set = (i: number) => { b.byte(OP.localSet); b.byte(i); };
    const fconst = (x: number) => { b.byte(OP.f64Const); b.f64(x); };
    const op = (o: number) => b.byte(o);
    const emit: Emit = { addr, load, store, get, set, fconst, op };
    const bodies = (nlocals: number) => {
      const out: Uint8Array[] = [];
      return {
        out,
        close: () => {
          const body = new Bytes();
          body.byte(1); body.u32(nlocals); body.byte(0x7c);
          b.byte(OP.end);
          body.bytes(b.view());
          out.push(body.view().slice());
          b = new Bytes();
        },
      };
    };
    // ---- −E r×: locals 0–2 e0..e2 (row k of E), 3–5 r0..r2
    const skewOf = (i: number) => {
      if (model.parents[i] < 0) return;
      const eo = srcBase + R.x + 12 * i, ro = eo + 9, so = srcBase + R.skew + 9 * i;
      load(ro); set(3); load(ro + 1); set(4); load(ro + 2); set(5);
      for (let k = 0; k < 3; k++) {
        load(eo + 3 * k); set(0); load(eo + 3 * k + 1); set(1); load(eo + 3 * k + 2); set(2);
        // entry j of row k: code 1 −(e_a r_b), 2 e_c r_d, 3 e_c r_d − e_a r_b (system.ts fillValues)
        const terms: [number, number, number, number][] = [[1, 5, 2, 4], [2, 3, 0, 5], [0, 4, 1, 3]];
        for (let j = 0; j < 3; j++) {
          const c = st[9 * i + 3 * k + j], [ea, rb, ec, rd] = terms[j];
          addr();
          if (c === 0) fconst(0);
          else if (c === 1) { get(ea); get(rb); op(OP.f64Mul); op(OP.f64Neg); }
          else if (c === 2) { get(ec); get(rd); op(OP.f64Mul); }
          else { get(ec); get(rd); op(OP.f64Mul); get(ea); get(rb); op(OP.f64Mul); op(OP.f64Sub); }
          store(so + 3 * k + j);
        }
      }
    };
    // ---- ν_i = v ×* (I v): locals 0–2 w, 3–5 u, 6–8 n, 9–11 f (system.ts fillValues, same order)
    const W = 0, U = 3, N = 6, F = 9;
    const nuOf = (i: number) => {
      const I = model.I[i], vo = srcBase + R.v + 6 * i, rF = bBase + sys.rowF[i];
      const m = I[0], hx = I[1], hy = I[2], hz = I[3];
      for (let k = 0; k < 3; k++) { load(vo + k); set(W + k); load(vo + 3 + k); set(U + k); }
      const mulc = (x: number, l: number) => { fconst(x); get(l); op(OP.f64Mul); };
      const mulll = (l1: number, l2: number) => { get(l1); get(l2); op(OP.f64Mul); };
      // n0 = I4 w0 + I5 w1 + I6 w2 + (hy u2 − hz u1), n1, n2 likewise
      const nrow = (a: number, bb: number, c: number, p1: number, u1: number, p2: number, u2: number, out: number) => {
        mulc(a, W); mulc(bb, W + 1); op(OP.f64Add); mulc(c, W + 2); op(OP.f64Add);
        mulc(p1, u1); mulc(p2, u2); op(OP.f64Sub); op(OP.f64Add); set(out);
      };
      nrow(I[4], I[5], I[6], hy, U + 2, hz, U + 1, N);
      nrow(I[5], I[7], I[8], hz, U, hx, U + 2, N + 1);
      nrow(I[6], I[8], I[9], hx, U + 1, hy, U, N + 2);
      // f0 = m u0 − (hy w2 − hz w1), f1, f2 likewise
      const frow = (uk: number, p1: number, w1: number, p2: number, w2: number, out: number) => {
        mulc(m, uk); mulc(p1, w1); mulc(p2, w2); op(OP.f64Sub); op(OP.f64Sub); set(out);
      };
      frow(U, hy, W + 2, hz, W + 1, F);
      frow(U + 1, hz, W, hx, W + 2, F + 1);
      frow(U + 2, hx, W + 1, hy, W, F + 2);
      // b = w × n + u × f (angular rows), w × f (linear rows)
      const cross = (x1: number, y2: number, x2: number, y1: number) => { mulll(x1, y2); mulll(x2, y1); op(OP.f64Sub); };
      addr(); cross(W + 1, N + 2, W + 2, N + 1); cross(U + 1, F + 2, U + 2, F + 1); op(OP.f64Add); store(rF);
      addr(); cross(W + 2, N, W, N + 2); cross(U + 2, F, U, F + 2); op(OP.f64Add); store(rF + 1);
      addr(); cross(W, N + 1, W + 1, N); cross(U, F + 1, U + 1, F); op(OP.f64Add); store(rF + 2);
      addr(); cross(W + 1, F + 2, W + 2, F + 1); store(rF + 3);
      addr(); cross(W + 2, F, W, F + 2); store(rF + 4);
      addr(); cross(W, F + 1, W + 1, F); store(rF + 5);
    };
    /** b's rows of body i besides ν_i: c_i (or 0) on c3a (but the base's), 0 on c3τ (and on c3f without q̇) */
    const rowsOf = (i: number, withV: boolean) => {
      const rA = bBase + sys.rowA[i], rT = bBase + sys.rowTau[i], rF = bBase + sys.rowF[i];
      if (model.parents[i] >= 0) {
        for (let k = 0; k < 6; k++) {
          addr();
          if (withV) load(srcBase + R.c + 6 * i + k); else fconst(0);
          store(rA + k);
        }
      }
      if (!withV) for (let k = 0; k < 6; k++) { addr(); fconst(0); store(rF + k); }
      for (let k = 0; k < model.nvi[i]; k++) { addr(); fconst(0); store(rT + k); }
    };
    // two sets of functions, BODIES_PER_FUNCTION bodies each, without and with q̇; then −y
    const nk = sys.knownRow.length, r0 = nk > 0 ? sys.knownRow[0] : 0;
    const skewOnly = bodies(6), both = bodies(12);
    for (const [set, withV] of [[skewOnly, false], [both, true]] as const) {
      for (let i0 = 0; i0 < nb; i0 += BODIES_PER_FUNCTION) {
        for (let i = i0; i < Math.min(nb, i0 + BODIES_PER_FUNCTION); i++) {
          if (model.parents[i] < 0) rootRows(emit, srcBase + R.x + 12 * i, bBase + sys.rowA[i], a0, 0);
          skewOf(i);
          if (withV) nuOf(i);
          rowsOf(i, withV);
        }
        set.close();
      }
      // known scalars: b = −y (their rows consecutive)
      for (let k0 = 0; k0 < nk; k0 += 16 * BODIES_PER_FUNCTION) {
        for (let k = k0; k < Math.min(nk, k0 + 16 * BODIES_PER_FUNCTION); k++) {
          addr(); load(srcBase + R.y + k); op(OP.f64Neg); store(bBase + r0 + k);
        }
        set.close();
      }
      if (set.out.length === 0) set.close();
    }
    const pages = memory.buffer.byteLength / 65536;
    const bytes = assemble([{ bodies: skewOnly.out, type: 1 }, { bodies: both.out, type: 1 }], pages);
    const instance = new WebAssembly.Instance(new WebAssembly.Module(bytes), { e: { m: memory } });
    const ex = instance.exports as Record<string, () => void>;
    this.skewFns = skewOnly.out.map((_, k) => ex[`f${k}`]);
    this.bothFns = both.out.map((_, k) => ex[`f${skewOnly.out.length + k}`]);
  }

  /** −E r× of every body into the source (from E and r there) and, `withVelocity`, ν_i into the right-hand side buffer (from v_i in the source's scratch) */
  run(withVelocity: boolean): void {
    const fns = withVelocity ? this.bothFns : this.skewFns;
    for (let k = 0; k < fns.length; k++) fns[k]();
  }
}

/**
 * The loop form of the fill (FillCode 'loops'), without and with q̇: the same operations in the
 * same order as the straight-line form, over the bodies, with each body's rows, term codes and
 * inertia read from the source's table and inertia regions (written here, once).
 */
function fillLoops(sys: SymbolicSystem, memory: WebAssembly.Memory, srcBase: number, bBase: number, a0: Float64Array): [() => void, () => void] {
  const model = sys.model, nb = model.nb, st = sys.skewTerms, R = sourceRegions(sys);
  const src = (slot: number) => 8 * (srcBase + slot), bAddr = (row: number) => 8 * (bBase + row);
  // per body 16 i32: addresses of b's rows c3a, c3f, c3τ, the number of τ rows, whether a base body, the 9 term codes of −E r×
  const tab = new Int32Array(memory.buffer, src(R.table), 16 * nb);
  const inertia = new Float64Array(memory.buffer, src(R.inertia), 10 * nb);
  for (let i = 0; i < nb; i++) {
    const t = 16 * i;
    tab[t] = bAddr(sys.rowA[i]); tab[t + 1] = bAddr(sys.rowF[i]); tab[t + 2] = bAddr(sys.rowTau[i]);
    tab[t + 3] = model.nvi[i]; tab[t + 4] = model.parents[i] < 0 ? 1 : 0;
    for (let k = 0; k < 9; k++) tab[t + 5 + k] = st[9 * i + k];
    inertia.set(model.I[i], 10 * i);
  }
  // locals: i32 0 body, 1 table address, 2 E address, 3 code, 4 row address, 5 k, 6 bound, 7 v address, 8 c address, 9 inertia address;
  // f64 20–22 e0..e2, 23–25 r0..r2, 26–28 w, 29–31 u, 32–34 n, 35–37 f, 38 m, 39–41 h
  const I_ = 0, T = 1, EA = 2, CODE = 3, ROW = 4, K = 5, HI = 6, VA = 7, CA = 8, IA = 9;
  const E0 = 20, R0 = 23, W = 26, U = 29, N = 32, F = 35, M = 38, H = 39;
  const make = (withV: boolean): Uint8Array => {
    const f = new Body();
    const IF_F64 = () => f.op(O.if, 0x7c);
    f.i32(0).set(K).i32(nb).set(HI);
    f.up(I_, K, HI, 1, () => {
      f.get(I_).i32(6).op(O.i32Shl).i32(src(R.table)).op(O.i32Add).set(T);
      f.get(I_).i32(96).op(0x6c /* i32.mul */).i32(src(R.x)).op(O.i32Add).set(EA);
      // not a base body: −E r× and c_i (or 0) on c3a
      f.get(T).ldi(16).op(O.i32Eqz, O.if, O.void);
      {
        f.get(EA).ldf(72).set(R0).get(EA).ldf(80).set(R0 + 1).get(EA).ldf(88).set(R0 + 2);
        const terms: [number, number, number, number][] = [[1, 2, 2, 1], [2, 0, 0, 2], [0, 1, 1, 0]];
        for (let k = 0; k < 3; k++) {
          f.get(EA).ldf(24 * k).set(E0).get(EA).ldf(24 * k + 8).set(E0 + 1).get(EA).ldf(24 * k + 16).set(E0 + 2);
          for (let j = 0; j < 3; j++) {
            const [ea, rb, ec, rd] = terms[j];
            // address of the output: skew + 9 i + 3 k + j
            f.get(I_).i32(72).op(0x6c).i32(src(R.skew) + 8 * (3 * k + j)).op(O.i32Add);
            f.get(T).ldi(20 + 4 * (3 * k + j)).set(CODE);
            // code 0: 0; 1: −(e_a r_b); 2: e_c r_d; 3: e_c r_d − e_a r_b (as the straight-line form)
            f.get(CODE).op(O.i32Eqz); IF_F64(); f.f64(0);
            f.op(0x05); f.get(CODE).i32(1).op(O.i32Eq); IF_F64(); f.get(E0 + ea).get(R0 + rb).op(O.f64Mul, O.f64Neg);
            f.op(0x05); f.get(CODE).i32(2).op(O.i32Eq); IF_F64(); f.get(E0 + ec).get(R0 + rd).op(O.f64Mul);
            f.op(0x05); f.get(E0 + ec).get(R0 + rd).op(O.f64Mul).get(E0 + ea).get(R0 + rb).op(O.f64Mul, O.f64Sub);
            f.op(O.end, O.end, O.end);
            f.stf(0);
          }
        }
        f.get(T).ldi(0).set(ROW);
        if (withV) f.get(I_).i32(48).op(0x6c).i32(src(R.c)).op(O.i32Add).set(CA);
        for (let k = 0; k < 6; k++) {
          f.get(ROW);
          if (withV) f.get(CA).ldf(8 * k); else f.f64(0);
          f.stf(8 * k);
        }
      }
      f.op(O.end);
      f.get(T).ldi(4).set(ROW);
      if (withV) {
        // ν_i = v ×* (I v), as the straight-line form
        f.get(I_).i32(48).op(0x6c).i32(src(R.v)).op(O.i32Add).set(VA);
        f.get(I_).i32(80).op(0x6c).i32(src(R.inertia)).op(O.i32Add).set(IA);
        for (let k = 0; k < 3; k++) { f.get(VA).ldf(8 * k).set(W + k); f.get(VA).ldf(24 + 8 * k).set(U + k); }
        f.get(IA).ldf(0).set(M);
        for (let k = 0; k < 3; k++) f.get(IA).ldf(8 + 8 * k).set(H + k);
        const In = (k: number) => f.get(IA).ldf(8 * k);
        const nrow = (a: number, bb: number, c: number, p1: number, u1: number, p2: number, u2: number, out: number) => {
          In(a); f.get(W).op(O.f64Mul); In(bb); f.get(W + 1).op(O.f64Mul, O.f64Add); In(c); f.get(W + 2).op(O.f64Mul, O.f64Add);
          f.get(p1).get(u1).op(O.f64Mul).get(p2).get(u2).op(O.f64Mul, O.f64Sub, O.f64Add).set(out);
        };
        const hx = H, hy = H + 1, hz = H + 2;
        nrow(4, 5, 6, hy, U + 2, hz, U + 1, N);
        nrow(5, 7, 8, hz, U, hx, U + 2, N + 1);
        nrow(6, 8, 9, hx, U + 1, hy, U, N + 2);
        const frow = (uk: number, p1: number, w1: number, p2: number, w2: number, out: number) => {
          f.get(M).get(uk).op(O.f64Mul).get(p1).get(w1).op(O.f64Mul).get(p2).get(w2).op(O.f64Mul, O.f64Sub, O.f64Sub).set(out);
        };
        frow(U, hy, W + 2, hz, W + 1, F);
        frow(U + 1, hz, W, hx, W + 2, F + 1);
        frow(U + 2, hx, W + 1, hy, W, F + 2);
        const cross = (x1: number, y2: number, x2: number, y1: number) => { f.get(x1).get(y2).op(O.f64Mul).get(x2).get(y1).op(O.f64Mul, O.f64Sub); };
        f.get(ROW); cross(W + 1, N + 2, W + 2, N + 1); cross(U + 1, F + 2, U + 2, F + 1); f.op(O.f64Add).stf(0);
        f.get(ROW); cross(W + 2, N, W, N + 2); cross(U + 2, F, U, F + 2); f.op(O.f64Add).stf(8);
        f.get(ROW); cross(W, N + 1, W + 1, N); cross(U, F + 1, U + 1, F); f.op(O.f64Add).stf(16);
        f.get(ROW); cross(W + 1, F + 2, W + 2, F + 1); f.stf(24);
        f.get(ROW); cross(W + 2, F, W, F + 2); f.stf(32);
        f.get(ROW); cross(W, F + 1, W + 1, F); f.stf(40);
      } else {
        for (let k = 0; k < 6; k++) f.get(ROW).f64(0).stf(8 * k);
      }
      // c3τ: zeros
      f.get(T).ldi(8).set(ROW).get(T).ldi(12).i32(3).op(O.i32Shl).get(ROW).op(O.i32Add).set(CODE);
      f.up(EA, ROW, CODE, 8, () => { f.get(EA).f64(0).stf(0); });
    });
    // the bodies hanging from the fixed world: b(3a) = ⁱX_0 a_0, straight-line (E0… as scratch)
    const emit: Emit = {
      addr: () => f.i32(0), load: (slot) => f.i32(0).ldf(8 * slot), store: (slot) => f.stf(8 * slot),
      get: (l) => f.get(l), set: (l) => f.set(l), fconst: (x) => f.f64(x), op: (o) => f.op(o),
    };
    for (let i = 0; i < nb; i++) if (model.parents[i] < 0) rootRows(emit, srcBase + R.x + 12 * i, bBase + sys.rowA[i], a0, E0);
    // known scalars: b = −y (their rows consecutive)
    const nk = sys.knownRow.length, r0 = nk > 0 ? sys.knownRow[0] : 0;
    f.i32(0).set(K).i32(8 * nk).set(HI);
    f.up(I_, K, HI, 8, () => { f.get(I_).get(I_).ldf(src(R.y)).op(O.f64Neg).stf(bAddr(r0)); });
    f.c.byte(O.end);
    const body = new Bytes();
    body.bytes([2, 20, 0x7f, 24, 0x7c]); // 20 i32 locals, 24 f64 locals
    body.bytes(f.c.view());
    return body.view().slice();
  };
  const bytes = assemble([{ bodies: [make(false), make(true)], type: 1 }], memory.buffer.byteLength / 65536);
  const ex = new WebAssembly.Instance(new WebAssembly.Module(bytes), { e: { m: memory } }).exports as Record<string, () => void>;
  return [ex.f0, ex.f1];
}

/** The emitters of the two forms (slots: f64 indices in the memory; `addr` pushes the base address of a store) */
interface Emit {
  addr(): void;
  load(slot: number): void;
  store(slot: number): void;
  get(local: number): void;
  set(local: number): void;
  fconst(x: number): void;
  op(o: number): void;
}

/**
 * b(3a) = ⁱX_0 a_0 of a body hanging from the fixed world into b's rows rA…rA+5, from its E and r at
 * slot xo (12 values), a_0 as constants: the same operations in the same order as the JavaScript fill
 * (system.ts, baseAcceleration: 24 multiplications, 18 additions); f64 locals l…l+5 as scratch
 */
function rootRows(e: Emit, xo: number, rA: number, a0: Float64Array, l: number): void {
  const w = [a0[0], a0[1], a0[2]];
  for (let k = 0; k < 3; k++) { e.load(xo + 9 + k); e.set(l + k); }
  const rw = (k: number, c: number) => { e.get(l + k); e.fconst(w[c]); e.op(OP.f64Mul); };
  // t = a0[3…5] − r × w
  const t = (k: number, a: number, b: number) => { e.fconst(a0[3 + k]); rw(a, b); rw(b, a); e.op(OP.f64Sub); e.op(OP.f64Sub); e.set(l + 3 + k); };
  t(0, 1, 2); t(1, 2, 0); t(2, 0, 1);
  // E w, then E t
  for (let half = 0; half < 2; half++) {
    for (let k = 0; k < 3; k++) {
      e.addr();
      for (let j = 0; j < 3; j++) {
        e.load(xo + 3 * k + j);
        if (half === 0) e.fconst(w[j]); else e.get(l + 3 + j);
        e.op(OP.f64Mul);
        if (j > 0) e.op(OP.f64Add);
      }
      e.store(rA + 3 * half + k);
    }
  }
}
