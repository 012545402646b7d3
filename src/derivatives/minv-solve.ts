/**
 * X = −M⁻¹ B for an nv×nv right-hand side B (row-major), and M⁻¹ itself, by the articulated-body
 * factorization of M in world coordinates (`ArticulatedFactorWorld`, made from the world-frame
 * body inertias and columns J_i = ⁰X_i S_i of rnea-derivatives.ts):
 *
 *   i = N..1:  I^A_i = Y_i + Σ_children I^a_c,  U_i = I^A_i J_i,  D_i = J_iᵀ U_i,  I^a_i = I^A_i − U_i D_i⁻¹ U_iᵀ
 *
 * (no transform per body: every inertia is about the world origin). Per column of B these are ABA's
 * passes with q̇ = 0, a_g = 0 and the torques of that column (Featherstone, RBDA §7.3; Carpentier &
 * Mansard, RSS 2018, for ∂q̈/∂x = −M⁻¹ ∂τ/∂x):
 *
 *   backward (i = N..1):  u_i = −b_i − J_iᵀ p_i,   w_i = D_i⁻¹ u_i,   p_λ += p_i + (U_i D_i⁻¹) u_i
 *   forward  (i = 1..N):  x_i = w_i − (U_i D_i⁻¹)ᵀ a_λ,   a_i = a_λ + J_i x_i
 *
 * (p_i = 0 for a leaf, a_λ = 0 for a root; a leaf's a_i is not needed). All columns are carried
 * together, each pass looping over them contiguously: O(nv · Σ_i depth), never a dense n³ product.
 * For M⁻¹ (B = −1) only the columns that can be nonzero are visited: the subtree's in the backward
 * pass, the upper triangle in the forward pass (M⁻¹ is symmetric: the lower one is mirrored), as in
 * Carpentier's M⁻¹. Bodies must be numbered depth first (subtrees are contiguous column ranges).
 * Nothing is allocated per call.
 */
import { SingularJointInertiaError } from '../algorithms/validate.ts';
import type { Model } from '../model/model.ts';
import type { Flops } from '../spatial/flops.ts';
import { inertiaToMatrix } from '../spatial/inertia.ts';
import { mulUDinv, spdInvertInPlace } from '../spatial/smallmat.ts';
import { MinvSolveCode } from './minv-solve-code.ts';

/** The articulated-body factorization of M in world coordinates (see the file's comment). */
export class ArticulatedFactorWorld {
  /** I^A_i (6×6 row-major, world) */
  readonly IA: Float64Array[];
  /** U_i = I^A_i J_i (6×nv_i column-major), D_i⁻¹ (nv_i×nv_i row-major), U_i D_i⁻¹ (6×nv_i column-major) */
  readonly U: Float64Array[];
  readonly Dinv: Float64Array[];
  readonly UD: Float64Array[];
  private readonly w36 = new Float64Array(36);

  constructor(readonly model: Model) {
    const nb = model.nb;
    const mk = (n: (i: number) => number) => Array.from({ length: nb }, (_, i) => new Float64Array(n(i)));
    this.IA = mk(() => 36);
    this.U = mk((i) => 6 * model.nvi[i]);
    this.Dinv = mk((i) => model.nvi[i] * model.nvi[i]);
    this.UD = mk((i) => 6 * model.nvi[i]);
  }

