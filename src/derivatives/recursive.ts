/**
 * The recursive gold standard of the derivatives: ∂τ/∂q, ∂τ/∂q̇ and M = ∂τ/∂q̈ by the world-frame
 * RNEA derivatives (rnea-derivatives.ts, after Carpentier & Mansard, "Analytical Derivatives of Rigid
 * Body Dynamics Algorithms", RSS 2018); for forward dynamics, q̈ = ABA(q, q̇, τ), then at that q̈
 *
 *   ∂q̈/∂q = −M⁻¹ ∂τ/∂q,   ∂q̈/∂q̇ = −M⁻¹ ∂τ/∂q̇,   ∂q̈/∂τ = M⁻¹           (implicit function theorem)
 *
 * with M⁻¹ and the two solves by the articulated-body factorization of M in world coordinates
 * (minv-solve.ts). A floating base whose twist is given in the world (option
 * baseVelocity 'world') goes through EIDAmb and its derivative Tables 5–8 (Saccon, Traversaro, Nori,
 * Nijmeijer, 2017) and the CRBA instead. Same outputs and layout as dynamics.ts (nv×nv row-major,
 * tangent directions in velocity order).
 */
import { aba, AbaWorkspace } from '../algorithms/aba.ts';
import { crba, CrbaWorkspace } from '../algorithms/crba.ts';
import { eidambDerivatives, EidambDerivativesWorkspace, type EidambDerivativesOptions } from '../algorithms/eidamb-derivatives.ts';
import { eidamb, EidambWorkspace } from '../algorithms/eidamb.ts';
import { checkConfiguration, checkVector } from '../algorithms/validate.ts';
import type { Model } from '../model/model.ts';
import { Flops } from '../spatial/flops.ts';
import type { DynamicsDerivatives } from './dynamics.ts';
import { ArticulatedFactorWorld, MinvSolveWorkspace, negMinvSolve } from './minv-solve.ts';
import { RneaDerivativesWorkspace } from './rnea-derivatives.ts';

/** out (row-major) = colMajor transposed (nv×nv) */
function fromColumnMajor(out: Float64Array, src: Float64Array, n: number): void {
  for (let r = 0; r < n; r++) for (let k = 0; k < n; k++) out[r * n + k] = src[k * n + r];
}

/** The path of Saccon et al. (2017)'s Tables 5–8 (EIDAmb), kept for the world-frame base twist convention. */
class EidambPath {
  readonly eid: EidambWorkspace;
  readonly der: EidambDerivativesWorkspace;
  readonly crbaWs: CrbaWorkspace;
  constructor(model: Model) {
    this.eid = new EidambWorkspace(model);
    this.der = new EidambDerivativesWorkspace(model);
    this.crbaWs = new CrbaWorkspace(model);
  }
}

/**
 * ∂τ/∂q, ∂τ/∂q̇ and M = ∂τ/∂q̈ by the world-frame RNEA derivatives (rnea-derivatives.ts, after
 * Carpentier & Mansard 2018). With `baseVelocity: 'world'` (a floating base's twist given in the
 * world, Saccon et al. (2017)'s convention) by EIDAmb and its Tables 5–8 with the CRBA instead.
 * @experimental
 */
export class RecursiveInverseDynamicsDerivatives implements DynamicsDerivatives {
  /** the world-frame RNEA derivatives (null with baseVelocity 'world') */
  readonly rd: RneaDerivativesWorkspace | null;
  readonly value: Float64Array;
  readonly dq: Float64Array;
  readonly dv: Float64Array;
  /** M */
  readonly du: Float64Array;
  /**
   * flops of the last call: value (τ: kinematics, body forces, their sums, τ), derivatives (∂τ/∂q,
   * ∂τ/∂q̇), M (its dot products); with baseVelocity 'world': EIDAmb, Tables 5–8, CRBA
   */
  readonly flops = { value: new Flops(), derivatives: new Flops(), M: new Flops() };
  private readonly eidPath: EidambPath | null;
  /** q̇ = 0 for calls with qd = null */
  private readonly zeroV: Float64Array;

  constructor(readonly model: Model, readonly options: EidambDerivativesOptions = {}) {
    const nv = model.nv;
    if (options.baseVelocity === 'world' && model.floatingBase) {
      this.rd = null;
      const e = this.eidPath = new EidambPath(model);
      this.value = e.eid.tau;
      this.dq = new Float64Array(nv * nv);
      this.dv = new Float64Array(nv * nv);
      this.du = e.crbaWs.M;
    } else {
      this.eidPath = null;
      const rd = this.rd = new RneaDerivativesWorkspace(model);
      this.value = rd.tau;
      this.dq = rd.dq;
      this.dv = rd.dv;
      this.du = rd.M;
    }
    this.zeroV = new Float64Array(nv);
  }

