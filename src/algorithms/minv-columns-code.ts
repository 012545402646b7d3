/**
 * M⁻¹(q) by Carpentier's passes in world coordinates (minv-carpentier.ts, frame 'world': Pinocchio's
 * computeMinverse) with their column work as WebAssembly generated per model, for models too large
 * for the straight-line code of minv-code.ts. The per-body work (jcalc, the articulated inertias,
 * D_i⁻¹, ⁰S_i, ⁰U_i and their products with D_i⁻¹) is the JavaScript's (`minvWorldBodies`), which
 * writes them where this code reads them (the workspace's store is the module's memory); then one
 * call runs, per body, a loop over its columns with SIMD (f64x2):
 *
 *   pass 2 (from the leaves):  M⁻¹[i, j] = −(⁰S_i D_i⁻¹)ᵀ F[:, j],  F[:, j] += ⁰U_i M⁻¹[i, j]   (j in the strict subtree)
 *   pass 3 (from the root):    M⁻¹[i, j] −= (⁰U_i D_i⁻¹)ᵀ P_λ[:, j],  P_i[:, j] = ⁰S_i M⁻¹[i, j] + P_λ[:, j]
 *
 * The loop bounds and addresses are constants per body (the code grows with the bodies, not with
 * the (row, column) pairs). The products and sums of F and P are the JavaScript's, element for
 * element; the 6-term dot products are summed in another order (two lanes of three, then the lanes),
 * so M⁻¹ equals the JavaScript's to rounding (tested). Made where every joint below a root has one
 * degree of freedom (a root's joint may have several: a floating base, whose rows are done one after
 * the other) and the bodies are numbered depth first, up to MINV_COLUMNS_CODE_LIMIT of them; otherwise
 * null. Allocation free per call.
 */
import type { Model } from '../model/model.ts';
import { assemble, canCompile } from '../sparse/compiled.ts';
import { Flops } from '../spatial/flops.ts';
import { SimdBody, V } from '../sparse/wasm-simd.ts';
import { minvStoreLayout, MinvCarpentierWorkspace, minvWorldBodies, type MinvStoreLayout } from './minv-carpentier.ts';
import { addCongruence, articulatedInertiaOf, articulatedLess, ChunkedCode, compose, type Emitter, inertiaMatrix, invApplyMotion, jointInertia, type Kind, kindsOf, SYM, transformOf, transposeApplyForce, type Val, writeTransforms } from './spatial-code.ts';
import { moduleTrig, type ModuleTrig, sinCosBody } from './trig-code.ts';

/** largest number of bodies for which the code is made (its memory holds M⁻¹, nv×nv) */
export const MINV_COLUMNS_CODE_LIMIT = 2000;
/** largest number of bodies for which the per-body work is generated too (straight-line code, which grows with the bodies) */
export const MINV_BODIES_CODE_LIMIT = 128;

const F64_ADD = 0xa0, F64_SUB = 0xa1, F64_NEG = 0x9a;
const I32_ADD = 0x6a, I32_LT_S = 0x48, I32_NE = 0x47;
const LOOP = 0x03, END = 0x0b, BR_IF = 0x0d, VOID = 0x40;
/** locals: i32 J (column address), MA (M⁻¹ entry's address), PA (P_i column's address), R, T (the mirror's row end and target); v128 S×3, U×3, X×3, ACC, MV; f64 MF */
const J = 0, MA = 1, PA = 2, R = 3, T = 4, S = 5, U = 8, X = 11, ACC = 14, MV = 15, MF = 16;
const LOCALS: [number, number][] = [[5, 0x7f], [11, 0x7b], [1, 0x7c]];

/** M⁻¹ by the world-frame passes, their column work generated (see the file's comment). @experimental */
export class MinvColumnsCode {
  private readonly ws: MinvCarpentierWorkspace;
  private readonly bodies: (() => void) | null;
  private readonly columns: () => void;
  private readonly mirror: () => void;
  private readonly mem: Float64Array;
  private readonly kinds: Kind[];
  private readonly scratch = new Float64Array(12);
  private readonly fl = new Flops();
  private readonly trig: ModuleTrig | null;

  private constructor(readonly model: Model, bytes: Uint8Array<ArrayBuffer>, pages: number, f: { bodies: number; columns: number }, private readonly slots: { CS: number; XG: number; QA: number } | null) {
    const memory = new WebAssembly.Memory({ initial: pages });
    const ex = new WebAssembly.Instance(new WebAssembly.Module(bytes), { e: { m: memory } }).exports as Record<string, () => void>;
    this.bodies = f.bodies >= 0 ? ex[`f${f.bodies}`] : null;
    this.columns = ex[`f${f.columns}`];
    this.mirror = ex[`f${f.columns + 1}`];
    this.mem = new Float64Array(memory.buffer);
    this.kinds = kindsOf(model);
    this.trig = slots === null ? null : moduleTrig(model, this.kinds, slots.QA, ex[`f${f.columns + 2}`]);
    this.ws = new MinvCarpentierWorkspace(model, { frame: 'world', store: this.mem });
  }

