/**
 * lu = LUFactors(S, options): the storage of a numeric LU of C = A(p,q) on the patterns of a
 * SymbolicLU — the factors by column (LUx, LUi, cs, us, dpos), the exact counters, the options in
 * force and the work vectors, all sized here once (CSparse's csn, KLU's klu_numeric). NumericLU
 * (numeric.ts) adds the methods; each algorithm is a function over this storage in its own file:
 *   layout.ts        [LUi, cs, us, dpos, T] = layoutLU(lu)    slots of the factors, mapped kernel
 *   refactor.ts      [L, U] = refactorLU(lu, Ax)             C = L U in place for new values
 *   refactor-source.ts  refactorSourceLU(lu)                 the same with A = source(map)
 *   block-factor.ts  [L_bb, U_bb] = lu(C_bb)                 one diagonal block, two kernels
 *   scale.ts         As = R·A                                 row scaling by powers of two
 *   codegen.ts       code = generateCode(lu)                  the same as WebAssembly
 *   solve.ts         x = A \ b                                block back-substitution
 *   solve-sparse.ts, solve-reach.ts   X = A \ B              sparse right-hand sides
 *   tsolve.ts        x = Aᵀ \ b
 *   block-solve.ts   v = C_bb \ v, v = C_bbᵀ \ v
 *   refine.ts        y += C_bb \ (w_b − C_bb y)               iterative refinement of a block
 *   rgrowth.ts, extract.ts   pivot growth; L and U as CSC matrices
 * Members tagged internal are the algorithms' working state: read by those files, not by callers.
 */
import type { CompiledLU } from './compiled.ts';
import type { MatrixNames } from './errors.ts';
import { inversePowerOfTwo } from './pow2.ts';
import type { SymbolicLU } from './symbolic.ts';

/**
 * Default threshold of the refinement's backward-error test (FactorOptions.refineWhen 'needed'):
 * a block is refined when ω = max_i |r_i| / (|C_bb||y| + |w_b|)_i exceeds 2⁻⁵² = 2u (u = 2⁻⁵³,
 * the unit roundoff; Number.EPSILON). LAPACK's xGERFS refines while ω > u. Measured on the robot
 * corpus and the synthetic robots (scripts/bench-accuracy.ts, 50 states each): at 2u the errors of
 * q̈ are those of the step in every block (the same pairs within 1e-11, the same worst error; the
 * worst ratio to ABA's error 1.91 against 1.72, a pair at 3e-13); at
 * 4u and 8u some robots lose a factor 2–6 at 1e-12…1e-9 (a chain of 40 links with masses over
 * 1e-3…1e2 kg needs the step at ω ≈ 40u); at u the test fails more often for no gain.
 */
export const REFINE_OMEGA = 2 ** -52;

