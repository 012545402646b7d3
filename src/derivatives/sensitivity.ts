/**
 * Sensitivities of the solution of Nori's system by reuse of its LU factors (issue 8; paper 004
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
 * The columns of J_q and J_v are written densely (one column of length m per direction, the
 * right-hand sides of the solves) by spatial kernels, then gathered into the fixed CSC patterns of
 * pattern.ts. Per direction k of joint i (λ = λ(i), S_k its motion-subspace column):
 *   J_q:  c3a[i] += (∂ⁱX_λ/∂q_k) a_λ,  c3f[λ] += (∂ⁱX_λ/∂q_k)ᵀ f_i     (∂D/∂q_k d, on D's slots)
 *         or, for a root, c3a[i] = (ⁱX_0 a_0) × S_k                      (the gravity term of b)
 *         δv_i = (ⁱX_λ v_λ) × S_k,  δv_j = ʲX_λ(j) δv_λ(j) down the subtree,
 *         c3a[j] += δv_j × v_J,j  (c_j),   c3f[j] += δv_j ×* I_j v_j + v_j ×* I_j δv_j  (ν_j)
 *   J_v:  δv_i = S_k, c3a[i] = (ⁱX_λ v_λ) × S_k (= S_k × v_J + v_i × S_k), then as above.
 * Nothing is allocated per call.
 */
import { crossForceS, crossMotionS, inertiaMulS } from '../algorithms/jcalcderiv.ts';
import type { SparseSolver } from '../assembly/solver.ts';
import { Flops } from '../spatial/flops.ts';
import { inertiaMulMotion } from '../spatial/inertia.ts';
import { crossForce, crossMotion } from '../spatial/motion.ts';
import { xApplyMotion } from '../spatial/transform.ts';
import { BlockDifferences } from './blocks.ts';
import { DerivativePattern } from './pattern.ts';

export interface SensitivityOptions {
  /** the inputs y (indices into sys.inputNames) whose ∂d/∂y is wanted (default: all) */
  inputs?: ArrayLike<number>;
  /** the pattern, when one was built for this system already */
  pattern?: DerivativePattern;
  /** step of the central differences of measurement blocks (default 1e-6) */
  blockStep?: number;
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
  /** values of ∂D/∂q_k on D's slots (layout of pattern.dStart; the slots are sys.xSlotA/xSlotF of the joint's codes) */
  readonly dD: Float64Array;
  /** ∂d/∂q and ∂d/∂q̇: n×nv column-major (column k = ∂d/∂δ_k); hold J_q, J_v while they are filled */
  readonly dd_dq: Float64Array;
  readonly dd_dv: Float64Array;
  /** the inputs of ∂d/∂y, and ∂d/∂y: n×inputs.length column-major */
  readonly inputs: Int32Array;
  readonly dd_dy: Float64Array;
  /** flops of the last call: the columns of J_q, J_v, J_y, and the solves */
  readonly flops = { jacobians: new Flops(), solve: new Flops() };
  /** measurement blocks by central differences (null when the system has none) */
  readonly blocks: BlockDifferences | null;
  /** scratch: ⁱX_λ at the codes, I_i v_i, ⁱX_λ v_λ, δv_i per body, 6-vectors */
  private readonly Xval: Float64Array;
  private readonly h: Float64Array[];
  private readonly Xv: Float64Array[];
  private readonly dvb: Float64Array[];
  private readonly t6 = new Float64Array(6);
  private readonly u6 = new Float64Array(6);
  private readonly w6 = new Float64Array(6);

