/**
 * Sensitivities of the solution of Nori's system by reuse of its LU factors (Nori 2017
 * eqs. 3–6 and 17). Differentiating D(q) d + b(q, q̇, y) = 0 at a solution d:
 *
 *   ∂d/∂q = −D⁻¹ (∂D/∂q d + ∂b/∂q) = −D⁻¹ J_q,   ∂d/∂q̇ = −D⁻¹ ∂b/∂q̇ = −D⁻¹ J_v,   ∂d/∂y = −D⁻¹ J_y,
 *
 * one more solve per direction with the factors of the step (NumericLU.solveMany), q perturbed on
 * its manifold (tangent δq in velocity order, model/lie.ts). For inverse dynamics the τ rows of
 * these are ∂τ/∂q, ∂τ/∂q̇ and ∂τ/∂q̈ = M; for forward dynamics the q̈ rows are ∂q̈/∂q, ∂q̈/∂q̇ and
 * ∂q̈/∂τ = M⁻¹ (dynamics.ts). Any square system of SymbolicSystem works, measurement blocks
 * included (their rows by central differences, blocks.ts).
 *
 * The jacobians J_q, J_v, J_y come from jacobians.ts (dense columns, the right-hand sides of the
 * solves, gathered into the fixed CSC patterns of pattern.ts). Nothing is allocated per call.
 */
import type { SparseSolver } from '../assembly/solver.ts';
import { Flops } from '../spatial/flops.ts';
import { solveReach, type SolveReach } from '../sparse/reach.ts';
import { ReachSolver, type ReachPlan } from '../sparse/reach-code.ts';
import { SystemJacobians } from './jacobians.ts';
import type { DerivativePattern } from './pattern.ts';

export interface SensitivityOptions {
  /** the inputs y (indices into sys.inputNames) whose ∂d/∂y is wanted (default: all) */
  inputs?: ArrayLike<number>;
  /** the pattern, when one was built for this system already */
  pattern?: DerivativePattern;
  /** step of the central differences of measurement blocks (default 1e-6) */
  blockStep?: number;
  /**
   * how the sparse right-hand sides are solved: 'reach' (default) by NumericLU.solveManyReach over
   * the ops each column's fixed pattern can reach (computed once here, sparse/reach.ts); true by
   * NumericLU.solveManySparse, which runs over all n unknowns and skips the columns of the factors
   * whose unknown is zero; false every column in full (solveMany). The flops count the work done.
   */
  sparse?: boolean | 'reach';
}

export interface SensitivityWhat {
  /** ∂d/∂q (default true) */
  q?: boolean;
  /** ∂d/∂q̇ (default true) */
  v?: boolean;
  /** ∂d/∂y for the selected inputs (default true) */
  y?: boolean;
}

export class SystemSensitivity {
  readonly pattern: DerivativePattern;
  /** n = number of unknowns (= equations), nv tangent directions */
  readonly n: number;
  readonly nv: number;
  /** the jacobians J_q, J_v, J_y and ∂D/∂q (jacobians.ts) */
  readonly jacobians: SystemJacobians;
  /** ∂d/∂q and ∂d/∂q̇: n×nv column-major (column k = ∂d/∂δ_k); hold J_q, J_v while they are filled */
  readonly dd_dq: Float64Array;
  readonly dd_dv: Float64Array;
  /** the inputs of ∂d/∂y, and ∂d/∂y: n×inputs.length column-major */
  readonly inputs: Int32Array;
  readonly dd_dy: Float64Array;
  /** flops of the last call: the columns of J_q, J_v, J_y, and the solves */
  readonly flops = { jacobians: new Flops(), solve: new Flops() };
  /** how the solves skip zero work (SensitivityOptions.sparse) */
  readonly sparse: boolean | 'reach';
  /** the reach of the columns of J_q, J_v and the selected J_y (sparse 'reach'), and each column's pattern in it */
  readonly reach: SolveReach | null;
  /** the compiled reach solves (sparse 'reach'): dd_dq, dd_dv, dd_dy are views on its columns */
  readonly reachSolver: ReachSolver | null;
  private readonly patQ: Int32Array;
  private readonly patV: Int32Array;
  private readonly patY: Int32Array;
  private readonly patQV: Int32Array;
  /** where the gathered solver's D entries stand (refreshed each call: the source moves when compiled) */
  private readonly src: { src: Float64Array; map: Int32Array } = { src: new Float64Array(0), map: new Int32Array(0) };
  private readonly patYY: Int32Array;
  /** the full solve's groups (ReachSolver.solvePlan): 4 column slots, pattern, lanes, sign each */
  private readonly planN: number;
  private readonly planCols: Int32Array;
  private readonly planPat: Int32Array;
  private readonly planLanes: Uint8Array;
  private readonly planNeg: Uint8Array;
  private readonly plan: ReachPlan | null;
  /** columns per group of the last plan (1, 2 or 4), for tests and reports */
  get groups(): Uint8Array {
    return this.planLanes;
  }

