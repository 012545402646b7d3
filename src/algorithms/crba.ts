/**
 * CRBA: the joint-space inertia matrix M(q) by the composite-rigid-body algorithm, RBDA Table 6.2:
 *
 *   I^c_i = I_i;  for i = N_B..1: I^c_λ += ⁱX_λᵀ I^c_i ⁱX_λ
 *   for i: F = I^c_i S_i;  M_ii = S_iᵀ F;  j = i;
 *          while λ(j) ≥ 0: F = ʲX_λᵀ F;  j = λ(j);  M_ji = S_jᵀ F, M_ij = M_jiᵀ
 *
 * M is returned dense (nv×nv row-major): it is the algorithm's output, used as a reference. With
 * `triangle = 'lower'` only the lower triangle (row ≥ column) is written, each row's entries one after
 * the other — the memory Pinocchio's `crba` writes (the upper triangle of its column-major M) — and the
 * strictly upper triangle is left as it was; by default both (M exactly symmetric).
 *
 * A joint DoF whose motion subspace column is a unit vector ±e_r (revolute or prismatic joints about
 * frame axes, each column of a free-flyer or spherical joint) reads its entries of M as ±F_r: no
 * product. A model without branches (a chain, on a fixed or floating base) writes every entry of M,
 * which is then not cleared first.
 */
import type { Model } from '../model/model.ts';
import { jcalc } from '../model/jcalc.ts';
import { Flops } from '../spatial/flops.ts';
import { inertiaAdd, inertiaMulMotion, inertiaTransformToParent } from '../spatial/inertia.ts';
import { checkConfiguration } from './validate.ts';

/** Everything one CRBA call computes: made once per model and reused; `crba` writes M(q) into `M`. */
export class CrbaWorkspace {
  /** ⁱX_λ(i) at the q of the last call (views into XupFlat: 12 i) */
  readonly Xup: Float64Array[];
  readonly XupFlat: Float64Array;
  /** per DoF: the row r of a motion subspace column S[:, k] = ±e_r, or −1; and its sign */
  readonly dofRow: Int8Array;
  readonly dofSign: Float64Array;
  /** whether some body has two children (M then has structural zeros, cleared at each call) */
  readonly branched: boolean;
  /** I^c_i: composite rigid inertia of the subtree rooted at body i, body coordinates */
  readonly Ic: Float64Array[];
  /** M(q): joint-space inertia, nv×nv row-major (output) */
  readonly M: Float64Array;
  /** flops of the last call (jcalc included) */
  readonly flops = new Flops();
  /** scratch: F = I^c S column, transformed up the tree; inertia temporary */
  readonly F = new Float64Array(6);
  readonly s6 = new Float64Array(6);
  readonly tmpI = new Float64Array(10);

  constructor(readonly model: Model) {
    this.XupFlat = new Float64Array(12 * model.nb);
    this.Xup = Array.from({ length: model.nb }, (_, i) => this.XupFlat.subarray(12 * i, 12 * i + 12));
    this.dofRow = new Int8Array(model.nv).fill(-1);
    this.dofSign = new Float64Array(model.nv);
    for (let i = 0; i < model.nb; i++) {
      const S = model.S[i];
      for (let k = 0; k < model.nvi[i]; k++) {
        let row = -1, others = 0;
        for (let r = 0; r < 6; r++) {
          const x = S[6 * k + r];
          if (x === 1 || x === -1) { if (row < 0) row = r; else others++; } else if (x !== 0) others++;
        }
        if (row >= 0 && others === 0) { this.dofRow[model.iv[i] + k] = row; this.dofSign[model.iv[i] + k] = S[6 * k + row]; }
      }
    }
    this.branched = isBranched(model);
    this.Ic = Array.from({ length: model.nb }, () => new Float64Array(10));
    this.M = new Float64Array(model.nv * model.nv);
  }
}

/** Whether some body of the model has two children or the model two roots (M then has structural zeros). */
export function isBranched(model: Model): boolean {
  const children = new Int32Array(model.nb);
  let roots = 0;
  for (let i = 0; i < model.nb; i++) {
    if (model.parents[i] >= 0) children[model.parents[i]]++;
    else roots++;
  }
  return roots > 1 || children.some((c) => c > 1);
}

