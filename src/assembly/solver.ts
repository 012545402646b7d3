/**
 * The runtime of sparsedyn (Nori (2017) §IV-D, §V-D, §VI): for a symbolic system and its offline
 * ordering (a SymbolicLU, computed once per model and problem, or loaded), each time step
 *   1. kinematics (ⁱX_λ, v_i, c_i) and the values of D(q) and b(q, q̇, y), in place;
 *   2. numeric refactorization of D on the fixed pivot order and patterns;
 *   3. d = D \ (−b),
 * with the exact flops of each part. Nothing is allocated per step.
 */
import { checkConfiguration, checkVector } from '../algorithms/validate.ts';
import { Flops } from '../spatial/flops.ts';
import { analyze, type AnalyzeOptions } from '../sparse/analyze.ts';
import { NumericLU } from '../sparse/numeric.ts';
import type { SymbolicLU } from '../sparse/symbolic.ts';
import { FillCode } from './fill-code.ts';
import { GeneratedKinematics } from './kinematics-code.ts';
import { fillSource, fillSourceCompiled, fillSystem, sourceGather, SystemValues, type SymbolicSystem } from './system.ts';

/** Flops of one step of a sparse solver, by part. */
export interface StepFlops {
  /** velocity kinematics: ⁱX_λ, v_i, c_i (shared with RNEA/ABA) */
  kinematics: Flops;
  /** the remaining values of D and b */
  fill: Flops;
  /** numeric LU */
  factor: Flops;
  /** the two triangular solves */
  solve: Flops;
}

/**
 * Options of the sparse solvers: the offline ordering (computed, or given as a SymbolicLU) and the
 * pivot thresholds of the runtime LU.
 */
export interface SolverOptions extends AnalyzeOptions {
  /** an ordering computed earlier (e.g. loaded from JSON); it must belong to this system's pattern */
  symbolic?: SymbolicLU;
  /** pivot threshold when a block has to be re-pivoted (default 0.001, as KLU) */
  tol?: number;
  /**
   * acceptance threshold of the offline pivot order at each refactor (default 1e-6): the rows of D
   * mix physical units (dimensionless transforms, masses, inertias of 1e-4 kg m²), so a pivot chosen
   * on the pattern can sit below KLU's 0.001 of its column with no loss of accuracy; the order is
   * kept unless a pivot falls below 1e-6 of its column or the growth exceeds 1e8, and the block is
   * then re-pivoted with `tol` (reported in lu.repivots).
   */
  checkTol?: number;
  /**
   * steps of iterative refinement in each diagonal block of size ≥ 2, with the factors of the step
   * (default 0 here; LuForwardDynamics and the estimator use DYNAMICS_REFINE): the kept pivot order
   * can meet small pivots on light bodies (growth), and one step brings the solve back to the
   * accuracy of the system's own rounding. See NumericLU (FactorOptions.refine).
   */
  refine?: number;
  /** precision of the refinement residual (default 'working') */
  residual?: 'working' | 'extended';
  /** with `refine`: the compiled code holds the solve without refinement too (FactorOptions.plainSolve) */
  plainSolve?: boolean;
  /** refinement stops once a block's correction is below refineTol of its solution (default 2⁻⁵²) */
  refineTol?: number;
  /**
   * 'needed': a block's refinement step runs only when the componentwise backward error of its
   * first solution exceeds `refineOmega` (Oettli–Prager, as LAPACK's xGERFS); 'always' (default):
   * every step runs (FactorOptions.refineWhen: why 'always' is the default)
   */
  refineWhen?: 'needed' | 'always';
  /** threshold of that test (default REFINE_OMEGA = 2⁻⁵²) */
  refineOmega?: number;
  /** row scaling of D: 'none' (default), 'max' (per refactor) or fixed factors per row (FactorOptions.scale) */
  scale?: 'none' | 'max' | ArrayLike<number>;
  /** WebAssembly for the factorization of D (FactorOptions.compile; default 'auto': from the 16th step, straight-line code up to FactorOptions.compileLimit, loop kernels above) */
  compile?: 'auto' | 'always' | 'loops' | 'never';
  /**
   * fill a source vector instead of D's values (sourceGather, FactorOptions.gather; default false):
   * each transform ⁱX_λ is written once per step, 18 values in a row, and the compiled factorization
   * reads them where they stand, where the plain fill scatters every entry into two slots of D and
   * copies D into the code's memory. `values.Ax` is then brought up to date when `values` is read
   * (so keep no reference to `values` across steps). Same factors, solutions and flops.
   *
   * D's constant entries are declared fixed (FactorOptions.gather.fixed) and the source is left
   * unchanged until the step's solve (gather.solveFromSource): a triangular D (inverse dynamics) is
   * then solved from the source row by row, its refactor copying and checking nothing. Once the
   * factorization runs straight-line code, the fill's arithmetic (−E r×, the bias wrenches ν_i)
   * runs as generated WebAssembly in the code's memory (fill-code.ts) and b is written into the
   * code's right-hand side buffer, from which `values.b` is brought up to date when read.
   */
  gather?: boolean;
  /**
   * with `gather`, once the generated fill runs: the kinematics (ⁱX_λ, v_i, c_i) by WebAssembly
   * generated per model (kinematics-code.ts) instead of forwardKinematics, written where the fill
   * reads them (default false; LuInverseDynamics and LuForwardDynamics turn it on). Same values to
   * rounding, same flop counts (forwardKinematics's: GeneratedKinematics.flops). `values.kin` is then
   * brought up to date when `values` or `valuesLagging` is read. Not with measurement blocks (they
   * read the kinematics during the fill).
   */
  kinematicsCode?: boolean;
}