  /** τ, ∂τ/∂q, ∂τ/∂q̇, M at (q, q̇, q̈). Pass qd = null for q̇ = 0. */
  compute(q: ArrayLike<number>, qd: ArrayLike<number> | null, qdd: ArrayLike<number>): this {
    const model = this.model;
    checkConfiguration(model, q);
    if (qd) checkVector(model, 'v', qd, false);
    checkVector(model, 'a', qdd, false);
    return this.computeUnchecked(q, qd, qdd, true);
  }

  /** compute without the entry checks; withM = false leaves M (du) as it was and counts no flops for it */
  computeUnchecked(q: ArrayLike<number>, qd: ArrayLike<number> | null, qdd: ArrayLike<number>, withM: boolean): this {
    const model = this.model, fl = this.flops;
    if (this.rd) {
      const rd = this.rd.compute(q, qd, qdd, withM);
      fl.value.reset().accumulate(rd.flops.value);
      fl.derivatives.reset().accumulate(rd.flops.derivatives);
      fl.M.reset().accumulate(rd.flops.M);
      return this;
    }
    const e = this.eidPath!;
    eidamb(model, e.eid, q, qd ?? this.zeroV, qdd);
    fl.value.reset().accumulate(e.eid.flops);
    eidambDerivatives(model, e.eid, e.der, this.options);
    e.der.totalFlops(fl.derivatives);
    fromColumnMajor(this.dq, e.der.dtau_dq, model.nv);
    fromColumnMajor(this.dv, e.der.dtau_dv, model.nv);
    fl.M.reset();
    if (withM) {
      crba(model, e.crbaWs, q);
      fl.M.accumulate(e.crbaWs.flops);
    }
    return this;
  }
}

/**
 * ∂q̈/∂q, ∂q̈/∂q̇ and M⁻¹: the world-frame RNEA derivatives' passes at q̈ = 0 (rnea-derivatives.ts,
 * `prepare`) give the bias torques b and the world inertias, whose articulated-body factorization of
 * M (minv-solve.ts) gives q̈ = M⁻¹ (τ − b) by one more pass (ABA's recursions in world coordinates:
 * ABA's q̈ to rounding, tested; no separate ABA); the passes are then brought to that q̈ (`applyQdd`)
 * for ∂τ/∂q and ∂τ/∂q̇, and the same factorization gives M⁻¹ and ∂q̈/∂x = −M⁻¹ ∂τ/∂x by its passes
 * over all columns, never a dense product. (With baseVelocity 'world', q̈ by ABA and the EIDAmb
 * tables.) Measured (best of 15 rounds, µs; 6- / 24- / 96-link chains): 11.7 / 50 / 335 with ABA
 * first, 10.2 / 44.3 / 315 without.
 * @experimental
 */
export class RecursiveForwardDynamicsDerivatives implements DynamicsDerivatives {
  readonly abaWs: AbaWorkspace;
  readonly id: RecursiveInverseDynamicsDerivatives;
  /** the articulated-body factorization of M (world frame) */
  readonly factor: ArticulatedFactorWorld;
  readonly value: Float64Array;
  readonly dq: Float64Array;
  readonly dv: Float64Array;
  /** M⁻¹ */
  readonly du: Float64Array;
  /**
   * flops of the last call: q̈ (value: the passes at q̈ = 0, the bias torques, τ − b and the solve
   * for q̈; with baseVelocity 'world', ABA); the passes brought to q̈, ∂τ/∂q, ∂τ/∂q̇ with their τ and
   * the two solves −M⁻¹ ∂τ/∂x (derivatives; from `derive`, the passes at q̈ = 0 too); the
   * factorization and M⁻¹ from it (Minv)
   */
  readonly flops = { value: new Flops(), derivatives: new Flops(), Minv: new Flops() };
  private readonly solveWs: MinvSolveWorkspace;
  /** τ − b (compute), and a count (deriveAt), scratch */
  private readonly bias: Float64Array;
  private readonly countScratch = new Flops();
  /** the world-frame quantities (Y_i, J) the factorization needs: id's own, or made apart for the EIDAmb path */
  private readonly rd: RneaDerivativesWorkspace;

  constructor(readonly model: Model, options: EidambDerivativesOptions = {}) {
    this.abaWs = new AbaWorkspace(model);
    this.id = new RecursiveInverseDynamicsDerivatives(model, options);
    this.rd = this.id.rd ?? new RneaDerivativesWorkspace(model);
    this.factor = new ArticulatedFactorWorld(model);
    this.solveWs = new MinvSolveWorkspace(model);
    const nv = model.nv;
    this.value = new Float64Array(nv);
    this.bias = new Float64Array(nv);
    this.dq = new Float64Array(nv * nv);
    this.dv = new Float64Array(nv * nv);
    this.du = new Float64Array(nv * nv);
  }

