/**
 * Inverse and forward dynamics by Nori's sparse system, with the gold standards' signatures:
 *   τ = LuInverseDynamics.solve(q, q̇, q̈, f^x)   (Nori (2017) §IV-D; matches RNEA)
 *   q̈ = LuForwardDynamics.solve(q, q̇, τ, f^x)   (Nori (2017) §V-D; matches ABA)
 * Both refine their solves by default (SolverOptions.refine = DYNAMICS_REFINE): on robots with light
 * links the kept pivot order alone loses digits in forward dynamics. Inverse dynamics is triangular
 * (1×1 blocks only), so refinement costs it nothing. Once their fill runs as generated code, their
 * kinematics do too (SolverOptions.kinematicsCode, kinematics-code.ts; `{ kinematicsCode: false }`
 * keeps forwardKinematics): same values to rounding, same flop counts.
 */
import { checkDynamicsInputs, checkForwardDynamicsDefined } from '../algorithms/validate.ts';
import type { Model } from '../model/model.ts';
import { classicalInputs, forwardDynamicsProblem, inverseDynamicsProblem } from './problems.ts';
import { DYNAMICS_REFINE, SparseSolver, type SolverOptions } from './solver.ts';
import { SymbolicSystem } from './system.ts';

abstract class ClassicalLu {
  readonly solver: SparseSolver;
  readonly y: Float64Array;
  /** the output (τ or q̈), length nv, velocity order */
  readonly out: Float64Array;

  /** column of d of each output entry (velocity order) */
  private readonly outCol: Int32Array;
  /** whether y's external-wrench inputs are all zero (the last call had no f^x): not written again */
  private fextZero = true;

  constructor(readonly model: Model, sys: SymbolicSystem, opts: SolverOptions, outKind: 'tau' | 'qdd') {
    this.solver = new SparseSolver(sys, { refine: DYNAMICS_REFINE, gather: true, kinematicsCode: true, ...opts });
    this.y = new Float64Array(sys.ny);
    this.out = new Float64Array(model.nv);
    const L = sys.layout, start = outKind === 'tau' ? L.tau : L.qdd;
    this.outCol = new Int32Array(model.nv);
    for (let i = 0; i < model.nb; i++) {
      for (let k = 0; k < model.nvi[i]; k++) this.outCol[model.iv[i] + k] = start[i] + k;
    }
  }

  protected run(q: ArrayLike<number>, qd: ArrayLike<number> | null, x: ArrayLike<number>, name: string, fext?: readonly Float64Array[]): Float64Array {
    const model = this.model, y = this.y, nv = model.nv;
    // y is built from validated x and f^x: the solver's own checks of y would repeat these
    checkDynamicsInputs(model, q, qd, name, x, fext);
    // y's entries past the first nv (f^x) are live only when f^x is or was given
    let live = nv;
    if (fext !== undefined || !this.fextZero) {
      classicalInputs(y, model, x, fext);
      this.fextZero = fext === undefined;
      live = y.length;
    } else {
      for (let k = 0; k < nv; k++) y[k] = x[k];
    }
    // the outputs read where the solve left them (the solver's d is brought up to date when read)
    const d = this.solver.stepView(q, qd, y, live);
    const out = this.out, oc = this.outCol;
    for (let k = 0; k < nv; k++) out[k] = d[oc[k]];
    return out;
  }
}

/**
 * Inverse dynamics τ = ID(q, q̇, q̈, f^x) by the permuted sparse LU of Nori's system: the ordering
 * is computed once in the constructor (or given as `opts.symbolic`), each `solve` refills,
 * refactors and solves in place. Agrees with `rnea`.
 */
export class LuInverseDynamics extends ClassicalLu {
  constructor(model: Model, opts: SolverOptions = {}) {
    super(model, new SymbolicSystem(model, inverseDynamicsProblem(model)), opts, 'tau');
  }

  /** τ such that RNEA(q, q̇, q̈, f^x) = τ; returns this.out */
  solve(q: ArrayLike<number>, qd: ArrayLike<number> | null, qdd: ArrayLike<number>, fext?: readonly Float64Array[]): Float64Array {
    return this.run(q, qd, qdd, 'a', fext);
  }
}

/**
 * Forward dynamics q̈ = FD(q, q̇, τ, f^x) by the permuted sparse LU of Nori's system: the ordering
 * is computed once in the constructor (or given as `opts.symbolic`), each `solve` refills,
 * refactors and solves in place. Agrees with `aba`.
 */
export class LuForwardDynamics extends ClassicalLu {
  constructor(model: Model, opts: SolverOptions = {}) {
    super(model, new SymbolicSystem(model, forwardDynamicsProblem(model)), opts, 'qdd');
  }

  /** q̈ such that ABA(q, q̇, τ, f^x) = q̈; returns this.out */
  solve(q: ArrayLike<number>, qd: ArrayLike<number> | null, tau: ArrayLike<number>, fext?: readonly Float64Array[]): Float64Array {
    checkForwardDynamicsDefined(this.model, 'forward dynamics (sparse LU)');
    return this.run(q, qd, tau, 'tau', fext);
  }
}
