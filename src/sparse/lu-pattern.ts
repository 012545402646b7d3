/**
 * [L, U, flops] = luPattern(B): exact nonzero patterns of the LU factors of a square matrix B with
 * zero-free diagonal factorized with diagonal pivots (B = L U, L unit lower, U upper), and the
 * exact operation counts of a left-looking factorization with those patterns.
 * Source: J. R. Gilbert & T. Peierls, "Sparse partial pivoting in time proportional to arithmetic
 * operations", SIAM J. Sci. Stat. Comput. 9 (1988): the pattern of column k of [U; L] is the set
 * of nodes reachable from the pattern of B(:,k) in the graph of L(:, 0..k-1). No cancellation is
 * assumed, so the patterns hold for every value of B (structural factors).
 *
 * Counts (per column k, with |L(:,j)| excluding the unit diagonal):
 *   divisions      = |L(:,k)|                       (L(:,k) = x(k+1:n) / u_kk)
 *   multiplications = additions = Σ_{j ∈ U(:,k), j<k} |L(:,j)|   (x -= L(:,j) u_jk)
 * i.e. the classical 2·Σ_k lnz_k·unz_k + Σ_k lnz_k (Davis' `luflop`).
 * U(:,k) comes out sorted ascending, a valid topological order for the numeric refactor.
 */

export interface LuPattern {
  /** column pointers of the strictly lower part of L, length nb+1 */
  readonly Lp: Int32Array;
  /** row indices of L (local, > column) */
  readonly Li: Int32Array;
  /** column pointers of the strictly upper part of U, length nb+1 */
  readonly Up: Int32Array;
  /** row indices of U (local, < column), ascending within each column */
  readonly Ui: Int32Array;
  readonly muls: number;
  readonly adds: number;
  readonly divs: number;
  /** muls + adds + divs; Infinity when the count passed `cap` and the patterns were abandoned */
  readonly flops: number;
}

class Grow {
  a: Int32Array;
  n = 0;
  constructor(cap: number) {
    this.a = new Int32Array(Math.max(16, cap));
  }
  push(v: number): void {
    if (this.n === this.a.length) {
      const b = new Int32Array(this.a.length * 2);
      b.set(this.a);
      this.a = b;
    }
    this.a[this.n++] = v;
  }
}

/**
 * Patterns of B = L U for a square nb×nb pattern (Bp, Bi), pivoting on the diagonal (position
 * (k,k) is the pivot whether or not B holds it: the numeric factorization checks its value).
 * `cap`: give up (flops = Infinity) as soon as the running count exceeds it — used to score
 * candidate orderings against the best found so far.
 */
export function luPattern(nb: number, Bp: Int32Array, Bi: Int32Array, cap = Infinity): LuPattern {
  const nz = Bp[nb];
  const L = new Grow(nz);
  const U = new Grow(nz);
  const Lp = new Int32Array(nb + 1);
  const Up = new Int32Array(nb + 1);
  const mark = new Int32Array(nb).fill(-1);
  const stack = new Int32Array(nb);
  const ptr = new Int32Array(nb);
  let muls = 0;
  let divs = 0;
  for (let k = 0; k < nb; k++) {
    Lp[k] = L.n;
    Up[k] = U.n;
    mark[k] = k;
    let colMuls = 0;
    for (let p = Bp[k]; p < Bp[k + 1]; p++) {
      const i0 = Bi[p];
      if (mark[i0] === k) continue;
      mark[i0] = k;
      if (i0 > k) {
        L.push(i0);
        continue;
      }
      // Depth-first search from i0 < k through the columns of L already computed.
      let top = 0;
      stack[0] = i0;
      ptr[i0] = Lp[i0];
      while (top >= 0) {
        const j = stack[top];
        const end = Lp[j + 1];
        let q = ptr[j];
        let descended = false;
        for (; q < end; q++) {
          const i = L.a[q];
          if (mark[i] === k) continue;
          mark[i] = k;
          if (i > k) {
            L.push(i);
          } else {
            ptr[j] = q + 1;
            stack[++top] = i;
            ptr[i] = Lp[i];
            descended = true;
            break;
          }
        }
        if (!descended) {
          U.push(j);
          colMuls += Lp[j + 1] - Lp[j];
          top--;
        }
      }
    }
    U.a.subarray(Up[k], U.n).sort();
    muls += colMuls;
    divs += L.n - Lp[k];
    if (2 * muls + divs > cap) {
      Lp[k + 1] = L.n;
      Up[k + 1] = U.n;
      return { Lp, Li: L.a, Up, Ui: U.a, muls, adds: muls, divs, flops: Infinity };
    }
  }
  Lp[nb] = L.n;
  Up[nb] = U.n;
  return { Lp, Li: L.a.slice(0, L.n), Up, Ui: U.a.slice(0, U.n), muls, adds: muls, divs, flops: 2 * muls + divs };
}
