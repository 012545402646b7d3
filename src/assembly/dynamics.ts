/**
 * Inverse and forward dynamics by Nori's sparse system, with the gold standards' signatures:
 *   τ = LuInverseDynamics.solve(q, q̇, q̈, f^x)   (paper 004 §IV-D; matches RNEA)
 *   q̈ = LuForwardDynamics.solve(q, q̇, τ, f^x)   (paper 004 §V-D; matches ABA)
 * Both refine their solves by default (SolverOptions.refine = DYNAMICS_REFINE): on robots with light
 * links the kept pivot order alone loses digits in forward dynamics. Inverse dynamics is triangular
 * (1×1 blocks only), so refinement costs it nothing.
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

  constructor(readonly model: Model, sys: SymbolicSystem, opts: SolverOptions, private readonly outKind: 'tau' | 'qdd') {
    this.solver = new SparseSolver(sys, { refine: DYNAMICS_REFINE, gather: true, ...opts });
    this.y = new Float64Array(sys.ny);
    this.out = new Float64Array(model.nv);
  }

  protected run(q: ArrayLike<number>, qd: ArrayLike<number> | null, x: ArrayLike<number>, name: string, fext?: readonly Float64Array[]): Float64Array {
    const model = this.model;
    // y is built from validated x and f^x: the solver's own checks of y would repeat these
    checkDynamicsInputs(model, q, qd, name, x, fext);
    classicalInputs(this.y, model, x, fext);
    const d = this.solver.stepUnchecked(q, qd, this.y);
    const L = this.solver.sys.layout;
    const start = this.outKind === 'tau' ? L.tau : L.qdd;
    for (let i = 0; i < model.nb; i++) {
      const iv = model.iv[i];
      for (let k = 0; k < model.nvi[i]; k++) this.out[iv + k] = d[start[i] + k];
    }
    return this.out;
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
