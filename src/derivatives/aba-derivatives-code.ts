/**
 * [q̈, ∂q̈/∂q, ∂q̈/∂q̇, M⁻¹] = abaDerivatives(q, q̇, τ) from the kernels generated per model: M⁻¹
 * first, then q̈ = M⁻¹ (τ − b) with the bias forces b = RNEA(q, q̇, 0) by the generated RNEA
 * (rnea-code.ts; where a sum is not finite, M not being positive definite at q, q̈ by the generated
 * ABA, aba-code.ts, which names the joint), ∂τ/∂q and ∂τ/∂q̇ at that q̈ by the generated RNEA
 * derivatives without M (rnea-derivatives-code.ts), then by the implicit function theorem, as
 * RecursiveForwardDynamicsDerivatives (recursive.ts):
 *
 *   ∂q̈/∂q = −M⁻¹ ∂τ/∂q,   ∂q̈/∂q̇ = −M⁻¹ ∂τ/∂q̇,   ∂q̈/∂τ = M⁻¹.
 *
 * M⁻¹ is the generated one (minv-code.ts, Carpentier's passes) and the two products are dense, by a
 * WebAssembly loop made here: per pair of columns of ∂τ/∂x (f64x2) and pair of rows of M⁻¹, the sums
 * over the rows t where ∂τ/∂q or ∂τ/∂q̇ may be nonzero in those columns (the columns of the joints on
 * a path through the column's joint: a tree's branches are skipped), both products in one sweep.
 * M itself is never formed. Same outputs and layout as RecursiveForwardDynamicsDerivatives (nv×nv
 * row-major, tangent directions in velocity order; a floating base's twist in its own frame), equal
 * to rounding (tested). No flop counters. Allocation free per call. Made where the three generated
 * kernels are (not for a model with a body whose forward dynamics is not defined), up to
 * ABA_DERIVATIVES_CODE_NV degrees of freedom (the products' nv³ outweighs what the kernels save).
 *
 * The other route, the articulated-body factorization of M in world coordinates and its solves
 * (minv-solve.ts, as recursive.ts does them; tried with the generated RNEA derivatives writing the
 * world inertias and J it reads), was measured slower (µs per call, same process, under load: kinova floating 24
 * against 6.9 by the products, go1 floating 45 against 19, talos_reduced floating 154 against 63,
 * simple_humanoid floating 142 against 34; the 24-link chain 22.6 against 24.5), and on the 96-link
 * chain, past the generated M⁻¹'s limit, no faster than the JavaScript (310 µs, 296 with the
 * JavaScript ABA, against 291: the generated kernels' code, about 2 MB together, no longer stays in
 * the caches between them; 62 against 98 µs on a 48-link chain).
 *
 * q̈ by the generated RNEA and the M⁻¹ the products need anyway, rather than by the generated ABA
 * (which repeats M⁻¹'s articulated inertias: 5.2 µs of a talos_reduced floating call, against 2.4
 * for the RNEA and 1 for the product), measured faster (processor µs per call, median of 11
 * alternating rounds after 3,000 warm-up calls, one process, load average about 4: before → after,
 * and after ÷ Pinocchio 3.7's computeABADerivatives): chain:6 2.87 → 2.44 (0.85), chain:24 20.7 →
 * 19.2 (1.38), panda floating 8.67 → 8.12 (1.29), kinova floating 6.53 → 5.86 (1.32), go1 floating
 * 10.5 → 9.82 (1.27), talos_reduced floating 36.8 → 34.6 (1.53; the least round 38.0 → 33.6,
 * 1.48), simple_humanoid floating 29.4 → 28.2 (1.41). The products reading M⁻¹'s rows instead of
 * its columns (one cache line for the four rows of a block, M⁻¹ being symmetric) were no faster
 * (chain:24 3.36 against 3.34 µs, talos_reduced 6.74 against 6.90, go1 1.83 against 1.49) and were
 * dropped. On the 96-link chain, M⁻¹ by the JavaScript (past the generated one's limit) and these
 * products took 808 µs against the JavaScript's 395 (products 265 µs: 1.77 million multiply-adds in
 * f64x2 without fused multiply-add, about as fast as this loop goes; Pinocchio's whole call is
 * 142 µs), so no code is made there.
 *
 * Measured before that change (µs per call, median of 21 alternating rounds after 3,000 warm-up calls of each, one
 * process; 2 cores shared with other work, load average about 3: indicative, runs differ by up to
 * 10%), RecursiveForwardDynamicsDerivatives → this code, and this code ÷ Pinocchio 3.7's
 * computeABADerivatives (its times measured on this machine kind): chain:6 10.2 → 2.91 (1.01), chain:24 42.6 →
 * 21.6 (1.55), panda floating 35.2 → 8.84 (1.40), kinova floating 24.8 → 6.58 (1.49), go1 floating
 * 42.2 → 10.6 (1.37), talos_reduced floating 122 → 38.8 (1.71), simple_humanoid floating 109 → 28.9
 * (1.44). The 96-link chain is past the size limit (the JavaScript, 305 µs: 2.1).
 */
