/**
 * M⁻¹(q) by Carpentier's analytical inverse of the joint-space inertia matrix: Carpentier (2018),
 * Algorithm 1 (three passes, the force sets F_i and motion sets P_i), for a moving base Saccon et al. (2017),
 * Table 9 (IMMAmb). M itself is never formed: the passes are ABA's with q̇ = 0, a_g = 0 and one
 * unit torque per column (Carpentier (2018): "F_i ~ articulated bias force p^A, P_i ~ spatial acceleration").
 *
 *   pass 1 (i = 1..N_B):  ⁱX_λ = X_J(q_i) X_T(i),  I^A_i = I_i                           (lines 2–5)
 *   pass 2 (i = N_B..1):  U_i = I^A_i S_i,  D_i = S_iᵀ U_i,  M⁻¹[i,i] = D_i⁻¹                (lines 9–11)
 *                         M⁻¹[i, subtree(i)] −= D_i⁻¹ S_iᵀ F_i[:, subtree(i)]                    (line 12)
 *                         F_λ[:, subtree(i)] += λX*_i (F_i + U_i M⁻¹[i, subtree(i)])            (line 14, margin form)
 *                         I^a_i = I^A_i − U_i D_i⁻¹ U_iᵀ,  I^A_λ += λX*_i I^a_i ⁱX_λ            (lines 15–16)
 *   pass 3 (i = 1..N_B):  M⁻¹[i, i:] −= D_i⁻¹ U_iᵀ ⁱX_λ P_λ[:, i:]                            (line 22)
 *                         P_i[:, i:] = S_i M⁻¹[i, i:] + ⁱX_λ P_λ[:, i:]                         (lines 24–26)
 *   then M⁻¹[i:, i] = M⁻¹[i, i:]ᵀ.
 *
 * Frames (`frame` option of the workspace): 'local' (default) keeps everything in body coordinates,
 * as in the paper, so F and P columns are carried across each ⁱX_λ. 'world' is Pinocchio's
 * implementation of the same algorithm: U_i, S_i (and U_i D_i⁻¹, S_i D_i⁻¹) are expressed once per
 * body in world coordinates (⁰X*_i U_i, ⁰X_i S_i), so F and P need no transform per column; the
 * inertia recursion stays in body coordinates. Same passes, fewer flops per (i, j) pair. Multi-DoF joints use the nv_i×nv_i blocks D_i⁻¹; a 0-DoF kept-fixed
 * joint only carries F and P across its transform (U_i, D_i empty, I^a_i = I^A_i).
 *
 * Moving base (Saccon et al. (2017), Table 9): the floating base is body 0 with its 6-DoF joint, whose S_0 is
 * the permutation [v_lin; ω] → [ω; v], so D_0 = S_0ᵀ M^A_0 S_0 and the generic lines reduce to
 * Table 9: M⁻¹[base, base] = (M^A_0)⁻¹ (line 26, permuted), P_0 = S_0 M⁻¹[base, :] =
 * −(M^A_0)⁻¹ F_0 (lines 15, 20).
 *
 * Storage (allocation free per call): F is one 6×nv array, column j held in the coordinates of the
 * body whose turn is next on the path from j's joint to the root (each column lives on one body at
 * a time, since the backward pass visits a subtree before its root); P_i holds columns iv_i.. only,
 * and is skipped for leaves, which have no child to read it. Columns of another root tree are
 * structurally zero and skipped. Bodies must be numbered depth first (every generator and the URDF
 * loader do), so that subtree(i) is the contiguous column range [iv_i, ivEnd_i).
 */
import type { Model } from '../model/model.ts';
import { jcalc } from '../model/jcalc.ts';
import { setMS, setSTU } from '../model/subspace.ts';
import { m6CongruenceAdd } from '../spatial/articulated.ts';
import { Flops } from '../spatial/flops.ts';
import { inertiaToMatrix } from '../spatial/inertia.ts';
import { xApplyMotion, xCompose, xInvApplyMotion, xTransposeApplyForce } from '../spatial/transform.ts';
import { spdInvertInPlace } from '../spatial/smallmat.ts';
import { unitAxes } from './kinematics.ts';
import { checkConfiguration, checkForwardDynamicsDefined, SingularJointInertiaError } from './validate.ts';

/**
 * Everything one call of Carpentier's M⁻¹ computes: made once per model (`new
 * MinvCarpentierWorkspace(model)`, optionally in world frame) and reused; the result is in `Minv`.
 */
export class MinvCarpentierWorkspace {
  /** ⁱX_λ(i) at the q of the last call (pass 1) */
  readonly Xup: Float64Array[];
  /** I^A_i: articulated inertia of body i, body coordinates, 6×6 row-major (passes 1–2) */
  readonly IA: Float64Array[];
  /** U_i = I^A_i S_i (6×nv_i column-major, pass 2) */
  readonly U: Float64Array[];
  /** D_i⁻¹ = (S_iᵀ U_i)⁻¹ (nv_i×nv_i row-major, pass 2) */
  readonly Dinv: Float64Array[];
  /** U_i D_i⁻¹ (6×nv_i column-major, pass 2; pass 3 uses it as D_i⁻¹ U_iᵀ) */
  readonly UD: Float64Array[];
  /** F: the force sets, 6×nv column-major; column j in the coordinates of its current holder (pass 2) */
  readonly F: Float64Array;
  /** P_i[:, j] for j ≥ iv_i at P[pOff_i + 6 (j − iv_i)]: motion sets in body-i coordinates (pass 3) */
  readonly P: Float64Array;
  readonly pOff: Int32Array;
  /** views made once of the 6-vectors of F (column j) and of P (offset 6k at index k), for the spatial kernels */
  readonly Fcol: Float64Array[];
  readonly Pcol: Float64Array[];
  /** first column after subtree(i): subtree(i) = [iv_i, ivEnd_i) */
  readonly ivEnd: Int32Array;
  /** first column after the root tree that contains body i */
  readonly rootEnd: Int32Array;
  /** M⁻¹ (output, nv×nv row-major) */
  readonly Minv: Float64Array;
  /** flops of the last call (jcalc included) */
  readonly flops = new Flops();
  /** scratch: I^a_i, Cholesky work, 6-vectors */
  readonly Ia = new Float64Array(36);
  readonly w36 = new Float64Array(36);
  readonly t6 = new Float64Array(6);
  readonly s6 = new Float64Array(6);

