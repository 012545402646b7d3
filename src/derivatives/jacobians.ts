/**
 * The jacobians of Nori's system at a solution d (Nori 2017 eqs. 3–6 and 17), for any
 * SymbolicSystem, square or not (an estimator's stacked [D; D_Y] too):
 *
 *   J_q = ∂(D d + b)/∂q (tangent δq, velocity order),   J_v = ∂b/∂q̇,   J_y = ∂b/∂y,   and ∂D/∂q on D's slots,
 *
 * in the fixed patterns of pattern.ts. The columns of J_q and J_v are written densely (one column
 * of length m per direction: the right-hand sides of sensitivity solves) by spatial kernels, then
 * gathered into the CSC patterns. Per direction k of joint i (λ = λ(i), S_k its subspace column):
 *   J_q:  c3a[i] += (∂ⁱX_λ/∂q_k) a_λ,  c3f[λ] += (∂ⁱX_λ/∂q_k)ᵀ f_i     (∂D/∂q_k d, on D's slots)
 *         or, for a root, c3a[i] = (ⁱX_0 a_0) × S_k                      (the gravity term of b)
 *         δv_i = (ⁱX_λ v_λ) × S_k,  δv_j = ʲX_λ(j) δv_λ(j) down the subtree,
 *         c3a[j] += δv_j × v_J,j  (c_j),   c3f[j] += δv_j ×* I_j v_j + v_j ×* I_j δv_j  (ν_j)
 *   J_v:  δv_i = S_k, c3a[i] = (ⁱX_λ v_λ) × S_k (= S_k × v_J + v_i × S_k), then as above.
 * Measurement blocks' rows by central differences of their fill (blocks.ts). Nothing is allocated per call.
 */
import { crossForceS, crossMotionS, inertiaMulS } from '../algorithms/jcalcderiv.ts';
import type { SymbolicSystem, SystemValues } from '../assembly/system.ts';
import { Flops } from '../spatial/flops.ts';
import { inertiaMulMotion } from '../spatial/inertia.ts';
import { crossForce } from '../spatial/motion.ts';
import { BlockDifferences } from './blocks.ts';
import { DerivativePattern } from './pattern.ts';

export interface JacobianOptions {
  /** the pattern, when one was built for this system already */
  pattern?: DerivativePattern;
  /** step of the central differences of measurement blocks (default 1e-6) */
  blockStep?: number;
}

export class SystemJacobians {
  readonly pattern: DerivativePattern;
  readonly m: number;
  readonly nv: number;
  /** values of ∂D/∂q_k on D's slots (layout of pattern.dStart; the slots are sys.xSlotA/xSlotF of the joint's codes) */
  readonly dD: Float64Array;
  /** J_q and J_v as dense m×nv column-major arrays (the default targets of `fill`) */
  readonly Rq: Float64Array;
  readonly Rv: Float64Array;
  /** flops of the last fill */
  readonly flops = new Flops();
  /** measurement blocks by central differences (null when the system has none) */
  readonly blocks: BlockDifferences | null;
  /** scratch: ⁱX_λ at the codes, I_i v_i, ⁱX_λ v_λ, δv_i per body, 6-vectors */
  private readonly Xval: Float64Array;
  private readonly h: Float64Array[];
  private readonly Xv: Float64Array[];
  private readonly dvb: Float64Array[];
  /** h and dvb body after body (6 i), the arrays they view */
  private readonly hFlat: Float64Array;
  private readonly dvFlat: Float64Array;
  /** δv of the J_q columns per body (the J_v columns' are dvb), and the array they view */
  private readonly dvq: Float64Array[];
  private readonly dvqFlat: Float64Array;
  private readonly t6 = new Float64Array(6);
  private readonly u6 = new Float64Array(6);
  private readonly w6 = new Float64Array(6);

