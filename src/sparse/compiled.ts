/**
 * code = compileLU(layout): the refactor and the solve of one NumericLU as straight-line
 * WebAssembly, generated from its fixed patterns and pivot order (the symbolic factorization is
 * known before the first step, as in robot-specific code generators). Every multiply-subtract of the
 * mapped kernel becomes `x −= X[s] · u` with s a constant memory offset and x, u in registers
 * (below, "Sums in registers"): no index is loaded at run time, and V8 compiles the module at once
 * (its baseline compiler; the optimizing one follows in the background).
 *
 * The generated code performs the same IEEE operations in the same order as the generic kernels
 * (block-factor.ts: factorBlockMapped; solve.ts: solveInto with one step of working-precision refinement), so factors
 * and solutions are the same bit for bit. The pivot checks (threshold, growth, zero and non-finite
 * values) are kept; when one fails, `factor` returns false and the caller runs the generic pass,
 * which re-pivots or reports the error.
 *
 * Candidates measured before this one (reports/bench-lu-time.md): the same straight-line code as
 * JavaScript (new Function) ran 0.6× the mapped kernel's time once optimized, but V8 took 0.15–1.6 s
 * to optimize each function of ~100 statements on a loaded machine, running 10–100× slower until
 * then; WebAssembly runs 2× faster than the mapped kernel from the first call and 4–5× once tiered up.
 *
 * Size: straight-line code trades index loads for instruction fetches. Measured on this project's
 * machine (2-core Xeon, V8 11.3, scripts/bench-lu-time.ts): forward dynamics (a large irreducible block,
 * refined) gains 1.5–3× up to ~45,000 statements (a 48-link chain), between 45,000 and 65,000 it
 * gains or loses by robot (the estimator's 59,600-statement system gains 2.4×, a 64-link chain's
 * forward dynamics loses), and at 90,000 (96 links) it loses 1.4–2×; inverse dynamics (triangular:
 * copies and one substitution) gains 1.6–1.8× up to ~12,000 statements and loses from ~40,000.
 * The loop kernels (loops.ts) have no such limit; against them, straight-line code is 2–15% faster
 * up to ~29,000 statements (forward dynamics) and 1.2–3.9× slower from ~36,000; for inverse
 * dynamics (triangular, whose loops skip the block tables) 8% faster at 700 statements, as fast
 * from ~3,000. FactorOptions.compileLimit bounds what 'auto' compiles straight (21,000: on the AMD EPYC machine kind the loops are as fast from ~22,000; 4,000 when
 * triangular; 18,000 when triangular and solved from its source, as inverse dynamics is); above it,
 * 'auto' runs the loop kernels.
 *
 * Sums in registers. The refactor of a block computes each column slot by slot: a slot's value is
 * read from C where it stands (C_bb is not scattered into X), its updates are subtracted in the
 * kernel's order in a register, and it is stored once; the column's final U entries stay in locals
 * for the updates they make (the kernel's U entries are in topological order, so each is final
 * before it is used). The solves of a block larger than 1×1 run row by row likewise: each row's sum
 * on the stack, its terms in the order the column-oriented kernel applies them (L's columns
 * ascending, U's descending, C_bb's ascending for the residual). Same operations on each value in
 * the same order as the kernels: the same bits. Measured on forward dynamics of a 24-link chain
 * (refined, best of 15 rounds): the refactor went from 7.2 to 4.6 µs (4.7 with the scatter kept), the
 * solve from 5.0 to 4.2 µs, the step from 17.1 to 12.8 µs (ABA 10.4–10.9). The cliff in size stays
 * where it was (a 32-link chain, 24,800 statements: 1.32× ABA; 40 links, 31,400: 1.93×, the loops 1.71×).
 * V8's optimized code is ~29 bytes per statement (`node --print-wasm-code --no-liftoff`: chains of
 * 24 / 32 / 40 / 48 links, 505 / 673 / 848 / 1,033 kB with the generated fill), all of it run at
 * every call: past ~28,000 statements it and the step's data no longer fit the 1 MB second-level
 * cache of this machine's cores.
 *
 * A triangular matrix (every block 1×1: inverse dynamics) whose values are gathered from a source
 * that stays unchanged until its solves (CompileInput.direct) has its own entries as factors: its
 * solve then reads each entry from the source where it stands, `factor` only checks the pivots
 * whose values may change (CompileInput.fixed: none in the robot systems, whose pivots are
 * constants) and copies nothing, and X is written (`syncX`) only when the factors are read. Its
 * solve runs row by row (`solveB`): each row's sum stays in a register and b is read where it
 * stands, and the fixed entries of exactly ±1 (D's −1 diagonals, S_i, the known inputs' rows) are
 * applied as the exact copies, negations, subtractions and additions their products and divisions
 * equal — the same solution bit for bit, counted as the algorithm's multiply-subtracts and
 * divisions. Measured on inverse dynamics of a 24-link chain (best of 25 rounds): the step went
 * from 6.8 µs to 5.7–5.9 (no copy), 5.4–5.5 (row by row) and 4.9–5.0 µs (±1 entries), RNEA 4.0.
 *
 * Memory (one WebAssembly.Memory, f64 slots): X = LU values (NumericLU.LUx is a view on it), A =
 * C's values in A's order (copied in at each refactor), or the source vector they are gathered from
 * (CompileInput.gather: the caller fills it in place, and each entry is loaded from its source
 * position, so no copy and no scatter), Cb = in-block values of C (refinement, when the residual
 * cannot read them from A: CompiledLU.residualFromA), then the solve's w,
 * rb, dz and out (out[q_j] = y_j), one scratch slot, and B, an unpermuted right-hand side that
 * straight-line copies permute (and negate) into w.
 */

