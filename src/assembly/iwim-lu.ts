/**
 * B̂ = M⁻¹B (Krög et al. (2024)) by the sparse path: one numeric factorization of Nori's forward-dynamics
 * system (Nori (2017) §V-D) and m + 1 right-hand sides in one NumericLU.solveMany:
 *   column 0:      −b(q, q̇, y = 0)                    ⇒ q̈_0 = −M⁻¹h (gravity and velocity terms)
 *   joint input:   unit vector on the row y[τ_k]        ⇒ M⁻¹ e_k
 *   contact input: the unit contact wrench w on the rows y[f^x_b] (body-b coordinates)
 *                                                      ⇒ M⁻¹ J_bᵀ w
 * D is linear in the inputs y = [τ; f^x], so each input column is exactly a right-hand side: the
 * same idea as the eUFM (Krög et al. (2024) §4), with one factorization instead of m + 1 ABA runs.
 */
import { contactWrenches, ContactWorkspace, type InputMatrix } from '../algorithms/iwim-inputs.ts';
import { checkConfiguration, checkForwardDynamicsDefined, checkVector } from '../algorithms/validate.ts';
import type { Model } from '../model/model.ts';
import { Flops } from '../spatial/flops.ts';
import { forwardDynamicsProblem } from './problems.ts';
import { SparseSolver, type SolverOptions, type StepFlops } from './solver.ts';
import { fillSystem, SymbolicSystem } from './system.ts';

/**
 * M⁻¹B and q̈₀ = −M⁻¹h by the sparse LU of the forward-dynamics system: one factorization and m + 1
 * right-hand sides per call; the ordering is computed once in the constructor.
 */
export class IwimLu {
  /** the forward-dynamics system with its offline ordering and numeric LU */
  readonly solver: SparseSolver;
  /** q̈_0 = −M⁻¹h (output, nv) */
  readonly qdd0: Float64Array;
  /** B̂ = M⁻¹B (output, nv×m row-major) */
  readonly Bhat: Float64Array;
  /** flops of the last call, by part (fill includes the contact wrenches; solve: all m + 1 right-hand sides) */
  readonly flops: StepFlops = { kinematics: new Flops(), fill: new Flops(), factor: new Flops(), solve: new Flops() };
  /** right-hand sides (n × (m + 1), column after column) and solutions */
  readonly rhs: Float64Array;
  readonly X: Float64Array;
  /** column of q̈ DoF r in d */
  readonly qddCol: Int32Array;
  /** row of input y[f^x_b] component 0 for each body b */
  private readonly fxRow: Int32Array;
  private readonly y0: Float64Array;
  private readonly contact: ContactWorkspace;
  private readonly W: Float64Array;
  private readonly wflops = new Flops();

  constructor(readonly model: Model, readonly inputs: InputMatrix, opts: SolverOptions = {}) {
    if (inputs.model !== model) throw new RangeError('IwimLu: the input matrix was compiled for another model');
    const sys = new SymbolicSystem(model, forwardDynamicsProblem(model));
    this.solver = new SparseSolver(sys, opts);
    const n = sys.n, nv = model.nv, m = inputs.m;
    this.qdd0 = new Float64Array(nv);
    this.Bhat = new Float64Array(nv * m);
    this.rhs = new Float64Array(n * (m + 1));
    this.X = new Float64Array(n * (m + 1));
    this.y0 = new Float64Array(sys.ny);
    this.contact = new ContactWorkspace(model);
    this.W = new Float64Array(6 * m);
    this.qddCol = new Int32Array(nv);
    for (let i = 0; i < model.nb; i++) for (let k = 0; k < model.nvi[i]; k++) this.qddCol[model.iv[i] + k] = sys.layout.qdd[i] + k;
    // forwardDynamicsProblem's inputs: τ (nv, velocity order), then f^x_b (6 per body)
    this.fxRow = Int32Array.from({ length: model.nb }, (_, b) => sys.knownRow[nv + 6 * b]);
    for (let c = 0; c < inputs.nJoint; c++) this.rhs[(c + 1) * n + sys.knownRow[inputs.dof[c]]] = 1;
  }

  /** B̂ = M⁻¹B at (q, q̇), written into and returned as this.Bhat (q̈_0 into this.qdd0). Pass qd = null for q̇ = 0. */
  solve(q: ArrayLike<number>, qd: ArrayLike<number> | null): Float64Array {
    checkConfiguration(this.model, q);
    checkForwardDynamicsDefined(this.model, 'M⁻¹B (sparse LU)');
    if (qd !== null) checkVector(this.model, 'v', qd, false);
    return this.solveUnchecked(q, qd);
  }

  /** solve without the entry checks (for callers that validated the inputs already) */
  solveUnchecked(q: ArrayLike<number>, qd: ArrayLike<number> | null): Float64Array {
    const s = this.solver, vals = s.values, lu = s.lu, fl = this.flops, B = this.inputs;
    const model = this.model, nv = model.nv, n = s.sys.n, m = B.m;
    const { rhs, X, W, qddCol } = this;
    fillSystem(vals, q, qd, this.y0);
    // column 0: −b;  contact columns: the unit wrenches on the f^x rows
    const b = vals.b;
    for (let k = 0; k < n; k++) rhs[k] = -b[k];
    const wf = this.wflops.reset();
    if (B.nc > 0) contactWrenches(B, vals.kin.Xup, this.contact, W, wf);
    for (let c = B.nJoint; c < m; c++) {
      const o = (c + 1) * n + this.fxRow[B.body[c]];
      for (let r = 0; r < 6; r++) rhs[o + r] = W[6 * c + r];
    }
    lu.refactor(vals.Ax);
    lu.solveMany(X, rhs, m + 1);
    copyFlops(fl.kinematics, vals.kin.flops);
    copyFlops(fl.fill, vals.flops);
    fl.fill.accumulate(wf);
    fl.factor.reset(); fl.factor.mul = lu.factorMuls; fl.factor.add = lu.factorAdds; fl.factor.div = lu.factorDivs;
    fl.solve.reset(); fl.solve.mul = lu.solveMuls; fl.solve.add = lu.solveAdds; fl.solve.div = lu.solveDivs;
    const { Bhat, qdd0 } = this;
    for (let r = 0; r < nv; r++) qdd0[r] = X[qddCol[r]];
    for (let c = 0; c < m; c++) {
      const o = (c + 1) * n;
      for (let r = 0; r < nv; r++) Bhat[r * m + c] = X[o + qddCol[r]];
    }
    return Bhat;
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