  /** 'world' only: ⁱX_0 (pass 1); ⁰X*_i U_i, ⁰X_i S_i, and their products with D_i⁻¹ (6×nv_i column-major, pass 2) */
  readonly oX: Float64Array[];
  readonly Uw: Float64Array[];
  readonly Sw: Float64Array[];
  readonly UDw: Float64Array[];
  readonly SDw: Float64Array[];
  /** coordinates of F and P: 'local' (body, as in Carpentier (2018)) or 'world' (Pinocchio) */
  readonly frame: 'local' | 'world';
  /** joints with S_i = ±e_row (kinematics.ts unitAxes): row, or −1, and sign */
  readonly unitRow: Int8Array;
  readonly unitSign: Float64Array;
  /** whether some body has two children, or the model several root bodies (M⁻¹ then has entries the passes only add to: cleared at each call) */
  readonly branched: boolean;

  /**
   * Where M⁻¹, F, P and the world-frame vectors (⁰U_i, ⁰S_i, ⁰U_i D_i⁻¹, ⁰S_i D_i⁻¹: body i's
   * columns at 6 iv_i) lie in `store`, in doubles (minvStoreLayout). @internal
   */
  readonly at: MinvStoreLayout;
  /** the one array that holds them (given to the constructor, or its own) @internal */
  readonly store: Float64Array;

  /**
   * `opts.store` (internal): the array, at least minvStoreLayout(model).size long, in which M⁻¹, F, P
   * and the world-frame vectors are kept (generated code's memory reads them there).
   */
  constructor(readonly model: Model, opts: { frame?: 'local' | 'world'; /** @internal */ store?: Float64Array } = {}) {
    const nb = model.nb, nv = model.nv;
    const frame = opts.frame ?? 'local';
    if (frame !== 'local' && frame !== 'world') throw new RangeError(`minvCarpentier: frame is "${String(frame)}", expected "local" or "world"`);
    this.frame = frame;
    ({ unitRow: this.unitRow, unitSign: this.unitSign } = unitAxes(model));
    const mk = (n: (i: number) => number) => Array.from({ length: nb }, (_, i) => new Float64Array(n(i)));
    const w = frame === 'world';
    const at = minvStoreLayout(model);
    if (opts.store !== undefined && opts.store.length < at.size) throw new RangeError('minvCarpentier: the store given is too short');
    const store = opts.store ?? new Float64Array(at.size);
    this.at = at; this.store = store;
    /** body i's 6×nv_i block of a region of 6 nv doubles (world frame only) */
    const region = (o: number) => Array.from({ length: nb }, (_, i) => store.subarray(w ? o + 6 * model.iv[i] : 0, w ? o + 6 * (model.iv[i] + model.nvi[i]) : 0));
    this.oX = mk(() => (w ? 12 : 0));
    this.Uw = region(at.Uw);
    this.Sw = region(at.Sw);
    this.UDw = region(at.UDw);
    this.SDw = region(at.SDw);
    this.Xup = mk(() => 12);
    this.IA = mk(() => 36);
    this.U = mk((i) => 6 * model.nvi[i]);
    this.Dinv = mk((i) => model.nvi[i] * model.nvi[i]);
    this.UD = mk((i) => 6 * model.nvi[i]);
    this.F = store.subarray(at.F, at.F + 6 * nv);
    this.Minv = store.subarray(at.Minv, at.Minv + nv * nv);
    this.ivEnd = at.ivEnd; this.rootEnd = at.rootEnd;
    let roots = 0;
    for (let i = 0; i < nb; i++) if (model.parents[i] < 0) roots++;
    this.branched = roots > 1 || model.children.some((c) => c.length > 1);
    this.pOff = at.pOff;
    this.P = store.subarray(at.P, at.P + this.pOff[nb]);
    this.Fcol = Array.from({ length: nv }, (_, j) => this.F.subarray(6 * j, 6 * j + 6));
    this.Pcol = Array.from({ length: this.P.length / 6 }, (_, k) => this.P.subarray(6 * k, 6 * k + 6));
  }
}

/**
 * Where M⁻¹'s passes keep their per-column data in one array of `size` doubles: M⁻¹ (nv×nv
 * row-major), F (6×nv), P (P_i's columns from pOff_i), and four regions of 6 nv for the world-frame
 * vectors; every region starts on an even double (16 bytes). With the subtree extents (ivEnd,
 * rootEnd). Throws when the bodies are not numbered depth first. @internal
 */
export interface MinvStoreLayout {
  readonly Minv: number; readonly F: number; readonly P: number;
  readonly Uw: number; readonly Sw: number; readonly UDw: number; readonly SDw: number;
  readonly size: number;
  readonly pOff: Int32Array; readonly ivEnd: Int32Array; readonly rootEnd: Int32Array;
}

