/**
 * ReachSolver: the solves of NumericLU.solveManyReach (reach.ts) as a WebAssembly loop over the
 * reach's op lists, with the right-hand sides in the module's own memory. The factors of the last
 * refactor are copied in once per `solve` call (cs[n] values); the columns are solved in place
 * where the caller wrote them (`columns`, a view on the module's memory), so no right-hand side is
 * copied. Same IEEE operations in the same order as solveManyReach (and solveMany), so the same
 * solution bit for bit (up to the sign of zeros against solveMany) and the same counts.
 *
 * Falls back to NumericLU.solveManyReach on the same columns (JavaScript) when WebAssembly is not
 * available, the rows are scaled, or the reach no longer belongs to the factors (re-pivoted) —
 * solveManyReach then solves in full.
 *
 * Memory (bytes): 0 the parameters (column base i32, pattern i32, sign f64); the LU values; w; the
 * columns (n × ncols f64); then the i32 tables (ops, op and row starts as byte addresses, rows,
 * pivot and column-start slots as byte addresses, q·8, the w address of each row of A and of each
 * slot's row).
 */
import { assemble, Bytes, canCompile } from './compiled.ts';
import { Body, O } from './loops.ts';
import type { NumericLU } from './numeric.ts';
import type { SolveReach } from './reach.ts';

/** A validated plan of groups of columns for ReachSolver.solvePlan (ReachSolver.plan). */
export interface ReachPlan {
  readonly ngroups: number;
  /** 4 column slots per group, pattern, lanes (1, 2 or 4) and sign (1: negated) per group */
  readonly cols: Int32Array;
  readonly pattern: Int32Array;
  readonly lanes: Uint8Array;
  readonly negate: Uint8Array;
  /** byte address of each column slot in the solver's memory */
  readonly base: Int32Array;
  /** the plan's multiply-subtracts and divisions (the reach's counts times the lanes) */
  readonly fma: number;
  readonly divs: number;
  /** the pattern of each group (for the column-by-column fallback) */
  readonly single: Int32Array;
}

export class ReachSolver {
  /** the right-hand sides / solutions, column c at c·n (length n × ncols); a view on the module's memory when compiled */
  readonly columns: Float64Array;
  /** counts of the last `solve` call (the reach's static counts: the ops done) */
  solveMuls = 0;
  solveAdds = 0;
  solveDivs = 0;
  private readonly run: (() => void) | null;
  private readonly runPair: (() => void) | null = null;
  private readonly runQuad: (() => void) | null = null;
  /** whether the paired solves use WebAssembly SIMD (f64x2; else two scalar lanes) */
  readonly simd: boolean = false;
  private readonly par: Int32Array | null;
  private readonly sgn: Float64Array | null;
  private readonly X: Float64Array | null;
  private readonly n: number;