  constructor(readonly solver: SparseSolver, opts: SensitivityOptions = {}) {
    const sys = solver.sys;
    if (opts.pattern && opts.pattern.sys !== sys) throw new RangeError('SystemSensitivity: the given pattern belongs to another system');
    this.jacobians = new SystemJacobians(sys, { pattern: opts.pattern, blockStep: opts.blockStep });
    this.pattern = this.jacobians.pattern;
    this.n = sys.n;
    this.nv = sys.model.nv;
    this.sparse = opts.sparse ?? 'reach';
    const inputs = opts.inputs ?? Int32Array.from({ length: sys.ny }, (_, k) => k);
    for (let c = 0; c < inputs.length; c++) {
      const k = inputs[c];
      if (!(Number.isInteger(k) && k >= 0 && k < sys.ny)) throw new RangeError(`SystemSensitivity: input index ${k} is outside 0..${sys.ny - 1} (the system "${sys.problem.name}" has ${sys.ny} inputs)`);
    }
    this.inputs = Int32Array.from(inputs);
    // one reach per distinct column pattern of J_q, J_v, J_y (selected inputs)
    const P = this.pattern, keys = new Map<string, number>(), pats: Int32Array[] = [];
    const patOf = (A: { Ap: Int32Array; Ai: Int32Array }, k: number): number => {
      const rows = A.Ai.subarray(A.Ap[k], A.Ap[k + 1]);
      const key = rows.join(',');
      let id = keys.get(key);
      if (id === undefined) { id = pats.length; keys.set(key, id); pats.push(rows); }
      return id;
    };
    const reach = this.sparse === 'reach';
    this.patQ = Int32Array.from({ length: reach ? this.nv : 0 }, (_, k) => patOf(P.Jq, k));
    this.patV = Int32Array.from({ length: reach ? this.nv : 0 }, (_, k) => patOf(P.Jv, k));
    this.patY = Int32Array.from(reach ? this.inputs : [], (k) => patOf(P.Jy, k));
    // J_q and J_v column k solved as a pair on the union of their patterns (ReachSolver.solvePairs)
    const union = (A: { Ap: Int32Array; Ai: Int32Array }, k: number, B: { Ap: Int32Array; Ai: Int32Array }, l: number): number => {
      const rows = new Set<number>([...A.Ai.subarray(A.Ap[k], A.Ap[k + 1]), ...B.Ai.subarray(B.Ap[l], B.Ap[l + 1])]);
      const u = Int32Array.from([...rows].sort((a, b) => a - b));
      const key = u.join(',');
      let id = keys.get(key);
      if (id === undefined) { id = pats.length; keys.set(key, id); pats.push(u); }
      return id;
    };
    this.patQV = Int32Array.from({ length: reach ? this.nv : 0 }, (_, k) => union(P.Jq, k, P.Jv, k));
    // the columns of J_y two by two (neighbouring inputs reach nearly the same rows)
    const ni0 = this.inputs.length;
    this.patYY = Int32Array.from({ length: reach ? ni0 >> 1 : 0 }, (_, c) => union(P.Jy, this.inputs[2 * c], P.Jy, this.inputs[2 * c + 1]));
    // candidate groups of four: ∂/∂q, ∂/∂q̇ of directions k and k+1; inputs c .. c+3
    const unionOf = (sets: Int32Array[]): number => {
      const rows = new Set<number>();
      for (const t of sets) for (const r of t) rows.add(r);
      const u = Int32Array.from([...rows].sort((a, b) => a - b));
      const key = u.join(',');
      let id = keys.get(key);
      if (id === undefined) { id = pats.length; keys.set(key, id); pats.push(u); }
      return id;
    };
    const quadQV = Int32Array.from({ length: reach ? Math.max(0, this.nv - 1) : 0 }, (_, k) => unionOf([pats[this.patQV[k]], pats[this.patQV[k + 1]]]));
    const quadY = Int32Array.from({ length: reach ? Math.max(0, ni0 - 3) : 0 }, (_, c) => unionOf([0, 1, 2, 3].map((i) => pats[this.patY[c + i]])));
    const pairY = Int32Array.from({ length: reach ? Math.max(0, ni0 - 1) : 0 }, (_, c) => unionOf([pats[this.patY[c]], pats[this.patY[c + 1]]]));
    this.reach = reach ? solveReach(solver.symbolic, pats) : null;
    // the plan of the full solve (q, q̇ and y): a group of four where its op list costs at most 10%
    // more multiply-subtracts than its members' own, else pairs (∂/∂q, ∂/∂q̇ of one direction; two
    // inputs likewise), else single columns
    const g: { cols: number[]; pat: number; neg: number }[] = [];
    if (this.reach !== null) {
      const fma = this.reach.fma, nv = this.nv;
      const close = (group: number, lanes: number, members: number[]) => lanes * fma[group] <= 1.1 * members.reduce((a, m) => a + fma[m], 0);
      for (let k = 0; k < nv;) {
        if (k + 1 < nv && close(quadQV[k], 4, [this.patQV[k], this.patQV[k], this.patQV[k + 1], this.patQV[k + 1]])) {
          g.push({ cols: [k, nv + k, k + 1, nv + k + 1], pat: quadQV[k], neg: 1 }); k += 2;
        } else {
          g.push({ cols: [k, nv + k], pat: this.patQV[k], neg: 1 }); k += 1;
        }
      }
      for (let c = 0; c < ni0;) {
        const y0 = 2 * nv + c;
        if (c + 3 < ni0 && close(quadY[c], 4, [0, 1, 2, 3].map((i) => this.patY[c + i]))) {
          g.push({ cols: [y0, y0 + 1, y0 + 2, y0 + 3], pat: quadY[c], neg: 0 }); c += 4;
        } else if (c + 1 < ni0 && close(pairY[c], 2, [this.patY[c], this.patY[c + 1]])) {
          g.push({ cols: [y0, y0 + 1], pat: pairY[c], neg: 0 }); c += 2;
        } else {
          g.push({ cols: [y0], pat: this.patY[c], neg: 0 }); c += 1;
        }
      }
    }
    this.planN = g.length;
    this.planCols = new Int32Array(4 * g.length);
    g.forEach((x, i) => this.planCols.set(x.cols, 4 * i));
    this.planPat = Int32Array.from(g, (x) => x.pat);
    this.planLanes = Uint8Array.from(g, (x) => x.cols.length);
    this.planNeg = Uint8Array.from(g, (x) => x.neg);
    const n = this.n, nv = this.nv, ni = this.inputs.length;
    this.reachSolver = this.reach === null ? null : new ReachSolver(solver.lu, this.reach, 2 * nv + ni);
    this.plan = this.reachSolver === null ? null : this.reachSolver.plan(this.planCols, this.planPat, this.planLanes, this.planNeg, this.planN);
    const cols = this.reachSolver === null ? new Float64Array(n * (2 * nv + ni)) : this.reachSolver.columns;
    this.dd_dq = cols.subarray(0, n * nv);
    this.dd_dv = cols.subarray(n * nv, 2 * n * nv);
    this.dd_dy = cols.subarray(2 * n * nv, n * (2 * nv + ni));
  }