  constructor(readonly sys: SymbolicSystem, opts: JacobianOptions = {}) {
    if (opts.pattern && opts.pattern.sys !== sys) throw new RangeError('SystemJacobians: the given pattern belongs to another system');
    this.pattern = opts.pattern ?? new DerivativePattern(sys);
    const model = sys.model, nb = model.nb;
    this.m = sys.m;
    this.nv = model.nv;
    this.dD = new Float64Array(this.pattern.dStart[this.nv]);
    this.Rq = new Float64Array(this.m * this.nv);
    this.Rv = new Float64Array(this.m * this.nv);
    this.Xval = new Float64Array(sys.xCode.length);
    const mk = () => Array.from({ length: nb }, () => new Float64Array(6));
    this.hFlat = new Float64Array(6 * nb);
    this.dvFlat = new Float64Array(6 * nb);
    const views = (flat: Float64Array) => Array.from({ length: nb }, (_, i) => flat.subarray(6 * i, 6 * i + 6));
    this.dvqFlat = new Float64Array(6 * nb);
    this.h = views(this.hFlat); this.Xv = mk(); this.dvb = views(this.dvFlat); this.dvq = views(this.dvqFlat);
    // ∂b/∂y = −1 on the known rows (b = −y there)
    const Jy = this.pattern.Jy;
    for (let k = 0; k < sys.knownRow.length; k++) {
      for (let e = Jy.Ap[k]; e < Jy.Ap[k + 1]; e++) if (Jy.Ai[e] === sys.knownRow[k]) Jy.Ax[e] = -1;
    }
    this.blocks = sys.blocks.length > 0 ? new BlockDifferences(sys, this.pattern, opts.blockStep ?? 1e-6) : null;
  }

  /**
   * J_q, J_v, J_y (and ∂D/∂q) at (q, q̇, y) and the solution d, given `vals` filled at (q, q̇, y)
   * (fillSystem). Rq, Rv (m×nv column-major) receive the dense columns; with `csc` (default true)
   * their values are also gathered into the patterns' Jq, Jv (what the adjoint's products read; the
   * forward sensitivities solve the dense columns and skip it). `source`: D's entries are read as
   * src[map[t]] rather than from vals.Ax (a gathered solver's lagging values; not with measurement
   * blocks, which read vals.Ax). Allocation free.
   */
  fill(vals: SystemValues, d: Float64Array, q: ArrayLike<number>, qd: ArrayLike<number> | null, y: Float64Array, Rq: Float64Array = this.Rq, Rv: Float64Array = this.Rv, csc = true, source: { src: Float64Array; map: Int32Array } | null = null): void {
    if (vals.sys !== this.sys) throw new RangeError('SystemJacobians.fill: the values belong to another system');
    const P = this.pattern, sys = P.sys, model = sys.model, cols = P.cols, L = sys.layout;
    const kin = vals.kin, Ax = vals.Ax, b = vals.b;
    const m = sys.m, nv = this.nv, nb = model.nb;
    const fl = this.flops;
    fl.reset();
    const { t6, u6, w6, Xval, h, Xv, dvb } = this;
    if (source !== null) {
      if (this.blocks !== null) throw new RangeError('SystemJacobians.fill: a system with measurement blocks reads D from vals.Ax (no source)');
      const { src, map } = source, xs = sys.xSlotA;
      for (let e = 0; e < Xval.length; e++) Xval[e] = src[map[xs[e]]];
    } else {
      for (let e = 0; e < Xval.length; e++) Xval[e] = Ax[sys.xSlotA[e]];
    }
    const hasV = qd !== null;
    if (hasV) {
      for (let i = 0; i < nb; i++) {
        inertiaMulMotion(h[i], model.I[i], kin.v[i], fl);
        if (model.parents[i] < 0) continue;
        const v = kin.v[i], vJ = kin.vJ[i], x = Xv[i];
        for (let r = 0; r < 6; r++) x[r] = v[r] - vJ[r]; // ⁱX_λ v_λ
        fl.add += 6;
      }
    }
    // J_q and J_v, direction after direction; the velocity terms of both columns in one pass down the subtree
    Rq.fill(0);
    Rv.fill(0);
    const { dStart, tStart, tCoef, tSrc } = P;
    const dvq = this.dvq;
    for (let k = 0; k < nv; k++) {
      const i = cols.body[k], p = model.parents[i], o = k * m;
      const rA = o + sys.rowA[i];
      if (p >= 0) {
        const t0 = dStart[k], t1 = dStart[k + 1], e0 = sys.xStart[i];
        const rF = o + sys.rowF[p], la = L.a[p], lf = L.f[i];
        for (let t = t0; t < t1; t++) {
          let val = 0;
          for (let u = tStart[t]; u < tStart[t + 1]; u++) val += tCoef[u] * Xval[tSrc[u]];
          this.dD[t] = val;
          const code = sys.xCode[e0 + t - t0], r = (code / 6) | 0, c = code - 6 * r;
          Rq[rA + r] += val * d[la + c]; // (∂ⁱX_λ/∂q_k) a_λ
          Rq[rF + c] += val * d[lf + r]; // (∂ⁱX_λ/∂q_k)ᵀ f_i
        }
        fl.mul += P.dMul[k]; fl.add += P.dAdd[k];
      } else {
        // ∂(ⁱX_0 a_0)/∂q_k = (ⁱX_0 a_0) × S_k; ⁱX_0 a_0 is b(3a) of the fill
        for (let r = 0; r < 6; r++) t6[r] = b[sys.rowA[i] + r];
        crossMotionS(u6, t6, cols, k, fl);
        for (let r = 0; r < 6; r++) Rq[rA + r] = u6[r];
      }
      if (!hasV) continue;
      // J_q: δv_i = (ⁱX_λ v_λ) × S_k (a joint hanging from the fixed world moves no velocity)
      if (p >= 0) crossMotionS(dvq[i], Xv[i], cols, k, fl);
      // J_v: body i's own rows, then δv_i = S_k
      if (p >= 0 && model.nvi[i] > 0) {
        crossMotionS(t6, Xv[i], cols, k, fl); // δc_i = S_k × v_J + v_i × S_k = (ⁱX_λ v_λ) × S_k
        for (let r = 0; r < 6; r++) Rv[o + sys.rowA[i] + r] = t6[r];
      }
      // δν_i = S_k ×* I_i v_i + v_i ×* I_i S_k
      crossForceS(t6, cols, k, h[i], fl);
      inertiaMulS(u6, model.I[i], cols, k, fl);
      crossForce(w6, kin.v[i], u6, fl);
      for (let r = 0; r < 6; r++) Rv[o + sys.rowF[i] + r] = t6[r] + w6[r];
      fl.add += 6;
      for (let r = 0; r < 6; r++) dvb[i][r] = cols.s[6 * k + r];
      this.velocityTerms(vals, Rq, Rv, o, i, p >= 0, P.rowsA[k], fl);
    }
    if (this.blocks) this.blocks.fill(d, Rq, Rv, q, qd, y, fl);
    if (!csc) return;
    gather(P.Jq, Rq, m);
    gather(P.Jv, Rv, m);
  }

