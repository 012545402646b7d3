/**
 * M⁻¹(q) by the sparse path: one numeric factorization of Nori's forward-dynamics system
 * (Nori (2017) §V-D; D(q) of `forwardDynamicsProblem`) and one right-hand side per DoF,
 *   D(q) d_k = e_{y[τ_k]}   ⇒   q̈(d_k) = M⁻¹ e_k,
 * since D is linear in the inputs y = [τ; f^x] and the bias terms (velocity products, gravity)
 * live only in b, which is not used: column k is the response to a unit τ_k with q̇ = 0, a_g = 0.
 * The right-hand sides are constant (unit vectors on the known-τ rows), so each call is: fill D(q),
 * refactor, solve nv right-hand sides (NumericLU.solveMany), and copy the q̈ rows of the upper
 * triangle into a dense symmetric M⁻¹ (the lower triangle mirrored, no arithmetic).
 */
import { checkConfiguration, checkForwardDynamicsDefined } from '../algorithms/validate.ts';
import type { Model } from '../model/model.ts';
import { Flops } from '../spatial/flops.ts';
import { forwardDynamicsProblem } from './problems.ts';
import { SparseSolver, type SolverOptions, type StepFlops } from './solver.ts';
import { fillSystem, SymbolicSystem } from './system.ts';

/**
 * M⁻¹(q) by the sparse LU of the forward-dynamics system: one factorization and one right-hand side
 * per DoF per call; the ordering is computed once in the constructor.
 */
export class MinvLu {
  /** the forward-dynamics system with its offline ordering and numeric LU */
  readonly solver: SparseSolver;
  /** M⁻¹ (output, nv×nv row-major) */
  readonly Minv: Float64Array;
  /** flops of the last call, by part (solve: all nv right-hand sides) */
  readonly flops: StepFlops = { kinematics: new Flops(), fill: new Flops(), factor: new Flops(), solve: new Flops() };
  /** right-hand sides (n × nv, column after column): column k = unit vector on the row y[τ_k] */
  readonly rhs: Float64Array;
  /** solutions d_k (n × nv, column after column) */
  readonly X: Float64Array;
  /** column of q̈ DoF r in d */
  readonly qddCol: Int32Array;
  /** the inputs y (all zero; D does not depend on them) */
  private readonly y0: Float64Array;

  constructor(readonly model: Model, opts: SolverOptions = {}) {
    const sys = new SymbolicSystem(model, forwardDynamicsProblem(model));
    this.solver = new SparseSolver(sys, opts);
    const n = sys.n, nv = model.nv;
    this.Minv = new Float64Array(nv * nv);
    this.rhs = new Float64Array(n * nv);
    this.X = new Float64Array(n * nv);
    this.y0 = new Float64Array(sys.ny);
    // forwardDynamicsProblem's first nv inputs are τ in velocity order
    for (let k = 0; k < nv; k++) this.rhs[k * n + sys.knownRow[k]] = 1;
    this.qddCol = new Int32Array(nv);
    for (let i = 0; i < model.nb; i++) for (let k = 0; k < model.nvi[i]; k++) this.qddCol[model.iv[i] + k] = sys.layout.qdd[i] + k;
  }

  /** M⁻¹(q), written into and returned as this.Minv. Allocation free. */
  compute(q: ArrayLike<number>): Float64Array {
    checkConfiguration(this.model, q);
    checkForwardDynamicsDefined(this.model, 'M⁻¹ (sparse LU)');
    return this.computeUnchecked(q);
  }

  /** compute without the entry checks (for callers that validated q already) */
  computeUnchecked(q: ArrayLike<number>): Float64Array {
    const s = this.solver, vals = s.values, lu = s.lu, fl = this.flops;
    const nv = this.model.nv, n = s.sys.n;
    fillSystem(vals, q, null, this.y0);
    lu.refactor(vals.Ax);
    lu.solveMany(this.X, this.rhs, nv);
    copyFlops(fl.kinematics, vals.kin.flops);
    copyFlops(fl.fill, vals.flops);
    fl.factor.reset(); fl.factor.mul = lu.factorMuls; fl.factor.add = lu.factorAdds; fl.factor.div = lu.factorDivs;
    fl.solve.reset(); fl.solve.mul = lu.solveMuls; fl.solve.add = lu.solveAdds; fl.solve.div = lu.solveDivs;
    const { Minv, X, qddCol } = this;
    for (let k = 0; k < nv; k++) {
      const o = k * n;
      for (let r = 0; r <= k; r++) {
        const x = X[o + qddCol[r]];
        Minv[r * nv + k] = x;
        Minv[k * nv + r] = x;
      }
    }
    return Minv;
  }

  /** total flops of the last call */
  totalFlops(): Flops {
    const f = this.flops;
    return new Flops().accumulate(f.kinematics).accumulate(f.fill).accumulate(f.factor).accumulate(f.solve);
  }
}

function copyFlops(to: Flops, from: Flops): void {
  to.mul = from.mul; to.add = from.add; to.div = from.div; to.fn = from.fn;
}