  /** q̈, ∂q̈/∂q, ∂q̈/∂q̇, M⁻¹ at (q, q̇, τ). Pass qd = null for q̇ = 0. */
  compute(q: ArrayLike<number>, qd: ArrayLike<number> | null, tau: ArrayLike<number>): this {
    const model = this.model, fl = this.flops, id = this.id, rd = this.rd;
    checkVector(model, 'tau', tau, false);
    if (id.rd === null) {
      // the EIDAmb path: q̈ by ABA, then the derivatives at it
      aba(model, this.abaWs, q, qd, tau);
      this.value.set(this.abaWs.qdd);
      fl.value.reset().accumulate(this.abaWs.kin.flops).accumulate(this.abaWs.flops);
      return this.derive(q, qd);
    }
    checkConfiguration(model, q);
    if (qd) checkVector(model, 'v', qd, false);
    // the passes at q̈ = 0 give the bias torques b and the factorization of M, so q̈ = M⁻¹ (τ − b)
    // by one more pass of that factorization (no ABA: the same recursions, in world coordinates),
    // then the passes are brought to q̈ (deriveAt)
    rd.prepare(q, qd);
    fl.Minv.reset();
    this.factor.factor(rd.Yb, rd.J, fl.Minv);
    const b = this.bias, nv = model.nv;
    rd.biasTorques(b);
    for (let k = 0; k < nv; k++) b[k] = tau[k] - b[k];
    fl.value.reset().accumulate(rd.flops.value);
    fl.value.add += nv;
    this.solveWs.solveVector(this.factor, rd.J, b, this.value, fl.value);
    return this.deriveAt(false);
  }

  /** ∂q̈/∂q, ∂q̈/∂q̇, M⁻¹ at (q, q̇) and the q̈ of the last `compute` (this.value). */
  derive(q: ArrayLike<number>, qd: ArrayLike<number> | null): this {
    const model = this.model, fl = this.flops, id = this.id, rd = this.rd;
    checkConfiguration(model, q);
    if (qd) checkVector(model, 'v', qd, false);
    if (id.rd !== null) {
      // as compute does it, from q̈ = this.value: the same values bit for bit
      rd.prepare(q, qd);
      fl.Minv.reset();
      this.factor.factor(rd.Yb, rd.J, fl.Minv);
      return this.deriveAt(true);
    }
    // the EIDAmb path: its derivatives, and the world-frame passes for the factorization
    id.computeUnchecked(q, qd, this.value, false);
    fl.derivatives.reset().accumulate(id.flops.value).accumulate(id.flops.derivatives);
    rd.compute(q, qd, this.value, false);
    fl.derivatives.accumulate(rd.flops.value).accumulate(rd.flops.derivatives);
    fl.Minv.reset();
    this.factor.factor(rd.Yb, rd.J, fl.Minv);
    negMinvSolve(model, this.solveWs, this.factor, rd.J, null, this.du, fl.Minv);
    negMinvSolve(model, this.solveWs, this.factor, rd.J, id.dq, this.dq, fl.derivatives);
    negMinvSolve(model, this.solveWs, this.factor, rd.J, id.dv, this.dv, fl.derivatives);
    return this;
  }

  /**
   * after rd.prepare and the factorization: the passes brought to q̈ = this.value, ∂τ, M⁻¹ and
   * −M⁻¹ ∂τ/∂x. Counts: the passes' work after q̈ (and, from `derive`, the passes at q̈ = 0 too) as
   * derivatives; compute counted the rest as value.
   */
  private deriveAt(fromDerive: boolean): this {
    const model = this.model, fl = this.flops, rd = this.rd, rv = rd.flops.value, before = this.countScratch;
    before.reset().accumulate(rv);
    rd.applyQdd(this.value);
    rd.finish(false);
    fl.derivatives.reset().accumulate(rd.flops.derivatives);
    fl.derivatives.mul += rv.mul - before.mul; fl.derivatives.add += rv.add - before.add; fl.derivatives.div += rv.div - before.div; fl.derivatives.fn += rv.fn - before.fn;
    if (fromDerive) fl.derivatives.accumulate(before);
    negMinvSolve(model, this.solveWs, this.factor, rd.J, null, this.du, fl.Minv);
    negMinvSolve(model, this.solveWs, this.factor, rd.J, rd.dq, this.dq, fl.derivatives);
    negMinvSolve(model, this.solveWs, this.factor, rd.J, rd.dv, this.dv, fl.derivatives);
    return this;
  }
}
