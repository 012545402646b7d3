/**
 * code = loopLU(layout): the refactor and the solve of one NumericLU as WebAssembly loops over the
 * tables of its layout (the refactor's updates by target slot, the column pointers, the pivot
 * positions, the rows of the solves), in the module's memory. Where compiled.ts unrolls every
 * multiply-subtract into a statement, whose code grows with the factors and runs slower than the
 * generic kernels past ~60,000 statements, this module's loops are ~2.4 kB for any size, plus the
 * column templates (below), which the layout's repetitions bound (at most TEMPLATE_LIMIT
 * statements) and a driver of one call per column: memory, not code, grows with the factors.
 *
 * The loops perform the same IEEE operations in the same order as the generic kernels (block-factor.ts:
 * factorBlockMapped; solve.ts: solveInto with none or one working-precision refinement step), so factors,
 * solutions and counts are the same bit for bit. The pivot checks (threshold, growth, zero and
 * non-finite values) are kept; when one fails, `factor` returns false and the caller runs the
 * generic pass, which re-pivots or reports the error.
 *
 * Measured against the generic JavaScript kernels (same machine, same run; scripts/bench-lu-time.ts):
 * the triangular solve of a 384-link chain's inverse dynamics runs ~4× faster, a 96-link chain's
 * whole forward dynamics ~3×; against the straight-line code it is 2–15% slower on small systems
 * and does not degrade on large ones (compiled.ts, "Size").
 *
 * A triangular matrix solved from its source (CompileInput.direct) is solved row by row (solveB, as
 * in compiled.ts: each row's sum in a register, its terms read through tables of source and
 * unknown addresses in the column-oriented solve's order), and its `factor` checks only the pivots
 * that may change. Measured against the column-oriented loops reading the source: inverse
 * dynamics of a 1,000-link chain 257 → 242 µs, of a 1,000-body tree 365 → 332 µs.
 *
 * The refactor of a block sums each slot in a register (as compiled.ts, "Sums in registers"): its
 * value read from C where it stands, then its updates X[s] · X[pu] in the kernel's order, through a
 * table of address pairs (8 bytes per update, where the column-oriented loop read a 16-bit slot
 * map but loaded and stored the target at every update). Measured on forward dynamics of a 96-link
 * chain (best of 15 rounds, alternated): the refactor 35.4–35.8 → 31.2 µs. Summing a column's L
 * entries four at a time (independent sums, padded with exact 0 · 0 updates) gained nothing
 * (32.0–32.8 µs): their sums are short (2.2 updates on average), so the time goes to the loops'
 * overhead, not to the latency of the subtractions. The refined solve of such a block runs row by
 * row too (each row's sum in a register, its terms through a table of (unknown, value address)
 * pairs in the column-oriented solve's order): the same chain's solve 27.4–27.6 → 24.6–25.3 µs.
 *
 * Column templates. A column's refactor code depends on its shape (its numbers of U and L entries,
 * which of its slots C fills, the U entry of each update), not on its addresses: the columns of one
 * shape share a straight-line function that reads their addresses from a table (the U entries in
 * locals, no loop, no branch but the checks), called in turn by a straight-line driver. Periodic
 * structures have few shapes whatever their size (a chain's forward dynamics: 5,300 statements of
 * templates for 96 or 384 links alike, 6,500 for 1,000; a random tree of 200 bodies: 815 shapes for
 * 2,290 columns, past the limit). Used while the templates total at most TEMPLATE_LIMIT statements, else
 * the per-slot loop. Measured (best of 15 rounds, alternated): the 96-link chain's refactor 31 → 22
 * µs, its forward dynamics 69–71 → 62 µs (ABA 41); at 384 links no change (129 µs: the module's
 * memory, ~7.4 kB per body, no longer stays in the second-level cache). The same templates for
 * the refined solve (windows of 8 rows keyed by their lengths) gained nothing: its terms load their
 * unknown's and value's addresses either way, and only the loop control went. Keyed instead by the
 * offsets of their unknowns and values from two bases (no address loaded), the windows hardly
 * repeat (307 templates for 390 windows on the 96-link chain: the pivot order is not periodic row
 * by row), past the limit.
 *
 * The driver calls the templated columns by straight-line code (a call per column) up to
 * DRIVER_LIMIT columns, and above by a loop over a table of (words, template) pairs through the
 * function table (call_indirect): measured (best of 15 rounds, alternated, refactor µs) straight /
 * loop: 96-link chain 21.9 / 23.5, 192: 46.8 / 48.2, 256: 64.7 / 66.3, 288: 86.6 / 76.1, 384:
 * 116.6 / 102.4, 1,000: 401 / 311 — past ~3,000 columns (~40 kB of calls) the straight-line driver's
 * code streams from the caches at every call. The refinement's residual reads C_bb where it stands
 * in A when A is the module's copy or a source left unchanged until the last solve (CompiledLU.
 * residualFromA; the refactor then keeps no copy of C_bb). Folding |C_bb| and |u| into per-block
 * maxima inside the templates, checked after the block (no pass over C_bb before it), was slower
 * (96-link chain 35.8 → 39.2 µs, 384: 156 → 187, under load): each f64.max is a compare and branches
 * on x86 (NaN and ±0), where the pass it replaced was one loop over C_bb.
 *
 * Memory (f64 slots, then i32 tables): X = LU values, A = C's values in A's order or the source
 * vector (CompileInput.gather), Cb (refinement), w, rb, dz, out, B, a slot that stays 0; then the tables, every position
 * stored as a byte offset so that the loops index memory without shifts.
 */
import { assemble, blockSolveRows, Bytes, slotUpdates, triangularRows, type CompiledLU, type CompileInput } from './compiled.ts';