/** The store's layout for a model (see MinvStoreLayout). @internal */
export function minvStoreLayout(model: Model): MinvStoreLayout {
  const nb = model.nb, nv = model.nv;
  // subtree extents; depth-first numbering makes every subtree a contiguous body (and column) range
  const last = Int32Array.from({ length: nb }, (_, i) => i);
  for (let i = nb - 1; i >= 0; i--) {
    const p = model.parents[i];
    if (p >= 0 && last[i] > last[p]) last[p] = last[i];
  }
  const count = new Int32Array(nb).fill(1);
  for (let i = nb - 1; i >= 0; i--) if (model.parents[i] >= 0) count[model.parents[i]] += count[i];
  const ivEnd = new Int32Array(nb), rootEnd = new Int32Array(nb);
  for (let i = 0; i < nb; i++) {
    if (last[i] - i + 1 !== count[i]) {
      throw new RangeError(`minvCarpentier: the bodies of model "${model.name}" are not numbered depth first (the subtree of body "${model.bodyNames[i]}" is not contiguous)`);
    }
    const e = last[i] + 1;
    ivEnd[i] = e < nb ? model.iv[e] : nv;
    const p = model.parents[i];
    rootEnd[i] = p < 0 ? ivEnd[i] : rootEnd[p];
  }
  const pOff = new Int32Array(nb + 1);
  for (let i = 0; i < nb; i++) pOff[i + 1] = pOff[i] + (model.children[i].length > 0 ? 6 * (rootEnd[i] - model.iv[i]) : 0);
  let size = 0;
  const take = (n: number) => { const o = size; size += n + (n & 1); return o; };
  const Minv = take(nv * nv), F = take(6 * nv), P = take(pOff[nb]);
  const Uw = take(6 * nv), Sw = take(6 * nv), UDw = take(6 * nv), SDw = take(6 * nv);
  return { Minv, F, P, Uw, Sw, UDw, SDw, size, pOff, ivEnd, rootEnd };
}

/**
 * M⁻¹(q) by Carpentier (2018) Algorithm 1, written into and returned as ws.Minv. With `triangle =
 * 'upper'` only the upper triangle (column ≥ row) is written, row after row (the memory Pinocchio's
 * computeMinverse writes: the lower triangle of its column-major result), the strictly lower triangle
 * left as it was; by default both. Allocation free.
 */
export function minvCarpentier(model: Model, ws: MinvCarpentierWorkspace, q: ArrayLike<number>, triangle: 'full' | 'upper' = 'full'): Float64Array {
  if (ws.model !== model) throw new RangeError('minvCarpentier: workspace was created for another model');
  checkConfiguration(model, q);
  checkForwardDynamicsDefined(model, 'M⁻¹ (Carpentier)');
  return minvCarpentierUnchecked(model, ws, q, triangle);
}

export function minvCarpentierUnchecked(model: Model, ws: MinvCarpentierWorkspace, q: ArrayLike<number>, triangle: 'full' | 'upper' = 'full'): Float64Array {
  const Minv = ws.frame === 'world' ? minvCarpentierWorld(model, ws, q) : minvCarpentierLocal(model, ws, q);
  // M⁻¹[i:, i] = M⁻¹[i, i:]ᵀ
  if (triangle === 'full') {
    const nv = model.nv;
    for (let r = 0; r < nv; r++) for (let c = r + 1; c < nv; c++) Minv[c * nv + r] = Minv[r * nv + c];
  }
  return Minv;
}

