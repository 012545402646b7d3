/**
 * S = SymbolicLU(A, p, q, r, blocks): the offline result — block triangular form C = A(p,q) with
 * block boundaries r, the chosen order inside each block, the exact patterns of L and U of every
 * diagonal block, the entries of the off-diagonal blocks, and the exact flop counts of numeric
 * factorization and solve. Serialisable with toJSON / SymbolicLU.fromJSON.
 * Source: Davis, Direct Methods for Sparse Linear Systems, §6 (`css`); KLU's symbolic object
 * (Davis & Palamadai Natarajan, ACM TOMS 37, 2010), here with exact patterns instead of estimates.
 *
 * Indices: column k of C is column q[k] of A, row k of C is row p[k] of A. Per column k of C:
 *   Bi/Bslot[Bp[k] ..]: rows (of C) inside k's diagonal block and the positions of those entries
 *                       in A.Ax, so that refactor reads A's values in A's own CSC order;
 *   Oi/Oslot[Op[k] ..]: rows (of C) above the block (off-diagonal blocks, used only in solves);
 *   Li[Lp[k] ..]:       rows of the strictly lower part of L(:,k) (unit diagonal implied);
 *   Ui[Up[k] ..]:       rows of the strictly upper part of U(:,k), ascending (U(k,k) is the pivot).
 */
import { luPattern, type LuPattern } from './lu-pattern.ts';

/** One candidate ordering's predicted factor flops on a block; `exact` false means "more than". */
export interface OrderingScore {
  readonly ordering: string;
  readonly flops: number;
  readonly exact: boolean;
}

/** The ordering chosen for one diagonal block of size ≥ 2, with the alternatives' scores. */
export interface BlockOrdering {
  readonly block: number;
  readonly start: number;
  readonly size: number;
  readonly chosen: string;
  readonly flops: number;
  readonly scores: readonly OrderingScore[];
}

/** Local (block-relative) L/U patterns of one block. */
export type BlockPattern = Pick<LuPattern, 'Lp' | 'Li' | 'Up' | 'Ui'>;

/** A SymbolicLU as JSON (`SymbolicLU.toJSON`, read back with `SymbolicLU.fromJSON`). */
export interface SymbolicLUJSON {
  readonly format: 'sparsedyn.SymbolicLU';
  readonly version: 1;
  readonly n: number;
  readonly Ap: number[];
  readonly Ai: number[];
  readonly p: number[];
  readonly q: number[];
  readonly r: number[];
  readonly Lp: number[];
  readonly Li: number[];
  readonly Up: number[];
  readonly Ui: number[];
  readonly orderings: BlockOrdering[];
  readonly repivoted: number;
}

/**
 * The offline result of `analyze`: the BTF permutations, the ordering of each block and the exact L
 * and U patterns with predicted flops. Immutable; can be saved as JSON and loaded to skip the
 * analysis.
 */
export class SymbolicLU {
  /** order of A */
  readonly n: number;
  /** pattern of A (kept to check that a matrix handed to factor() matches) */
  readonly Ap: Int32Array;
  readonly Ai: Int32Array;
  /** row permutation: row k of C = A(p,q) is row p[k] of A */
  readonly p: Int32Array;
  /** inverse row permutation: pinv[p[k]] = k */
  readonly pinv: Int32Array;
  /** column permutation: column k of C is column q[k] of A */
  readonly q: Int32Array;
  /** block boundaries in C, length nblocks+1 */
  readonly r: Int32Array;
  readonly nblocks: number;
  /** size of the largest diagonal block */
  readonly maxBlock: number;
  /** in-block entries of C per column: rows of C and slots in A.Ax */
  readonly Bp: Int32Array;
  readonly Bi: Int32Array;
  readonly Bslot: Int32Array;
  /** off-diagonal-block entries of C per column: rows of C and slots in A.Ax */
  readonly Op: Int32Array;
  readonly Oi: Int32Array;
  readonly Oslot: Int32Array;
  /** strictly lower L per column of C (rows of C) */
  readonly Lp: Int32Array;
  readonly Li: Int32Array;
  /** strictly upper U per column of C (rows of C, ascending) */
  readonly Up: Int32Array;
  readonly Ui: Int32Array;
  /** predicted counts of one numeric factorization (1×1 blocks cost nothing) */
  readonly factorMuls: number;
  readonly factorAdds: number;
  readonly factorDivs: number;
  /** predicted counts of one solve with one right-hand side */
  readonly solveMuls: number;
  readonly solveAdds: number;
  readonly solveDivs: number;
  /** the ordering chosen in each block of size ≥ 2 and the alternatives' scores */
  readonly orderings: readonly BlockOrdering[];
  /** number of blocks whose row order was changed by numeric pivoting since the analysis */
  readonly repivoted: number;

