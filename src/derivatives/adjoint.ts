/**
 * Sensitivities of selected unknowns by the adjoint (reverse) route through the same LU factors:
 * for an output d_r (one unknown of Nori's system, e.g. a τ or a q̈ entry),
 *
 *   ∂d_r/∂x = −e_rᵀ D⁻¹ J_x = −w_rᵀ J_x,    Dᵀ w_r = e_r   (one transposed solve per output),
 *
 * so nout transposed solves (NumericLU.solveTransposed) and sparse products with the fixed-pattern
 * jacobians J_q, J_v, J_y of pattern.ts replace the 2·nv + ny forward solves of sensitivity.ts. For
 * a known input (b = −y on its row) ∂d_r/∂y_c = w_r[row of y_c], read without a flop. Same
 * conventions as sensitivity.ts (tangent directions δq in velocity order). Nothing is allocated per call.
 */
import type { SparseSolver } from '../assembly/solver.ts';
import { Flops } from '../spatial/flops.ts';
import { SystemJacobians } from './jacobians.ts';
import type { DerivativePattern } from './pattern.ts';

export interface AdjointOptions {
  /** inputs y (indices into sys.inputNames) of ∂out/∂y (default: none) */
  inputs?: ArrayLike<number>;
  /** the pattern, when one was built for this system already */
  pattern?: DerivativePattern;
}

export class AdjointSensitivity {
  /** the jacobians J_q, J_v, J_y (jacobians.ts) */
  readonly jacobians: SystemJacobians;
  /** columns of d whose derivatives are wanted (outputs, in order) */
  readonly outputs: Int32Array;
  readonly inputs: Int32Array;
  /** w_r = D⁻ᵀ e_r, nout×n row-major */
  readonly W: Float64Array;
  /** ∂out/∂q, ∂out/∂q̇: nout×nv row-major; ∂out/∂y: nout×inputs.length row-major */
  readonly dq: Float64Array;
  readonly dv: Float64Array;
  readonly dy: Float64Array;
  /** flops of the last call: jacobians (their fill), solves (transposed), products */
  readonly flops = { jacobians: new Flops(), solve: new Flops(), products: new Flops() };
  private readonly e: Float64Array;
  /** row of each selected input when it is a known variable (−1 for a measurement block's input) */
  private readonly knownRow: Int32Array;

  constructor(readonly solver: SparseSolver, outputs: ArrayLike<number>, opts: AdjointOptions = {}) {
    const sys = solver.sys, n = sys.n, nv = sys.model.nv;
    for (let k = 0; k < outputs.length; k++) {
      const c = outputs[k];
      if (!(Number.isInteger(c) && c >= 0 && c < n)) throw new RangeError(`AdjointSensitivity: output ${c} is not a column of d (0..${n - 1})`);
    }
    this.outputs = Int32Array.from(outputs);
    if (sys.m !== n) throw new RangeError(`AdjointSensitivity: the system "${sys.problem.name}" has ${sys.m} equations for ${n} unknowns`);
    this.jacobians = new SystemJacobians(sys, { pattern: opts.pattern });
    const inputs = opts.inputs ?? [];
    for (let c = 0; c < inputs.length; c++) {
      const k = inputs[c];
      if (!(Number.isInteger(k) && k >= 0 && k < sys.ny)) throw new RangeError(`AdjointSensitivity: input index ${k} is outside 0..${sys.ny - 1} (the system "${sys.problem.name}" has ${sys.ny} inputs)`);
    }
    this.inputs = Int32Array.from(inputs);
    this.knownRow = Int32Array.from(this.inputs, (k) => (k < sys.knownRow.length ? sys.knownRow[k] : -1));
    const nout = this.outputs.length;
    this.W = new Float64Array(nout * n);
    this.dq = new Float64Array(nout * nv);
    this.dv = new Float64Array(nout * nv);
    this.dy = new Float64Array(nout * this.inputs.length);
    this.e = new Float64Array(n);
  }

  /**
   * ∂out/∂q, ∂out/∂q̇, ∂out/∂y at the solver's last step, whose (q, q̇, y) must be given again.
   * Allocation free.
   */
  compute(q: ArrayLike<number>, qd: ArrayLike<number> | null, y: Float64Array): this {
    const J = this.jacobians, P = J.pattern, lu = this.solver.lu, n = J.m, nv = J.nv;
    J.fill(this.solver.values, this.solver.d, q, qd, y);
    this.flops.jacobians.reset().accumulate(J.flops);
    const fs = this.flops.solve, fp = this.flops.products;
    fs.reset(); fp.reset();
    const { W, e, outputs } = this;
    const nout = outputs.length;
    // w_r = D⁻ᵀ e_r
    for (let r = 0; r < nout; r++) {
      e.fill(0);
      e[outputs[r]] = 1;
      lu.solveTransposed(e, e);
      W.set(e, r * n);
      fs.mul += lu.solveMuls; fs.add += lu.solveAdds; fs.div += lu.solveDivs;
    }
    // ∂out/∂x = −Wᵀ J_x over the pattern of J_x
    product(this.dq, W, P.Jq, n, nout, nv, fp);
    product(this.dv, W, P.Jv, n, nout, nv, fp);
    const Jy = P.Jy, ni = this.inputs.length;
    for (let c = 0; c < ni; c++) {
      const k = this.inputs[c], row = this.knownRow[c];
      for (let r = 0; r < nout; r++) {
        if (row >= 0) {
          // J_y = −1 on the known row: ∂out_r/∂y_c = w_r[row]
          this.dy[r * ni + c] = W[r * n + row];
          continue;
        }
        let s = 0;
        for (let t = Jy.Ap[k]; t < Jy.Ap[k + 1]; t++) s += W[r * n + Jy.Ai[t]] * Jy.Ax[t];
        this.dy[r * ni + c] = -s;
        const nz = Jy.Ap[k + 1] - Jy.Ap[k];
        fp.mul += nz; fp.add += nz > 0 ? nz - 1 : 0;
      }
    }
    return this;
  }

  /** total flops of the last call */
  totalFlops(out: Flops = new Flops()): Flops {
    return out.reset().accumulate(this.flops.jacobians).accumulate(this.flops.solve).accumulate(this.flops.products);
  }
}

/** out (nout×nc row-major) = −Wᵀ J, W nout×n row-major, J an n×nc CSC matrix. */
function product(out: Float64Array, W: Float64Array, J: { Ap: Int32Array; Ai: Int32Array; Ax: Float64Array }, n: number, nout: number, nc: number, fl: Flops): void {
  const { Ap, Ai, Ax } = J;
  for (let r = 0; r < nout; r++) {
    const o = r * n;
    for (let k = 0; k < nc; k++) {
      let s = 0;
      for (let t = Ap[k]; t < Ap[k + 1]; t++) s += W[o + Ai[t]] * Ax[t];
      out[r * nc + k] = -s;
    }
  }
  let mul = 0, add = 0;
  for (let k = 0; k < nc; k++) {
    const nz = Ap[k + 1] - Ap[k];
    mul += nz;
    if (nz > 1) add += nz - 1;
  }
  fl.mul += nout * mul;
  fl.add += nout * add;
}
