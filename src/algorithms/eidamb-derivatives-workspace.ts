/**
 * The workspace of the derivatives of the extended inverse dynamics (Saccon et al. 2017, Tables 5–8;
 * the tables in eidamb-d1.ts … eidamb-d4.ts, the driver in eidamb-derivatives.ts): the column sets
 * and the derivative buffers every table reads and writes.
 *
 * Derivatives are stored column by column over the velocity tangent (nv columns, our order: the
 * floating base's 6 first, columns 0..5 = [δp; δθ] or [v_lin; ω] in the base frame), 6 numbers
 * (a twist or a wrench) or 10 numbers (an inertia rate) per column and body. The paper's loops over
 * all columns are restricted to the columns where a quantity can be nonzero (the others are exact
 * zeros, as a multiplication by an exact 0 is skipped elsewhere):
 *   anc[i]  joint columns on the path from the root to body i (i included): v_i, a^r_i, ⁱa_A,0 depend on these;
 *   desc[i] joint columns strictly below i: M^c_i depends on these;
 *   rel[i] = anc[i] ∪ desc[i]: b^c_i, b^vp_i and τ_i after the backward pass.
 * A joint hanging from a fixed world moves no velocity (v_λ = 0): `vcol[k] = 0` marks such columns.
 */
import type { Model } from '../model/model.ts';
import { Flops } from '../spatial/flops.ts';

/** Column sets, derivative buffers and scratch of eidambDerivatives, sized once per model. */
export class EidambDerivativesWorkspace {
  readonly nv: number;
  /** columns of the joints on the path root → i (i included), base columns excluded */
  readonly anc: Int32Array[];
  /** columns of the joints strictly below i */
  readonly desc: Int32Array[];
  /** anc[i] followed by desc[i] */
  readonly rel: Int32Array[];
  /** 1 when column k can move a velocity (its joint's parent is not the fixed world) */
  readonly vcol: Uint8Array;
  /**
   * ∂v_i, ∂a^r_i, ∂a^vp_i, ∂b^c_i, ∂b^vp_i, ∂ⁱa_A,0 (body i coordinates): dv[i][k] is column k, a view
   * into the per-body buffer dvBuf[i] (6×nv column-major); likewise for the others.
   */
  readonly dv: Float64Array[][];
  readonly dar: Float64Array[][];
  readonly davp: Float64Array[][];
  readonly dbc: Float64Array[][];
  readonly dbvp: Float64Array[][];
  readonly daA0: Float64Array[][];
  /** ∂M^c_i/∂s_k: inertia rates (10 numbers, zero mass), body i coordinates */
  readonly dMc: Float64Array[][];
  /** the buffers behind the views above (each table assigns before it reads, or zeroes what it accumulates into) */
  readonly buffers: Float64Array[];
  /** ∂(ₓF_i ṙ_i) while F_i ṙ_i is carried to the base, and ∂(₀F ṙ) accumulated (columns) */
  readonly dw: Float64Array[];
  readonly dF0r: Float64Array[];
  /** ∂τ̄/∂q (Tables 5, 6) and ∂τ̄/∂v (Tables 7, 8): nv×nv column-major, column k = ∂τ̄/∂δ_k */
  readonly dtau_dq: Float64Array;
  readonly dtau_dv: Float64Array;
  /** flops of the last call of each table */
  readonly flopsD1 = new Flops();
  readonly flopsD2 = new Flops();
  readonly flopsD3 = new Flops();
  readonly flopsD4 = new Flops();
  /** scratch twists/wrenches and inertia rates */
  readonly t6 = new Float64Array(6);
  readonly u6 = new Float64Array(6);
  readonly w6 = new Float64Array(6);
  readonly r10 = new Float64Array(10);
  readonly s10 = new Float64Array(10);

  constructor(readonly model: Model) {
    const nb = model.nb, nv = model.nv;
    this.nv = nv;
    const first = model.floatingBase ? 1 : 0;
    const anc: number[][] = [], desc: number[][] = Array.from({ length: nb }, () => []);
    for (let i = 0; i < nb; i++) {
      const p = model.parents[i];
      const own = i < first ? [] : Array.from({ length: model.nvi[i] }, (_, c) => model.iv[i] + c);
      anc.push([...(p >= 0 ? anc[p] : []), ...own]);
    }
    for (let i = nb - 1; i >= 0; i--) {
      const p = model.parents[i];
      if (p < 0 || i < first) continue;
      const own = Array.from({ length: model.nvi[i] }, (_, c) => model.iv[i] + c);
      desc[p].push(...own, ...desc[i]);
    }
    this.anc = anc.map((a) => Int32Array.from(a));
    this.desc = desc.map((d) => Int32Array.from(d.sort((x, y) => x - y)));
    this.rel = anc.map((a, i) => Int32Array.from([...a, ...this.desc[i]]));
    this.vcol = new Uint8Array(nv);
    for (let i = first; i < nb; i++) {
      for (let c = 0; c < model.nvi[i]; c++) this.vcol[model.iv[i] + c] = model.parents[i] >= 0 ? 1 : 0;
    }
    this.buffers = [];
    const views = (buf: Float64Array, n: number) => Array.from({ length: nv }, (_, k) => buf.subarray(n * k, n * k + n));
    const mk = (n: number) => Array.from({ length: nb }, () => {
      const buf = new Float64Array(n * nv);
      this.buffers.push(buf);
      return views(buf, n);
    });
    this.dv = mk(6); this.dar = mk(6); this.davp = mk(6); this.dbc = mk(6); this.dbvp = mk(6); this.daA0 = mk(6);
    this.dMc = mk(10);
    this.dw = views(new Float64Array(6 * nv), 6);
    this.dF0r = views(new Float64Array(6 * nv), 6);
    this.dtau_dq = new Float64Array(nv * nv);
    this.dtau_dv = new Float64Array(nv * nv);
  }

  /** total flops of the last derivative call (Tables 5–8) */
  totalFlops(out: Flops = new Flops()): Flops {
    return out.reset().accumulate(this.flopsD1).accumulate(this.flopsD2).accumulate(this.flopsD3).accumulate(this.flopsD4);
  }
}