  /** `lu`: the factorization whose solves these are (its layout is read once, its values at each solve); `simd` false: the scalar pair kernel even where SIMD runs */
  constructor(readonly lu: NumericLU, readonly reach: SolveReach, readonly ncols: number, simd = true) {
    const n = reach.symbolic.n;
    this.n = n;
    if (lu.symbolic !== reach.symbolic || !canCompile()) {
      this.columns = new Float64Array(n * ncols);
      this.run = null; this.par = null; this.sgn = null; this.X = null;
      return;
    }
    const S = reach.symbolic, { cs, dpos, LUi } = lu;
    const nX = cs[n];
    let off = 32;
    const f64s = (len: number) => { const o = off; off += 8 * len; return o; };
    const XB = f64s(nX), WB = f64s(n);
    if (off % 16 !== 0) off += 8; // w pairs 16-byte aligned (f64x2)
    const W2 = f64s(2 * n), W4 = f64s(4 * n), CB = f64s(n * ncols);
    const tables: [number, ArrayLike<number>, (v: number) => number][] = [];
    const i32s = (a: ArrayLike<number>, f: (v: number) => number) => { const o = off; off += 4 * a.length; tables.push([o, a, f]); return o; };
    const OPSt = i32s(reach.ops, (v) => v);
    const OSt = i32s(reach.opStart, (v) => OPSt + 4 * v);
    const ROWSt = i32s(reach.rows, (v) => v);
    const RSt = i32s(reach.rowStart, (v) => ROWSt + 4 * v);
    const DPt = i32s(dpos, (v) => XB + 8 * v);
    const CSt = i32s(cs, (v) => XB + 8 * v);
    const QXt = i32s(S.q, (v) => 8 * v);
    const PVt = i32s(S.pinv, (v) => WB + 8 * v);
    const LUIt = i32s(LUi.subarray(0, nX), (v) => WB + 8 * v);
    const PV2t = i32s(S.pinv, (v) => W2 + 16 * v);
    const LUI2t = i32s(LUi.subarray(0, nX), (v) => W2 + 16 * v);
    const PV4t = i32s(S.pinv, (v) => W4 + 32 * v);
    const LUI4t = i32s(LUi.subarray(0, nX), (v) => W4 + 32 * v);
    const pages = Math.max(1, Math.ceil(off / 65536));
    // locals: i32 0 base, 1 k, 2 o, 3 o1, 4 op, 5 j, 6 t8, 7 t1, 8 u4, 9 e, 10 e1, 11 r, 12 a; f64 20 xj, 21 sg
    const BASE = 0, K = 1, OI = 2, O1 = 3, OP = 4, J = 5, T8 = 6, T1 = 7, U4 = 8, E = 9, E1 = 10, R = 11, A = 12, XJ = 20, SG = 21;
    const b = new Body();
    const whileLt = (i: number, hi: number, step: number, body: () => void) => {
      b.op(O.block, O.void, O.loop, O.void);
      b.get(i).get(hi).op(O.i32GeS, O.brIf, 1);
      body();
      b.get(i).i32(step).op(O.i32Add).set(i);
      b.op(O.br, 0, O.end, O.end);
    };
    /** w[LUi[t]] −= X[t] · xj for the slots t8 < t1 (u4: the slot's entry of LUIt) */
    const updates = () => {
      b.get(T8).i32(XB).op(O.i32Sub).i32(1).op(0x76 /* i32.shr_u */).i32(LUIt).op(O.i32Add).set(U4);
      whileLt(T8, T1, 8, () => {
        b.get(U4).ldi(0).tee(A);
        b.get(A).ldf(0).get(T8).ldf(0).get(XJ).op(O.f64Mul, O.f64Sub).stf(0);
        b.get(U4).i32(4).op(O.i32Add).set(U4);
      });
    };
    b.i32(0).ldi(0).set(BASE).i32(0).ldi(4).set(K).i32(0).ldf(8).set(SG);
    b.get(K).i32(2).op(O.i32Shl).tee(OI).ldi(OSt).set(OI);
    b.get(K).i32(2).op(O.i32Shl).ldi(OSt + 4).set(O1);
    // w = 0 over the reach
    b.get(OI).set(E);
    whileLt(E, O1, 4, () => {
      b.get(E).ldi(0).tee(OP).get(OP).i32(31).op(0x75 /* i32.shr_s */, 0x73 /* i32.xor */).i32(3).op(O.i32Shl).f64(0).stf(WB);
    });
    // w(pinv[r]) = sg · B[r]; B[r] = 0 over the pattern
    b.get(K).i32(2).op(O.i32Shl).tee(E).ldi(RSt + 4).set(E1);
    b.get(E).ldi(RSt).set(E);
    whileLt(E, E1, 4, () => {
      b.get(E).ldi(0).tee(R).i32(2).op(O.i32Shl).ldi(PVt);
      b.get(R).i32(3).op(O.i32Shl).get(BASE).op(O.i32Add).tee(A).ldf(0).get(SG).op(O.f64Mul).stf(0);
      b.get(A).f64(0).stf(0);
    });
    // the ops, in the solve's order
    whileLt(OI, O1, 4, () => {
      b.get(OI).ldi(0).tee(OP).i32(0).op(O.i32GeS, O.if, O.void);
      {
        // U-op j: y_j = w_j / u_jj, X[q_j] = y_j, the rows above the pivot
        b.get(OP).i32(2).op(O.i32Shl).ldi(DPt).set(T1);
        b.get(OP).i32(3).op(O.i32Shl).ldf(WB).get(T1).ldf(0).op(O.f64Div).set(XJ);
        b.get(OP).i32(2).op(O.i32Shl).ldi(QXt).get(BASE).op(O.i32Add).get(XJ).stf(0);
        b.get(OP).i32(2).op(O.i32Shl).ldi(CSt).set(T8);
        updates();
      }
      b.op(0x05 /* else */);
      {
        // L-op j: the rows of L(:,j)
        b.get(OP).i32(-1).op(0x73).set(J);
        b.get(J).i32(3).op(O.i32Shl).ldf(WB).set(XJ);
        b.get(J).i32(2).op(O.i32Shl).tee(T8).ldi(DPt).i32(8).op(O.i32Add).set(T1);
        b.get(T8).ldi(CSt + 4).get(T1).set(T8).set(T1);
        updates();
      }
      b.op(O.end);
    });
    const single = b.finish(false);
    // ---- pairs: two right-hand sides (column bases at 0 and 16) on one op list, w interleaved (W2);
    // with SIMD, each multiply-subtract of the two is one f64x2 operation (the same IEEE operations per lane)
    const BASE2 = 13, XJ2 = 22, XJV = 28;
    const pairBody = (simd: boolean): Uint8Array => {
      const p = new Body();
      const v128 = (op: number, offset?: number) => {
        p.op(0xfd);
        p.c.u32(op);
        if (offset !== undefined) { p.c.u32(4); p.c.u32(offset); }
      };
      const pWhile = (i: number, hi: number, step: number, body: () => void) => {
        p.op(O.block, O.void, O.loop, O.void);
        p.get(i).get(hi).op(O.i32GeS, O.brIf, 1);
        body();
        p.get(i).i32(step).op(O.i32Add).set(i);
        p.op(O.br, 0, O.end, O.end);
      };
      const pUpdates = () => {
        p.get(T8).i32(XB).op(O.i32Sub).i32(1).op(0x76).i32(LUI2t).op(O.i32Add).set(U4);
        pWhile(T8, T1, 8, () => {
          p.get(U4).ldi(0).tee(A);
          if (simd) {
            // w(pair) = w(pair) − splat(X[t]) · xj(pair)
            p.get(A); v128(0x00, 0);
            p.get(T8).ldf(0); v128(0x14); p.get(XJV); v128(0xf2); v128(0xf1);
            v128(0x0b, 0);
          } else {
            p.get(A).ldf(0).get(T8).ldf(0).get(XJ).op(O.f64Mul, O.f64Sub).stf(0);
            p.get(A).get(A).ldf(8).get(T8).ldf(0).get(XJ2).op(O.f64Mul, O.f64Sub).stf(8);
          }
          p.get(U4).i32(4).op(O.i32Add).set(U4);
        });
      };
      p.i32(0).ldi(0).set(BASE).i32(0).ldi(4).set(K).i32(0).ldf(8).set(SG).i32(0).ldi(16).set(BASE2);
      p.get(K).i32(2).op(O.i32Shl).tee(OI).ldi(OSt).set(OI);
      p.get(K).i32(2).op(O.i32Shl).ldi(OSt + 4).set(O1);
      p.get(OI).set(E);
      pWhile(E, O1, 4, () => {
        p.get(E).ldi(0).tee(OP).get(OP).i32(31).op(0x75, 0x73).i32(4).op(O.i32Shl).tee(A).f64(0).stf(W2);
        p.get(A).f64(0).stf(W2 + 8);
      });
      p.get(K).i32(2).op(O.i32Shl).tee(E).ldi(RSt + 4).set(E1);
      p.get(E).ldi(RSt).set(E);
      pWhile(E, E1, 4, () => {
        p.get(E).ldi(0).tee(R).i32(2).op(O.i32Shl).ldi(PV2t).set(J);
        p.get(J).get(R).i32(3).op(O.i32Shl).get(BASE).op(O.i32Add).tee(A).ldf(0).get(SG).op(O.f64Mul).stf(0);
        p.get(A).f64(0).stf(0);
        p.get(J).get(R).i32(3).op(O.i32Shl).get(BASE2).op(O.i32Add).tee(A).ldf(0).get(SG).op(O.f64Mul).stf(8);
        p.get(A).f64(0).stf(0);
      });
      pWhile(OI, O1, 4, () => {
        p.get(OI).ldi(0).tee(OP).i32(0).op(O.i32GeS, O.if, O.void);
        {
          p.get(OP).i32(2).op(O.i32Shl).ldi(DPt).set(T1);
          if (simd) {
            p.get(OP).i32(4).op(O.i32Shl); v128(0x00, W2);
            p.get(T1).ldf(0); v128(0x14); v128(0xf3); p.set(XJV);
            p.get(OP).i32(2).op(O.i32Shl).ldi(QXt).tee(A).get(BASE).op(O.i32Add).get(XJV); v128(0x21); p.op(0); p.stf(0);
            p.get(A).get(BASE2).op(O.i32Add).get(XJV); v128(0x21); p.op(1); p.stf(0);
          } else {
            p.get(OP).i32(4).op(O.i32Shl).tee(J).ldf(W2).get(T1).ldf(0).op(O.f64Div).set(XJ);
            p.get(J).ldf(W2 + 8).get(T1).ldf(0).op(O.f64Div).set(XJ2);
            p.get(OP).i32(2).op(O.i32Shl).ldi(QXt).tee(A).get(BASE).op(O.i32Add).get(XJ).stf(0);
            p.get(A).get(BASE2).op(O.i32Add).get(XJ2).stf(0);
          }
          p.get(OP).i32(2).op(O.i32Shl).ldi(CSt).set(T8);
          pUpdates();
        }
        p.op(0x05);
        {
          p.get(OP).i32(-1).op(0x73).set(J);
          if (simd) {
            p.get(J).i32(4).op(O.i32Shl); v128(0x00, W2); p.set(XJV);
          } else {
            p.get(J).i32(4).op(O.i32Shl).tee(A).ldf(W2).set(XJ);
            p.get(A).ldf(W2 + 8).set(XJ2);
          }
          p.get(J).i32(2).op(O.i32Shl).tee(T8).ldi(DPt).i32(8).op(O.i32Add).set(T1);
          p.get(T8).ldi(CSt + 4).get(T1).set(T8).set(T1);
          pUpdates();
        }
        p.op(O.end);
      });
      if (!simd) return p.finish(false);
      p.c.byte(O.end);
      const body = new Bytes();
      body.bytes([3, 20, 0x7f, 8, 0x7c, 1, 0x7b]); // 20 i32, 8 f64, 1 v128 locals
      body.bytes(p.c.view());
      return body.view().slice();
    };
    // ---- quads (SIMD only): four right-hand sides (column bases at 0, 16, 20, 24) on one op list, w interleaved by 4 (W4)
    const quadBody = (): Uint8Array => {
      const p = new Body();
      const B1 = 13, B2 = 14, B3 = 15, VA = 28, VB = 29, XS = 30;
      const v128 = (op: number, offset?: number) => {
        p.op(0xfd);
        p.c.u32(op);
        if (offset !== undefined) { p.c.u32(4); p.c.u32(offset); }
      };
      const qWhile = (i: number, hi: number, step: number, body: () => void) => {
        p.op(O.block, O.void, O.loop, O.void);
        p.get(i).get(hi).op(O.i32GeS, O.brIf, 1);
        body();
        p.get(i).i32(step).op(O.i32Add).set(i);
        p.op(O.br, 0, O.end, O.end);
      };
      const qUpdates = () => {
        p.get(T8).i32(XB).op(O.i32Sub).i32(1).op(0x76).i32(LUI4t).op(O.i32Add).set(U4);
        qWhile(T8, T1, 8, () => {
          p.get(T8).ldf(0); v128(0x14); p.set(XS);
          p.get(U4).ldi(0).tee(A);
          p.get(A); v128(0x00, 0); p.get(XS).get(VA); v128(0xf2); v128(0xf1); v128(0x0b, 0);
          p.get(A); p.get(A); v128(0x00, 16); p.get(XS).get(VB); v128(0xf2); v128(0xf1); v128(0x0b, 16);
          p.get(U4).i32(4).op(O.i32Add).set(U4);
        });
      };
      const bases = [BASE, B1, B2, B3];
      p.i32(0).ldi(0).set(BASE).i32(0).ldi(4).set(K).i32(0).ldf(8).set(SG).i32(0).ldi(16).set(B1).i32(0).ldi(20).set(B2).i32(0).ldi(24).set(B3);
      p.get(K).i32(2).op(O.i32Shl).tee(OI).ldi(OSt).set(OI);
      p.get(K).i32(2).op(O.i32Shl).ldi(OSt + 4).set(O1);
      p.get(OI).set(E);
      qWhile(E, O1, 4, () => {
        p.get(E).ldi(0).tee(OP).get(OP).i32(31).op(0x75, 0x73).i32(5).op(O.i32Shl).set(A);
        for (let l = 0; l < 4; l++) p.get(A).f64(0).stf(W4 + 8 * l);
      });
      p.get(K).i32(2).op(O.i32Shl).tee(E).ldi(RSt + 4).set(E1);
      p.get(E).ldi(RSt).set(E);
      qWhile(E, E1, 4, () => {
        p.get(E).ldi(0).tee(R).i32(2).op(O.i32Shl).ldi(PV4t).set(J);
        for (let l = 0; l < 4; l++) {
          p.get(J).get(R).i32(3).op(O.i32Shl).get(bases[l]).op(O.i32Add).tee(A).ldf(0).get(SG).op(O.f64Mul).stf(8 * l);
          p.get(A).f64(0).stf(0);
        }
      });
      qWhile(OI, O1, 4, () => {
        p.get(OI).ldi(0).tee(OP).i32(0).op(O.i32GeS, O.if, O.void);
        {
          p.get(OP).i32(2).op(O.i32Shl).ldi(DPt).ldf(0); v128(0x14); p.set(XS);
          p.get(OP).i32(5).op(O.i32Shl).tee(J); v128(0x00, W4); p.get(XS); v128(0xf3); p.set(VA);
          p.get(J); v128(0x00, W4 + 16); p.get(XS); v128(0xf3); p.set(VB);
          p.get(OP).i32(2).op(O.i32Shl).ldi(QXt).set(A);
          for (let l = 0; l < 4; l++) {
            p.get(A).get(bases[l]).op(O.i32Add).get(l < 2 ? VA : VB); v128(0x21); p.op(l & 1); p.stf(0);
          }
          p.get(OP).i32(2).op(O.i32Shl).ldi(DPt).set(T1);
          p.get(OP).i32(2).op(O.i32Shl).ldi(CSt).set(T8);
          qUpdates();
        }
        p.op(0x05);
        {
          p.get(OP).i32(-1).op(0x73).set(J);
          p.get(J).i32(5).op(O.i32Shl).tee(A); v128(0x00, W4); p.set(VA);
          p.get(A); v128(0x00, W4 + 16); p.set(VB);
          p.get(J).i32(2).op(O.i32Shl).tee(T8).ldi(DPt).i32(8).op(O.i32Add).set(T1);
          p.get(T8).ldi(CSt + 4).get(T1).set(T8).set(T1);
          qUpdates();
        }
        p.op(O.end);
      });
      p.c.byte(O.end);
      const body = new Bytes();
      body.bytes([3, 20, 0x7f, 8, 0x7c, 4, 0x7b]); // 20 i32, 8 f64, 4 v128 locals
      body.bytes(p.c.view());
      return body.view().slice();
    };
    let bytes = simd ? assemble([{ bodies: [single, pairBody(true), quadBody()], type: 1 }], pages) : new Uint8Array(0);
    this.simd = simd && WebAssembly.validate(bytes);
    if (!this.simd) bytes = assemble([{ bodies: [single, pairBody(false)], type: 1 }], pages);
    const memory = new WebAssembly.Memory({ initial: pages });
    const buf = memory.buffer;
    for (const [o, a, tf] of tables) {
      const v = new Int32Array(buf, o, a.length);
      for (let k = 0; k < a.length; k++) v[k] = tf(a[k]);
    }
    const instance = new WebAssembly.Instance(new WebAssembly.Module(bytes), { e: { m: memory } });
    this.run = (instance.exports as Record<string, () => void>).f0;
    this.runPair = (instance.exports as Record<string, () => void>).f1;
    this.runQuad = this.simd ? (instance.exports as Record<string, () => void>).f2 : null;
    this.par = new Int32Array(buf, 0, 7);
    this.sgn = new Float64Array(buf, 8, 1);
    this.X = new Float64Array(buf, XB, nX);
    this.columns = new Float64Array(buf, CB, n * ncols);
    this.cb = CB;
  }