  /** The code for this model, or null (see the file's comment; no WebAssembly SIMD). */
  static create(model: Model): MinvColumnsCode | null {
    const nb = model.nb, nv = model.nv;
    if (!canCompile() || nb === 0 || nb > MINV_COLUMNS_CODE_LIMIT || model.singularBodies.length > 0) return null;
    // one DoF per joint, but a root's (a floating base)
    for (let i = 0; i < nb; i++) if (model.nvi[i] !== 1 && !(model.parents[i] < 0 && model.nvi[i] > 1)) return null;
    let at: MinvStoreLayout;
    try { at = minvStoreLayout(model); } catch { return null; }
    const gen = nb <= MINV_BODIES_CODE_LIMIT;
    // the per-body code's slots after the store: cos q, sin q; jcalc's transforms; the axis joints' rotations; ⁱX_0; I^A (21 each); the angles
    const CS = at.size, XG = CS + 2 * nb, XS = XG + 12 * nb, OX = XS + 12 * nb, IA = OX + 12 * nb, QA = IA + 21 * nb;
    const pages = Math.max(1, Math.ceil((8 * (gen ? QA + nb : at.size)) / 65536));
    try {
      const bodies = gen ? bodiesCode(model, at, { CS, XG, XS, OX, IA }) : [];
      const bytes = assemble([{ bodies: [...bodies, columnsBody(model, at), mirrorBody(nv, at), ...(gen ? [sinCosBody(QA, CS, nb)] : [])], type: 1 }], pages);
      if (!WebAssembly.validate(bytes)) return null;
      return new MinvColumnsCode(model, bytes, pages, { bodies: bodies.length - 1, columns: bodies.length }, gen ? { CS, XG, QA } : null);
    } catch {
      return null;
    }
  }

  /** whether the per-body work is generated code too (otherwise the JavaScript's) */
  get bodiesGenerated(): boolean { return this.bodies !== null; }

  /**
   * M⁻¹(q) (nv×nv row-major: both triangles, or with 'upper' the upper one), a view valid until the
   * next call. Inputs are not validated (minvCarpentier's entry checks them); with the per-body work
   * in JavaScript a joint inertia that is not positive definite throws, naming the joint.
   */
  compute(q: ArrayLike<number>, triangle: 'full' | 'upper' = 'full'): Float64Array {
    if (this.bodies !== null) {
      writeTransforms(this.model, this.kinds, this.mem, this.slots!, q, this.scratch, this.fl, this.trig);
      this.bodies();
    } else {
      minvWorldBodies(this.model, this.ws, q);
    }
    this.columns();
    if (triangle === 'full') this.mirror();
    return this.ws.Minv;
  }
}

/**
 * minvWorldBodies as straight-line code (one DoF per joint below a root; M⁻¹'s entries that the
 * column passes only add to are cleared by them): from the root ⁱX_λ and
 * ⁱX_0 = ⁱX_λ ᵏX_0; from the leaves U_i, D_i⁻¹ (into M⁻¹'s diagonal), ⁰S_i and ⁰S_i D_i⁻¹ (a body
 * with children), ⁰U_i and ⁰U_i D_i⁻¹ (below a parent), I^A_λ += λX*_i (I^A_i − U_i D_i⁻¹ U_iᵀ) ⁱX_λ.
 */
