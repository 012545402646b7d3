/**
 * The fill as straight-line WebAssembly, generated for one system once its factorization runs
 * compiled code (FactorOptions.gather), in that code's memory: per body the structural terms of
 * −E r× (sys.skewTerms) into the source, and into the right-hand side buffer (NumericLU.rhsBuffer)
 * b(3a) = c_i, b(3f) = ν_i = v_i ×* I_i v_i (the model's inertias as constants), the zero rows of
 * τ (and of c_i, ν_i without q̇), and −y on the known inputs' rows. The JavaScript side
 * (system.ts, fillSourceCompiled) copies the kinematics and the inputs in whole into the source's
 * regions (sourceRegions) and writes the base bodies' ⁱX_0 a_0 and the measurement blocks. The
 * same IEEE operations in the same order as the JavaScript fill, so the same values bit for bit;
 * the flop counts are the JavaScript fill's (`mul`, `add`; with q̇ `mulWithVelocity`, …).
 */
import { assemble, Bytes } from '../sparse/compiled.ts';
import { sourceRegions, type SymbolicSystem } from './system.ts';

const OP = {
  end: 0x0b, localGet: 0x20, localSet: 0x21, i32Const: 0x41, f64Const: 0x44, f64Load: 0x2b, f64Store: 0x39,
  f64Neg: 0x9a, f64Add: 0xa0, f64Sub: 0xa1, f64Mul: 0xa2,
} as const;

/** bodies per generated function (~100 statements each; small functions are optimized by the engine sooner) */
const BODIES_PER_FUNCTION = 16;

/** The generated fill kernels of one system, bound to one WebAssembly memory. */
export class FillCode {
  /** the memory the code works in (the factorization's) */
  readonly memory: WebAssembly.Memory;
  /** the source's regions (sourceRegions) */
  readonly regions: ReturnType<typeof sourceRegions>;
  /** the bodies hanging from the fixed world (their b(3a) = ⁱX_0 a_0 is the JavaScript side's) */
  readonly roots: Int32Array;
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
   */
  constructor(sys: SymbolicSystem, memory: WebAssembly.Memory, srcBase: number, bBase: number) {
    const model = sys.model, nb = model.nb, st = sys.skewTerms;
    const R = sourceRegions(sys);
    this.regions = R;
    this.roots = Int32Array.from(Array.from(model.parents).flatMap((p, i) => (p < 0 ? [i] : [])));
    let b = new Bytes();
    const load = (slot: number) => { b.byte(OP.i32Const); b.byte(0); b.byte(OP.f64Load); b.byte(3); b.u32(slot * 8); };
    const store = (slot: number) => { b.byte(OP.f64Store); b.byte(3); b.u32(slot * 8); };
    const addr = () => { b.byte(OP.i32Const); b.byte(0); };
    const get = (i: number) => { b.byte(OP.localGet); b.byte(i); };
    const set = (i: number) => { b.byte(OP.localSet); b.byte(i); };
    const fconst = (x: number) => { b.byte(OP.f64Const); b.f64(x); };
    const op = (o: number) => b.byte(o);
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
    let skewMul = 0, skewAdd = 0;
    const skewOf = (i: number, count: boolean) => {
      if (model.parents[i] < 0) return;
      const eo = srcBase + R.x + 12 * i, ro = eo + 9, so = srcBase + R.skew + 9 * i;
      load(ro); set(3); load(ro + 1); set(4); load(ro + 2); set(5);
      for (let k = 0; k < 3; k++) {
        load(eo + 3 * k); set(0); load(eo + 3 * k + 1); set(1); load(eo + 3 * k + 2); set(2);
        // entry j of row k: code 1 −(e_a r_b), 2 e_c r_d, 3 e_c r_d − e_a r_b (system.ts fillValues)
        const terms: [number, number, number, number][] = [[1, 5, 2, 4], [2, 3, 0, 5], [0, 4, 1, 3]];
        for (let j = 0; j < 3; j++) {
          const c = st[9 * i + 3 * k + j], [ea, rb, ec, rd] = terms[j];
          if (count) { skewMul += c === 0 ? 0 : c === 3 ? 2 : 1; skewAdd += c === 3 ? 1 : 0; }
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
          skewOf(i, !withV);
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
    const base = 24 * this.roots.length, baseAdd = 18 * this.roots.length;
    this.mul = skewMul + base;
    this.add = skewAdd + baseAdd;
    this.mulWithVelocity = this.mul + 42 * nb;
    this.addWithVelocity = this.add + 30 * nb;
    const pages = memory.buffer.byteLength / 65536;
    const bytes = assemble([{ bodies: skewOnly.out, type: 1 }, { bodies: both.out, type: 1 }], pages);
    const instance = new WebAssembly.Instance(new WebAssembly.Module(bytes), { e: { m: memory } });
    const ex = instance.exports as Record<string, () => void>;
    this.memory = memory;
    this.skewFns = skewOnly.out.map((_, k) => ex[`f${k}`]);
    this.bothFns = both.out.map((_, k) => ex[`f${skewOnly.out.length + k}`]);
  }

  /** −E r× of every body into the source (from E and r there) and, `withVelocity`, ν_i into the right-hand side buffer (from v_i in the source's scratch) */
  run(withVelocity: boolean): void {
    const fns = withVelocity ? this.bothFns : this.skewFns;
    for (let k = 0; k < fns.length; k++) fns[k]();
  }
}