  private readonly cb: number = 0;

  /** whether the solves run compiled (false: NumericLU.solveManyReach) */
  get compiled(): boolean {
    return this.run !== null;
  }

  /**
   * Columns col0 .. col0+nrhs−1 of `columns` = A⁻¹ (or −A⁻¹ with `negate`) times themselves, column
   * c+col0 of pattern `pattern[c]` of the reach (zero outside it), with the factors of lu's last
   * refactor. No allocation.
   */
  solve(col0: number, nrhs: number, pattern: Int32Array, negate = false): void {
    const lu = this.lu, n = this.n, reach = this.reach;
    if (!(Number.isInteger(col0) && col0 >= 0 && Number.isInteger(nrhs) && nrhs >= 0 && col0 + nrhs <= this.ncols)) {
      throw new RangeError(`columns ${col0}..${col0 + nrhs - 1} are outside the ${this.ncols} of this ReachSolver`);
    }
    if (this.run === null || lu.symbolic !== reach.symbolic || lu.scaling !== 'none' || (lu.refine > 0 && lu.symbolic.nblocks < n)) {
      const X = this.columns.subarray(col0 * n, (col0 + nrhs) * n);
      lu.solveManyReach(X, X, nrhs, reach, pattern, negate);
      this.solveMuls = lu.solveMuls; this.solveAdds = lu.solveAdds; this.solveDivs = lu.solveDivs;
      return;
    }
    if (pattern.length < nrhs) throw new RangeError(`pattern has ${pattern.length} entries, expected one per right-hand side (${nrhs})`);
    this.X!.set(lu.LUx);
    const par = this.par!, run = this.run;
    this.sgn![0] = negate ? -1 : 1;
    let f = 0, d = 0;
    for (let c = 0; c < nrhs; c++) {
      const k = pattern[c];
      if (!(k >= 0 && k < reach.npat)) throw new RangeError(`pattern[${c}] is ${k}, expected a pattern of the reach (0..${reach.npat - 1})`);
      par[0] = this.cb + 8 * (col0 + c) * n;
      par[1] = k;
      run();
      f += reach.fma[k];
      d += reach.divs[k];
    }
    this.solveMuls = f;
    this.solveAdds = f;
    this.solveDivs = d;
  }