function bodiesCode(model: Model, at: MinvStoreLayout, o: { CS: number; XG: number; XS: number; OX: number; IA: number }): Uint8Array[] {
  const nb = model.nb, nv = model.nv, kinds = kindsOf(model);
  const hasKids = (i: number) => model.children[i].length > 0;
  const code = new ChunkedCode();
  let g: Emitter = code.g;
  const next = () => { code.split(); g = code.g; g.reset(); };
  const loads = (base: number, n: number) => Array.from({ length: n }, (_, k) => g.load(base + k));
  const stores = (base: number, v: Val[]) => v.forEach((x, k) => g.store(base + k, x));
  // I^A of a body with children starts as its rigid inertia
  next();
  for (let i = 0; i < nb; i++) if (hasKids(i)) { const M = inertiaMatrix(model.I[i]); for (let r = 0; r < 6; r++) for (let c = r; c < 6; c++) g.store(o.IA + 21 * i + SYM[6 * r + c], M[6 * r + c]); }
  for (let i = 0; i < nb; i++) {
    next();
    const { E, r } = transformOf(g, model, kinds, o, i, true);
    const p = model.parents[i];
    const w = p < 0 ? { E, r } : compose(g, E, r, loads(o.OX + 12 * p, 9), loads(o.OX + 12 * p + 9, 3));
    stores(o.OX + 12 * i, [...w.E, ...w.r]);
  }
  for (let i = nb - 1; i >= 0; i--) {
    next();
    const p = model.parents[i], ni = model.nvi[i], c0 = model.iv[i];
    const M = articulatedInertiaOf(g, model, i, hasKids(i), o.IA + 21 * i);
    const { U, Dinv } = jointInertia(g, M, model.S[i], ni);
    for (let a = 0; a < ni; a++) for (let b = 0; b < ni; b++) g.store(at.Minv + (c0 + a) * nv + c0 + b, Dinv[ni * a + b]);
    if (!hasKids(i) && p < 0) continue;
    const E0 = loads(o.OX + 12 * i, 9), r0 = loads(o.OX + 12 * i + 9, 3);
    /** A D⁻¹ for 6×ni column-major A (rightMulD's sums) */
    const timesD = (A: Val[]) => Array.from({ length: 6 * ni }, (_, k) => g.dot(Array.from({ length: ni }, (_, c) => A[6 * c + (k % 6)]), Array.from({ length: ni }, (_, c) => Dinv[ni * c + Math.floor(k / 6)])));
    if (hasKids(i)) {
      const Sw = Array.from({ length: ni }, (_, a) => invApplyMotion(g, E0, r0, Array.from(model.S[i].subarray(6 * a, 6 * a + 6)))).flat();
      stores(at.Sw + 6 * c0, Sw);
      stores(at.SDw + 6 * c0, timesD(Sw));
    }
    if (p < 0) continue;
    // below a parent: one DoF
    const d = Dinv[0];
    const Uw = transposeApplyForce(g, E0, r0, U);
    stores(at.Uw + 6 * c0, Uw);
    stores(at.UDw + 6 * c0, Uw.map((x) => g.mul(x, d)));
    const Ia = articulatedLess(g, M, U.map((x) => g.mul(x, d)), U, 1);
    const X = transformOf(g, model, kinds, o, i, false);
    addCongruence(g, X.E, X.r, Ia, o.IA + 21 * p);
  }
  return code.finish(0);
}