/** M(q) = CRBA(q), written into and returned as ws.M (both triangles, or the lower one). Allocation free. */
export function crba(model: Model, ws: CrbaWorkspace, q: ArrayLike<number>, triangle: 'full' | 'lower' = 'full'): Float64Array {
  if (ws.model !== model) throw new RangeError('crba: workspace was created for another model');
  checkConfiguration(model, q);
  const fl = ws.flops;
  fl.reset();
  const nb = model.nb, nv = model.nv;
  const M = ws.M, both = triangle === 'full';
  if (ws.branched) M.fill(0);
  for (let i = 0; i < nb; i++) {
    jcalc(ws.Xup[i], model, i, q, fl);
    ws.Ic[i].set(model.I[i]);
  }
  for (let i = nb - 1; i >= 0; i--) {
    const p = model.parents[i];
    if (p < 0) continue;
    inertiaTransformToParent(ws.tmpI, ws.Xup[i], ws.Ic[i], fl);
    inertiaAdd(ws.Ic[p], ws.Ic[p], ws.tmpI, fl);
  }
  // columns of M: F = I^c_i S_i[:, k] carried up the tree, F = ʲX_λᵀ F (xTransposeApplyForce,
  // written out on F's six values), M_ji = S_jᵀ F (one ±entry of F for a joint with S_j = ±e_row)
  const F = ws.F, X = ws.XupFlat, parents = model.parents, ivs = model.iv, nvis = model.nvi;
  const dofRow = ws.dofRow, dofSign = ws.dofSign;
  let mul = 0, add = 0;
  for (let i = 0; i < nb; i++) {
    const ni = nvis[i];
    const Si = model.S[i];
    for (let k = 0; k < ni; k++) {
      const col = ivs[i] + k;
      // F = I^c_i S_i[:, k]
      for (let r = 0; r < 6; r++) ws.s6[r] = Si[6 * k + r];
      inertiaMulMotion(F, ws.Ic[i], ws.s6, fl);
      // M_ii: rows k2 ≥ k of column k (the lower triangle's row k2), mirrored (exactly symmetric, also for joint axes off the frame axes)
      for (let k2 = k; k2 < ni; k2++) {
        const d = ivs[i] + k2, row = dofRow[d];
        const val = row >= 0 ? (dofSign[d] > 0 ? F[row] : -F[row]) : dotS(Si, k2, F, fl);
        M[d * nv + col] = val;
        if (both) M[col * nv + d] = val;
      }
      let n0 = F[0], n1 = F[1], n2 = F[2], f0 = F[3], f1 = F[4], f2 = F[5];
      let j = i;
      while (parents[j] >= 0) {
        const xo = 12 * j;
        const e0 = X[xo], e1 = X[xo + 1], e2 = X[xo + 2], e3 = X[xo + 3], e4 = X[xo + 4], e5 = X[xo + 5], e6 = X[xo + 6], e7 = X[xo + 7], e8 = X[xo + 8];
        const r0 = X[xo + 9], r1 = X[xo + 10], r2 = X[xo + 11];
        const fx = e0 * f0 + e3 * f1 + e6 * f2;
        const fy = e1 * f0 + e4 * f1 + e7 * f2;
        const fz = e2 * f0 + e5 * f1 + e8 * f2;
        const m0 = e0 * n0 + e3 * n1 + e6 * n2 + (r1 * fz - r2 * fy);
        const m1 = e1 * n0 + e4 * n1 + e7 * n2 + (r2 * fx - r0 * fz);
        const m2 = e2 * n0 + e5 * n1 + e8 * n2 + (r0 * fy - r1 * fx);
        n0 = m0; n1 = m1; n2 = m2; f0 = fx; f1 = fy; f2 = fz;
        mul += 24; add += 18;
        j = parents[j];
        const nj = nvis[j];
        if (nj === 0) continue;
        // M_col,r for the DoFs r of joint j: row col of the lower triangle, one entry after the other
        const rowAt = col * nv;
        for (let k2 = 0; k2 < nj; k2++) {
          const r = ivs[j] + k2, row = dofRow[r];
          let val: number;
          if (row >= 0) {
            const x = row === 0 ? n0 : row === 1 ? n1 : row === 2 ? n2 : row === 3 ? f0 : row === 4 ? f1 : f2;
            val = dofSign[r] > 0 ? x : -x;
          } else {
            F[0] = n0; F[1] = n1; F[2] = n2; F[3] = f0; F[4] = f1; F[5] = f2;
            val = dotS(model.S[j], k2, F, fl);
          }
          M[rowAt + r] = val;
          if (both) M[r * nv + col] = val;
        }
      }
    }
  }
  fl.mul += mul; fl.add += add;
  return M;
}

/** S[:, k]ᵀ F, skipping zeros and exact ±1 multiplications. */
function dotS(S: Float64Array, k: number, F: Float64Array, fl: Flops): number {
  let acc = 0, terms = 0;
  for (let r = 0; r < 6; r++) {
    const s = S[6 * k + r];
    if (s === 0) continue;
    if (s === 1) acc += F[r];
    else if (s === -1) acc -= F[r];
    else { acc += s * F[r]; fl.mul++; }
    terms++;
  }
  if (terms > 1) fl.add += terms - 1;
  return acc;
}