  /**
   * Builds the structures from A's pattern, the final permutations and each block's local L/U
   * patterns (undefined for 1×1 blocks). Use `analyze` rather than calling this directly.
   */
  constructor(
    n: number,
    Ap: Int32Array,
    Ai: Int32Array,
    p: Int32Array,
    q: Int32Array,
    r: Int32Array,
    blockPatterns: readonly (BlockPattern | undefined)[],
    orderings: readonly BlockOrdering[],
    repivoted = 0,
  ) {
    this.n = n;
    this.Ap = Ap;
    this.Ai = Ai;
    this.p = p;
    this.q = q;
    this.r = r;
    this.nblocks = r.length - 1;
    this.orderings = orderings;
    this.repivoted = repivoted;
    const pinv = new Int32Array(n);
    for (let k = 0; k < n; k++) pinv[p[k]] = k;
    this.pinv = pinv;
    const nz = Ap[n];
    const Bp = new Int32Array(n + 1);
    const Op = new Int32Array(n + 1);
    let maxBlock = 0;
    // Count in-block and off-block entries per column of C.
    for (let b = 0; b < this.nblocks; b++) {
      const k1 = r[b];
      const k2 = r[b + 1];
      if (k2 - k1 > maxBlock) maxBlock = k2 - k1;
      for (let k = k1; k < k2; k++) {
        const j = q[k];
        for (let t = Ap[j]; t < Ap[j + 1]; t++) {
          const i = pinv[Ai[t]];
          if (i >= k1) Bp[k + 1]++;
          else Op[k + 1]++;
          if (i >= k2) throw new RangeError(`SymbolicLU: entry (${Ai[t]}, ${j}) of A lies below the diagonal blocks`);
        }
      }
    }
    this.maxBlock = maxBlock;
    for (let k = 0; k < n; k++) {
      Bp[k + 1] += Bp[k];
      Op[k + 1] += Op[k];
    }
    const Bi = new Int32Array(Bp[n]);
    const Bslot = new Int32Array(Bp[n]);
    const Oi = new Int32Array(Op[n]);
    const Oslot = new Int32Array(Op[n]);
    for (let b = 0; b < this.nblocks; b++) {
      const k1 = r[b];
      for (let k = k1; k < r[b + 1]; k++) {
        const j = q[k];
        let tb = Bp[k];
        let to = Op[k];
        for (let t = Ap[j]; t < Ap[j + 1]; t++) {
          const i = pinv[Ai[t]];
          if (i >= k1) {
            Bi[tb] = i;
            Bslot[tb++] = t;
          } else {
            Oi[to] = i;
            Oslot[to++] = t;
          }
        }
      }
    }
    if (Bp[n] + Op[n] !== nz) throw new RangeError('SymbolicLU: inconsistent pattern');
    this.Bp = Bp;
    this.Bi = Bi;
    this.Bslot = Bslot;
    this.Op = Op;
    this.Oi = Oi;
    this.Oslot = Oslot;
    // Global L and U from the local block patterns.
    let lnz = 0;
    let unz = 0;
    for (let b = 0; b < this.nblocks; b++) {
      const bp = blockPatterns[b];
      const nb = r[b + 1] - r[b];
      if (nb > 1) {
        if (bp === undefined) throw new RangeError(`SymbolicLU: block ${b} of size ${nb} has no L/U pattern`);
        lnz += bp.Lp[nb];
        unz += bp.Up[nb];
      }
    }
    const Lp = new Int32Array(n + 1);
    const Li = new Int32Array(lnz);
    const Up = new Int32Array(n + 1);
    const Ui = new Int32Array(unz);
    let tl = 0;
    let tu = 0;
    let fm = 0;
    let fd = 0;
    for (let b = 0; b < this.nblocks; b++) {
      const k1 = r[b];
      const nb = r[b + 1] - k1;
      const bp = blockPatterns[b];
      for (let c = 0; c < nb; c++) {
        Lp[k1 + c] = tl;
        Up[k1 + c] = tu;
        if (nb === 1 || bp === undefined) continue;
        for (let s = bp.Lp[c]; s < bp.Lp[c + 1]; s++) Li[tl++] = bp.Li[s] + k1;
        for (let s = bp.Up[c]; s < bp.Up[c + 1]; s++) {
          const i = bp.Ui[s];
          Ui[tu++] = i + k1;
          fm += bp.Lp[i + 1] - bp.Lp[i];
        }
        fd += bp.Lp[c + 1] - bp.Lp[c];
      }
    }
    Lp[n] = tl;
    Up[n] = tu;
    this.Lp = Lp;
    this.Li = Li;
    this.Up = Up;
    this.Ui = Ui;
    this.factorMuls = fm;
    this.factorAdds = fm;
    this.factorDivs = fd;
    this.solveMuls = tl + tu + Op[n];
    this.solveAdds = tl + tu + Op[n];
    this.solveDivs = n;
  }