  /** values of ∂D/∂q_k on D's slots (jacobians.ts) */
  get dD(): Float64Array {
    return this.jacobians.dD;
  }

  /**
   * J_q, J_v, J_y (and ∂D/∂q) at the solver's last step, whose (q, q̇, y) must be given again here
   * (they are not copied by the solver). Allocation free.
   */
  /**
   * J_q, J_v, J_y (and ∂D/∂q) at the solver's last step, whose (q, q̇, y) must be given again here
   * (they are not copied by the solver); the dense columns of J_q, J_v are left in dd_dq, dd_dv
   * (and not gathered into pattern.Jq, pattern.Jv, whose values this class never reads).
   * Allocation free.
   */
  fillJacobians(q: ArrayLike<number>, qd: ArrayLike<number> | null, y: Float64Array): void {
    const solver = this.solver;
    if (solver.lagging && this.jacobians.blocks === null) {
      // the transforms straight from the gathered source: D's other entries are not brought up to date
      const src = this.src;
      src.src = solver.lu.source; src.map = solver.gatherMap!;
      this.jacobians.fill(solver.valuesLagging, solver.d, q, qd, y, this.dd_dq, this.dd_dv, false, src);
    } else {
      this.jacobians.fill(solver.values, solver.d, q, qd, y, this.dd_dq, this.dd_dv, false);
    }
    const fl = this.flops.jacobians;
    fl.reset().accumulate(this.jacobians.flops);
  }

