/**
 * Derivatives of inverse and forward dynamics by reuse of the sparse LU factors (Nori 2017
 * §IV-D, §V-D for the systems; sensitivity.ts for the solves):
 *
 *   inverse dynamics τ = ID(q, q̇, q̈):  ∂τ/∂q, ∂τ/∂q̇, ∂τ/∂q̈ = M   (τ rows of ∂d/∂q, ∂d/∂q̇, ∂d/∂q̈)
 *   forward dynamics q̈ = FD(q, q̇, τ):  ∂q̈/∂q, ∂q̈/∂q̇, ∂q̈/∂τ = M⁻¹ (q̈ rows of ∂d/∂q, ∂d/∂q̇, ∂d/∂τ)
 *
 * after one step of LuInverseDynamics / LuForwardDynamics, with the same factors: 3·nv more solves
 * (mode 'forward', sensitivity.ts: all of ∂d, solveMany), or nv transposed solves and sparse
 * products with the jacobians (mode 'adjoint', adjoint.ts: only the output rows; M or M⁻¹ read off
 * the adjoints). Matrices are nv×nv row-major (row = output entry, column = tangent direction δq, q̇ or input
 * entry, velocity order); q is perturbed on its manifold (model/lie.ts). External wrenches f^x are
 * optional inputs held fixed (body coordinates).
 */
import { LuForwardDynamics, LuInverseDynamics } from '../assembly/dynamics.ts';
import type { SolverOptions } from '../assembly/solver.ts';
import type { Model } from '../model/model.ts';
import { Flops } from '../spatial/flops.ts';
import { AdjointSensitivity } from './adjoint.ts';
import { SystemSensitivity } from './sensitivity.ts';

/**
 * 'forward': ∂d = −D⁻¹ J by solveMany (default); 'adjoint': ∂out = −(D⁻ᵀ e_out)ᵀ J by transposed
 * solves.
 * @experimental
 */
export type LuMode = 'forward' | 'adjoint';

/**
 * Options of the derivatives by factor reuse: the solver's options and the mode ('forward' or
 * 'adjoint').
 * @experimental
 */
export interface LuDerivativesOptions extends SolverOptions {
  mode?: LuMode;
}

/**
 * Derivative matrices of one dynamics problem (inverse: τ; forward: q̈).
 * @experimental
 */
export interface DynamicsDerivatives {
  /** the output: τ (inverse dynamics) or q̈ (forward dynamics) */
  readonly value: Float64Array;
  /** ∂out/∂q (tangent), ∂out/∂q̇, ∂out/∂input (M for inverse dynamics, M⁻¹ for forward): nv×nv row-major */
  readonly dq: Float64Array;
  readonly dv: Float64Array;
  readonly du: Float64Array;
}

abstract class LuDerivatives implements DynamicsDerivatives {
  readonly mode: LuMode;
  /** the forward sensitivities (mode 'forward'), or null */
  readonly sens: SystemSensitivity | null;
  /** the adjoint sensitivities of the outputs (mode 'adjoint'), or null */
  readonly adjoint: AdjointSensitivity | null;
  readonly value: Float64Array;
  readonly dq: Float64Array;
  readonly dv: Float64Array;
  readonly du: Float64Array;
  /** flops of the last call: the step (value) and the derivatives (jacobians + solves) */
  readonly flops = { value: new Flops(), derivatives: new Flops() };
  /** column of d of each output entry */
  private readonly outCol: Int32Array;