export const O = {
  block: 0x02, loop: 0x03, if: 0x04, end: 0x0b, br: 0x0c, brIf: 0x0d, return: 0x0f, void: 0x40,
  get: 0x20, set: 0x21, tee: 0x22,
  i32Load: 0x28, f64Load: 0x2b, f64Store: 0x39, i32Const: 0x41, f64Const: 0x44,
  i32Eqz: 0x45, i32Eq: 0x46, i32GeS: 0x4e, i32LeS: 0x4c, i32GtS: 0x4a, i32LtS: 0x48,
  f64Eq: 0x61, f64Lt: 0x63, f64Gt: 0x64, f64Le: 0x65,
  i32Add: 0x6a, i32Sub: 0x6b, i32And: 0x71, i32Or: 0x72, i32Shl: 0x74, i32ShrU: 0x76,
  f64Abs: 0x99, f64Neg: 0x9a, f64Add: 0xa0, f64Sub: 0xa1, f64Mul: 0xa2, f64Div: 0xa3, f64Max: 0xa5,
} as const;

/** A function body: i32 locals 0..19, f64 locals 20..27. */
export class Body {
  readonly c = new Bytes();
  op(...b: number[]): this { for (const x of b) this.c.byte(x); return this; }
  i32(v: number): this {
    this.c.byte(O.i32Const);
    // signed LEB128
    for (;;) {
      const b = v & 0x7f;
      v >>= 7;
      if ((v === 0 && (b & 0x40) === 0) || (v === -1 && (b & 0x40) !== 0)) { this.c.byte(b); return this; }
      this.c.byte(b | 0x80);
    }
  }
  f64(x: number): this { this.c.byte(O.f64Const); this.c.f64(x); return this; }
  get(i: number): this { return this.op(O.get, i); }
  set(i: number): this { return this.op(O.set, i); }
  tee(i: number): this { return this.op(O.tee, i); }
  /** i32 at byte address (stack) + offset */
  ldi(offset: number): this { this.op(O.i32Load, 2); this.c.u32(offset); return this; }
  ldf(offset: number): this { this.op(O.f64Load, 3); this.c.u32(offset); return this; }
  stf(offset: number): this { this.op(O.f64Store, 3); this.c.u32(offset); return this; }
  /** local i = table[local j] (i32 table at byte `tab`, index j) */
  tab(i: number, tab: number, j: number): this { return this.get(j).i32(2).op(O.i32Shl).ldi(tab).set(i); }
  /** return `v` (i32) when the i32 on the stack is nonzero */
  failIf(): this { return this.op(O.if, O.void).i32(0).op(O.return, O.end); }
  /** for (i = lo; i < hi; i += step) body  (lo, hi: locals; i32, signed) */
  up(i: number, lo: number, hi: number, step: number, body: () => void): this {
    this.get(lo).set(i);
    this.op(O.block, O.void, O.loop, O.void);
    this.get(i).get(hi).op(O.i32GeS, O.brIf, 1);
    body();
    this.get(i).i32(step).op(O.i32Add).set(i);
    this.op(O.br, 0, O.end, O.end);
    return this;
  }
  /** for (i = hi − step; i ≥ lo; i −= step) body */
  down(i: number, lo: number, hi: number, step: number, body: () => void): this {
    this.get(hi).set(i);
    this.op(O.block, O.void, O.loop, O.void);
    this.get(i).get(lo).op(O.i32LeS, O.brIf, 1);
    this.get(i).i32(step).op(O.i32Sub).set(i);
    body();
    this.op(O.br, 0, O.end, O.end);
    return this;
  }
  finish(result: boolean): Uint8Array {
    if (result) this.i32(1);
    this.c.byte(O.end);
    const body = new Bytes();
    body.bytes([2, 20, 0x7f, 8, 0x7c]); // 20 i32 locals, 8 f64 locals
    body.bytes(this.c.view());
    return body.view().slice();
  }
}

/** signed LEB128 */
function sleb(b: Bytes, v: number): void {
  for (;;) {
    const x = v & 0x7f;
    v >>= 7;
    if ((v === 0 && (x & 0x40) === 0) || (v === -1 && (x & 0x40) !== 0)) { b.byte(x); return; }
    b.byte(x | 0x80);
  }
}

/** largest total of statements of the column templates (CompileInput.templateLimit; above it the per-slot loop factors the columns) */
export const TEMPLATE_LIMIT = 12000;

/**
 * most templated columns called by straight-line code (CompileInput.driverLimit); above it the
 * driver is a loop over a table (measured: "Column templates" above)
 */
export const DRIVER_LIMIT = 3000;

/**
 * Generates and instantiates the loop kernels of a layout (refactor; solve without refinement or
 * with one working-precision step; w = ±b(p)). Allocates; run once per layout. Needs the mapped
 * kernel's tables (T, Tp, Llo, Lhi).
 */
