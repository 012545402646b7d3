/**
 * The symbolic part of the derivatives of Nori's system D(q) d + b(q, q̇, y) = 0 (Nori (2017) eqs. 3–6,
 * 17): fixed sparse patterns, built once per SymbolicSystem, of
 *
 *   ∂D/∂q_k            on D's own slots: only the block ⁱX_λ of the joint i of direction k moves,
 *                      ∂ⁱX_λ/∂q_k = −(S_k ×) ⁱX_λ (algorithms/jcalcderiv.ts), entered in c3a[i] × a_λ and,
 *                      transposed, in c3f[λ] × f_i; every structural entry of the derivative is a
 *                      structural entry of ⁱX_λ (the worst-case pattern holds for all q);
 *   J_q = ∂(D d + b)/∂q  m×nv: column k has c3a[i], c3f[λ] (the term ∂D/∂q_k d, or the gravity term
 *                      ⁱX_0 a_0 of b for a root) and, through v_j in c_j and ν_j, c3a[j], c3f[j] for every
 *                      body j in the subtree of i (only when λ(i) moves: a joint hanging from the
 *                      fixed world changes no velocity);
 *   J_v = ∂b/∂q̇        m×nv: c3a[j] (c_j, not for a root), c3f[j] (ν_j) over the subtree of i;
 *   J_y = ∂b/∂y        m×ny: −1 at each known-variable row (b = −y there), and each measurement
 *                      block's rows × its inputs.
 * A measurement block (sensor rows D_Y, b_Y) is differentiated numerically (blocks.ts): its rows are
 * dense in J_q, J_v and in its own inputs of J_y.
 *
 * The values of ∂D/∂q_k are products (S_k ×) ⁱX_λ restricted to the structural entries: for each
 * entry, the list of terms (coefficient, source entry of ⁱX_λ) is precomputed here, with its flops.
 */
import type { SymbolicSystem } from '../assembly/system.ts';
import { JointColumns } from '../algorithms/jcalcderiv.ts';
import { compress } from '../sparse/compress.ts';
import type { CscMatrix } from '../sparse/csc.ts';

/** (s×) as a 6×6 matrix for s = [ω; v]: [ω× 0; v× ω×]; entry (r, t). */
function crossEntry(s: Float64Array, o: number, r: number, t: number): number {
  // a× = [[0, −a2, a1], [a2, 0, −a0], [−a1, a0, 0]]
  const skew = (a0: number, a1: number, a2: number, i: number, j: number): number => {
    if (i === j) return 0;
    if (i === 0) return j === 1 ? -a2 : a1;
    if (i === 1) return j === 0 ? a2 : -a0;
    return j === 0 ? -a1 : a0;
  };
  if (r < 3 && t >= 3) return 0;
  if (r < 3) return skew(s[o], s[o + 1], s[o + 2], r, t);
  if (t >= 3) return skew(s[o], s[o + 1], s[o + 2], r - 3, t - 3);
  return skew(s[o + 3], s[o + 4], s[o + 5], r - 3, t);
}

export class DerivativePattern {
  readonly nv: number;
  readonly cols: JointColumns;
  /** values of ∂D/∂q_k: entries dStart[k] .. dStart[k+1], aligned with sys.xCode[xStart[i] ..] of the joint i of k (none for a root) */
  readonly dStart: Int32Array;
  /** terms of value t: tStart[t] .. tStart[t+1], value = Σ tCoef · X[tSrc] (tSrc a global code index of sys.xCode) */
  readonly tStart: Int32Array;
  readonly tCoef: Float64Array;
  readonly tSrc: Int32Array;
  /** flops of the values of ∂D/∂q_k and of the product (∂D/∂q_k) d */
  readonly dMul: Int32Array;
  readonly dAdd: Int32Array;
  /** body i, then the bodies below it in increasing order */
  readonly subtree: Int32Array[];
  /** how many rows of c3a[i] column k fills before the velocity terms are added to them */
  readonly rowsA: Int32Array;
  /** J_q, J_v (m×nv), J_y (m×ny): the patterns, values refreshed by the numeric fill */
  readonly Jq: CscMatrix;
  readonly Jv: CscMatrix;
  readonly Jy: CscMatrix;
  /** rows of each measurement block (first row and count) */
  readonly blockRows: Int32Array;
  readonly blockCount: Int32Array;