  /**
   * As `solve` on two sets of columns at once: columns a0 + c·stride and b0 + c·stride (c < nrhs)
   * share pattern `pattern[c]` (both zero outside it) and are solved on its one op list, each op's factor values
   * and indices loaded once for both. The same values as two `solve` calls, and their counts. No allocation.
   */
  solvePairs(a0: number, b0: number, nrhs: number, pattern: Int32Array, negate = false, stride = 1): void {
    const lu = this.lu, n = this.n, reach = this.reach;
    if (!(Number.isInteger(stride) && stride >= 1)) throw new RangeError(`stride is ${stride}, expected a positive integer`);
    const last = (nrhs - 1) * stride;
    for (const c0 of [a0, b0]) {
      if (!(Number.isInteger(c0) && c0 >= 0 && Number.isInteger(nrhs) && nrhs >= 0 && (nrhs === 0 || c0 + last < this.ncols))) {
        throw new RangeError(`columns ${c0}..${c0 + last} are outside the ${this.ncols} of this ReachSolver`);
      }
    }
    if (nrhs > 0 && (a0 - b0) % stride === 0 && Math.abs(a0 - b0) <= last) throw new RangeError(`the columns at ${a0} and ${b0} (stride ${stride}) overlap`);
    if (a0 === b0 && nrhs > 0) throw new RangeError(`the columns at ${a0} and ${b0} overlap`);
    if (this.runPair === null || lu.symbolic !== reach.symbolic || lu.scaling !== 'none' || (lu.refine > 0 && lu.symbolic.nblocks < n)) {
      let m = 0, a = 0, d = 0;
      for (let c = 0; c < nrhs; c++) {
        for (const c0 of [a0, b0]) {
          this.solve(c0 + c * stride, 1, pattern.subarray(c, c + 1), negate);
          m += this.solveMuls; a += this.solveAdds; d += this.solveDivs;
        }
      }
      this.solveMuls = m; this.solveAdds = a; this.solveDivs = d;
      return;
    }
    if (pattern.length < nrhs) throw new RangeError(`pattern has ${pattern.length} entries, expected one per right-hand side (${nrhs})`);
    this.X!.set(lu.LUx);
    const par = this.par!, run = this.runPair;
    this.sgn![0] = negate ? -1 : 1;
    let f = 0, d = 0;
    for (let c = 0; c < nrhs; c++) {
      const k = pattern[c];
      if (!(k >= 0 && k < reach.npat)) throw new RangeError(`pattern[${c}] is ${k}, expected a pattern of the reach (0..${reach.npat - 1})`);
      par[0] = this.cb + 8 * (a0 + c * stride) * n;
      par[1] = k;
      par[4] = this.cb + 8 * (b0 + c * stride) * n;
      run();
      f += 2 * reach.fma[k];
      d += 2 * reach.divs[k];
    }
    this.solveMuls = f;
    this.solveAdds = f;
    this.solveDivs = d;
  }