/** the passes in body coordinates (Carpentier (2018)); the upper triangle of M⁻¹ */
function minvCarpentierLocal(model: Model, ws: MinvCarpentierWorkspace, q: ArrayLike<number>): Float64Array {
  const fl = ws.flops;
  fl.reset();
  const nb = model.nb, nv = model.nv;
  const { Minv, F, P, pOff, ivEnd, rootEnd, Ia, w36, t6, unitRow, unitSign } = ws;
  clearUpper(Minv, nv, ws.branched);
  // pass 1: ⁱX_λ = X_J X_T,  I^A_i = I_i
  for (let i = 0; i < nb; i++) {
    jcalc(ws.Xup[i], model, i, q, fl);
    inertiaToMatrix(ws.IA[i], model.I[i]);
  }
  // pass 2
  for (let i = nb - 1; i >= 0; i--) {
    const ni = model.nvi[i], iv = model.iv[i], e = ivEnd[i];
    const S = model.S[i], IA = ws.IA[i], U = ws.U[i], Dinv = ws.Dinv[i], UD = ws.UD[i];
    const p = model.parents[i];
    const X = ws.Xup[i];
    if (ni > 0) {
      // U_i = I^A_i S_i,  D_i = S_iᵀ U_i,  M⁻¹[i,i] = D_i⁻¹   (lines 9–11)
      setMS(U, IA, S, ni, fl);
      setSTU(Dinv, S, U, ni, fl);
      if (!spdInvertInPlace(Dinv, ni, w36, fl)) throw new SingularJointInertiaError(model.jointNames[i], model.bodyNames[i], 'M⁻¹ (Carpentier)');
      for (let a = 0; a < ni; a++) for (let b = 0; b < ni; b++) Minv[(iv + a) * nv + iv + b] = Dinv[ni * a + b];
      // M⁻¹[i, j] = −D_i⁻¹ S_iᵀ F_i[:, j] for the columns j of the strict subtree   (line 12)
      const row = unitRow[i];
      if (row >= 0) {
        // S_i = ±e_row: S_iᵀ F is one entry of F (no flop), times the 1×1 D_i⁻¹ (1 mul)
        const d = Dinv[0], sg = unitSign[i], r0 = iv * nv;
        for (let j = iv + 1; j < e; j++) {
          const t = sg > 0 ? F[6 * j + row] : -F[6 * j + row];
          Minv[r0 + j] = -(d * t);
        }
        fl.mul += e - iv - 1;
      }
      for (let j = row >= 0 ? e : iv + ni; j < e; j++) {
        sTransposeAt(t6, S, ni, F, 6 * j, fl);
        for (let a = 0; a < ni; a++) {
          let acc = 0;
          for (let b = 0; b < ni; b++) acc += Dinv[ni * a + b] * t6[b];
          Minv[(iv + a) * nv + j] = -acc;
        }
        fl.mul += ni * ni; fl.add += ni * (ni - 1);
      }
      // U_i D_i⁻¹ (pass 3 and I^a_i; a root needs neither)
      if (p >= 0) rightMulD(UD, U, Dinv, ni, fl);
    }
    if (p < 0) continue;
    // F_λ[:, j] = λX*_i (F_i[:, j] + U_i M⁻¹[i, j]) for j ∈ subtree(i)   (line 14); F_i[:, j] = 0 on i's own columns
    if (ni === 1) {
      // written out: f = F_i[:, j] + U_i M⁻¹[i, j] (6 mul, 6 add; 0 add on the own column), then
      // λX*_i f (xTransposeApplyForce, 24 mul, 18 add) on the six values
      const e0 = X[0], e1 = X[1], e2 = X[2], e3 = X[3], e4 = X[4], e5 = X[5], e6 = X[6], e7 = X[7], e8 = X[8];
      const r0 = X[9], r1 = X[10], r2 = X[11];
      const u0 = U[0], u1 = U[1], u2 = U[2], u3 = U[3], u4 = U[4], u5 = U[5];
      const mo = iv * nv;
      let mul = 0, add = 0;
      for (let j = iv; j < e; j++) {
        const o = 6 * j, m = Minv[mo + j];
        let a0, a1, a2, b0, b1, b2;
        if (j === iv) {
          a0 = u0 * m; a1 = u1 * m; a2 = u2 * m; b0 = u3 * m; b1 = u4 * m; b2 = u5 * m;
        } else {
          a0 = F[o] + u0 * m; a1 = F[o + 1] + u1 * m; a2 = F[o + 2] + u2 * m;
          b0 = F[o + 3] + u3 * m; b1 = F[o + 4] + u4 * m; b2 = F[o + 5] + u5 * m;
          add += 6;
        }
        const fx = e0 * b0 + e3 * b1 + e6 * b2;
        const fy = e1 * b0 + e4 * b1 + e7 * b2;
        const fz = e2 * b0 + e5 * b1 + e8 * b2;
        F[o] = e0 * a0 + e3 * a1 + e6 * a2 + (r1 * fz - r2 * fy);
        F[o + 1] = e1 * a0 + e4 * a1 + e7 * a2 + (r2 * fx - r0 * fz);
        F[o + 2] = e2 * a0 + e5 * a1 + e8 * a2 + (r0 * fy - r1 * fx);
        F[o + 3] = fx; F[o + 4] = fy; F[o + 5] = fz;
        mul += 6 + 24; add += 18;
      }
      fl.mul += mul; fl.add += add;
    }
    for (let j = ni === 1 ? e : iv; j < e; j++) {
      const o = 6 * j;
      if (ni > 0) {
        const own = j < iv + ni;
        for (let r = 0; r < 6; r++) {
          let acc = own ? 0 : F[o + r];
          for (let a = 0; a < ni; a++) acc += U[6 * a + r] * Minv[(iv + a) * nv + j];
          F[o + r] = acc;
        }
        fl.mul += 6 * ni; fl.add += own ? 6 * (ni - 1) : 6 * ni;
      }
      xTransposeApplyForce(ws.Fcol[j], X, ws.Fcol[j], fl);
    }
    // I^a_i = I^A_i − U_i D_i⁻¹ U_iᵀ,  I^A_λ += λX*_i I^a_i ⁱX_λ   (lines 15–16)
    for (let k = 0; k < 36; k++) Ia[k] = IA[k];
    if (ni > 0) {
      for (let r = 0; r < 6; r++) {
        for (let c = r; c < 6; c++) {
          let acc = 0;
          for (let k = 0; k < ni; k++) acc += UD[6 * k + r] * U[6 * k + c];
          Ia[6 * r + c] -= acc;
          Ia[6 * c + r] = Ia[6 * r + c];
        }
      }
      fl.mul += 21 * ni; fl.add += 21 * ni;
    }
    m6CongruenceAdd(ws.IA[p], X, Ia, fl);
  }
  // pass 3: columns j ≥ iv_i of body i's root tree
  for (let i = 0; i < nb; i++) {
    const ni = model.nvi[i], iv = model.iv[i], end = rootEnd[i];
    const p = model.parents[i];
    const S = model.S[i], UD = ws.UD[i], X = ws.Xup[i];
    const keepP = model.children[i].length > 0;
    if (ni === 0 && !keepP) continue;
    const pi = pOff[i];
    const row = unitRow[i];
    if (row >= 0 && p >= 0) {
      // written out: t = ⁱX_λ P_λ[:, j] (xApplyMotion, 24 mul, 18 add), M⁻¹[i, j] −= (U_i D_i⁻¹)ᵀ t
      // (6 mul, 6 add), P_i[:, j] = t ± M⁻¹[i, j] e_row (1 add)
      const e0 = X[0], e1 = X[1], e2 = X[2], e3 = X[3], e4 = X[4], e5 = X[5], e6 = X[6], e7 = X[7], e8 = X[8];
      const r0 = X[9], r1 = X[10], r2 = X[11];
      const d0 = UD[0], d1 = UD[1], d2 = UD[2], d3 = UD[3], d4 = UD[4], d5 = UD[5];
      const sg = unitSign[i], mo = iv * nv, pp = pOff[p] - 6 * model.iv[p];
      let mul = 0, add = 0;
      for (let j = iv; j < end; j++) {
        const po = pp + 6 * j;
        const wx = P[po], wy = P[po + 1], wz = P[po + 2];
        const tx = P[po + 3] - (r1 * wz - r2 * wy);
        const ty = P[po + 4] - (r2 * wx - r0 * wz);
        const tz = P[po + 5] - (r0 * wy - r1 * wx);
        const t0 = e0 * wx + e1 * wy + e2 * wz;
        const t1 = e3 * wx + e4 * wy + e5 * wz;
        const t2 = e6 * wx + e7 * wy + e8 * wz;
        const t3 = e0 * tx + e1 * ty + e2 * tz;
        const t4 = e3 * tx + e4 * ty + e5 * tz;
        const t5 = e6 * tx + e7 * ty + e8 * tz;
        const m = Minv[mo + j] - (d0 * t0 + d1 * t1 + d2 * t2 + d3 * t3 + d4 * t4 + d5 * t5);
        Minv[mo + j] = m;
        mul += 24 + 6; add += 18 + 6;
        if (!keepP) continue;
        const o = pi + 6 * (j - iv);
        P[o] = t0; P[o + 1] = t1; P[o + 2] = t2; P[o + 3] = t3; P[o + 4] = t4; P[o + 5] = t5;
        if (sg > 0) P[o + row] += m; else P[o + row] -= m;
        add++;
      }
      fl.mul += mul; fl.add += add;
      continue;
    }
    for (let j = iv; j < end; j++) {
      if (p >= 0) {
        // t = ⁱX_λ P_λ[:, j];  M⁻¹[i, j] −= D_i⁻¹ U_iᵀ t   (line 22)
        xApplyMotion(t6, X, ws.Pcol[pOff[p] / 6 + j - model.iv[p]], fl);
        for (let a = 0; a < ni; a++) {
          let acc = 0;
          for (let r = 0; r < 6; r++) acc += UD[6 * a + r] * t6[r];
          Minv[(iv + a) * nv + j] -= acc;
        }
        fl.mul += 6 * ni; fl.add += 6 * ni;
      }
      if (!keepP) continue;
      // P_i[:, j] = S_i M⁻¹[i, j] + ⁱX_λ P_λ[:, j]   (lines 24–26)
      const o = pi + 6 * (j - iv);
      if (p >= 0) for (let r = 0; r < 6; r++) P[o + r] = t6[r];
      else for (let r = 0; r < 6; r++) P[o + r] = 0;
      addSColumnAt(P, o, S, ni, Minv, iv, nv, j, p >= 0, fl);
    }
  }
  return Minv;
}