import { GeneratedAba } from '../algorithms/aba-code.ts';
import { GeneratedMinv } from '../algorithms/minv-code.ts';
import { GeneratedRnea } from '../algorithms/rnea-code.ts';
import type { Model } from '../model/model.ts';
import { assemble, canCompile } from '../sparse/compiled.ts';
import { SimdBody, V } from '../sparse/wasm-simd.ts';
import type { DynamicsDerivatives } from './dynamics.ts';
import { GeneratedRneaDerivatives } from './rnea-derivatives-code.ts';

/**
 * largest nv for which the code is made: the dense products grow with nv³ (measured, µs per call,
 * this code against RecursiveForwardDynamicsDerivatives, chains: 24 links 17.5 / 33.4, 48: 68 / 88,
 * 64: 138 / 137, 96: 444 / 267)
 */
export const ABA_DERIVATIVES_CODE_NV = 48;

/**
 * q̈, ∂q̈/∂q, ∂q̈/∂q̇ and M⁻¹ by the generated ABA, RNEA derivatives and M⁻¹ and dense products
 * (see the file's comment). @experimental
 */
export class GeneratedAbaDerivatives implements DynamicsDerivatives {
  /** q̈ */
  readonly value: Float64Array;
  /** ∂q̈/∂q, ∂q̈/∂q̇ and M⁻¹ of the last call (nv×nv row-major): views into the products' memory, read only */
  readonly dq: Float64Array;
  readonly dv: Float64Array;
  readonly du: Float64Array;
  /** the products' memory (M⁻¹, ∂τ/∂q, ∂τ/∂q̇, then ∂q̈/∂q, ∂q̈/∂q̇, then the tables) and their function */
  private readonly mem: Float64Array;
  private readonly products: () => void;
  /** the generated RNEA for the bias forces b = RNEA(q, q̇, 0), that zero q̈, and τ − b */
  private readonly rnea: GeneratedRnea;
  private readonly zero: Float64Array;
  private readonly rhs: Float64Array;

  private constructor(readonly model: Model, private readonly aba: GeneratedAba, readonly rd: GeneratedRneaDerivatives, private readonly minv: GeneratedMinv, rnea: GeneratedRnea, bytes: Uint8Array<ArrayBuffer>, tables: Int32Array, pages: number) {
    const nv = model.nv, n2 = nv * nv;
    this.value = new Float64Array(nv);
    this.zero = new Float64Array(nv);
    this.rhs = new Float64Array(nv);
    this.rnea = rnea;
    const memory = new WebAssembly.Memory({ initial: pages });
    this.products = (new WebAssembly.Instance(new WebAssembly.Module(bytes), { e: { m: memory } }).exports as Record<string, () => void>).f0;
    const mem = this.mem = new Float64Array(memory.buffer);
    new Int32Array(memory.buffer).set(tables, 10 * n2);
    this.du = mem.subarray(0, n2);
    this.dq = mem.subarray(3 * n2, 4 * n2);
    this.dv = mem.subarray(4 * n2, 5 * n2);
  }