  /**
   * Groups of four columns on one op list each: group g is columns cols[4g .. 4g+3] (all zero outside
   * pattern `pattern[g]`), solved as `solve` would, each op's factor values and indices loaded once
   * for the four (two f64x2 operations per multiply-subtract). Without SIMD, column by column. Same
   * values as `solve`, and its counts. No allocation.
   */
  solveQuads(cols: Int32Array, pattern: Int32Array, ngroups: number, negate = false): void {
    const lu = this.lu, n = this.n, reach = this.reach;
    if (!(Number.isInteger(ngroups) && ngroups >= 0 && cols.length >= 4 * ngroups && pattern.length >= ngroups)) {
      throw new RangeError(`solveQuads: ${ngroups} groups need 4 columns and one pattern each (have ${cols.length}, ${pattern.length})`);
    }
    for (let t = 0; t < 4 * ngroups; t++) {
      const c = cols[t];
      if (!(c >= 0 && c < this.ncols)) throw new RangeError(`column ${c} is outside the ${this.ncols} of this ReachSolver`);
      for (let u = 4 * ((t / 4) | 0); u < t; u++) if (cols[u] === c) throw new RangeError(`column ${c} appears twice in group ${(t / 4) | 0}`);
    }
    if (this.runQuad === null || lu.symbolic !== reach.symbolic || lu.scaling !== 'none' || (lu.refine > 0 && lu.symbolic.nblocks < n)) {
      let m = 0, a = 0, d = 0;
      for (let t = 0; t < 4 * ngroups; t++) {
        this.solve(cols[t], 1, pattern.subarray(t >> 2, (t >> 2) + 1), negate);
        m += this.solveMuls; a += this.solveAdds; d += this.solveDivs;
      }
      this.solveMuls = m; this.solveAdds = a; this.solveDivs = d;
      return;
    }
    this.X!.set(lu.LUx);
    const par = this.par!, run = this.runQuad!;
    this.sgn![0] = negate ? -1 : 1;
    let f = 0, d = 0;
    for (let g = 0; g < ngroups; g++) {
      const k = pattern[g];
      if (!(k >= 0 && k < reach.npat)) throw new RangeError(`pattern[${g}] is ${k}, expected a pattern of the reach (0..${reach.npat - 1})`);
      par[0] = this.cb + 8 * cols[4 * g] * n;
      par[1] = k;
      par[4] = this.cb + 8 * cols[4 * g + 1] * n;
      par[5] = this.cb + 8 * cols[4 * g + 2] * n;
      par[6] = this.cb + 8 * cols[4 * g + 3] * n;
      run();
      f += 4 * reach.fma[k];
      d += 4 * reach.divs[k];
    }
    this.solveMuls = f;
    this.solveAdds = f;
    this.solveDivs = d;
  }