/**
 * The upper triangle of M⁻¹ set to zero where the passes do not set it before adding to it: entries
 * between a body and the columns after its subtree in its root tree, and between root trees. A model
 * without branches (a chain) has none: every entry is set by the backward pass.
 */
function clearUpper(Minv: Float64Array, nv: number, branched: boolean): void {
  if (!branched) return;
  for (let r = 0; r < nv; r++) Minv.fill(0, r * nv + r, r * nv + nv);
}

/**
 * The same three passes with F, P, U_i, S_i in world coordinates (Pinocchio's computeMinverse):
 *   pass 2:  M⁻¹[i, j] = −(⁰S_i D_i⁻¹)ᵀ F[:, j],  F[:, j] += ⁰U_i M⁻¹[i, j]   (no transform per column)
 *   pass 3:  M⁻¹[i, j] −= (⁰U_i D_i⁻¹)ᵀ P_λ[:, j],  P_i[:, j] = ⁰S_i M⁻¹[i, j] + P_λ[:, j]
 * (powers are frame invariant: S_iᵀ f = ⁰S_iᵀ ⁰f).
 */
function minvCarpentierWorld(model: Model, ws: MinvCarpentierWorkspace, q: ArrayLike<number>): Float64Array {
  minvWorldBodies(model, ws, q);
  worldColumns(model, ws);
  worldPass3(model, ws);
  return ws.Minv;
}

/**
 * The world-frame passes' work per body, which no column of F or P enters: clears what the column
 * passes only add to, then pass 1 (ⁱX_λ, ⁱX_0, I^A_i = I_i) and pass 2's per-body part from the
 * leaves (U_i, D_i⁻¹ into M⁻¹'s diagonal block, ⁰S_i, ⁰S_i D_i⁻¹, ⁰U_i, ⁰U_i D_i⁻¹, I^A_λ += λX*_i I^a_i ⁱX_λ).
 * The column work of pass 2 and pass 3 (worldColumns, worldPass3, or generated code reading the
 * store) follows. Throws SingularJointInertiaError naming the joint. @internal
 */
