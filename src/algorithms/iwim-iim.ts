/**
 * B̂ = M⁻¹B by the Implicit Inversion Method (IIM): Krög et al. (2024) §5, eqs. (16)–(27), on top of one
 * run of our ABA (RBDA Table 7.1), whose intermediate quantities ⁱX_λ, U_i = I^A_i S_i and D_i⁻¹
 * play the parts of Bremer's T_ip, M*_i F_i and M_Ri⁻¹ (F_i = S_i, M*_i = I^A_i, M_Ri = D_i).
 *
 * Dictionary (Krög et al. (2024) → Featherstone):
 *   T*_ip = (1 − S_i D_i⁻¹ U_iᵀ) ⁱX_λ        motion propagation through articulated body i (11)
 *   T*_ipᵀ = ⁱX_λᵀ (1 − U_i D_i⁻¹ S_iᵀ)      force propagation (10), (16)
 *   h*_{i,u}                                 −(input part of p^A_i): the articulated input wrench g_i
 * A joint input τ_b acts on body b and, as a reaction, on λ(b); with the wrench U_b D_b⁻¹ τ_b (whose
 * S_bᵀ-component is τ_b) it enters B* (17) as  S_bᵀ h*_b = τ_b,  g_λ(b) = −ᵇX_λᵀ U_b D_b⁻¹ τ_b.
 * A contact wrench w on body b enters as g_b = w.
 *
 * Per input column c (B*, eqs. 16–17, along the path from the input's body to the root only):
 *   u_k = S_kᵀ g_k,   g_λ(k) += T*_kᵀ g_k = ᵏX_λᵀ (g_k − U_k D_k⁻¹ u_k)
 * then eq. (27) — B̂ = diag(D_i⁻¹S_iᵀ)[1 − diag(I^A_i ⁱX_λ) T̂ diag(S_i D_i⁻¹ S_iᵀ)] B* — with T̂
 * (25), a product of T*'s along each path, applied recursively instead of being formed:
 *   a'_i = ⁱX_λ A_λ,   B̂[i, c] = D_i⁻¹ u_i − (U_i D_i⁻¹)ᵀ a'_i,   A_i = a'_i + S_i B̂[i, c]
 * (A_i = T*_i A_λ + S_i D_i⁻¹ u_i, the rows of T̂ diag(S D⁻¹) B*; u_i = 0 off the path). Γ (21)
 * is unit lower triangular and never inverted, as in the paper. q̈_0 = −M⁻¹h comes from the ABA run.
 * Cost: one ABA, then per column O(depth) for B* and O(N_B) for (27).
 */
import { addSx, setSTf, setSx } from '../model/subspace.ts';
import type { Model } from '../model/model.ts';
import { Flops } from '../spatial/flops.ts';
import { mulUDinv } from '../spatial/smallmat.ts';
import { xApplyMotion, xTransposeApplyForce } from '../spatial/transform.ts';
import { abaUnchecked, AbaWorkspace } from './aba.ts';
import { contactWrenches, ContactWorkspace, type InputMatrix } from './iwim-inputs.ts';
import { checkConfiguration, checkForwardDynamicsDefined, checkVector } from './validate.ts';

/**
 * Workspace of `iwimIim` (M⁻¹B by the Implicit Inversion Method on ABA's factors): made once per
 * model and input matrix, reused.
 */
