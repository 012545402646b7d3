/**
 * Property 2, the matrix form of the ABA: q̈ from the forward-dynamics system D d + b = 0 by
 *   W^L D W^R d' = −W^L b  (forward substitution: lower triangular under p_fd, q),  d = W^R d'
 * with W^R (29) and W^L = W^{L,4} W^{L,3} W^{L,2} W^{L,1} (30)–(33) built from the articulated
 * inertias I^A_i, and the permutations q (34) and p_fd (35).
 * Source: paper 004 (F. Nori), §V-C, appendix A (eqs. 24–28) and appendix B (eqs. 29–35).
 *
 * What each factor does, on our rows (c3a, c3f, c3τ, then the known rows y[τ], y[f^x]) and columns
 * (a, f, τ, f^x, q̈ per body; system.ts), j ∈ μ(i):
 *   W^R      (29): f_i = p^A_i + I^A_i a_i: column f_i now carries p^A_i                  (Step 1, eq. 25)
 *   W^{L,1}  (30): c3τ_i += S_iᵀ I^A_i · c3a_i: eliminates a_i from (25τ_i)              (Step 2, eq. 26)
 *   W^{L,2}  (31): c3τ_i := D_i⁻¹ · c3τ_i, D_i = S_iᵀ I^A_i S_i: reads q̈_i = …         (Step 3, eq. 14)
 *   W^{L,3}  (32): c3a_i −= S_i · c3τ_i: eliminates q̈_i from (25a_i)                     (Step 4, eq. 27)
 *   W^{L,4}  (33): c3f_i += ⁱX*_j I^A_j · c3a_j: eliminates a_j from (25f_i)             (Step 5, eq. 28)
 *
 * Where the appendix is not literal for our system (derived here, checked by the tests):
 * - Multi-DoF joints (spherical, floating base): S_i is 6×n_i, D_i an n_i×n_i block; (30)–(32) hold
 *   blockwise with S_iᵀ I^A_i (n_i×6), D_i⁻¹ (n_i×n_i), −S_i (6×n_i). A 0-DoF (kept fixed) joint
 *   has no c3τ_i rows: W^{L,1..3} have no block for it and (33) alone eliminates a_j (I^a_j = I^A_j).
 * - The f^x columns and their known rows y[f^x] (8) ride along: no W touches them. The root body's
 *   a_λ = a_0 is in b (system.ts), so its rows need nothing special.
 * - (31) is printed with W_{c3τ_i,c3τ_i} = (S_jᵀ I^A_j S_j)⁻¹: the index is i.
 * - (35) as printed pairs c(3τ_{N_B}) with c(8f^x_1) and ends with rows c(15 q̈_i), which do not
 *   exist. The permutation that makes the product lower triangular pairs each column of (34) with
 *   its own row:
 *     q    = [f^x_1, τ_1, …, f^x_N, τ_N, f_N, …, f_1, a_1, …, a_N, q̈_1, …, q̈_N]          (34)
 *     p_fd = [y[f^x_1], y[τ_1], …, y[f^x_N], y[τ_N], c3f_N, …, c3f_1, c3a_1, …, c3a_N, c3τ_1, …, c3τ_N]
 *   (the rows y[τ_i] are (15τ_i); the rows c3τ_i, after W^{L,2}, are (14q̈_i)).
 * - Exact cancellations. Some blocks of the products are zero (or the identity) only through the
 *   identities the steps were built on, so in floating point they hold to round-off: a sparse
 *   product would carry them as structural entries, some above the diagonal. They are the blocks
 *   the derivation eliminates, and the product does not compute them:
 *     after W^{L,1}: (c3τ_i, a_i) = S_iᵀ I^A_i − S_iᵀ I^A_i = 0                              (26)
 *     after W^{L,2}: (c3τ_i, q̈_i) = D_i⁻¹ D_i = 1_{n_i}                                     (14)
 *     after W^{L,3}: (c3a_i, q̈_i) = S_i − S_i 1_{n_i} = 0                                   (27)
 *     after W^{L,4}: (c3f_i, a_j) = ⁱX*_j I^A_j − ⁱX*_j I^A_j = 0                            (28)
 *                    (c3f_i, a_i) = I_i − I^A_i + Σ_j ⁱX*_j I^a_j ʲX_i = 0                   (13 I^A_i)
 *   The tests form the full product densely (W from ABA's own I^A) and check that these blocks
 *   vanish to round-off and that nothing else lies above the diagonal.
 *
 * Flops, in three parts (paper 004 Fig. 1 counts the last two only): (a) `inertias`, the I^A
 * recursion with U_i = I^A_i S_i and D_i⁻¹ (ABA's pass 2 without the bias forces); (b) `product`,
 * D W^R and the four left products (each W^{L,k} applied in turn; W^L itself is never formed); (c)
 * `solve`, W^L b, the forward substitution and d = W^R d'. Kinematics and the fill of D and b are
 * counted apart, as for the LU path. The values of W^{L,1} = S_iᵀ I^A_i and W^{L,4} = ⁱX*_j I^A_j
 * are read off D W^R (the coefficients of a_i in (25τ_i) and of a_j in (25f_i)), at no cost.
 * Products by an exact constant ±1 (identity blocks, unit entries of S, the −1 blocks of D) are
 * copies and are not counted. W^R holds I^A_i on its worst-case pattern (articulatedInertiaPatterns,
 * below), so a planar mechanism keeps the zeros of its articulated inertias.
 */