/** Default acceptance threshold of the offline pivot order for the systems of sparsedyn (SolverOptions.checkTol). */
export const DYNAMICS_CHECK_TOL = 1e-6;

/**
 * Refinement steps per block used by the robot solvers (LuForwardDynamics, LuInverseDynamics, the
 * estimator): one step in working precision. Measured on the robot corpus and on synthetic robots
 * with gram links (scripts/bench-accuracy.ts): it brings forward dynamics from errors of up to 1e-3
 * to ABA's accuracy, for 1.5× the flops of factor + solve (median; 1.0–1.7); more steps, or a
 * residual in extended precision, gain nothing more (the error left is the assembled system's own
 * rounding). With refineWhen 'needed' the step runs only in the blocks whose backward-error test
 * fails; reports/accuracy gives how often (on most robots, nearly always).
 */
export const DYNAMICS_REFINE = 1;

/**
 * The runtime of any square SymbolicSystem: the offline ordering once (constructor), then per
 * `step` the values of D(q) and b(q, q̇, y), a numeric refactorization on the fixed pivot order and
 * d = −D⁻¹ b, with exact flops by part. Allocation free per step.
 */
export class SparseSolver {
  readonly symbolic: SymbolicLU;
  readonly lu: NumericLU;
  /** the solution d (all unknowns, in the layout's column order) of the last step */
  get d(): Float64Array {
    // after stepView, the compiled solve's copy into d is made when d is read
    this.lu.settle(this.dBuf);
    return this.dBuf;
  }
  private readonly dBuf: Float64Array;
  /** −b of the last step (formed when read: the step solves with b itself, NumericLU.solveNegated) */
  get rhs(): Float64Array {
    this.syncB();
    const r = this.negb, b = this.vals.b;
    for (let k = 0; k < r.length; k++) r[k] = -b[k];
    return r;
  }
  private readonly negb: Float64Array;
  /** analysis time in ms (0 when the symbolic analysis was given) */
  readonly analyzeMs: number;
  /** flops of the last step, by part */
  readonly flops: StepFlops = { kinematics: new Flops(), fill: new Flops(), factor: new Flops(), solve: new Flops() };
  private readonly vals: SystemValues;
  /** SolverOptions.gather: the map of D's entries into lu.source (null: plain fill); whether vals.Ax lags behind the source */
  private readonly gmap: Int32Array | null;
  private stale = false;
  /**
   * the generated fill of the compiled factorization (gather; rebuilt when its code changes); it
   * writes b into the code's right-hand side buffer, and vals.b receives it by a copy deferred on
   * the factorization (NumericLU's defer: made when read, or before other work on the factors)
   */
  private fillCode: FillCode | null = null;
  private fillFailed = false;
  private fillMem: WebAssembly.Memory | null = null;
  /** SolverOptions.kinematicsCode: the generated kinematics (made with each generated fill, in its memory; null: forwardKinematics), and whether vals.kin lags behind it (and with q̇) */
  private readonly kinWanted: boolean;
  private kinCode: GeneratedKinematics | null = null;
  /** the generated fill the kinematics were made for (in its memory) */
  private kinFor: FillCode | null = null;
  private kinStale = false;
  private kinWithVelocity = false;
  private kinLast = false;
  /** the generated fill and the y whose entries are all in its memory (stepView's yLive) */
  private yFor: FillCode | null = null;
  private yLast: Float64Array | null = null;
  private yHead: Float64Array = new Float64Array(0);

