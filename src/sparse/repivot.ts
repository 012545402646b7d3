/**
 * rows = repivot(S, b, Ax): new row order for diagonal block b of C = A(p,q) from a left-looking
 * LU with threshold partial pivoting and diagonal preference — the path taken when a static
 * pivot is too small (or the growth too large) for the current values.
 * Source: Gilbert & Peierls, SIAM J. Sci. Stat. Comput. 9 (1988) (sparse triangular solve by
 * depth-first reach, partial pivoting); KLU's pivot rule (Davis & Palamadai Natarajan 2010): keep
 * the diagonal when |x_kk| ≥ tol · max_i |x_ik|, else take the largest candidate.
 *
 * Allocates (it is the exceptional path); the caller recomputes the exact patterns for the new
 * row order and refactors without pivoting.
 */
import { SingularPivotError, type MatrixNames, type PivotCandidate } from './errors.ts';
import type { SymbolicLU } from './symbolic.ts';

/** rows[t] = local row (relative to r[b], in S's current order) chosen as the t-th pivot of block b. */
export function repivot(S: SymbolicLU, b: number, Ax: Float64Array, tol: number, names: MatrixNames = {}): Int32Array {
  const k1 = S.r[b];
  const nb = S.r[b + 1] - k1;
  const { Bp, Bi, Bslot, p, q } = S;
  for (let k = k1; k < k1 + nb; k++) {
    for (let e = Bp[k]; e < Bp[k + 1]; e++) {
      const v = Ax[Bslot[e]];
      if (!Number.isFinite(v)) {
        throw new RangeError(`A has a non-finite value ${v} at row ${p[Bi[e]]}, column ${q[k]} (A.Ax[${Bslot[e]}]); values must be finite`);
      }
    }
  }
  const x = new Float64Array(nb);
  const pinvL = new Int32Array(nb).fill(-1); // step at which a local row was pivoted
  const rows = new Int32Array(nb);
  const mark = new Int32Array(nb).fill(-1);
  const stack = new Int32Array(nb);
  const ptr = new Int32Array(nb);
  const topo = new Int32Array(nb); // pivoted rows reached, in reverse topological order
  const cand = new Int32Array(nb); // unpivoted rows reached
  let Lrow = new Int32Array(Math.max(16, 2 * (Bp[k1 + nb] - Bp[k1])));
  let Lval = new Float64Array(Lrow.length);
  const Lstart = new Int32Array(nb + 1);
  let lnz = 0;
  for (let c = 0; c < nb; c++) {
    const k = k1 + c;
    let nTopo = 0;
    let nCand = 0;
    for (let e = Bp[k]; e < Bp[k + 1]; e++) {
      const r0 = Bi[e] - k1;
      x[r0] = Ax[Bslot[e]];
      if (mark[r0] === c) continue;
      mark[r0] = c;
      if (pinvL[r0] < 0) {
        cand[nCand++] = r0;
        continue;
      }
      // Depth-first search through the columns of L of pivoted rows.
      let top = 0;
      stack[0] = r0;
      ptr[r0] = Lstart[pinvL[r0]];
      while (top >= 0) {
        const r = stack[top];
        const j = pinvL[r];
        const end = Lstart[j + 1];
        let s = ptr[r];
        let descended = false;
        for (; s < end; s++) {
          const r2 = Lrow[s];
          if (mark[r2] === c) continue;
          mark[r2] = c;
          if (pinvL[r2] < 0) {
            cand[nCand++] = r2;
          } else {
            ptr[r] = s + 1;
            stack[++top] = r2;
            ptr[r2] = Lstart[pinvL[r2]];
            descended = true;
            break;
          }
        }
        if (!descended) {
          topo[nTopo++] = r;
          top--;
        }
      }
    }
    // x = L \ B(:,c) over the reach, in topological order (reverse of the postorder).
    for (let t = nTopo - 1; t >= 0; t--) {
      const r = topo[t];
      const j = pinvL[r];
      const u = x[r];
      for (let s = Lstart[j]; s < Lstart[j + 1]; s++) x[Lrow[s]] -= Lval[s] * u;
    }
    // Threshold partial pivoting with diagonal preference.
    let maxAbs = 0;
    let argMax = -1;
    let finite = true;
    for (let t = 0; t < nCand; t++) {
      const v = Math.abs(x[cand[t]]);
      if (!(v < Infinity)) finite = false;
      if (v > maxAbs) {
        maxAbs = v;
        argMax = cand[t];
      }
    }
    if (!finite || maxAbs === 0) {
      const list: PivotCandidate[] = [];
      for (let t = 0; t < nCand; t++) list.push({ row: p[k1 + cand[t]], value: x[cand[t]] });
      throw new SingularPivotError(q[k], list, names, finite ? 'all candidate pivots are zero' : 'the elimination overflowed (a candidate pivot is not finite)');
    }
    let piv = argMax;
    if (pinvL[c] < 0 && mark[c] === c && Math.abs(x[c]) >= tol * maxAbs) piv = c;
    const pivot = x[piv];
    pinvL[piv] = c;
    rows[c] = piv;
    Lstart[c] = lnz;
    if (lnz + nCand > Lrow.length) {
      const grown = Math.max(2 * Lrow.length, lnz + nCand);
      const r2 = new Int32Array(grown);
      r2.set(Lrow);
      Lrow = r2;
      const v2 = new Float64Array(grown);
      v2.set(Lval);
      Lval = v2;
    }
    for (let t = 0; t < nCand; t++) {
      const r = cand[t];
      if (r !== piv) {
        Lrow[lnz] = r;
        Lval[lnz++] = x[r] / pivot;
      }
      x[r] = 0;
    }
    for (let t = 0; t < nTopo; t++) x[topo[t]] = 0;
    Lstart[c + 1] = lnz;
  }
  return rows;
}