/** the column work of passes 2 and 3, body after body (store addresses in bytes from 0) */
function columnsBody(model: Model, at: MinvStoreLayout): Uint8Array {
  const nb = model.nb, nv = model.nv, e = new SimdBody();
  const { ivEnd, rootEnd, pOff } = at;
  const vec = (o: number, first: number) => { for (let k = 0; k < 3; k++) e.i32(0).ldv(8 * o + 16 * k).set(first + k); };
  /** ACC = (a, b) lane products summed over the three pairs; MF = lane 0 + lane 1 */
  const dot = (a: number) => {
    e.get(a).get(X).v(V.mul).get(a + 1).get(X + 1).v(V.mul).v(V.add).get(a + 2).get(X + 2).v(V.mul).v(V.add).set(ACC);
    e.get(ACC).lane(0).get(ACC).lane(1).op(F64_ADD);
  };
  /** X = the column at J */
  const loadX = () => { for (let k = 0; k < 3; k++) e.get(J).ldv(16 * k).set(X + k); };
  /** the column at `to` = X + U MF */
  const axpy = (to: number) => {
    e.get(MF).v(V.splat).set(MV);
    for (let k = 0; k < 3; k++) e.get(to).get(X + k).get(U + k).get(MV).v(V.mul).v(V.add).stv(16 * k);
  };
  /** do { body; J += 48; …; } while (J ≠ end) */
  const loop = (endJ: number, body: () => void, steps: [number, number][]) => {
    e.op(LOOP, VOID);
    body();
    for (const [l, d] of [[J, 48] as [number, number], ...steps]) e.get(l).i32(d).op(I32_ADD).set(l);
    e.get(J).i32(endJ).op(I32_NE, BR_IF, 0, END);
  };
  const iv = model.iv, nvi = model.nvi;
  /** M⁻¹[r, c]'s byte address */
  const mi = (r: number, c: number) => 8 * (at.Minv + r * nv + c);
  // a branched tree: the entries after a body's subtree start at zero (pass 3 only adds to them)
  for (let i = 0; i < nb; i++) {
    const n = nv - ivEnd[i];
    if (n === 0) continue;
    for (let a = 0; a < nvi[i]; a++) {
      const o = mi(iv[i] + a, ivEnd[i]);
      if (n <= 8) { for (let k = 0; k < n; k++) e.i32(0).f64(0).stf(o + 8 * k); continue; }
      e.i32(o).set(J);
      e.op(LOOP, VOID);
      e.get(J).f64(0).stf(0);
      e.get(J).i32(8).op(I32_ADD).tee(J).i32(o + 8 * n).op(I32_NE, BR_IF, 0, END);
    }
  }
  // pass 2, from the leaves (a body below a parent has one DoF, column c; a root ni)
  for (let i = nb - 1; i >= 0; i--) {
    const end = ivEnd[i], below = model.parents[i] >= 0, c = iv[i], ni = nvi[i];
    if (below) {
      // F[:, c] = ⁰U_i M⁻¹[c, c]
      vec(at.Uw + 6 * c, U);
      e.i32(0).ldf(mi(c, c)).v(V.splat).set(MV);
      for (let k = 0; k < 3; k++) e.i32(0).get(U + k).get(MV).v(V.mul).stv(8 * (at.F + 6 * c) + 16 * k);
    }
    if (end <= c + ni) continue;
    // M⁻¹[c + a, j] = −(⁰S_i D_i⁻¹)_aᵀ F[:, j] for the strict subtree's columns j (and F[:, j] += ⁰U_i M⁻¹[c, j] below a parent)
    for (let a = 0; a < ni; a++) {
      vec(at.SDw + 6 * (c + a), S);
      e.i32(8 * (at.F + 6 * (c + ni))).set(J).i32(mi(c + a, c + ni)).set(MA);
      loop(8 * (at.F + 6 * end), () => {
        loadX();
        dot(S);
        e.op(F64_NEG).set(MF);
        e.get(MA).get(MF).stf(0);
        if (below) axpy(J);
      }, [[MA, 8]]);
    }
  }
  // pass 3, from the root
  for (let i = 0; i < nb; i++) {
    const end = rootEnd[i], p = model.parents[i], keepP = model.children[i].length > 0, c = iv[i], ni = nvi[i];
    if (p >= 0) {
      if (keepP) vec(at.Sw + 6 * c, U);
      e.i32(mi(c, c)).set(MA).i32(8 * (at.P + pOff[i])).set(PA);
      vec(at.UDw + 6 * c, S);
      // P_λ[:, j] at pp + 6 j
      const pp = at.P + pOff[p] - 6 * iv[p];
      e.i32(8 * (pp + 6 * c)).set(J);
      loop(8 * (pp + 6 * end), () => {
        loadX();
        e.get(MA).ldf(0);
        dot(S);
        e.op(F64_SUB).set(MF);
        e.get(MA).get(MF).stf(0);
        if (keepP) axpy(PA);
      }, keepP ? [[MA, 8], [PA, 48]] : [[MA, 8]]);
    } else if (keepP) {
      // a root: P_i[:, j] = Σ_a ⁰S_i,a M⁻¹[c + a, j]; J runs over P_i's columns
      for (let a = 0; a < ni; a++) {
        vec(at.Sw + 6 * (c + a), U);
        e.i32(mi(c + a, c)).set(MA).i32(8 * (at.P + pOff[i])).set(J);
        loop(8 * (at.P + pOff[i] + 6 * (end - c)), () => {
          e.get(MA).ldf(0).set(MF);
          if (a === 0) {
            e.get(MF).v(V.splat).set(MV);
            for (let k = 0; k < 3; k++) e.get(J).get(U + k).get(MV).v(V.mul).stv(16 * k);
          } else {
            loadX();
            axpy(J);
          }
        }, [[MA, 8]]);
      }
    }
  }
  return e.finishWith(LOCALS);
}

/** M⁻¹[c, r] = M⁻¹[r, c] for c > r: row r's entries after the diagonal, down column r */
function mirrorBody(nv: number, at: MinvStoreLayout): Uint8Array {
  const e = new SimdBody(), base = 8 * at.Minv, row = 8 * nv;
  if (nv < 2) return e.finishWith(LOCALS);
  // PA: row r's first source (r, r + 1); T: its first target (r + 1, r); R: the end of row r
  e.i32(base + 8).set(PA).i32(base + row).set(T).i32(base + row).set(R);
  e.op(LOOP, VOID);
  e.get(PA).set(J).get(T).set(MA);
  e.op(LOOP, VOID);
  e.get(MA).get(J).ldf(0).stf(0);
  e.get(J).i32(8).op(I32_ADD).set(J).get(MA).i32(row).op(I32_ADD).set(MA);
  e.get(J).get(R).op(I32_LT_S, BR_IF, 0, END);
  for (const [l, d] of [[PA, row + 8], [T, row + 8], [R, row]]) e.get(l).i32(d).op(I32_ADD).set(l);
  e.get(R).i32(base + row * nv).op(I32_NE, BR_IF, 0, END);
  return e.finishWith(LOCALS);
}