import { SingularJointInertiaError } from '../algorithms/aba.ts';
import { checkConfiguration, checkExternalWrenches, checkVector } from '../algorithms/validate.ts';
import type { Model } from '../model/model.ts';
import { setMS, setSTU } from '../model/subspace.ts';
import { m6CongruenceAdd } from '../spatial/articulated.ts';
import { Flops } from '../spatial/flops.ts';
import { inertiaToMatrix } from '../spatial/inertia.ts';
import { spdInvertInPlace } from '../spatial/smallmat.ts';
import { inertiaPattern, transformPattern } from './patterns.ts';
import { classicalInputs, forwardDynamicsProblem } from './problems.ts';
import { fillSystem, SymbolicSystem, SystemValues } from './system.ts';
import { VARIABLE_KINDS } from './variables.ts';

/**
 * A sparse matrix by rows (CSR), columns ascending in each row. `unit[e]` = ±1 marks an entry that
 * is the exact constant ±1 (products with it are copies and cost nothing); 0 otherwise.
 */
export interface RowMatrix {
  readonly m: number;
  readonly n: number;
  readonly Rp: Int32Array;
  readonly Rj: Int32Array;
  readonly x: Float64Array;
  readonly unit: Int8Array;
}

/** One entry of a matrix under construction: row, column, unit flag, constant value. */
interface Entry { i: number; j: number; unit: number; value: number }

function rowMatrix(m: number, n: number, entries: Entry[]): RowMatrix {
  entries.sort((s, t) => s.i - t.i || s.j - t.j);
  const Rp = new Int32Array(m + 1);
  for (const e of entries) Rp[e.i + 1]++;
  for (let i = 0; i < m; i++) Rp[i + 1] += Rp[i];
  return {
    m, n, Rp,
    Rj: Int32Array.from(entries, (e) => e.j),
    x: Float64Array.from(entries, (e) => e.value),
    unit: Int8Array.from(entries, (e) => e.unit),
  };
}

/** Index of entry (i, j) of A, or −1. */
function entryIndex(A: RowMatrix, i: number, j: number): number {
  for (let e = A.Rp[i]; e < A.Rp[i + 1]; e++) if (A.Rj[e] === j) return e;
  return -1;
}

/** What a product keeps of an entry it would form: compute it, drop it (exactly zero), or fix it to 1. */
const KEEP = 0, DROP = 1, ONE = 2;
type Mask = (i: number, j: number) => number;

/**
 * C = A B with a fixed pattern: per entry of C the terms A[ta] B[tb]; tk says how a term is formed:
 * 0 A·B (one mul); ±1 ±A (B is ±1); ±2 ±B (A is ±1); ±3 the constant ±1 (both are ±1). Entries that are constants (a single product
 * of two units, or fixed to 1 by the mask) have no terms and keep their value.
 */
interface ProductPlan {
  readonly C: RowMatrix;
  readonly ts: Int32Array;
  readonly ta: Int32Array;
  readonly tb: Int32Array;
  readonly tk: Int8Array;
}

/** A growable typed array (doubling), for plans whose size is known only at the end. */
class Grow<T extends Int32Array | Int8Array | Float64Array> {
  length = 0;
  constructor(private buf: T) {}
  push(v: number): void {
    if (this.length === this.buf.length) {
      const b = new (this.buf.constructor as { new(n: number): T })(Math.max(16, 2 * this.buf.length));
      b.set(this.buf);
      this.buf = b;
    }
    this.buf[this.length++] = v;
  }
  /** the values pushed, in an array of their exact length */
  done(): T { return this.buf.slice(0, this.length) as T; }
}

function planProduct(A: RowMatrix, B: RowMatrix, mask: Mask | null): ProductPlan {
  if (A.n !== B.m) throw new RangeError(`planProduct: A is ${A.m}×${A.n}, B is ${B.m}×${B.n}`);
  // C is built by rows, columns ascending within a row: straight into CSR, no sort, no objects
  const Rp = new Int32Array(A.m + 1);
  const Cj = new Grow(new Int32Array(1024)), Cx = new Grow(new Float64Array(1024)), Cu = new Grow(new Int8Array(1024));
  const ts = new Grow(new Int32Array(1024)), ta = new Grow(new Int32Array(1024)), tb = new Grow(new Int32Array(1024)), tk = new Grow(new Int8Array(1024));
  ts.push(0);
  const trip: number[] = [];
  const kinds: number[] = [];
  for (let i = 0; i < A.m; i++) {
    trip.length = 0;
    for (let ea = A.Rp[i]; ea < A.Rp[i + 1]; ea++) {
      const k = A.Rj[ea];
      for (let eb = B.Rp[k]; eb < B.Rp[k + 1]; eb++) trip.push(B.Rj[eb], ea, eb);
    }
    const order = Array.from({ length: trip.length / 3 }, (_, t) => t).sort((s, t) => trip[3 * s] - trip[3 * t] || s - t);
    for (let g = 0; g < order.length;) {
      const j = trip[3 * order[g]];
      let h = g;
      while (h < order.length && trip[3 * order[h]] === j) h++;
      const what = mask ? mask(i, j) : KEEP;
      if (what === ONE) {
        Cj.push(j); Cu.push(1); Cx.push(1);
        ts.push(ta.length);
      } else if (what === KEEP) {
        kinds.length = 0;
        for (let t = g; t < h; t++) {
          const ea = trip[3 * order[t] + 1], eb = trip[3 * order[t] + 2];
          const ua = A.unit[ea], ub = B.unit[eb];
          kinds.push(ua !== 0 && ub !== 0 ? 3 * ua * ub : ub !== 0 ? ub : ua !== 0 ? 2 * ua : 0);
        }
        if (kinds.length === 1 && Math.abs(kinds[0]) === 3) {
          Cj.push(j); Cu.push(Math.sign(kinds[0])); Cx.push(Math.sign(kinds[0]));
        } else {
          Cj.push(j); Cu.push(0); Cx.push(0);
          for (let t = g; t < h; t++) {
            ta.push(trip[3 * order[t] + 1]); tb.push(trip[3 * order[t] + 2]); tk.push(kinds[t - g]);
          }
        }
        ts.push(ta.length);
      }
      g = h;
    }
    Rp[i + 1] = Cj.length;
  }
  const C: RowMatrix = { m: A.m, n: B.n, Rp, Rj: Cj.done(), x: Cx.done(), unit: Cu.done() };
  return { C, ts: ts.done(), ta: ta.done(), tb: tb.done(), tk: tk.done() };
}