export function minvWorldBodies(model: Model, ws: MinvCarpentierWorkspace, q: ArrayLike<number>): void {
  const fl = ws.flops;
  fl.reset();
  const nb = model.nb, nv = model.nv;
  const { Minv, Ia, w36, s6 } = ws;
  clearUpper(Minv, nv, ws.branched);
  // pass 1: ⁱX_λ, ⁱX_0 = ⁱX_λ ᵏX_0, I^A_i = I_i
  for (let i = 0; i < nb; i++) {
    jcalc(ws.Xup[i], model, i, q, fl);
    const p = model.parents[i];
    if (p < 0) ws.oX[i].set(ws.Xup[i]);
    else xCompose(ws.oX[i], ws.Xup[i], ws.oX[p], fl);
    inertiaToMatrix(ws.IA[i], model.I[i]);
  }
  // pass 2, per body
  for (let i = nb - 1; i >= 0; i--) {
    const ni = model.nvi[i], iv = model.iv[i];
    const S = model.S[i], IA = ws.IA[i], U = ws.U[i], Dinv = ws.Dinv[i], UD = ws.UD[i];
    const Uw = ws.Uw[i], Sw = ws.Sw[i], oX = ws.oX[i];
    const p = model.parents[i];
    const hasKids = model.children[i].length > 0;
    if (ni > 0) {
      setMS(U, IA, S, ni, fl);
      setSTU(Dinv, S, U, ni, fl);
      if (!spdInvertInPlace(Dinv, ni, w36, fl)) throw new SingularJointInertiaError(model.jointNames[i], model.bodyNames[i], 'M⁻¹ (Carpentier)');
      for (let a = 0; a < ni; a++) for (let b = 0; b < ni; b++) Minv[(iv + a) * nv + iv + b] = Dinv[ni * a + b];
      // ⁰S_i = ⁰X_i S_i and ⁰S_i D_i⁻¹ (read by the strict subtree's columns and P_i: not for a leaf);
      // ⁰U_i = ⁰X*_i U_i, ⁰U_i D_i⁻¹ and U_i D_i⁻¹ (body, for I^a_i) (read only below a parent: not for a root)
      if (hasKids) {
        for (let a = 0; a < ni; a++) {
          for (let r = 0; r < 6; r++) s6[r] = S[6 * a + r];
          motionToWorldAt(Sw, 6 * a, oX, s6, fl);
        }
        rightMulD(ws.SDw[i], Sw, Dinv, ni, fl);
      }
      if (p >= 0) {
        for (let a = 0; a < ni; a++) forceToWorldAt(Uw, 6 * a, oX, U, 6 * a, fl);
        rightMulD(ws.UDw[i], Uw, Dinv, ni, fl);
        rightMulD(UD, U, Dinv, ni, fl);
      }
    }
    if (p < 0) continue;
    // I^a_i = I^A_i − U_i D_i⁻¹ U_iᵀ,  I^A_λ += λX*_i I^a_i ⁱX_λ   (lines 15–16)
    for (let k = 0; k < 36; k++) Ia[k] = IA[k];
    if (ni > 0) {
      for (let r = 0; r < 6; r++) {
        for (let c = r; c < 6; c++) {
          let acc = 0;
          for (let k = 0; k < ni; k++) acc += UD[6 * k + r] * U[6 * k + c];
          Ia[6 * r + c] -= acc;
          Ia[6 * c + r] = Ia[6 * r + c];
        }
      }
      fl.mul += 21 * ni; fl.add += 21 * ni;
    }
    m6CongruenceAdd(ws.IA[p], ws.Xup[i], Ia, fl);
  }
}