export function loopLU(c: CompileInput): CompiledLU {
  const { n, nnz, r, nblocks, Bp, Bslot, Op, Oslot, p, q, cs, us, dpos, LUi, Bpos, Opos } = c;
  const nX = cs[n];
  const refine = c.refine > 0;
  const gather = c.gather;
  /**
   * the refinement's residual reads C_bb where it stands in A (CompiledLU.residualFromA): A is the
   * module's own copy, or a source that the caller leaves unchanged until its last solve
   * (CompileInput.direct); else `factor` copies C_bb into Cb
   */
  const residualFromA = gather === undefined || c.direct === true;
  const nC = refine && !residualFromA ? Bp[n] : 0;
  const nA = gather ? c.nsrc! : nnz;
  const src = gather ? (t: number) => gather[t] : (t: number) => t;
  // f64 regions (byte offsets)
  let off = 0;
  const f64s = (len: number) => { const o = off; off += 8 * len; return o; };
  const XB = f64s(nX), AB = f64s(nA), CB = f64s(nC), WB = f64s(n), RB = f64s(n), DB = f64s(n), OB = f64s(n), BB = f64s(n);
  /** a slot that stays 0; each block's growth bound (the column templates read it) */
  const ZB = f64s(1), ULB = f64s(nblocks);
  /** the refinement's backward-error test (CompileInput.refineOmega; refine.ts): its threshold, and per block whether it failed (CompiledLU.refined) */
  const omega = c.refine === 1 && (c.refineOmega ?? 0) > 0 ? c.refineOmega! : 0;
  const nRf = omega > 0 ? nblocks : 0;
  const RFB = f64s(nRf);
  // i32 tables (byte offsets; positions as byte offsets of their f64 slots)
  const tables: [number, ArrayLike<number>, (v: number) => number][] = [];
  const i32s = (a: ArrayLike<number>, f: (v: number) => number) => { const o = off; off += 4 * a.length; tables.push([o, a, f]); return o; };
  const x8 = (v: number) => XB + 8 * v;
  const nBig = Bp[n];
  const Rt = i32s(r.subarray(0, nblocks + 1), (v) => v);
  const CSt = i32s(cs, x8), USt = i32s(us, x8), DPt = i32s(dpos, x8);
  const Qt = i32s(q, (v) => OB + 8 * v), Pt = i32s(p, (v) => BB + 8 * v);
  const LUIt = i32s(LUi, (v) => 8 * v); // row offsets, added to the vector's base
  const BPt = i32s(Bp, (v) => v);
  const BSt = i32s(Bslot.subarray(0, nBig), (t) => AB + 8 * src(t));
  const OPOSt = i32s(Opos, x8), OSt = i32s(Oslot.subarray(0, Op[n]), (t) => AB + 8 * src(t));
  // the refactor of a block larger than 1×1, slot by slot (as compiled.ts, "Sums in registers"): per
  // slot the address of its value in C (or of ZB, a slot that stays 0) and its first update; per
  // update, in the kernel's order for its slot, the addresses of X[s] and of its U entry X[pu]
  const initOf = new Int32Array(nX).fill(ZB);
  for (let blk = 0; blk < nblocks; blk++) {
    if (r[blk + 1] - r[blk] < 2) continue;
    for (let e = Bp[r[blk]]; e < Bp[r[blk + 1]]; e++) initOf[Bpos[e]] = AB + 8 * src(Bslot[e]);
  }
  const ups = slotUpdates(c), firstOp = ups.first;
  const ops = new Int32Array(2 * firstOp[nX]);
  for (let x = 0; x < firstOp[nX]; x++) { ops[2 * x] = XB + 8 * ups.s[x]; ops[2 * x + 1] = XB + 8 * ups.pu[x]; }
  // the refined solve of a block larger than 1×1, row by row (as compiled.ts): per row i, its L
  // entries (columns ascending), its U entries above the diagonal (columns descending) and its
  // entries of C_bb (columns ascending, the residual), each as a pair (8 j, address of the value);
  // per row the address of its first pair (one table per kind, n + 1 entries)
  const rowTables = (kind: 0 | 1 | 2) => {
    const { start, col, at } = refine ? blockSolveRows(c, kind) : { start: new Int32Array(n + 1), col: new Int32Array(0), at: new Int32Array(0) };
    const pairs = new Int32Array(2 * start[n]);
    const addr = kind !== 2 ? (a: number) => XB + 8 * a : residualFromA ? (e: number) => AB + 8 * src(Bslot[e]) : (e: number) => CB + 8 * e;
    for (let x = 0; x < start[n]; x++) { pairs[2 * x] = 8 * col[x]; pairs[2 * x + 1] = addr(at[x]); }
    const pt = i32s(pairs, (v) => v);
    return i32s(start, (v) => pt + 8 * v);
  };
  const LRt = rowTables(0), URt = rowTables(1), CRt = rowTables(2);
  // the columns of the blocks larger than 1×1 as templates: a column's code depends only on its
  // shape (its numbers of U and L entries, which of its slots C fills, and the U entry of each
  // update), not on its addresses, so the columns of one shape share one straight-line function
  // that reads their addresses from a table (8·base of the column's slots, the block's growth
  // bound, then per slot the address of its value in C when it has one and of X[s] per update).
  // Periodic structures (chains) have few shapes whatever their length; used when the templates
  // stay small (TEMPLATE_LIMIT statements), else the per-slot loop above
  const templateLimit = c.templateLimit ?? TEMPLATE_LIMIT;
  const shapeOf = new Map<string, number>();
  const shapes: { k: number; statements: number }[] = [];
  const colShape: number[] = [], colWord: number[] = [];
  const words: number[] = [];
  let templStatements = 0;
  // triangular matrices (every block 1×1: inverse dynamics): each column is its entries above the
  // diagonal then its pivot, and the loops run over slots and columns without the block tables
  const tri = nblocks === n;
  if (!tri) {
    for (let blk = 0; blk < nblocks && templStatements <= templateLimit; blk++) {
      const k1 = r[blk], k2 = r[blk + 1];
      if (k2 - k1 < 2) continue;
      for (let k = k1; k < k2; k++) {
        const key: number[] = [dpos[k] - us[k], cs[k + 1] - dpos[k]];
        colWord.push(words.length);
        words.push(XB + 8 * us[k], ULB + 8 * blk);
        for (let t = us[k]; t < cs[k + 1]; t++) {
          const init = initOf[t] !== ZB;
          key.push(init ? 1 : 0, firstOp[t + 1] - firstOp[t]);
          if (init) words.push(initOf[t]);
          for (let x = firstOp[t]; x < firstOp[t + 1]; x++) { key.push((ops[2 * x + 1] - XB) / 8 - us[k]); words.push(ops[2 * x]); }
        }
        const id = key.join(',');
        let sh = shapeOf.get(id);
        if (sh === undefined) {
          sh = shapes.length;
          shapeOf.set(id, sh);
          const statements = cs[k + 1] - us[k] + firstOp[cs[k + 1]] - firstOp[us[k]];
          shapes.push({ k, statements });
          templStatements += statements;
        }
        colShape.push(sh);
      }
    }
  }
  const templated = !tri && shapes.length > 0 && templStatements <= templateLimit;
  const COLWt = templated ? i32s(Int32Array.from(words), (v) => v) : 0;
  // many columns: the driver loops over a table of (words, template) pairs and calls through the
  // function table, where straight-line calls would stream their code (DRIVER_LIMIT)
  const loopDriver = templated && colShape.length > (c.driverLimit ?? DRIVER_LIMIT);
  const DRVt = loopDriver ? i32s(Int32Array.from({ length: 2 * colShape.length }, (_, i) => (i & 1) === 0 ? COLWt + 4 * colWord[i >> 1] : colShape[i >> 1]), (v) => v) : 0;
  // the per-slot loop's tables (not needed with templates)
  const INITt = templated ? 0 : i32s(initOf, (v) => v);
  const OPSt = templated ? 0 : i32s(ops, (v) => v);
  const FOt = templated ? 0 : i32s(firstOp, (v) => OPSt + 8 * v);
  let SRCt = 0;
  // direct (CompileInput.direct): the solves read each slot's source value where it stands (SRCt),
  // `factor` checks the pivots whose values are not fixed (CHKt) and copies nothing
  const direct = tri && c.direct === true && gather !== undefined;
  let CHKt = 0, nchk = 0;
  /** the address of each slot's value in the source (triangular) */
  const SRC8 = new Int32Array(tri ? nX : 0);
  if (tri) {
    for (let e = 0; e < Op[n]; e++) SRC8[Opos[e]] = AB + 8 * src(Oslot[e]);
    for (let k = 0; k < n; k++) SRC8[dpos[k]] = AB + 8 * src(Bslot[Bp[k]]);
    SRCt = i32s(SRC8, (v) => v);
    if (direct) {
      const chk: number[] = [];
      for (let k = 0; k < n; k++) {
        const sp = src(Bslot[Bp[k]]);
        if (c.fixed === undefined || c.fixed[sp] !== 1) chk.push(AB + 8 * sp);
      }
      nchk = chk.length;
      CHKt = i32s(Int32Array.from(chk), (v) => v);
    }
  }
  // direct: the row-oriented solve's tables (NumericLU's solveB, as compiled.ts): per row its first
  // entry (×4), the addresses of its b (B[p_k]), its pivot's value and its unknown (out[q_k]); per
  // entry, in descending column order (the column-oriented solve's), the addresses of its value and
  // of its column's unknown
  let RSt = 0, RBt = 0, RPt = 0, RQt = 0, ESt = 0, ECt = 0;
  if (direct) {
    const { rowStart, slotOf, colOf } = triangularRows(n, cs, dpos, LUi);
    const eSrc = Int32Array.from(slotOf, (t) => SRC8[t]), eCol = Int32Array.from(colOf, (j) => OB + 8 * q[j]);
    RSt = i32s(rowStart, (v) => 4 * v);
    RBt = i32s(p, (v) => BB + 8 * v);
    RPt = i32s(Int32Array.from(dpos, (d) => SRC8[d]), (v) => v);
    RQt = i32s(q, (v) => OB + 8 * v);
    ESt = i32s(eSrc, (v) => v);
    ECt = i32s(eCol, (v) => v);
  }
  const pages = Math.max(1, Math.ceil(off / 65536));

  // locals
  const B_ = 0, K1 = 1, K2 = 2, E = 3, E1 = 4, K = 5, C0 = 6, D = 7, C1 = 8, PU = 9, S = 10, S1 = 11, OO = 12, TT = 13, J = 14;
  /** the solve's backward-error test: its flag (i32), a product c·y and the sum s (f64; the factor's locals V and M) */
  const FL = 15, PR = 20, SS = 21;
  /** a slot's index (direct solves) */
  const SL = 15;
  /** bounds of the outermost loops (never written inside them) */
  const LO = 16, HI = 17;
  const V = 20, M = 21, UL = 22, P = 24, AA = 25, L = 26, X0 = 27;
  const G = c.growthLimit, RT = 1 / c.checkTol;

  // ---- factor: () → i32 (1: done; 0: a check failed)
  const f = new Body();
  if (direct) {
    // the pivots whose values may change: fail if 0 or not finite
    f.i32(0).set(LO).i32(nchk).set(HI);
    f.up(K, LO, HI, 1, () => {
      f.tab(D, CHKt, K).get(D).ldf(0).set(V);
      f.get(V).f64(0).op(O.f64Eq).get(V).get(V).op(O.f64Sub).f64(0).op(O.f64Eq, O.i32Eqz, O.i32Or).failIf();
    });
  } else if (tri) {
    // X = the gathered values, slot by slot; then every pivot: fail if 0 or not finite
    f.i32(XB).set(LO).i32(XB + 8 * nX).set(HI);
    f.up(S, LO, HI, 8, () => {
      f.get(S).get(S).i32(XB).op(O.i32Sub).i32(1).op(O.i32ShrU).ldi(SRCt).ldf(0).stf(0);
    });
    f.i32(0).set(LO).i32(n).set(HI);
    f.up(K, LO, HI, 1, () => {
      f.tab(D, DPt, K).get(D).ldf(0).set(V);
      f.get(V).f64(0).op(O.f64Eq).get(V).get(V).op(O.f64Sub).f64(0).op(O.f64Eq, O.i32Eqz, O.i32Or).failIf();
    });
  }
  f.i32(0).set(LO).i32(tri ? 0 : nblocks).set(HI);
  f.up(B_, LO, HI, 1, () => {
    f.tab(K1, Rt, B_).get(B_).i32(1).op(O.i32Add).set(K2).tab(K2, Rt, K2);
    f.get(K2).get(K1).op(O.i32Sub).i32(1).op(O.i32Eq, O.if, O.void);
    {
      // 1×1: v = A; fail if v = 0 or not finite; X[d] = v
      f.tab(E, BPt, K1).tab(E, BSt, E).get(E).ldf(0).set(V);
      f.get(V).f64(0).op(O.f64Eq).get(V).get(V).op(O.f64Sub).f64(0).op(O.f64Eq, O.i32Eqz, O.i32Or).failIf();
      f.tab(D, DPt, K1).get(D).get(V).stf(0);
    }
    f.op(0x05); // else
    {
      // m = max |C_bb| (and C_bb kept for the refinement unless it is read from A); the columns
      // read C where it stands
      f.f64(0).set(M);
      f.tab(E, BPt, K1).tab(E1, BPt, K2);
      f.up(TT, E, E1, 1, () => {
        f.tab(S, BSt, TT).get(S).ldf(0).set(V);
        if (refine && !residualFromA) f.get(TT).i32(3).op(O.i32Shl).get(V).stf(CB);
        f.get(M).get(V).op(O.f64Abs, O.f64Max).set(M);
      });
      f.get(M).f64(Infinity).op(O.f64Lt, O.i32Eqz).failIf();
      f.f64(G).get(M).op(O.f64Mul).set(UL);
      if (templated) {
        // the columns run after the blocks (templates, the driver below): keep the bound
        f.get(B_).i32(3).op(O.i32Shl).get(UL).stf(ULB);
      }
      /** V = slot S's value in C minus its updates X[s] X[pu], in the kernel's order */
      const summed = () => {
        f.get(S).i32(XB).op(O.i32Sub).i32(1).op(O.i32ShrU).set(J);
        f.get(J).ldi(INITt).ldf(0).set(V);
        f.get(J).ldi(FOt).set(OO).get(J).ldi(FOt + 4).set(S1);
        f.up(TT, OO, S1, 8, () => {
          f.get(V).get(TT).ldi(0).ldf(0).get(TT).ldi(4).ldf(0).op(O.f64Mul, O.f64Sub).set(V);
        });
      };
      if (!templated) f.up(K, K1, K2, 1, () => {
        f.tab(D, DPt, K).get(K).i32(1).op(O.i32Add).set(J).tab(C1, CSt, J);
        f.tab(E, USt, K);
        // U entries: fail unless |u| ≤ ul
        f.up(S, E, D, 8, () => {
          summed();
          f.get(S).get(V).stf(0);
          f.get(V).op(O.f64Abs).get(UL).op(O.f64Le, O.i32Eqz).failIf();
        });
        f.get(D).set(S);
        summed();
        f.get(D).get(V).stf(0);
        // pivot: fail unless 0 < |p| ≤ ul; l = |p| / checkTol; L(:,k) = x / p with |x| ≤ l
        f.get(V).tee(P).op(O.f64Abs).set(AA);
        f.get(AA).f64(0).op(O.f64Gt).get(AA).get(UL).op(O.f64Le, O.i32And, O.i32Eqz).failIf();
        f.get(AA).f64(RT).op(O.f64Mul).set(L);
        f.get(D).i32(8).op(O.i32Add).set(E);
        f.up(S, E, C1, 8, () => {
          summed();
          f.get(V).op(O.f64Abs).get(L).op(O.f64Le, O.i32Eqz).failIf();
          f.get(S).get(V).get(P).op(O.f64Div).stf(0);
        });
      });
    }
    f.op(O.end);
  });
  // entries above the diagonal blocks
  f.i32(0).set(LO).i32(tri ? 0 : Op[n]).set(HI);
  f.up(E, LO, HI, 1, () => {
    f.tab(S, OPOSt, E).tab(S1, OSt, E).get(S).get(S1).ldf(0).stf(0);
  });
  // the columns of the blocks larger than 1×1 (templated): the driver, a function after all others
  /** the sparse solve (no refinement) is compiled */
  const sparse = c.refine === 0 || nblocks === n;
  /** the solve without its refinement step is compiled (CompiledLU.solvePlain): where the solve refines */
  const plain = c.plain === true && c.refine === 1 && !direct && !tri;
  const driverIndex = 4 + (plain ? 1 : 0) + (sparse ? 1 : 0) + (direct ? 3 : 0);
  if (templated) {
    f.op(0x10).c.u32(driverIndex); // call
    f.op(O.i32Eqz).failIf();
  }
  const factorBody = f.finish(true);
  const templateBodies: Uint8Array[] = [];
  let driverBody: Uint8Array | null = null;
  if (templated) {
    // template of shape h, from its first column k: (ptr: its words) → 1, or 0 when a check fails
    // (locals: 0 ptr, 1 base (i32); 2 acc, 3 p, 4 |p|, 5 l, 6 ul, 7… the column's U entries (f64))
    const PTR = 0, BASE = 1, ACC = 2, PP = 3, AP = 4, LL = 5, UB = 6, U0 = 7;
    for (const { k } of shapes) {
      const b = new Bytes();
      const nU = dpos[k] - us[k];
      const get = (i: number) => { b.byte(O.get); b.u32(i); };
      const set = (i: number) => { b.byte(O.set); b.u32(i); };
      let w = 0;
      /** the address in word w of the column's table, on the stack */
      const word = () => { get(PTR); b.byte(O.i32Load); b.byte(2); b.u32(4 * w++); };
      const ldf = () => { b.byte(O.f64Load); b.byte(3); b.byte(0); };
      const fail = () => { b.byte(O.if); b.byte(O.void); b.byte(O.i32Const); b.byte(0); b.byte(O.return); b.byte(O.end); };
      const absLe = (x: number, lim: number) => { get(x); b.byte(O.f64Abs); get(lim); b.byte(O.f64Le); b.byte(O.i32Eqz); fail(); };
      word(); set(BASE);
      word(); ldf(); set(UB);
      for (let t = us[k]; t < cs[k + 1]; t++) {
        const pos = t - us[k];
        if (initOf[t] !== ZB) { word(); ldf(); } else { b.byte(O.f64Const); b.f64(0); }
        for (let x = firstOp[t]; x < firstOp[t + 1]; x++) {
          word(); ldf(); get(U0 + (ops[2 * x + 1] - XB) / 8 - us[k]); b.byte(O.f64Mul); b.byte(O.f64Sub);
        }
        set(ACC);
        if (t < dpos[k]) {
          get(ACC); set(U0 + pos);
          get(BASE); get(ACC); b.byte(O.f64Store); b.byte(3); b.u32(8 * pos);
          absLe(ACC, UB);
        } else if (t === dpos[k]) {
          get(BASE); get(ACC); b.byte(O.f64Store); b.byte(3); b.u32(8 * pos);
          // pivot: fail unless 0 < |p| ≤ ul; l = |p| / checkTol
          get(ACC); set(PP); get(PP); b.byte(O.f64Abs); set(AP);
          get(AP); b.byte(O.f64Const); b.f64(0); b.byte(O.f64Gt); get(AP); get(UB); b.byte(O.f64Le); b.byte(O.i32And); b.byte(O.i32Eqz); fail();
          get(AP); b.byte(O.f64Const); b.f64(RT); b.byte(O.f64Mul); set(LL);
        } else {
          absLe(ACC, LL);
          get(BASE); get(ACC); get(PP); b.byte(O.f64Div); b.byte(O.f64Store); b.byte(3); b.u32(8 * pos);
        }
      }
      b.byte(O.i32Const); b.byte(1); b.byte(O.end);
      const body = new Bytes();
      body.bytes([2, 1, 0x7f]); body.u32(5 + nU); body.byte(0x7c);
      body.bytes(b.view());
      templateBodies.push(body.view().slice());
    }
    // the driver: every templated column in turn, by one straight-line call per column up to
    // DRIVER_LIMIT columns, else by a loop over (words, template) pairs with call_indirect
    if (loopDriver) {
      const d = new Body();
      d.i32(DRVt).set(LO).i32(DRVt + 8 * colShape.length).set(HI);
      d.up(E, LO, HI, 8, () => {
        d.get(E).ldi(0).get(E).ldi(4);
        d.op(0x11, 2, 0); // call_indirect (type 2, table 0)
        d.op(O.i32Eqz).failIf();
      });
      driverBody = d.finish(true);
    } else {
      const b = new Bytes();
      for (let x = 0; x < colShape.length; x++) {
        b.byte(O.i32Const); sleb(b, COLWt + 4 * colWord[x]);
        b.byte(0x10); b.u32(driverIndex + 1 + colShape[x]);
        b.byte(O.i32Eqz); b.byte(O.if); b.byte(O.void); b.byte(O.i32Const); b.byte(0); b.byte(O.return); b.byte(O.end);
      }
      b.byte(O.i32Const); b.byte(1); b.byte(O.end);
      const body = new Bytes();
      body.byte(0);
      body.bytes(b.view());
      driverBody = body.view().slice();
    }
  }

  // ---- solve: () → ()
  let s = new Body();
  /** v[LUi[t]] −= X[t] x0 for the slots t (byte offsets) in [lo, hi), v at byte `vB` */
  const update = (vB: number, lo: number, hi: number) => {
    s.up(TT, lo, hi, 8, () => {
      s.get(TT).i32(XB).op(O.i32Sub).i32(1).op(O.i32ShrU).ldi(LUIt).tee(S);
      s.get(S).ldf(vB).get(TT).ldf(0).get(X0).op(O.f64Mul, O.f64Sub).stf(vB);
    });
  };
  /** local i = 8 j (byte offset of entry j of an f64 vector) */
  const j8 = (i: number, j: number) => { s.get(j).i32(3).op(O.i32Shl).set(i); };
  /** forward substitution with L_bb on vector vB, columns [K1, K2) */
  const lower = (vB: number) => {
    s.up(J, K1, K2, 1, () => {
      j8(PU, J);
      s.get(PU).ldf(vB).set(X0);
      s.tab(D, DPt, J).get(D).i32(8).op(O.i32Add).set(D).get(J).i32(1).op(O.i32Add).set(E).tab(C1, CSt, E);
      update(vB, D, C1);
    });
  };
  /** X0 −= v[j] · value over the pairs of row J in table `tab` */
  const rowTerms = (tab: number, vB: number) => {
    s.get(J).i32(2).op(O.i32Shl).tee(S).ldi(tab).set(E).get(S).ldi(tab + 4).set(E1);
    s.up(TT, E, E1, 8, () => {
      s.get(X0).get(TT).ldi(0).ldf(vB).get(TT).ldi(4).ldf(0).op(O.f64Mul, O.f64Sub).set(X0);
    });
  };
  /** v[i] = f[i] − Σ v'[j] · value over row i's pairs of table `tab` (rows K1..K2−1 ascending), each sum in X0 */
  const rowSum = (tab: number, fB: number, vB: number, outB: number) => {
    s.up(J, K1, K2, 1, () => {
      j8(PU, J);
      s.get(PU).ldf(fB).set(X0);
      rowTerms(tab, vB);
      s.get(PU).get(X0).stf(outB);
    });
  };
  /** v = L_bb⁻¹ f, row by row (f and v may be the same vector) */
  const rowLower = (fB: number, vB: number) => rowSum(LRt, fB, vB, vB);
  /** v = U_bb⁻¹ v, row by row from the last; with `plusB`, also w_i = y_i + v_i (y at plusB) as each row is final */
  const rowUpper = (vB: number, plusB = -1) => {
    s.down(J, K1, K2, 1, () => {
      j8(PU, J);
      s.get(PU).ldf(vB).set(X0);
      rowTerms(URt, vB);
      s.tab(D, DPt, J);
      s.get(X0).get(D).ldf(0).op(O.f64Div).set(X0);
      s.get(PU).get(X0).stf(vB);
      if (plusB >= 0) s.get(PU).get(PU).ldf(plusB).get(X0).op(O.f64Add).stf(WB);
    });
  };
  /** the columns from local `hi` − 1 down to local `lo`: y_j = w_j / u_jj, x(q_j) = y_j, w(rows of C(:, j) above) −= C(:, j) y_j */
  const columnsDown = (lo = K1, hi = K2) => {
    s.down(J, lo, hi, 1, () => {
      j8(PU, J);
      s.tab(D, DPt, J);
      s.get(PU).ldf(WB).get(D).ldf(0).op(O.f64Div).set(X0);
      s.tab(S1, Qt, J).get(S1).get(X0).stf(0);
      s.tab(C0, CSt, J);
      update(WB, C0, D);
    });
  };
  /** the block's solved columns from the first: x(q_j) = w_j, w(rows above the block) −= C(:, j) w_j */
  const unknownsUp = () => {
    s.up(J, K1, K2, 1, () => {
      j8(PU, J);
      s.get(PU).ldf(WB).set(X0);
      s.tab(S1, Qt, J).get(S1).get(X0).stf(0);
      s.tab(C0, CSt, J).tab(D, USt, J);
      update(WB, C0, D);
    });
  };
  if (direct) {
    // (solved row by row: rowBody below)
  } else if (c.refine <= 1 && tri) {
    // y_j = w_j / u_jj, x(q_j) = y_j, w(rows above) −= C(:, j) y_j, from the last column up
    s.i32(0).set(LO).i32(n).set(HI);
    columnsDown(LO, HI);
  } else if (c.refine <= 1) {
    s.i32(0).set(LO).i32(nblocks).set(HI);
    s.down(B_, LO, HI, 1, () => {
      s.tab(K1, Rt, B_).get(B_).i32(1).op(O.i32Add).set(K2).tab(K2, Rt, K2);
      s.get(K2).get(K1).op(O.i32Sub).i32(1).op(O.i32Eq);
      if (refine) s.op(O.if, O.void); // 1×1 blocks: plain; larger ones refined
      else s.i32(1).op(O.i32Or, O.if, O.void);
      {
        s.get(K2).get(K1).op(O.i32Sub).i32(1).op(O.i32GtS, O.if, O.void);
        lower(WB);
        s.op(O.end);
        columnsDown();
      }
      if (refine) {
        s.op(0x05); // else, row by row: y = C_bb \ w into rb (w kept); dz = w − C_bb y; dz = C_bb \ dz; w = y + dz; then the rows above
        rowLower(WB, RB);
        rowUpper(RB);
        if (omega === 0) {
          // dz_i = (w_i − Σ C_ij y_j) − Σ L_ij dz_j in one pass over the rows (the residual's row, then
          // the forward substitution's: the same operations in the same order as two passes)
          s.up(J, K1, K2, 1, () => {
            j8(PU, J);
            s.get(PU).ldf(WB).set(X0);
            rowTerms(CRt, RB);
            rowTerms(LRt, DB);
            s.get(PU).get(X0).stf(DB);
          });
          rowUpper(DB, RB);
        } else {
          // the backward-error test (refine.ts): dz_i = w_i − Σ C_ij y_j and s_i = |w_i| + Σ|C_ij y_j|
          // from the same products; FL = 1 when |dz_i| ≤ ω s_i fails for a row (NaN fails)
          s.i32(0).set(FL);
          s.up(J, K1, K2, 1, () => {
            j8(PU, J);
            s.get(PU).ldf(WB).tee(X0).op(O.f64Abs).set(SS);
            s.get(J).i32(2).op(O.i32Shl).tee(S).ldi(CRt).set(E).get(S).ldi(CRt + 4).set(E1);
            s.up(TT, E, E1, 8, () => {
              s.get(X0).get(TT).ldi(0).ldf(RB).get(TT).ldi(4).ldf(0).op(O.f64Mul).tee(PR).op(O.f64Sub).set(X0);
              s.get(SS).get(PR).op(O.f64Abs, O.f64Add).set(SS);
            });
            s.get(PU).get(X0).stf(DB);
            s.get(FL).get(X0).op(O.f64Abs).get(SS).f64(omega).op(O.f64Mul, O.f64Le, O.i32Eqz, O.i32Or).set(FL);
          });
          s.get(B_).i32(3).op(O.i32Shl).get(FL).op(0xb7 /* f64.convert_i32_s */).stf(RFB);
          s.get(FL).op(O.if, O.void);
          {
            // the correction: dz = C_bb \ dz (L then U, row by row), w = y + dz
            rowSum(LRt, DB, DB, DB);
            rowUpper(DB, RB);
          }
          s.op(0x05); // else: w = y
          s.up(J, K1, K2, 1, () => {
            j8(PU, J);
            s.get(PU).get(PU).ldf(RB).stf(WB);
          });
          s.op(O.end);
        }
        unknownsUp();
      }
      s.op(O.end);
    });
  }
  const solveBody = s.finish(false);
  // ---- the refined solve without its refinement step (solve.ts: solveInto with `refined` false):
  // a block larger than 1×1 solved row by row in place, then the rows above it updated
  let plainBody: Uint8Array | null = null;
  if (plain) {
    s = new Body();
    s.i32(0).set(LO).i32(nblocks).set(HI);
    s.down(B_, LO, HI, 1, () => {
      s.tab(K1, Rt, B_).get(B_).i32(1).op(O.i32Add).set(K2).tab(K2, Rt, K2);
      s.get(K2).get(K1).op(O.i32Sub).i32(1).op(O.i32Eq, O.if, O.void);
      columnsDown();
      s.op(0x05); // else
      rowLower(WB, WB);
      rowUpper(WB);
      unknownsUp();
      s.op(O.end);
    });
    plainBody = s.finish(false);
  }

  // ---- sparse solve (no refinement): a column is applied only when its unknown is nonzero;
  // returns the multiply-subtracts done (local CNT)
  const z = new Body();
  if (sparse) {
    const CNT = 18;
    /** when x0 ≠ 0: v[LUi[t]] −= X[t] x0 over [lo, hi), CNT += (hi − lo) / 8 */
    const guarded = (lo: number, hi: number) => {
      z.get(X0).f64(0).op(0x62 /* f64.ne */, O.if, O.void);
      z.up(TT, lo, hi, 8, () => {
        z.get(TT).i32(XB).op(O.i32Sub).i32(1).op(O.i32ShrU).tee(SL).ldi(LUIt).tee(S);
        z.get(S).ldf(WB);
        if (direct) z.get(SL).ldi(SRCt).ldf(0);
        else z.get(TT).ldf(0);
        z.get(X0).op(O.f64Mul, O.f64Sub).stf(WB);
      });
      z.get(CNT).get(hi).get(lo).op(O.i32Sub).i32(3).op(O.i32ShrU, O.i32Add).set(CNT);
      z.op(O.end);
    };
    z.i32(0).set(CNT);
    z.i32(0).set(LO).i32(nblocks).set(HI);
    z.down(B_, LO, HI, 1, () => {
      z.tab(K1, Rt, B_).get(B_).i32(1).op(O.i32Add).set(K2).tab(K2, Rt, K2);
      z.get(K2).get(K1).op(O.i32Sub).i32(1).op(O.i32GtS, O.if, O.void);
      z.up(J, K1, K2, 1, () => {
        z.get(J).i32(3).op(O.i32Shl).ldf(WB).set(X0);
        z.tab(D, DPt, J).get(D).i32(8).op(O.i32Add).set(D).get(J).i32(1).op(O.i32Add).set(E).tab(C1, CSt, E);
        guarded(D, C1);
      });
      z.op(O.end);
      z.down(J, K1, K2, 1, () => {
        z.tab(D, DPt, J);
        z.get(J).i32(3).op(O.i32Shl).ldf(WB);
        // u_jj: X[d], or (direct) its source value
        if (direct) z.get(D).i32(XB).op(O.i32Sub).i32(1).op(O.i32ShrU).ldi(SRCt).ldf(0);
        else z.get(D).ldf(0);
        z.op(O.f64Div).set(X0);
        z.tab(S1, Qt, J).get(S1).get(X0).stf(0);
        z.tab(C0, CSt, J);
        guarded(C0, D);
      });
    });
    z.get(CNT);
  }
  const sparseBody = z.finish(false);

  // ---- direct: row by row from B (plain and negated): s = ±b_{p_k} − Σ u x (register), x_{q_k} = s / u_kk
  const rowBody = (neg: boolean) => {
    const r = new Body();
    if (!direct) return r.finish(false);
    r.i32(0).set(LO).i32(n).set(HI);
    r.down(K, LO, HI, 1, () => {
      r.tab(S, RBt, K).get(S).ldf(0);
      if (neg) r.op(O.f64Neg);
      r.set(X0);
      r.tab(E, RSt, K).get(K).i32(1).op(O.i32Add).set(J).tab(E1, RSt, J);
      r.up(TT, E, E1, 4, () => {
        r.get(X0).get(TT).ldi(ESt).ldf(0).get(TT).ldi(ECt).ldf(0).op(O.f64Mul, O.f64Sub).set(X0);
      });
      r.tab(S, RQt, K).get(S).get(X0);
      r.tab(D, RPt, K).get(D).ldf(0).op(O.f64Div).stf(0);
    });
    return r.finish(false);
  };

  // ---- direct: X from the source, slot by slot
  const sx = new Body();
  if (direct) {
    sx.i32(XB).set(LO).i32(XB + 8 * nX).set(HI);
    sx.up(S, LO, HI, 8, () => {
      sx.get(S).get(S).i32(XB).op(O.i32Sub).i32(1).op(O.i32ShrU).ldi(SRCt).ldf(0).stf(0);
    });
  }
  const syncBody = sx.finish(false);

  // ---- w = b(p), w = −b(p)
  const wBody = (neg: boolean) => {
    const w = new Body();
    w.i32(0).set(LO).i32(n).set(HI);
    w.up(J, LO, HI, 1, () => {
      w.get(J).i32(3).op(O.i32Shl);
      w.tab(S, Pt, J).get(S).ldf(0);
      if (neg) w.op(O.f64Neg);
      w.stf(WB);
    });
    return w.finish(false);
  };
  const groups: { bodies: Uint8Array[]; type: 0 | 1 | 2 }[] = [
    { bodies: [factorBody], type: 0 }, { bodies: [solveBody, wBody(false), wBody(true), ...(plainBody ? [plainBody] : [])], type: 1 },
    { bodies: sparse ? [sparseBody] : [], type: 0 }, { bodies: direct ? [syncBody, rowBody(false), rowBody(true)] : [], type: 1 },
    { bodies: driverBody ? [driverBody] : [], type: 0 }, { bodies: templateBodies, type: 2 },
  ];
  const bytes = assemble(groups, pages, loopDriver ? Array.from(templateBodies, (_, i) => driverIndex + 1 + i) : undefined);
  const memory = new WebAssembly.Memory({ initial: pages });
  const buf = memory.buffer;
  for (const [o, a, tf] of tables) {
    const v = new Int32Array(buf, o, a.length);
    for (let k = 0; k < a.length; k++) v[k] = tf(a[k]);
  }
  const instance = new WebAssembly.Instance(new WebAssembly.Module(bytes), { e: { m: memory } });
  const ex = instance.exports as Record<string, () => number>;
  const np = plain ? 1 : 0;
  const factor = ex.f0, solve = ex.f1, wPlus = ex.f2, wMinus = ex.f3, solvePlainFn = plain ? ex.f4 : null, solveSparse = ex[`f${4 + np}`];
  const d0 = 4 + np + (sparse ? 1 : 0);
  const sync = direct ? ex[`f${d0}`] : null, rowPlus = direct ? ex[`f${d0 + 1}`] : null, rowMinus = direct ? ex[`f${d0 + 2}`] : null;
  return {
    X: new Float64Array(buf, XB, nX),
    A: new Float64Array(buf, AB, nA),
    Cb: new Float64Array(buf, CB, nC),
    residualFromA,
    w: new Float64Array(buf, WB, n),
    refined: new Float64Array(buf, RFB, nRf),
    out: new Float64Array(buf, OB, n),
    B: new Float64Array(buf, BB, n),
    wFromB(negate: boolean): void {
      if (negate) wMinus();
      else wPlus();
    },
    factor: () => factor() !== 0,
    solve: c.refine <= 1 && !direct ? () => { solve(); } : null,
    solvePlain: solvePlainFn === null ? null : () => { solvePlainFn(); },
    solveSparse: sparse ? solveSparse : null,
    syncX: sync === null ? null : () => { sync(); },
    solveB: direct ? (negate: boolean) => { if (negate) rowMinus!(); else rowPlus!(); } : null,
    memory,
    kind: 'loops',
    statements: templated ? templStatements : 0,
    bytes: bytes.length,
  };
}