/** Everything the generator reads: the numeric layout of a NumericLU and its options. */
export interface CompileInput {
  n: number;
  /** number of entries of A */
  nnz: number;
  /** block boundaries r[0..nblocks] */
  r: Int32Array;
  nblocks: number;
  /** in-block entries of C: column pointers, rows, slots in A */
  Bp: Int32Array;
  Bi: Int32Array;
  Bslot: Int32Array;
  /** off-block entries: column pointers and slots in A */
  Op: Int32Array;
  Oslot: Int32Array;
  /** row and column permutations of C = A(p, q) */
  p: Int32Array;
  q: Int32Array;
  cs: Int32Array;
  us: Int32Array;
  dpos: Int32Array;
  LUi: Int32Array;
  Bpos: Int32Array;
  Opos: Int32Array;
  /** mapped-kernel tables */
  T: Uint16Array;
  Tp: Int32Array;
  Llo: Int32Array;
  Lhi: Int32Array;
  growthLimit: number;
  checkTol: number;
  /** refinement steps: the solve is compiled for 0 or 1 working-precision step, not for more */
  refine: number;
  /**
   * the threshold of the refinement's backward-error test (LUFactors.refineOmega): with one step and
   * refineOmega > 0 a block's correction solve runs only when max_i |r_i| / (|C_bb||y| + |w_b|)_i
   * exceeds it (refine.ts), and the solve writes whether it ran in `refined`; 0 or absent: always
   */
  refineOmega?: number;
  /** also the solve without its refinement step, where the solve refines (CompiledLU.solvePlain; FactorOptions.plainSolve) */
  plain?: boolean;
  /** largest code to instantiate (statements); above it compileLU returns null */
  maxStatements: number;
  /**
   * values of A gathered from a source vector (NumericLU's FactorOptions.gather): entry t of A is
   * read at source position gather[t]; the A region of the memory then holds the source (length
   * `nsrc`) instead of A. Omitted: the A region holds A itself.
   */
  gather?: Int32Array;
  nsrc?: number;
  /**
   * with `gather` and a triangular matrix (every block 1×1): solve from the source where it stands
   * (the factors of a triangular matrix are its own entries), so that `factor` only checks the
   * pivots and copies nothing; X is written by `syncX` when the factors are read
   */
  direct?: boolean;
  /** source positions whose values no longer change (checked by the generic refactors before the code): pivots there are not checked again */
  fixed?: Uint8Array;
  /**
   * the source's values when the code is generated (with `fixed` and `direct`): a fixed entry of
   * exactly ±1 is applied by the row-oriented solve as the exact copy, negation, subtraction or
   * addition that its multiplication or division equals (same results bit for bit; the counts
   * stay those of the algorithm: a multiply-subtract per entry, a division per pivot)
   */
  values?: Float64Array;
  /**
   * loops.ts: largest total of statements of the column templates of the refactor (default
   * TEMPLATE_LIMIT); 0 factors every column by the per-slot loop
   */
  templateLimit?: number;
  /**
   * loops.ts: most templated columns that the driver calls by straight-line code (default
   * DRIVER_LIMIT); above it the driver loops over a table
   */
  driverLimit?: number;
}

/** Compiled refactor and solve of one layout, with the views on their memory. */
export interface CompiledLU {
  /** LU values (length cs[n]) */
  readonly X: Float64Array;
  /** C's values in A's order (or the source vector, CompileInput.gather): set before `factor` */
  readonly A: Float64Array;
  /** in-block values of C (refinement; length Bp[n], or 0 without refinement or with `residualFromA`) */
  readonly Cb: Float64Array;
  /**
   * the refinement's residual reads C_bb where it stands in A, and `factor` keeps no copy in Cb: A
   * is the module's own copy, or a source that the caller leaves unchanged until its last solve
   * (CompileInput.direct, FactorOptions.gather.solveFromSource)
   */
  readonly residualFromA: boolean;
  /** right-hand side, permuted (w_k = b_{p_k}, scaled): set before `solve` */
  readonly w: Float64Array;
  /**
   * per block (length nblocks with CompileInput.refineOmega > 0, else 0): after `solve`, 1 for a
   * block of size ≥ 2 whose backward-error test failed (its correction solve ran), else 0
   */
  readonly refined: Float64Array;
  /** solution after `solve` (in A's column order) */
  readonly out: Float64Array;
  /** an unpermuted right-hand side b for `wFromB` (length n) */
  readonly B: Float64Array;
  /** w = b(p), or −b(p) when `negate` (straight-line copies; no scaling) */
  wFromB(negate: boolean): void;
  /** X from A (and Cb); false when a check failed (X is then partly written) */
  factor(): boolean;
  /** out = C⁻¹ w as solveInto (solve.ts; w overwritten); null when the refinement asked for is not compiled, or with `solveB` */
  readonly solve: (() => void) | null;
  /**
   * with CompileInput.plain, where `solve` refines and a block is larger than 1×1: out = C⁻¹ w as
   * solveInto without the refinement step (`refined` false; w overwritten), for
   * NumericLU.solveUnrefined; null otherwise
   */
  readonly solvePlain: (() => void) | null;
  /**
   * CompileInput.direct, straight-line code: out = C⁻¹ b(p), or C⁻¹ (−b(p)) with `negate`, read from B
   * row after row (no w; each row's sum in a register, its terms in the order the column-oriented
   * solve applies them, so the same solution bit for bit); null otherwise
   */
  readonly solveB: ((negate: boolean) => void) | null;
  /** out = C⁻¹ w skipping the columns whose unknown is zero (NumericLU.solveManySparse); returns the multiply-subtracts done; null with refinement */
  readonly solveSparse: (() => number) | null;
  /**
   * CompileInput.direct: writes X from the source (the copies `factor` leaves out); null when
   * `factor` writes X itself
   */
  readonly syncX: (() => void) | null;
  /** the module's memory (other generated code may work in it: NumericLU.codeMemory) */
  readonly memory: WebAssembly.Memory;
  /** 'straight': straight-line code of this layout; 'loops': the fixed loop kernels over tables (loops.ts) */
  readonly kind: 'straight' | 'loops';
  /** statements generated (straight-line code; for the loop kernels those of their column templates, 0 without) and bytes of WebAssembly */
  readonly statements: number;
  readonly bytes: number;
}