/** pass 2's column work, from the leaves: M⁻¹[i, j] = −(⁰S_i D_i⁻¹)ᵀ F[:, j] (line 12), F[:, j] += ⁰U_i M⁻¹[i, j] (line 14) */
function worldColumns(model: Model, ws: MinvCarpentierWorkspace): void {
  const fl = ws.flops;
  const nb = model.nb, nv = model.nv;
  const { Minv, F, ivEnd } = ws;
  for (let i = nb - 1; i >= 0; i--) {
    const ni = model.nvi[i], iv = model.iv[i], e = ivEnd[i];
    const Uw = ws.Uw[i], SDw = ws.SDw[i];
    const p = model.parents[i];
    if (ni === 1) {
      // one DoF, written out: M⁻¹[i, j] = −(⁰S_i D_i⁻¹)ᵀ F[:, j] (line 12) and, below a parent,
      // F[:, j] += ⁰U_i M⁻¹[i, j] (line 14) in one pass over the subtree's columns
      const s0 = SDw[0], s1 = SDw[1], s2 = SDw[2], s3 = SDw[3], s4 = SDw[4], s5 = SDw[5];
      const u0 = Uw[0], u1 = Uw[1], u2 = Uw[2], u3 = Uw[3], u4 = Uw[4], u5 = Uw[5];
      const mo = iv * nv, below = p >= 0;
      if (below) {
        const m = Minv[mo + iv], o = 6 * iv;
        F[o] = u0 * m; F[o + 1] = u1 * m; F[o + 2] = u2 * m; F[o + 3] = u3 * m; F[o + 4] = u4 * m; F[o + 5] = u5 * m;
      }
      for (let j = iv + 1; j < e; j++) {
        const o = 6 * j;
        const f0 = F[o], f1 = F[o + 1], f2 = F[o + 2], f3 = F[o + 3], f4 = F[o + 4], f5 = F[o + 5];
        const m = -(s0 * f0 + s1 * f1 + s2 * f2 + s3 * f3 + s4 * f4 + s5 * f5);
        Minv[mo + j] = m;
        if (below) { F[o] = f0 + u0 * m; F[o + 1] = f1 + u1 * m; F[o + 2] = f2 + u2 * m; F[o + 3] = f3 + u3 * m; F[o + 4] = f4 + u4 * m; F[o + 5] = f5 + u5 * m; }
      }
      const n = e - iv - 1;
      fl.mul += 6 * n; fl.add += 5 * n;
      if (below) { fl.mul += 6 * (n + 1); fl.add += 6 * n; }
      continue;
    }
    if (ni > 1) {
      // M⁻¹[i, j] = −(⁰S_i D_i⁻¹)ᵀ F[:, j] on the strict subtree   (line 12)
      for (let j = iv + ni; j < e; j++) {
        const o = 6 * j;
        const f0 = F[o], f1 = F[o + 1], f2 = F[o + 2], f3 = F[o + 3], f4 = F[o + 4], f5 = F[o + 5];
        for (let a = 0, m = iv * nv + j; a < ni; a++, m += nv) {
          const d = 6 * a;
          Minv[m] = -(SDw[d] * f0 + SDw[d + 1] * f1 + SDw[d + 2] * f2 + SDw[d + 3] * f3 + SDw[d + 4] * f4 + SDw[d + 5] * f5);
        }
      }
      if (e > iv + ni) { fl.mul += 6 * ni * (e - iv - ni); fl.add += 5 * ni * (e - iv - ni); }
    }
    if (p < 0 || ni === 0) continue;
    // F[:, j] += ⁰U_i M⁻¹[i, j] on subtree(i)   (line 14, world coordinates: no transform)
    for (let j = iv; j < e; j++) {
      const o = 6 * j;
      const own = j < iv + ni;
      for (let r = 0; r < 6; r++) {
        let acc = own ? 0 : F[o + r];
        for (let a = 0, m = iv * nv + j; a < ni; a++, m += nv) acc += Uw[6 * a + r] * Minv[m];
        F[o + r] = acc;
      }
    }
    fl.mul += 6 * ni * (e - iv); fl.add += 6 * (ni - 1) * ni + 6 * ni * (e - iv - ni);
  }
}

/** pass 3, from the root: M⁻¹[i, j] −= (⁰U_i D_i⁻¹)ᵀ P_λ[:, j] (line 22), P_i[:, j] = ⁰S_i M⁻¹[i, j] + P_λ[:, j] (lines 24–26) */
function worldPass3(model: Model, ws: MinvCarpentierWorkspace): void {
  const fl = ws.flops;
  const nb = model.nb, nv = model.nv;
  const { Minv, P, pOff, rootEnd } = ws;
  for (let i = 0; i < nb; i++) {
    const ni = model.nvi[i], iv = model.iv[i], end = rootEnd[i];
    const p = model.parents[i];
    const keepP = model.children[i].length > 0;
    if (ni === 0 && !keepP) continue;
    const UDw = ws.UDw[i], Sw = ws.Sw[i];
    const pi = pOff[i], pp = p >= 0 ? pOff[p] - 6 * model.iv[p] : 0;
    if (ni === 1) {
      // one DoF, written out: M⁻¹[i, j] −= (⁰U_i D_i⁻¹)ᵀ P_λ[:, j] (line 22), P_i[:, j] = ⁰S_i M⁻¹[i, j] + P_λ[:, j] (lines 24–26)
      const d0 = UDw[0], d1 = UDw[1], d2 = UDw[2], d3 = UDw[3], d4 = UDw[4], d5 = UDw[5];
      const w0 = Sw[0], w1 = Sw[1], w2 = Sw[2], w3 = Sw[3], w4 = Sw[4], w5 = Sw[5];
      const mo = iv * nv, n = end - iv;
      if (p >= 0) {
        for (let j = iv; j < end; j++) {
          const op = pp + 6 * j;
          const a0 = P[op], a1 = P[op + 1], a2 = P[op + 2], a3 = P[op + 3], a4 = P[op + 4], a5 = P[op + 5];
          const m = Minv[mo + j] - (d0 * a0 + d1 * a1 + d2 * a2 + d3 * a3 + d4 * a4 + d5 * a5);
          Minv[mo + j] = m;
          if (!keepP) continue;
          const o = pi + 6 * (j - iv);
          P[o] = a0 + w0 * m; P[o + 1] = a1 + w1 * m; P[o + 2] = a2 + w2 * m; P[o + 3] = a3 + w3 * m; P[o + 4] = a4 + w4 * m; P[o + 5] = a5 + w5 * m;
        }
        fl.mul += 6 * n; fl.add += 6 * n;
        if (keepP) { fl.mul += 6 * n; fl.add += 6 * n; }
      } else if (keepP) {
        for (let j = iv; j < end; j++) {
          const m = Minv[mo + j], o = pi + 6 * (j - iv);
          P[o] = w0 * m; P[o + 1] = w1 * m; P[o + 2] = w2 * m; P[o + 3] = w3 * m; P[o + 4] = w4 * m; P[o + 5] = w5 * m;
        }
        fl.mul += 6 * n;
      }
      continue;
    }
    for (let j = iv; j < end; j++) {
      const op = pp + 6 * j;
      if (p >= 0) {
        // M⁻¹[i, j] −= (⁰U_i D_i⁻¹)ᵀ P_λ[:, j]   (line 22)
        const a0 = P[op], a1 = P[op + 1], a2 = P[op + 2], a3 = P[op + 3], a4 = P[op + 4], a5 = P[op + 5];
        for (let a = 0, m = iv * nv + j; a < ni; a++, m += nv) {
          const d = 6 * a;
          Minv[m] -= UDw[d] * a0 + UDw[d + 1] * a1 + UDw[d + 2] * a2 + UDw[d + 3] * a3 + UDw[d + 4] * a4 + UDw[d + 5] * a5;
        }
      }
      if (!keepP) continue;
      // P_i[:, j] = ⁰S_i M⁻¹[i, j] + P_λ[:, j]   (lines 24–26)
      const o = pi + 6 * (j - iv);
      for (let r = 0; r < 6; r++) {
        let acc = p >= 0 ? P[op + r] : 0;
        for (let a = 0, m = iv * nv + j; a < ni; a++, m += nv) acc += Sw[6 * a + r] * Minv[m];
        P[o + r] = acc;
      }
    }
    const nj = end - iv;
    if (p >= 0) { fl.mul += 6 * ni * nj; fl.add += 6 * ni * nj; }
    if (keepP) { fl.mul += 6 * ni * nj; fl.add += (p >= 0 ? 6 * ni : 6 * (ni - 1)) * nj; }
  }
}

