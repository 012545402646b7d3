/**
 * Derivatives of an estimate with respect to the sensor readings and the state (for the
 * estimation problems), by reuse of the factors of the sample:
 * - square layouts: [D; D_Y] d + b = 0 gives ∂d/∂x = −[D; D_Y]⁻¹ J_x (derivatives/sensitivity.ts);
 * - redundant layouts (weighted least squares through K z = [−b; 0], K = [W⁻¹ A; Aᵀ 0],
 *   z = [r; d], estimator.ts): differentiating both block rows at fixed weights,
 *       K ∂z/∂x = [ −J_x ; −(∂A/∂x)ᵀ r ],   J_x = ∂(A d + b)/∂x at fixed d,
 *   one more solve per direction with K's factors. A depends on q only (the transforms in D; the
 *   sensor rows have constant coefficients), so the second block vanishes for q̇ and y.
 * Columns of ∂/∂q are tangent directions in velocity order (model/lie.ts). Allocation free per call.
 */
import { SystemJacobians } from '../derivatives/jacobians.ts';
import { SystemSensitivity } from '../derivatives/sensitivity.ts';
import type { Estimator } from './estimator.ts';

/**
 * Derivatives of an estimate with respect to the state (q, q̇) and the sensor readings, by reuse of
 * the sample's factors: one more solve per direction.
 * @experimental
 */
export class EstimateSensitivity {
  /** n unknowns, nv tangent directions, the selected inputs */
  readonly n: number;
  readonly nv: number;
  readonly inputs: Int32Array;
  /** ∂d/∂q, ∂d/∂q̇ (n×nv) and ∂d/∂y (n×inputs.length), column-major */
  readonly dd_dq: Float64Array;
  readonly dd_dv: Float64Array;
  readonly dd_dy: Float64Array;
  private readonly square?: SystemSensitivity;
  private readonly jac?: SystemJacobians;
  /** least squares: right-hand sides / solutions of K, (m+n)×k column-major */
  private readonly Zq?: Float64Array;
  private readonly Zv?: Float64Array;
  private readonly Zy?: Float64Array;

  constructor(readonly est: Estimator, opts: { inputs?: ArrayLike<number> } = {}) {
    const sys = est.es.sys;
    this.n = sys.n;
    this.nv = sys.model.nv;
    const inputs = opts.inputs ?? Int32Array.from({ length: sys.ny }, (_, k) => k);
    for (let c = 0; c < inputs.length; c++) {
      const k = inputs[c];
      if (!(Number.isInteger(k) && k >= 0 && k < sys.ny)) throw new RangeError(`EstimateSensitivity: input index ${k} is outside 0..${sys.ny - 1}`);
    }
    this.inputs = Int32Array.from(inputs);
    if (est.mode === 'square') {
      this.square = new SystemSensitivity(est.solver!, { inputs: this.inputs });
      this.dd_dq = this.square.dd_dq;
      this.dd_dv = this.square.dd_dv;
      this.dd_dy = this.square.dd_dy;
    } else {
      this.jac = new SystemJacobians(sys);
      const N = sys.m + sys.n;
      this.Zq = new Float64Array(N * this.nv);
      this.Zv = new Float64Array(N * this.nv);
      this.Zy = new Float64Array(N * this.inputs.length);
      this.dd_dq = new Float64Array(this.n * this.nv);
      this.dd_dv = new Float64Array(this.n * this.nv);
      this.dd_dy = new Float64Array(this.n * this.inputs.length);
    }
  }

  /** The derivatives at the estimator's last sample, whose (q, q̇, y) are given again here. */
  compute(q: ArrayLike<number>, qd: ArrayLike<number>, y: Float64Array): this {
    if (this.square) {
      this.square.compute(q, qd, y);
      return this;
    }
    const est = this.est, sys = est.es.sys, m = sys.m, n = sys.n, nv = this.nv, N = m + n;
    const jac = this.jac!, Zq = this.Zq!, Zv = this.Zv!, Zy = this.Zy!, z = est.z, lu = est.lu!;
    jac.fill(est.values, est.d, q, qd, y);
    const Rq = jac.Rq, Rv = jac.Rv;
    // top blocks: −J_x; bottom blocks: −(∂A/∂q_k)ᵀ r for q, zero for q̇ and y
    Zq.fill(0); Zv.fill(0); Zy.fill(0);
    for (let k = 0; k < nv; k++) {
      for (let r = 0; r < m; r++) { Zq[k * N + r] = -Rq[k * m + r]; Zv[k * N + r] = -Rv[k * m + r]; }
    }
    const P = jac.pattern, model = sys.model, L = sys.layout, dD = jac.dD;
    for (let k = 0; k < nv; k++) {
      const i = P.cols.body[k], p = model.parents[i];
      if (p < 0) continue;
      const t0 = P.dStart[k], t1 = P.dStart[k + 1], e0 = sys.xStart[i], o = k * N + m;
      for (let t = t0; t < t1; t++) {
        const val = dD[t];
        const code = sys.xCode[e0 + t - t0], rr = (code / 6) | 0, cc = code - 6 * rr;
        // entry (c3a_i row rr, a_λ column cc) and its transpose (c3f_λ row cc, f_i column rr)
        Zq[o + L.a[p] + cc] -= val * z[sys.rowA[i] + rr];
        Zq[o + L.f[i] + rr] -= val * z[sys.rowF[p] + cc];
      }
    }
    const Jy = P.Jy, inputs = this.inputs;
    for (let c = 0; c < inputs.length; c++) {
      const k = inputs[c];
      for (let e = Jy.Ap[k]; e < Jy.Ap[k + 1]; e++) Zy[c * N + Jy.Ai[e]] = -Jy.Ax[e];
    }
    lu.solveMany(Zq, Zq, nv);
    lu.solveMany(Zv, Zv, nv);
    lu.solveMany(Zy, Zy, inputs.length);
    for (let k = 0; k < nv; k++) for (let j = 0; j < n; j++) { this.dd_dq[k * n + j] = Zq[k * N + m + j]; this.dd_dv[k * n + j] = Zv[k * N + m + j]; }
    for (let c = 0; c < inputs.length; c++) for (let j = 0; j < n; j++) this.dd_dy[c * n + j] = Zy[c * N + m + j];
    return this;
  }
}