  /**
   * A plan of groups (validated once, allocates): group g solves lanes[g] ∈ {1, 2, 4} columns
   * cols[4g .. 4g + lanes[g]) on pattern `pattern[g]` (with the single, pair or quad kernel), negated
   * when negate[g] is 1. Run it with `solvePlan`.
   */
  plan(cols: Int32Array, pattern: Int32Array, lanes: Uint8Array, negate: Uint8Array, ngroups: number): ReachPlan {
    const reach = this.reach, n = this.n;
    if (!(Number.isInteger(ngroups) && ngroups >= 0 && cols.length >= 4 * ngroups && pattern.length >= ngroups && lanes.length >= ngroups && negate.length >= ngroups)) {
      throw new RangeError(`plan: ${ngroups} groups need 4 column slots, a pattern, a lane count and a sign each`);
    }
    let fma = 0, divs = 0;
    const base = new Int32Array(4 * ngroups);
    for (let g = 0; g < ngroups; g++) {
      const l = lanes[g];
      if (l !== 1 && l !== 2 && l !== 4) throw new RangeError(`plan: group ${g} has ${l} lanes, expected 1, 2 or 4`);
      const k = pattern[g];
      if (!(k >= 0 && k < reach.npat)) throw new RangeError(`pattern[${g}] is ${k}, expected a pattern of the reach (0..${reach.npat - 1})`);
      for (let t = 4 * g; t < 4 * g + l; t++) {
        const c = cols[t];
        if (!(c >= 0 && c < this.ncols)) throw new RangeError(`column ${c} is outside the ${this.ncols} of this ReachSolver`);
        for (let u = 4 * g; u < t; u++) if (cols[u] === c) throw new RangeError(`column ${c} appears twice in group ${g}`);
        base[t] = this.cb + 8 * c * n;
      }
      fma += l * reach.fma[k];
      divs += l * reach.divs[k];
    }
    return {
      ngroups, cols: cols.slice(0, 4 * ngroups), pattern: pattern.slice(0, ngroups), lanes: lanes.slice(0, ngroups), negate: negate.slice(0, ngroups), base, fma, divs,
      single: Int32Array.from({ length: ngroups }, (_, g) => pattern[g]),
    };
  }

