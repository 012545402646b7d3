/**
 * Geometric finite differences of the dynamics, Saccon et al. (2017) §6 and Figure 5: q is perturbed on its
 * manifold (model/lie.ts: the floating base by the SE(3) exponential in the body frame, spherical
 * joints by the SO(3) exponential, the other joints additively), q̇ and the input additively, and
 * each derivative is the central difference
 *
 *   ∂f/∂δ_k ≈ (f(q ⊕ δ e_k) − f(q ⊕ (−δ) e_k)) / 2δ          (truncation O(δ²), round-off O(ε/δ))
 *
 * of f = RNEA (inverse dynamics) or ABA (forward dynamics). `fdSweep` measures the error against
 * an analytic result over a range of δ (the round-off floor appears at small δ).
 */
import { aba, AbaWorkspace } from '../algorithms/aba.ts';
import { rnea, RneaWorkspace } from '../algorithms/rnea.ts';
import { checkConfiguration, checkVector } from '../algorithms/validate.ts';
import { integrate } from '../model/lie.ts';
import type { Model } from '../model/model.ts';
import { Flops } from '../spatial/flops.ts';
import type { DynamicsDerivatives } from './dynamics.ts';

/**
 * 'id': τ = ID(q, q̇, q̈) (input q̈); 'fd': q̈ = FD(q, q̇, τ) (input τ).
 * @experimental
 */
export type DynamicsProblem = 'id' | 'fd';

/**
 * Central differences of RNEA or ABA: 2·3·nv evaluations.
 * @experimental
 */
export class FiniteDifferenceDerivatives implements DynamicsDerivatives {
  readonly value: Float64Array;
  readonly dq: Float64Array;
  readonly dv: Float64Array;
  readonly du: Float64Array;
  /** flops of the last call: the evaluation at the point (value), the 6·nv others and the differences (derivatives) */
  readonly flops = { value: new Flops(), derivatives: new Flops() };
  private readonly rneaWs: RneaWorkspace;
  private readonly abaWs: AbaWorkspace;
  private readonly qp: Float64Array;
  private readonly vp: Float64Array;
  private readonly up: Float64Array;
  private readonly dqv: Float64Array;
  private readonly fp: Float64Array;
  private readonly fm: Float64Array;

  constructor(readonly model: Model, readonly problem: DynamicsProblem, readonly delta = 1e-6) {
    if (problem !== 'id' && problem !== 'fd') throw new RangeError(`problem is "${String(problem)}", expected id or fd`);
    if (!(delta > 0 && Number.isFinite(delta))) throw new RangeError(`delta is ${delta}, expected a positive number`);
    const nv = model.nv;
    this.rneaWs = new RneaWorkspace(model);
    this.abaWs = new AbaWorkspace(model);
    this.value = new Float64Array(nv);
    this.dq = new Float64Array(nv * nv);
    this.dv = new Float64Array(nv * nv);
    this.du = new Float64Array(nv * nv);
    this.qp = new Float64Array(model.nq);
    this.vp = new Float64Array(nv);
    this.up = new Float64Array(nv);
    this.dqv = new Float64Array(nv);
    this.fp = new Float64Array(nv);
    this.fm = new Float64Array(nv);
  }

  private evaluate(out: Float64Array, q: ArrayLike<number>, v: ArrayLike<number> | null, u: ArrayLike<number>, fl: Flops): void {
    const model = this.model;
    if (this.problem === 'id') {
      out.set(rnea(model, this.rneaWs, q, v, u));
      fl.accumulate(this.rneaWs.kin.flops).accumulate(this.rneaWs.flops);
    } else {
      out.set(aba(model, this.abaWs, q, v, u));
      fl.accumulate(this.abaWs.kin.flops).accumulate(this.abaWs.flops);
    }
  }

