/**
 * The recursive gold standard of the derivatives (paper 003): EIDAmb (Table 4) and its derivative
 * algorithms D₁…D₄ (Tables 5–8) for ∂τ/∂q and ∂τ/∂q̇, CRBA for M = ∂τ/∂q̈; for forward dynamics,
 * q̈ = ABA(q, q̇, τ), then at that q̈
 *
 *   ∂q̈/∂q = −M⁻¹ ∂τ/∂q,   ∂q̈/∂q̇ = −M⁻¹ ∂τ/∂q̇,   ∂q̈/∂τ = M⁻¹           (implicit function theorem)
 *
 * with M⁻¹ by the Cholesky reference (algorithms/minv.ts) and the two dense products counted.
 * Same outputs and layout as dynamics.ts (nv×nv row-major, tangent directions in velocity order).
 */
import { aba, AbaWorkspace } from '../algorithms/aba.ts';
import { crba, CrbaWorkspace } from '../algorithms/crba.ts';
import { eidambDerivatives, EidambDerivativesWorkspace, type EidambDerivativesOptions } from '../algorithms/eidamb-derivatives.ts';
import { eidamb, EidambWorkspace } from '../algorithms/eidamb.ts';
import { minvCholesky, MinvCholeskyWorkspace } from '../algorithms/minv.ts';
import { checkVector } from '../algorithms/validate.ts';
import type { Model } from '../model/model.ts';
import { Flops } from '../spatial/flops.ts';
import type { DynamicsDerivatives } from './dynamics.ts';

/** out (row-major) = colMajor transposed (nv×nv) */
function fromColumnMajor(out: Float64Array, src: Float64Array, n: number): void {
  for (let r = 0; r < n; r++) for (let k = 0; k < n; k++) out[r * n + k] = src[k * n + r];
}

/**
 * ∂τ/∂q, ∂τ/∂q̇ (EIDAmb and Tables 5–8) and M (CRBA).
 * @experimental
 */
export class RecursiveInverseDynamicsDerivatives implements DynamicsDerivatives {
  readonly eid: EidambWorkspace;
  readonly der: EidambDerivativesWorkspace;
  readonly crbaWs: CrbaWorkspace;
  readonly value: Float64Array;
  readonly dq: Float64Array;
  readonly dv: Float64Array;
  /** M (the CRBA output) */
  readonly du: Float64Array;
  /** flops of the last call: EIDAmb (value), Tables 5–8 (derivatives), CRBA (M) */
  readonly flops = { value: new Flops(), derivatives: new Flops(), M: new Flops() };
  /** q̇ = 0 for calls with qd = null */
  private readonly zeroV: Float64Array;

  constructor(readonly model: Model, readonly options: EidambDerivativesOptions = {}) {
    this.eid = new EidambWorkspace(model);
    this.der = new EidambDerivativesWorkspace(model);
    this.crbaWs = new CrbaWorkspace(model);
    this.value = this.eid.tau;
    const nv = model.nv;
    this.dq = new Float64Array(nv * nv);
    this.dv = new Float64Array(nv * nv);
    this.du = this.crbaWs.M;
    this.zeroV = new Float64Array(nv);
  }

  /** τ, ∂τ/∂q, ∂τ/∂q̇, M at (q, q̇, q̈). Pass qd = null for q̇ = 0. */
  compute(q: ArrayLike<number>, qd: ArrayLike<number> | null, qdd: ArrayLike<number>): this {
    const model = this.model;
    eidamb(model, this.eid, q, qd ?? this.zeroV, qdd);
    this.flops.value.reset().accumulate(this.eid.flops);
    eidambDerivatives(model, this.eid, this.der, this.options);
    this.der.totalFlops(this.flops.derivatives);
    fromColumnMajor(this.dq, this.der.dtau_dq, model.nv);
    fromColumnMajor(this.dv, this.der.dtau_dv, model.nv);
    crba(model, this.crbaWs, q);
    this.flops.M.reset().accumulate(this.crbaWs.flops);
    return this;
  }
}