export class IwimIimWorkspace {
  readonly aba: AbaWorkspace;
  readonly contact: ContactWorkspace;
  /** q̈_0 = −M⁻¹h (output, nv) */
  readonly qdd0: Float64Array;
  /** B̂ = M⁻¹B (output, nv×m row-major) */
  readonly Bhat: Float64Array;
  /** flops of the last call: the ABA run, U_i D_i⁻¹, contact wrenches, B* and eq. (27) */
  readonly flops = new Flops();
  /** U_i D_i⁻¹ per body (6×nv_i column-major), from the ABA's U_i and D_i⁻¹ */
  readonly UD: Float64Array[];
  /** g_k: articulated input wrench of the current column, body coordinates (B*) */
  readonly g: Float64Array[];
  /** A_i: motion of body i for the current column (eq. 27's recursion), body coordinates */
  readonly A: Float64Array[];
  /** u = diag(S_iᵀ) B* for the current column (nv), nonzero on the path only */
  readonly u: Float64Array;
  /** column c + 1 when body i is on the current column's path (0: off the path) */
  readonly onPath: Int32Array;
  /** first and one-past-last body of the root tree containing body i (depth-first numbering) */
  readonly treeFirst: Int32Array;
  readonly treeEnd: Int32Array;
  /** contact wrenches, 6 per column (body coordinates) */
  readonly W: Float64Array;
  readonly zero = new Float64Array(6);
  readonly t6 = new Float64Array(6);
  readonly t6b = new Float64Array(6);

  constructor(readonly model: Model, readonly inputs: InputMatrix) {
    if (inputs.model !== model) throw new RangeError('IwimIimWorkspace: the input matrix was compiled for another model');
    const nb = model.nb;
    this.aba = new AbaWorkspace(model);
    this.contact = new ContactWorkspace(model);
    this.qdd0 = new Float64Array(model.nv);
    this.Bhat = new Float64Array(model.nv * inputs.m);
    this.UD = Array.from({ length: nb }, (_, i) => new Float64Array(6 * model.nvi[i]));
    this.g = Array.from({ length: nb }, () => new Float64Array(6));
    this.A = Array.from({ length: nb }, () => new Float64Array(6));
    this.u = new Float64Array(model.nv);
    this.onPath = new Int32Array(nb);
    this.W = new Float64Array(6 * inputs.m);
    this.treeFirst = new Int32Array(nb);
    this.treeEnd = new Int32Array(nb);
    for (let i = 0; i < nb; i++) {
      const p = model.parents[i];
      this.treeFirst[i] = p < 0 ? i : this.treeFirst[p];
      if (i > 0 && this.treeFirst[i] !== this.treeFirst[i - 1] && this.treeFirst[i] !== i) {
        throw new RangeError(`IIM: the bodies of model "${model.name}" are not numbered depth first (the root tree of body "${model.bodyNames[i]}" is not contiguous)`);
      }
      this.treeEnd[this.treeFirst[i]] = i + 1;
    }
    for (let i = 0; i < nb; i++) this.treeEnd[i] = this.treeEnd[this.treeFirst[i]];
  }
}