  /** factor at the world body inertias Y (10 numbers each) and columns J (6 per column). Allocation free. */
  factor(Y: readonly Float64Array[], J: Float64Array, fl: Flops): void {
    const model = this.model, nb = model.nb;
    for (let i = 0; i < nb; i++) inertiaToMatrix(this.IA[i], Y[i]);
    for (let i = nb - 1; i >= 0; i--) {
      const ni = model.nvi[i], iv = model.iv[i], p = model.parents[i], IA = this.IA[i];
      const U = this.U[i], Dinv = this.Dinv[i], UD = this.UD[i];
      if (ni > 0) {
        for (let c = 0; c < ni; c++) {
          const oj = 6 * (iv + c);
          const j0 = J[oj], j1 = J[oj + 1], j2 = J[oj + 2], j3 = J[oj + 3], j4 = J[oj + 4], j5 = J[oj + 5];
          for (let r = 0; r < 6; r++) {
            const o = 6 * r;
            U[6 * c + r] = IA[o] * j0 + IA[o + 1] * j1 + IA[o + 2] * j2 + IA[o + 3] * j3 + IA[o + 4] * j4 + IA[o + 5] * j5;
          }
        }
        fl.mul += 36 * ni; fl.add += 30 * ni;
        for (let a = 0; a < ni; a++) {
          for (let b = 0; b < ni; b++) {
            let acc = 0;
            for (let r = 0; r < 6; r++) acc += J[6 * (iv + a) + r] * U[6 * b + r];
            Dinv[ni * a + b] = acc;
          }
        }
        fl.mul += 6 * ni * ni; fl.add += 5 * ni * ni;
        if (!spdInvertInPlace(Dinv, ni, this.w36, fl)) throw new SingularJointInertiaError(model.jointNames[i], model.bodyNames[i], 'the recursive derivatives of forward dynamics');
        mulUDinv(UD, U, Dinv, ni, fl);
      }
      if (p < 0) continue;
      // I^A_λ += I^A_i − (U D⁻¹) Uᵀ (upper triangle, mirrored)
      const P = this.IA[p];
      for (let r = 0; r < 6; r++) {
        for (let c = r; c < 6; c++) {
          let acc = IA[6 * r + c];
          for (let k = 0; k < ni; k++) acc -= UD[6 * k + r] * U[6 * k + c];
          P[6 * r + c] += acc;
          if (c !== r) P[6 * c + r] = P[6 * r + c];
        }
      }
      fl.mul += 21 * ni; fl.add += 21 * (ni + 1);
    }
  }
}


export class MinvSolveWorkspace {
  /**
   * p_i (backward), then a_i (forward): 6 rows of nv columns per body with children. A body's last
   * child (in depth-first numbering, the first child the backward pass meets and the last the
   * forward pass meets) shares its parent's buffer: p_λ starts as that child's p^a, a_child
   * overwrites a_λ when no other child needs it any more. A chain needs one buffer in all.
   */
  readonly pa: (Float64Array | null)[];
  /** 1 when body i shares its parent's buffer */
  readonly shared: Uint8Array;
  /** first column after subtree(i): subtree(i) = [iv_i, ivEnd_i) */
  readonly ivEnd: Int32Array;
  /** the passes as generated WebAssembly (minv-solve-code.ts), or null: the JavaScript below */
  readonly code: MinvSolveCode | null;
  /** minvSolveVector: p_i then a_i (6 per body), u (6), scratch */
  private readonly pv: Float64Array;
  private readonly u6 = new Float64Array(6);

  /** `compile` false: always the JavaScript passes (for comparisons) */
  constructor(readonly model: Model, compile = true) {
    const nv = model.nv, nb = model.nb;
    this.pa = new Array<Float64Array | null>(nb).fill(null);
    this.shared = new Uint8Array(nb);
    for (let i = 0; i < nb; i++) {
      const kids = model.children[i];
      if (kids.length === 0) continue;
      const p = model.parents[i];
      const last = p >= 0 ? model.children[p][model.children[p].length - 1] : -1;
      if (p >= 0 && last === i && this.pa[p]) { this.pa[i] = this.pa[p]; this.shared[i] = 1; }
      else this.pa[i] = new Float64Array(6 * nv);
    }
    const lastBody = Int32Array.from({ length: nb }, (_, i) => i);
    const size = new Int32Array(nb).fill(1);
    for (let i = nb - 1; i >= 0; i--) {
      const p = model.parents[i];
      if (p < 0) continue;
      if (lastBody[i] > lastBody[p]) lastBody[p] = lastBody[i];
      size[p] += size[i];
    }
    this.ivEnd = new Int32Array(nb);
    for (let i = 0; i < nb; i++) {
      if (lastBody[i] - i + 1 !== size[i]) {
        throw new RangeError(`the recursive derivatives of forward dynamics: the bodies of model "${model.name}" are not numbered depth first (the subtree of body "${model.bodyNames[i]}" is not contiguous)`);
      }
      const e = lastBody[i] + 1;
      this.ivEnd[i] = e < nb ? model.iv[e] : nv;
    }
    this.code = compile ? MinvSolveCode.create(model, this) : null;
    this.pv = new Float64Array(6 * nb);
  }