/** Options of the numeric LU: the pivot thresholds and the row and column names used in messages. */
export interface FactorOptions extends MatrixNames {
  /** pivot threshold of a re-pivoting: a pivot is chosen with |u_kk| ≥ tol · max |x_ik| over its column (default 0.001, as KLU) */
  readonly tol?: number;
  /**
   * acceptance threshold of the kept pivot order: a refactor keeps a pivot while |u_kk| ≥ checkTol ·
   * max |x_ik| (default: tol). A smaller value accepts the offline order on badly scaled rows (mixed
   * physical units) and re-pivots only when a pivot has really collapsed.
   */
  readonly checkTol?: number;
  /** largest accepted |u_jk| / max|C_bb| (C_bb: the diagonal block) before a block is re-pivoted (default 1e8) */
  readonly growthLimit?: number;
  /**
   * 'mapped' precomputes the target slot of every multiply-subtract (16 bits per multiplication,
   * fastest; columns up to 65,535 slots); 'scatter' uses a dense work vector (no extra memory);
   * 'auto' (default) maps when the factorization has at most `mapLimit` multiplications.
   */
  readonly kernel?: 'auto' | 'mapped' | 'scatter';
  /** largest number of multiplications for which 'auto' builds the map (default 2^24) */
  readonly mapLimit?: number;
  /**
   * row scaling: 'none' (default); 'max', each row divided by the power of two at or below its
   * largest |a_ij|, recomputed at every refactor; or fixed factors s_i, one per row of A, row i
   * divided by the power of two at or below s_i (e.g. the row's typical magnitude, known offline).
   * Costs one multiplication per entry of A at each refactor and one per row at each solve.
   */
  readonly scale?: 'none' | 'max' | ArrayLike<number>;
  /** largest number of refinement steps per diagonal block of size ≥ 2 at each solve (default 0: none) */
  readonly refine?: number;
  /** precision of the refinement residual: 'working' (default, 2 flops per entry) or 'extended' (double-double, 21 flops per entry) */
  readonly residual?: 'working' | 'extended';
  /** refinement stops once ‖δ‖∞ ≤ refineTol·‖y‖∞ over a block (default 2⁻⁵²) */
  readonly refineTol?: number;
  /**
   * when a block's refinement step runs: 'needed' only when the componentwise backward
   * error of its solution, ω = max_i |r_i| / (|C_bb||y| + |w_b|)_i (Oettli & Prager 1964; the test
   * that stops LAPACK's xGERFS), exceeds `refineOmega`: the residual r = w_b − C_bb y is formed, and
   * |C_bb||y| beside it from the same products, and the correction solve runs only when the test
   * fails; 'always' (default), every step (the residual and the correction, no test). With a
   * residual in extended precision every step runs. On the systems of sparsedyn the test fails on
   * most states of most robots (reports/accuracy: the kept pivot order leaves backward errors of
   * 1e2–1e7 units in the last place where q̈ is already as accurate as ABA's), so that 'needed'
   * costs more than it saves there: it is an option, not the default.
   */
  readonly refineWhen?: 'needed' | 'always';
  /** threshold of the backward-error test of refineWhen 'needed' (default REFINE_OMEGA = 2⁻⁵²) */
  readonly refineOmega?: number;
  /**
   * with `refine`: the compiled code holds the solve without its refinement step too, for
   * NumericLU.solveUnrefined (default false: solveUnrefined then runs the JavaScript solve, the same
   * bits; the estimator's condition check asks for it, the dynamics solvers do not)
   */
  readonly plainSolve?: boolean;
  /**
   * WebAssembly for this factorization: 'auto' (default) generates, at the `compileAfter`-th
   * refactor when the mapped kernel is in use, straight-line code (compiled.ts) when it has at most
   * `compileLimit` statements and loops over the layout's tables (loops.ts) above; 'always'
   * straight-line code with every layout, 'loops' the loop kernels with every layout (both from
   * the first refactor; mapped kernel); 'never' keeps the generic kernels. Same arithmetic, same
   * results bit for bit, same counts; without WebAssembly, or when the engine refuses the module,
   * the generic kernels run.
   */
  readonly compile?: 'auto' | 'always' | 'loops' | 'never';
  /**
   * values of A gathered from a source vector: A's entry t (in A's CSC order) is src[map[t]], with
   * src of length `size` (several entries may share a source value, e.g. a transform that appears
   * twice in a system). The caller writes `lu.source` and calls `refactorSource()`: the compiled
   * code then reads the source where it stands, with no copy of A; the generic kernels gather A
   * first. Row scaling reads A itself (the source is gathered, then scaled).
   *
   * `fixed` (length `size`): 1 at the source positions whose values are written before the first
   * refactor and never change after it (a system's constant entries): the compiled code checks a
   * pivot there once. `solveFromSource`: the caller leaves the source unchanged from
   * `refactorSource` until its last solve with those factors; a triangular A (every block 1×1,
   * whose factors are its own entries) is then solved by the compiled code from the source where
   * it stands, `refactorSource` copies nothing, and LUx is written when it is read; with
   * refinement, the compiled solves' residuals read C's in-block values from the source too (no
   * copy kept; the generic kernels copy them when they need them).
   */
  readonly gather?: { readonly map: Int32Array; readonly size: number; readonly fixed?: Uint8Array; readonly solveFromSource?: boolean };
  /** refactors before 'auto' compiles (default 16: one-off factorizations stay generic) */
  readonly compileAfter?: number;
  /**
   * largest straight-line code that 'auto' compiles, in statements, before it runs the loop kernels
   * instead (default 21,000: on a 2-core Intel Xeon, straight-line code ran 2–15% faster than the
   * loops up to ~29,000 statements and up to 3× slower from ~36,000; on the 2-core AMD EPYC that
   * Pinocchio's reference times come from, forward dynamics per call, the two alternated, straight
   * against loops: kinova fixed (4,135 statements) 2.5 against 3.3 µs, a 28-link chain (20,320)
   * 13.4 against 14.2, a 30-link chain (22,250) 16.1 against 15.0, a 32-link chain (23,470) 15.9
   * against 15.9, TALOS floating (23,547) 17.3–19.2 against 16.1–16.5; 4,000 for a triangular matrix, all
   * blocks 1×1, whose loops skip the block tables: as fast as straight-line code from ~3,000; loops.ts;
   * 18,000 for a triangular matrix solved from its source (gather.solveFromSource): alone, its
   * straight-line solve, one statement per slot and two per row, ran 20–25% faster than the loops
   * on chains of 96 to 600 links (8,000 to 51,000 statements), but inverse dynamics runs it beside
   * the generated kinematics and fill, and there (LuInverseDynamics per call, loop kernels and the
   * fill's loop form against straight-line code) the loops are as fast from ~16,000 statements and
   * faster above: a 192-link chain (16,356) 2.6% slower, 256 links (21,818) 8% faster, 320 links
   * (27,278) 18%, 384 links (32,740) 30%; random trees of 128, 192 and 256 bodies (16,728,
   * 24,992, 33,256 statements) 0.6%, 19% and 38% faster)
   */
  readonly compileLimit?: number;
}