/** statements per generated function (a function's locals do not outlive it; V8 tiers functions up one by one) */
const CHUNK = 2000;

// WebAssembly opcodes used
const OP = {
  block: 0x02, if: 0x04, end: 0x0b, return: 0x0f, localGet: 0x20, localSet: 0x21, localTee: 0x22,
  i32Const: 0x41, f64Const: 0x44, f64Load: 0x2b, f64Store: 0x39, i32Eqz: 0x45, i32And: 0x71, i32Or: 0x72,
  f64Eq: 0x61, f64Lt: 0x63, f64Gt: 0x64, f64Le: 0x65, f64Abs: 0x99, f64Add: 0xa0, f64Sub: 0xa1, f64Mul: 0xa2,
  f64Div: 0xa3, f64Max: 0xa5, f64Neg: 0x9a, void: 0x40,
} as const;

/** A growable byte buffer with WebAssembly's encodings. */
export class Bytes {
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
  f64(x: number): void {
    const d = new DataView(new ArrayBuffer(8));
    d.setFloat64(0, x, true);
    for (let i = 0; i < 8; i++) this.byte(d.getUint8(i));
  }
  view(): Uint8Array<ArrayBuffer> {
    return this.buf.subarray(0, this.len);
  }
}

/** Function bodies under construction: statements are counted; a new function starts past CHUNK. */
class Functions {
  readonly bodies: Uint8Array[] = [];
  code = new Bytes();
  count = 0;
  statements = 0;
  /** `epilogue`: the bytes that end every function (its result) */
  constructor(private readonly nlocals: number, private readonly epilogue: readonly number[]) {}
  /** begin a self-contained group of statements (may start a new function) */
  group(size: number): Bytes {
    if (this.count > 0 && this.count + size > CHUNK) this.close();
    this.count += size;
    this.statements += size;
    return this.code;
  }
  close(): void {
    if (this.count === 0 && this.bodies.length > 0) return;
    const c = this.code;
    c.bytes(this.epilogue);
    c.byte(OP.end);
    const body = new Bytes();
    body.byte(1); // one run of locals
    body.u32(this.nlocals);
    body.byte(0x7c); // f64
    body.bytes(c.view());
    this.bodies.push(body.view().slice());
    this.code = new Bytes();
    this.count = 0;
  }
}

/** The module: imported memory, functions of type () → i32 (type 0), () → () (type 1) or (i32) → i32 (type 2), exported as f0, f1, … in the order given */
export function assemble(groups: { bodies: Uint8Array[]; type: 0 | 1 | 2 }[], pages: number, table?: number[]): Uint8Array<ArrayBuffer> {
  const m = new Bytes();
  m.bytes([0x00, 0x61, 0x73, 0x6d, 1, 0, 0, 0]);
  const section = (id: number, s: Bytes) => {
    m.byte(id);
    m.u32(s.len);
    m.bytes(s.view());
  };
  const types = new Bytes();
  types.bytes([3, 0x60, 0, 1, 0x7f, 0x60, 0, 0, 0x60, 1, 0x7f, 1, 0x7f]);
  section(1, types);
  const imports = new Bytes();
  imports.bytes([1, 1, 0x65, 1, 0x6d, 0x02, 0x00]); // "e"."m": memory, min pages
  imports.u32(pages);
  section(2, imports);
  const all = groups.flatMap((g) => g.bodies.map((b) => ({ b, type: g.type })));
  const nf = all.length;
  const funcs = new Bytes();
  funcs.u32(nf);
  for (const f of all) funcs.byte(f.type);
  section(3, funcs);
  if (table !== undefined) {
    const t = new Bytes();
    t.bytes([1, 0x70, 0x00]); // one funcref table, min size
    t.u32(table.length);
    section(4, t);
  }
  const exports = new Bytes();
  exports.u32(nf);
  for (let i = 0; i < nf; i++) {
    const name = `f${i}`;
    exports.u32(name.length);
    for (let k = 0; k < name.length; k++) exports.byte(name.charCodeAt(k));
    exports.byte(0x00);
    exports.u32(i);
  }
  section(7, exports);
  if (table !== undefined) {
    const e = new Bytes();
    e.bytes([1, 0x00, 0x41, 0x00, 0x0b]); // one active segment at offset 0 of table 0
    e.u32(table.length);
    for (const x of table) e.u32(x);
    section(9, e);
  }
  const code = new Bytes();
  code.u32(nf);
  for (const f of all) {
    code.u32(f.b.length);
    code.bytes(f.b);
  }
  section(10, code);
  return m.view();
}

/**
 * The rows of a triangular layout's entries above the diagonal (the row-oriented solves, here and
 * in loops.ts): row k's entries are slotOf/colOf[rowStart[k] .. rowStart[k+1]), in descending
 * column order, the order in which the column-oriented solve applies them.
 */
export function triangularRows(n: number, cs: Int32Array, dpos: Int32Array, LUi: Int32Array): { rowStart: Int32Array; slotOf: Int32Array; colOf: Int32Array } {
  const rowStart = new Int32Array(n + 1);
  for (let j = 0; j < n; j++) for (let t = cs[j]; t < dpos[j]; t++) rowStart[LUi[t] + 1]++;
  for (let k = 0; k < n; k++) rowStart[k + 1] += rowStart[k];
  const next = rowStart.slice(0, n), slotOf = new Int32Array(rowStart[n]), colOf = new Int32Array(rowStart[n]);
  for (let j = n - 1; j >= 0; j--) {
    for (let t = cs[j]; t < dpos[j]; t++) { const e = next[LUi[t]]++; slotOf[e] = t; colOf[e] = j; }
  }
  return { rowStart, slotOf, colOf };
}

/**
 * The refactor's updates gathered by target slot (columns of the blocks larger than 1×1; here and in
 * loops.ts): slot t's value is C's minus X[s[x]] · X[pu[x]] for x in [first[t], first[t+1]), in
 * the kernel's order. A U entry is final before it is used, because the kernel's U entries are in
 * topological order (every update of one comes from an earlier one): checked, an internal error
 * otherwise (the caller then runs the generic kernels).
 */