  /** number of entries of A */
  get nnz(): number {
    return this.Ap[this.n];
  }
  /** nnz(L) + nnz(U) − n over the diagonal blocks (unit diagonal of L and diagonal of U counted once) */
  get luNnz(): number {
    return this.Lp[this.n] + this.Up[this.n] + this.n;
  }
  /** entries outside the diagonal blocks */
  get offNnz(): number {
    return this.Op[this.n];
  }
  get factorFlops(): number {
    return this.factorMuls + this.factorAdds + this.factorDivs;
  }
  get solveFlops(): number {
    return this.solveMuls + this.solveAdds + this.solveDivs;
  }

  /** Local L/U pattern of block b (undefined for a 1×1 block). */
  blockPattern(b: number): BlockPattern | undefined {
    const k1 = this.r[b];
    const nb = this.r[b + 1] - k1;
    if (nb === 1) return undefined;
    const Lp = new Int32Array(nb + 1);
    const Up = new Int32Array(nb + 1);
    const l0 = this.Lp[k1];
    const u0 = this.Up[k1];
    for (let c = 0; c <= nb; c++) {
      Lp[c] = this.Lp[k1 + c] - l0;
      Up[c] = this.Up[k1 + c] - u0;
    }
    const Li = this.Li.slice(l0, this.Lp[k1 + nb]);
    const Ui = this.Ui.slice(u0, this.Up[k1 + nb]);
    for (let s = 0; s < Li.length; s++) Li[s] -= k1;
    for (let s = 0; s < Ui.length; s++) Ui[s] -= k1;
    return { Lp, Li, Up, Ui };
  }

  /** The analysis as JSON, to save and load with SymbolicLU.fromJSON. */
  toJSON(): SymbolicLUJSON {
    return {
      format: 'sparsedyn.SymbolicLU',
      version: 1,
      n: this.n,
      Ap: Array.from(this.Ap),
      Ai: Array.from(this.Ai),
      p: Array.from(this.p),
      q: Array.from(this.q),
      r: Array.from(this.r),
      Lp: Array.from(this.Lp),
      Li: Array.from(this.Li),
      Up: Array.from(this.Up),
      Ui: Array.from(this.Ui),
      orderings: this.orderings.map((o) => ({ ...o, scores: o.scores.map((s) => ({ ...s })) })),
      repivoted: this.repivoted,
    };
  }