  constructor(readonly solver: SparseSolver, opts: SensitivityOptions = {}) {
    const sys = solver.sys;
    if (opts.pattern && opts.pattern.sys !== sys) throw new RangeError('SystemSensitivity: the given pattern belongs to another system');
    this.pattern = opts.pattern ?? new DerivativePattern(sys);
    const model = sys.model, nb = model.nb;
    this.n = sys.n;
    this.nv = model.nv;
    this.dD = new Float64Array(this.pattern.dStart[this.nv]);
    this.dd_dq = new Float64Array(this.n * this.nv);
    this.dd_dv = new Float64Array(this.n * this.nv);
    const inputs = opts.inputs ?? Int32Array.from({ length: sys.ny }, (_, k) => k);
    for (let c = 0; c < inputs.length; c++) {
      const k = inputs[c];
      if (!(Number.isInteger(k) && k >= 0 && k < sys.ny)) throw new RangeError(`SystemSensitivity: input index ${k} is outside 0..${sys.ny - 1} (the system "${sys.problem.name}" has ${sys.ny} inputs)`);
    }
    this.inputs = Int32Array.from(inputs);
    this.dd_dy = new Float64Array(this.n * this.inputs.length);
    this.Xval = new Float64Array(sys.xCode.length);
    const mk = () => Array.from({ length: nb }, () => new Float64Array(6));
    this.h = mk(); this.Xv = mk(); this.dvb = mk();
    // ∂b/∂y = −1 on the known rows (b = −y there)
    const Jy = this.pattern.Jy;
    for (let k = 0; k < sys.knownRow.length; k++) {
      for (let e = Jy.Ap[k]; e < Jy.Ap[k + 1]; e++) if (Jy.Ai[e] === sys.knownRow[k]) Jy.Ax[e] = -1;
    }
    this.blocks = sys.blocks.length > 0 ? new BlockDifferences(sys, this.pattern, opts.blockStep ?? 1e-6) : null;
  }

  /**
   * J_q, J_v, J_y (and ∂D/∂q) at the solver's last step, whose (q, q̇, y) must be given again here
   * (they are not copied by the solver). Allocation free.
   */
  fillJacobians(q: ArrayLike<number>, qd: ArrayLike<number> | null, y: Float64Array): void {
    const P = this.pattern, sys = P.sys, model = sys.model, cols = P.cols, L = sys.layout;
    const vals = this.solver.values, kin = vals.kin, Ax = vals.Ax, b = vals.b, d = this.solver.d;
    const m = sys.m, nv = this.nv, nb = model.nb;
    const fl = this.flops.jacobians;
    fl.reset();
    const { t6, u6, w6, Xval, h, Xv, dvb } = this;
    for (let e = 0; e < Xval.length; e++) Xval[e] = Ax[sys.xSlotA[e]];
    const hasV = qd !== null;
    if (hasV) {
      for (let i = 0; i < nb; i++) {
        inertiaMulMotion(h[i], model.I[i], kin.v[i], fl);
        if (model.parents[i] < 0) continue;
        const v = kin.v[i], vJ = kin.vJ[i], x = Xv[i];
        for (let r = 0; r < 6; r++) x[r] = v[r] - vJ[r]; // ⁱX_λ v_λ
        fl.add += 6;
      }
    }
    // J_q
    const Rq = this.dd_dq;
    Rq.fill(0);
    const { dStart, tStart, tCoef, tSrc } = P;
    for (let k = 0; k < nv; k++) {
      const i = cols.body[k], p = model.parents[i], o = k * m;
      const rA = o + sys.rowA[i];
      if (p >= 0) {
        const t0 = dStart[k], t1 = dStart[k + 1], e0 = sys.xStart[i];
        const rF = o + sys.rowF[p], la = L.a[p], lf = L.f[i];
        for (let t = t0; t < t1; t++) {
          let val = 0;
          for (let u = tStart[t]; u < tStart[t + 1]; u++) val += tCoef[u] * Xval[tSrc[u]];
          this.dD[t] = val;
          const code = sys.xCode[e0 + t - t0], r = (code / 6) | 0, c = code - 6 * r;
          Rq[rA + r] += val * d[la + c]; // (∂ⁱX_λ/∂q_k) a_λ
          Rq[rF + c] += val * d[lf + r]; // (∂ⁱX_λ/∂q_k)ᵀ f_i
        }
        fl.mul += P.dMul[k]; fl.add += P.dAdd[k];
      } else {
        // ∂(ⁱX_0 a_0)/∂q_k = (ⁱX_0 a_0) × S_k; ⁱX_0 a_0 is b(3a) of the fill
        for (let r = 0; r < 6; r++) t6[r] = b[sys.rowA[i] + r];
        crossMotionS(u6, t6, cols, k, fl);
        for (let r = 0; r < 6; r++) Rq[rA + r] = u6[r];
      }
      if (!hasV || p < 0) continue;
      // δv_i = (ⁱX_λ v_λ) × S_k, carried down the subtree; c_j and ν_j
      crossMotionS(dvb[i], Xv[i], cols, k, fl);
      this.velocityTerms(Rq, o, i, true, P.rowsA[k], fl);
    }
    // J_v
    const Rv = this.dd_dv;
    Rv.fill(0);
    if (hasV) {
      for (let k = 0; k < nv; k++) {
        const i = cols.body[k], p = model.parents[i], o = k * m;
        if (p >= 0 && model.nvi[i] > 0) {
          crossMotionS(t6, Xv[i], cols, k, fl); // δc_i = S_k × v_J + v_i × S_k = (ⁱX_λ v_λ) × S_k
          for (let r = 0; r < 6; r++) Rv[o + sys.rowA[i] + r] = t6[r];
        }
        // δν_i = S_k ×* I_i v_i + v_i ×* I_i S_k
        crossForceS(t6, cols, k, h[i], fl);
        inertiaMulS(u6, model.I[i], cols, k, fl);
        crossForce(w6, kin.v[i], u6, fl);
        for (let r = 0; r < 6; r++) Rv[o + sys.rowF[i] + r] = t6[r] + w6[r];
        fl.add += 6;
        for (let r = 0; r < 6; r++) dvb[i][r] = cols.s[6 * k + r];
        this.velocityTerms(Rv, o, i, false, 0, fl);
      }
    }
    if (this.blocks) this.blocks.fill(this, q, qd, y);
    gather(P.Jq, Rq, m);
    gather(P.Jv, Rv, m);
  }