export function slotUpdates(c: Pick<CompileInput, 'n' | 'r' | 'nblocks' | 'cs' | 'us' | 'dpos' | 'T' | 'Tp' | 'Llo' | 'Lhi'>): { first: Int32Array; s: Int32Array; pu: Int32Array } {
  const { n, r, nblocks, cs, us, dpos, T, Tp, Llo, Lhi } = c;
  const nX = cs[n];
  const first = new Int32Array(nX + 1);
  /** calls visit(k, t, s, pu) for every update, in the kernel's order */
  const each = (visit: (k: number, t: number, s: number, pu: number) => void) => {
    for (let blk = 0; blk < nblocks; blk++) {
      const k1 = r[blk], k2 = r[blk + 1];
      if (k2 - k1 < 2) continue;
      for (let k = k1, o = Tp[k1]; k < k2; k++) {
        for (let pu = us[k]; pu < dpos[k]; pu++) {
          for (let s = Llo[pu]; s < Lhi[pu]; s++, o++) visit(k, cs[k] + T[o], s, pu);
        }
      }
    }
  };
  each((k, t, _s, pu) => {
    if (t < dpos[k] && t <= pu) throw new Error(`internal error: column ${k}'s U entries are not in topological order`);
    first[t + 1]++;
  });
  for (let t = 0; t < nX; t++) first[t + 1] += first[t];
  const next = first.slice(0, nX), sOf = new Int32Array(first[nX]), puOf = new Int32Array(first[nX]);
  each((_k, t, s, pu) => { const x = next[t]++; sOf[x] = s; puOf[x] = pu; });
  return { first, s: sOf, pu: puOf };
}

/**
 * The rows of the solves of the blocks larger than 1×1 (here and in loops.ts), one list per kind:
 * 0, L's entries below the diagonal (columns ascending); 1, U's above it within the block (columns
 * descending); 2, C_bb's (columns ascending: the refinement's residual) — the order in which the
 * column-oriented kernel applies them to a row. Row i's terms are col/at[start[i] .. start[i+1]),
 * `at` a slot of X (kinds 0 and 1) or an in-block entry of C (kind 2).
 */
export function blockSolveRows(c: Pick<CompileInput, 'n' | 'r' | 'nblocks' | 'cs' | 'us' | 'dpos' | 'LUi' | 'Bp' | 'Bi'>, kind: 0 | 1 | 2): { start: Int32Array; col: Int32Array; at: Int32Array } {
  const { n, r, nblocks, cs, us, dpos, LUi, Bp, Bi } = c;
  /** calls visit(row, column, slot or entry) for every term, in the kernel's order */
  const each = (visit: (i: number, j: number, a: number) => void) => {
    for (let blk = 0; blk < nblocks; blk++) {
      const k1 = r[blk], k2 = r[blk + 1];
      if (k2 - k1 < 2) continue;
      if (kind === 1) {
        for (let j = k2 - 1; j >= k1; j--) for (let t = us[j]; t < dpos[j]; t++) visit(LUi[t], j, t);
      } else {
        for (let j = k1; j < k2; j++) {
          if (kind === 0) for (let t = dpos[j] + 1; t < cs[j + 1]; t++) visit(LUi[t], j, t);
          else for (let e = Bp[j]; e < Bp[j + 1]; e++) visit(Bi[e], j, e);
        }
      }
    }
  };
  const start = new Int32Array(n + 1);
  each((i) => { start[i + 1]++; });
  for (let i = 0; i < n; i++) start[i + 1] += start[i];
  const next = start.slice(0, n), col = new Int32Array(start[n]), at = new Int32Array(start[n]);
  each((i, j, a) => { const x = next[i]++; col[x] = j; at[x] = a; });
  return { start, col, at };
}

/** whether this JavaScript engine runs WebAssembly */
export function canCompile(): boolean {
  return typeof WebAssembly === 'object' && typeof WebAssembly.Module === 'function';
}

/**
 * Generates, compiles and instantiates the refactor (always) and the solve (without refinement or
 * with one working-precision step). Allocates; run once per layout.
 */