  /** Rebuilds a SymbolicLU from `toJSON()` output (or its JSON.parse), checking its consistency. */
  static fromJSON(json: SymbolicLUJSON | string): SymbolicLU {
    let o = json as SymbolicLUJSON;
    if (typeof json === 'string') {
      try { o = JSON.parse(json); } catch { throw new SavedAnalysisError('not a saved symbolic analysis (format "sparsedyn.SymbolicLU", version 1)'); }
    }
    if (typeof o !== 'object' || o === null) throw new SavedAnalysisError('not a saved symbolic analysis (format "sparsedyn.SymbolicLU", version 1)');
    if (o?.format !== 'sparsedyn.SymbolicLU' || o.version !== 1) throw new SavedAnalysisError('not a saved symbolic analysis (format "sparsedyn.SymbolicLU", version 1)');
    const n = o.n;
    const I = (a: number[], name: string, len?: number): Int32Array => {
      if (!Array.isArray(a) || (len !== undefined && a.length !== len)) throw new SavedAnalysisError(`saved symbolic analysis: ${name} missing or of wrong length`);
      return Int32Array.from(a);
    };
    const Ap = I(o.Ap, 'Ap', n + 1);
    const Ai = I(o.Ai, 'Ai', Ap[n]);
    const p = I(o.p, 'p', n);
    const q = I(o.q, 'q', n);
    const r = I(o.r, 'r');
    const Lp = I(o.Lp, 'Lp', n + 1);
    const Li = I(o.Li, 'Li', Lp[n]);
    const Up = I(o.Up, 'Up', n + 1);
    const Ui = I(o.Ui, 'Ui', Up[n]);
    // A's pattern: column pointers from 0, non-decreasing; rows in range, none twice in a column
    if (Ap[0] !== 0) throw new SavedAnalysisError('saved symbolic analysis: Ap must start at 0');
    const mark = new Int32Array(n).fill(-1);
    for (let j = 0; j < n; j++) {
      if (!(Ap[j + 1] >= Ap[j])) throw new SavedAnalysisError(`saved symbolic analysis: Ap decreases at column ${j}`);
      for (let t = Ap[j]; t < Ap[j + 1]; t++) {
        const i = Ai[t];
        if (!(i >= 0 && i < n) || mark[i] === j) throw new SavedAnalysisError(`saved symbolic analysis: Ai holds row ${i} in column ${j} (out of range or twice)`);
        mark[i] = j;
      }
    }
    checkPermutation(p, 'p');
    checkPermutation(q, 'q');
    if (r[0] !== 0 || r[r.length - 1] !== n) throw new SavedAnalysisError('saved symbolic analysis: r must run from 0 to n');
    const patterns: (BlockPattern | undefined)[] = [];
    for (let b = 0; b + 1 < r.length; b++) {
      const k1 = r[b];
      const nb = r[b + 1] - k1;
      if (nb < 1) throw new SavedAnalysisError(`saved symbolic analysis: block ${b} is empty`);
      if (nb === 1) {
        patterns.push(undefined);
        continue;
      }
      const bLp = new Int32Array(nb + 1);
      const bUp = new Int32Array(nb + 1);
      for (let c = 0; c <= nb; c++) {
        bLp[c] = Lp[k1 + c] - Lp[k1];
        bUp[c] = Up[k1 + c] - Up[k1];
      }
      const bLi = Li.slice(Lp[k1], Lp[k1 + nb]).map((i) => i - k1);
      const bUi = Ui.slice(Up[k1], Up[k1 + nb]).map((i) => i - k1);
      for (let c = 0; c < nb; c++) {
        for (let s = bLp[c]; s < bLp[c + 1]; s++) if (!(bLi[s] > c && bLi[s] < nb)) throw new SavedAnalysisError(`saved symbolic analysis: L entry out of block ${b}`);
        for (let s = bUp[c]; s < bUp[c + 1]; s++) if (!(bUi[s] >= 0 && bUi[s] < c)) throw new SavedAnalysisError(`saved symbolic analysis: U entry out of block ${b}`);
      }
      patterns.push({ Lp: bLp, Li: bLi, Up: bUp, Ui: bUi });
    }
    let S: SymbolicLU;
    try {
      S = new SymbolicLU(n, Ap, Ai, p, q, r, patterns, o.orderings ?? [], o.repivoted ?? 0);
    } catch (e) {
      if (e instanceof RangeError) throw new SavedAnalysisError(`saved symbolic analysis: ${e.message.replace(/^SymbolicLU: /, '')}`);
      throw e;
    }
    // The stored patterns must be the exact factors' patterns of C = A(p,q): recompute and compare.
    for (let b = 0; b < S.nblocks; b++) {
      const k1 = r[b];
      const nb = r[b + 1] - k1;
      const stored = patterns[b];
      if (nb === 1 || stored === undefined) continue;
      const { Bp, Bi } = S.blockMatrix(b);
      const fresh = luPattern(nb, Bp, Bi);
      if (!sameArray(fresh.Lp, stored.Lp) || !sameArray(fresh.Li, stored.Li) || !sameArray(fresh.Up, stored.Up) || !sameArray(fresh.Ui, stored.Ui)) {
        throw new SavedAnalysisError(`saved symbolic analysis: the L/U patterns of block ${b} do not match the factors of A(p,q)`);
      }
    }
    return S;
  }

  /** Local pattern (Bp, Bi) of diagonal block b of C, rows and columns relative to r[b]. */
  blockMatrix(b: number): { Bp: Int32Array; Bi: Int32Array } {
    const k1 = this.r[b];
    const nb = this.r[b + 1] - k1;
    const t0 = this.Bp[k1];
    const Bp = new Int32Array(nb + 1);
    for (let c = 0; c <= nb; c++) Bp[c] = this.Bp[k1 + c] - t0;
    const Bi = this.Bi.slice(t0, this.Bp[k1 + nb]);
    for (let t = 0; t < Bi.length; t++) Bi[t] -= k1;
    return { Bp, Bi };
  }
}

function sameArray(a: Int32Array, b: Int32Array): boolean {
  if (a.length !== b.length) return false;
  for (let t = 0; t < a.length; t++) if (a[t] !== b[t]) return false;
  return true;
}

/** A saved symbolic analysis (SymbolicLU.fromJSON) that is not one, or not consistent; names the field. */
export class SavedAnalysisError extends Error {
  override name = 'SavedAnalysisError';
}

function checkPermutation(p: Int32Array, name: string): void {
  const seen = new Uint8Array(p.length);
  for (let k = 0; k < p.length; k++) {
    const i = p[k];
    if (!(i >= 0 && i < p.length) || seen[i]) throw new SavedAnalysisError(`saved symbolic analysis: ${name} is not a permutation`);
    seen[i] = 1;
  }
}
