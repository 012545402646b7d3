/**
 * code = MinvSolveCode.create(model, ws): negMinvSolve (minv-solve.ts) as WebAssembly generated for
 * one model, its loops over the columns k two at a time with SIMD (f64x2). Per body the passes are
 * straight-line code with the body's buffers, rows and column ranges as constants; the values (the
 * factorization's D⁻¹ and U D⁻¹, the columns J, the right-hand side) are copied into the module's
 * memory at each call. Every lane performs the IEEE operations of the JavaScript loops in the same
 * order (products, then the sums left to right), so X and the counts are the same bit for bit
 * (tested). Made only where every joint has one degree of freedom (ni = 1: revolute and prismatic
 * joints, fixed base), the fused paths of minv-solve.ts; other models keep the JavaScript.
 *
 * Measured (best of 15 rounds, µs per call, same process; fixed-base chains of 6 / 24 / 96 links),
 * JavaScript → this code: M⁻¹ 1.00 / 6.64 / 84.6 → 0.42 / 2.15 / 33.3, one −M⁻¹ B 0.95 / 10.5 / 155 →
 * 0.31 / 3.15 / 48.1 (the copies of B and X in and out included); the recursive forward-dynamics
 * derivatives of the 24- and 96-link chains 74 → 55 and 707 → 432 µs. M⁻¹'s lower triangle is
 * stored by the code too, each row's transpose as the row is final (the JavaScript's loop over the
 * transposed entries read them column-wise: on the 96-link chain M⁻¹ went from 26.8–27.2 to
 * 21.9–22.9 µs, alternated runs).
 */
import { assemble, canCompile } from '../sparse/compiled.ts';
import { SimdBody, V } from '../sparse/wasm-simd.ts';
import type { Model } from '../model/model.ts';
import type { Flops } from '../spatial/flops.ts';

/**
 * What the generated passes read of the workspace (MinvSolveWorkspace, minv-solve.ts, has these):
 * the buffers p_i / a_i per body (shared buffers are the same array) and the end of each subtree's
 * columns. Declared here so that this file imports nothing of minv-solve.ts, which imports it.
 */
export interface MinvSolveLayout {
  readonly pa: readonly (Float64Array | null)[];
  readonly ivEnd: Int32Array;
}

/** What a call reads of the factorization (ArticulatedFactorWorld, minv-solve.ts): D_i⁻¹ and U_i D_i⁻¹ per body. */
export interface MinvSolveFactors {
  readonly Dinv: readonly Float64Array[];
  readonly UD: readonly Float64Array[];
}

/** largest nv for which the code is generated (its size grows with nv · nb) */
export const MINV_CODE_LIMIT = 400;

const I32_ADD = 0x6a, I32_MUL = 0x6c, I32_LT_S = 0x48, BLOCK = 0x02, LOOP = 0x03, END = 0x0b, BR_IF = 0x0d, VOID = 0x40;

/** locals: 0 k (i32, byte offset 8k); then f64 and v128 sets of the same names */
const K = 0;
const F = { d: 1, s: 2, j: 8, u: 14, p: 15, zero: 21 } as const;
const VL = { d: 22, s: 23, j: 29, u: 35, p: 36, zero: 42 } as const;
const NLOCALS_F64 = 21, NLOCALS_V128 = 21;

/** code emission for one function body */
class Emit extends SimdBody {
  /** local `f` (f64) = the f64 at address; and its splat in local `v` (v128) */
  coef(addr: number, f: number, v: number): this {
    this.i32(0).ldf(addr).set(f);
    this.get(f).v(V.splat).set(v);
    return this;
  }
  /**
   * body(vec) over the columns [k0, k1): pairs with SIMD (local K = 8k, the addresses offsets from
   * it), then the last column alone when their number is odd
   */
  columns(k0: number, k1: number, body: (vec: boolean) => void): void {
    const pairs = (k1 - k0) >> 1;
    if (pairs > 0) {
      this.i32(8 * k0).set(K);
      this.op(BLOCK, VOID, LOOP, VOID);
      body(true);
      this.get(K).i32(16).op(I32_ADD).tee(K).i32(8 * (k0 + 2 * pairs)).op(I32_LT_S, BR_IF, 0);
      this.op(END, END);
    }
    if ((k1 - k0) & 1) {
      this.i32(8 * (k1 - 1)).set(K);
      body(false);
    }
  }
  /** the local of value `name` (row r) in the f64 or v128 set */
  l(vec: boolean, name: 'd' | 's' | 'j' | 'u' | 'p' | 'zero', r = 0): number {
    return (vec ? VL : F)[name] + r;
  }
  /**
   * M⁻¹'s lower triangle: the value of X[k, c] (and X[k, c + 1]) in local `u` stored again at X[c, k]
   * (and X[c + 1, k]), whose address is K·nv + 8k from X (K = 8c)
   */
  mirror(vec: boolean, nv: number, xk: number, u: number): void {
    this.get(K).i32(nv).op(I32_MUL).get(u);
    if (vec) this.lane(0);
    this.stf(xk);
    if (vec) this.get(K).i32(nv).op(I32_MUL).get(u).lane(1).stf(xk + 8 * nv);
  }
  bodyBytes(): Uint8Array {
    return this.finishWith([[1, 0x7f], [NLOCALS_F64, 0x7c], [NLOCALS_V128, 0x7b]]);
  }
}

