/**
 * Property 2, the matrix form of the ABA: q̈ from the forward-dynamics system D d + b = 0 by
 *   W^L D W^R d' = −W^L b  (forward substitution: lower triangular under p_fd, q),  d = W^R d'
 * with W^R (29) and W^L = W^{L,4} W^{L,3} W^{L,2} W^{L,1} (30)–(33) built from the articulated
 * inertias I^A_i, and the permutations q (34) and p_fd (35).
 * Source: Nori (2017) (F. Nori), §V-C, appendix A (eqs. 24–28) and appendix B (eqs. 29–35).
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
 * Flops, in three parts (Nori (2017) Fig. 1 counts the last two only): (a) `inertias`, the I^A
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
import { mulUDinv, spdInvertInPlace } from '../spatial/smallmat.ts';
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

/** A growable typed array (doubling), for lists whose size is known only at the end. */
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
  /** the values pushed, in an array of their exact length (the buffer itself when it is full) */
  done(): T { return (this.length === this.buf.length ? this.buf : this.buf.slice(0, this.length)) as T; }
  /** the values pushed, as a view on the buffer (no copy; for short-lived results) */
  view(): T { return this.buf.subarray(0, this.length) as T; }
}

/** Entries (row, column, unit flag, value) of a matrix under construction, in typed arrays. */
class Triplets {
  readonly i: Grow<Int32Array>;
  readonly j: Grow<Int32Array>;
  readonly unit: Grow<Int8Array>;
  readonly value: Grow<Float64Array>;
  constructor(capacity: number) {
    this.i = new Grow(new Int32Array(capacity)); this.j = new Grow(new Int32Array(capacity));
    this.unit = new Grow(new Int8Array(capacity)); this.value = new Grow(new Float64Array(capacity));
  }
  get length(): number { return this.i.length; }
  push(i: number, j: number, unit: number, value: number): void {
    this.i.push(i); this.j.push(j); this.unit.push(unit); this.value.push(value);
  }
}

/**
 * The triplets as a RowMatrix (counting sort on the rows, then the few entries of each row by
 * column; no duplicates), and pos[k] = index in it of the k-th triplet.
 */