/**
 * ∂q̈/∂q, ∂q̈/∂q̇ and M⁻¹ by ABA, EIDAmb with Tables 5–8 at the ABA acceleration, and the Cholesky
 * M⁻¹.
 * @experimental
 */
export class RecursiveForwardDynamicsDerivatives implements DynamicsDerivatives {
  readonly abaWs: AbaWorkspace;
  readonly id: RecursiveInverseDynamicsDerivatives;
  readonly minvWs: MinvCholeskyWorkspace;
  readonly value: Float64Array;
  readonly dq: Float64Array;
  readonly dv: Float64Array;
  /** M⁻¹ */
  readonly du: Float64Array;
  /** flops of the last call: ABA (value), Tables 5–8 with their EIDAmb and the two products (derivatives), CRBA + Cholesky (M⁻¹) */
  readonly flops = { value: new Flops(), derivatives: new Flops(), Minv: new Flops() };
  /** q̇ = 0 for calls with qd = null */
  private readonly zeroV: Float64Array;

  constructor(readonly model: Model, options: EidambDerivativesOptions = {}) {
    this.abaWs = new AbaWorkspace(model);
    this.id = new RecursiveInverseDynamicsDerivatives(model, options);
    this.minvWs = new MinvCholeskyWorkspace(model);
    this.value = this.abaWs.qdd;
    const nv = model.nv;
    this.dq = new Float64Array(nv * nv);
    this.dv = new Float64Array(nv * nv);
    this.du = this.minvWs.Minv;
    this.zeroV = new Float64Array(nv);
  }

  /** q̈, ∂q̈/∂q, ∂q̈/∂q̇, M⁻¹ at (q, q̇, τ). Pass qd = null for q̇ = 0. */
  compute(q: ArrayLike<number>, qd: ArrayLike<number> | null, tau: ArrayLike<number>): this {
    const model = this.model;
    checkVector(model, 'tau', tau, false);
    aba(model, this.abaWs, q, qd, tau);
    this.flops.value.reset().accumulate(this.abaWs.kin.flops).accumulate(this.abaWs.flops);
    return this.derive(q, qd);
  }

  /** ∂q̈/∂q, ∂q̈/∂q̇, M⁻¹ at (q, q̇) and the q̈ of the last `compute` (this.value). */
  derive(q: ArrayLike<number>, qd: ArrayLike<number> | null): this {
    const model = this.model, nv = model.nv, fl = this.flops;
    const id = this.id, v = qd ?? this.zeroV;
    eidamb(model, id.eid, q, v, this.value);
    eidambDerivatives(model, id.eid, id.der, id.options);
    fl.derivatives.reset().accumulate(id.eid.flops);
    id.der.totalFlops(id.flops.derivatives);
    fl.derivatives.accumulate(id.flops.derivatives);
    const Minv = minvCholesky(model, this.minvWs, q);
    fl.Minv.reset().accumulate(this.minvWs.crba.flops).accumulate(this.minvWs.flops);
    // ∂q̈/∂x = −M⁻¹ ∂τ/∂x (∂τ/∂x column-major from the tables)
    negProduct(this.dq, Minv, id.der.dtau_dq, nv, fl.derivatives);
    negProduct(this.dv, Minv, id.der.dtau_dv, nv, fl.derivatives);
    return this;
  }
}

/** out[r, k] = −Σ_s A[r, s] B[s, k] for A row-major and B column-major (n×n). n²(n mul + n − 1 add). */
function negProduct(out: Float64Array, A: Float64Array, B: Float64Array, n: number, fl: Flops): void {
  for (let r = 0; r < n; r++) {
    for (let k = 0; k < n; k++) {
      let s = 0;
      for (let t = 0; t < n; t++) s += A[r * n + t] * B[k * n + t];
      out[r * n + k] = -s;
    }
  }
  fl.mul += n * n * n;
  fl.add += n * n * (n - 1);
}