  /** Runs a plan (`plan`) with the factors of lu's last refactor, copied in once. Same values and counts as `solve` column by column. No allocation. */
  solvePlan(P: ReachPlan): void {
    const lu = this.lu, n = this.n, reach = this.reach;
    const direct = !(this.run === null || lu.symbolic !== reach.symbolic || lu.scaling !== 'none' || (lu.refine > 0 && lu.symbolic.nblocks < n));
    const { ngroups, cols, lanes, negate, base } = P;
    if (!direct) {
      let m = 0, a = 0, d = 0;
      for (let g = 0; g < ngroups; g++) {
        for (let t = 4 * g; t < 4 * g + lanes[g]; t++) {
          this.solve(cols[t], 1, P.single.subarray(g, g + 1), negate[g] === 1);
          m += this.solveMuls; a += this.solveAdds; d += this.solveDivs;
        }
      }
      this.solveMuls = m; this.solveAdds = a; this.solveDivs = d;
      return;
    }
    this.X!.set(lu.LUx);
    const par = this.par!, sgn = this.sgn!, pat = P.pattern;
    const quad = this.runQuad, pair = this.runPair!, one = this.run;
    for (let g = 0; g < ngroups; g++) {
      const o = 4 * g;
      let l = lanes[g];
      sgn[0] = negate[g] === 1 ? -1 : 1;
      par[1] = pat[g];
      if (l === 4 && quad !== null) {
        par[0] = base[o]; par[4] = base[o + 1]; par[5] = base[o + 2]; par[6] = base[o + 3];
        quad();
      } else {
        // pairs (a quad without SIMD runs as two pairs), then a single
        let t = o;
        for (; l >= 2; l -= 2, t += 2) {
          par[0] = base[t]; par[4] = base[t + 1];
          pair();
        }
        if (l === 1) { par[0] = base[t]; one(); }
      }
    }
    this.solveMuls = P.fma;
    this.solveAdds = P.fma;
    this.solveDivs = P.divs;
  }
}