/** negMinvSolve for one model as generated WebAssembly (see the file's comment). */
export class MinvSolveCode {
  /** the module's X (nv×nv row-major), B (nv×nv), J (6 per column), and per body d, s_0..s_5 */
  private readonly X: Float64Array;
  private readonly B: Float64Array;
  private readonly J: Float64Array;
  private readonly C: Float64Array;
  private readonly runInv: () => void;
  private readonly runSolve: () => void;
  /** the counts of negMinvSolve's JavaScript for M⁻¹ and for a right-hand side (structural) */
  private readonly counts: { inv: { mul: number; add: number }; solve: { mul: number; add: number } };

  private constructor(readonly model: Model, bytes: Uint8Array<ArrayBuffer>, pages: number, o: { XB: number; BB: number; JB: number; CB: number }, counts: MinvSolveCode['counts']) {
    const nv = model.nv, nb = model.nb;
    const memory = new WebAssembly.Memory({ initial: pages });
    const instance = new WebAssembly.Instance(new WebAssembly.Module(bytes), { e: { m: memory } });
    const ex = instance.exports as Record<string, () => void>;
    this.runInv = ex.f0;
    this.runSolve = ex.f1;
    const buf = memory.buffer;
    this.X = new Float64Array(buf, o.XB, nv * nv);
    this.B = new Float64Array(buf, o.BB, nv * nv);
    this.J = new Float64Array(buf, o.JB, 6 * nv);
    this.C = new Float64Array(buf, o.CB, 7 * nb);
    this.counts = counts;
  }