  /** The kernels for this model, or null (where the generated ABA, RNEA derivatives or M⁻¹ are not made, nv < 2 or nv > ABA_DERIVATIVES_CODE_NV). */
  static create(model: Model): GeneratedAbaDerivatives | null {
    if (model.singularBodies.length > 0 || !canCompile() || model.nv < 2 || model.nv > ABA_DERIVATIVES_CODE_NV) return null;
    const aba = GeneratedAba.create(model), minv = aba ? GeneratedMinv.create(model) : null, rnea = minv ? GeneratedRnea.create(model) : null;
    if (!aba || !minv || !rnea) return null;
    const { code, tables } = negProducts(model);
    const pages = Math.max(1, Math.ceil((40 * model.nv * model.nv + 4 * tables.length) / 65536));
    const bytes = assemble([{ bodies: [code], type: 1 }], pages);
    if (!WebAssembly.validate(bytes)) return null;
    const rd = GeneratedRneaDerivatives.create(model, { withM: false });
    return rd ? new GeneratedAbaDerivatives(model, aba, rd, minv, rnea, bytes, tables, pages) : null;
  }

  /**
   * q̈, ∂q̈/∂q, ∂q̈/∂q̇, M⁻¹ at (q, q̇, τ) (q̇ null: zero). Inputs are not validated
   * (RecursiveForwardDynamicsDerivatives' entry checks them); a joint inertia that is not positive
   * definite at q throws, naming the joint (the generated ABA's fallback). Allocation free.
   */
  compute(q: ArrayLike<number>, qd: ArrayLike<number> | null, tau: ArrayLike<number>): this {
    const mem = this.mem, nv = this.model.nv, n2 = nv * nv, value = this.value, rhs = this.rhs;
    mem.set(this.minv.compute(q), 0);
    // q̈ = M⁻¹ (τ − b), b = RNEA(q, q̇, 0)
    const b = this.rnea.compute(q, qd, this.zero);
    for (let c = 0; c < nv; c++) rhs[c] = tau[c] - b[c];
    let finite = true;
    for (let r = 0; r < nv; r++) {
      let s = 0;
      for (let c = 0, rc = r * nv; c < nv; c++, rc++) s += mem[rc] * rhs[c];
      value[r] = s;
      if (!(s - s === 0)) finite = false;
    }
    // not finite: the generated ABA names the joint whose inertia is not positive definite
    if (!finite) value.set(this.aba.compute(q, qd, tau));
    const rd = this.rd.compute(q, qd, value);
    mem.set(rd.dq, n2);
    mem.set(rd.dv, 2 * n2);
    this.products();
    return this;
  }
}

const I32_ADD = 0x6a, I32_SHL = 0x74, I32_GE_S = 0x4e;
const BLOCK = 0x02, LOOP = 0x03, END = 0x0b, BR = 0x0c, BR_IF = 0x0d, VOID = 0x40;

/**
 * The pairs of columns (k, k+1) of the products (for an odd nv the last is (nv−2, nv−1), one column
 * done twice) and, per pair, the rows t where ∂τ/∂q or ∂τ/∂q̇ may be nonzero in either column:
 * the columns of the joints on a path through k's joint (its ancestors, itself, its subtree).
 */
function productPairs(model: Model): { k0: number[]; rows: number[][] } {
  const nv = model.nv, nb = model.nb;
  const body = new Int32Array(nv);
  for (let i = 0; i < nb; i++) for (let c = 0; c < model.nvi[i]; c++) body[model.iv[i] + c] = i;
  const isAncestor = (a: number, i: number) => { for (let b = i; b >= 0; b = model.parents[b]) if (b === a) return true; return false; };
  const related = (t: number, k: number) => isAncestor(body[t], body[k]) || isAncestor(body[k], body[t]);
  const k0: number[] = [], rows: number[][] = [];
  for (let k = 0; k + 1 < nv; k += 2) k0.push(k);
  if (nv % 2 === 1) k0.push(nv - 2);
  for (const k of k0) {
    const r: number[] = [];
    for (let t = 0; t < nv; t++) if (related(t, k) || related(t, k + 1)) r.push(t);
    rows.push(r);
  }
  return { k0, rows };
}

/**
 * X₁ = −A B₁ and X₂ = −A B₂ for nv×nv row-major matrices (nv ≥ 2) at byte 0 (A), 8 nv², 16 nv² (B₁,
 * B₂), 24 nv², 32 nv² (X₁, X₂), where B₁, B₂ are zero outside the rows of productPairs. Per pair of
 * columns (k, k+1) and block of h rows r … r+h−1 (h = 4, or 2 for nv < 4; the last block ends at
 * row nv−1, overlapping the one before it), the sums over those rows t (ascending) of A[r.., t] times
 * the pairs B[t, k..k+1], in f64x2: each B pair loaded once for h rows. The tables at byte 40 nv²:
 * per pair of columns the byte offset of its first column and the range of its rows in the list
 * that follows, whose entries are (8 t, 8 nv t), the byte offsets of A's column t and of B's row t.
 * Returns the code and the tables' i32 values.
 */