  /**
   * x = M⁻¹ r for one vector r (length nv) by the same factorization's passes (the file's comment,
   * with r for −b): O(Σ n_i²) work. Allocation free.
   */
  solveVector(fac: ArticulatedFactorWorld, J: Float64Array, r: ArrayLike<number>, x: Float64Array, fl: Flops): void {
    const model = this.model, nb = model.nb, parents = model.parents, P = this.pv, u = this.u6;
    P.fill(0);
    // backward: u_i = r_i − J_iᵀ p_i, p_λ += p_i + (U D⁻¹) u_i, x_i = D_i⁻¹ u_i
    for (let i = nb - 1; i >= 0; i--) {
      const ni = model.nvi[i], iv = model.iv[i], p = parents[i], o = 6 * i;
      const p0 = P[o], p1 = P[o + 1], p2 = P[o + 2], p3 = P[o + 3], p4 = P[o + 4], p5 = P[o + 5];
      for (let c = 0; c < ni; c++) {
        const oj = 6 * (iv + c);
        u[c] = r[iv + c] - (J[oj] * p0 + J[oj + 1] * p1 + J[oj + 2] * p2 + J[oj + 3] * p3 + J[oj + 4] * p4 + J[oj + 5] * p5);
      }
      fl.mul += 6 * ni; fl.add += 6 * ni;
      if (p >= 0) {
        const UD = fac.UD[i], op = 6 * p;
        for (let rr = 0; rr < 6; rr++) {
          let acc = P[o + rr];
          for (let c = 0; c < ni; c++) acc += UD[6 * c + rr] * u[c];
          P[op + rr] += acc;
        }
        fl.mul += 6 * ni; fl.add += 6 * (ni + 1);
      }
      const D = fac.Dinv[i];
      for (let a = 0; a < ni; a++) {
        let acc = 0;
        for (let c = 0; c < ni; c++) acc += D[ni * a + c] * u[c];
        x[iv + a] = acc;
      }
      fl.mul += ni * ni; fl.add += ni * (ni - 1);
    }
    // forward: x_i −= (U D⁻¹)ᵀ a_λ, a_i = a_λ + J_i x_i (a_i in P, over p_i)
    for (let i = 0; i < nb; i++) {
      const ni = model.nvi[i], iv = model.iv[i], p = parents[i], o = 6 * i;
      if (p >= 0) {
        const UD = fac.UD[i], op = 6 * p;
        const a0 = P[op], a1 = P[op + 1], a2 = P[op + 2], a3 = P[op + 3], a4 = P[op + 4], a5 = P[op + 5];
        for (let c = 0; c < ni; c++) {
          const oc = 6 * c;
          x[iv + c] -= UD[oc] * a0 + UD[oc + 1] * a1 + UD[oc + 2] * a2 + UD[oc + 3] * a3 + UD[oc + 4] * a4 + UD[oc + 5] * a5;
        }
        fl.mul += 6 * ni; fl.add += 6 * ni;
        for (let rr = 0; rr < 6; rr++) P[o + rr] = P[op + rr];
      } else {
        for (let rr = 0; rr < 6; rr++) P[o + rr] = 0;
      }
      for (let c = 0; c < ni; c++) {
        const oj = 6 * (iv + c), xc = x[iv + c];
        for (let rr = 0; rr < 6; rr++) P[o + rr] += J[oj + rr] * xc;
      }
      fl.mul += 6 * ni; fl.add += 6 * ni;
    }
  }
}