export function compileLU(c: CompileInput): CompiledLU | null {
  const { n, nnz, r, nblocks, Bp, Bslot, Op, Oslot, q, cs, us, dpos, LUi, Bpos, Opos } = c;
  const nX = cs[n];
  const gather = c.gather;
  /** the refinement's residual reads C_bb where it stands in A (as loops.ts: CompiledLU.residualFromA) */
  const residualFromA = gather === undefined || c.direct === true;
  const nC = c.refine > 0 && !residualFromA ? Bp[n] : 0;
  const nA = gather ? c.nsrc! : nnz;
  /** memory position of entry t of A */
  const at = gather ? (t: number) => aO + gather[t] : (t: number) => aO + t;
  // memory layout, in f64 slots
  const xO = 0, aO = xO + nX, cO = aO + nA, wO = cO + nC, rbO = wO + n, dzO = rbO + n, outO = dzO + n, scO = outO + n, bO = scO + 1;
  /** the backward-error test of the refinement (CompileInput.refineOmega): its threshold, and per block whether the test failed */
  const omega = c.refine === 1 && (c.refineOmega ?? 0) > 0 ? c.refineOmega! : 0;
  const nRf = omega > 0 ? nblocks : 0;
  const rfO = bO + n;
  const slots = rfO + nRf;
  // direct (triangular, gathered): the memory position of each slot of X is its source value's
  const direct = c.direct === true && gather !== undefined && nblocks === n;
  const fixed = c.fixed;
  const xAt = new Int32Array(direct ? nX : 0);
  if (direct) {
    for (let e = 0; e < Op[n]; e++) xAt[Opos[e]] = at(Oslot[e]);
    for (let k = 0; k < n; k++) xAt[dpos[k]] = at(Bslot[Bp[k]]);
  }
  /** memory position of slot t of the factors, as the solves read it */
  const xs = direct ? (t: number) => xAt[t] : (t: number) => xO + t;
  const pages = Math.max(1, Math.ceil((slots * 8) / 65536));
  const G = c.growthLimit;
  const RT = 1 / c.checkTol;
  // factor locals: 0 v, 1 m, 2 ul, 3 p, 4 a, 5 l, then U0, U0 + 1, …: the U entries of the column being factored
  const V = 0, M = 1, UL = 2, P = 3, AA = 4, L = 5;
  let maxU = 0;
  for (let k = 0; k < n; k++) if (dpos[k] - us[k] > maxU) maxU = dpos[k] - us[k];
  const U0 = 6;
  const F = new Functions(U0 + maxU, [OP.i32Const, 1]);
  let b: Bytes = F.code;
  const load = (slot: number) => { b.byte(OP.i32Const); b.byte(0); b.byte(OP.f64Load); b.byte(3); b.u32(slot * 8); };
  const addr = () => { b.byte(OP.i32Const); b.byte(0); };
  const store = (slot: number) => { b.byte(OP.f64Store); b.byte(3); b.u32(slot * 8); };
  const get = (i: number) => { b.byte(OP.localGet); b.u32(i); };
  const set = (i: number) => { b.byte(OP.localSet); b.u32(i); };
  const tee = (i: number) => { b.byte(OP.localTee); b.u32(i); };
  const fconst = (x: number) => { b.byte(OP.f64Const); b.f64(x); };
  /** the i32 on the stack is 1 when a check fails: return 0 */
  const failIf = () => { b.byte(OP.if); b.byte(OP.void); b.byte(OP.i32Const); b.byte(0); b.byte(OP.return); b.byte(OP.end); };
  /** fail unless |local i| ≤ local lim (NaN fails) */
  const checkAbsLe = (i: number, lim: number) => { get(i); b.byte(OP.f64Abs); get(lim); b.byte(OP.f64Le); b.byte(OP.i32Eqz); failIf(); };
  /** pivot p (local P): fail unless 0 < |p| ≤ ul; l = |p| / checkTol (the bound of the column's L entries before division) */
  const pivot = () => {
    get(P); b.byte(OP.f64Abs); set(AA);
    get(AA); fconst(0); b.byte(OP.f64Gt); get(AA); get(UL); b.byte(OP.f64Le); b.byte(OP.i32And); b.byte(OP.i32Eqz); failIf();
    get(AA); fconst(RT); b.byte(OP.f64Mul); set(L);
  };
  const ups = slotUpdates(c);
  for (let blk = 0; blk < nblocks; blk++) {
    const k1 = r[blk];
    const k2 = r[blk + 1];
    if (k2 - k1 === 1) {
      // v = A(slot); fail if v === 0 or not finite; X[d] = v (direct: the check only; a fixed value: no check)
      const sp = Bslot[Bp[k1]];
      if (gather !== undefined && fixed !== undefined && fixed[gather[sp]] === 1) {
        if (!direct) { b = F.group(1); addr(); load(at(sp)); store(xO + dpos[k1]); }
        continue;
      }
      b = F.group(1);
      load(at(sp));
      set(V);
      get(V); fconst(0); b.byte(OP.f64Eq);
      get(V); get(V); b.byte(OP.f64Sub); fconst(0); b.byte(OP.f64Eq); b.byte(OP.i32Eqz);
      b.byte(OP.i32Or);
      failIf();
      if (!direct) { addr(); get(V); store(xO + dpos[k1]); }
      continue;
    }
    // m = max |C_bb|; ul = G m kept in the scratch slot (C_bb is not scattered into X: the columns
    // read it where it stands)
    const fromC = new Int32Array(cs[k2] - cs[k1]).fill(-1);
    b = F.group(Bp[k2] - Bp[k1] + 2);
    fconst(0); set(M);
    for (let e = Bp[k1]; e < Bp[k2]; e++) {
      fromC[Bpos[e] - cs[k1]] = Bslot[e];
      load(at(Bslot[e])); set(V);
      get(M); get(V); b.byte(OP.f64Abs); b.byte(OP.f64Max); set(M);
    }
    get(M); fconst(Infinity); b.byte(OP.f64Lt); b.byte(OP.i32Eqz); failIf();
    addr(); fconst(G); get(M); b.byte(OP.f64Mul); store(scO);
    /** C's value of slot t of the block (0 where C has no entry) on the stack */
    const initial = (t: number) => { const sp = fromC[t - cs[k1]]; if (sp < 0) fconst(0); else load(at(sp)); };
    for (let k = k1; k < k2; k++) {
      const d = dpos[k];
      const c1 = cs[k + 1];
      // slot by slot (slotUpdates): a slot's sum stays in a local from its first value to its last
      // update (one load and one store per slot instead of per update), and each final U entry stays
      // in a local (U0 + its index) for the updates it makes; the same operations on each slot in the
      // same order, so the same bits
      const size = 2 + (c1 - d) + (d - us[k]) + ups.first[c1] - ups.first[us[k]];
      b = F.group(size);
      load(scO); set(UL);
      /** the slot's value after its updates, on the stack */
      const summed = (t: number) => {
        initial(t);
        for (let x = ups.first[t]; x < ups.first[t + 1]; x++) { load(xO + ups.s[x]); get(U0 + ups.pu[x] - us[k]); b.byte(OP.f64Mul); b.byte(OP.f64Sub); }
      };
      for (let pu = us[k]; pu < d; pu++) {
        const lu = U0 + pu - us[k];
        addr(); summed(pu); tee(lu); store(xO + pu);
        checkAbsLe(lu, UL);
      }
      addr(); summed(d); tee(P); store(xO + d);
      pivot();
      for (let s = d + 1; s < c1; s++) {
        summed(s); set(V);
        checkAbsLe(V, L);
        addr(); get(V); get(P); b.byte(OP.f64Div); store(xO + s);
      }
    }
  }
  // entries above the diagonal blocks, and the in-block values of C for the refinement
  for (let e = 0; e < (direct ? 0 : Op[n]); e++) {
    b = F.group(1);
    addr(); load(at(Oslot[e])); store(xO + Opos[e]);
  }
  if (nC > 0) {
    for (let blk = 0; blk < nblocks; blk++) {
      if (r[blk + 1] - r[blk] < 2) continue;
      for (let e = Bp[r[blk]]; e < Bp[r[blk + 1]]; e++) {
        b = F.group(1);
        addr(); load(at(Bslot[e])); store(cO + e);
      }
    }
  }
  F.close();
  const factorStatements = F.statements;

  // ---- solve (local 0: x)
  // (direct: the row-oriented solves below take its place)
  const compileSolve = c.refine <= 1 && !direct;
  const S = new Functions(3, []);
  /** the refined solve without its refinement step (CompiledLU.solvePlain; solve.ts: solveInto with `refined` false) */
  const SP = new Functions(1, []);
  if (compileSolve) {
    // locals: x, a product c·y, the test's sum s
    const X0 = 0, PR = 1, SS = 2;
    const refine = c.refine > 0;
    /** v[i] -= X[t] x  for the slots t of [t0, t1) with rows LUi[t] */
    const updates = (vO: number, t0: number, t1: number) => {
      for (let t = t0; t < t1; t++) {
        addr(); load(vO + LUi[t]); load(xs(t)); get(X0); b.byte(OP.f64Mul); b.byte(OP.f64Sub); store(vO + LUi[t]);
      }
    };
    const [rowsL, rowsU, rowsC] = ([0, 1, 2] as const).map((kind) => blockSolveRows(c, kind));
    /** v = C_bb \ v in place (vO), or from the right-hand side fO into vO, for the block [k1, k2) */
    const blockRows = (F: Functions, k1: number, k2: number, fO: number, vO: number) => {
      for (let i = k1; i < k2; i++) {
        b = F.group(1 + rowsL.start[i + 1] - rowsL.start[i]);
        addr(); load(fO + i);
        for (let e = rowsL.start[i]; e < rowsL.start[i + 1]; e++) { load(vO + rowsL.col[e]); load(xs(rowsL.at[e])); b.byte(OP.f64Mul); b.byte(OP.f64Sub); }
        store(vO + i);
      }
      for (let i = k2 - 1; i >= k1; i--) {
        b = F.group(1 + rowsU.start[i + 1] - rowsU.start[i]);
        addr(); load(vO + i);
        for (let e = rowsU.start[i]; e < rowsU.start[i + 1]; e++) { load(vO + rowsU.col[e]); load(xs(rowsU.at[e])); b.byte(OP.f64Mul); b.byte(OP.f64Sub); }
        load(xs(dpos[i])); b.byte(OP.f64Div);
        store(vO + i);
      }
    };
    /** a 1×1 block k: its unknown, and the rows of its column above it */
    const oneByOne = (F: Functions, k: number) => {
      const d = dpos[k];
      b = F.group(1 + d - cs[k]);
      load(wO + k); load(xs(d)); b.byte(OP.f64Div); set(X0);
      addr(); get(X0); store(outO + q[k]);
      updates(wO, cs[k], d);
    };
    /** the solved block [k1, k2), from its first column: its unknowns, and the rows above it */
    const unknownsUp = (F: Functions, k1: number, k2: number) => {
      for (let j = k1; j < k2; j++) {
        b = F.group(1 + us[j] - cs[j]);
        load(wO + j); set(X0);
        addr(); get(X0); store(outO + q[j]);
        updates(wO, cs[j], us[j]);
      }
    };
    for (let blk = nblocks - 1; blk >= 0; blk--) {
      const k1 = r[blk];
      const k2 = r[blk + 1];
      if (k2 - k1 === 1) {
        oneByOne(S, k1);
        continue;
      }
      // a larger block, row by row (each row's sum on the stack, its terms in the order the
      // column-oriented kernel applies them, so the same bits)
      const rowSolve = (fO: number, vO: number) => blockRows(S, k1, k2, fO, vO);
      if (!refine) {
        // w = C_bb \ w; then, from the last column, its unknown and the rows above the block
        rowSolve(wO, wO);
        for (let j = k2 - 1; j >= k1; j--) {
          b = S.group(1 + us[j] - cs[j]);
          load(wO + j); set(X0);
          addr(); get(X0); store(outO + q[j]);
          updates(wO, cs[j], us[j]);
        }
        continue;
      }
      // refined: y = C_bb \ w into rb (w kept), dz = w − C_bb y, dz = C_bb \ dz, w = y + dz; then
      // the rows above
      rowSolve(wO, rbO);
      if (omega === 0) {
        for (let i = k1; i < k2; i++) {
          b = S.group(1 + rowsC.start[i + 1] - rowsC.start[i]);
          addr(); load(wO + i);
          for (let e = rowsC.start[i]; e < rowsC.start[i + 1]; e++) { load(rbO + rowsC.col[e]); load(residualFromA ? at(Bslot[rowsC.at[e]]) : cO + rowsC.at[e]); b.byte(OP.f64Mul); b.byte(OP.f64Sub); }
          store(dzO + i);
        }
        rowSolve(dzO, dzO);
        b = S.group(k2 - k1);
        for (let j = k1; j < k2; j++) { addr(); load(rbO + j); load(dzO + j); b.byte(OP.f64Add); store(wO + j); }
      } else {
        // the backward-error test (refine.ts): r = w − C_bb y and s = |w| + Σ|c·y| from the same
        // products; the block's flag (in memory: the groups may fall in different functions) is set
        // when |r_i| ≤ ω s_i fails for a row (NaN fails)
        b = S.group(1);
        addr(); fconst(0); store(rfO + blk);
        for (let i = k1; i < k2; i++) {
          b = S.group(2 + rowsC.start[i + 1] - rowsC.start[i]);
          load(wO + i); b.byte(OP.f64Abs); set(SS);
          addr(); load(wO + i);
          for (let e = rowsC.start[i]; e < rowsC.start[i + 1]; e++) {
            load(rbO + rowsC.col[e]); load(residualFromA ? at(Bslot[rowsC.at[e]]) : cO + rowsC.at[e]); b.byte(OP.f64Mul); tee(PR); b.byte(OP.f64Sub);
            get(SS); get(PR); b.byte(OP.f64Abs); b.byte(OP.f64Add); set(SS);
          }
          tee(PR); store(dzO + i);
          get(PR); b.byte(OP.f64Abs); get(SS); fconst(omega); b.byte(OP.f64Mul); b.byte(OP.f64Le); b.byte(OP.i32Eqz);
          b.byte(OP.if); b.byte(OP.void); addr(); fconst(1); store(rfO + blk); b.byte(OP.end);
        }
        // the correction only when the test failed: each row's group under the flag
        const flagged = () => { load(rfO + blk); fconst(0); b.byte(0x62 /* f64.ne */); b.byte(OP.if); b.byte(OP.void); };
        for (let i = k1; i < k2; i++) {
          b = S.group(1 + rowsL.start[i + 1] - rowsL.start[i]);
          flagged();
          addr(); load(dzO + i);
          for (let e = rowsL.start[i]; e < rowsL.start[i + 1]; e++) { load(dzO + rowsL.col[e]); load(xs(rowsL.at[e])); b.byte(OP.f64Mul); b.byte(OP.f64Sub); }
          store(dzO + i);
          b.byte(OP.end);
        }
        for (let i = k2 - 1; i >= k1; i--) {
          b = S.group(1 + rowsU.start[i + 1] - rowsU.start[i]);
          flagged();
          addr(); load(dzO + i);
          for (let e = rowsU.start[i]; e < rowsU.start[i + 1]; e++) { load(dzO + rowsU.col[e]); load(xs(rowsU.at[e])); b.byte(OP.f64Mul); b.byte(OP.f64Sub); }
          load(xs(dpos[i])); b.byte(OP.f64Div);
          store(dzO + i);
          b.byte(OP.end);
        }
        // w = y + δ when refined, else w = y
        b = S.group(k2 - k1);
        flagged();
        for (let j = k1; j < k2; j++) { addr(); load(rbO + j); load(dzO + j); b.byte(OP.f64Add); store(wO + j); }
        b.byte(0x05); // else
        for (let j = k1; j < k2; j++) { addr(); load(rbO + j); store(wO + j); }
        b.byte(OP.end);
      }
      unknownsUp(S, k1, k2);
    }
    S.close();
    // without the refinement step: a larger block solved in place, then from its first column its
    // unknowns and the rows above it (the refined solve's order). Not counted in `statements`: the
    // limit bounds the code that runs at every step
    if (refine && nblocks < n && c.plain === true) {
      for (let blk = nblocks - 1; blk >= 0; blk--) {
        const k1 = r[blk];
        const k2 = r[blk + 1];
        if (k2 - k1 === 1) { oneByOne(SP, k1); continue; }
        blockRows(SP, k1, k2, wO, wO);
        unknownsUp(SP, k1, k2);
      }
      SP.close();
    }
  }
  // ---- sparse solve (no refinement): a column is applied only when its unknown is nonzero;
  // each function returns the multiply-subtracts it did (local 1 counts them)
  const compileSparse = c.refine === 0 || nblocks === n;
  const Z = new Functions(2, [OP.localGet, 1, 0xaa /* i32.trunc_f64_s */]);
  if (compileSparse) {
    const X0 = 0, CNT = 1;
    const guarded = (t0: number, t1: number, vO: number) => {
      if (t1 <= t0) return;
      get(X0); fconst(0); b.byte(0x62 /* f64.ne */); b.byte(OP.if); b.byte(OP.void);
      for (let t = t0; t < t1; t++) {
        addr(); load(vO + LUi[t]); load(xs(t)); get(X0); b.byte(OP.f64Mul); b.byte(OP.f64Sub); store(vO + LUi[t]);
      }
      get(CNT); fconst(t1 - t0); b.byte(OP.f64Add); set(CNT);
      b.byte(OP.end);
    };
    for (let blk = nblocks - 1; blk >= 0; blk--) {
      const k1 = r[blk];
      const k2 = r[blk + 1];
      if (k2 - k1 > 1) {
        for (let j = k1; j < k2; j++) {
          const s1 = cs[j + 1];
          b = Z.group(1 + s1 - dpos[j] - 1);
          load(wO + j); set(X0);
          guarded(dpos[j] + 1, s1, wO);
        }
      }
      for (let j = k2 - 1; j >= k1; j--) {
        const d = dpos[j];
        b = Z.group(1 + d - cs[j]);
        load(wO + j); load(xs(d)); b.byte(OP.f64Div); set(X0);
        addr(); get(X0); store(outO + q[j]);
        guarded(cs[j], d, wO);
      }
    }
    Z.close();
  }
  // ---- w = b(p) and w = −b(p)
  const WP = new Functions(0, []), WN = new Functions(0, []);
  for (const [fs, neg] of [[WP, false], [WN, true]] as const) {
    for (let k = 0; k < n; k++) {
      b = fs.group(1);
      addr(); load(bO + c.p[k]); if (neg) b.byte(0x9a /* f64.neg */); store(wO + k);
    }
    fs.close();
  }
  // ---- direct: the row-oriented solves from B, plain and negated. Row k's terms are its entries
  // above the diagonal in descending column order (the column-oriented solve applies them so).
  const RP = new Functions(1, []), RN = new Functions(1, []);
  if (direct) {
    const { rowStart, slotOf, colOf } = triangularRows(n, cs, dpos, LUi);
    const X0 = 0;
    /** +1 or −1 for a slot holding a fixed source value of exactly ±1, 0 otherwise */
    const vals = c.values;
    const unit = (t: number): number => {
      if (fixed === undefined || vals === undefined) return 0;
      const sp = xAt[t] - aO;
      if (fixed[sp] !== 1) return 0;
      return vals[sp] === 1 ? 1 : vals[sp] === -1 ? -1 : 0;
    };
    for (const [fs, neg] of [[RP, false], [RN, true]] as const) {
      for (let k = n - 1; k >= 0; k--) {
        b = fs.group(2 + rowStart[k + 1] - rowStart[k]);
        load(bO + c.p[k]); if (neg) b.byte(OP.f64Neg); set(X0);
        for (let e = rowStart[k]; e < rowStart[k + 1]; e++) {
          // s − u x: with u = ±1, s − x or s + x (the product ±x is exact)
          const u = unit(slotOf[e]);
          get(X0); load(outO + q[colOf[e]]);
          if (u === 0) { load(xs(slotOf[e])); b.byte(OP.f64Mul); b.byte(OP.f64Sub); } else b.byte(u === 1 ? OP.f64Sub : OP.f64Add);
          set(X0);
        }
        // s / u: with u = ±1, s or −s (exact)
        const ud = unit(dpos[k]);
        addr(); get(X0);
        if (ud === 0) { load(xs(dpos[k])); b.byte(OP.f64Div); } else if (ud === -1) b.byte(OP.f64Neg);
        store(outO + q[k]);
      }
      fs.close();
    }
  }
  // ---- direct: X from the source
  const SX = new Functions(0, []);
  if (direct) {
    for (let t = 0; t < nX; t++) {
      b = SX.group(1);
      addr(); load(xAt[t]); store(xO + t);
    }
    SX.close();
  }
  const statements = factorStatements + S.statements + RP.statements;
  if (statements > c.maxStatements) return null;
  const groups: { bodies: Uint8Array[]; type: 0 | 1 }[] = [
    { bodies: F.bodies, type: 0 }, { bodies: compileSolve ? S.bodies : [], type: 1 }, { bodies: compileSparse ? Z.bodies : [], type: 0 },
    { bodies: WP.bodies, type: 1 }, { bodies: WN.bodies, type: 1 }, { bodies: direct ? SX.bodies : [], type: 1 },
    { bodies: direct ? RP.bodies : [], type: 1 }, { bodies: direct ? RN.bodies : [], type: 1 }, { bodies: SP.bodies, type: 1 },
  ];
  const bytes = assemble(groups, pages);
  const memory = new WebAssembly.Memory({ initial: pages });
  const instance = new WebAssembly.Instance(new WebAssembly.Module(bytes), { e: { m: memory } });
  const ex = instance.exports as Record<string, () => number>;
  const ffns: (() => number)[] = [];
  for (let i = 0; i < F.bodies.length; i++) ffns.push(ex[`f${i}`]);
  const sfns: (() => number)[] = [];
  if (compileSolve) for (let i = 0; i < S.bodies.length; i++) sfns.push(ex[`f${F.bodies.length + i}`]);
  const zfns: (() => number)[] = [];
  const z0 = F.bodies.length + (compileSolve ? S.bodies.length : 0);
  if (compileSparse) for (let i = 0; i < Z.bodies.length; i++) zfns.push(ex[`f${z0 + i}`]);
  const w0 = z0 + (compileSparse ? Z.bodies.length : 0);
  const wpfns: (() => number)[] = [], wnfns: (() => number)[] = [];
  for (let i = 0; i < WP.bodies.length; i++) wpfns.push(ex[`f${w0 + i}`]);
  for (let i = 0; i < WN.bodies.length; i++) wnfns.push(ex[`f${w0 + WP.bodies.length + i}`]);
  const sxfns: (() => number)[] = [];
  if (direct) for (let i = 0; i < SX.bodies.length; i++) sxfns.push(ex[`f${w0 + WP.bodies.length + WN.bodies.length + i}`]);
  const rpfns: (() => number)[] = [], rnfns: (() => number)[] = [];
  const r0 = w0 + WP.bodies.length + WN.bodies.length + (direct ? SX.bodies.length : 0);
  if (direct) {
    for (let i = 0; i < RP.bodies.length; i++) rpfns.push(ex[`f${r0 + i}`]);
    for (let i = 0; i < RN.bodies.length; i++) rnfns.push(ex[`f${r0 + RP.bodies.length + i}`]);
  }
  const p0 = r0 + (direct ? RP.bodies.length + RN.bodies.length : 0);
  const spfns: (() => number)[] = [];
  for (let i = 0; i < SP.bodies.length; i++) spfns.push(ex[`f${p0 + i}`]);
  const buf = memory.buffer;
  return {
    X: new Float64Array(buf, xO * 8, nX),
    A: new Float64Array(buf, aO * 8, nA),
    Cb: new Float64Array(buf, cO * 8, nC),
    residualFromA,
    w: new Float64Array(buf, wO * 8, n),
    refined: new Float64Array(buf, rfO * 8, nRf),
    out: new Float64Array(buf, outO * 8, n),
    B: new Float64Array(buf, bO * 8, n),
    wFromB(negate: boolean): void {
      const fns = negate ? wnfns : wpfns;
      for (let i = 0; i < fns.length; i++) fns[i]();
    },
    // (nothing to check or copy, e.g. a triangular matrix solved from its fixed source: no call)
    factor: factorStatements === 0 ? () => true : (): boolean => {
      for (let i = 0; i < ffns.length; i++) if (ffns[i]() === 0) return false;
      return true;
    },
    solve: compileSolve ? () => { for (let i = 0; i < sfns.length; i++) sfns[i](); } : null,
    solvePlain: spfns.length > 0 ? () => { for (let i = 0; i < spfns.length; i++) spfns[i](); } : null,
    solveSparse: compileSparse ? () => { let f = 0; for (let i = 0; i < zfns.length; i++) f += zfns[i](); return f; } : null,
    syncX: direct ? () => { for (let i = 0; i < sxfns.length; i++) sxfns[i](); } : null,
    solveB: direct ? (negate: boolean) => { const fns = negate ? rnfns : rpfns; for (let i = 0; i < fns.length; i++) fns[i](); } : null,
    memory,
    kind: 'straight',
    statements,
    bytes: bytes.length,
  };
}
