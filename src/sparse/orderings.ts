/**
 * perm = orderBlock(name, B): the fill-reducing orderings the analysis can try on one irreducible block
 * B (square, zero-free diagonal, local indices), each giving a symmetric permutation B(perm, perm)
 * whose diagonal stays the pivot sequence.
 * Source: AMD (Amestoy, Davis & Duff 1996), approximate minimum fill (Ng & Raghavan 1999;
 * Rothberg & Eisenstat 1998), COLAMD (Davis et al. 2004), Markowitz (1957) — see each file.
 */
import { symmetricPattern } from './amd.ts';
import { markowitz } from './markowitz.ts';
import { minimumDegree, type MinimumDegreeOptions } from './mindegree.ts';

/** Names accepted by `analyze({ ordering })`; 'auto' tries all of `AUTO_ORDERINGS` and keeps the cheapest. */
export const ORDERINGS = ['natural', 'amd', 'amd-noagg', 'amd-fifo', 'amf', 'amf-fifo', 'amf-noagg', 'colamd', 'colamd-rows', 'markowitz'] as const;
/** The name of a fill-reducing ordering (see ORDERINGS). */
export type OrderingName = (typeof ORDERINGS)[number];

/** Candidates of 'auto' on blocks up to AUTO_LARGE_BLOCK, in the order tried (a good first score makes the capped symbolic runs of the others short). */
export const AUTO_ORDERINGS: readonly OrderingName[] = ['amd', 'amf-fifo', 'amf', 'amf-noagg', 'amd-noagg', 'amd-fifo', 'colamd', 'colamd-rows', 'markowitz', 'natural'];
/**
 * Candidates of 'auto' on larger blocks: AMD (KLU's choice, the reference) and the variants seen
 * winning on large blocks — amf-fifo on random trees and on the robot benchmark matrices of the sparse benchmark set, amd-fifo on
 * long chains — plus COLAMD and the natural order; the slower explicit Markowitz is left out.
 */
export const AUTO_ORDERINGS_LARGE: readonly OrderingName[] = ['amd', 'amf-fifo', 'amd-fifo', 'colamd', 'natural'];
/** Block size above which 'auto' tries AUTO_ORDERINGS_LARGE only. */
export const AUTO_LARGE_BLOCK = 4000;

/** Whether a string names an ordering. */
export function isOrderingName(s: string): s is OrderingName {
  return (ORDERINGS as readonly string[]).includes(s);
}

/**
 * One block's pattern with the derived patterns the orderings share, computed on first use:
 * A+Aᵀ for the minimum degree variants, Bᵀ (rows as lists) for the column orderings.
 */
export class BlockPatterns {
  private sym: { Gp: Int32Array; Gi: Int32Array } | undefined;
  private rows: { Rp: Int32Array; Ri: Int32Array } | undefined;

  constructor(
    readonly nb: number,
    readonly Bp: Int32Array,
    readonly Bi: Int32Array,
  ) {}

  /** pattern of B+Bᵀ without the diagonal */
  symmetric(): { Gp: Int32Array; Gi: Int32Array } {
    this.sym ??= symmetricPattern(this.nb, this.Bp, this.Bi);
    return this.sym;
  }

  /** pattern of Bᵀ: the column indices of each row */
  transposed(): { Rp: Int32Array; Ri: Int32Array } {
    if (this.rows === undefined) {
      const { nb, Bp, Bi } = this;
      const Rp = new Int32Array(nb + 1);
      for (let p = 0; p < Bp[nb]; p++) Rp[Bi[p] + 1]++;
      for (let i = 0; i < nb; i++) Rp[i + 1] += Rp[i];
      const next = Rp.slice(0, nb);
      const Ri = new Int32Array(Bp[nb]);
      for (let j = 0; j < nb; j++) for (let p = Bp[j]; p < Bp[j + 1]; p++) Ri[next[Bi[p]]++] = j;
      this.rows = { Rp, Ri };
    }
    return this.rows;
  }
}

/**
 * Orders block B (nb×nb pattern Bp, Bi, or a BlockPatterns sharing its derived patterns).
 * `maxWork` bounds the explicit elimination of 'markowitz' (its result is then completed in
 * natural order and scores badly).
 */
export function orderBlock(name: OrderingName, nb: number, Bp: Int32Array, Bi: Int32Array, maxWork = Infinity, shared?: BlockPatterns): Int32Array {
  const P = shared ?? new BlockPatterns(nb, Bp, Bi);
  const md = (options: MinimumDegreeOptions): Int32Array => {
    const { Gp, Gi } = P.symmetric();
    return minimumDegree(nb, Gp, Gi, 0, undefined, undefined, options);
  };
  switch (name) {
    case 'natural': {
      const perm = new Int32Array(nb);
      for (let i = 0; i < nb; i++) perm[i] = i;
      return perm;
    }
    case 'amd':
      return md({});
    case 'amd-noagg':
      return md({ aggressive: false });
    case 'amd-fifo':
      return md({ tie: 'fifo' });
    case 'amf':
      return md({ metric: 'fill' });
    case 'amf-fifo':
      return md({ metric: 'fill', tie: 'fifo' });
    case 'amf-noagg':
      return md({ metric: 'fill', aggressive: false });
    case 'colamd': {
      // Rows of B are the initial elements: an ordering for BᵀB.
      const { Rp, Ri } = P.transposed();
      return minimumDegree(nb, undefined, undefined, nb, Rp, Ri, {});
    }
    case 'colamd-rows':
      // COLAMD on Bᵀ: the columns of B are the elements, an ordering for B Bᵀ; applied symmetrically as well.
      return minimumDegree(nb, undefined, undefined, nb, Bp, Bi, {});
    case 'markowitz':
      return markowitz({ n: nb, Ap: Bp, Ai: Bi }, maxWork).perm;
  }
}