/** C.x = values of A B on the plan's pattern (no allocation). */
function runProduct(P: ProductPlan, A: RowMatrix, B: RowMatrix, fl: Flops): void {
  const ts = P.ts, ta = P.ta, tb = P.tb, tk = P.tk, Cx = P.C.x, Ax = A.x, Bx = B.x;
  const nz = ts.length - 1;
  let mul = 0, add = 0;
  for (let e = 0; e < nz; e++) {
    const s = ts[e], t = ts[e + 1];
    if (s === t) continue;
    let acc = 0;
    for (let k = s; k < t; k++) {
      const kind = tk[k];
      if (kind === 0) { acc += Ax[ta[k]] * Bx[tb[k]]; mul++; }
      else if (kind === 2) acc += Bx[tb[k]];
      else if (kind === -2) acc -= Bx[tb[k]];
      else if (kind === 1) acc += Ax[ta[k]];
      else if (kind === -1) acc -= Ax[ta[k]];
      else acc += kind > 0 ? 1 : -1;
    }
    // the first term is a store, each further one an addition
    add += t - s - 1;
    Cx[e] = acc;
  }
  fl.mul += mul; fl.add += add;
}

/** Row kinds of the forward-dynamics system and column kinds (index in VARIABLE_KINDS). */
const R_A = 0, R_F = 1, R_TAU = 2, R_Y = 3;
const C_A = VARIABLE_KINDS.indexOf('a'), C_QDD = VARIABLE_KINDS.indexOf('qdd');

/**
 * Flops of one matrix-ABA step, by part.
 * @experimental
 */
export interface MatrixAbaFlops {
  /** velocity kinematics ⁱX_λ, v_i, c_i (shared with RNEA, ABA and the LU path) */
  kinematics: Flops;
  /** the remaining values of D and b */
  fill: Flops;
  /** (a) I^A_i, U_i = I^A_i S_i, D_i⁻¹ (left out of paper 004's count) */
  inertias: Flops;
  /** (b) W^L D W^R as sparse products */
  product: Flops;
  /** (c) W^L b, forward substitution, d = W^R d' */
  solve: Flops;
}

/**
 * Forward dynamics by Property 2 (paper 004 §V-C, appendix B). Symbolic work (patterns of the W's
 * and of every product, the masks, the permutations, the triangularity check) is done once in the
 * constructor; `solve` refills values and allocates nothing.
 * @experimental
 */
export class MatrixAba {
  /** the forward-dynamics system (D, b; paper 004 eq. 16) */
  readonly sys: SymbolicSystem;
  /** its runtime values (kinematics, D, b) */
  readonly values: SystemValues;
  /** I^A_i: articulated-body inertia of body i, body coordinates, 6×6 row-major (views into IAflat) */
  readonly IA: Float64Array[];
  /** worst-case pattern of I^A_i (1 = structural), from I_i and the transforms' patterns */
  readonly IApattern: Uint8Array[];
  /** U_i = I^A_i S_i (6×n_i column-major) */
  readonly U: Float64Array[];
  /** D_i⁻¹ = (S_iᵀ I^A_i S_i)⁻¹ (n_i×n_i row-major, views into Dinvflat) */
  readonly Dinv: Float64Array[];
  /** W^R (29), n×n */
  readonly WR: RowMatrix;
  /** W^{L,1} … W^{L,4} (30)–(33), m×m */
  readonly WL: readonly [RowMatrix, RowMatrix, RowMatrix, RowMatrix];
  /** D as a RowMatrix (values copied from values.Ax each step) */
  readonly D: RowMatrix;
  /** W^L D W^R (lower triangular under rowPerm, colPerm) */
  readonly product: RowMatrix;
  /** p_fd (35): rowPerm[k] = row placed k-th;  q (34): colPerm[k] = column placed k-th */
  readonly rowPerm: Int32Array;
  readonly colPerm: Int32Array;
  /** d' (column f_i holds p^A_i) and d = W^R d' (all unknowns, layout order) of the last step */
  readonly dPrime: Float64Array;
  readonly d: Float64Array;
  /** q̈ (output, velocity order) */
  readonly qdd: Float64Array;
  /** inputs y of the forward-dynamics system: [τ; f^x] */
  readonly y: Float64Array;
  /** flops of the last step, by part */
  readonly flops: MatrixAbaFlops = { kinematics: new Flops(), fill: new Flops(), inertias: new Flops(), product: new Flops(), solve: new Flops() };