  constructor(readonly sys: SymbolicSystem) {
    const model = sys.model, nb = model.nb, nv = model.nv, m = sys.m;
    this.nv = nv;
    const cols = new JointColumns(model);
    this.cols = cols;
    // subtrees
    const sub: number[][] = Array.from({ length: nb }, (_, i) => [i]);
    for (let i = nb - 1; i >= 0; i--) {
      const p = model.parents[i];
      if (p >= 0) sub[p].push(...sub[i]);
    }
    this.subtree = sub.map((s) => Int32Array.from([s[0], ...s.slice(1).sort((a, b) => a - b)]));
    // ∂D/∂q_k term lists
    const dStart = new Int32Array(nv + 1);
    const tStart: number[] = [0], tCoef: number[] = [], tSrc: number[] = [];
    this.dMul = new Int32Array(nv);
    this.dAdd = new Int32Array(nv);
    this.rowsA = new Int32Array(nv);
    for (let k = 0; k < nv; k++) {
      const i = cols.body[k], p = model.parents[i];
      const e0 = sys.xStart[i], e1 = sys.xStart[i + 1];
      dStart[k] = tStart.length - 1;
      // code → global index, for the source lookup
      const codeAt = new Map<number, number>();
      for (let e = e0; e < e1; e++) codeAt.set(sys.xCode[e], e);
      let mul = 0, add = 0;
      const perRowA = new Int32Array(6), perRowF = new Int32Array(6);
      for (let e = e0; e < e1; e++) {
        const code = sys.xCode[e], r = (code / 6) | 0, c = code % 6;
        let n = 0;
        for (let t = 0; t < 6; t++) {
          const coef = -crossEntry(cols.s, 6 * k, r, t);
          if (coef === 0) continue;
          const src = codeAt.get(6 * t + c);
          if (src === undefined) continue;
          tCoef.push(coef); tSrc.push(src);
          if (coef !== 1 && coef !== -1) mul++;
          n++;
        }
        tStart.push(tCoef.length);
        if (n > 1) add += n - 1;
        if (n > 0) { perRowA[r]++; perRowF[c]++; }
      }
      // the product: c3a[i] += (∂ⁱX_λ/∂q_k) a_λ,  c3f[λ] += (∂ⁱX_λ/∂q_k)ᵀ f_i
      let rowsA = 0;
      for (let r = 0; r < 6; r++) {
        if (perRowA[r] > 0) { mul += perRowA[r]; add += perRowA[r] - 1; rowsA++; }
        if (perRowF[r] > 0) { mul += perRowF[r]; add += perRowF[r] - 1; }
      }
      // a root: ⁱX_0 a_0 sits in b (not in D); its derivative (ⁱX_0 a_0) × S_k fills all of c3a[i]
      this.rowsA[k] = p < 0 ? 6 : rowsA;
      this.dMul[k] = mul;
      this.dAdd[k] = add;
    }
    dStart[nv] = tStart.length - 1;
    this.dStart = dStart;
    this.tStart = Int32Array.from(tStart);
    this.tCoef = Float64Array.from(tCoef);
    this.tSrc = Int32Array.from(tSrc);
    this.blockRows = new Int32Array(sys.blocks.length);
    this.blockCount = new Int32Array(sys.blocks.length);
    for (let b = 0; b < sys.blocks.length; b++) {
      this.blockRows[b] = sys.blockRow0[b];
      this.blockCount[b] = sys.blocks[b].rowNames.length;
    }
    // patterns
    const Qi: number[] = [], Qj: number[] = [], Vi: number[] = [], Vj: number[] = [];
    const block6 = (Ti: number[], Tj: number[], row: number, col: number) => { for (let r = 0; r < 6; r++) { Ti.push(row + r); Tj.push(col); } };
    for (let k = 0; k < nv; k++) {
      const i = cols.body[k], p = model.parents[i];
      block6(Qi, Qj, sys.rowA[i], k);
      if (p >= 0) {
        block6(Qi, Qj, sys.rowF[p], k);
        for (const j of this.subtree[i]) {
          if (j !== i && model.nvi[j] > 0) block6(Qi, Qj, sys.rowA[j], k);
          block6(Qi, Qj, sys.rowF[j], k);
        }
      }
      for (const j of this.subtree[i]) {
        if (model.nvi[j] > 0 && model.parents[j] >= 0) block6(Vi, Vj, sys.rowA[j], k);
        block6(Vi, Vj, sys.rowF[j], k);
      }
      for (let b = 0; b < sys.blocks.length; b++) {
        for (let r = 0; r < this.blockCount[b]; r++) {
          Qi.push(this.blockRows[b] + r); Qj.push(k);
          Vi.push(this.blockRows[b] + r); Vj.push(k);
        }
      }
    }
    this.Jq = compress(m, nv, Qi, Qj).A;
    this.Jv = compress(m, nv, Vi, Vj).A;
    const Yi: number[] = [], Yj: number[] = [];
    for (let k = 0; k < sys.knownRow.length; k++) { Yi.push(sys.knownRow[k]); Yj.push(k); }
    for (let b = 0; b < sys.blocks.length; b++) {
      const y0 = sys.blockInput0[b], ny = sys.blocks[b].inputNames.length;
      for (let c = 0; c < ny; c++) for (let r = 0; r < this.blockCount[b]; r++) { Yi.push(this.blockRows[b] + r); Yj.push(y0 + c); }
    }
    this.Jy = compress(m, sys.ny, Yi, Yj).A;
  }
}