/**
 * The numeric factors of C = A(p,q) and everything a refactor or solve works in, sized once from a
 * SymbolicLU and the options (layoutLU sizes the factors themselves). See NumericLU.
 */
export class LUFactors {
  /** the symbolic analysis in force (replaced when numeric pivoting changed a block's row order) */
  symbolic: SymbolicLU;
  /**
   * values, column after column of C = A(p,q): for column k, from cs[k], first the entries of C
   * above k's diagonal block (rows symbolic.Oi[Op[k]..]), then U(:,k) above the diagonal (rows
   * symbolic.Ui[Up[k]..], ascending), the pivot u_kk at dpos[k], and L(:,k) below it (rows
   * symbolic.Li[Lp[k]..]). LUi holds the row of every slot. (Written from the source when read,
   * after a refactor that solves from the source: FactorOptions.gather.solveFromSource.)
   */
  get LUx(): Float64Array {
    if (this.xStale) {
      this.code!.syncX!();
      this.xStale = false;
    }
    return this.xv;
  }
  /** LUx's storage, and whether it lags behind the source (FactorOptions.gather.solveFromSource) @internal */
  xv: Float64Array;
  /** @internal */
  xStale = false;
  /** Cx lags behind the compiled code's A (CompiledLU.residualFromA): synced when the generic refinement reads it @internal */
  cxStale = false;
  /** the last refactor ran the compiled code that solves from the source (its solves may run); false after a generic one @internal */
  fromSource = false;
  /** row (of C) of every slot of LUx */
  LUi: Int32Array;
  /** start of column k in LUx (length n+1) */
  cs: Int32Array;
  /** position of the first U(:,k) slot in LUx */
  us: Int32Array;
  /** position of the pivot u_kk in LUx */
  dpos: Int32Array;
  /** counts of the last factorization: multiplications, additions/subtractions, divisions */
  factorMuls = 0;
  factorAdds = 0;
  factorDivs = 0;
  /** counts of the last solve call (all right-hand sides of a solveMany) */
  solveMuls = 0;
  solveAdds = 0;
  solveDivs = 0;
  /** counts of the refinement steps of the last solve call (included in the solve counts) and how many steps ran */
  refineMuls = 0;
  refineAdds = 0;
  refineDivs = 0;
  refineSteps = 0;
  /** backward-error tests of the last solve call (FactorOptions.refineWhen 'needed'): blocks tested, and of those the blocks whose test failed (refined) */
  refineTests = 0;
  refineFailed = 0;
  /** multiplications of the row scaling in the last refactor (included in factorMuls) */
  scaleMuls = 0;
  /** number of factorizations that had to re-pivot (change a block's row order) */
  repivots = 0;
  /** number of blocks re-pivoted over all factorizations */
  repivotedBlocks = 0;
  /** whether the last factorization re-pivoted */
  pivoted = false;
  readonly tol: number;
  /** acceptance threshold of the kept pivot order at a refactor (FactorOptions.checkTol) */
  readonly checkTol: number;
  readonly growthLimit: number;
  /** refinement steps per block (FactorOptions.refine), residual precision, stopping tolerance */
  readonly refine: number;
  readonly residual: 'working' | 'extended';
  readonly refineTol: number;
  /** the backward-error test's threshold (FactorOptions.refineWhen, refineOmega); 0 when every step runs (refineWhen 'always', extended residual) */
  readonly refineOmega: number;
  /** FactorOptions.plainSolve */
  readonly plainSolve: boolean;
  /** row scaling in force: 'none', 'max' (per refactor) or 'fixed' */
  readonly scaling: 'none' | 'max' | 'fixed';
  readonly names: MatrixNames;
  /** the kernel in use ('mapped' or 'scatter') */
  kernel: 'mapped' | 'scatter';
  /** @internal */
  readonly kernelOption: 'auto' | 'mapped' | 'scatter';
  /** @internal */
  readonly mapLimit: number;
  /** slot in LUx of each in-block entry of C (on symbolic.Bp/Bi) @internal */
  Bpos: Int32Array;
  /** slot in LUx of each off-diagonal-block entry of C (on symbolic.Op/Oi) @internal */
  Opos: Int32Array;
  /** 'mapped' kernel: slot written by each multiply-subtract, relative to its column's start cs[k], in execution order @internal */
  T: Uint16Array;
  /** 'mapped' kernel: position in T where each column's multiply-subtracts start (length n+1) @internal */
  Tp: Int32Array;
  /** 'mapped' kernel: for the U slot of u_jk, the slots of L(:,j) are Llo[slot] .. Lhi[slot]-1 @internal */
  Llo: Int32Array;
  /** @internal */
  Lhi: Int32Array;
  /** 'scatter' kernel: dense work vector, zero between columns @internal */
  readonly x: Float64Array;
  /** dense work vector of the solves @internal */
  readonly w: Float64Array;
  /** solve segments: runs of consecutive 1×1 blocks, or one larger block (boundaries, length nseg+1) @internal */
  segR: Int32Array;
  /** 1 when the segment is a block of size ≥ 2 (needs the L solve) @internal */
  segBig: Uint8Array;
  /** whether some diagonal block has size ≥ 2 @internal */
  readonly hasBigBlock: boolean;
  /** blocks that failed their checks in the last pass @internal */
  readonly failed: Int32Array;
  /** row scale factors (powers of two) by row of A; length 0 without scaling @internal */
  readonly Rs: Float64Array;
  /** the scaled values R·A of the last refactor (A's CSC order); length 0 without scaling @internal */
  readonly As: Float64Array;
  /** refinement: the in-block values of C of the last refactor (on symbolic.Bp/Bi); length 0 without refinement @internal */
  Cx: Float64Array;
  /** compile policy (FactorOptions.compile), refactors so far, and the compiled code (null: generic kernels) @internal */
  readonly compileOption: 'auto' | 'always' | 'loops' | 'never';
  /** @internal */
  readonly compileAfter: number;
  /** @internal */
  readonly compileLimit: number;
  /** @internal */
  refactors = 0;
  /** @internal */
  code: CompiledLU | null = null;
  /** FactorOptions.gather: the map (null without), the source vector (moved into the compiled code's memory when it is generated), A gathered for the generic kernels @internal */
  readonly gmap: Int32Array | null;
  /** FactorOptions.gather: fixed source positions (or null), solveFromSource, and whether the fixed pivots of this layout were checked @internal */
  readonly gfixed: Uint8Array | null;
  /** @internal */
  readonly gFromSource: boolean;
  /** @internal */
  fixedChecked = false;
  /** @internal */
  src: Float64Array;
  /** @internal */
  readonly gAx: Float64Array;
  /** whether the compiled code reads the source (gather without row scaling) rather than A @internal */
  codeGathered = false;
  /** compiling failed once (engine limits): not tried again @internal */
  compileFailed = false;
  /** static counts of the compiled code: factor muls and divs; solve muls, adds, divs, and their refinement part @internal */
  cFactorMuls = 0;
  /** @internal */
  cFactorDivs = 0;
  /** @internal */
  cRefMuls = 0;
  /** @internal */
  cRefAdds = 0;
  /** @internal */
  cRefDivs = 0;
  /** @internal */
  cRefSteps = 0;
  /**
   * with the compiled backward-error test (CompiledLU.refined): per block of size ≥ 2, its index and
   * the muls, adds and divs of its correction (counted when its test failed) @internal
   */
  cRefBlocks: Int32Array = new Int32Array(0);
  /** refinement work vectors (length n, or 0): the block's right-hand side, the correction, the residual's low part @internal */
  readonly rb: Float64Array;
  /** @internal */
  readonly dz: Float64Array;
  /** @internal */
  readonly rlo: Float64Array;
  /** the backward-error test's denominators |C_bb||y| + |w_b| (length n with refineWhen 'needed', else 0) @internal */
  readonly rs: Float64Array;