  private readonly IAflat: Float64Array;
  private readonly Dinvflat: Float64Array;
  /** value sources: D.x[e] = values.Ax[dSlot[e]]; WR.x[wrDst[k]] = IAflat[wrSrc[k]]; … */
  private readonly dSlot: Int32Array;
  private readonly wrDst: Int32Array;
  private readonly wrSrc: Int32Array;
  private readonly wl1Dst: Int32Array;
  private readonly wl1Src: Int32Array;
  private readonly wl2Dst: Int32Array;
  private readonly wl2Src: Int32Array;
  private readonly wl4Dst: Int32Array;
  private readonly wl4Src: Int32Array;
  /** the product chain D W^R → … → W^L D W^R, and W^{L,k} applied to b */
  private readonly plans: readonly ProductPlan[];
  private readonly bvec: RowMatrix;
  private readonly bplans: readonly ProductPlan[];
  /** −W^L b scattered into a dense vector (rows outside its pattern stay 0) */
  private readonly wb: Float64Array;
  /** forward substitution: per position k, the diagonal entry and the off-diagonal entries of row rowPerm[k] */
  private readonly fsDiag: Int32Array;
  private readonly fsStart: Int32Array;
  private readonly fsOff: Int32Array;
  /** whether −W^L b is structurally nonzero in row rowPerm[k] */
  private readonly fsRhs: Uint8Array;
  /** scratch of the I^A recursion: I^a_i, U_i D_i⁻¹, Cholesky work */
  private readonly Ia = new Float64Array(36);
  private readonly UD = new Float64Array(36);
  private readonly w36 = new Float64Array(36);