function rowMatrix(m: number, n: number, t: Triplets): { A: RowMatrix; pos: Int32Array } {
  const len = t.length;
  const I = t.i.view(), J = t.j.view(), U = t.unit.view(), X = t.value.view();
  const Rp = new Int32Array(m + 1);
  for (let k = 0; k < len; k++) Rp[I[k] + 1]++;
  for (let r = 0; r < m; r++) Rp[r + 1] += Rp[r];
  const next = Rp.slice(0, m);
  const Rj = new Int32Array(len), x = new Float64Array(len), unit = new Int8Array(len), pos = new Int32Array(len), from = new Int32Array(len);
  for (let k = 0; k < len; k++) from[next[I[k]]++] = k;
  for (let r = 0; r < m; r++) {
    // insertion sort of the row's triplets by column (stable)
    for (let e = Rp[r] + 1; e < Rp[r + 1]; e++) {
      const k = from[e];
      let f = e - 1;
      while (f >= Rp[r] && J[from[f]] > J[k]) { from[f + 1] = from[f]; f--; }
      from[f + 1] = k;
    }
  }
  for (let e = 0; e < len; e++) {
    const k = from[e];
    Rj[e] = J[k]; x[e] = X[k]; unit[e] = U[k]; pos[k] = e;
  }
  return { A: { m, n, Rp, Rj, x, unit }, pos };
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

/**
 * The pattern of C = A B (with the mask) and, per computed entry, its terms in order: recorded
 * into a plan (`fl` null: C.x holds 0 there until runProduct), or evaluated at once on A.x, B.x
 * with the flops counted exactly as runProduct counts them (`fl` given: no plan is kept).
 */
function product(A: RowMatrix, B: RowMatrix, mask: Mask | null, fl: Flops | null, into?: Storage): ProductPlan {
  if (A.n !== B.m) throw new RangeError(`planProduct: A is ${A.m}×${A.n}, B is ${B.m}×${B.n}`);
  // the number of terms bounds the entries of C: buffers of that size never grow
  let bound = 0;
  for (let ea = 0; ea < A.Rp[A.m]; ea++) bound += B.Rp[A.Rj[ea] + 1] - B.Rp[A.Rj[ea]];
  const plan = fl === null, cap = plan ? bound : 0;
  // C is built by rows, columns ascending within a row: straight into CSR, no sort, no objects
  const Rp = new Int32Array(A.m + 1);
  if (into && into.Rj.length < bound) { into.Rj = new Int32Array(bound); into.x = new Float64Array(bound); into.unit = new Int8Array(bound); }
  const Cj = new Grow(into ? into.Rj : new Int32Array(bound)), Cx = new Grow(into ? into.x : new Float64Array(bound)), Cu = new Grow(into ? into.unit : new Int8Array(bound));
  const ts = new Grow(new Int32Array(plan ? bound + 1 : 1)), ta = new Grow(new Int32Array(cap)), tb = new Grow(new Int32Array(cap)), tk = new Grow(new Int8Array(cap));
  ts.push(0);
  // one row's terms: column of B, entry of A, entry of B; `order` sorts them by column (stable)
  let tj = new Int32Array(64), tea = new Int32Array(64), teb = new Int32Array(64), order = new Int32Array(64), kinds = new Int8Array(64);
  const Ax = A.x, Bx = B.x;
  let mul = 0, add = 0;
  for (let i = 0; i < A.m; i++) {
    let len = 0;
    for (let ea = A.Rp[i]; ea < A.Rp[i + 1]; ea++) {
      const k = A.Rj[ea];
      for (let eb = B.Rp[k]; eb < B.Rp[k + 1]; eb++) {
        if (len === tj.length) {
          const grow = (a: Int32Array) => { const b = new Int32Array(2 * a.length); b.set(a); return b; };
          tj = grow(tj); tea = grow(tea); teb = grow(teb); order = new Int32Array(2 * order.length); kinds = new Int8Array(2 * kinds.length);
        }
        tj[len] = B.Rj[eb]; tea[len] = ea; teb[len] = eb; len++;
      }
    }
    for (let t = 0; t < len; t++) {
      let f = t - 1;
      while (f >= 0 && tj[order[f]] > tj[t]) { order[f + 1] = order[f]; f--; }
      order[f + 1] = t;
    }
    for (let g = 0; g < len;) {
      const j = tj[order[g]];
      let h = g;
      while (h < len && tj[order[h]] === j) h++;
      const what = mask ? mask(i, j) : KEEP;
      if (what === ONE) {
        Cj.push(j); Cu.push(1); Cx.push(1);
        if (plan) ts.push(ta.length);
      } else if (what === KEEP) {
        for (let t = g; t < h; t++) {
          const ua = A.unit[tea[order[t]]], ub = B.unit[teb[order[t]]];
          kinds[t - g] = ua !== 0 && ub !== 0 ? 3 * ua * ub : ub !== 0 ? ub : ua !== 0 ? 2 * ua : 0;
        }
        if (h - g === 1 && Math.abs(kinds[0]) === 3) {
          Cj.push(j); Cu.push(Math.sign(kinds[0])); Cx.push(Math.sign(kinds[0]));
        } else if (plan) {
          Cj.push(j); Cu.push(0); Cx.push(0);
          for (let t = g; t < h; t++) {
            ta.push(tea[order[t]]); tb.push(teb[order[t]]); tk.push(kinds[t - g]);
          }
        } else {
          // runProduct's arithmetic, term by term in the same order
          let acc = 0;
          for (let t = g; t < h; t++) {
            const kind = kinds[t - g], ea = tea[order[t]], eb = teb[order[t]];
            if (kind === 0) { acc += Ax[ea] * Bx[eb]; mul++; }
            else if (kind === 2) acc += Bx[eb];
            else if (kind === -2) acc -= Bx[eb];
            else if (kind === 1) acc += Ax[ea];
            else if (kind === -1) acc -= Ax[ea];
            else acc += kind > 0 ? 1 : -1;
          }
          add += h - g - 1;
          Cj.push(j); Cu.push(0); Cx.push(acc);
        }
        if (plan) ts.push(ta.length);
      }
      g = h;
    }
    Rp[i + 1] = Cj.length;
  }
  if (fl !== null) { fl.mul += mul; fl.add += add; }
  // a plan is kept (exact lengths); a result evaluated once is short-lived (views, no copy)
  const C: RowMatrix = plan
    ? { m: A.m, n: B.n, Rp, Rj: Cj.done(), x: Cx.done(), unit: Cu.done() }
    : { m: A.m, n: B.n, Rp, Rj: Cj.view(), x: Cx.view(), unit: Cu.view() };
  return { C, ts: ts.done(), ta: ta.done(), tb: tb.done(), tk: tk.done() };
}

/** The plan of C = A B (values left to runProduct). */
function planProduct(A: RowMatrix, B: RowMatrix, mask: Mask | null): ProductPlan {
  return product(A, B, mask, null);
}

/** Reusable arrays for the entries of a product evaluated once (grown when too small). */
interface Storage { Rj: Int32Array; x: Float64Array; unit: Int8Array }

function storage(): Storage {
  return { Rj: new Int32Array(0), x: new Float64Array(0), unit: new Int8Array(0) };
}

/** C = A B evaluated once, flops added to fl; no plan is kept. C's entries are views on `into` when given. */
function multiplyOnce(A: RowMatrix, B: RowMatrix, mask: Mask | null, fl: Flops, into?: Storage): RowMatrix {
  return product(A, B, mask, fl, into).C;
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
  /** (a) I^A_i, U_i = I^A_i S_i, D_i⁻¹ (left out of Nori (2017)'s count) */
  inertias: Flops;
  /** (b) W^L D W^R as sparse products */
  product: Flops;
  /** (c) W^L b, forward substitution, d = W^R d' */
  solve: Flops;
}

/** Kind, body and offset of every row and column of the forward-dynamics system. */
interface SystemKinds {
  rowKind: Int8Array; rowBody: Int32Array; rowOff: Int32Array;
  colKind: Int8Array; colBody: Int32Array; colOff: Int32Array;
}

function systemKinds(model: Model, sys: SymbolicSystem): SystemKinds {
  const L = sys.layout, m = sys.m, n = sys.n;
  const rowKind = new Int8Array(m).fill(R_Y), rowBody = new Int32Array(m).fill(-1), rowOff = new Int32Array(m);
  for (let i = 0; i < model.nb; i++) {
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
  return { rowKind, rowBody, rowOff, colKind, colBody, colOff };
}

/** D by rows (transposed from the CSC pattern), with the unit flags of its constant ±1 entries; D.x[e] = Ax[dSlot[e]]. */
function rowsOfD(sys: SymbolicSystem, Ax: Float64Array): { D: RowMatrix; dSlot: Int32Array } {
  const A = sys.pattern, m = sys.m, n = sys.n, nnz = A.Ap[n];
  const constUnit = new Int8Array(nnz);
  for (let k = 0; k < sys.constSlot.length; k++) {
    const v = sys.constVal[k];
    if (v === 1 || v === -1) constUnit[sys.constSlot[k]] = v;
  }
  const Rp = new Int32Array(m + 1);
  for (let s = 0; s < nnz; s++) Rp[A.Ai[s] + 1]++;
  for (let r = 0; r < m; r++) Rp[r + 1] += Rp[r];
  const next = Rp.slice(0, m);
  const Rj = new Int32Array(nnz), x = new Float64Array(nnz), unit = new Int8Array(nnz), dSlot = new Int32Array(nnz);
  // columns visited in ascending order: each row's entries come out sorted by column
  for (let j = 0; j < n; j++) {
    for (let s = A.Ap[j]; s < A.Ap[j + 1]; s++) {
      const e = next[A.Ai[s]]++;
      Rj[e] = j; x[e] = Ax[s]; unit[e] = constUnit[s]; dSlot[e] = s;
    }
  }
  return { D: { m, n, Rp, Rj, x, unit }, dSlot };
}

/** A matrix with value sources: A.x[dst[k]] = (its source)[src[k]] at each step. */
interface Sourced { A: RowMatrix; dst: Int32Array; src: Int32Array }

/** W^R (29): identity, and I^A_i (on its worst-case pattern) in the block (f_i, a_i); values from IAflat. */
function buildWR(model: Model, sys: SymbolicSystem, IApattern: readonly Uint8Array[], IAflat: Float64Array): Sourced {
  const L = sys.layout, n = sys.n, nb = model.nb;
  // straight into CSR: row f_i + r holds I^A_i's pattern in the columns a_i … a_i + 5, which come
  // before its diagonal (the layout puts a_i before f_i); every row ends with its diagonal 1
  const Rp = new Int32Array(n + 1);
  for (let c = 0; c < n; c++) Rp[c + 1] = 1;
  let cap = 0;
  for (let i = 0; i < nb; i++) {
    if (L.a[i] + 6 > L.f[i]) throw new Error(`internal error: the layout puts f_${i} before a_${i}`);
    for (let r = 0; r < 6; r++) for (let c = 0; c < 6; c++) { Rp[L.f[i] + r + 1] += IApattern[i][6 * r + c]; cap += IApattern[i][6 * r + c]; }
  }
  for (let c = 0; c < n; c++) Rp[c + 1] += Rp[c];
  const nnz = Rp[n];
  const Rj = new Int32Array(nnz), x = new Float64Array(nnz), unit = new Int8Array(nnz), dst = new Int32Array(cap), src = new Int32Array(cap);
  const next = Rp.slice(0, n);
  let k = 0;
  for (let i = 0; i < nb; i++) {
    for (let r = 0; r < 6; r++) for (let c = 0; c < 6; c++) {
      if (!IApattern[i][6 * r + c]) continue;
      const e = next[L.f[i] + r]++;
      Rj[e] = L.a[i] + c; x[e] = IAflat[36 * i + 6 * r + c];
      dst[k] = e; src[k] = 36 * i + 6 * r + c; k++;
    }
  }
  for (let c = 0; c < n; c++) { const e = next[c]; Rj[e] = c; x[e] = 1; unit[e] = 1; }
  return { A: { m: n, n, Rp, Rj, x, unit }, dst, src };
}

/**
 * W^{L,1} (30), (c3τ_i, c3a_i) = S_iᵀ I^A_i, or W^{L,4} (33), (c3f_i, c3a_j) = ⁱX*_j I^A_j, j ∈ μ(i):
 * identity, and the block read off D W^R (B1) — its coefficients of a_i in (25τ_i), of a_j in (25f_i).
 */
function buildWFromB1(model: Model, sys: SymbolicSystem, K: SystemKinds, B1: RowMatrix, which: 1 | 4): Sourced {
  const m = sys.m;
  // at most 6 entries of a per row: 6 n_i rows for (30), 36 per child for (33)
  const cap = which === 1 ? 6 * model.nv : 36 * model.nb;
  const t = new Triplets(m + cap), src = new Grow(new Int32Array(cap));
  for (let r = 0; r < m; r++) t.push(r, r, 1, 1);
  for (let i = 0; i < model.nb; i++) {
    const rows = which === 1 ? model.nvi[i] : 6, row0 = which === 1 ? sys.rowTau[i] : sys.rowF[i];
    for (let k = 0; k < rows; k++) {
      const r = row0 + k;
      for (let e = B1.Rp[r]; e < B1.Rp[r + 1]; e++) {
        const c = B1.Rj[e], j = K.colBody[c];
        if (K.colKind[c] !== C_A || (which === 1 ? j !== i : model.parents[j] !== i)) continue;
        t.push(r, sys.rowA[j] + K.colOff[c], B1.unit[e], B1.x[e]);
        src.push(e);
      }
    }
  }
  const { A, pos } = rowMatrix(m, m, t);
  return { A, dst: pos.slice(m), src: src.done() };
}

/** W^{L,2} (31): rows c3τ_i replaced by D_i⁻¹ · rows c3τ_i; values from Dinvflat (blocks at dOff). */
function buildW2(model: Model, sys: SymbolicSystem, K: SystemKinds, dOff: Int32Array, Dinvflat: Float64Array): Sourced {
  const m = sys.m;
  const t = new Triplets(m + dOff[model.nb]), src = new Grow(new Int32Array(dOff[model.nb]));
  for (let r = 0; r < m; r++) if (K.rowKind[r] !== R_TAU) t.push(r, r, 1, 1);
  const ones = t.length;
  for (let i = 0; i < model.nb; i++) {
    const ni = model.nvi[i];
    for (let k = 0; k < ni; k++) for (let l = 0; l < ni; l++) {
      t.push(sys.rowTau[i] + k, sys.rowTau[i] + l, 0, Dinvflat[dOff[i] + ni * k + l]);
      src.push(dOff[i] + ni * k + l);
    }
  }
  const { A, pos } = rowMatrix(m, m, t);
  return { A, dst: pos.slice(ones), src: src.done() };
}

/** W^{L,3} (32): identity, and (c3a_i, c3τ_i) = −S_i (constant). */
function buildW3(model: Model, sys: SymbolicSystem): RowMatrix {
  const m = sys.m;
  const t = new Triplets(m + 6 * model.nv);
  for (let r = 0; r < m; r++) t.push(r, r, 1, 1);
  for (let i = 0; i < model.nb; i++) {
    const S = model.S[i];
    for (let k = 0; k < model.nvi[i]; k++) for (let r = 0; r < 6; r++) {
      const s = S[6 * k + r];
      if (s === 0) continue;
      t.push(sys.rowA[i] + r, sys.rowTau[i] + k, s === 1 ? -1 : s === -1 ? 1 : 0, -s);
    }
  }
  return rowMatrix(m, m, t).A;
}

/** The masks of the chain: the blocks each step eliminates (file header), for products 2–5. */
function chainMasks(model: Model, K: SystemKinds): [Mask, Mask, Mask, Mask] {
  const { rowKind, rowBody, rowOff, colKind, colBody, colOff } = K;
  const sameBody = (r: number, c: number) => rowBody[r] === colBody[c];
  return [
    (r, c) => (rowKind[r] === R_TAU && colKind[c] === C_A && sameBody(r, c) ? DROP : KEEP), // (26)
    (r, c) => (rowKind[r] === R_TAU && colKind[c] === C_QDD && sameBody(r, c) ? (rowOff[r] === colOff[c] ? ONE : DROP) : KEEP), // (14)
    (r, c) => (rowKind[r] === R_A && colKind[c] === C_QDD && sameBody(r, c) ? DROP : KEEP), // (27)
    (r, c) => (rowKind[r] === R_F && colKind[c] === C_A && (sameBody(r, c) || model.parents[colBody[c]] === rowBody[r]) ? DROP : KEEP), // (28), (13 I^A)
  ];
}

/**
 * b as an m×1 matrix on its structural rows: b(3τ) = 0; b(3a_i) = c_i = 0 for a 0-DoF joint below
 * a body; the angular part of ⁱX_0 a_0 (gravity only) is 0 for a root body. Values from b.
 */
function bVector(model: Model, sys: SymbolicSystem, K: SystemKinds, b: Float64Array): RowMatrix {
  const m = sys.m;
  const Rp = new Int32Array(m + 1), x = new Grow(new Float64Array(m));
  for (let r = 0; r < m; r++) {
    Rp[r + 1] = Rp[r];
    if (K.rowKind[r] === R_TAU) continue;
    if (K.rowKind[r] === R_A) {
      const i = K.rowBody[r];
      if (model.parents[i] >= 0 ? model.nvi[i] === 0 : K.rowOff[r] < 3) continue;
    }
    x.push(b[r]);
    Rp[r + 1]++;
  }
  const nz = Rp[m];
  return { m, n: 1, Rp, Rj: new Int32Array(nz), x: x.done(), unit: new Int8Array(nz) };
}

/** b.x = the structural entries of b (no allocation). */
function refreshB(bv: RowMatrix, b: Float64Array): void {
  for (let r = 0; r < bv.m; r++) if (bv.Rp[r + 1] > bv.Rp[r]) bv.x[bv.Rp[r]] = b[r];
}

/**
 * The permutations (34), (35): p_fd (rowPerm[k] = row placed k-th) and q (colPerm[k] = column
 * placed k-th).
 */
function permutations(model: Model, sys: SymbolicSystem): { rowPerm: Int32Array; colPerm: Int32Array } {
  const L = sys.layout, nb = model.nb;
  // the known row of each known column (f^x and τ)
  const knownRow = new Int32Array(sys.n).fill(-1);
  sys.known.forEach((z, k) => { knownRow[L[z.kind][z.body] + z.offset] = sys.knownRow[k]; });
  const rowPerm = new Int32Array(sys.n), colPerm = new Int32Array(sys.n);
  let p = 0;
  const put = (c: number, r: number) => { colPerm[p] = c; rowPerm[p] = r; p++; };
  for (let i = 0; i < nb; i++) {
    for (let k = 0; k < 6; k++) put(L.fx[i] + k, knownRow[L.fx[i] + k]);
    for (let k = 0; k < model.nvi[i]; k++) put(L.tau[i] + k, knownRow[L.tau[i] + k]);
  }
  for (let i = nb - 1; i >= 0; i--) for (let k = 0; k < 6; k++) put(L.f[i] + k, sys.rowF[i] + k);
  for (let i = 0; i < nb; i++) for (let k = 0; k < 6; k++) put(L.a[i] + k, sys.rowA[i] + k);
  for (let i = 0; i < nb; i++) for (let k = 0; k < model.nvi[i]; k++) put(L.qdd[i] + k, sys.rowTau[i] + k);
  return { rowPerm, colPerm };
}

/** column k of the permuted product: colPos[colPerm[k]] = k */
function positions(colPerm: Int32Array): Int32Array {
  const colPos = new Int32Array(colPerm.length);
  for (let k = 0; k < colPerm.length; k++) colPos[colPerm[k]] = k;
  return colPos;
}

function aboveDiagonal(sys: SymbolicSystem, r: number, c: number): RangeError {
  return new RangeError(`matrix ABA: W^L D W^R has entry (${sys.rowNames[r]}, ${sys.layout.names[c]}) above the diagonal under the permutations (34)-(35)`);
}

function noDiagonal(sys: SymbolicSystem, r: number, c: number): RangeError {
  return new RangeError(`matrix ABA: W^L D W^R has no diagonal entry (${sys.rowNames[r]}, ${sys.layout.names[c]})`);
}

/** Arrays for the I^A recursion: I^A_i (6×6 row-major), U_i (6×n_i column-major), D_i⁻¹ (n_i×n_i), and scratch. */
class InertiaArrays {
  readonly IAflat: Float64Array;
  readonly IA: Float64Array[];
  readonly U: Float64Array[];
  readonly dOff: Int32Array;
  readonly Dinvflat: Float64Array;
  readonly Dinv: Float64Array[];
  /** scratch: I^a_i, U_i D_i⁻¹, Cholesky work */
  readonly Ia = new Float64Array(36);
  readonly UD = new Float64Array(36);
  readonly w36 = new Float64Array(36);

  constructor(model: Model) {
    const nb = model.nb;
    this.IAflat = new Float64Array(36 * nb);
    this.IA = Array.from({ length: nb }, (_, i) => this.IAflat.subarray(36 * i, 36 * i + 36));
    this.U = Array.from({ length: nb }, (_, i) => new Float64Array(6 * model.nvi[i]));
    this.dOff = new Int32Array(nb + 1);
    for (let i = 0; i < nb; i++) this.dOff[i + 1] = this.dOff[i] + model.nvi[i] * model.nvi[i];
    this.Dinvflat = new Float64Array(this.dOff[nb]);
    this.Dinv = Array.from({ length: nb }, (_, i) => this.Dinvflat.subarray(this.dOff[i], this.dOff[i + 1]));
  }
}

/**
 * I^A_i, U_i, D_i⁻¹ for i = N_B..1 (Nori (2017) eq. 13; RBDA Table 7.1 without the bias terms):
 *   U_i = I^A_i S_i,  D_i = S_iᵀ U_i,  I^a_i = I^A_i − U_i D_i⁻¹ U_iᵀ,  I^A_λ += ⁱX_λᵀ I^a_i ⁱX_λ
 */
function inertiaPass(model: Model, Xup: readonly Float64Array[], w: InertiaArrays, fl: Flops): void {
  const { Ia, UD, w36 } = w;
  for (let i = 0; i < model.nb; i++) inertiaToMatrix(w.IA[i], model.I[i]);
  for (let i = model.nb - 1; i >= 0; i--) {
    const nv = model.nvi[i], IA = w.IA[i], U = w.U[i], Dinv = w.Dinv[i], p = model.parents[i];
    if (nv > 0) {
      setMS(U, IA, model.S[i], nv, fl);
      setSTU(Dinv, model.S[i], U, nv, fl);
      if (!spdInvertInPlace(Dinv, nv, w36, fl)) throw new SingularJointInertiaError(model.jointNames[i]);
    }
    if (p < 0) continue;
    for (let k = 0; k < 36; k++) Ia[k] = IA[k];
    if (nv > 0) {
      mulUDinv(UD, U, Dinv, nv, fl);
      for (let r = 0; r < 6; r++) for (let c = r; c < 6; c++) {
        let acc = 0;
        for (let k = 0; k < nv; k++) acc += UD[6 * k + r] * U[6 * k + c];
        Ia[6 * r + c] -= acc;
        Ia[6 * c + r] = Ia[6 * r + c];
      }
      fl.mul += 21 * nv; fl.add += 21 * nv;
    }
    m6CongruenceAdd(w.IA[p], Xup[i], Ia, fl);
  }
}

/**
 * Forward dynamics by Property 2 (Nori (2017) §V-C, appendix B). Symbolic work (patterns of the W's
 * and of every product, the masks, the permutations, the triangularity check) is done once in the
 * constructor; `solve` refills values and allocates nothing. For one solve only (a flop count),
 * `matrixAbaOnce` does the same arithmetic without keeping the plans.
 * @experimental
 */
export class MatrixAba {
  /** the forward-dynamics system (D, b; Nori (2017) eq. 16) */
  readonly sys: SymbolicSystem;
  /** its runtime values (kinematics, D, b) */
  readonly values: SystemValues;
  /** I^A_i: articulated-body inertia of body i, body coordinates, 6×6 row-major (views into one array) */
  readonly IA: Float64Array[];
  /** worst-case pattern of I^A_i (1 = structural), from I_i and the transforms' patterns */
  readonly IApattern: Uint8Array[];
  /** U_i = I^A_i S_i (6×n_i column-major) */
  readonly U: Float64Array[];
  /** D_i⁻¹ = (S_iᵀ I^A_i S_i)⁻¹ (n_i×n_i row-major, views into one array) */
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

  /** I^A, U, D⁻¹ and their scratch */
  private readonly ia: InertiaArrays;
  /** value sources: D.x[e] = values.Ax[dSlot[e]]; WR.x[wr.dst[k]] = IAflat[wr.src[k]]; … */
  private readonly dSlot: Int32Array;
  private readonly wr: Sourced;
  private readonly wl1: Sourced;
  private readonly wl2: Sourced;
  private readonly wl4: Sourced;
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

  constructor(readonly model: Model) {
    const sys = new SymbolicSystem(model, forwardDynamicsProblem(model));
    this.sys = sys;
    this.values = new SystemValues(sys);
    const m = sys.m, n = sys.n;
    this.ia = new InertiaArrays(model);
    this.IA = this.ia.IA; this.U = this.ia.U; this.Dinv = this.ia.Dinv;
    this.IApattern = articulatedInertiaPatterns(model);
    const K = systemKinds(model, sys);

    const { D, dSlot } = rowsOfD(sys, sys.pattern.Ax);
    this.D = D; this.dSlot = dSlot;
    this.wr = buildWR(model, sys, this.IApattern, this.ia.IAflat);
    this.WR = this.wr.A;
    const P1 = planProduct(this.D, this.WR, null);
    this.wl1 = buildWFromB1(model, sys, K, P1.C, 1);
    this.wl2 = buildW2(model, sys, K, this.ia.dOff, this.ia.Dinvflat);
    const W3 = buildW3(model, sys);
    this.wl4 = buildWFromB1(model, sys, K, P1.C, 4);
    this.WL = [this.wl1.A, this.wl2.A, W3, this.wl4.A];

    // the chain, with the blocks each step eliminates (file header)
    const masks = chainMasks(model, K);
    const plans = [P1];
    for (let k = 0; k < 4; k++) plans.push(planProduct(this.WL[k], plans[k].C, masks[k]));
    this.plans = plans;
    this.product = plans[4].C;

    this.bvec = bVector(model, sys, K, this.values.b);
    const bplans: ProductPlan[] = [];
    let v = this.bvec;
    for (const W of this.WL) { const P = planProduct(W, v, null); bplans.push(P); v = P.C; }
    this.bplans = bplans;
    this.wb = new Float64Array(m);

    ({ rowPerm: this.rowPerm, colPerm: this.colPerm } = permutations(model, sys));

    // forward substitution plan; the product must be lower triangular with a full diagonal
    const M = this.product;
    const colPos = positions(this.colPerm);
    this.fsDiag = new Int32Array(n);
    this.fsStart = new Int32Array(n + 1);
    this.fsRhs = new Uint8Array(n);
    const off = new Grow(new Int32Array(M.Rj.length));
    for (let k = 0; k < n; k++) {
      const r = this.rowPerm[k];
      this.fsDiag[k] = -1;
      this.fsRhs[k] = v.Rp[r + 1] > v.Rp[r] ? 1 : 0;
      for (let e = M.Rp[r]; e < M.Rp[r + 1]; e++) {
        const c = M.Rj[e], pos = colPos[c];
        if (pos === k) this.fsDiag[k] = e;
        else if (pos < k) off.push(e);
        else throw aboveDiagonal(sys, r, c);
      }
      if (this.fsDiag[k] < 0) throw noDiagonal(sys, r, this.colPerm[k]);
      this.fsStart[k + 1] = off.length;
    }
    this.fsOff = off.done();

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
    const vals = this.values, fl = this.flops;
    fillSystem(vals, q, qd, y);
    copyFlops(fl.kinematics, vals.kin.flops);
    copyFlops(fl.fill, vals.flops);
    // (a) articulated inertias
    fl.inertias.reset();
    inertiaPass(this.model, vals.kin.Xup, this.ia, fl.inertias);
    // (b) W^L D W^R: refresh the values of D and of the W's, then the chain of products
    fl.product.reset();
    const plans = this.plans, WL = this.WL;
    const P1 = plans[0];
    gather(this.D.x, vals.Ax, this.dSlot);
    scatterGather(this.WR.x, this.wr.dst, this.ia.IAflat, this.wr.src);
    runProduct(P1, this.D, this.WR, fl.product);
    scatterGather(WL[0].x, this.wl1.dst, P1.C.x, this.wl1.src);
    scatterGather(WL[1].x, this.wl2.dst, this.ia.Dinvflat, this.wl2.src);
    scatterGather(WL[3].x, this.wl4.dst, P1.C.x, this.wl4.src);
    for (let k = 0; k < 4; k++) runProduct(plans[k + 1], WL[k], plans[k].C, fl.product);
    // (c) W^L b, forward substitution on W^L D W^R d' = −W^L b, d = W^R d'
    const fs = fl.solve;
    fs.reset();
    refreshB(this.bvec, vals.b);
    let v: RowMatrix = this.bvec;
    for (let k = 0; k < 4; k++) { runProduct(this.bplans[k], WL[k], v, fs); v = this.bplans[k].C; }
    const wb = this.wb;
    for (let r = 0; r < v.m; r++) if (v.Rp[r + 1] > v.Rp[r]) wb[r] = v.x[v.Rp[r]];
    this.forwardSubstitution(fs);
    mulDense(this.d, this.WR, this.dPrime, fs);
    qddOf(this.qdd, this.model, this.sys, this.d);
    return this.qdd;
  }

  /** total flops of the last step; `withInertias = false` gives Nori (2017)'s count plus kinematics and fill */
  totalFlops(withInertias = true): Flops {
    return totalOf(this.flops, withInertias);
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

/** One matrix-ABA solve: q̈, the flops by part, and the order and nonzeros of W^L D W^R. */
export interface MatrixAbaOnce {
  qdd: Float64Array;
  flops: MatrixAbaFlops;
  /** order and nonzeros of W^L D W^R */
  n: number;
  nnz: number;
}

/**
 * q̈ = FD(q, q̇, τ, f^x) by Property 2, once: the same arithmetic, in the same order and with the
 * same flop counts as `new MatrixAba(model).solve(…)`, but each product is evaluated as its
 * pattern is found and no plan is kept, and each matrix is released once the next is formed — the
 * memory of a flop count on a large model is a few sparse matrices, not the plans of the chain.
 * `values` may be the values of the forward-dynamics system built for another path (the sparse
 * LU's), to share its symbolic system: they are refilled here.
 * @experimental
 */
export function matrixAbaOnce(model: Model, q: ArrayLike<number>, qd: ArrayLike<number> | null, tau: ArrayLike<number>, fext?: readonly Float64Array[], values?: SystemValues): MatrixAbaOnce {
  checkConfiguration(model, q);
  if (qd !== null) checkVector(model, 'v', qd, false);
  checkVector(model, 'tau', tau, false);
  checkExternalWrenches(model, fext);
  if (values && !isForwardDynamicsSystem(model, values.sys)) {
    throw new RangeError(`matrixAbaOnce: the given values belong to the system "${values.sys.problem.name}" of model "${values.model.name}", not to the forward dynamics of "${model.name}"`);
  }
  const flops: MatrixAbaFlops = { kinematics: new Flops(), fill: new Flops(), inertias: new Flops(), product: new Flops(), solve: new Flops() };
  const vals = values ?? new SystemValues(new SymbolicSystem(model, forwardDynamicsProblem(model)));
  const sys = vals.sys;
  const y = new Float64Array(sys.ny);
  classicalInputs(y, model, tau, fext);
  fillSystem(vals, q, qd, y);
  copyFlops(flops.kinematics, vals.kin.flops);
  copyFlops(flops.fill, vals.flops);
  // (a)
  const ia = new InertiaArrays(model);
  inertiaPass(model, vals.kin.Xup, ia, flops.inertias);
  // (b) and (c): W^{L,k} b is formed as soon as W^{L,k} exists, so each W is released early
  const K = systemKinds(model, sys);
  const WR = buildWR(model, sys, articulatedInertiaPatterns(model), ia.IAflat).A;
  // the products of the chain alternate between two storages: each overwrites the one before last
  const even = storage(), odd = storage();
  const B1 = multiplyOnce(rowsOfD(sys, vals.Ax).D, WR, null, flops.product, even);
  const W1 = buildWFromB1(model, sys, K, B1, 1).A;
  const W4 = buildWFromB1(model, sys, K, B1, 4).A;
  const masks = chainMasks(model, K);
  let C = multiplyOnce(W1, B1, masks[0], flops.product, odd);
  let v = multiplyOnce(W1, bVector(model, sys, K, vals.b), null, flops.solve);
  {
    const W2 = buildW2(model, sys, K, ia.dOff, ia.Dinvflat).A;
    C = multiplyOnce(W2, C, masks[1], flops.product, even);
    v = multiplyOnce(W2, v, null, flops.solve);
  }
  {
    const W3 = buildW3(model, sys);
    C = multiplyOnce(W3, C, masks[2], flops.product, odd);
    v = multiplyOnce(W3, v, null, flops.solve);
  }
  C = multiplyOnce(W4, C, masks[3], flops.product, even);
  v = multiplyOnce(W4, v, null, flops.solve);
  // forward substitution straight on the product's rows (MatrixAba's plan, checked as it goes)
  const n = sys.n, M = C, Mx = M.x, Mj = M.Rj, unit = M.unit;
  const { rowPerm, colPerm } = permutations(model, sys);
  const colPos = positions(colPerm);
  const x = new Float64Array(n);
  let mul = 0, add = 0, div = 0;
  for (let k = 0; k < n; k++) {
    const r = rowPerm[k];
    const rhs = v.Rp[r + 1] > v.Rp[r];
    let acc = rhs ? -v.x[v.Rp[r]] : -0;
    let first = !rhs, diag = -1;
    for (let e = M.Rp[r]; e < M.Rp[r + 1]; e++) {
      const pos = colPos[Mj[e]];
      if (pos === k) { diag = e; continue; }
      if (pos > k) throw aboveDiagonal(sys, r, Mj[e]);
      const u = unit[e];
      let term: number;
      if (u === 0) { term = Mx[e] * x[Mj[e]]; mul++; } else term = u > 0 ? x[Mj[e]] : -x[Mj[e]];
      if (first) { acc = -term; first = false; } else { acc -= term; add++; }
    }
    if (diag < 0) throw noDiagonal(sys, r, colPerm[k]);
    const u = unit[diag];
    if (u === 1) x[colPerm[k]] = acc;
    else if (u === -1) x[colPerm[k]] = -acc;
    else { x[colPerm[k]] = acc / Mx[diag]; div++; }
  }
  flops.solve.mul += mul; flops.solve.add += add; flops.solve.div += div;
  const d = new Float64Array(n);
  mulDense(d, WR, x, flops.solve);
  const qdd = new Float64Array(model.nv);
  qddOf(qdd, model, sys, d);
  return { qdd, flops, n: M.m, nnz: M.Rj.length };
}

/** Is sys the forward-dynamics system of model (the known scalars of forwardDynamicsProblem, no measurement blocks)? */
function isForwardDynamicsSystem(model: Model, sys: SymbolicSystem): boolean {
  const fd = forwardDynamicsProblem(model).known;
  if (sys.model !== model || sys.blocks.length > 0 || sys.known.length !== fd.length) return false;
  return fd.every((z, k) => z.kind === sys.known[k].kind && z.body === sys.known[k].body && z.offset === sys.known[k].offset);
}

/** Total of a matrix-ABA step's flops; `withInertias = false` leaves out part (a). */
export function totalOf(f: MatrixAbaFlops, withInertias = true): Flops {
  const t = new Flops().accumulate(f.kinematics).accumulate(f.fill).accumulate(f.product).accumulate(f.solve);
  return withInertias ? t.accumulate(f.inertias) : t;
}

/** q̈ (velocity order) out of d (layout order). */
function qddOf(qdd: Float64Array, model: Model, sys: SymbolicSystem, d: Float64Array): void {
  const L = sys.layout;
  for (let i = 0; i < model.nb; i++) {
    const iv = model.iv[i], o = L.qdd[i];
    for (let k = 0; k < model.nvi[i]; k++) qdd[iv + k] = d[o + k];
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
 * Worst-case patterns of the articulated inertias (Nori (2017) §IV-D applied to eq. 13): P(I^A_i) =
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
