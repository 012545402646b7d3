/**
 * CRBA: the joint-space inertia matrix M(q) by the composite-rigid-body algorithm, RBDA Table 6.2:
 *
 *   I^c_i = I_i;  for i = N_B..1: I^c_λ += ⁱX_λᵀ I^c_i ⁱX_λ
 *   for i: F = I^c_i S_i;  M_ii = S_iᵀ F;  j = i;
 *          while λ(j) ≥ 0: F = ʲX_λᵀ F;  j = λ(j);  M_ji = S_jᵀ F, M_ij = M_jiᵀ
 *
 * M is returned dense (nv×nv row-major): it is the algorithm's output, used as a reference.
 */
import type { Model } from '../model/model.ts';
import { jcalc } from '../model/jcalc.ts';
import { Flops } from '../spatial/flops.ts';
import { inertiaAdd, inertiaMulMotion, inertiaTransformToParent } from '../spatial/inertia.ts';
import { unitAxes } from './kinematics.ts';
import { checkConfiguration } from './validate.ts';

/** Everything one CRBA call computes: made once per model and reused; `crba` writes M(q) into `M`. */
export class CrbaWorkspace {
  /** ⁱX_λ(i) at the q of the last call (views into XupFlat: 12 i) */
  readonly Xup: Float64Array[];
  readonly XupFlat: Float64Array;
  /** joints with S_i = ±e_row (kinematics.ts unitAxes): row, or −1, and sign */
  readonly unitRow: Int8Array;
  readonly unitSign: Float64Array;
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
    ({ unitRow: this.unitRow, unitSign: this.unitSign } = unitAxes(model));
    this.Ic = Array.from({ length: model.nb }, () => new Float64Array(10));
    this.M = new Float64Array(model.nv * model.nv);
  }
}

/** M(q) = CRBA(q), written into and returned as ws.M. Allocation free. */
export function crba(model: Model, ws: CrbaWorkspace, q: ArrayLike<number>): Float64Array {
  if (ws.model !== model) throw new RangeError('crba: workspace was created for another model');
  checkConfiguration(model, q);
  const fl = ws.flops;
  fl.reset();
  const nb = model.nb, nv = model.nv;
  const M = ws.M;
  M.fill(0);
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
  const unitRow = ws.unitRow, unitSign = ws.unitSign;
  let mul = 0, add = 0;
  for (let i = 0; i < nb; i++) {
    const ni = nvis[i];
    const Si = model.S[i];
    for (let k = 0; k < ni; k++) {
      const col = ivs[i] + k;
      // F = I^c_i S_i[:, k]
      for (let r = 0; r < 6; r++) ws.s6[r] = Si[6 * k + r];
      inertiaMulMotion(F, ws.Ic[i], ws.s6, fl);
      // M_ii: rows k2 ≥ k of column k, mirrored (exactly symmetric, also for joint axes off the frame axes)
      for (let k2 = k; k2 < ni; k2++) {
        const val = dotS(Si, k2, F, fl);
        M[(ivs[i] + k2) * nv + col] = val;
        M[col * nv + ivs[i] + k2] = val;
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
        const row = unitRow[j];
        if (row >= 0) {
          const x = row === 0 ? n0 : row === 1 ? n1 : row === 2 ? n2 : row === 3 ? f0 : row === 4 ? f1 : f2;
          const val = unitSign[j] > 0 ? x : -x;
          const r = ivs[j];
          M[r * nv + col] = val;
          M[col * nv + r] = val;
          continue;
        }
        if (nj === 0) continue;
        F[0] = n0; F[1] = n1; F[2] = n2; F[3] = f0; F[4] = f1; F[5] = f2;
        for (let k2 = 0; k2 < nj; k2++) {
          const r = ivs[j] + k2;
          const val = dotS(model.S[j], k2, F, fl);
          M[r * nv + col] = val;
          M[col * nv + r] = val;
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