  constructor(readonly model: Model) {
    const nb = model.nb;
    const sys = new SymbolicSystem(model, forwardDynamicsProblem(model));
    this.sys = sys;
    this.values = new SystemValues(sys);
    const L = sys.layout, m = sys.m, n = sys.n;
    this.IAflat = new Float64Array(36 * nb);
    this.IA = Array.from({ length: nb }, (_, i) => this.IAflat.subarray(36 * i, 36 * i + 36));
    this.U = Array.from({ length: nb }, (_, i) => new Float64Array(6 * model.nvi[i]));
    const dOff = new Int32Array(nb + 1);
    for (let i = 0; i < nb; i++) dOff[i + 1] = dOff[i] + model.nvi[i] * model.nvi[i];
    this.Dinvflat = new Float64Array(dOff[nb]);
    this.Dinv = Array.from({ length: nb }, (_, i) => this.Dinvflat.subarray(dOff[i], dOff[i + 1]));
    this.IApattern = articulatedInertiaPatterns(model);

    // row and column kinds, bodies, offsets
    const rowKind = new Int8Array(m).fill(R_Y), rowBody = new Int32Array(m).fill(-1), rowOff = new Int32Array(m);
    for (let i = 0; i < nb; i++) {
      for (let k = 0; k < 6; k++) {
        rowKind[sys.rowA[i] + k] = R_A; rowBody[sys.rowA[i] + k] = i; rowOff[sys.rowA[i] + k] = k;
        rowKind[sys.rowF[i] + k] = R_F; rowBody[sys.rowF[i] + k] = i; rowOff[sys.rowF[i] + k] = k;
      }
      for (let k = 0; k < model.nvi[i]; k++) { rowKind[sys.rowTau[i] + k] = R_TAU; rowBody[sys.rowTau[i] + k] = i; rowOff[sys.rowTau[i] + k] = k; }
    }
    const colKind = new Int8Array(n), colBody = new Int32Array(n), colOff = new Int32Array(n);
    for (let c = 0; c < n; c++) {
      const loc = L.locate(c);
      colKind[c] = VARIABLE_KINDS.indexOf(loc.kind); colBody[c] = loc.body; colOff[c] = loc.offset;
    }

    // D by rows, with the unit flags of its constant ±1 entries
    const A = sys.pattern;
    const constUnit = new Int8Array(A.Ap[n]);
    for (let k = 0; k < sys.constSlot.length; k++) {
      const v = sys.constVal[k];
      if (v === 1 || v === -1) constUnit[sys.constSlot[k]] = v;
    }
    const dEntries: (Entry & { slot: number })[] = [];
    for (let j = 0; j < n; j++) for (let s = A.Ap[j]; s < A.Ap[j + 1]; s++) dEntries.push({ i: A.Ai[s], j, unit: constUnit[s], value: A.Ax[s], slot: s });
    dEntries.sort((s, t) => s.i - t.i || s.j - t.j);
    this.D = rowMatrix(m, n, dEntries);
    this.dSlot = Int32Array.from(dEntries, (e) => e.slot);
    dEntries.length = 0; // the entry lists die here, not at the end of the constructor (peak memory)

    // W^R (29): identity, and I^A_i in the block (f_i, a_i)
    const wr: Entry[] = [];
    const wrSrc: number[] = [], wrKey: number[] = [];
    for (let c = 0; c < n; c++) wr.push({ i: c, j: c, unit: 1, value: 1 });
    for (let i = 0; i < nb; i++) {
      for (let r = 0; r < 6; r++) for (let c = 0; c < 6; c++) {
        if (!this.IApattern[i][6 * r + c]) continue;
        wr.push({ i: L.f[i] + r, j: L.a[i] + c, unit: 0, value: 0 });
        wrKey.push(L.f[i] + r, L.a[i] + c); wrSrc.push(36 * i + 6 * r + c);
      }
    }
    this.WR = rowMatrix(n, n, wr);
    this.wrDst = Int32Array.from(wrSrc, (_, k) => entryIndex(this.WR, wrKey[2 * k], wrKey[2 * k + 1]));
    this.wrSrc = Int32Array.from(wrSrc);
    wr.length = 0; wrSrc.length = 0; wrKey.length = 0;

    const identity = (): Entry[] => Array.from({ length: m }, (_, r) => ({ i: r, j: r, unit: 1, value: 1 }));
    const P1 = planProduct(this.D, this.WR, null);
    const B1 = P1.C;

    // W^{L,1} (30): (c3τ_i, c3a_i) = S_iᵀ I^A_i, read off D W^R's block (c3τ_i, a_i)
    const wl1 = identity(), wl1Key: number[] = [], wl1Src: number[] = [];
    for (let i = 0; i < nb; i++) for (let k = 0; k < model.nvi[i]; k++) {
      const r = sys.rowTau[i] + k;
      for (let e = B1.Rp[r]; e < B1.Rp[r + 1]; e++) {
        const c = B1.Rj[e];
        if (colKind[c] !== C_A || colBody[c] !== i) continue;
        wl1.push({ i: r, j: sys.rowA[i] + colOff[c], unit: B1.unit[e], value: B1.x[e] });
        wl1Key.push(r, sys.rowA[i] + colOff[c]); wl1Src.push(e);
      }
    }
    const W1 = rowMatrix(m, m, wl1);
    this.wl1Dst = Int32Array.from(wl1Src, (_, k) => entryIndex(W1, wl1Key[2 * k], wl1Key[2 * k + 1]));
    this.wl1Src = Int32Array.from(wl1Src);
    wl1.length = 0; wl1Key.length = 0; wl1Src.length = 0;

    // W^{L,2} (31): rows c3τ_i replaced by D_i⁻¹ · rows c3τ_i
    const wl2: Entry[] = [], wl2Key: number[] = [], wl2Src: number[] = [];
    for (let r = 0; r < m; r++) if (rowKind[r] !== R_TAU) wl2.push({ i: r, j: r, unit: 1, value: 1 });
    for (let i = 0; i < nb; i++) {
      const ni = model.nvi[i];
      for (let k = 0; k < ni; k++) for (let l = 0; l < ni; l++) {
        wl2.push({ i: sys.rowTau[i] + k, j: sys.rowTau[i] + l, unit: 0, value: 0 });
        wl2Key.push(sys.rowTau[i] + k, sys.rowTau[i] + l); wl2Src.push(dOff[i] + ni * k + l);
      }
    }
    const W2 = rowMatrix(m, m, wl2);
    this.wl2Dst = Int32Array.from(wl2Src, (_, k) => entryIndex(W2, wl2Key[2 * k], wl2Key[2 * k + 1]));
    this.wl2Src = Int32Array.from(wl2Src);
    wl2.length = 0; wl2Key.length = 0; wl2Src.length = 0;

    // W^{L,3} (32): (c3a_i, c3τ_i) = −S_i (constant)
    const wl3 = identity();
    for (let i = 0; i < nb; i++) {
      const S = model.S[i];
      for (let k = 0; k < model.nvi[i]; k++) for (let r = 0; r < 6; r++) {
        const s = S[6 * k + r];
        if (s === 0) continue;
        wl3.push({ i: sys.rowA[i] + r, j: sys.rowTau[i] + k, unit: s === 1 ? -1 : s === -1 ? 1 : 0, value: -s });
      }
    }
    const W3 = rowMatrix(m, m, wl3);
    wl3.length = 0;

    // W^{L,4} (33): (c3f_i, c3a_j) = ⁱX*_j I^A_j, read off D W^R's block (c3f_i, a_j), j ∈ μ(i)
    const wl4 = identity(), wl4Key: number[] = [], wl4Src: number[] = [];
    for (let i = 0; i < nb; i++) for (let k = 0; k < 6; k++) {
      const r = sys.rowF[i] + k;
      for (let e = B1.Rp[r]; e < B1.Rp[r + 1]; e++) {
        const c = B1.Rj[e], j = colBody[c];
        if (colKind[c] !== C_A || model.parents[j] !== i) continue;
        wl4.push({ i: r, j: sys.rowA[j] + colOff[c], unit: B1.unit[e], value: B1.x[e] });
        wl4Key.push(r, sys.rowA[j] + colOff[c]); wl4Src.push(e);
      }
    }
    const W4 = rowMatrix(m, m, wl4);
    this.wl4Dst = Int32Array.from(wl4Src, (_, k) => entryIndex(W4, wl4Key[2 * k], wl4Key[2 * k + 1]));
    this.wl4Src = Int32Array.from(wl4Src);
    wl4.length = 0; wl4Key.length = 0; wl4Src.length = 0;
    this.WL = [W1, W2, W3, W4];

    // the chain, with the blocks each step eliminates (file header)
    const sameBody = (r: number, c: number) => rowBody[r] === colBody[c];
    const P2 = planProduct(W1, B1, (r, c) => (rowKind[r] === R_TAU && colKind[c] === C_A && sameBody(r, c) ? DROP : KEEP)); // (26)
    const P3 = planProduct(W2, P2.C, (r, c) => (rowKind[r] === R_TAU && colKind[c] === C_QDD && sameBody(r, c) ? (rowOff[r] === colOff[c] ? ONE : DROP) : KEEP)); // (14)
    const P4 = planProduct(W3, P3.C, (r, c) => (rowKind[r] === R_A && colKind[c] === C_QDD && sameBody(r, c) ? DROP : KEEP)); // (27)
    const P5 = planProduct(W4, P4.C, (r, c) => (rowKind[r] === R_F && colKind[c] === C_A && (sameBody(r, c) || model.parents[colBody[c]] === rowBody[r]) ? DROP : KEEP)); // (28), (13 I^A)
    this.plans = [P1, P2, P3, P4, P5];
    this.product = P5.C;

    // b as an m×1 matrix on its structural rows: b(3τ) = 0; b(3a_i) = c_i = 0 for a 0-DoF joint
    // below a body; the angular part of ⁱX_0 a_0 (gravity only) is 0 for a root body
    const bEntries: Entry[] = [];
    for (let r = 0; r < m; r++) {
      if (rowKind[r] === R_TAU) continue;
      if (rowKind[r] === R_A) {
        const i = rowBody[r];
        if (model.parents[i] >= 0 ? model.nvi[i] === 0 : rowOff[r] < 3) continue;
      }
      bEntries.push({ i: r, j: 0, unit: 0, value: 0 });
    }
    this.bvec = rowMatrix(m, 1, bEntries);
    bEntries.length = 0;
    const bplans: ProductPlan[] = [];
    let v = this.bvec;
    for (const W of this.WL) { const P = planProduct(W, v, null); bplans.push(P); v = P.C; }
    this.bplans = bplans;
    this.wb = new Float64Array(m);

    // permutations (34), (35)
    const knownRow = new Map<string, number>();
    sys.known.forEach((z, k) => knownRow.set(`${z.kind}:${z.body}:${z.offset}`, sys.knownRow[k]));
    const rows: number[] = [], cols: number[] = [];
    for (let i = 0; i < nb; i++) {
      for (let k = 0; k < 6; k++) { cols.push(L.fx[i] + k); rows.push(knownRow.get(`fx:${i}:${k}`)!); }
      for (let k = 0; k < model.nvi[i]; k++) { cols.push(L.tau[i] + k); rows.push(knownRow.get(`tau:${i}:${k}`)!); }
    }
    for (let i = nb - 1; i >= 0; i--) for (let k = 0; k < 6; k++) { cols.push(L.f[i] + k); rows.push(sys.rowF[i] + k); }
    for (let i = 0; i < nb; i++) for (let k = 0; k < 6; k++) { cols.push(L.a[i] + k); rows.push(sys.rowA[i] + k); }
    for (let i = 0; i < nb; i++) for (let k = 0; k < model.nvi[i]; k++) { cols.push(L.qdd[i] + k); rows.push(sys.rowTau[i] + k); }
    this.rowPerm = Int32Array.from(rows);
    this.colPerm = Int32Array.from(cols);

    // forward substitution plan; the product must be lower triangular with a full diagonal
    const M = this.product;
    const colPos = new Int32Array(n);
    this.colPerm.forEach((c, k) => { colPos[c] = k; });
    const rhsNz = new Uint8Array(m);
    for (let i = 0; i < m; i++) if (v.Rp[i + 1] > v.Rp[i]) rhsNz[i] = 1;
    this.fsDiag = new Int32Array(n);
    this.fsStart = new Int32Array(n + 1);
    this.fsRhs = new Uint8Array(n);
    const off: number[] = [];
    for (let k = 0; k < n; k++) {
      const r = this.rowPerm[k];
      this.fsDiag[k] = -1;
      this.fsRhs[k] = rhsNz[r];
      for (let e = M.Rp[r]; e < M.Rp[r + 1]; e++) {
        const c = M.Rj[e], pos = colPos[c];
        if (pos === k) this.fsDiag[k] = e;
        else if (pos < k) off.push(e);
        else throw new RangeError(`matrix ABA: W^L D W^R has entry (${sys.rowNames[r]}, ${L.names[c]}) above the diagonal under the permutations (34)-(35)`);
      }
      if (this.fsDiag[k] < 0) throw new RangeError(`matrix ABA: W^L D W^R has no diagonal entry (${sys.rowNames[r]}, ${L.names[this.colPerm[k]]})`);
      this.fsStart[k + 1] = off.length;
    }
    this.fsOff = Int32Array.from(off);

    this.dPrime = new Float64Array(n);
    this.d = new Float64Array(n);
    this.qdd = new Float64Array(model.nv);
    this.y = new Float64Array(sys.ny);
  }

