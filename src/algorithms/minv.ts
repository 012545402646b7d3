/**
 * M⁻¹(q) by a dense Cholesky factorization of the CRBA matrix, M = L Lᵀ, M⁻¹ = L⁻ᵀ L⁻¹
 * (Golub & Van Loan §4.2). A correct reference for now; Carpentier's analytical recursive M⁻¹
 * (Carpentier (2018)) is its own algorithm.
 */
import type { Model } from '../model/model.ts';
import { Flops } from '../spatial/flops.ts';
import { crba, CrbaWorkspace } from './crba.ts';
import { checkForwardDynamicsDefined } from './validate.ts';

/**
 * Workspace of `minvCholesky` (M⁻¹ by CRBA and a dense Cholesky factorization, the reference): made
 * once per model and reused; the result is in `Minv`.
 */
export class MinvCholeskyWorkspace {
  readonly crba: CrbaWorkspace;
  /** L: Cholesky factor of M (lower, row-major), then overwritten with L⁻¹ */
  readonly L: Float64Array;
  /** M⁻¹ (output, nv×nv row-major) */
  readonly Minv: Float64Array;
  /** flops of the factorization and inversion (CRBA's in crba.flops) */
  readonly flops = new Flops();

  constructor(readonly model: Model) {
    this.crba = new CrbaWorkspace(model);
    this.L = new Float64Array(model.nv * model.nv);
    this.Minv = new Float64Array(model.nv * model.nv);
  }
}

/** M⁻¹(q), written into and returned as ws.Minv. Throws if M is not positive definite. */
export function minvCholesky(model: Model, ws: MinvCholeskyWorkspace, q: ArrayLike<number>): Float64Array {
  checkForwardDynamicsDefined(model, 'M⁻¹ (Cholesky)');
  const M = crba(model, ws.crba, q);
  const n = model.nv;
  const L = ws.L;
  const fl = ws.flops;
  fl.reset();
  L.fill(0);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let s = M[n * i + j];
      for (let k = 0; k < j; k++) s -= L[n * i + k] * L[n * j + k];
      fl.mul += j; fl.add += j;
      if (i === j) {
        if (!(s > 0)) throw new RangeError(`minv: M(q) is not positive definite at DoF ${i}`);
        L[n * i + i] = Math.sqrt(s); fl.fn++;
      } else {
        L[n * i + j] = s / L[n * j + j]; fl.div++;
      }
    }
  }
  // L ← L⁻¹ (row by row, using the original entries of row i to the right of j)
  for (let i = 0; i < n; i++) {
    L[n * i + i] = 1 / L[n * i + i]; fl.div++;
    for (let j = 0; j < i; j++) {
      let s = 0;
      for (let k = j; k < i; k++) s += L[n * i + k] * L[n * k + j];
      fl.mul += i - j + 1; fl.add += i - j - 1;
      L[n * i + j] = -s * L[n * i + i];
    }
  }
  const Minv = ws.Minv;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let s = 0;
      for (let k = i; k < n; k++) s += L[n * k + i] * L[n * k + j];
      fl.mul += n - i; fl.add += n - i - 1;
      Minv[n * i + j] = s;
      Minv[n * j + i] = s;
    }
  }
  return Minv;
}
