/**
 * perm = orderBlock(name, B): the fill-reducing orderings the analysis can try on one irreducible block
 * B (square, zero-free diagonal, local indices), each giving a symmetric permutation B(perm, perm)
 * whose diagonal stays the pivot sequence.
 * Source: AMD (Amestoy, Davis & Duff 1996), approximate minimum fill (Ng & Raghavan 1999;
 * Rothberg & Eisenstat 1998), COLAMD (Davis et al. 2004), Markowitz (1957) — see each file.
 */
import { amd } from './amd.ts';
import { colamd } from './colamd.ts';
import { markowitz } from './markowitz.ts';

/** Names accepted by `analyze({ ordering })`; 'auto' tries all of `AUTO_ORDERINGS` and keeps the cheapest. */
export const ORDERINGS = ['natural', 'amd', 'amd-noagg', 'amd-fifo', 'amf', 'amf-fifo', 'amf-noagg', 'colamd', 'colamd-rows', 'markowitz'] as const;
export type OrderingName = (typeof ORDERINGS)[number];

/** Candidates of 'auto' on blocks up to AUTO_LARGE_BLOCK, in the order tried (a good first score makes the capped symbolic runs of the others short). */
export const AUTO_ORDERINGS: readonly OrderingName[] = ['amd', 'amf-fifo', 'amf', 'amf-noagg', 'amd-noagg', 'amd-fifo', 'colamd', 'colamd-rows', 'markowitz', 'natural'];
/** Candidates of 'auto' on larger blocks: the variants that win on large sparse blocks, keeping the analysis short. */
export const AUTO_ORDERINGS_LARGE: readonly OrderingName[] = ['amd', 'amf-fifo', 'colamd', 'natural'];
/** Block size above which 'auto' tries AUTO_ORDERINGS_LARGE only. */
export const AUTO_LARGE_BLOCK = 2000;

export function isOrderingName(s: string): s is OrderingName {
  return (ORDERINGS as readonly string[]).includes(s);
}

/**
 * Orders block B (nb×nb pattern Bp, Bi). `maxWork` bounds the explicit elimination of 'markowitz'
 * (its result is then completed in natural order and scores badly).
 */
export function orderBlock(name: OrderingName, nb: number, Bp: Int32Array, Bi: Int32Array, maxWork = Infinity): Int32Array {
  const B = { m: nb, n: nb, Ap: Bp, Ai: Bi };
  switch (name) {
    case 'natural': {
      const perm = new Int32Array(nb);
      for (let i = 0; i < nb; i++) perm[i] = i;
      return perm;
    }
    case 'amd':
      return amd(B);
    case 'amd-noagg':
      return amd(B, { aggressive: false });
    case 'amd-fifo':
      return amd(B, { tie: 'fifo' });
    case 'amf':
      return amd(B, { metric: 'fill' });
    case 'amf-fifo':
      return amd(B, { metric: 'fill', tie: 'fifo' });
    case 'amf-noagg':
      return amd(B, { metric: 'fill', aggressive: false });
    case 'colamd':
      return colamd(B);
    case 'colamd-rows': {
      // COLAMD on Bᵀ: orders for B Bᵀ (the rows' view); applied symmetrically as well.
      const count = new Int32Array(nb + 1);
      for (let p = 0; p < Bp[nb]; p++) count[Bi[p] + 1]++;
      for (let i = 0; i < nb; i++) count[i + 1] += count[i];
      const next = count.slice(0, nb);
      const Ti = new Int32Array(Bp[nb]);
      for (let j = 0; j < nb; j++) for (let p = Bp[j]; p < Bp[j + 1]; p++) Ti[next[Bi[p]]++] = j;
      return colamd({ m: nb, n: nb, Ap: count, Ai: Ti });
    }
    case 'markowitz':
      return markowitz(B, maxWork).perm;
  }
}
