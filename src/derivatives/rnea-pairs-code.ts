/**
 * code = RneaPairsCode.create(model): the (column, ancestor column) entries of the world-frame RNEA
 * derivatives (rnea-derivatives.ts, `pairs`) as a WebAssembly loop with SIMD (f64x2): the two
 * outputs that share their operands, ∂τ/∂q and ∂τ/∂q̇, are the two lanes of one vector operation
 * (per pair: J_c · (dFdq_k, dFdv_k); (dAdq_c, dAdv_c) · P_k + (dVdq_c, J_c) · Q_k; and M's J_c · P_k in
 * the second lane of (dVdq_c, J_c) · P_k). Each lane performs the JavaScript's operations in the
 * same order (the products, then the sums left to right), so the entries are the same bit for bit
 * (tested). The per-column vectors are interleaved into the module's memory at each call, the
 * matrices copied out; entries that are not pairs stay 0 there. Made where every joint has one
 * degree of freedom (columns are bodies), otherwise the JavaScript runs.
 *
 * Measured (best of 15 rounds, µs, same process, under load; fixed-base chains of 6 / 24 / 96 links),
 * JavaScript → this code, the pairs with M: 1.36 / 15.5 / 209 → 0.83 / 7.7 / 72.8; without M
 * (forward dynamics' use): 1.00 / 12.6 / 140 → 1.04 / 6.7 / 42.4.
 */
import { assemble, canCompile } from '../sparse/compiled.ts';
import { SimdBody, V } from '../sparse/wasm-simd.ts';
import type { Model } from '../model/model.ts';

/** largest nv for which the code is made (its memory holds three nv×nv matrices) */
export const PAIRS_CODE_LIMIT = 2000;

const I32_ADD = 0x6a, I32_MUL = 0x6c, I32_SHL = 0x74, I32_LT_S = 0x48, I32_GE_S = 0x4e;
const BLOCK = 0x02, LOOP = 0x03, END = 0x0b, BR = 0x0c, BR_IF = 0x0d, VOID = 0x40;

/** bytes per column record: (dAdq, dAdv) × 6, (dVdq, J) × 6, (dFdq, dFdv) × 6, P (6), Q (6) */
const REC = 384;
const AQV = 0, VJ = 96, FQV = 192, PP = 288, QQ = 336;

/** locals: i32 k, i, base of k's record, base of i's record, address; v128 FQ 0–5, PK 0–5, QK 0–5, accumulators; f64 MF */
const LK = 0, LI = 1, BK = 2, BC = 3, AD = 4;
const FQ = 5, PK = 11, QK = 17, A1 = 23, A2 = 24;
/** an f64 local (M's entry) */
const MF = 25;

/** The pairs of the world-frame RNEA derivatives as generated WebAssembly (see the file's comment). */
export class RneaPairsCode {
  /** column records, then ∂τ/∂q, ∂τ/∂q̇, M (nv×nv row-major) in the module's memory */
  private readonly rec: Float64Array;
  private readonly dq: Float64Array;
  private readonly dv: Float64Array;
  private readonly M: Float64Array;
  private readonly withM: () => void;
  private readonly withoutM: () => void;

  private constructor(readonly nv: number, bytes: Uint8Array<ArrayBuffer>, pages: number, o: { RB: number; QB: number; VB: number; MB: number; PB: number }, parents: Int32Array) {
    const memory = new WebAssembly.Memory({ initial: pages });
    const ex = new WebAssembly.Instance(new WebAssembly.Module(bytes), { e: { m: memory } }).exports as Record<string, () => void>;
    this.withM = ex.f0;
    this.withoutM = ex.f1;
    const buf = memory.buffer;
    this.rec = new Float64Array(buf, o.RB, (REC / 8) * nv);
    this.dq = new Float64Array(buf, o.QB, nv * nv);
    this.dv = new Float64Array(buf, o.VB, nv * nv);
    this.M = new Float64Array(buf, o.MB, nv * nv);
    new Int32Array(buf, o.PB, nv).set(parents);
  }