/**
 * X = −M⁻¹ B (both nv×nv row-major; X must not alias B), or X = M⁻¹ for B = null, given the
 * factorization and J (6 numbers per column, world). Allocation free.
 */
export function negMinvSolve(model: Model, ws: MinvSolveWorkspace, fac: ArticulatedFactorWorld, J: Float64Array, B: Float64Array | null, X: Float64Array, fl: Flops): void {
  if (ws.code !== null) {
    ws.code.run(fac, J, B, X, fl);
    return;
  }
  const nb = model.nb, nv = model.nv, parents = model.parents;
  const pa = ws.pa, shared = ws.shared, inv = B === null;
  for (let i = 0; i < nb; i++) if (pa[i] && !shared[i]) pa[i]!.fill(0);
  const n2 = 2 * nv, n3 = 3 * nv, n4 = 4 * nv, n5 = 5 * nv;
  // backward
  for (let i = nb - 1; i >= 0; i--) {
    const ni = model.nvi[i], iv = model.iv[i], p = parents[i], pi = pa[i];
    const pp = p >= 0 ? pa[p] : null;
    const alias = pi !== null && pi === pp;
    if (ni === 0) {
      if (pi && pp && !alias) { for (let e = 0; e < 6 * nv; e++) pp[e] += pi[e]; fl.add += 6 * nv; }
      continue;
    }
    // the columns visited: all, or for M⁻¹ the subtree's (the others of p_i and of the right-hand side are 0)
    const k0 = inv ? iv : 0, k1 = inv ? ws.ivEnd[i] : nv, nk = k1 - k0;
    // X's rows of joint i receive −b (negation: no flop; for M⁻¹ the unit columns, and 0 right of the subtree)
    for (let c = 0; c < ni; c++) {
      const ro = (iv + c) * nv;
      if (inv) {
        for (let k = k0; k < nv; k++) X[ro + k] = 0;
        X[ro + iv + c] = 1;
      } else {
        for (let k = 0; k < nv; k++) X[ro + k] = -B![ro + k];
      }
    }
    if (ni === 1 && pp) {
      // fused: u = −b − J·p_i, w = D⁻¹ u, p_λ (+)= p_i + (U D⁻¹) u
      const oj = 6 * iv, ro = iv * nv, d = fac.Dinv[i][0], UD = fac.UD[i];
      const s0 = UD[0], s1 = UD[1], s2 = UD[2], s3 = UD[3], s4 = UD[4], s5 = UD[5];
      if (pi) {
        const j0 = J[oj], j1 = J[oj + 1], j2 = J[oj + 2], j3 = J[oj + 3], j4 = J[oj + 4], j5 = J[oj + 5];
        if (alias) {
          for (let k = k0; k < k1; k++) {
            // p_i read once (the store to X would otherwise make the engine load it again)
            const p0 = pi[k], p1 = pi[nv + k], p2 = pi[n2 + k], p3 = pi[n3 + k], p4 = pi[n4 + k], p5 = pi[n5 + k];
            const u = X[ro + k] - (j0 * p0 + j1 * p1 + j2 * p2 + j3 * p3 + j4 * p4 + j5 * p5);
            X[ro + k] = d * u;
            pi[k] = p0 + s0 * u; pi[nv + k] = p1 + s1 * u; pi[n2 + k] = p2 + s2 * u; pi[n3 + k] = p3 + s3 * u; pi[n4 + k] = p4 + s4 * u; pi[n5 + k] = p5 + s5 * u;
          }
          fl.mul += 13 * nk; fl.add += 12 * nk;
        } else {
          for (let k = k0; k < k1; k++) {
            const p0 = pi[k], p1 = pi[nv + k], p2 = pi[n2 + k], p3 = pi[n3 + k], p4 = pi[n4 + k], p5 = pi[n5 + k];
            const u = X[ro + k] - (j0 * p0 + j1 * p1 + j2 * p2 + j3 * p3 + j4 * p4 + j5 * p5);
            X[ro + k] = d * u;
            pp[k] += p0 + s0 * u; pp[nv + k] += p1 + s1 * u; pp[n2 + k] += p2 + s2 * u;
            pp[n3 + k] += p3 + s3 * u; pp[n4 + k] += p4 + s4 * u; pp[n5 + k] += p5 + s5 * u;
          }
          fl.mul += 13 * nk; fl.add += 18 * nk;
        }
      } else {
        for (let k = k0; k < k1; k++) {
          const u = X[ro + k];
          X[ro + k] = d * u;
          pp[k] += s0 * u; pp[nv + k] += s1 * u; pp[n2 + k] += s2 * u; pp[n3 + k] += s3 * u; pp[n4 + k] += s4 * u; pp[n5 + k] += s5 * u;
        }
        fl.mul += 7 * nk; fl.add += 6 * nk;
      }
      continue;
    }
    // general: u_c = −b_c − J_cᵀ p_i in X's rows
    if (pi) {
      for (let c = 0; c < ni; c++) {
        const ro = (iv + c) * nv, oj = 6 * (iv + c);
        const j0 = J[oj], j1 = J[oj + 1], j2 = J[oj + 2], j3 = J[oj + 3], j4 = J[oj + 4], j5 = J[oj + 5];
        for (let k = k0; k < k1; k++) {
          X[ro + k] -= j0 * pi[k] + j1 * pi[nv + k] + j2 * pi[n2 + k] + j3 * pi[n3 + k] + j4 * pi[n4 + k] + j5 * pi[n5 + k];
        }
      }
      fl.mul += 6 * ni * nk; fl.add += 6 * ni * nk;
    }
    // p_λ (+)= p_i + (U D⁻¹) u
    if (pp) {
      const UD = fac.UD[i];
      for (let r = 0; r < 6; r++) {
        const ro = r * nv;
        for (let c = 0; c < ni; c++) {
          const sc = UD[6 * c + r], xo = (iv + c) * nv;
          for (let k = k0; k < k1; k++) pp[ro + k] += sc * X[xo + k];
        }
        if (pi && !alias) for (let k = k0; k < k1; k++) pp[ro + k] += pi[ro + k];
      }
      fl.mul += 6 * ni * nk; fl.add += 6 * nk * (ni + (pi && !alias ? 1 : 0));
    }
    // w = D⁻¹ u in place
    const D = fac.Dinv[i];
    if (ni === 1) {
      const d = D[0], ro = iv * nv;
      for (let k = k0; k < k1; k++) X[ro + k] *= d;
      fl.mul += nk;
    } else {
      const ro = iv * nv;
      for (let k = k0; k < k1; k++) {
        let u2 = 0, u3 = 0, u4 = 0, u5 = 0;
        const u0 = X[ro + k], u1 = X[ro + nv + k];
        if (ni > 2) u2 = X[ro + n2 + k];
        if (ni > 3) u3 = X[ro + n3 + k];
        if (ni > 4) u4 = X[ro + n4 + k];
        if (ni > 5) u5 = X[ro + n5 + k];
        for (let a = 0; a < ni; a++) {
          const o = ni * a;
          let sum = D[o] * u0 + D[o + 1] * u1;
          if (ni > 2) sum += D[o + 2] * u2;
          if (ni > 3) sum += D[o + 3] * u3;
          if (ni > 4) sum += D[o + 4] * u4;
          if (ni > 5) sum += D[o + 5] * u5;
          X[ro + a * nv + k] = sum;
        }
      }
      fl.mul += ni * ni * nk; fl.add += ni * (ni - 1) * nk;
    }
  }
  // forward
  for (let i = 0; i < nb; i++) {
    const ni = model.nvi[i], iv = model.iv[i], p = parents[i], ai = pa[i];
    const ap = p >= 0 ? pa[p] : null;
    const alias = ai !== null && ai === ap;
    // the columns visited: all, or for M⁻¹ the upper triangle's
    const k0 = inv ? iv : 0, nk = nv - k0;
    if (ni === 0) {
      if (ai && !alias) {
        if (ap) ai.set(ap); else ai.fill(0);
      }
      continue;
    }
    if (ni === 1 && ap) {
      // fused: x = w − (U D⁻¹)ᵀ a_λ, a_i = a_λ + J x
      const oj = 6 * iv, ro = iv * nv, UD = fac.UD[i];
      const s0 = UD[0], s1 = UD[1], s2 = UD[2], s3 = UD[3], s4 = UD[4], s5 = UD[5];
      if (ai) {
        const j0 = J[oj], j1 = J[oj + 1], j2 = J[oj + 2], j3 = J[oj + 3], j4 = J[oj + 4], j5 = J[oj + 5];
        for (let k = k0; k < nv; k++) {
          const b0 = ap[k], b1 = ap[nv + k], b2 = ap[n2 + k], b3 = ap[n3 + k], b4 = ap[n4 + k], b5 = ap[n5 + k];
          const x = X[ro + k] - (s0 * b0 + s1 * b1 + s2 * b2 + s3 * b3 + s4 * b4 + s5 * b5);
          X[ro + k] = x;
          ai[k] = b0 + j0 * x; ai[nv + k] = b1 + j1 * x; ai[n2 + k] = b2 + j2 * x;
          ai[n3 + k] = b3 + j3 * x; ai[n4 + k] = b4 + j4 * x; ai[n5 + k] = b5 + j5 * x;
        }
        fl.mul += 12 * nk; fl.add += 12 * nk;
      } else {
        for (let k = k0; k < nv; k++) {
          X[ro + k] -= s0 * ap[k] + s1 * ap[nv + k] + s2 * ap[n2 + k] + s3 * ap[n3 + k] + s4 * ap[n4 + k] + s5 * ap[n5 + k];
        }
        fl.mul += 6 * nk; fl.add += 6 * nk;
      }
      continue;
    }
    // general: x = w − (U D⁻¹)ᵀ a_λ
    if (ap) {
      const UD = fac.UD[i];
      for (let c = 0; c < ni; c++) {
        const o = 6 * c, xo = (iv + c) * nv;
        const s0 = UD[o], s1 = UD[o + 1], s2 = UD[o + 2], s3 = UD[o + 3], s4 = UD[o + 4], s5 = UD[o + 5];
        for (let k = k0; k < nv; k++) {
          X[xo + k] -= s0 * ap[k] + s1 * ap[nv + k] + s2 * ap[n2 + k] + s3 * ap[n3 + k] + s4 * ap[n4 + k] + s5 * ap[n5 + k];
        }
      }
      fl.mul += 6 * ni * nk; fl.add += 6 * ni * nk;
    }
    // a_i = a_λ + J x (bodies with children only; in place when a_i shares a_λ's buffer)
    if (ai) {
      for (let r = 0; r < 6; r++) {
        const ro = r * nv;
        for (let c = 0; c < ni; c++) {
          const sc = J[6 * (iv + c) + r], xo = (iv + c) * nv;
          if (c === 0 && ap && !alias) for (let k = k0; k < nv; k++) ai[ro + k] = ap[ro + k] + sc * X[xo + k];
          else if (c === 0 && !ap) for (let k = k0; k < nv; k++) ai[ro + k] = sc * X[xo + k];
          else for (let k = k0; k < nv; k++) ai[ro + k] += sc * X[xo + k];
        }
      }
      fl.mul += 6 * ni * nk; fl.add += 6 * nk * (ni - 1 + (ap ? 1 : 0));
    }
  }
  if (inv) {
    // the lower triangle: M⁻¹[r, k] = M⁻¹[k, r] for k < iv of r's joint
    for (let i = 0; i < nb; i++) {
      const iv = model.iv[i];
      for (let c = 0; c < model.nvi[i]; c++) {
        const r = iv + c;
        for (let k = 0; k < iv; k++) X[r * nv + k] = X[k * nv + r];
      }
    }
  }
}
