/**
 * CRBA in world coordinates: the joint-space inertia matrix M(q) as `crba` computes it (RBDA Table
 * 6.2), with the composite inertias and the motion subspaces expressed in the world frame, as
 * Pinocchio's `crba(…, Convention::WORLD)` does:
 *
 *   ⁰R_i = ⁰R_λ ⁱE_λᵀ,  ⁰p_i = ⁰p_λ + ⁰R_λ r_i                       (each body's pose)
 *   ⁰I_i = the rigid inertia I_i about the world origin, in world axes;  ⁰I^c_λ += ⁰I^c_i
 *   ⁰S_i = ⁰X_i S_i
 *   for i: F = ⁰I^c_i ⁰S_i;  M_ji = ⁰S_jᵀ F for j = i and each ancestor of i
 *
 * The local algorithm carries F up the tree, one spatial transform per (column, ancestor) pair (42
 * flops); here F stays where it is, and each pair is one 6-term dot product (11 flops): on long
 * chains, whose pairs grow as n², the world form does a quarter of the work (a 384-link chain: 3.1
 * million flops against 0.8 million in the pairs). The composite inertias are plain sums (no
 * congruence), each body's inertia taken to the world once.
 *
 * Same matrix as `crba` to rounding (the sums are taken in another order; tested against it and
 * against RNEA: M q̈ = RNEA(q, 0, q̈) − RNEA(q, 0, 0)). With `triangle = 'lower'` only the lower
 * triangle (row ≥ column) is written, as `crba` does, and the strictly upper one is left as it was
 * (also on branched trees). In world coordinates the inertias grow as m |p|² with the distance |p|
 * of a body from the world's origin: M loses digits as the robot moves away from it (the humanoid's
 * M, against the local CRBA's: 2e-16 relative at the origin, 3e-12 100 m away, 2e-10 at 1 km).
 * Allocation free.
 */
import type { Model } from '../model/model.ts';
import { jcalc } from '../model/jcalc.ts';
import { Flops } from '../spatial/flops.ts';
import { checkConfiguration } from './validate.ts';

/** Everything one world-frame CRBA call computes: made once per model and reused; `crbaWorld` writes M(q) into `M`. */
export class CrbaWorldWorkspace {
  /** ⁱX_λ(i) of the last call (E row-major, then r: 12 per body) */
  readonly X: Float64Array;
  /** each body's ⁱX_λ(i) (views of X) */
  readonly Xup: Float64Array[];
  /** ⁰R_i: each body's orientation in the world (row-major, 9 per body) */
  readonly R: Float64Array;
  /** ⁰p_i: each body's origin in the world (3 per body) */
  readonly p: Float64Array;
  /** ⁰I^c_i: composite rigid inertia of the subtree rooted at body i, about the world origin in world axes (m, h, Ī: 10 per body) */
  readonly Ic: Float64Array;
  /** ⁰S: each DoF's motion subspace column in world coordinates (6 per DoF) */
  readonly S: Float64Array;
  /**
   * the DoF before each DoF up the tree: the previous DoF of the same joint, else the last DoF of the
   * nearest ancestor joint that has DoFs, else −1 (a column's ancestors' DoFs are walked by it)
   */
  readonly up: Int32Array;
  /** whether some body has two children or the model two roots (M then has structural zeros, cleared at each call) */
  readonly branched: boolean;
  /** M(q): joint-space inertia, nv×nv row-major (output) */
  readonly M: Float64Array;
  /** flops of the last call (jcalc included) */
  readonly flops = new Flops();