/** B̂ = M⁻¹B by the IIM, written into ws.Bhat (and q̈_0 into ws.qdd0). Pass qd = null for q̇ = 0. */
export function iwimIim(model: Model, ws: IwimIimWorkspace, q: ArrayLike<number>, qd: ArrayLike<number> | null): Float64Array {
  if (ws.model !== model) throw new RangeError('iwimIim: workspace was created for another model');
  checkConfiguration(model, q);
  if (qd !== null) checkVector(model, 'v', qd, false);
  checkForwardDynamicsDefined(model, 'M⁻¹B (IIM)');
  const fl = ws.flops;
  fl.reset();
  const B = ws.inputs, nb = model.nb, m = B.m;
  const aw = ws.aba;
  // the O(n) method once, without inputs: q̈_0 and the intermediate quantities
  ws.qdd0.set(abaUnchecked(model, aw, q, qd, ws.u.fill(0)));
  fl.accumulate(aw.kin.flops).accumulate(aw.flops);
  const Xup = aw.kin.Xup;
  // U_i D_i⁻¹
  for (let i = 0; i < nb; i++) {
    const ni = model.nvi[i], U = aw.U[i], Dinv = aw.Dinv[i], UD = ws.UD[i];
    mulUDinv(UD, U, Dinv, ni, fl);
  }
  if (B.nc > 0) contactWrenches(B, Xup, ws.contact, ws.W, fl);
  const { u, g, A, onPath, Bhat, t6 } = ws;
  Bhat.fill(0);
  for (let c = 0; c < m; c++) {
    const mark = c + 1;
    const b = B.body[c];
    // B* (16)–(17): walk from the input's body to the root
    let k: number;
    if (c < B.nJoint) {
      // joint input: S_bᵀ h*_b = e, reaction g_λ(b) = −ᵇX_λᵀ U_b D_b⁻¹ e
      const e = B.dof[c] - model.iv[b];
      for (let t = 0; t < model.nvi[b]; t++) u[model.iv[b] + t] = t === e ? 1 : 0;
      onPath[b] = mark;
      k = model.parents[b];
      if (k >= 0) {
        const UDb = ws.UD[b], w = ws.t6b;
        for (let r = 0; r < 6; r++) w[r] = -UDb[6 * e + r];
        xTransposeApplyForce(g[k], Xup[b], w, fl);
      }
    } else {
      // contact input: g_b = w
      const gb = g[b];
      for (let r = 0; r < 6; r++) gb[r] = ws.W[6 * c + r];
      k = b;
    }
    while (k >= 0) {
      const nk = model.nvi[k], ivk = model.iv[k], gk = g[k], p = model.parents[k];
      onPath[k] = mark;
      // u_k = S_kᵀ g_k
      setSTf(u, ivk, model.S[k], nk, gk, fl);
      if (p < 0) break;
      // g_λ = ᵏX_λᵀ (g_k − U_k D_k⁻¹ u_k)   (T*ᵀ, eq. 16)
      if (nk > 0) {
        const UD = ws.UD[k];
        for (let r = 0; r < 6; r++) {
          let acc = gk[r];
          for (let a = 0; a < nk; a++) acc -= UD[6 * a + r] * u[ivk + a];
          gk[r] = acc;
        }
        fl.mul += 6 * nk; fl.add += 6 * nk;
      }
      xTransposeApplyForce(g[p], Xup[k], gk, fl);
      k = p;
    }
    // eq. (27) recursively over the input's root tree
    const first = ws.treeFirst[b], end = ws.treeEnd[b];
    for (let i = first; i < end; i++) {
      const ni = model.nvi[i], iv = model.iv[i], p = model.parents[i];
      const hasKids = model.children[i].length > 0;
      if (ni === 0 && !hasKids) continue;
      const Ai = A[i];
      // a'_i = ⁱX_λ A_λ (zero at the root of the tree)
      const aPrime = p >= 0 ? xApplyMotion(Ai, Xup[i], A[p], fl) : ws.zero;
      if (ni === 0) {
        if (p < 0) Ai.fill(0);
        continue;
      }
      const UD = ws.UD[i], Dinv = aw.Dinv[i];
      const path = onPath[i] === mark;
      for (let a = 0; a < ni; a++) {
        // B̂[i, c] = D_i⁻¹ u_i − (U_i D_i⁻¹)ᵀ a'_i
        let acc = 0;
        if (path) {
          for (let t = 0; t < ni; t++) acc += Dinv[ni * a + t] * u[iv + t];
          fl.mul += ni; fl.add += ni - 1;
        }
        if (p >= 0) {
          for (let r = 0; r < 6; r++) acc -= UD[6 * a + r] * aPrime[r];
          fl.mul += 6; fl.add += path ? 6 : 5;
        }
        t6[a] = acc;
      }
      for (let a = 0; a < ni; a++) Bhat[(iv + a) * m + c] = t6[a];
      // A_i = a'_i + S_i B̂[i, c]
      if (hasKids) {
        if (p >= 0) addSx(Ai, model.S[i], ni, t6, 0, fl);
        else setSx(Ai, model.S[i], ni, t6, 0, fl);
      }
    }
  }
  return Bhat;
}