function negProducts(model: Model): { code: Uint8Array; tables: Int32Array } {
  const nv = model.nv, { k0, rows } = productPairs(model), np = k0.length;
  const n2 = 8 * nv * nv, TB = 5 * n2, row = 8 * nv, h = nv >= 4 ? 4 : 2;
  // tables: 8 K0[np], RS[np + 1] (byte offsets of the ranges in the list), then the list of (8 t, 8 nv t)
  const tables = new Int32Array(2 * np + 1 + 2 * rows.reduce((s, r) => s + r.length, 0));
  let at = 2 * np + 1;
  for (let p = 0; p < np; p++) {
    tables[p] = 8 * k0[p]; tables[np + p] = TB + 4 * at;
    for (const t of rows[p]) { tables[at++] = 8 * t; tables[at++] = 8 * nv * t; }
  }
  tables[2 * np] = TB + 4 * at;
  // i32 locals: the first row's byte offset in A / X, the pair, k's byte offset, the list's cursor and end, an address; v128: A's splats, two B pairs, the 2h sums
  const RA = 0, P = 1, K = 2, I = 3, IE = 4, AD = 5;
  const MA = 6, B1 = MA + h, B2 = B1 + 1, X = B2 + 1;
  const e = new SimdBody();
  /** the block of rows whose first row's offset (8 nv r) is in RA */
  const rowBlock = () => {
    e.f64(0).v(V.splat);
    for (let j = 0; j < 2 * h - 1; j++) e.tee(X + j);
    e.set(X + 2 * h - 1);
    e.get(P).i32(2).op(I32_SHL).ldi(TB + 4 * np).set(I);
    e.op(BLOCK, VOID, LOOP, VOID);
    e.get(I).get(IE).op(I32_GE_S, BR_IF, 1);
    // A[r + j, t] for the h rows, splatted
    e.get(RA).get(I).ldi(0).op(I32_ADD).set(AD);
    for (let j = 0; j < h; j++) e.get(AD).ldf(j * row).v(V.splat).set(MA + j);
    // B's pairs at row t, columns k, k+1
    e.get(I).ldi(4).get(K).op(I32_ADD).tee(AD).ldv(n2).set(B1);
    e.get(AD).ldv(2 * n2).set(B2);
    for (let j = 0; j < h; j++) {
      e.get(X + 2 * j).get(MA + j).get(B1).v(V.mul).v(V.sub).set(X + 2 * j);
      e.get(X + 2 * j + 1).get(MA + j).get(B2).v(V.mul).v(V.sub).set(X + 2 * j + 1);
    }
    e.get(I).i32(8).op(I32_ADD).set(I);
    e.op(BR, 0, END, END);
    e.get(RA).get(K).op(I32_ADD).set(AD);
    for (let j = 0; j < h; j++) {
      e.get(AD).get(X + 2 * j).stv(3 * n2 + j * row);
      e.get(AD).get(X + 2 * j + 1).stv(4 * n2 + j * row);
    }
  };
  e.i32(0).set(P);
  e.op(BLOCK, VOID, LOOP, VOID);
  e.get(P).i32(np).op(I32_GE_S, BR_IF, 1);
  e.get(P).i32(2).op(I32_SHL).ldi(TB).set(K);
  e.get(P).i32(2).op(I32_SHL).ldi(TB + 4 * np + 4).set(IE);
  e.i32(0).set(RA);
  e.op(BLOCK, VOID, LOOP, VOID);
  e.get(RA).i32(row * (nv - h + 1)).op(I32_GE_S, BR_IF, 1);
  rowBlock();
  e.get(RA).i32(row * h).op(I32_ADD).set(RA);
  e.op(BR, 0, END, END);
  if (nv % h !== 0) { e.i32(row * (nv - h)).set(RA); rowBlock(); }
  e.get(P).i32(1).op(I32_ADD).set(P);
  e.op(BR, 0, END, END);
  return { code: e.finishWith([[6, 0x7f], [h + 2 + 2 * h, 0x7b]]), tables };
}