  constructor(readonly sys: SymbolicSystem, opts: SolverOptions = {}) {
    if (sys.m !== sys.n) {
      throw new RangeError(`the system "${sys.problem.name}" has ${sys.m} equations for ${sys.n} unknowns; the sparse LU needs a square system`);
    }
    const names = { rowNames: sys.rowNames, colNames: sys.layout.names };
    const t0 = performance.now();
    if (opts.symbolic) {
      const S = opts.symbolic;
      if (S.n !== sys.n || S.nnz !== sys.nnz) throw new RangeError(`the given SymbolicLU (n = ${S.n}, nnz = ${S.nnz}) does not belong to this system (n = ${sys.n}, nnz = ${sys.nnz})`);
      for (let j = 0; j <= sys.n; j++) if (S.Ap[j] !== sys.pattern.Ap[j]) throw new RangeError(`the given SymbolicLU's pattern differs from this system's at column ${sys.layout.names[Math.max(0, j - 1)]}`);
      this.symbolic = S;
    } else {
      this.symbolic = analyze(sys.pattern, { ...opts, ...names });
    }
    this.analyzeMs = opts.symbolic ? 0 : performance.now() - t0;
    this.vals = new SystemValues(sys);
    this.kinWanted = opts.kinematicsCode === true && sys.blocks.length === 0;
    const gather = opts.gather === true ? sourceGather(sys) : null;
    this.gmap = gather === null ? null : gather.map;
    this.lu = new NumericLU(this.symbolic, {
      tol: opts.tol, checkTol: opts.checkTol ?? DYNAMICS_CHECK_TOL,
      refine: opts.refine, residual: opts.residual, refineTol: opts.refineTol, refineWhen: opts.refineWhen, refineOmega: opts.refineOmega, plainSolve: opts.plainSolve, scale: opts.scale, compile: opts.compile, ...names,
      ...(gather === null ? {} : { gather: { ...gather, fixed: fixedSource(sys, gather.size), solveFromSource: true } }),
    });
    // D's own values (constants) in the source, once
    if (gather !== null) this.lu.source.set(this.vals.Ax);
    this.dBuf = new Float64Array(sys.n);
    this.negb = new Float64Array(sys.m);
  }

  /** d for (q, q̇, y); y holds the system's inputs (sys.inputNames). Validates the inputs. */
  step(q: ArrayLike<number>, qd: ArrayLike<number> | null, y: Float64Array): Float64Array {
    const model = this.sys.model;
    checkConfiguration(model, q);
    if (qd !== null) checkVector(model, 'v', qd, false);
    if (y.length !== this.sys.ny) throw new RangeError(`y has length ${y.length}, expected ${this.sys.ny} inputs (${this.sys.inputNames.slice(0, 3).join(', ')}, …)`);
    for (let k = 0; k < y.length; k++) {
      if (!Number.isFinite(y[k])) throw new RangeError(`input ${this.sys.inputNames[k]} is ${y[k]}: every input must be a finite number`);
    }
    return this.stepUnchecked(q, qd, y);
  }

  /**
   * The values of the last step without bringing D's entries up to date (SolverOptions.gather): b
   * and the kinematics are current; while `lagging`, D's entry t is lu.source[gatherMap[t]] and not
   * values.Ax[t]. For readers of a few entries (the derivatives read the transforms); `values`
   * brings all of D up to date.
   */
  get valuesLagging(): SystemValues {
    this.syncB();
    this.syncKin();
    return this.vals;
  }

