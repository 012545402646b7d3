/**
 * S = analyze(A): the offline step — block triangular form, then in each irreducible diagonal
 * block the fill-reducing order with the fewest predicted factor flops among the candidates, and
 * the exact symbolic factorization (SymbolicLU). Only the pattern of A is read.
 * Source: Duff 1977 / Tarjan 1972 (btf.ts); AMD, AMF, COLAMD, Markowitz (orderings.ts);
 * Gilbert & Peierls 1988 (lu-pattern.ts); the block-by-block scheme of KLU (Davis & Palamadai
 * Natarajan, ACM TOMS 37, 2010).
 *
 * If A can be permuted to triangular form, every block is 1×1 and the factors have no fill.
 */
import { btf } from './btf.ts';
import type { CscMatrix } from './csc.ts';
import { assertSquare, type MatrixNames } from './errors.ts';
import { luPattern, type LuPattern } from './lu-pattern.ts';
import { AUTO_LARGE_BLOCK, AUTO_ORDERINGS, AUTO_ORDERINGS_LARGE, BlockPatterns, isOrderingName, ORDERINGS, orderBlock, type OrderingName } from './orderings.ts';
import { SymbolicLU, type BlockOrdering, type OrderingScore } from './symbolic.ts';

/**
 * Options of `analyze`: the ordering ('auto' or a name), the candidates 'auto' tries, and the row
 * and column names used in messages.
 */
export interface AnalyzeOptions extends MatrixNames {
  /** an ordering name, or 'auto' (default): try `candidates` in each block and keep the cheapest */
  readonly ordering?: OrderingName | 'auto';
  /** the orderings 'auto' tries (default AUTO_ORDERINGS, and AUTO_ORDERINGS_LARGE on blocks larger than AUTO_LARGE_BLOCK) */
  readonly candidates?: readonly OrderingName[];
}

/** A candidate's symbolic run is abandoned once it exceeds this many times the best score so far. */
const SCORE_SLACK = 4;

/**
 * S = analyze(A): the offline step on the pattern of A — block triangular form, the cheapest
 * fill-reducing order per block, the exact symbolic LU. Throws StructurallySingularError naming the
 * unmatched rows and columns.
 */
export function analyze(A: Pick<CscMatrix, 'm' | 'n' | 'Ap' | 'Ai'>, options: AnalyzeOptions = {}): SymbolicLU {
  assertSquare(A.m, A.n);
  const ordering = options.ordering ?? 'auto';
  if (ordering !== 'auto' && !isOrderingName(ordering)) {
    throw new RangeError(`unknown ordering "${ordering}"; expected auto or one of ${ORDERINGS.join(', ')}`);
  }
  const candidates = ordering === 'auto' ? (options.candidates ?? AUTO_ORDERINGS) : [ordering];
  const candidatesLarge = ordering === 'auto' ? (options.candidates ?? AUTO_ORDERINGS_LARGE) : [ordering];
  for (const c of candidates) if (!isOrderingName(c)) throw new RangeError(`unknown ordering "${c}" among the candidates`);
  const n = A.n;
  const { Ap, Ai } = A;
  const form = btf(A, options);
  const pinvBtf = new Int32Array(n);
  for (let k = 0; k < n; k++) pinvBtf[form.p[k]] = k;
  const p = new Int32Array(n);
  const q = new Int32Array(n);
  const patterns: (LuPattern | undefined)[] = [];
  const orderings: BlockOrdering[] = [];
  const loc = new Int32Array(n); // local position of a BTF index within its block (scratch)
  for (let b = 0; b < form.nblocks; b++) {
    const k1 = form.r[b];
    const k2 = form.r[b + 1];
    const nb = k2 - k1;
    if (nb === 1) {
      p[k1] = form.p[k1];
      q[k1] = form.q[k1];
      patterns.push(undefined);
      continue;
    }
    // Local pattern of the block in BTF order.
    const identity = new Int32Array(nb);
    for (let t = 0; t < nb; t++) identity[t] = t;
    const B = blockPattern(Ap, Ai, form.q, pinvBtf, k1, k2, identity, loc);
    const shared = new BlockPatterns(nb, B.Bp, B.Bi);
    let best: LuPattern | undefined;
    let bestPerm: Int32Array = identity;
    const tried = nb > AUTO_LARGE_BLOCK ? candidatesLarge : candidates;
    let bestName: string = tried[0];
    const scores: OrderingScore[] = [];
    for (const name of tried) {
      // Symbolic runs stop past SCORE_SLACK times the best so far: the alternatives' scores stay
      // exact when they are near the best, and a catastrophic order costs little.
      const cap = best === undefined ? Infinity : SCORE_SLACK * best.flops;
      const perm = orderBlock(name, nb, B.Bp, B.Bi, cap / 2, shared);
      const C = blockPattern(Ap, Ai, form.q, pinvBtf, k1, k2, perm, loc);
      const lu = luPattern(nb, C.Bp, C.Bi, cap);
      if (lu.flops === Infinity) {
        scores.push({ ordering: name, flops: cap, exact: false });
        continue;
      }
      scores.push({ ordering: name, flops: lu.flops, exact: true });
      if (best === undefined || lu.flops < best.flops) {
        best = lu;
        bestPerm = perm;
        bestName = name;
      }
    }
    for (let t = 0; t < nb; t++) {
      p[k1 + t] = form.p[k1 + bestPerm[t]];
      q[k1 + t] = form.q[k1 + bestPerm[t]];
    }
    patterns.push(best);
    orderings.push({ block: b, start: k1, size: nb, chosen: bestName, flops: best!.flops, scores });
  }
  return new SymbolicLU(n, Ap, Ai, p, q, form.r, patterns, orderings);
}

/**
 * Pattern of block [k1, k2) of the BTF, its columns and rows taken in the order perm (local),
 * i.e. B(perm, perm) with local indices. `loc` is scratch of length ≥ n.
 */
function blockPattern(
  Ap: Int32Array,
  Ai: Int32Array,
  qBtf: Int32Array,
  pinvBtf: Int32Array,
  k1: number,
  k2: number,
  perm: Int32Array,
  loc: Int32Array,
): { Bp: Int32Array; Bi: Int32Array } {
  const nb = k2 - k1;
  for (let t = 0; t < nb; t++) loc[k1 + perm[t]] = t;
  let nz = 0;
  for (let t = 0; t < nb; t++) {
    const j = qBtf[k1 + t];
    nz += Ap[j + 1] - Ap[j];
  }
  const Bp = new Int32Array(nb + 1);
  const Bi = new Int32Array(nz);
  let s = 0;
  for (let t = 0; t < nb; t++) {
    Bp[t] = s;
    const j = qBtf[k1 + perm[t]];
    for (let e = Ap[j]; e < Ap[j + 1]; e++) {
      const i = pinvBtf[Ai[e]];
      if (i >= k1 && i < k2) Bi[s++] = loc[i];
    }
  }
  Bp[nb] = s;
  return { Bp, Bi: Bi.subarray(0, s) };
}