  /** The code for this model, or null (a joint with ni ≠ 1, nv above PAIRS_CODE_LIMIT, no WebAssembly SIMD). */
  static create(model: Model): RneaPairsCode | null {
    const nv = model.nv, nb = model.nb;
    if (!canCompile() || nv > PAIRS_CODE_LIMIT || nv === 0 || nb !== nv) return null;
    for (let i = 0; i < nb; i++) if (model.nvi[i] !== 1 || model.iv[i] !== i) return null;
    let off = 0;
    const region = (bytes: number) => { const o = off; off += bytes; off = (off + 15) & ~15; return o; };
    const RB = region(REC * nv), QB = region(8 * nv * nv), VB = region(8 * nv * nv), MB = region(8 * nv * nv), PB = region(4 * nv);
    const pages = Math.max(1, Math.ceil(off / 65536));
    const body = (withM: boolean): Uint8Array => {
      const e = new SimdBody();
      /** acc = Σ_r a_r · b_r, left to right (a_r, b_r pushed by the callbacks) */
      const sum = (term: (r: number) => void) => {
        for (let r = 0; r < 6; r++) { term(r); if (r > 0) e.v(V.add); }
      };
      e.i32(0).set(LK);
      e.op(BLOCK, VOID, LOOP, VOID);
      e.get(LK).i32(nv).op(I32_GE_S, BR_IF, 1);
      // column k's record: (dFdq, dFdv) pairs, P and Q splatted
      e.get(LK).i32(REC).op(I32_MUL).set(BK);
      for (let r = 0; r < 6; r++) {
        e.get(BK).ldv(RB + FQV + 16 * r).set(FQ + r);
        e.get(BK).ldf(RB + PP + 8 * r).v(V.splat).set(PK + r);
        e.get(BK).ldf(RB + QQ + 8 * r).v(V.splat).set(QK + r);
      }
      // its ancestors i (columns = bodies)
      e.get(LK).i32(2).op(I32_SHL).ldi(PB).set(LI);
      e.op(BLOCK, VOID, LOOP, VOID);
      e.get(LI).i32(0).op(I32_LT_S, BR_IF, 1);
      e.get(LI).i32(REC).op(I32_MUL).set(BC);
      // (∂τ_i/∂q_k, ∂τ_i/∂q̇_k) = J_i · (dFdq_k, dFdv_k)
      sum((r) => { e.get(BC).ldf(RB + VJ + 16 * r + 8).v(V.splat).get(FQ + r).v(V.mul); });
      e.set(A1);
      e.get(LI).i32(nv).op(I32_MUL).get(LK).op(I32_ADD).i32(3).op(I32_SHL).set(AD);
      e.get(AD).get(A1).lane(0).stf(QB);
      e.get(AD).get(A1).lane(1).stf(VB);
      // (∂τ_k/∂q_i, ∂τ_k/∂q̇_i) = (dAdq_i, dAdv_i) · P_k + (dVdq_i, J_i) · Q_k
      sum((r) => { e.get(BC).ldv(RB + AQV + 16 * r).get(PK + r).v(V.mul); });
      sum((r) => { e.get(BC).ldv(RB + VJ + 16 * r).get(QK + r).v(V.mul); });
      e.v(V.add).set(A2);
      // (k nv + i) · 8, in BK (k's record base is not needed again for this column)
      e.get(LK).i32(nv).op(I32_MUL).get(LI).op(I32_ADD).i32(3).op(I32_SHL).tee(BK);
      e.get(A2).lane(0).stf(QB);
      e.get(BK).get(A2).lane(1).stf(VB);
      if (withM) {
        // M[i, k] = M[k, i] = J_i · P_k: the second lane of (dVdq_i, J_i) · P_k
        sum((r) => { e.get(BC).ldv(RB + VJ + 16 * r).get(PK + r).v(V.mul); });
        e.lane(1).set(MF);
        e.get(AD).get(MF).stf(MB);
        e.get(BK).get(MF).stf(MB);
      }
      e.get(LI).i32(2).op(I32_SHL).ldi(PB).set(LI);
      e.op(BR, 0, END, END);
      e.get(LK).i32(1).op(I32_ADD).set(LK);
      e.op(BR, 0, END, END);
      return e.finishWith([[5, 0x7f], [20, 0x7b], [1, 0x7c]]); // 5 i32, 20 v128 (FQ, PK, QK, A1, A2), 1 f64
    };
    try {
      const bytes = assemble([{ bodies: [body(true), body(false)], type: 1 }], pages);
      if (!WebAssembly.validate(bytes)) return null;
      return new RneaPairsCode(nv, bytes, pages, { RB, QB, VB, MB, PB }, Int32Array.from(model.parents));
    } catch {
      return null;
    }
  }

  /**
   * The ancestor pairs of ∂τ/∂q, ∂τ/∂q̇ (and M with `withM`) from the per-column vectors (6 per
   * column), into dq, dv, M: every entry but the diagonal, which the caller writes.
   */
  run(v: { J: Float64Array; dVdq: Float64Array; dAdq: Float64Array; dAdv: Float64Array; dFdq: Float64Array; dFdv: Float64Array; P: Float64Array; Q: Float64Array }, dq: Float64Array, dv: Float64Array, M: Float64Array, withM: boolean): void {
    const nv = this.nv, rec = this.rec, W = REC / 8;
    const { J, dVdq, dAdq, dAdv, dFdq, dFdv, P, Q } = v;
    for (let k = 0; k < nv; k++) {
      const o = W * k, s = 6 * k;
      for (let r = 0; r < 6; r++) {
        rec[o + 2 * r] = dAdq[s + r]; rec[o + 2 * r + 1] = dAdv[s + r];
        rec[o + 12 + 2 * r] = dVdq[s + r]; rec[o + 13 + 2 * r] = J[s + r];
        rec[o + 24 + 2 * r] = dFdq[s + r]; rec[o + 25 + 2 * r] = dFdv[s + r];
        rec[o + 36 + r] = P[s + r]; rec[o + 42 + r] = Q[s + r];
      }
    }
    if (withM) { this.withM(); M.set(this.M); } else this.withoutM();
    dq.set(this.dq);
    dv.set(this.dv);
  }
}