  /** vals.b from the compiled code's right-hand side buffer, where the generated fill wrote it (a copy deferred, with d's) */
  private syncB(): void {
    this.lu.settle();
  }

  /** whether the last step's kinematics ran as generated code (SolverOptions.kinematicsCode) */
  get kinematicsGenerated(): boolean {
    return this.kinLast;
  }

  /** vals.kin from the generated kinematics (SolverOptions.kinematicsCode), where they were computed */
  private syncKin(): void {
    if (this.kinStale) {
      this.kinCode!.copyTo(this.vals.kin, this.kinWithVelocity);
      this.kinStale = false;
    }
  }

  /** whether valuesLagging.Ax lags behind lu.source (read D's entry t as lu.source[gatherMap[t]]) */
  get lagging(): boolean {
    return this.stale;
  }

  /** SolverOptions.gather: D's entry t is lu.source[gatherMap[t]] (null without gather) */
  get gatherMap(): Int32Array | null {
    return this.gmap;
  }

  /** the values of D and b of the last step (D brought up to date from the source with SolverOptions.gather) */
  get values(): SystemValues {
    this.syncB();
    this.syncKin();
    if (this.stale) {
      const g = this.gmap!, src = this.lu.source, Ax = this.vals.Ax;
      for (let t = 0; t < Ax.length; t++) Ax[t] = src[g[t]];
      this.stale = false;
    }
    return this.vals;
  }

  /** step without the entry checks. Allocation free. */
  stepUnchecked(q: ArrayLike<number>, qd: ArrayLike<number> | null, y: Float64Array): Float64Array {
    const x = this.stepView(q, qd, y);
    return x === this.dBuf ? x : this.d;
  }

  /**
   * stepUnchecked, returning the solution where it stands: with the compiled solve, the code's own
   * buffer (read only, until the next step; `d` receives it when read), otherwise d. `yLive`: y's
   * entries from yLive on are those of the last step with the same y (the robot solvers' external
   * wrenches, zero call after call), not copied again into the factorization's memory. Allocation
   * free.
   */
  stepView(q: ArrayLike<number>, qd: ArrayLike<number> | null, y: Float64Array, yLive = y.length): Float64Array {
    const vals = this.vals, lu = this.lu, fl = this.flops;
    let x = this.dBuf;
    // d and b of the last step, if not read, are replaced: their deferred copies are not made
    lu.discardDeferred();
    const code = this.gmap === null ? null : this.generatedFill();
    if (code !== null) {
      // compiled: the generated fill writes b into the factorization's buffer, solved where it stands
      const B = lu.rhsBuffer!;
      const kc = this.kinWanted ? this.generatedKinematics(code) : null;
      // y whole into this code's memory once, then its live entries (the rest as it was): a view of
      // them, made when they change, copied in whole
      if (this.yFor !== code || this.yLast !== y) { yLive = y.length; this.yFor = code; this.yLast = y; this.yHead = y; }
      if (yLive < y.length && this.yHead.length !== yLive) this.yHead = y.subarray(0, yLive);
      fillSourceCompiled(vals, lu.source, B, code, q, qd, y, kc, yLive < y.length ? this.yHead : y);
      this.kinLast = kc !== null;
      if (kc !== null) {
        this.kinStale = true;
        this.kinWithVelocity = qd !== null;
      }
      this.stale = true;
      lu.refactorSource();
      // (a re-pivot in the refactor replaces the code and its buffer: b is read from the one filled)
      if (lu.rhsBuffer === B) x = lu.solveBufferNegatedDeferred(x);
      else lu.solveNegated(x, B);
      // vals.b from the buffer, when read
      lu.defer(vals.b, B);
    } else {
      if (this.gmap !== null) {
        this.kinStale = false; this.kinLast = false;
        fillSource(vals, lu.source, q, qd, y);
        this.stale = true;
        lu.refactorSource();
      } else {
        this.kinStale = false; this.kinLast = false;
        fillSystem(vals, q, qd, y);
        lu.refactor(vals.Ax);
      }
      lu.solveNegated(x, vals.b);
    }
    if (this.kinLast) copyFlops(fl.kinematics, this.kinCode!.flops);
    else copyFlops(fl.kinematics, vals.kin.flops);
    copyFlops(fl.fill, vals.flops);
    fl.factor.reset(); fl.factor.mul = lu.factorMuls; fl.factor.add = lu.factorAdds; fl.factor.div = lu.factorDivs;
    fl.solve.reset(); fl.solve.mul = lu.solveMuls; fl.solve.add = lu.solveAdds; fl.solve.div = lu.solveDivs;
    return x;
  }

