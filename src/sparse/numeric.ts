/**
 * [L, U] = factor(A, S); lu.refactor(A.Ax); x = lu.solve(b): the runtime LU of C = A(p,q) block by
 * block on the patterns of a SymbolicLU, filled in place; solves through the block triangular
 * form, off-diagonal blocks used only in the solve.
 * Source: left-looking LU with static patterns (Gilbert & Peierls 1988; KLU's klu_refactor, Davis &
 * Palamadai Natarajan, ACM TOMS 37, 2010); block back-substitution over the BTF (Duff & Reid 1978).
 *
 * Column k of a block, on its slots of LUx (fill-in slots zeroed, C(:,k) scattered in):
 *   for j in U(:,k) ascending:  u_jk final;  C(L(:,j), k) -= L(:,j) u_jk      (muls, adds)
 *   L(:,k) = C(L(:,k), k) / u_kk                                               (divs)
 * The 'mapped' kernel keeps, for every multiply-subtract, the slot it writes (precomputed from
 * the exact patterns); the 'scatter' kernel goes through a dense work vector instead.
 * Safety: each pivot is checked against its column, |x_ik| ≤ |u_kk| / tol (KLU's threshold test,
 * tol = 0.001), and for growth every |u_jk| ≤ growthLimit · max|C_bb| (C_bb: the diagonal block;
 * `rgrowth()` gives KLU's column-wise measure on demand); the tests are written so that a NaN fails
 * them. A block that fails is factorized again with partial pivoting (repivot.ts), the exact
 * patterns are recomputed for the new row order (allocation, exceptional path), `repivots` is
 * incremented, and the factorization goes on.
 *
 * Row scaling (option `scale`): C is factorized as R·C with R diagonal, by powers of two, either
 * computed at each refactor from the largest entry of each row (KLU's default is row scaling) or
 * fixed by the caller. Powers of two change no rounding: with a kept pivot order the factors and
 * the solution are the unscaled ones bit for bit; scaling only changes the threshold and growth
 * tests and the rows a re-pivoting chooses.
 * Iterative refinement (option `refine`): in each diagonal block of size ≥ 2, during the block
 * back-substitution, the block's solution y is corrected with the factors already computed,
 *   r = w_b − C_bb y,  C_bb δ = r,  y ← y + δ
 * (w_b: the block's right-hand side after the blocks below it; C_bb: the block's values of the last
 * refactor). The residual is formed in working precision, or in double-double ('extended':
 * Dekker's splitting and Knuth's TwoSum, so r is the exact residual rounded once; Wilkinson 1963,
 * Moler 1967; Higham, Accuracy and Stability of Numerical Algorithms, ch. 12). 1×1 blocks are exact
 * divisions and are not refined. Steps stop after `refine`, or once ‖δ‖∞ ≤ refineTol·‖y‖∞, or when a
 * step no longer halves the correction.
 *
 * `refactor`, `solve`, `solveMany` and `solveTransposed` allocate nothing: workspaces are created
 * with the object.
 */
import type { CscMatrix } from './csc.ts';
import { canCompile, compileLU, type CompiledLU, type CompileInput } from './compiled.ts';
import { loopLU } from './loops.ts';
import { SingularPivotError, type MatrixNames } from './errors.ts';
import { luPattern } from './lu-pattern.ts';
import { repivot } from './repivot.ts';
import type { SolveReach } from './reach.ts';
import { SymbolicLU, type BlockPattern } from './symbolic.ts';

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
   * instead (default 25,000: below, straight-line code ran 2–15% faster than the loops on the
   * machine measured, from ~36,000 statements up to 3× slower; 4,000 for a triangular matrix, all
   * blocks 1×1, whose loops skip the block tables: as fast as straight-line code from ~3,000; loops.ts;
   * 60,000 for a triangular matrix solved from its source (gather.solveFromSource), whose
   * straight-line solve, one statement per slot and two per row, ran 20–25% faster than the loops
   * on chains of 96 to 600 links (8,000 to 51,000 statements); at 1,000 links (85,000) it ran 1.3×
   * faster once optimized, but in a benchmark with other modules compiling it ran 4× slower for
   * the first seconds, before the engine had optimized it)
   */
  readonly compileLimit?: number;
}

/** Dekker's splitting constant 2²⁷ + 1 (a double splits into two halves of 26 bits). */
const SPLIT = 134217729;
/** scratch for reading a double's exponent (module-level: no allocation per call) */
const BITS = new DataView(new ArrayBuffer(8));

/** 2^−e for the largest power of two 2^e ≤ |x|; 1 for 0, subnormal, non-finite or extreme x. */
function inversePowerOfTwo(x: number): number {
  BITS.setFloat64(0, x);
  const e = (BITS.getUint32(0) >>> 20) & 0x7ff; // biased exponent
  if (e <= 1 || e >= 2045) return 1;
  BITS.setUint32(0, (2046 - e) << 20);
  BITS.setUint32(4, 0);
  return BITS.getFloat64(0);
}

/**
 * The runtime LU on the patterns of a SymbolicLU: `refactor(Ax)` fills L and U in place for new
 * values, `solve` and `solveMany` solve through the block triangular form; exact flop counters.
 * Allocation free per call.
 */