/** out = A D⁻¹ (6×ni column-major times ni×ni row-major). 6ni² mul, 6ni(ni−1) add. */
function rightMulD(out: Float64Array, A: Float64Array, Dinv: Float64Array, ni: number, fl: Flops): void {
  if (ni === 1) {
    const d = Dinv[0];
    out[0] = A[0] * d; out[1] = A[1] * d; out[2] = A[2] * d; out[3] = A[3] * d; out[4] = A[4] * d; out[5] = A[5] * d;
    fl.mul += 6;
    return;
  }
  for (let b = 0; b < ni; b++) {
    for (let r = 0; r < 6; r++) {
      let acc = 0;
      for (let c = 0; c < ni; c++) acc += A[6 * c + r] * Dinv[ni * c + b];
      out[6 * b + r] = acc;
    }
  }
  fl.mul += 6 * ni * ni; fl.add += 6 * ni * (ni - 1);
}

/** out[oo..oo+6) = ⁰X*_i f = (ⁱX_0)ᵀ f for f = src[so..so+6) (xTransposeApplyForce on offset storage). 24 mul, 18 add. */
function forceToWorldAt(out: Float64Array, oo: number, X: Float64Array, src: Float64Array, so: number, fl: Flops): void {
  const a0 = src[so], a1 = src[so + 1], a2 = src[so + 2], b0 = src[so + 3], b1 = src[so + 4], b2 = src[so + 5];
  const fx = X[0] * b0 + X[3] * b1 + X[6] * b2;
  const fy = X[1] * b0 + X[4] * b1 + X[7] * b2;
  const fz = X[2] * b0 + X[5] * b1 + X[8] * b2;
  const r0 = X[9], r1 = X[10], r2 = X[11];
  out[oo] = X[0] * a0 + X[3] * a1 + X[6] * a2 + (r1 * fz - r2 * fy);
  out[oo + 1] = X[1] * a0 + X[4] * a1 + X[7] * a2 + (r2 * fx - r0 * fz);
  out[oo + 2] = X[2] * a0 + X[5] * a1 + X[8] * a2 + (r0 * fy - r1 * fx);
  out[oo + 3] = fx; out[oo + 4] = fy; out[oo + 5] = fz;
  fl.mul += 24; fl.add += 18;
}

/** out[oo..oo+6) = ⁰X_i m = (ⁱX_0)⁻¹ m (xInvApplyMotion on offset storage). 24 mul, 18 add. */
function motionToWorldAt(out: Float64Array, oo: number, X: Float64Array, m: Float64Array, fl: Flops): void {
  xInvApplyMotion(m, X, m, fl);
  for (let r = 0; r < 6; r++) out[oo + r] = m[r];
}

/** out[0..ni) = S_iᵀ F[o..o+6), skipping S's zeros and exact ±1 products. */
function sTransposeAt(out: Float64Array, S: Float64Array, ni: number, F: Float64Array, o: number, fl: Flops): void {
  for (let k = 0; k < ni; k++) {
    let acc = 0, terms = 0;
    for (let r = 0; r < 6; r++) {
      const s = S[6 * k + r];
      if (s === 0) continue;
      if (s === 1) acc += F[o + r];
      else if (s === -1) acc -= F[o + r];
      else { acc += s * F[o + r]; fl.mul++; }
      terms++;
    }
    if (terms > 1) fl.add += terms - 1;
    out[k] = acc;
  }
}

/**
 * P[o..o+6) += S_i M⁻¹[i-rows, j] (or = when `accumulate` is false and P[o..) is zero), skipping
 * S's zeros and exact ±1 products; an addition is counted only onto a value already there.
 */
function addSColumnAt(P: Float64Array, o: number, S: Float64Array, ni: number, Minv: Float64Array, iv: number, nv: number, j: number, accumulate: boolean, fl: Flops): void {
  for (let r = 0; r < 6; r++) {
    let filled = accumulate;
    let acc = P[o + r];
    for (let k = 0; k < ni; k++) {
      const s = S[6 * k + r];
      if (s === 0) continue;
      const x = Minv[(iv + k) * nv + j];
      if (filled) fl.add++;
      if (s === 1) acc += x;
      else if (s === -1) acc -= x;
      else { acc += s * x; fl.mul++; }
      filled = true;
    }
    P[o + r] = acc;
  }
}