  /**
   * ∂d/∂q, ∂d/∂q̇, ∂d/∂y (the selected inputs) from the jacobians of the last fillJacobians, by
   * solves with the factors of the solver's last step. Allocation free.
   */
  solve(what?: SensitivityWhat): void {
    const n = this.n, nv = this.nv;
    this.flops.solve.reset();
    const wq = what?.q ?? true, wv = what?.v ?? true, wy = what?.y ?? true, rs = this.reachSolver;
    if (wq && wv && wy && rs !== null) {
      // everything in one plan of groups (the factors copied into the solver once)
      this.fillY();
      rs.solvePlan(this.plan!);
      const fl = this.flops.solve;
      fl.mul += rs.solveMuls; fl.add += rs.solveAdds; fl.div += rs.solveDivs;
      return;
    }
    if (wq && wv && rs !== null) {
      // ∂d/∂q and ∂d/∂q̇ of direction k on one op list (the union of the two patterns' reaches)
      rs.solvePairs(0, nv, nv, this.patQV, true);
      const fl = this.flops.solve;
      fl.mul += rs.solveMuls; fl.add += rs.solveAdds; fl.div += rs.solveDivs;
    } else {
      if (wq) this.solveColumns(this.dd_dq, 0, nv, this.patQ, true);
      if (wv) this.solveColumns(this.dd_dv, nv, nv, this.patV, true);
    }
    if (wy) {
      const B = this.dd_dy, inputs = this.inputs;
      this.fillY();
      const ni = inputs.length;
      if (rs !== null && ni >= 2) {
        const fl = this.flops.solve;
        rs.solvePairs(2 * nv, 2 * nv + 1, ni >> 1, this.patYY, false, 2);
        fl.mul += rs.solveMuls; fl.add += rs.solveAdds; fl.div += rs.solveDivs;
        if (ni & 1) this.solveColumns(B.subarray((ni - 1) * n), 2 * nv + ni - 1, 1, this.patY.subarray(ni - 1), false);
      } else {
        this.solveColumns(B, 2 * nv, ni, this.patY, false);
      }
    }
  }

  /** the right-hand sides −J_y of the selected inputs into dd_dy */
  private fillY(): void {
    const n = this.n, B = this.dd_dy, Jy = this.pattern.Jy, inputs = this.inputs;
    B.fill(0);
    for (let c = 0; c < inputs.length; c++) {
      const k = inputs[c];
      for (let e = Jy.Ap[k]; e < Jy.Ap[k + 1]; e++) B[c * n + Jy.Ai[e]] = -Jy.Ax[e];
    }
  }

  /** X = D⁻¹ X (−D⁻¹ X with `neg`) in place, X the columns col0.. of dd_dq|dd_dv|dd_dy: over the reach, sparse or full (SensitivityOptions.sparse); counted */
  private solveColumns(X: Float64Array, col0: number, nrhs: number, pat: Int32Array, neg: boolean): void {
    const fl = this.flops.solve;
    const rs = this.reachSolver;
    if (rs !== null) {
      rs.solve(col0, nrhs, pat, neg);
      fl.mul += rs.solveMuls; fl.add += rs.solveAdds; fl.div += rs.solveDivs;
      return;
    }
    const lu = this.solver.lu;
    if (this.sparse) lu.solveManySparse(X, X, nrhs);
    else lu.solveMany(X, X, nrhs);
    if (neg) negate(X);
    fl.mul += lu.solveMuls; fl.add += lu.solveAdds; fl.div += lu.solveDivs;
  }

  /** fillJacobians then solve: the sensitivities at the solver's last step (q, q̇, y). */
  compute(q: ArrayLike<number>, qd: ArrayLike<number> | null, y: Float64Array, what?: SensitivityWhat): this {
    this.fillJacobians(q, qd, y);
    this.solve(what);
    return this;
  }

  /** total flops of the last call (jacobians + solves) */
  totalFlops(out: Flops = new Flops()): Flops {
    return out.reset().accumulate(this.flops.jacobians).accumulate(this.flops.solve);
  }
}

function negate(x: Float64Array): void {
  for (let k = 0; k < x.length; k++) x[k] = -x[k];
}