export class NumericLU {
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
  /** LUx's storage, and whether it lags behind the source (FactorOptions.gather.solveFromSource) */
  private xv: Float64Array;
  private xStale = false;
  /** Cx lags behind the compiled code's A (CompiledLU.residualFromA): synced when the generic refinement reads it */
  private cxStale = false;
  /** the last refactor ran the compiled code that solves from the source (its solves may run); false after a generic one */
  private fromSource = false;
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
  /** row scaling in force: 'none', 'max' (per refactor) or 'fixed' */
  readonly scaling: 'none' | 'max' | 'fixed';
  readonly names: MatrixNames;
  /** the kernel in use ('mapped' or 'scatter') */
  kernel: 'mapped' | 'scatter';
  private readonly kernelOption: 'auto' | 'mapped' | 'scatter';
  private readonly mapLimit: number;
  /** slot in LUx of each in-block entry of C (on symbolic.Bp/Bi) */
  private Bpos: Int32Array;
  /** slot in LUx of each off-diagonal-block entry of C (on symbolic.Op/Oi) */
  private Opos: Int32Array;
  /** 'mapped' kernel: slot written by each multiply-subtract, relative to its column's start cs[k], in execution order */
  private T: Uint16Array;
  /** 'mapped' kernel: position in T where each column's multiply-subtracts start (length n+1) */
  private Tp: Int32Array;
  /** 'mapped' kernel: for the U slot of u_jk, the slots of L(:,j) are Llo[slot] .. Lhi[slot]-1 */
  private Llo: Int32Array;
  private Lhi: Int32Array;
  /** 'scatter' kernel: dense work vector, zero between columns */
  private readonly x: Float64Array;
  /** dense work vector of the solves */
  private readonly w: Float64Array;
  /** solve segments: runs of consecutive 1×1 blocks, or one larger block (boundaries, length nseg+1) */
  private segR: Int32Array;
  /** 1 when the segment is a block of size ≥ 2 (needs the L solve) */
  private segBig: Uint8Array;
  /** whether some diagonal block has size ≥ 2 */
  private readonly hasBigBlock: boolean;
  /** blocks that failed their checks in the last pass */
  private readonly failed: Int32Array;
  /** row scale factors (powers of two) by row of A; length 0 without scaling */
  private readonly Rs: Float64Array;
  /** the scaled values R·A of the last refactor (A's CSC order); length 0 without scaling */
  private readonly As: Float64Array;
  /** refinement: the in-block values of C of the last refactor (on symbolic.Bp/Bi); length 0 without refinement */
  private Cx: Float64Array;
  /** compile policy (FactorOptions.compile), refactors so far, and the compiled code (null: generic kernels) */
  private readonly compileOption: 'auto' | 'always' | 'loops' | 'never';
  private readonly compileAfter: number;
  private readonly compileLimit: number;
  private refactors = 0;
  private code: CompiledLU | null = null;
  /** FactorOptions.gather: the map (null without), the source vector (moved into the compiled code's memory when it is generated), A gathered for the generic kernels */
  private readonly gmap: Int32Array | null;
  /** FactorOptions.gather: fixed source positions (or null), solveFromSource, and whether the fixed pivots of this layout were checked */
  private readonly gfixed: Uint8Array | null;
  private readonly gFromSource: boolean;
  private fixedChecked = false;
  private src: Float64Array;
  private readonly gAx: Float64Array;
  /** whether the compiled code reads the source (gather without row scaling) rather than A */
  private codeGathered = false;
  /** compiling failed once (engine limits): not tried again */
  private compileFailed = false;
  /** static counts of the compiled code: factor muls and divs; solve muls, adds, divs, and their refinement part */
  private cFactorMuls = 0;
  private cFactorDivs = 0;
  private cRefMuls = 0;
  private cRefAdds = 0;
  private cRefDivs = 0;
  private cRefSteps = 0;
  /** refinement work vectors (length n, or 0): the block's right-hand side, the correction, the residual's low part */
  private readonly rb: Float64Array;
  private readonly dz: Float64Array;
  private readonly rlo: Float64Array;

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
    this.compileLimit = options.compileLimit ?? (S.nblocks < S.n ? 25000 : fromSource ? 60000 : 4000);
    this.names = { rowNames: options.rowNames, colNames: options.colNames };
    const n = S.n;
    this.refine = options.refine ?? 0;
    if (!(Number.isInteger(this.refine) && this.refine >= 0)) throw new RangeError(`refine is ${this.refine}, expected a non-negative integer`);
    this.residual = options.residual ?? 'working';
    if (this.residual !== 'working' && this.residual !== 'extended') throw new RangeError(`residual is "${String(this.residual)}", expected working or extended`);
    this.refineTol = options.refineTol ?? 2 ** -52;
    if (!(this.refineTol >= 0 && this.refineTol < 1)) throw new RangeError(`refineTol is ${this.refineTol}, expected a number in [0, 1)`);
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
    this.Cx = new Float64Array(0);
    this.x = new Float64Array(n);
    this.w = new Float64Array(n);
    this.failed = new Int32Array(S.nblocks);
    // Sized by layout().
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
    this.layout();
  }

  get n(): number {
    return this.symbolic.n;
  }

  /** Sizes LUx for the current symbolic patterns and precomputes the slots (allocates). */
  private layout(): void {
    const S = this.symbolic;
    const { n, Lp, Li, Up, Ui, Bp, Bi, Op, Oi } = S;
    const cs = new Int32Array(n + 1);
    const us = new Int32Array(n);
    const dpos = new Int32Array(n);
    for (let k = 0; k < n; k++) {
      us[k] = cs[k] + Op[k + 1] - Op[k];
      dpos[k] = us[k] + Up[k + 1] - Up[k];
      cs[k + 1] = dpos[k] + 1 + Lp[k + 1] - Lp[k];
    }
    const LUi = new Int32Array(cs[n]);
    const posOf = new Int32Array(n);
    const Bpos = new Int32Array(Bp[n]);
    const Opos = new Int32Array(Op[n]);
    // The map stores slots relative to their column (16 bits): columns longer than 65,535 slots
    // go through the dense work vector instead.
    let longest = 0;
    for (let k = 0; k < n; k++) longest = Math.max(longest, cs[k + 1] - cs[k]);
    const mappable = longest <= 0xffff;
    if (this.kernelOption === 'mapped' && !mappable) {
      throw new RangeError(`kernel 'mapped' needs columns of at most 65,535 slots; column lengths reach ${longest} (use 'scatter' or 'auto')`);
    }
    const mapped = mappable && (this.kernelOption === 'mapped' || (this.kernelOption === 'auto' && S.factorMuls <= this.mapLimit));
    const T = new Uint16Array(mapped ? S.factorMuls : 0);
    const Tp = new Int32Array(mapped ? n + 1 : 0);
    const Llo = new Int32Array(mapped ? cs[n] : 0);
    const Lhi = new Int32Array(mapped ? cs[n] : 0);
    let o = 0;
    for (let k = 0; k < n; k++) {
      let t = cs[k];
      for (let e = Op[k]; e < Op[k + 1]; e++) {
        Opos[e] = t;
        LUi[t++] = Oi[e];
      }
      for (let e = Up[k]; e < Up[k + 1]; e++) {
        posOf[Ui[e]] = t;
        LUi[t++] = Ui[e];
      }
      posOf[k] = t;
      LUi[t++] = k;
      for (let s = Lp[k]; s < Lp[k + 1]; s++) {
        posOf[Li[s]] = t;
        LUi[t++] = Li[s];
      }
      for (let e = Bp[k]; e < Bp[k + 1]; e++) Bpos[e] = posOf[Bi[e]];
      if (!mapped) continue;
      Tp[k] = o;
      for (let e = Up[k]; e < Up[k + 1]; e++) {
        const j = Ui[e];
        const slot = us[k] + e - Up[k];
        Llo[slot] = dpos[j] + 1;
        Lhi[slot] = cs[j + 1];
        for (let s = Lp[j]; s < Lp[j + 1]; s++) T[o++] = posOf[Li[s]] - cs[k];
      }
    }
    if (mapped) Tp[n] = o;
    this.Llo = Llo;
    this.Lhi = Lhi;
    this.xv = new Float64Array(cs[n]);
    this.xStale = false;
    this.fixedChecked = false;
    this.LUi = LUi;
    this.cs = cs;
    this.us = us;
    this.dpos = dpos;
    this.Bpos = Bpos;
    this.Opos = Opos;
    this.T = T;
    this.Tp = Tp;
    this.kernel = mapped ? 'mapped' : 'scatter';
    if (this.refine > 0) this.Cx = new Float64Array(Bp[n]);
    this.cxStale = false;
    this.code = null;
    this.refactors = 0;
    // (with fixed source values, at the first refactor: the code reads the ±1 among them)
    if ((this.compileOption === 'always' || this.compileOption === 'loops') && mapped && canCompile() && this.gfixed === null) this.compileNow();
  }

  /**
   * The compiled code's right-hand side buffer (b, unpermuted; null without compiled code or with
   * row scaling): write b there and call `solveBufferNegated`. It belongs to the current code (a
   * new layout brings new code): fetch it before each step.
   */
  get rhsBuffer(): Float64Array | null {
    return this.code === null || this.scaling !== 'none' ? null : this.code.B;
  }

  /** the WebAssembly memory of the compiled code (null without), for code generated to work beside it */
  get codeMemory(): WebAssembly.Memory | null {
    return this.code === null ? null : this.code.memory;
  }

  /** x = A \ (−b) with b in `rhsBuffer`, as solveNegated(x, b) bit for bit, counts included. No allocation. */
  solveBufferNegated(x: Float64Array): Float64Array {
    const B = this.rhsBuffer;
    if (B === null) throw new RangeError('solveBufferNegated: no compiled code with a right-hand side buffer (rhsBuffer is null)');
    if (x.length !== this.symbolic.n) throw new RangeError(`x has length ${x.length}, expected n = ${this.symbolic.n}`);
    this.resetSolveCounts();
    this.solveInto(x, 0, B, 0, true);
    return x;
  }

  /** whether the refactor and solve run compiled code (FactorOptions.compile) */
  get compiled(): boolean {
    return this.code !== null;
  }

  /** kind ('straight': straight-line code, statements > 0; 'loops': loop kernels), statements and WebAssembly bytes of the compiled code, or null */
  get compiledSize(): { kind: 'straight' | 'loops'; statements: number; bytes: number } | null {
    return this.code === null ? null : { kind: this.code.kind, statements: this.code.statements, bytes: this.code.bytes };
  }

  /** Generates the straight-line code of this layout (compiled.ts) and its static counts (allocates; once per layout). */
  private compileNow(): void {
    try {
      this.compileLayout();
    } catch {
      // no WebAssembly memory or module for this layout (engine limits): the generic kernels go on
      this.code = null;
      this.compileFailed = true;
    }
  }

  private compileLayout(): void {
    const S = this.symbolic;
    const { n, r, nblocks, Bp } = S;
    const { cs, us, dpos } = this;
    const gathered = this.gmap !== null && this.scaling === 'none';
    const input: CompileInput = {
      n, nnz: S.nnz, r, nblocks, Bp, Bi: S.Bi, Bslot: S.Bslot, Op: S.Op, Oslot: S.Oslot, p: S.p, q: S.q,
      cs, us, dpos, LUi: this.LUi, Bpos: this.Bpos, Opos: this.Opos, T: this.T, Tp: this.Tp, Llo: this.Llo, Lhi: this.Lhi,
      growthLimit: this.growthLimit, checkTol: this.checkTol,
      refine: this.residual === 'extended' ? Math.max(2, this.refine) : this.refine,
      maxStatements: this.compileOption === 'always' ? Infinity : this.compileLimit,
      ...(gathered ? { gather: this.gmap!, nsrc: this.src.length } : {}),
      ...(gathered && this.gFromSource ? { direct: true } : {}),
      ...(gathered && this.gfixed !== null ? { fixed: this.gfixed, values: this.src } : {}),
    };
    // straight-line code up to compileLimit (Tp[n] + cs[n], multiplications + slots, bounds its
    // statements from below), the loop kernels above: larger straight-line code runs slower
    const direct = gathered && this.gFromSource && nblocks === n;
    const straight = this.compileOption === 'always' || (this.compileOption === 'auto' && this.Tp[n] + cs[n] + (direct ? n : 0) <= this.compileLimit);
    const code = (straight ? compileLU(input) : null) ?? (this.compileOption === 'always' ? null : loopLU(input));
    if (code === null) {
      this.compileFailed = true;
      return;
    }
    this.codeGathered = gathered;
    if (gathered) {
      // the source lives in the module's memory from now on (the caller fetches lu.source each step)
      code.A.set(this.src);
      this.src = code.A;
    }
    // the factors live in the module's memory from now on (the generic kernels work on the same views)
    code.X.set(this.LUx);
    this.xv = code.X;
    if (this.refine > 0 && !code.residualFromA) {
      code.Cb.set(this.Cx);
      this.Cx = code.Cb;
    }
    this.code = code;
    // the counts of blockMapped and of one working-precision refinement step per block (refineBlock)
    let divs = 0, rm = 0, ra = 0, rd = 0, steps = 0;
    for (let b = 0; b < nblocks; b++) {
      const k1 = r[b], k2 = r[b + 1];
      if (k2 - k1 < 2) continue;
      let lu = 0;
      for (let k = k1; k < k2; k++) {
        divs += cs[k + 1] - dpos[k] - 1;
        lu += cs[k + 1] - us[k] - 1;
      }
      const nzb = Bp[k2] - Bp[k1], nb = k2 - k1;
      rm += nzb + lu;
      ra += nzb + lu + nb;
      rd += nb;
      steps++;
    }
    this.cFactorMuls = this.Tp[n];
    this.cFactorDivs = divs;
    const on = this.refine > 0;
    this.cRefMuls = on ? rm : 0;
    this.cRefAdds = on ? ra : 0;
    this.cRefDivs = on ? rd : 0;
    this.cRefSteps = on ? steps : 0;
  }

  /**
   * Factorizes again with new values of A, given in A's own CSC order (the Ax of the matrix that
   * was analysed, or any array laid out the same way). Allocation-free unless a re-pivot is needed.
   */
  refactor(Ax: Float64Array): this {
    const S = this.symbolic;
    if (Ax.length < S.nnz) throw new RangeError(`Ax has length ${Ax.length}, expected nnz(A) = ${S.nnz}`);
    const A = this.scaling === 'none' ? Ax : this.scaleRows(Ax);
    if (this.code === null && this.kernel === 'mapped' && this.compileOption !== 'never' && !this.compileFailed && canCompile()) {
      this.refactors++;
      if (this.compileOption === 'always' || this.compileOption === 'loops' || this.refactors >= this.compileAfter) this.compileNow();
    }
    this.fromSource = false;
    if (this.code !== null && !this.codeGathered && this.loadAndFactor(A)) {
      this.cxStale = this.refine > 0 && this.code.residualFromA;
      this.factorMuls = this.cFactorMuls + this.scaleMuls;
      this.factorAdds = this.cFactorMuls;
      this.factorDivs = this.cFactorDivs;
      this.pivoted = false;
      return this;
    }
    const nfail = this.pass(A, null);
    this.pivoted = false;
    if (nfail > 0) this.repivotAndRefactor(A, nfail);
    this.factorMuls += this.scaleMuls;
    if (this.refine > 0) this.keepBlockValues(A);
    this.cxStale = false;
    // compiled code compiled by the re-pivot, or whose checks failed: its refinement reads A there
    const code = this.code;
    if (this.refine > 0 && code !== null && !this.codeGathered && code.residualFromA) this.loadA(A);
    return this;
  }

  /**
   * The source vector of FactorOptions.gather (A's entry t is source[map[t]]): write it, then call
   * refactorSource. The array changes when the code is compiled: fetch it before each fill.
   */
  get source(): Float64Array {
    if (this.gmap === null) throw new RangeError('source: this NumericLU was created without the gather option');
    return this.src;
  }

  /**
   * refactor() with the values of A in the source vector (FactorOptions.gather): the compiled code
   * reads them in place; otherwise A is gathered (A[t] = source[map[t]]) and refactored as usual.
   * Same factors and counts as refactor() on the gathered A. Allocation-free unless a re-pivot is needed.
   */
  refactorSource(): this {
    const g = this.gmap;
    if (g === null) throw new RangeError('refactorSource: this NumericLU was created without the gather option');
    const code = this.code;
    // the compiled code leaves the fixed pivots unchecked: they are checked here once per layout
    if (code !== null && this.codeGathered && !this.fixedChecked) this.checkFixedPivots();
    if (code !== null && this.codeGathered && code.factor()) {
      this.xStale = this.fromSource = code.syncX !== null;
      this.cxStale = this.refine > 0 && code.residualFromA;
      this.factorMuls = this.cFactorMuls;
      this.factorAdds = this.cFactorMuls;
      this.factorDivs = this.cFactorDivs;
      this.pivoted = false;
      return this;
    }
    const src = this.src, Ax = this.gAx;
    for (let t = 0; t < Ax.length; t++) Ax[t] = src[g[t]];
    return this.refactor(Ax);
  }

  /** whether the compiled solves hold the last factors (not after a generic refactor of code that solves from the source) */
  private compiledSolves(): boolean {
    const c = this.code;
    return c !== null && (c.syncX === null || this.fromSource);
  }

  /** The 1×1 pivots at fixed source positions (FactorOptions.gather.fixed): zero or non-finite values are reported as the generic refactor reports them. */
  private checkFixedPivots(): void {
    const S = this.symbolic, fx = this.gfixed, g = this.gmap!;
    if (fx !== null) {
      const { r, nblocks, Bp, Bslot } = S;
      for (let b = 0; b < nblocks; b++) {
        const k1 = r[b];
        if (r[b + 1] - k1 !== 1) continue;
        const sp = g[Bslot[Bp[k1]]];
        if (fx[sp] !== 1) continue;
        const v = this.src[sp];
        if (v === 0 || !(v - v === 0)) this.singular1x1(k1, v);
      }
    }
    this.fixedChecked = true;
  }

  /** compiled refactor: A into the module's memory, then its factor code */
  private loadAndFactor(A: Float64Array): boolean {
    this.loadA(A);
    return this.code!.factor();
  }

  /** A into the compiled code's memory */
  private loadA(A: Float64Array): void {
    const CA = this.code!.A;
    if (A.length === CA.length) CA.set(A);
    else for (let t = 0; t < CA.length; t++) CA[t] = A[t];
  }

  /** As = R·A (R by powers of two: the largest entry of each row, or the fixed factors); returns As. */
  private scaleRows(Ax: Float64Array): Float64Array {
    const { n, Ap, Ai } = this.symbolic;
    const { Rs, As } = this;
    const nz = Ap[n];
    if (this.scaling === 'max') {
      Rs.fill(0);
      for (let t = 0; t < nz; t++) {
        const v = Math.abs(Ax[t]);
        if (v > Rs[Ai[t]]) Rs[Ai[t]] = v;
      }
      for (let i = 0; i < n; i++) Rs[i] = inversePowerOfTwo(Rs[i]);
    }
    for (let t = 0; t < nz; t++) As[t] = Ax[t] * Rs[Ai[t]];
    this.scaleMuls = nz;
    return As;
  }

  /**
   * Cx from the compiled code's A after a compiled refactor that read the residual's C_bb there
   * (CompiledLU.residualFromA) and kept no copy: the generic refinement needs it.
   */
  private syncCx(): void {
    const { r, nblocks, Bp, Bslot } = this.symbolic;
    const A = this.code!.A, g = this.codeGathered ? this.gmap! : null, Cx = this.Cx;
    for (let b = 0; b < nblocks; b++) {
      if (r[b + 1] - r[b] < 2) continue;
      for (let e = Bp[r[b]]; e < Bp[r[b + 1]]; e++) Cx[e] = A[g === null ? Bslot[e] : g[Bslot[e]]];
    }
    this.cxStale = false;
  }

  /** Refinement: the in-block values of C (in the order of symbolic.Bp/Bi) for the residuals. */
  private keepBlockValues(Ax: Float64Array): void {
    const S = this.symbolic;
    const { r, nblocks, Bp, Bslot } = S;
    const Cx = this.Cx;
    for (let b = 0; b < nblocks; b++) {
      if (r[b + 1] - r[b] < 2) continue;
      for (let e = Bp[r[b]]; e < Bp[r[b + 1]]; e++) Cx[e] = Ax[Bslot[e]];
    }
  }

  /** One factorization pass over all blocks; returns how many blocks failed their checks (listed in `failed`). */
  private pass(Ax: Float64Array, forced: Uint8Array | null): number {
    const S = this.symbolic;
    const { r, nblocks, Bp, Bslot, Op, Oslot } = S;
    const { LUx, dpos, Opos, failed } = this;
    this.factorMuls = 0;
    this.factorDivs = 0;
    let nfail = 0;
    for (let b = 0; b < nblocks; b++) {
      const k1 = r[b];
      if (r[b + 1] - k1 === 1) {
        // 1×1 block: the pivot is the entry itself; no other row can replace it.
        const v = Ax[Bslot[Bp[k1]]];
        if (v === 0 || !(v - v === 0)) this.singular1x1(k1, v);
        LUx[dpos[k1]] = v;
        continue;
      }
      // a block just re-pivoted is checked for zero and non-finite pivots only
      this.relaxed = forced !== null && forced[b] === 1;
      const ok = this.kernel === 'mapped' ? this.blockMapped(b, Ax) : this.blockScatter(b, Ax);
      if (ok) continue;
      if (forced === null || forced[b] === 0) {
        failed[nfail++] = b;
      } else {
        const k = this.badColumn;
        throw new SingularPivotError(S.q[k], [{ row: S.p[k], value: LUx[dpos[k]] }], this.names, 'the re-pivoted factorization met a zero or non-finite pivot');
      }
    }
    this.factorAdds = this.factorMuls;
    // Entries above the diagonal blocks (after the blocks, whose slots were zeroed): used only by the solves.
    const onz = Op[S.n];
    for (let e = 0; e < onz; e++) LUx[Opos[e]] = Ax[Oslot[e]];
    return nfail;
  }

  /** column where the last block kernel stopped */
  private badColumn = 0;
  /** the block being factorized was just re-pivoted: no threshold or growth test (its pivots were chosen on these values) */
  private relaxed = false;

  /**
   * Block b of size ≥ 2 on precomputed slots: zero the block's slots, scatter C_bb, then per column
   * LUx(col k) -= L(:,j) u_jk for u_jk in ascending j (T gives the slot each product goes to),
   * and L(:,k) /= u_kk. Returns false (and stops) at the first failed check.
   */
  private blockMapped(b: number, Ax: Float64Array): boolean {
    const S = this.symbolic;
    const { r, Bp, Bslot } = S;
    const { LUx, cs, us, dpos, Bpos, T, Tp, Llo, Lhi } = this;
    const k1 = r[b];
    const k2 = r[b + 1];
    LUx.fill(0, cs[k1], cs[k2]);
    let maxA = 0;
    for (let e = Bp[k1]; e < Bp[k2]; e++) {
      const v = Ax[Bslot[e]];
      LUx[Bpos[e]] = v;
      maxA = Math.max(maxA, Math.abs(v));
    }
    this.badColumn = k1;
    if (!(maxA < Infinity)) return false; // NaN or ±Inf in the block: repivot() reports it
    const ulim = this.relaxed ? Infinity : this.growthLimit * maxA;
    const rtol = this.relaxed ? Infinity : 1 / this.checkTol;
    let divs = 0;
    let o = Tp[k1];
    const o0 = o;
    let ok = true;
    for (let k = k1; k < k2 && ok; k++) {
      const c0 = cs[k];
      const d = dpos[k];
      const c1 = cs[k + 1];
      for (let pu = us[k]; pu < d; pu++) {
        const u = LUx[pu];
        if (!(Math.abs(u) <= ulim)) ok = false;
        // column k -= L(:,j) u_jk, two products per turn
        const l1 = Lhi[pu];
        let s = Llo[pu];
        for (; s + 1 < l1; s += 2) {
          const t0 = c0 + T[o];
          const t1 = c0 + T[o + 1];
          o += 2;
          LUx[t0] -= LUx[s] * u;
          LUx[t1] -= LUx[s + 1] * u;
        }
        if (s < l1) LUx[c0 + T[o++]] -= LUx[s] * u;
      }
      const pivot = LUx[d];
      const apiv = Math.abs(pivot);
      // Threshold |x_ik| ≤ |u_kk| / tol and growth |u_kk| ≤ growthLimit · max|C_bb|, NaN failing both.
      const lim = apiv * rtol;
      if (!(apiv > 0 && apiv <= ulim)) ok = false;
      for (let s = d + 1; s < c1; s++) {
        const v = LUx[s];
        if (!(Math.abs(v) <= lim)) ok = false;
        LUx[s] = v / pivot; // L(:,k) = x(L(:,k)) / u_kk
      }
      divs += c1 - d - 1;
      if (!ok) this.badColumn = k;
    }
    // One multiplication and one subtraction per slot of T consumed.
    this.factorMuls += o - o0;
    this.factorDivs += divs;
    return ok;
  }

  /** Block b of size ≥ 2 through the dense work vector x (same arithmetic, no slot map). */
  private blockScatter(b: number, Ax: Float64Array): boolean {
    const S = this.symbolic;
    const { r, Bp, Bi, Bslot, Lp, Li, Up, Ui } = S;
    const { LUx, cs, us, dpos, x } = this;
    const k1 = r[b];
    const k2 = r[b + 1];
    let maxA = 0;
    for (let e = Bp[k1]; e < Bp[k2]; e++) maxA = Math.max(maxA, Math.abs(Ax[Bslot[e]]));
    this.badColumn = k1;
    if (!(maxA < Infinity)) return false;
    const ulim = this.relaxed ? Infinity : this.growthLimit * maxA;
    const rtol = this.relaxed ? Infinity : 1 / this.checkTol;
    let muls = 0;
    let divs = 0;
    let ok = true;
    for (let k = k1; k < k2 && ok; k++) {
      const u0 = us[k];
      const d = dpos[k];
      const c1 = cs[k + 1];
      for (let e = Bp[k]; e < Bp[k + 1]; e++) x[Bi[e]] = Ax[Bslot[e]];
      const ui = Up[k] - u0;
      for (let pu = u0; pu < d; pu++) {
        const j = Ui[ui + pu];
        const u = x[j];
        x[j] = 0;
        LUx[pu] = u;
        if (!(Math.abs(u) <= ulim)) ok = false;
        const l0 = dpos[j] + 1;
        const l1 = cs[j + 1];
        const li = Lp[j] - l0;
        for (let s = l0; s < l1; s++) x[Li[li + s]] -= LUx[s] * u; // x -= L(:,j) u_jk
        muls += l1 - l0;
      }
      const pivot = x[k];
      x[k] = 0;
      LUx[d] = pivot;
      const apiv = Math.abs(pivot);
      const lim = apiv * rtol;
      if (!(apiv > 0 && apiv <= ulim)) ok = false;
      const li = Lp[k] - d - 1;
      for (let s = d + 1; s < c1; s++) {
        const i = Li[li + s];
        const v = x[i];
        x[i] = 0;
        if (!(Math.abs(v) <= lim)) ok = false;
        LUx[s] = v / pivot; // L(:,k) = x(L(:,k)) / u_kk
      }
      divs += c1 - d - 1;
      if (!ok) this.badColumn = k;
    }
    this.factorMuls += muls;
    this.factorDivs += divs;
    return ok;
  }

  private singular1x1(k: number, v: number): never {
    const S = this.symbolic;
    if (v === 0) throw new SingularPivotError(S.q[k], [{ row: S.p[k], value: v }], this.names, 'the only candidate pivot (a 1×1 block of the block triangular form) is zero');
    throw new RangeError(`A has a non-finite value ${v} at row ${S.p[k]}, column ${S.q[k]}; values must be finite`);
  }

  /** Exceptional path: new row orders for the failed blocks, exact patterns for them, then a forced pass. */
  private repivotAndRefactor(Ax: Float64Array, nfail: number): void {
    const S = this.symbolic;
    const failedBlocks = Array.from(this.failed.subarray(0, nfail));
    const pNew = S.p.slice();
    const patterns: (BlockPattern | undefined)[] = [];
    const forced = new Uint8Array(S.nblocks);
    for (const b of failedBlocks) forced[b] = 1;
    for (let b = 0; b < S.nblocks; b++) {
      if (!forced[b]) {
        patterns.push(S.blockPattern(b));
        continue;
      }
      const k1 = S.r[b];
      const nb = S.r[b + 1] - k1;
      const rows = repivot(S, b, Ax, this.tol, this.names);
      const newPos = new Int32Array(nb);
      for (let t = 0; t < nb; t++) {
        pNew[k1 + t] = S.p[k1 + rows[t]];
        newPos[rows[t]] = t;
      }
      const { Bp, Bi } = S.blockMatrix(b);
      for (let e = 0; e < Bi.length; e++) Bi[e] = newPos[Bi[e]];
      patterns.push(luPattern(nb, Bp, Bi));
    }
    this.symbolic = new SymbolicLU(S.n, S.Ap, S.Ai, pNew, S.q, S.r, patterns, S.orderings, S.repivoted + nfail);
    this.layout();
    const again = this.pass(Ax, forced);
    if (again > 0) {
      // Blocks that passed before see the same arithmetic now; a failure here is a bug.
      throw new Error(`internal error: ${again} block(s) failed after re-pivoting`);
    }
    this.pivoted = true;
    this.repivots++;
    this.repivotedBlocks += nfail;
  }

  /**
   * Return to the row order of `S` (an analysis of the same matrix pattern, e.g. the one in force
   * before re-pivotings), so that the next refactor follows it: a run split into pieces gives the
   * same factors in every piece as in one pass. Allocates when the order changes (exceptional path).
   */
  restart(S: SymbolicLU): void {
    if (S === this.symbolic) return;
    const C = this.symbolic;
    if (S.n !== C.n || S.nnz !== C.nnz) throw new RangeError(`restart: the analysis (n = ${S.n}, nnz = ${S.nnz}) is not of this matrix (n = ${C.n}, nnz = ${C.nnz})`);
    this.symbolic = S;
    this.layout();
  }

  /** u_kk, the k-th pivot of C = A(p,q). */
  pivot(k: number): number {
    return this.LUx[this.dpos[k]];
  }

  /**
   * Pivot growth of the last factorization, min over the blocks of size ≥ 2 of
   * max|C_bb| / max|U_bb| (KLU's rgrowth; 1 when all blocks are 1×1). Small values warn of
   * instability. `Ax`: the values last given to refactor (their scaled copy is used when rows are
   * scaled). Allocation-free.
   */
  rgrowth(Ax: Float64Array): number {
    if (this.scaling !== 'none') Ax = this.As;
    const S = this.symbolic;
    const { r, nblocks, Bp, Bslot } = S;
    let g = 1;
    for (let b = 0; b < nblocks; b++) {
      const k1 = r[b];
      const k2 = r[b + 1];
      if (k2 - k1 === 1) continue;
      let maxA = 0;
      for (let e = Bp[k1]; e < Bp[k2]; e++) maxA = Math.max(maxA, Math.abs(Ax[Bslot[e]]));
      let maxU = 0;
      for (let k = k1; k < k2; k++) for (let t = this.us[k]; t <= this.dpos[k]; t++) maxU = Math.max(maxU, Math.abs(this.LUx[t]));
      if (maxU > 0 && maxA / maxU < g) g = maxA / maxU;
    }
    return g;
  }

  /** L of C = A(p,q) as a CSC matrix with its unit diagonal (allocates; for inspection and tests). */
  getL(): CscMatrix {
    const n = this.n;
    const Ap = new Int32Array(n + 1);
    const nz = this.symbolic.Lp[n] + n;
    const Ai = new Int32Array(nz);
    const Ax = new Float64Array(nz);
    let t = 0;
    for (let k = 0; k < n; k++) {
      Ap[k] = t;
      Ai[t] = k;
      Ax[t++] = 1;
      for (let s = this.dpos[k] + 1; s < this.cs[k + 1]; s++) {
        Ai[t] = this.LUi[s];
        Ax[t++] = this.LUx[s];
      }
    }
    Ap[n] = t;
    return { m: n, n, Ap, Ai, Ax };
  }

  /** U of C = A(p,q) within the diagonal blocks, with its diagonal (allocates; for inspection and tests). */
  getU(): CscMatrix {
    const n = this.n;
    const Ap = new Int32Array(n + 1);
    const nz = this.symbolic.Up[n] + n;
    const Ai = new Int32Array(nz);
    const Ax = new Float64Array(nz);
    let t = 0;
    for (let k = 0; k < n; k++) {
      Ap[k] = t;
      for (let s = this.us[k]; s <= this.dpos[k]; s++) {
        Ai[t] = this.LUi[s];
        Ax[t++] = this.LUx[s];
      }
    }
    Ap[n] = t;
    return { m: n, n, Ap, Ai, Ax };
  }

  /** x = A \ b (x may alias b). No allocation. */
  solve(x: Float64Array, b: Float64Array): Float64Array {
    const n = this.symbolic.n;
    if (b.length !== n) throw new RangeError(`b has length ${b.length}, expected n = ${n}`);
    if (x.length !== n) throw new RangeError(`x has length ${x.length}, expected n = ${n}`);
    this.resetSolveCounts();
    this.solveInto(x, 0, b, 0, false);
    return x;
  }

  /** x = A \ (−b), as solve(x, −b) bit for bit (negation is exact), without forming −b. No allocation. */
  solveNegated(x: Float64Array, b: Float64Array): Float64Array {
    const n = this.symbolic.n;
    if (b.length !== n) throw new RangeError(`b has length ${b.length}, expected n = ${n}`);
    if (x.length !== n) throw new RangeError(`x has length ${x.length}, expected n = ${n}`);
    this.resetSolveCounts();
    this.solveInto(x, 0, b, 0, true);
    return x;
  }

  /**
   * X = A \ B for nrhs right-hand sides stored column after column (B[c·n + i]); X may alias B.
   * No allocation.
   */
  solveMany(X: Float64Array, B: Float64Array, nrhs: number): Float64Array {
    const n = this.symbolic.n;
    if (!(Number.isInteger(nrhs) && nrhs >= 0)) throw new RangeError(`nrhs is ${nrhs}, expected a non-negative integer`);
    if (B.length !== n * nrhs) throw new RangeError(`B has length ${B.length}, expected n·nrhs = ${n * nrhs}`);
    if (X.length !== n * nrhs) throw new RangeError(`X has length ${X.length}, expected n·nrhs = ${n * nrhs}`);
    this.resetSolveCounts();
    for (let c = 0; c < nrhs; c++) this.solveInto(X, c * n, B, c * n, false);
    return X;
  }

  /**
   * X = A \ B like `solveMany`, for sparse right-hand sides: a column of L or U is applied only when
   * the unknown it multiplies is nonzero, so a solve touches only the rows its right-hand side's
   * pattern can reach (zero work skipped). The counters count the work done (at most solveMany's).
   * The solution equals solveMany's (up to the sign of zeros). With refinement and a diagonal block
   * of size ≥ 2, solves as solveMany does. No allocation.
   */
  solveManySparse(X: Float64Array, B: Float64Array, nrhs: number): Float64Array {
    if (this.refine > 0 && this.hasBigBlock) return this.solveMany(X, B, nrhs);
    const n = this.symbolic.n;
    if (!(Number.isInteger(nrhs) && nrhs >= 0)) throw new RangeError(`nrhs is ${nrhs}, expected a non-negative integer`);
    if (B.length !== n * nrhs) throw new RangeError(`B has length ${B.length}, expected n·nrhs = ${n * nrhs}`);
    if (X.length !== n * nrhs) throw new RangeError(`X has length ${X.length}, expected n·nrhs = ${n * nrhs}`);
    this.resetSolveCounts();
    let fl = 0;
    const sparseCode = this.compiledSolves() ? this.code!.solveSparse : null;
    if (sparseCode !== null) {
      const { p } = this.symbolic;
      const cw = this.code!.w, out = this.code!.out, Rs = this.Rs;
      for (let c = 0; c < nrhs; c++) {
        const bo = c * n;
        if (this.scaling === 'none') {
          for (let k = 0; k < n; k++) cw[k] = B[bo + p[k]];
        } else {
          for (let k = 0; k < n; k++) cw[k] = B[bo + p[k]] * Rs[p[k]];
        }
        fl += sparseCode();
        X.set(out, bo);
      }
    } else {
      for (let c = 0; c < nrhs; c++) fl += this.solveSparseInto(X, c * n, B, c * n);
    }
    this.solveMuls += fl + (this.scaling === 'none' ? 0 : n * nrhs);
    this.solveAdds += fl;
    this.solveDivs += n * nrhs;
    return X;
  }

  /**
   * X = A \ B (or A \ (−B) with `negate`, bit for bit the negated solution) for right-hand sides
   * with fixed patterns: column c of B is zero outside the pattern `pattern[c]` of `reach`
   * (solveReach, reach.ts), and only the ops of that pattern's reach run, in the solve's order — no
   * loop over all n unknowns. X may alias B; X's column is zero outside the reach afterwards. The
   * solution equals solveMany's up to the sign of zeros; the counters count the ops done (the
   * reach's static counts). With refinement and a block of size ≥ 2, or when the reach belongs to
   * another SymbolicLU (re-pivoted since), solves as solveMany does (then negated). No allocation.
   */
  solveManyReach(X: Float64Array, B: Float64Array, nrhs: number, reach: SolveReach, pattern: Int32Array, negate = false): Float64Array {
    const S = this.symbolic;
    const n = S.n;
    if (!(Number.isInteger(nrhs) && nrhs >= 0)) throw new RangeError(`nrhs is ${nrhs}, expected a non-negative integer`);
    if (B.length < n * nrhs) throw new RangeError(`B has length ${B.length}, expected at least n·nrhs = ${n * nrhs}`);
    if (X.length < n * nrhs) throw new RangeError(`X has length ${X.length}, expected at least n·nrhs = ${n * nrhs}`);
    if (pattern.length < nrhs) throw new RangeError(`pattern has ${pattern.length} entries, expected one per right-hand side (${nrhs})`);
    if (reach.symbolic !== S || (this.refine > 0 && this.hasBigBlock)) {
      // the reach no longer describes the factors (re-pivoted), or refinement needs whole blocks
      this.resetSolveCounts();
      let mul = 0, add = 0, div = 0, rm = 0, ra = 0, rd = 0, rs = 0;
      for (let c = 0; c < nrhs; c++) {
        this.solveInto(X, c * n, B, c * n, negate);
        mul += this.solveMuls; add += this.solveAdds; div += this.solveDivs;
        rm += this.refineMuls; ra += this.refineAdds; rd += this.refineDivs; rs += this.refineSteps;
        this.resetSolveCounts();
      }
      this.solveMuls = mul; this.solveAdds = add; this.solveDivs = div;
      this.refineMuls = rm; this.refineAdds = ra; this.refineDivs = rd; this.refineSteps = rs;
      return X;
    }
    this.resetSolveCounts();
    const { pinv, q } = S;
    const { LUx, LUi, cs, dpos, w, Rs } = this;
    const { rowStart, rows, opStart, ops, fma, divs } = reach;
    const scaled = this.scaling !== 'none';
    const sg = negate ? -1 : 1;
    let f = 0, dv = 0, sm = 0;
    for (let c = 0; c < nrhs; c++) {
      const k = pattern[c];
      if (!(k >= 0 && k < reach.npat)) throw new RangeError(`pattern[${c}] is ${k}, expected a pattern of the reach (0..${reach.npat - 1})`);
      const bo = c * n, o0 = opStart[k], o1 = opStart[k + 1], r0 = rowStart[k], r1 = rowStart[k + 1];
      for (let o = o0; o < o1; o++) { const op = ops[o]; w[op >= 0 ? op : ~op] = 0; }
      if (scaled) {
        for (let e = r0; e < r1; e++) { const row = rows[e]; w[pinv[row]] = (sg * B[bo + row]) * Rs[row]; }
        sm += r1 - r0;
      } else if (negate) {
        for (let e = r0; e < r1; e++) { const row = rows[e]; w[pinv[row]] = -B[bo + row]; }
      } else {
        for (let e = r0; e < r1; e++) { const row = rows[e]; w[pinv[row]] = B[bo + row]; }
      }
      if (X === B) for (let e = r0; e < r1; e++) X[bo + rows[e]] = 0;
      else X.fill(0, bo, bo + n);
      for (let o = o0; o < o1; o++) {
        const op = ops[o];
        if (op >= 0) {
          const d = dpos[op];
          const xj = w[op] / LUx[d];
          X[bo + q[op]] = xj;
          for (let t = cs[op]; t < d; t++) w[LUi[t]] -= LUx[t] * xj;
        } else {
          const j = ~op;
          const xj = w[j];
          const s1 = cs[j + 1];
          for (let s = dpos[j] + 1; s < s1; s++) w[LUi[s]] -= LUx[s] * xj;
        }
      }
      f += fma[k];
      dv += divs[k];
    }
    this.solveMuls = f + sm;
    this.solveAdds = f;
    this.solveDivs = dv;
    return X;
  }

  /** solveInto without refinement, skipping the columns whose unknown is zero; returns the multiply-subtracts done. */
  private solveSparseInto(X: Float64Array, xo: number, B: Float64Array, bo: number): number {
    const S = this.symbolic;
    const { n, p, q } = S;
    const { LUx, LUi, cs, dpos, w, segR, segBig, Rs } = this;
    if (this.scaling === 'none') {
      for (let k = 0; k < n; k++) w[k] = B[bo + p[k]];
    } else {
      for (let k = 0; k < n; k++) w[k] = B[bo + p[k]] * Rs[p[k]];
    }
    let fl = 0;
    for (let g = segBig.length - 1; g >= 0; g--) {
      const k1 = segR[g];
      const k2 = segR[g + 1];
      if (segBig[g] === 1) {
        for (let j = k1; j < k2; j++) {
          const xj = w[j];
          if (xj === 0) continue;
          const s1 = cs[j + 1];
          for (let s = dpos[j] + 1; s < s1; s++) w[LUi[s]] -= LUx[s] * xj;
          fl += s1 - dpos[j] - 1;
        }
      }
      for (let j = k2 - 1; j >= k1; j--) {
        const d = dpos[j];
        const xj = w[j] / LUx[d];
        X[xo + q[j]] = xj;
        if (xj === 0) continue;
        for (let t = cs[j]; t < d; t++) w[LUi[t]] -= LUx[t] * xj;
        fl += d - cs[j];
      }
    }
    return fl;
  }

  private resetSolveCounts(): void {
    this.solveMuls = 0;
    this.solveAdds = 0;
    this.solveDivs = 0;
    this.refineMuls = 0;
    this.refineAdds = 0;
    this.refineDivs = 0;
    this.refineSteps = 0;
  }

  /**
   * x = Aᵀ \ b (x may alias b). No allocation. With C = A(p,q): Cᵀ (x(p)) = b(q), Cᵀ block lower
   * triangular, solved from the first block down. Same counts as `solve`.
   *   y_j = (w_j − Σ_{i above j} C(i,j) y_i) / u_jj   (Uᵀ and the off-diagonal blocks, dot products)
   *   z_j = y_j − Σ_{i ∈ L(:,j)} l_ij z_i, j descending in the block   (Lᵀ, unit diagonal)
   * With refinement, a block's Cᵀ_bb z = w_b is refined as in `solve` (residual w_b − Cᵀ_bb z).
   * With row scaling, (R C)ᵀ (R⁻¹ x(p)) = b(q) is solved: x(p) = R y.
   */
  solveTransposed(x: Float64Array, b: Float64Array): Float64Array {
    const S = this.symbolic;
    const n = S.n;
    if (b.length !== n) throw new RangeError(`b has length ${b.length}, expected n = ${n}`);
    if (x.length !== n) throw new RangeError(`x has length ${x.length}, expected n = ${n}`);
    const { p, q } = S;
    const { LUx, LUi, cs, us, dpos, w, segR, segBig } = this;
    this.resetSolveCounts();
    for (let k = 0; k < n; k++) w[k] = b[q[k]];
    const nseg = segBig.length;
    const refine = this.refine > 0;
    for (let g = 0; g < nseg; g++) {
      const k1 = segR[g];
      const k2 = segR[g + 1];
      if (refine && segBig[g] === 1) {
        // off-diagonal blocks first, then the block alone, refined
        const rb = this.rb;
        for (let j = k1; j < k2; j++) {
          let t = w[j];
          const u = us[j];
          for (let s = cs[j]; s < u; s++) t -= LUx[s] * w[LUi[s]];
          w[j] = t;
          rb[j] = t;
        }
        this.blockSolveTransposed(w, k1, k2);
        this.refineBlock(w, k1, k2, true);
        continue;
      }
      for (let j = k1; j < k2; j++) {
        const d = dpos[j];
        let t = w[j];
        for (let s = cs[j]; s < d; s++) t -= LUx[s] * w[LUi[s]];
        w[j] = t / LUx[d];
      }
      if (segBig[g] === 1) {
        for (let j = k2 - 1; j >= k1; j--) {
          let t = w[j];
          const s1 = cs[j + 1];
          for (let s = dpos[j] + 1; s < s1; s++) t -= LUx[s] * w[LUi[s]];
          w[j] = t;
        }
      }
    }
    const Rs = this.Rs;
    if (this.scaling === 'none') {
      for (let k = 0; k < n; k++) x[p[k]] = w[k];
    } else {
      for (let k = 0; k < n; k++) x[p[k]] = w[k] * Rs[p[k]];
    }
    const fl = cs[n] - n;
    this.solveMuls += fl + (this.scaling === 'none' ? 0 : n);
    this.solveAdds += fl;
    this.solveDivs += n;
    return x;
  }

  /**
   * w = b(p) (times R); block back-substitution from the last block up:
   *   w_b = L_bb \ w_b;  then for j in the block, descending:  y_j = w_j / u_jj,
   *   x(q_j) = y_j,  w(rows of U(:,j) and of the entries above the block) -= C(those rows, j) y_j.
   * With refinement, a block of size ≥ 2 is solved alone (L_bb, U_bb), refined, and only then
   * updates the rows above it.
   */
  private solveInto(X: Float64Array, xo: number, B: Float64Array, bo: number, negate: boolean): void {
    const S = this.symbolic;
    const { n, p, q } = S;
    const { cs, Rs } = this;
    const code = this.compiledSolves() ? this.code! : null;
    const solveCode = code === null ? null : code.solve;
    if (code !== null && (solveCode !== null || code.solveB !== null)) {
      const cw = code.w;
      if (code.solveB !== null) {
        if (B === code.B) { /* b is in the buffer already (solveBufferNegated) */ } else if (bo === 0 && B.length === n) code.B.set(B);
        else for (let k = 0; k < n; k++) code.B[k] = B[bo + k];
        code.solveB(negate);
      } else if (this.scaling === 'none') {
        // b copied in whole, permuted (and negated) by the module's straight-line copies
        if (B === code.B) { /* in the buffer already */ } else if (bo === 0 && B.length === n) code.B.set(B);
        else for (let k = 0; k < n; k++) code.B[k] = B[bo + k];
        code.wFromB(negate);
      } else {
        const sg = negate ? -1 : 1;
        for (let k = 0; k < n; k++) cw[k] = (sg * B[bo + p[k]]) * Rs[p[k]];
      }
      if (solveCode !== null) solveCode();
      X.set(code.out, xo);
      const fl = cs[n] - n;
      this.solveMuls += fl + this.cRefMuls + (this.scaling === 'none' ? 0 : n);
      this.solveAdds += fl + this.cRefAdds;
      this.solveDivs += n + this.cRefDivs;
      this.refineMuls += this.cRefMuls;
      this.refineAdds += this.cRefAdds;
      this.refineDivs += this.cRefDivs;
      this.refineSteps += this.cRefSteps;
      return;
    }
    const { LUx, LUi, us, dpos, w, segR, segBig } = this;
    if (this.scaling === 'none') {
      if (negate) for (let k = 0; k < n; k++) w[k] = -B[bo + p[k]];
      else for (let k = 0; k < n; k++) w[k] = B[bo + p[k]];
    } else {
      const sg = negate ? -1 : 1;
      for (let k = 0; k < n; k++) w[k] = (sg * B[bo + p[k]]) * Rs[p[k]];
      this.solveMuls += n;
    }
    const refine = this.refine > 0;
    for (let g = segBig.length - 1; g >= 0; g--) {
      // A segment is one block of size ≥ 2, or a run of 1×1 blocks (an upper triangular stretch).
      const k1 = segR[g];
      const k2 = segR[g + 1];
      if (refine && segBig[g] === 1) {
        const rb = this.rb;
        for (let j = k1; j < k2; j++) rb[j] = w[j];
        this.blockSolve(w, k1, k2);
        this.refineBlock(w, k1, k2, false);
        for (let j = k1; j < k2; j++) {
          const xj = w[j];
          X[xo + q[j]] = xj;
          const u = us[j];
          for (let t = cs[j]; t < u; t++) w[LUi[t]] -= LUx[t] * xj;
        }
        continue;
      }
      if (segBig[g] === 1) {
        for (let j = k1; j < k2; j++) {
          const xj = w[j];
          const s1 = cs[j + 1];
          for (let s = dpos[j] + 1; s < s1; s++) w[LUi[s]] -= LUx[s] * xj;
        }
      }
      for (let j = k2 - 1; j >= k1; j--) {
        const d = dpos[j];
        const xj = w[j] / LUx[d];
        X[xo + q[j]] = xj; // y_j is final: x(q) = y
        for (let t = cs[j]; t < d; t++) w[LUi[t]] -= LUx[t] * xj;
      }
    }
    // Every stored slot but the pivots is one multiply-subtract; every pivot one division.
    const fl = cs[n] - n;
    this.solveMuls += fl;
    this.solveAdds += fl;
    this.solveDivs += n;
  }

  /** v(k1:k2) = C_bb \ v(k1:k2) with the block's L and U (no update of other rows; counted by the caller). */
  private blockSolve(v: Float64Array, k1: number, k2: number): void {
    const { LUx, LUi, cs, us, dpos } = this;
    for (let j = k1; j < k2; j++) {
      const xj = v[j];
      const s1 = cs[j + 1];
      for (let s = dpos[j] + 1; s < s1; s++) v[LUi[s]] -= LUx[s] * xj;
    }
    for (let j = k2 - 1; j >= k1; j--) {
      const d = dpos[j];
      const xj = v[j] / LUx[d];
      v[j] = xj;
      for (let t = us[j]; t < d; t++) v[LUi[t]] -= LUx[t] * xj;
    }
  }

  /** v(k1:k2) = C_bbᵀ \ v(k1:k2) with the block's U and L (counted by the caller). */
  private blockSolveTransposed(v: Float64Array, k1: number, k2: number): void {
    const { LUx, LUi, cs, us, dpos } = this;
    for (let j = k1; j < k2; j++) {
      const d = dpos[j];
      let t = v[j];
      for (let s = us[j]; s < d; s++) t -= LUx[s] * v[LUi[s]];
      v[j] = t / LUx[d];
    }
    for (let j = k2 - 1; j >= k1; j--) {
      let t = v[j];
      const s1 = cs[j + 1];
      for (let s = dpos[j] + 1; s < s1; s++) t -= LUx[s] * v[LUi[s]];
      v[j] = t;
    }
  }

  /**
   * Refinement of block [k1, k2): y = v(k1:k2) solves C_bb y = rb (or C_bbᵀ y = rb) to working
   * accuracy; up to `refine` steps r = rb − C_bb y, δ = C_bb \ r, y += δ. Counts into the solve
   * and refine counters: per step nnz(C_bb) multiply-subtracts for the residual (21 flops per entry
   * and 4 per column when extended, plus one addition per row), the block solve (lnz + unz
   * multiply-subtracts, one division per row) and one addition per row for the update.
   */
  private refineBlock(v: Float64Array, k1: number, k2: number, transposed: boolean): void {
    const S = this.symbolic;
    const { Bp, Bi } = S;
    if (this.cxStale) this.syncCx();
    const { Cx, rb, dz, rlo, cs, us } = this;
    const extended = this.residual === 'extended';
    const nb = k2 - k1;
    const nzb = Bp[k2] - Bp[k1];
    // L and U of the block: the slots of the block's columns but the pivots and the off-block entries
    let lu = 0;
    for (let j = k1; j < k2; j++) lu += cs[j + 1] - us[j] - 1;
    let muls = 0, adds = 0, divs = 0;
    let prev = Infinity;
    for (let step = 0; step < this.refine; step++) {
      // r = rb − C_bb y (or rb − C_bbᵀ y)
      if (!extended) {
        for (let k = k1; k < k2; k++) dz[k] = rb[k];
        if (!transposed) {
          for (let k = k1; k < k2; k++) {
            const yk = v[k];
            for (let e = Bp[k]; e < Bp[k + 1]; e++) dz[Bi[e]] -= Cx[e] * yk;
          }
        } else {
          for (let k = k1; k < k2; k++) {
            let t = dz[k];
            for (let e = Bp[k]; e < Bp[k + 1]; e++) t -= Cx[e] * v[Bi[e]];
            dz[k] = t;
          }
        }
        muls += nzb;
        adds += nzb;
      } else {
        for (let k = k1; k < k2; k++) {
          dz[k] = rb[k];
          rlo[k] = 0;
        }
        if (!transposed) {
          for (let k = k1; k < k2; k++) {
            const yk = v[k];
            const ty = SPLIT * yk;
            const yh = ty - (ty - yk);
            const yl = yk - yh;
            for (let e = Bp[k]; e < Bp[k + 1]; e++) {
              const i = Bi[e];
              const c = Cx[e];
              const tc = SPLIT * c;
              const ch = tc - (tc - c);
              const cl = c - ch;
              // TwoProduct: c·y = ph + pl exactly
              const ph = c * yk;
              const pl = ((ch * yh - ph) + ch * yl + cl * yh) + cl * yl;
              // TwoSum: dz_i − ph = s + e exactly
              const a = dz[i];
              const s = a - ph;
              const bb = s - a;
              const err = (a - (s - bb)) - (ph + bb);
              dz[i] = s;
              rlo[i] += err - pl;
            }
          }
        } else {
          for (let k = k1; k < k2; k++) {
            let hi = dz[k];
            let lo = 0;
            for (let e = Bp[k]; e < Bp[k + 1]; e++) {
              const yk = v[Bi[e]];
              const ty = SPLIT * yk;
              const yh = ty - (ty - yk);
              const yl = yk - yh;
              const c = Cx[e];
              const tc = SPLIT * c;
              const ch = tc - (tc - c);
              const cl = c - ch;
              const ph = c * yk;
              const pl = ((ch * yh - ph) + ch * yl + cl * yh) + cl * yl;
              const s = hi - ph;
              const bb = s - hi;
              lo += ((hi - (s - bb)) - (ph + bb)) - pl;
              hi = s;
            }
            dz[k] = hi;
            rlo[k] = lo;
          }
        }
        for (let k = k1; k < k2; k++) dz[k] += rlo[k];
        // per product: split of c (1 mul, 3 adds), TwoProduct (5 muls, 4 adds), TwoSum (6 adds), low
        // part (2 adds); the split of y (1 mul, 3 adds) once per column, or per product when
        // transposed; one addition per row to round hi + lo
        if (!transposed) {
          muls += 6 * nzb + nb;
          adds += 15 * nzb + 3 * nb + nb;
        } else {
          muls += 7 * nzb;
          adds += 18 * nzb + nb;
        }
      }
      if (!transposed) this.blockSolve(dz, k1, k2);
      else this.blockSolveTransposed(dz, k1, k2);
      muls += lu;
      adds += lu;
      divs += nb;
      // y += δ; stop once the correction is negligible or no longer halves
      let dmax = 0, ymax = 0;
      for (let k = k1; k < k2; k++) {
        const y = v[k] + dz[k];
        v[k] = y;
        const ad = Math.abs(dz[k]);
        if (ad > dmax) dmax = ad;
        const ay = Math.abs(y);
        if (ay > ymax) ymax = ay;
      }
      adds += nb;
      this.refineSteps++;
      if (dmax <= this.refineTol * ymax || dmax > 0.5 * prev) break;
      prev = dmax;
    }
    this.refineMuls += muls;
    this.refineAdds += adds;
    this.refineDivs += divs;
    this.solveMuls += muls;
    this.solveAdds += adds;
    this.solveDivs += divs;
  }
}

/**
 * lu = factor(A, S): numeric LU of A on the analysis S (threshold partial pivoting with diagonal
 * preference the first time; see NumericLU). A's pattern must be the one S was computed from.
 */
export function factor(A: CscMatrix, S: SymbolicLU, options: FactorOptions = {}): NumericLU {
  if (A.m !== A.n) throw new RangeError(`A is ${A.m}×${A.n}; LU needs a square matrix`);
  if (A.n !== S.n) throw new RangeError(`A has order ${A.n}, the analysis has n = ${S.n}`);
  const n = A.n;
  for (let j = 0; j <= n; j++) if (A.Ap[j] !== S.Ap[j]) throw new RangeError(`A's pattern differs from the analysed one at column ${Math.max(0, j - 1)}`);
  const nz = A.Ap[n];
  for (let t = 0; t < nz; t++) if (A.Ai[t] !== S.Ai[t]) throw new RangeError(`A's pattern differs from the analysed one at entry ${t} (row ${A.Ai[t]})`);
  return new NumericLU(S, options).refactor(A.Ax);
}