  /** The code for this model and workspace, or null (a joint with ni ≠ 1, nv above MINV_CODE_LIMIT, no WebAssembly SIMD). */
  static create(model: Model, ws: MinvSolveLayout): MinvSolveCode | null {
    const nv = model.nv, nb = model.nb;
    if (!canCompile() || nv > MINV_CODE_LIMIT || nb === 0) return null;
    for (let i = 0; i < nb; i++) if (model.nvi[i] !== 1) return null;
    // memory: X, B, J, C, then the distinct buffers p_i / a_i (16-byte aligned)
    let off = 0;
    const f64s = (len: number) => { const o = off; off += 8 * len; off = (off + 15) & ~15; return o; };
    const XB = f64s(nv * nv), BB = f64s(nv * nv), JB = f64s(6 * nv), CB = f64s(7 * nb);
    const bufOf = new Map<Float64Array, number>();
    const P = new Int32Array(nb).fill(-1);
    for (let i = 0; i < nb; i++) {
      const b = ws.pa[i];
      if (b === null) continue;
      let o = bufOf.get(b);
      if (o === undefined) { o = f64s(6 * nv); bufOf.set(b, o); }
      P[i] = o;
    }
    const pages = Math.max(1, Math.ceil(off / 65536));
    const parents = model.parents, iv = model.iv;
    const counts = { inv: { mul: 0, add: 0 }, solve: { mul: 0, add: 0 } };
    const gen = (inv: boolean): Uint8Array => {
      const e = new Emit(), cnt = inv ? counts.inv : counts.solve;
      const zeroV = e.l(true, 'zero');
      // the buffers from 0
      for (const o of bufOf.values()) e.columns(0, 6 * nv, (vec) => { e.get(K).get(vec ? zeroV : e.l(false, 'zero')).st(vec, o); });
      // backward
      for (let i = nb - 1; i >= 0; i--) {
        const p = parents[i], k = iv[i], ro = XB + 8 * k * nv;
        const pi = P[i], pp = p >= 0 ? P[p] : -1, alias = pi >= 0 && pi === pp;
        const k0 = inv ? k : 0, k1 = inv ? ws.ivEnd[i] : nv, nk = k1 - k0;
        // X's row: −b, or (M⁻¹) the unit row from column k on
        if (inv) {
          e.columns(k, nv, (vec) => { e.get(K).get(e.l(vec, 'zero')).st(vec, ro); });
          e.i32(0).f64(1).st(false, ro + 8 * k);
        } else {
          e.columns(0, nv, (vec) => { e.get(K).get(K).ld(vec, BB - XB + ro).arith(vec, 'neg').st(vec, ro); });
        }
        const cOff = CB + 56 * i, jOff = JB + 48 * k;
        e.coef(cOff, F.d, VL.d);
        if (pp >= 0) for (let r = 0; r < 6; r++) e.coef(cOff + 8 * (r + 1), F.s + r, VL.s + r);
        if (pi >= 0) for (let r = 0; r < 6; r++) e.coef(jOff + 8 * r, F.j + r, VL.j + r);
        /** u = X − (j0 p0 + … + j5 p5) left on the stack, p_r in locals */
        const dot = (vec: boolean) => {
          for (let r = 0; r < 6; r++) e.get(K).ld(vec, pi + 8 * r * nv).set(e.l(vec, 'p', r));
          e.get(K).ld(vec, ro);
          for (let r = 0; r < 6; r++) {
            e.get(e.l(vec, 'j', r)).get(e.l(vec, 'p', r)).arith(vec, 'mul');
            if (r > 0) e.arith(vec, 'add');
          }
          e.arith(vec, 'sub');
        };
        if (pp >= 0) {
          e.columns(k0, k1, (vec) => {
            if (pi >= 0) dot(vec); else e.get(K).ld(vec, ro);
            e.set(e.l(vec, 'u'));
            e.get(K).get(e.l(vec, 'd')).get(e.l(vec, 'u')).arith(vec, 'mul').st(vec, ro);
            for (let r = 0; r < 6; r++) {
              e.get(K);
              if (pi >= 0 && alias) {
                // p_r + s_r u
                e.get(e.l(vec, 'p', r)).get(e.l(vec, 's', r)).get(e.l(vec, 'u')).arith(vec, 'mul').arith(vec, 'add');
              } else if (pi >= 0) {
                // pp_r + (p_r + s_r u)
                e.get(K).ld(vec, pp + 8 * r * nv);
                e.get(e.l(vec, 'p', r)).get(e.l(vec, 's', r)).get(e.l(vec, 'u')).arith(vec, 'mul').arith(vec, 'add').arith(vec, 'add');
              } else {
                // pp_r + s_r u
                e.get(K).ld(vec, pp + 8 * r * nv);
                e.get(e.l(vec, 's', r)).get(e.l(vec, 'u')).arith(vec, 'mul').arith(vec, 'add');
              }
              e.st(vec, pp + 8 * r * nv);
            }
          });
          if (pi >= 0) { cnt.mul += 13 * nk; cnt.add += (alias ? 12 : 18) * nk; } else { cnt.mul += 7 * nk; cnt.add += 6 * nk; }
        } else {
          // a root: X −= J·p_i, then X ·= d (the JavaScript's general path)
          if (pi >= 0) {
            e.columns(k0, k1, (vec) => { e.get(K); dot(vec); e.st(vec, ro); });
            cnt.mul += 6 * nk; cnt.add += 6 * nk;
          }
          e.columns(k0, k1, (vec) => { e.get(K).get(K).ld(vec, ro).get(e.l(vec, 'd')).arith(vec, 'mul').st(vec, ro); });
          cnt.mul += nk;
        }
      }
      // forward
      for (let i = 0; i < nb; i++) {
        const p = parents[i], k = iv[i], ro = XB + 8 * k * nv;
        const ai = P[i], ap = p >= 0 ? P[p] : -1;
        const k0 = inv ? k : 0, nk = nv - k0;
        const cOff = CB + 56 * i, jOff = JB + 48 * k;
        if (ap >= 0) {
          for (let r = 0; r < 6; r++) e.coef(cOff + 8 * (r + 1), F.s + r, VL.s + r);
          if (ai >= 0) for (let r = 0; r < 6; r++) e.coef(jOff + 8 * r, F.j + r, VL.j + r);
          e.columns(k0, nv, (vec) => {
            // x = X − (s0 b0 + … + s5 b5), b_r = a_λ's rows
            for (let r = 0; r < 6; r++) e.get(K).ld(vec, ap + 8 * r * nv).set(e.l(vec, 'p', r));
            e.get(K).ld(vec, ro);
            for (let r = 0; r < 6; r++) {
              e.get(e.l(vec, 's', r)).get(e.l(vec, 'p', r)).arith(vec, 'mul');
              if (r > 0) e.arith(vec, 'add');
            }
            e.arith(vec, 'sub').set(e.l(vec, 'u'));
            e.get(K).get(e.l(vec, 'u')).st(vec, ro);
            // M⁻¹: row k is final here, and its transpose is the column k below the diagonal
            if (inv) e.mirror(vec, nv, XB + 8 * k, e.l(vec, 'u'));
            // a_i = b + J x
            if (ai >= 0) for (let r = 0; r < 6; r++) e.get(K).get(e.l(vec, 'p', r)).get(e.l(vec, 'j', r)).get(e.l(vec, 'u')).arith(vec, 'mul').arith(vec, 'add').st(vec, ai + 8 * r * nv);
          });
          if (ai >= 0) { cnt.mul += 12 * nk; cnt.add += 12 * nk; } else { cnt.mul += 6 * nk; cnt.add += 6 * nk; }
        } else if (ai >= 0) {
          // a root's a_i = J x
          for (let r = 0; r < 6; r++) e.coef(jOff + 8 * r, F.j + r, VL.j + r);
          e.columns(k0, nv, (vec) => {
            e.get(K).ld(vec, ro).set(e.l(vec, 'u'));
            if (inv) e.mirror(vec, nv, XB + 8 * k, e.l(vec, 'u'));
            for (let r = 0; r < 6; r++) e.get(K).get(e.l(vec, 'j', r)).get(e.l(vec, 'u')).arith(vec, 'mul').st(vec, ai + 8 * r * nv);
          });
          cnt.mul += 6 * nk;
        } else if (inv) {
          // a root without a buffer: its row is final since the backward pass
          e.columns(k0, nv, (vec) => { e.get(K).ld(vec, ro).set(e.l(vec, 'u')); e.mirror(vec, nv, XB + 8 * k, e.l(vec, 'u')); });
        }
      }
      return e.bodyBytes();
    };
    let bytes: Uint8Array<ArrayBuffer>;
    try {
      bytes = assemble([{ bodies: [gen(true), gen(false)], type: 1 }], pages);
      if (!WebAssembly.validate(bytes)) return null;
      return new MinvSolveCode(model, bytes, pages, { XB, BB, JB, CB }, counts);
    } catch {
      return null;
    }
  }