  /** f and its central differences at (q, q̇, u) with step this.delta (or `delta`). */
  compute(q: ArrayLike<number>, qd: ArrayLike<number> | null, u: ArrayLike<number>, delta = this.delta): this {
    const model = this.model, nv = model.nv, h = delta;
    checkConfiguration(model, q);
    if (qd !== null) checkVector(model, 'v', qd, false);
    checkVector(model, this.problem === 'id' ? 'a' : 'tau', u, false);
    const { qp, vp, up, dqv, fp, fm } = this;
    const fl = this.flops.derivatives;
    this.flops.value.reset();
    fl.reset();
    this.evaluate(this.value, q, qd, u, this.flops.value);
    const inv = 1 / (2 * h);
    for (let k = 0; k < nv; k++) {
      // ∂/∂q: q ⊕ ±h e_k
      dqv[k] = h;
      integrate(model, q, dqv, qp);
      this.evaluate(fp, qp, qd, u, fl);
      dqv[k] = -h;
      integrate(model, q, dqv, qp);
      this.evaluate(fm, qp, qd, u, fl);
      dqv[k] = 0;
      for (let r = 0; r < nv; r++) this.dq[r * nv + k] = (fp[r] - fm[r]) * inv;
      // ∂/∂q̇
      for (let j = 0; j < nv; j++) vp[j] = qd === null ? 0 : qd[j];
      vp[k] += h;
      this.evaluate(fp, q, vp, u, fl);
      vp[k] -= 2 * h;
      this.evaluate(fm, q, vp, u, fl);
      for (let r = 0; r < nv; r++) this.dv[r * nv + k] = (fp[r] - fm[r]) * inv;
      // ∂/∂u
      for (let j = 0; j < nv; j++) up[j] = u[j];
      up[k] += h;
      this.evaluate(fp, q, qd, up, fl);
      up[k] -= 2 * h;
      this.evaluate(fm, q, qd, up, fl);
      for (let r = 0; r < nv; r++) this.du[r * nv + k] = (fp[r] - fm[r]) * inv;
      fl.add += 3 * nv; fl.mul += 3 * nv;
    }
    return this;
  }
}

/** One δ of the sweep: errors of the central differences against the analytic derivative. */
export interface SweepPoint {
  delta: number;
  /** the derivative: 'dq', 'dv' or 'du' */
  quantity: 'dq' | 'dv' | 'du';
  /** max_ij |FD_ij − A_ij| / max_ij |A_ij| */
  maxError: number;
  /** mean_ij |FD_ij − A_ij| / max_ij |A_ij| */
  meanError: number;
}

/** Relative max and mean error of `approx` against `exact` (scaled by max |exact|, at least 1e-300). */
export function relativeErrors(approx: ArrayLike<number>, exact: ArrayLike<number>): { max: number; mean: number } {
  let scale = 1e-300, worst = 0, sum = 0;
  for (let k = 0; k < exact.length; k++) scale = Math.max(scale, Math.abs(exact[k]));
  for (let k = 0; k < exact.length; k++) {
    const e = Math.abs(approx[k] - exact[k]);
    worst = Math.max(worst, e);
    sum += e;
  }
  return { max: worst / scale, mean: sum / exact.length / scale };
}

/** log-spaced steps 10^from … 10^to with `perDecade` points per decade (Saccon et al. (2017) Figure 5's δ axis) */
export function deltaRange(from = -1, to = -12, perDecade = 2): number[] {
  const out: number[] = [];
  const n = Math.round((from - to) * perDecade);
  for (let k = 0; k <= n; k++) out.push(Number((10 ** (from - k / perDecade)).toPrecision(15)));
  return out;
}

/**
 * The δ sweep of Saccon et al. (2017) Figure 5: central differences at each δ against the analytic `exact`
 * (nv×nv row-major dq, dv, du), errors relative to max |exact| per quantity.
 */
export function fdSweep(
  model: Model, problem: DynamicsProblem, q: ArrayLike<number>, qd: ArrayLike<number> | null, u: ArrayLike<number>,
  exact: DynamicsDerivatives, deltas: readonly number[] = deltaRange(),
): SweepPoint[] {
  const fd = new FiniteDifferenceDerivatives(model, problem);
  const out: SweepPoint[] = [];
  for (const delta of deltas) {
    fd.compute(q, qd, u, delta);
    for (const quantity of ['dq', 'dv', 'du'] as const) {
      const e = relativeErrors(fd[quantity], exact[quantity]);
      out.push({ delta, quantity, maxError: e.max, meanError: e.mean });
    }
  }
  return out;
}

/** The smallest max error over the sweep for each quantity, and the δ where it occurs. */
export function bestOfSweep(points: readonly SweepPoint[]): Record<'dq' | 'dv' | 'du', { delta: number; maxError: number }> {
  if (points.length === 0) throw new RangeError('bestOfSweep: the sweep has no points');
  const first = points[0];
  const start = { delta: first.delta, maxError: Infinity };
  const best = { dq: { ...start }, dv: { ...start }, du: { ...start } };
  for (const p of points) {
    if (p.maxError < best[p.quantity].maxError) best[p.quantity] = { delta: p.delta, maxError: p.maxError };
  }
  return best;
}
