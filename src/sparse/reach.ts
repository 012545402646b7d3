/**
 * R = solveReach(S, patterns): the offline (symbolic) part of solves whose right-hand sides have
 * fixed sparse patterns — for each pattern, the operations of NumericLU's block back-substitution
 * that can meet a nonzero, in the order the solve performs them. A solve over that list alone
 * (NumericLU.solveManyReach) touches only the rows the right-hand side can reach, and no loop over
 * all n unknowns remains: Gilbert and Peierls' reach (Gilbert & Peierls, "Sparse partial pivoting
 * in time proportional to arithmetic operations", SIAM J. Sci. Stat. Comput. 9, 1988; Davis, Direct
 * Methods for Sparse Linear Systems, 2006, §3.2 `cs_reach`), taken on the graph of the whole solve.
 *
 * The solve of C = A(p, q), block upper triangular, runs the blocks from the last up; in a block of
 * size ≥ 2, first its L columns ascending ("L-op j": w(rows of L(:,j)) −= L(:,j) w_j), then its U
 * columns descending; a 1×1 block has its U column only ("U-op j": y_j = w_j / u_jj, then
 * w(rows above j in the block and above the block) −= C(those rows, j) y_j). The graph: a nonzero
 * w_i (row i of C) starts L-op i when i lies in a block of size ≥ 2, U-op i otherwise; L-op j
 * reaches L-op i for the rows i of L(:,j), and U-op j; U-op j reaches U-op i for the rows i of
 * U(:,j) (same block, later in the descending sweep) and, for the rows i above its block, the
 * first op of i. Every edge runs forward in the solve's order, so sorting the reached ops by that
 * order is a topological order (as cs_reach's reverse postorder, here by rank).
 *
 * Patterns are rows of A (unpermuted right-hand sides), each row at most once. The result is bound to the SymbolicLU it
 * was computed on: a NumericLU that re-pivoted (another SymbolicLU) solves in full instead.
 */
import type { SymbolicLU } from './symbolic.ts';

/** The reach of each right-hand-side pattern: op lists in solve order, with their exact counts. */
export interface SolveReach {
  /** the analysis the lists belong to */
  readonly symbolic: SymbolicLU;
  /** number of patterns */
  readonly npat: number;
  /** pattern rows (of A): rows[rowStart[k] .. rowStart[k+1]) */
  readonly rowStart: Int32Array;
  readonly rows: Int32Array;
  /** ops of pattern k: ops[opStart[k] .. opStart[k+1]); j ≥ 0: U-op of column j of C; ~j (< 0): L-op of column j */
  readonly opStart: Int32Array;
  readonly ops: Int32Array;
  /** multiply-subtracts and divisions of one solve of pattern k (NumericLU's layout: one per stored slot met, one per U-op) */
  readonly fma: Int32Array;
  readonly divs: Int32Array;
}

/**
 * The reach of each pattern (rows of A, any order, no duplicates needed) through the solve of S.
 * Allocates; run once per family of right-hand sides.
 */
export function solveReach(S: SymbolicLU, patterns: readonly ArrayLike<number>[]): SolveReach {
  const { n, r, nblocks, pinv, Lp, Li, Up, Ui, Op, Oi } = S;
  // block of each column, whether it is of size ≥ 2, and each op's rank in the solve
  const big = new Uint8Array(n);
  const rankU = new Int32Array(n), rankL = new Int32Array(n);
  let rank = 0;
  for (let b = nblocks - 1; b >= 0; b--) {
    const k1 = r[b], k2 = r[b + 1];
    const isBig = k2 - k1 > 1;
    for (let j = k1; j < k2; j++) big[j] = isBig ? 1 : 0;
    if (isBig) for (let j = k1; j < k2; j++) rankL[j] = rank++;
    for (let j = k2 - 1; j >= k1; j--) rankU[j] = rank++;
  }
  const opAt = new Int32Array(rank); // rank → op code
  for (let j = 0; j < n; j++) {
    opAt[rankU[j]] = j;
    if (big[j]) opAt[rankL[j]] = ~j;
  }
  // node ids: 2j U-op, 2j+1 L-op; DFS with stamps
  const mark = new Int32Array(2 * n).fill(-1);
  const seen = new Int32Array(n).fill(-1);
  const stack = new Int32Array(2 * n);
  const found = new Int32Array(2 * n);
  const rowStart = new Int32Array(patterns.length + 1);
  const opStart = new Int32Array(patterns.length + 1);
  const fma = new Int32Array(patterns.length), divs = new Int32Array(patterns.length);
  const rowsAll: number[] = [];
  const opsAll: number[] = [];
  for (let k = 0; k < patterns.length; k++) {
    const pat = patterns[k];
    let top = 0, nf = 0;
    const visit = (node: number) => {
      if (mark[node] === k) return;
      mark[node] = k;
      stack[top++] = node;
    };
    for (let e = 0; e < pat.length; e++) {
      const row = pat[e];
      if (!(Number.isInteger(row) && row >= 0 && row < n)) throw new RangeError(`solveReach: pattern ${k} has row ${row}, outside 0..${n - 1}`);
      if (seen[row] === k) throw new RangeError(`solveReach: pattern ${k} has row ${row} twice`);
      seen[row] = k;
      rowsAll.push(row);
      const i = pinv[row];
      visit(big[i] ? 2 * i + 1 : 2 * i);
    }
    while (top > 0) {
      const node = stack[--top];
      found[nf++] = node;
      const j = node >> 1;
      if (node & 1) {
        visit(2 * j);
        for (let s = Lp[j]; s < Lp[j + 1]; s++) visit(2 * Li[s] + 1);
      } else {
        for (let s = Up[j]; s < Up[j + 1]; s++) visit(2 * Ui[s]);
        for (let s = Op[j]; s < Op[j + 1]; s++) {
          const i = Oi[s];
          visit(big[i] ? 2 * i + 1 : 2 * i);
        }
      }
    }
    const ranks = new Int32Array(nf);
    let f = 0, d = 0;
    for (let t = 0; t < nf; t++) {
      const node = found[t], j = node >> 1;
      if (node & 1) {
        ranks[t] = rankL[j];
        f += Lp[j + 1] - Lp[j];
      } else {
        ranks[t] = rankU[j];
        f += Up[j + 1] - Up[j] + Op[j + 1] - Op[j];
        d++;
      }
    }
    ranks.sort();
    for (let t = 0; t < nf; t++) opsAll.push(opAt[ranks[t]]);
    fma[k] = f;
    divs[k] = d;
    rowStart[k + 1] = rowsAll.length;
    opStart[k + 1] = opsAll.length;
  }
  return {
    symbolic: S, npat: patterns.length, rowStart, rows: Int32Array.from(rowsAll), opStart, ops: Int32Array.from(opsAll), fma, divs,
  };
}