  constructor(readonly model: Model) {
    const nb = model.nb;
    this.X = new Float64Array(12 * nb);
    this.Xup = Array.from({ length: nb }, (_, i) => this.X.subarray(12 * i, 12 * i + 12));
    this.R = new Float64Array(9 * nb);
    this.p = new Float64Array(3 * nb);
    this.Ic = new Float64Array(10 * nb);
    this.S = new Float64Array(6 * model.nv);
    const children = new Int32Array(nb);
    let roots = 0;
    for (let i = 0; i < nb; i++) {
      if (model.parents[i] >= 0) children[model.parents[i]]++;
      else roots++;
    }
    this.branched = roots > 1 || children.some((c) => c > 1);
    this.up = new Int32Array(model.nv);
    for (let i = 0; i < nb; i++) {
      let last = -1;
      for (let j = model.parents[i]; j >= 0 && last < 0; j = model.parents[j]) if (model.nvi[j] > 0) last = model.iv[j] + model.nvi[j] - 1;
      for (let k = 0; k < model.nvi[i]; k++) this.up[model.iv[i] + k] = k > 0 ? model.iv[i] + k - 1 : last;
    }
    this.M = new Float64Array(model.nv * model.nv);
  }
}

/** M(q) by the composite-rigid-body algorithm in world coordinates, written into and returned as ws.M (both triangles, or the lower one). Allocation free. */
export function crbaWorld(model: Model, ws: CrbaWorldWorkspace, q: ArrayLike<number>, triangle: 'full' | 'lower' = 'full'): Float64Array {
  if (ws.model !== model) throw new RangeError('crbaWorld: workspace was created for another model');
  checkConfiguration(model, q);
  const fl = ws.flops;
  fl.reset();
  const nb = model.nb, nv = model.nv, parents = model.parents, ivs = model.iv, nvis = model.nvi;
  const X = ws.X, R = ws.R, P = ws.p, IC = ws.Ic, SW = ws.S, M = ws.M, up = ws.up, both = triangle === 'full';
  // structural zeros (entries of two DoFs neither of which is above the other): cleared, in the triangle written
  if (ws.branched) {
    if (both) M.fill(0);
    else for (let r = 0; r < nv; r++) M.fill(0, r * nv, r * nv + r + 1);
  }
  let mul = 0, add = 0;
  // poses, world inertias, world motion subspaces (body after body: parents come first)
  for (let i = 0; i < nb; i++) {
    const xo = 12 * i, ro = 9 * i, po = 3 * i;
    jcalc(ws.Xup[i], model, i, q, fl);
    const e0 = X[xo], e1 = X[xo + 1], e2 = X[xo + 2], e3 = X[xo + 3], e4 = X[xo + 4], e5 = X[xo + 5], e6 = X[xo + 6], e7 = X[xo + 7], e8 = X[xo + 8];
    const r0 = X[xo + 9], r1 = X[xo + 10], r2 = X[xo + 11];
    const lam = parents[i];
    let a0, a1, a2, a3, a4, a5, a6, a7, a8, p0, p1, p2;
    if (lam < 0) {
      // ⁰R_i = Eᵀ, ⁰p_i = r
      a0 = e0; a1 = e3; a2 = e6; a3 = e1; a4 = e4; a5 = e7; a6 = e2; a7 = e5; a8 = e8;
      p0 = r0; p1 = r1; p2 = r2;
    } else {
      const lo = 9 * lam, lp = 3 * lam;
      const b0 = R[lo], b1 = R[lo + 1], b2 = R[lo + 2], b3 = R[lo + 3], b4 = R[lo + 4], b5 = R[lo + 5], b6 = R[lo + 6], b7 = R[lo + 7], b8 = R[lo + 8];
      // ⁰R_i = ⁰R_λ Eᵀ: entry (a, b) = Σ_c R_λ[a][c] E[b][c]
      a0 = b0 * e0 + b1 * e1 + b2 * e2; a1 = b0 * e3 + b1 * e4 + b2 * e5; a2 = b0 * e6 + b1 * e7 + b2 * e8;
      a3 = b3 * e0 + b4 * e1 + b5 * e2; a4 = b3 * e3 + b4 * e4 + b5 * e5; a5 = b3 * e6 + b4 * e7 + b5 * e8;
      a6 = b6 * e0 + b7 * e1 + b8 * e2; a7 = b6 * e3 + b7 * e4 + b8 * e5; a8 = b6 * e6 + b7 * e7 + b8 * e8;
      // ⁰p_i = ⁰p_λ + ⁰R_λ r
      p0 = P[lp] + (b0 * r0 + b1 * r1 + b2 * r2);
      p1 = P[lp + 1] + (b3 * r0 + b4 * r1 + b5 * r2);
      p2 = P[lp + 2] + (b6 * r0 + b7 * r1 + b8 * r2);
      mul += 27 + 9; add += 18 + 9;
    }
    R[ro] = a0; R[ro + 1] = a1; R[ro + 2] = a2; R[ro + 3] = a3; R[ro + 4] = a4; R[ro + 5] = a5; R[ro + 6] = a6; R[ro + 7] = a7; R[ro + 8] = a8;
    P[po] = p0; P[po + 1] = p1; P[po + 2] = p2;
    // the body's inertia about the world origin in world axes: h_r = R h, Ī_r = R Ī Rᵀ about the body's
    // origin; moved to the world origin (parallel axes, by the first moment: no division by the mass)
    //   h⁰ = m p + h_r,  Ī⁰ = Ī_r − (p h_rᵀ + h_r pᵀ) + 2 (h_r·p) 1 + m (|p|² 1 − p pᵀ)
    const I = model.I[i], o = 10 * i;
    const m = I[0], hx = I[1], hy = I[2], hz = I[3];
    const Ixx = I[4], Ixy = I[5], Ixz = I[6], Iyy = I[7], Iyz = I[8], Izz = I[9];
    const h0 = a0 * hx + a1 * hy + a2 * hz, h1 = a3 * hx + a4 * hy + a5 * hz, h2 = a6 * hx + a7 * hy + a8 * hz;
    // T = R Ī (row-major), then Ī_r = T Rᵀ (upper triangle)
    const t0 = a0 * Ixx + a1 * Ixy + a2 * Ixz, t1 = a0 * Ixy + a1 * Iyy + a2 * Iyz, t2 = a0 * Ixz + a1 * Iyz + a2 * Izz;
    const t3 = a3 * Ixx + a4 * Ixy + a5 * Ixz, t4 = a3 * Ixy + a4 * Iyy + a5 * Iyz, t5 = a3 * Ixz + a4 * Iyz + a5 * Izz;
    const t6 = a6 * Ixx + a7 * Ixy + a8 * Ixz, t7 = a6 * Ixy + a7 * Iyy + a8 * Iyz, t8 = a6 * Ixz + a7 * Iyz + a8 * Izz;
    const s00 = t0 * a0 + t1 * a1 + t2 * a2, s01 = t0 * a3 + t1 * a4 + t2 * a5, s02 = t0 * a6 + t1 * a7 + t2 * a8;
    const s11 = t3 * a3 + t4 * a4 + t5 * a5, s12 = t3 * a6 + t4 * a7 + t5 * a8, s22 = t6 * a6 + t7 * a7 + t8 * a8;
    const hp = h0 * p0 + h1 * p1 + h2 * p2, pp = p0 * p0 + p1 * p1 + p2 * p2;
    const d = 2 * hp + m * pp;
    IC[o] = m;
    IC[o + 1] = m * p0 + h0; IC[o + 2] = m * p1 + h1; IC[o + 3] = m * p2 + h2;
    IC[o + 4] = s00 - 2 * (p0 * h0) + d - m * (p0 * p0);
    IC[o + 5] = s01 - (p0 * h1 + h0 * p1) - m * (p0 * p1);
    IC[o + 6] = s02 - (p0 * h2 + h0 * p2) - m * (p0 * p2);
    IC[o + 7] = s11 - 2 * (p1 * h1) + d - m * (p1 * p1);
    IC[o + 8] = s12 - (p1 * h2 + h1 * p2) - m * (p1 * p2);
    IC[o + 9] = s22 - 2 * (p2 * h2) + d - m * (p2 * p2);
    // h_r 9+6, T 27+18, Ī_r 18+12, hp and pp 6+4, d 2+1, h⁰ 3+3, diagonal 3×(4 mul, 3 add), off-diagonal 3×(4 mul, 3 add)
    mul += 9 + 27 + 18 + 6 + 2 + 3 + 12 + 12; add += 6 + 18 + 12 + 4 + 1 + 3 + 9 + 9;
    // ⁰S of the joint's DoFs: ω⁰ = R ω, v⁰ = R v + p × ω⁰
    const Si = model.S[i];
    for (let k = 0; k < nvis[i]; k++) {
      const so = 6 * k, wo = 6 * (ivs[i] + k);
      const w0 = Si[so], w1 = Si[so + 1], w2 = Si[so + 2], v0 = Si[so + 3], v1 = Si[so + 4], v2 = Si[so + 5];
      const x0 = a0 * w0 + a1 * w1 + a2 * w2, x1 = a3 * w0 + a4 * w1 + a5 * w2, x2 = a6 * w0 + a7 * w1 + a8 * w2;
      SW[wo] = x0; SW[wo + 1] = x1; SW[wo + 2] = x2;
      SW[wo + 3] = a0 * v0 + a1 * v1 + a2 * v2 + (p1 * x2 - p2 * x1);
      SW[wo + 4] = a3 * v0 + a4 * v1 + a5 * v2 + (p2 * x0 - p0 * x2);
      SW[wo + 5] = a6 * v0 + a7 * v1 + a8 * v2 + (p0 * x1 - p1 * x0);
      mul += 24; add += 18;
    }
  }
  // composite inertias: plain sums, from the leaves
  for (let i = nb - 1; i >= 0; i--) {
    const lam = parents[i];
    if (lam < 0) continue;
    const o = 10 * i, l = 10 * lam;
    for (let k = 0; k < 10; k++) IC[l + k] += IC[o + k];
    add += 10;
  }
  // columns: F = ⁰I^c_i ⁰S_col, then M_r,col = ⁰S_rᵀ F for the DoFs r of joint i (r ≥ col) and of each ancestor
  for (let i = 0; i < nb; i++) {
    const o = 10 * i;
    const m = IC[o], hx = IC[o + 1], hy = IC[o + 2], hz = IC[o + 3];
    const Ixx = IC[o + 4], Ixy = IC[o + 5], Ixz = IC[o + 6], Iyy = IC[o + 7], Iyz = IC[o + 8], Izz = IC[o + 9];
    const ni = nvis[i], iv = ivs[i];
    for (let k = 0; k < ni; k++) {
      const col = iv + k, so = 6 * col;
      const w0 = SW[so], w1 = SW[so + 1], w2 = SW[so + 2], v0 = SW[so + 3], v1 = SW[so + 4], v2 = SW[so + 5];
      // F = I s: n = Ī ω + h × v, f = m v − h × ω (inertiaMulMotion)
      const n0 = Ixx * w0 + Ixy * w1 + Ixz * w2 + (hy * v2 - hz * v1);
      const n1 = Ixy * w0 + Iyy * w1 + Iyz * w2 + (hz * v0 - hx * v2);
      const n2 = Ixz * w0 + Iyz * w1 + Izz * w2 + (hx * v1 - hy * v0);
      const f0 = m * v0 - (hy * w2 - hz * w1);
      const f1 = m * v1 - (hz * w0 - hx * w2);
      const f2 = m * v2 - (hx * w1 - hy * w0);
      mul += 24; add += 18;
      // this joint's block: rows col … iv + ni − 1
      for (let r = col; r < iv + ni; r++) {
        const s = 6 * r;
        const val = SW[s] * n0 + SW[s + 1] * n1 + SW[s + 2] * n2 + SW[s + 3] * f0 + SW[s + 4] * f1 + SW[s + 5] * f2;
        M[r * nv + col] = val;
        if (both) M[col * nv + r] = val;
        mul += 6; add += 5;
      }
      // the ancestors' DoFs r < col (walked up the tree): row col of the lower triangle
      const rowAt = col * nv;
      let pairs = 0;
      for (let r = up[iv]; r >= 0; r = up[r]) {
        const s = 6 * r;
        const val = SW[s] * n0 + SW[s + 1] * n1 + SW[s + 2] * n2 + SW[s + 3] * f0 + SW[s + 4] * f1 + SW[s + 5] * f2;
        M[rowAt + r] = val;
        if (both) M[r * nv + col] = val;
        pairs++;
      }
      mul += 6 * pairs; add += 5 * pairs;
    }
  }
  fl.mul += mul; fl.add += add;
  return M;
}