  constructor(S: SymbolicLU, options: FactorOptions = {}) {
    this.symbolic = S;
    this.tol = options.tol ?? 0.001;
    this.checkTol = options.checkTol ?? this.tol;
    this.growthLimit = options.growthLimit ?? 1e8;
    if (!(this.tol > 0 && this.tol <= 1)) throw new RangeError(`tol is ${this.tol}, expected a number in (0, 1]`);
    if (!(this.checkTol > 0 && this.checkTol <= 1)) throw new RangeError(`checkTol is ${this.checkTol}, expected a number in (0, 1]`);
    if (!(this.growthLimit >= 1)) throw new RangeError(`growthLimit is ${this.growthLimit}, expected ≥ 1`);
    this.kernelOption = options.kernel ?? 'auto';
    if (this.kernelOption !== 'auto' && this.kernelOption !== 'mapped' && this.kernelOption !== 'scatter') {
      throw new RangeError(`kernel is "${String(this.kernelOption)}", expected auto, mapped or scatter`);
    }
    this.mapLimit = options.mapLimit ?? 1 << 24;
    this.compileOption = options.compile ?? 'auto';
    if (this.compileOption !== 'auto' && this.compileOption !== 'always' && this.compileOption !== 'loops' && this.compileOption !== 'never') {
      throw new RangeError(`compile is "${String(this.compileOption)}", expected auto, always, loops or never`);
    }
    this.compileAfter = options.compileAfter ?? 16;
    // a triangular matrix solved from its source has no factor code: its solve alone is compiled
    const fromSource = options.gather?.solveFromSource === true && (options.scale ?? 'none') === 'none';
    this.compileLimit = options.compileLimit ?? (S.nblocks < S.n ? 21000 : fromSource ? 18000 : 4000);
    this.names = { rowNames: options.rowNames, colNames: options.colNames };
    const n = S.n;
    this.refine = options.refine ?? 0;
    if (!(Number.isInteger(this.refine) && this.refine >= 0)) throw new RangeError(`refine is ${this.refine}, expected a non-negative integer`);
    this.residual = options.residual ?? 'working';
    if (this.residual !== 'working' && this.residual !== 'extended') throw new RangeError(`residual is "${String(this.residual)}", expected working or extended`);
    this.refineTol = options.refineTol ?? 2 ** -52;
    if (!(this.refineTol >= 0 && this.refineTol < 1)) throw new RangeError(`refineTol is ${this.refineTol}, expected a number in [0, 1)`);
    const when = options.refineWhen ?? 'always';
    if (when !== 'needed' && when !== 'always') throw new RangeError(`refineWhen is "${String(when)}", expected needed or always`);
    const omega = options.refineOmega ?? REFINE_OMEGA;
    if (!(omega > 0 && omega < 1)) throw new RangeError(`refineOmega is ${omega}, expected a number in (0, 1)`);
    this.refineOmega = when === 'always' || this.residual === 'extended' ? 0 : omega;
    this.plainSolve = options.plainSolve === true;
    const sc = options.scale ?? 'none';
    if (sc === 'none' || sc === 'max') {
      this.scaling = sc;
      this.Rs = new Float64Array(sc === 'max' ? n : 0);
    } else if (typeof sc === 'object' && sc !== null && typeof sc.length === 'number') {
      if (sc.length !== n) throw new RangeError(`scale has ${sc.length} factors, expected one per row of A (${n})`);
      this.scaling = 'fixed';
      this.Rs = new Float64Array(n);
      for (let i = 0; i < n; i++) {
        const v = sc[i];
        if (!(v > 0 && v < Infinity)) throw new RangeError(`scale[${i}] is ${v}, expected a positive finite number`);
        this.Rs[i] = inversePowerOfTwo(v); // row i divided by the power of two at or below v
      }
    } else {
      throw new RangeError(`scale is "${String(sc)}", expected none, max or one factor per row`);
    }
    this.As = new Float64Array(this.scaling === 'none' ? 0 : S.nnz);
    const g = options.gather;
    if (g !== undefined) {
      if (!(g.map instanceof Int32Array) || g.map.length !== S.nnz) throw new RangeError(`gather.map has length ${g.map?.length}, expected nnz(A) = ${S.nnz}`);
      if (!(Number.isInteger(g.size) && g.size >= 0)) throw new RangeError(`gather.size is ${g.size}, expected a non-negative integer`);
      for (let t = 0; t < S.nnz; t++) {
        if (!(g.map[t] >= 0 && g.map[t] < g.size)) throw new RangeError(`gather.map[${t}] is ${g.map[t]}, expected a source position in [0, ${g.size})`);
      }
      this.gmap = g.map.slice();
      this.src = new Float64Array(g.size);
      this.gAx = new Float64Array(S.nnz);
      if (g.fixed !== undefined && !(g.fixed instanceof Uint8Array && g.fixed.length === g.size)) throw new RangeError(`gather.fixed has length ${g.fixed?.length}, expected one flag per source position (${g.size})`);
      this.gfixed = g.fixed === undefined ? null : g.fixed.slice();
      this.gFromSource = g.solveFromSource === true;
    } else {
      this.gmap = null;
      this.gfixed = null;
      this.gFromSource = false;
      this.src = new Float64Array(0);
      this.gAx = this.src;
    }
    const nr = this.refine > 0 ? n : 0;
    this.rb = new Float64Array(nr);
    this.dz = new Float64Array(nr);
    this.rlo = new Float64Array(this.residual === 'extended' ? nr : 0);
    this.rs = new Float64Array(this.refineOmega > 0 ? nr : 0);
    this.Cx = new Float64Array(0);
    this.x = new Float64Array(n);
    this.w = new Float64Array(n);
    this.failed = new Int32Array(S.nblocks);
    // Sized by layoutLU (layout.ts).
    this.xv = new Float64Array(0);
    this.LUi = new Int32Array(0);
    this.cs = new Int32Array(0);
    this.us = new Int32Array(0);
    this.dpos = new Int32Array(0);
    this.Bpos = new Int32Array(0);
    this.Opos = new Int32Array(0);
    this.T = new Uint16Array(0);
    this.Tp = new Int32Array(0);
    this.Llo = new Int32Array(0);
    this.Lhi = new Int32Array(0);
    this.kernel = 'scatter';
    // Solve segments depend on the block boundaries only, which re-pivoting keeps.
    let nseg = 0;
    const segR = new Int32Array(S.nblocks + 1);
    const segBig = new Uint8Array(S.nblocks);
    for (let b = 0; b < S.nblocks; b++) {
      const big = S.r[b + 1] - S.r[b] > 1;
      if (big || nseg === 0 || segBig[nseg - 1] === 1) {
        segR[nseg] = S.r[b];
        segBig[nseg++] = big ? 1 : 0;
      }
    }
    segR[nseg] = n;
    this.segR = segR.slice(0, nseg + 1);
    this.segBig = segBig.slice(0, nseg);
    this.hasBigBlock = this.segBig.includes(1);
  }