  /** q̈ = FD(q, q̇, τ, f^x) by Property 2; returns this.qdd. Validates the inputs. */
  solve(q: ArrayLike<number>, qd: ArrayLike<number> | null, tau: ArrayLike<number>, fext?: readonly Float64Array[]): Float64Array {
    const model = this.model;
    checkConfiguration(model, q);
    if (qd !== null) checkVector(model, 'v', qd, false);
    checkVector(model, 'tau', tau, false);
    checkExternalWrenches(model, fext);
    classicalInputs(this.y, model, tau, fext);
    return this.solveUnchecked(q, qd, this.y);
  }

  /** solve for the system inputs y = [τ; f^x] without the entry checks. Allocation free. */
  solveUnchecked(q: ArrayLike<number>, qd: ArrayLike<number> | null, y: Float64Array): Float64Array {
    const vals = this.values, fl = this.flops, model = this.model;
    fillSystem(vals, q, qd, y);
    copyFlops(fl.kinematics, vals.kin.flops);
    copyFlops(fl.fill, vals.flops);
    // (a) articulated inertias
    fl.inertias.reset();
    this.inertiaPass(fl.inertias);
    // (b) W^L D W^R: refresh the values of D and of the W's, then the chain of products
    fl.product.reset();
    const plans = this.plans, WL = this.WL;
    const P1 = plans[0], P2 = plans[1], P3 = plans[2], P4 = plans[3], P5 = plans[4];
    const W1 = WL[0], W2 = WL[1], W3 = WL[2], W4 = WL[3];
    gather(this.D.x, vals.Ax, this.dSlot);
    scatterGather(this.WR.x, this.wrDst, this.IAflat, this.wrSrc);
    runProduct(P1, this.D, this.WR, fl.product);
    scatterGather(W1.x, this.wl1Dst, P1.C.x, this.wl1Src);
    scatterGather(W2.x, this.wl2Dst, this.Dinvflat, this.wl2Src);
    scatterGather(W4.x, this.wl4Dst, P1.C.x, this.wl4Src);
    runProduct(P2, W1, P1.C, fl.product);
    runProduct(P3, W2, P2.C, fl.product);
    runProduct(P4, W3, P3.C, fl.product);
    runProduct(P5, W4, P4.C, fl.product);
    // (c) W^L b, forward substitution on W^L D W^R d' = −W^L b, d = W^R d'
    const fs = fl.solve;
    fs.reset();
    const bv = this.bvec, b = vals.b;
    for (let e = 0; e < bv.m; e++) if (bv.Rp[e + 1] > bv.Rp[e]) bv.x[bv.Rp[e]] = b[e];
    let v: RowMatrix = bv;
    for (let k = 0; k < 4; k++) { runProduct(this.bplans[k], WL[k], v, fs); v = this.bplans[k].C; }
    const wb = this.wb;
    for (let r = 0; r < v.m; r++) if (v.Rp[r + 1] > v.Rp[r]) wb[r] = v.x[v.Rp[r]];
    this.forwardSubstitution(fs);
    mulDense(this.d, this.WR, this.dPrime, fs);
    const L = this.sys.layout;
    for (let i = 0; i < model.nb; i++) {
      const iv = model.iv[i], o = L.qdd[i];
      for (let k = 0; k < model.nvi[i]; k++) this.qdd[iv + k] = this.d[o + k];
    }
    return this.qdd;
  }

