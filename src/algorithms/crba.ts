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
import { xTransposeApplyForce } from '../spatial/transform.ts';
import { checkConfiguration } from './validate.ts';

/** Everything one CRBA call computes: made once per model and reused; `crba` writes M(q) into `M`. */
export class CrbaWorkspace {
  /** ⁱX_λ(i) at the q of the last call */
  readonly Xup: Float64Array[];
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
    this.Xup = Array.from({ length: model.nb }, () => new Float64Array(12));
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
  const F = ws.F;
  for (let i = 0; i < nb; i++) {
    const ni = model.nvi[i];
    const Si = model.S[i];
    for (let k = 0; k < ni; k++) {
      const col = model.iv[i] + k;
      // F = I^c_i S_i[:, k]
      for (let r = 0; r < 6; r++) ws.s6[r] = Si[6 * k + r];
      inertiaMulMotion(F, ws.Ic[i], ws.s6, fl);
      // M_ii: rows k2 ≥ k of column k, mirrored (exactly symmetric, also for joint axes off the frame axes)
      for (let k2 = k; k2 < ni; k2++) {
        const val = dotS(Si, k2, F, fl);
        M[(model.iv[i] + k2) * nv + col] = val;
        M[col * nv + model.iv[i] + k2] = val;
      }
      let j = i;
      while (model.parents[j] >= 0) {
        xTransposeApplyForce(F, ws.Xup[j], F, fl);
        j = model.parents[j];
        const nj = model.nvi[j];
        for (let k2 = 0; k2 < nj; k2++) {
          const row = model.iv[j] + k2;
          const val = dotS(model.S[j], k2, F, fl);
          M[row * nv + col] = val;
          M[col * nv + row] = val;
        }
      }
    }
  }
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