  get n(): number {
    return this.symbolic.n;
  }

  /** column where the last block kernel stopped @internal */
  badColumn = 0;
  /** the block being factorized was just re-pivoted: no threshold or growth test (its pivots were chosen on these values) @internal */
  relaxed = false;

  /** whether the compiled solves hold the last factors (not after a generic refactor of code that solves from the source) @internal */
  compiledSolves(): boolean {
    const c = this.code;
    return c !== null && (c.syncX === null || this.fromSource);
  }

  /**
   * copies deferred (`defer`): up to two (to, from) pairs, from arrays in the compiled code's memory
   * (its solution, its right-hand side buffer) that the code overwrites when it runs again @internal
   */
  private readonly deferred: (Float64Array | null)[] = [null, null, null, null];

  /** to.set(from) before anything runs on these factors again (`settle`), unless discarded first @internal */
  defer(to: Float64Array, from: Float64Array): void {
    const d = this.deferred, k = d[0] === null ? 0 : 2;
    if (d[k] !== null) throw new RangeError('defer: two copies are deferred already');
    d[k] = to; d[k + 1] = from;
  }

  /** the deferred copies made (`only`: the one into that array) @internal */
  settle(only: Float64Array | null = null): void {
    const d = this.deferred;
    for (let k = 0; k < 4; k += 2) {
      const to = d[k];
      if (to !== null && (only === null || to === only)) { to.set(d[k + 1]!); d[k] = null; d[k + 1] = null; }
    }
  }

  /** the deferred copies dropped (their destinations are about to be written anew) @internal */
  discardDeferred(): void {
    const d = this.deferred;
    d[0] = null; d[1] = null; d[2] = null; d[3] = null;
  }

  /** zero counts of the solve and its refinement, before a solve call @internal */
  resetSolveCounts(): void {
    this.solveMuls = 0;
    this.solveAdds = 0;
    this.solveDivs = 0;
    this.refineMuls = 0;
    this.refineAdds = 0;
    this.refineDivs = 0;
    this.refineSteps = 0;
    this.refineTests = 0;
    this.refineFailed = 0;
  }
}