  /** total flops of the last step; `withInertias = false` gives paper 004's count plus kinematics and fill */
  totalFlops(withInertias = true): Flops {
    const f = this.flops;
    const t = new Flops().accumulate(f.kinematics).accumulate(f.fill).accumulate(f.product).accumulate(f.solve);
    return withInertias ? t.accumulate(f.inertias) : t;
  }

  /**
   * I^A_i, U_i, D_i⁻¹ for i = N_B..1 (paper 004 eq. 13; RBDA Table 7.1 without the bias terms):
   *   U_i = I^A_i S_i,  D_i = S_iᵀ U_i,  I^a_i = I^A_i − U_i D_i⁻¹ U_iᵀ,  I^A_λ += ⁱX_λᵀ I^a_i ⁱX_λ
   */
  private inertiaPass(fl: Flops): void {
    const model = this.model, Xup = this.values.kin.Xup;
    const { Ia, UD, w36 } = this;
    for (let i = 0; i < model.nb; i++) inertiaToMatrix(this.IA[i], model.I[i]);
    for (let i = model.nb - 1; i >= 0; i--) {
      const nv = model.nvi[i], IA = this.IA[i], U = this.U[i], Dinv = this.Dinv[i], p = model.parents[i];
      if (nv > 0) {
        setMS(U, IA, model.S[i], nv, fl);
        setSTU(Dinv, model.S[i], U, nv, fl);
        if (!spdInvertInPlace(Dinv, nv, w36, fl)) throw new SingularJointInertiaError(model.jointNames[i]);
      }
      if (p < 0) continue;
      for (let k = 0; k < 36; k++) Ia[k] = IA[k];
      if (nv > 0) {
        for (let b = 0; b < nv; b++) for (let r = 0; r < 6; r++) {
          let acc = 0;
          for (let c = 0; c < nv; c++) acc += U[6 * c + r] * Dinv[nv * c + b];
          UD[6 * b + r] = acc;
        }
        fl.mul += 6 * nv * nv; fl.add += 6 * nv * (nv - 1);
        for (let r = 0; r < 6; r++) for (let c = r; c < 6; c++) {
          let acc = 0;
          for (let k = 0; k < nv; k++) acc += UD[6 * k + r] * U[6 * k + c];
          Ia[6 * r + c] -= acc;
          Ia[6 * c + r] = Ia[6 * r + c];
        }
        fl.mul += 21 * nv; fl.add += 21 * nv;
      }
      m6CongruenceAdd(this.IA[p], Xup[i], Ia, fl);
    }
  }