  /**
   * The c_j and ν_j rows of the columns of one direction for the bodies of the subtree of i: of J_v
   * (δv_i in dvb[i]) for the bodies below i, and with `withQ` of J_q (δv_i in dvq[i]) for body i
   * itself — δc_i added to its `rowsA` rows already filled, and δν_i — and the bodies below. Per
   * body j and column: δv_j = ʲX_λ δv_λ (below i), δc_j = δv_j × v_J,j, δν_j = δv_j ×* (I_j v_j) +
   * v_j ×* (I_j δv_j) — the operations of xApplyMotion, crossMotion, crossForce and
   * inertiaMulMotion in their order, inlined on the flat arrays (same values bit for bit), with their
   * counts; the body's data are loaded once for both columns.
   */
  private velocityTerms(vals: SystemValues, Rq: Float64Array, Rv: Float64Array, o: number, i: number, withQ: boolean, rowsA: number, fl: Flops): void {
    const sys = this.pattern.sys, model = sys.model, kin = vals.kin;
    const X = kin.XupFlat, V = kin.vFlat, VJ = kin.vJFlat, H = this.hFlat, Dv = this.dvFlat, Dq = this.dvqFlat;
    const parents = model.parents, nvi = model.nvi, Is = model.I, rowA = sys.rowA, rowF = sys.rowF;
    const sub = this.pattern.subtree[i];
    let mul = 0, add = 0;
    for (let e = withQ ? 0 : 1; e < sub.length; e++) {
      const j = sub[e], dj = 6 * j, below = j !== i;
      const n0 = H[dj], n1 = H[dj + 1], n2 = H[dj + 2], f0 = H[dj + 3], f1 = H[dj + 4], f2 = H[dj + 5];
      const I = Is[j];
      const m = I[0], hx = I[1], hy = I[2], hz = I[3];
      const w0 = V[dj], w1 = V[dj + 1], w2 = V[dj + 2], v0 = V[dj + 3], v1 = V[dj + 4], v2 = V[dj + 5];
      const a0 = VJ[dj], a1 = VJ[dj + 1], a2 = VJ[dj + 2], b0 = VJ[dj + 3], b1 = VJ[dj + 4], b2 = VJ[dj + 5];
      const moves = nvi[j] > 0;
      const rA = o + rowA[j], rF = o + rowF[j];
      for (let lane = withQ ? 0 : 1; lane < (below ? 2 : 1); lane++) {
        const D = lane === 0 ? Dq : Dv, R = lane === 0 ? Rq : Rv;
        let d0: number, d1: number, d2: number, d3: number, d4: number, d5: number;
        if (below) {
          const pm = 6 * parents[j], x = 12 * j;
          const wx = D[pm], wy = D[pm + 1], wz = D[pm + 2];
          const r0 = X[x + 9], r1 = X[x + 10], r2 = X[x + 11];
          const tx = D[pm + 3] - (r1 * wz - r2 * wy);
          const ty = D[pm + 4] - (r2 * wx - r0 * wz);
          const tz = D[pm + 5] - (r0 * wy - r1 * wx);
          d0 = X[x] * wx + X[x + 1] * wy + X[x + 2] * wz;
          d1 = X[x + 3] * wx + X[x + 4] * wy + X[x + 5] * wz;
          d2 = X[x + 6] * wx + X[x + 7] * wy + X[x + 8] * wz;
          d3 = X[x] * tx + X[x + 1] * ty + X[x + 2] * tz;
          d4 = X[x + 3] * tx + X[x + 4] * ty + X[x + 5] * tz;
          d5 = X[x + 6] * tx + X[x + 7] * ty + X[x + 8] * tz;
          D[dj] = d0; D[dj + 1] = d1; D[dj + 2] = d2; D[dj + 3] = d3; D[dj + 4] = d4; D[dj + 5] = d5;
          mul += 24; add += 18;
        } else {
          d0 = D[dj]; d1 = D[dj + 1]; d2 = D[dj + 2]; d3 = D[dj + 3]; d4 = D[dj + 4]; d5 = D[dj + 5];
        }
        if (moves) {
          // δc_j = δv_j × v_J,j
          R[rA] += d1 * a2 - d2 * a1;
          R[rA + 1] += d2 * a0 - d0 * a2;
          R[rA + 2] += d0 * a1 - d1 * a0;
          R[rA + 3] += d1 * b2 - d2 * b1 + (d4 * a2 - d5 * a1);
          R[rA + 4] += d2 * b0 - d0 * b2 + (d5 * a0 - d3 * a2);
          R[rA + 5] += d0 * b1 - d1 * b0 + (d3 * a1 - d4 * a0);
          mul += 18; add += 12;
          if (!below) add += rowsA;
        }
        // t = δv_j ×* h_j
        const t0 = d1 * n2 - d2 * n1 + (d4 * f2 - d5 * f1);
        const t1 = d2 * n0 - d0 * n2 + (d5 * f0 - d3 * f2);
        const t2 = d0 * n1 - d1 * n0 + (d3 * f1 - d4 * f0);
        const t3 = d1 * f2 - d2 * f1;
        const t4 = d2 * f0 - d0 * f2;
        const t5 = d0 * f1 - d1 * f0;
        // u = I_j δv_j
        const u0 = I[4] * d0 + I[5] * d1 + I[6] * d2 + (hy * d5 - hz * d4);
        const u1 = I[5] * d0 + I[7] * d1 + I[8] * d2 + (hz * d3 - hx * d5);
        const u2 = I[6] * d0 + I[8] * d1 + I[9] * d2 + (hx * d4 - hy * d3);
        const u3 = m * d3 - (hy * d2 - hz * d1);
        const u4 = m * d4 - (hz * d0 - hx * d2);
        const u5 = m * d5 - (hx * d1 - hy * d0);
        // + v_j ×* u
        R[rF] += t0 + (w1 * u2 - w2 * u1 + (v1 * u5 - v2 * u4));
        R[rF + 1] += t1 + (w2 * u0 - w0 * u2 + (v2 * u3 - v0 * u5));
        R[rF + 2] += t2 + (w0 * u1 - w1 * u0 + (v0 * u4 - v1 * u3));
        R[rF + 3] += t3 + (w1 * u5 - w2 * u4);
        R[rF + 4] += t4 + (w2 * u3 - w0 * u5);
        R[rF + 5] += t5 + (w0 * u4 - w1 * u3);
        mul += 18 + 24 + 18; add += 12 + 18 + 12 + 6;
      }
    }
    fl.mul += mul; fl.add += add;
  }
}

/** A.Ax[e] = R[col·m + row] over the pattern of A (values of a dense column-major m×n in A's slots). */
function gather(A: { Ap: Int32Array; Ai: Int32Array; Ax: Float64Array; n: number }, R: Float64Array, m: number): void {
  for (let k = 0; k < A.n; k++) {
    const o = k * m;
    for (let e = A.Ap[k]; e < A.Ap[k + 1]; e++) A.Ax[e] = R[o + A.Ai[e]];
  }
}