  protected constructor(readonly model: Model, readonly dynamics: LuInverseDynamics | LuForwardDynamics, kind: 'tau' | 'qdd', mode: LuMode = 'forward') {
    const nv = model.nv;
    if (mode !== 'forward' && mode !== 'adjoint') throw new RangeError(`mode is "${String(mode)}", expected forward or adjoint`);
    this.mode = mode;
    this.value = dynamics.out;
    this.dq = new Float64Array(nv * nv);
    this.dv = new Float64Array(nv * nv);
    this.du = new Float64Array(nv * nv);
    const L = dynamics.solver.sys.layout;
    this.outCol = new Int32Array(nv);
    for (let i = 0; i < model.nb; i++) {
      for (let k = 0; k < model.nvi[i]; k++) this.outCol[model.iv[i] + k] = (kind === 'tau' ? L.tau[i] : L.qdd[i]) + k;
    }
    const inputs = Int32Array.from({ length: nv }, (_, k) => k);
    this.sens = mode === 'forward' ? new SystemSensitivity(dynamics.solver, { inputs }) : null;
    this.adjoint = mode === 'adjoint' ? new AdjointSensitivity(dynamics.solver, this.outCol, { inputs }) : null;
  }

  /** The derivatives at the last step (whose q, q̇ are given again), into dq, dv, du. Allocation free. */
  derive(q: ArrayLike<number>, qd: ArrayLike<number> | null): void {
    const f = this.dynamics.solver.flops;
    this.flops.value.reset().accumulate(f.kinematics).accumulate(f.fill).accumulate(f.factor).accumulate(f.solve);
    if (this.adjoint) {
      const adj = this.adjoint.compute(q, qd, this.dynamics.y);
      adj.totalFlops(this.flops.derivatives);
      this.dq.set(adj.dq); this.dv.set(adj.dv); this.du.set(adj.dy);
      return;
    }
    const sens = this.sens!;
    sens.compute(q, qd, this.dynamics.y);
    sens.totalFlops(this.flops.derivatives);
    const nv = this.model.nv, n = sens.n, oc = this.outCol;
    const { dd_dq, dd_dv, dd_dy } = sens;
    for (let r = 0; r < nv; r++) {
      const c = oc[r];
      for (let k = 0; k < nv; k++) {
        this.dq[r * nv + k] = dd_dq[k * n + c];
        this.dv[r * nv + k] = dd_dv[k * n + c];
        this.du[r * nv + k] = dd_dy[k * n + c];
      }
    }
  }
}

/**
 * ∂τ/∂q, ∂τ/∂q̇ and M = ∂τ/∂q̈ by the inverse-dynamics system and its factors.
 * @experimental
 */
export class LuInverseDynamicsDerivatives extends LuDerivatives {
  constructor(model: Model, opts: LuDerivativesOptions = {}) {
    super(model, new LuInverseDynamics(model, opts), 'tau', opts.mode);
  }

  /** τ, ∂τ/∂q, ∂τ/∂q̇, M at (q, q̇, q̈, f^x) into this.value, dq, dv, du. */
  compute(q: ArrayLike<number>, qd: ArrayLike<number> | null, qdd: ArrayLike<number>, fext?: readonly Float64Array[]): this {
    (this.dynamics as LuInverseDynamics).solve(q, qd, qdd, fext);
    this.derive(q, qd);
    return this;
  }
}

/**
 * ∂q̈/∂q, ∂q̈/∂q̇ and M⁻¹ = ∂q̈/∂τ by the forward-dynamics system and its factors.
 * @experimental
 */
export class LuForwardDynamicsDerivatives extends LuDerivatives {
  constructor(model: Model, opts: LuDerivativesOptions = {}) {
    // the nv-fold derivative solves are not refined unless asked (refinement: SolverOptions.refine)
    super(model, new LuForwardDynamics(model, { refine: 0, ...opts }), 'qdd', opts.mode);
  }

  /** q̈, ∂q̈/∂q, ∂q̈/∂q̇, M⁻¹ at (q, q̇, τ, f^x) into this.value, dq, dv, du. */
  compute(q: ArrayLike<number>, qd: ArrayLike<number> | null, tau: ArrayLike<number>, fext?: readonly Float64Array[]): this {
    (this.dynamics as LuForwardDynamics).solve(q, qd, tau, fext);
    this.derive(q, qd);
    return this;
  }
}