  /** X = −M⁻¹ B, or M⁻¹ for B = null, as negMinvSolve (same bits, same counts). Allocation free. */
  run(fac: MinvSolveFactors, J: Float64Array, B: Float64Array | null, X: Float64Array, fl: Flops): void {
    const nb = this.model.nb, C = this.C;
    const Jm = this.J;
    if (J.length === Jm.length) Jm.set(J);
    else for (let k = 0; k < Jm.length; k++) Jm[k] = J[k];
    for (let i = 0; i < nb; i++) {
      const UD = fac.UD[i], o = 7 * i;
      C[o] = fac.Dinv[i][0];
      C[o + 1] = UD[0]; C[o + 2] = UD[1]; C[o + 3] = UD[2]; C[o + 4] = UD[3]; C[o + 5] = UD[4]; C[o + 6] = UD[5];
    }
    if (B === null) {
      // the lower triangle too: M⁻¹[r, k] = M⁻¹[k, r] (as negMinvSolve), stored by the code as each row is final
      this.runInv();
      X.set(this.X);
      fl.mul += this.counts.inv.mul; fl.add += this.counts.inv.add;
    } else {
      const Bm = this.B;
      if (B.length === Bm.length) Bm.set(B);
      else for (let k = 0; k < Bm.length; k++) Bm[k] = B[k];
      this.runSolve();
      X.set(this.X);
      fl.mul += this.counts.solve.mul; fl.add += this.counts.solve.add;
    }
  }
}