  /**
   * The c_j and ν_j rows of one column for the bodies of the subtree of i, given δv_i in dvb[i]:
   * with `own`, body i itself gets δc_i = δv_i × v_J,i added to its `rowsA` rows already filled, and
   * δν_i; the bodies below always get both.
   */
  private velocityTerms(R: Float64Array, o: number, i: number, own: boolean, rowsA: number, fl: Flops): void {
    const sys = this.pattern.sys, model = sys.model, kin = this.solver.values.kin;
    const { t6, u6, w6, h, dvb } = this;
    const sub = this.pattern.subtree[i];
    for (let e = own ? 0 : 1; e < sub.length; e++) {
      const j = sub[e];
      const dv = dvb[j];
      if (j !== i) xApplyMotion(dv, kin.Xup[j], dvb[model.parents[j]], fl);
      if (model.nvi[j] > 0) {
        crossMotion(t6, dv, kin.vJ[j], fl);
        const rA = o + sys.rowA[j];
        for (let r = 0; r < 6; r++) R[rA + r] += t6[r];
        if (j === i) fl.add += rowsA;
      }
      crossForce(t6, dv, h[j], fl);
      inertiaMulMotion(u6, model.I[j], dv, fl);
      crossForce(w6, kin.v[j], u6, fl);
      const rF = o + sys.rowF[j];
      for (let r = 0; r < 6; r++) R[rF + r] += t6[r] + w6[r];
      fl.add += 6;
    }
  }

  /**
   * ∂d/∂q, ∂d/∂q̇, ∂d/∂y (the selected inputs) from the jacobians of the last fillJacobians, by
   * solves with the factors of the solver's last step. Allocation free.
   */
  solve(what?: SensitivityWhat): void {
    const lu = this.solver.lu, n = this.n, nv = this.nv;
    this.flops.solve.reset();
    if (what?.q ?? true) {
      lu.solveMany(this.dd_dq, this.dd_dq, nv);
      this.countSolve();
      negate(this.dd_dq);
    }
    if (what?.v ?? true) {
      lu.solveMany(this.dd_dv, this.dd_dv, nv);
      this.countSolve();
      negate(this.dd_dv);
    }
    if (what?.y ?? true) {
      const B = this.dd_dy, Jy = this.pattern.Jy, inputs = this.inputs;
      B.fill(0);
      for (let c = 0; c < inputs.length; c++) {
        const k = inputs[c];
        for (let e = Jy.Ap[k]; e < Jy.Ap[k + 1]; e++) B[c * n + Jy.Ai[e]] = -Jy.Ax[e];
      }
      lu.solveMany(B, B, inputs.length);
      this.countSolve();
    }
  }

  private countSolve(): void {
    const lu = this.solver.lu, fl = this.flops.solve;
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

/** A.Ax[e] = R[col·m + row] over the pattern of A (values of a dense column-major m×n in A's slots). */
function gather(A: { Ap: Int32Array; Ai: Int32Array; Ax: Float64Array; n: number }, R: Float64Array, m: number): void {
  for (let k = 0; k < A.n; k++) {
    const o = k * m;
    for (let e = A.Ap[k]; e < A.Ap[k + 1]; e++) A.Ax[e] = R[o + A.Ai[e]];
  }
}

function negate(x: Float64Array): void {
  for (let k = 0; k < x.length; k++) x[k] = -x[k];
}
