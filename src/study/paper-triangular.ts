/**
 * Inverse dynamics by Nori (2017)'s hand-made permutations (eqs. 11–12, Property 1): under p_id and
 * q the matrix D_{p_id,q} is lower triangular, so d_q = −D_{p_id,q}⁻¹ b_{p_id} is one forward
 * substitution on the worst-case pattern, no factorization:
 *   x_k = (−b_{r_k} − Σ_{c < k} D_{r_k, c} x_c) / D_{r_k, k}      (r_k = p_id[k], columns in q order)
 * Flops are counted as the loop runs, with the recursive algorithms' convention: a product with an
 * entry that is the exact constant ±1 (the diagonal blocks ±1, S_i, S_iᵀ, −1 on f^x_i) is a copy
 * or a negation and is not counted; every other entry is one multiply-subtract (2 flops) and a
 * diagonal other than ±1 one division. Offline (constructor): the permutations, the row lists in
 * substitution order, the unit flags; the triangularity is checked and a violation names the entry.
 */
import { rneaPermutation } from '../assembly/rnea-permutation.ts';
import { fillSystem, SystemValues, type SymbolicSystem } from '../assembly/system.ts';
import { Flops } from '../spatial/flops.ts';

export class PaperTriangularSolver {
  readonly values: SystemValues;
  /** the solution d (layout order) of the last step */
  readonly d: Float64Array;
  /** kinematics, fill and substitution flops of the last step */
  readonly flops = { kinematics: new Flops(), fill: new Flops(), solve: new Flops() };
  /** offline time (permutations, row lists) in ms */
  readonly analyzeMs: number;
  /** row r_k and column of position k */
  private readonly rowPerm: Int32Array;
  private readonly colPerm: Int32Array;
  /** off-diagonal entries of row k: slots in Ax, positions of their columns, unit sign (±1 or 0) */
  private readonly start: Int32Array;
  private readonly slot: Int32Array;
  private readonly pos: Int32Array;
  private readonly unit: Int8Array;
  /** diagonal slot and unit sign of each position */
  private readonly diagSlot: Int32Array;
  private readonly diagUnit: Int8Array;
  /** x in substitution order */
  private readonly x: Float64Array;

  constructor(readonly sys: SymbolicSystem) {
    const t0 = performance.now();
    if (sys.m !== sys.n) throw new RangeError(`paper permutation: the system "${sys.problem.name}" is not square (${sys.m}×${sys.n})`);
    const { rowPerm, colPerm } = rneaPermutation(sys);
    const n = sys.n, A = sys.pattern;
    const posOfCol = new Int32Array(n), posOfRow = new Int32Array(n);
    for (let k = 0; k < n; k++) { posOfCol[colPerm[k]] = k; posOfRow[rowPerm[k]] = k; }
    const constSign = new Int8Array(A.Ap[n]);
    for (let e = 0; e < sys.constSlot.length; e++) {
      const v = sys.constVal[e];
      if (v === 1 || v === -1) constSign[sys.constSlot[e]] = v;
    }
    const count = new Int32Array(n + 1);
    const diagSlot = new Int32Array(n).fill(-1), diagUnit = new Int8Array(n);
    for (let j = 0; j < n; j++) {
      const pc = posOfCol[j];
      for (let t = A.Ap[j]; t < A.Ap[j + 1]; t++) {
        const pr = posOfRow[A.Ai[t]];
        if (pr === pc) { diagSlot[pr] = t; diagUnit[pr] = constSign[t]; }
        else if (pc < pr) count[pr + 1]++;
        else throw new RangeError(`paper permutation: entry (${sys.rowNames[A.Ai[t]]}, ${sys.layout.names[j]}) lies above the diagonal of D_{p_id,q} (Property 1 fails)`);
      }
    }
    for (let k = 0; k < n; k++) {
      if (diagSlot[k] < 0) throw new RangeError(`paper permutation: no diagonal entry (${sys.rowNames[rowPerm[k]]}, ${sys.layout.names[colPerm[k]]})`);
      count[k + 1] += count[k];
    }
    const slot = new Int32Array(count[n]), pos = new Int32Array(count[n]), unit = new Int8Array(count[n]);
    const next = count.slice(0, n);
    for (let j = 0; j < n; j++) {
      const pc = posOfCol[j];
      for (let t = A.Ap[j]; t < A.Ap[j + 1]; t++) {
        const pr = posOfRow[A.Ai[t]];
        if (pc < pr) { const e = next[pr]++; slot[e] = t; pos[e] = pc; unit[e] = constSign[t]; }
      }
    }
    this.rowPerm = rowPerm; this.colPerm = colPerm;
    this.start = count; this.slot = slot; this.pos = pos; this.unit = unit;
    this.diagSlot = diagSlot; this.diagUnit = diagUnit;
    this.values = new SystemValues(sys);
    this.d = new Float64Array(n);
    this.x = new Float64Array(n);
    this.analyzeMs = performance.now() - t0;
  }

  /** number of off-diagonal entries of D (each a multiply-subtract unless unit) */
  get offDiagonal(): number {
    return this.slot.length;
  }

  /** d for (q, q̇, y) without input checks. Allocation free. */
  stepUnchecked(q: ArrayLike<number>, qd: ArrayLike<number> | null, y: Float64Array): Float64Array {
    const vals = this.values;
    fillSystem(vals, q, qd, y);
    const Ax = vals.Ax, b = vals.b, x = this.x, fl = this.flops.solve;
    const { start, slot, pos, unit, diagSlot, diagUnit, rowPerm } = this;
    let mul = 0, add = 0, div = 0;
    for (let k = 0; k < x.length; k++) {
      let s = -b[rowPerm[k]];
      for (let e = start[k]; e < start[k + 1]; e++) {
        const u = unit[e];
        if (u === 0) { s -= Ax[slot[e]] * x[pos[e]]; mul++; }
        else if (u === 1) s -= x[pos[e]];
        else s += x[pos[e]];
        add++;
      }
      const du = diagUnit[k];
      if (du === 1) x[k] = s;
      else if (du === -1) x[k] = -s;
      else { x[k] = s / Ax[diagSlot[k]]; div++; }
    }
    const d = this.d, colPerm = this.colPerm;
    for (let k = 0; k < x.length; k++) d[colPerm[k]] = x[k];
    fl.reset(); fl.mul = mul; fl.add = add; fl.div = div;
    copyFlops(this.flops.kinematics, vals.kin.flops);
    copyFlops(this.flops.fill, vals.flops);
    return d;
  }
}

function copyFlops(to: Flops, from: Flops): void {
  to.mul = from.mul; to.add = from.add; to.div = from.div; to.fn = from.fn;
}