  /** d'[q[k]] = (−(W^L b)[p[k]] − Σ_{l<k} M(p[k], q[l]) d'[q[l]]) / M(p[k], q[k]), k = 1..n */
  private forwardSubstitution(fl: Flops): void {
    const M = this.product, Mx = M.x, Mj = M.Rj, unit = M.unit;
    const x = this.dPrime, wb = this.wb, rowPerm = this.rowPerm, colPerm = this.colPerm;
    const fsStart = this.fsStart, fsOff = this.fsOff, fsDiag = this.fsDiag, fsRhs = this.fsRhs;
    let mul = 0, add = 0, div = 0;
    for (let k = 0; k < x.length; k++) {
      let acc = -wb[rowPerm[k]];
      let first = fsRhs[k] === 0;
      for (let t = fsStart[k]; t < fsStart[k + 1]; t++) {
        const e = fsOff[t], u = unit[e];
        let term: number;
        if (u === 0) { term = Mx[e] * x[Mj[e]]; mul++; } else term = u > 0 ? x[Mj[e]] : -x[Mj[e]];
        if (first) { acc = -term; first = false; } else { acc -= term; add++; }
      }
      const e = fsDiag[k], u = unit[e];
      if (u === 1) x[colPerm[k]] = acc;
      else if (u === -1) x[colPerm[k]] = -acc;
      else { x[colPerm[k]] = acc / Mx[e]; div++; }
    }
    fl.mul += mul; fl.add += add; fl.div += div;
  }
}

/** y = A x for a dense x (products with unit entries are copies). */
function mulDense(y: Float64Array, A: RowMatrix, x: Float64Array, fl: Flops): void {
  let mul = 0, add = 0;
  for (let i = 0; i < A.m; i++) {
    let acc = 0;
    for (let e = A.Rp[i]; e < A.Rp[i + 1]; e++) {
      const u = A.unit[e];
      let v: number;
      if (u === 0) { v = A.x[e] * x[A.Rj[e]]; mul++; } else v = u > 0 ? x[A.Rj[e]] : -x[A.Rj[e]];
      acc = e === A.Rp[i] ? v : acc + v;
    }
    if (A.Rp[i + 1] - A.Rp[i] > 1) add += A.Rp[i + 1] - A.Rp[i] - 1;
    y[i] = acc;
  }
  fl.mul += mul; fl.add += add;
}

function gather(out: Float64Array, src: Float64Array, idx: Int32Array): void {
  for (let e = 0; e < idx.length; e++) out[e] = src[idx[e]];
}

function scatterGather(out: Float64Array, dst: Int32Array, src: Float64Array, idx: Int32Array): void {
  for (let e = 0; e < idx.length; e++) out[dst[e]] = src[idx[e]];
}

function copyFlops(to: Flops, from: Flops): void {
  to.mul = from.mul; to.add = from.add; to.div = from.div; to.fn = from.fn;
}

/**
 * Worst-case patterns of the articulated inertias (paper 004 §IV-D applied to eq. 13): P(I^A_i) =
 * P(I_i) ∪ ⋃_j P(ʲX_iᵀ I^a_j ʲX_i), P(I^a_j) = P(I^A_j) ∪ {(r, c): rows r and c of U_j = I^A_j S_j
 * structural}, with the transforms' worst-case patterns (patterns.ts). Values outside the pattern
 * are zero for every q (round-off aside) and are not used.
 */
export function articulatedInertiaPatterns(model: Model): Uint8Array[] {
  const P = Array.from({ length: model.nb }, (_, i) => inertiaPattern(model, i));
  const Pa = new Uint8Array(36), T = new Uint8Array(36), Urow = new Uint8Array(6);
  for (let i = model.nb - 1; i >= 0; i--) {
    const p = model.parents[i];
    if (p < 0) continue;
    const S = model.S[i], nv = model.nvi[i];
    Urow.fill(0);
    for (let r = 0; r < 6; r++) for (let k = 0; k < nv; k++) for (let c = 0; c < 6; c++) if (P[i][6 * r + c] && S[6 * k + c] !== 0) Urow[r] = 1;
    for (let r = 0; r < 6; r++) for (let c = 0; c < 6; c++) Pa[6 * r + c] = P[i][6 * r + c] | (Urow[r] & Urow[c]);
    const X = transformPattern(model, i).pattern;
    // T = P(I^a) X, then P(I^A_λ) |= Xᵀ T
    for (let r = 0; r < 6; r++) for (let c = 0; c < 6; c++) {
      let s = 0;
      for (let k = 0; k < 6; k++) s |= Pa[6 * r + k] & X[6 * k + c];
      T[6 * r + c] = s;
    }
    for (let r = 0; r < 6; r++) for (let c = 0; c < 6; c++) {
      let s = 0;
      for (let k = 0; k < 6; k++) s |= X[6 * k + r] & T[6 * k + c];
      P[p][6 * r + c] |= s;
    }
  }
  return P;
}