  /**
   * The generated fill (FillCode) for the factorization's current compiled code, built when that code
   * appears or changes; null while the factorization runs the generic kernels or the loop kernels,
   * or when the engine refused the module (the JavaScript fill then goes on).
   */
  private generatedFill(): FillCode | null {
    const lu = this.lu, mem = lu.codeMemory;
    // decided once per compiled code (its memory)
    if (mem === this.fillMem) return this.fillCode;
    this.fillMem = mem;
    this.fillCode = null;
    if (mem === null || lu.rhsBuffer === null || this.fillFailed) return null;
    // straight-line fill beside straight-line factors, or beside the loop kernels up to 64 bodies;
    // above, its loop form, which leaves the processor's instruction cache to the kernels (measured
    // per call beside the loops, straight-line fill against its loop form: forward dynamics of
    // chains of 48 links as fast, 64–96 links 2–5% slower, 192 links 13%, 384 links 15%; random
    // trees of 128 and 256 bodies 7% and 12%; inverse dynamics of chains and trees of 96 to 384
    // bodies 4–21%); beside the loops of a 1,000-body tree the straight-line fill also took the engine
    // seconds to optimize in the benchmark (with other modules compiling), 3× slower until then
    const form = lu.compiledSize!.kind === 'straight' || this.sys.model.nb <= 64 ? 'straight' : 'loops';
    try {
      this.fillCode = new FillCode(this.sys, mem, lu.source.byteOffset / 8, lu.rhsBuffer.byteOffset / 8, this.vals.kin.a0, form);
    } catch {
      this.fillCode = null;
      this.fillFailed = true;
    }
    return this.fillCode;
  }

  /**
   * the generated kinematics (SolverOptions.kinematicsCode) of the generated fill `code`, made with
   * it: in its memory, writing ⁱX_λ, v_i and c_i in the source's regions where the fill reads them
   * (per call of LuInverseDynamics, against the same code in a memory of its own and a copy, the two
   * builds alternated: kinova floating 0.68 → 0.62 µs, TALOS floating 3.48 → 3.32 µs, a 384-link
   * chain 43.3 → 40.5 µs); null when the engine refused it or the model is too large
   */
  private generatedKinematics(code: FillCode): GeneratedKinematics | null {
    if (this.kinFor !== code) {
      this.kinFor = code;
      const R = code.regions, src = this.lu.source, base = src.byteOffset / 8;
      try {
        this.kinCode = src.buffer === code.memory.buffer
          ? GeneratedKinematics.create(this.sys.model, { memory: code.memory, X: base + R.x, V: base + R.v, C: base + R.c, own: base + R.kin })
          : GeneratedKinematics.create(this.sys.model);
      } catch {
        this.kinCode = null;
      }
    }
    return this.kinCode;
  }

  /** value of a named unknown in the last solution (e.g. "tau[knee]", "fx[l_sole].fz") */
  value(name: string): number {
    return this.d[this.sys.layout.column(name)];
  }

  /** total flops of the last step */
  totalFlops(): Flops {
    const f = this.flops;
    return new Flops().accumulate(f.kinematics).accumulate(f.fill).accumulate(f.factor).accumulate(f.solve);
  }
}

/** The source positions of D's constant entries (written once by the constructor, never by the fill). */
function fixedSource(sys: SymbolicSystem, size: number): Uint8Array {
  const fixed = new Uint8Array(size);
  for (let k = 0; k < sys.constSlot.length; k++) fixed[sys.constSlot[k]] = 1;
  return fixed;
}

function copyFlops(to: Flops, from: Flops): void {
  to.mul = from.mul; to.add = from.add; to.div = from.div; to.fn = from.fn;
}
