/**
 * Measurement blocks (sensor rows D_Y d + b_Y = 0, Nori (2017) eq. 17) in the sensitivities: their
 * rows of J_q = ∂(D_Y d + b_Y)/∂q, J_v = ∂b_Y/∂q̇ and J_y = ∂b_Y/∂y by central differences of the
 * block's own fill, q perturbed on its manifold (model/lie.ts), d held at the solution:
 *   J(:, k) ≈ (r(x + h e_k) − r(x − h e_k)) / 2h,   r = D_Y(x) d + b_Y(x).
 * A MeasurementBlock exposes only its fill, so this is the generic route (truncation O(h²), about
 * 1e-10 relative at the default h = 1e-6). For y the step is 1: a reading enters a measurement
 * model as b_Y = h(q, q̇) − y, affine, where a central difference of any step is exact (up to
 * quadratic terms) and a large step avoids cancellation. The fills are done on a second
 * SystemValues; nothing is allocated per call.
 */
import { fillSystem, SystemValues, type SymbolicSystem } from '../assembly/system.ts';
import { integrate } from '../model/lie.ts';
import type { Flops } from '../spatial/flops.ts';
import type { DerivativePattern } from './pattern.ts';


export class BlockDifferences {
  /** the perturbed fills */
  readonly vals: SystemValues;
  /** block entries: global row, column of d and slot in Ax (all blocks, in order) */
  private readonly eRow: Int32Array;
  private readonly eCol: Int32Array;
  private readonly eSlot: Int32Array;
  /** the block rows, in order (rows of all blocks) */
  private readonly rows: Int32Array;
  private readonly rp: Float64Array;
  private readonly rm: Float64Array;
  private readonly qp: Float64Array;
  private readonly vp: Float64Array;
  private readonly yp: Float64Array;
  private readonly dq: Float64Array;

  constructor(readonly sys: SymbolicSystem, readonly pattern: DerivativePattern, readonly h: number) {
    if (!(h > 0 && Number.isFinite(h))) throw new RangeError(`blockStep is ${h}, expected a positive number`);
    this.vals = new SystemValues(sys);
    const er: number[] = [], ec: number[] = [], es: number[] = [], rows: number[] = [];
    for (let b = 0; b < sys.blocks.length; b++) {
      const pat = sys.blocks[b].pattern(sys.layout);
      for (let e = 0; e < pat.rows.length; e++) {
        er.push(sys.blockRow0[b] + pat.rows[e]); ec.push(pat.cols[e]); es.push(sys.blockSlots[b][e]);
      }
      for (let r = 0; r < pattern.blockCount[b]; r++) rows.push(pattern.blockRows[b] + r);
    }
    this.eRow = Int32Array.from(er); this.eCol = Int32Array.from(ec); this.eSlot = Int32Array.from(es);
    this.rows = Int32Array.from(rows);
    this.rp = new Float64Array(sys.m); this.rm = new Float64Array(sys.m);
    const model = sys.model;
    this.qp = new Float64Array(model.nq); this.vp = new Float64Array(model.nv);
    this.yp = new Float64Array(sys.ny); this.dq = new Float64Array(model.nv);
  }

  /** r = D_Y d + b_Y on the block rows of `out` (the perturbed fill's values) */
  private residual(out: Float64Array, d: Float64Array): void {
    const vals = this.vals, rows = this.rows;
    for (let k = 0; k < rows.length; k++) out[rows[k]] = vals.b[rows[k]];
    for (let e = 0; e < this.eRow.length; e++) out[this.eRow[e]] += vals.Ax[this.eSlot[e]] * d[this.eCol[e]];
  }

  private evaluate(out: Float64Array, q: ArrayLike<number>, qd: ArrayLike<number> | null, y: Float64Array, d: Float64Array, fl: Flops): void {
    fillSystem(this.vals, q, qd, y);
    this.residual(out, d);
    const f1 = this.vals.flops, f2 = this.vals.kin.flops;
    fl.mul += f1.mul + f2.mul + this.eRow.length; fl.add += f1.add + f2.add + this.eRow.length;
    fl.div += f1.div + f2.div; fl.fn += f1.fn + f2.fn;
  }

  /** the block rows of J_q, J_v (dense m×nv columns Rq, Rv) at the solution d, and the block entries of J_y (pattern.Jy) */
  fill(d: Float64Array, Rq: Float64Array, Rv: Float64Array, q: ArrayLike<number>, qd: ArrayLike<number> | null, y: Float64Array, fl: Flops): void {
    const sys = this.sys, model = sys.model, m = sys.m, nv = model.nv, h = this.h;
    const { rp, rm, qp, vp, yp, dq, rows } = this;
    const inv = 1 / (2 * h);
    for (let k = 0; k < nv; k++) {
      dq[k] = h;
      integrate(model, q, dq, qp);
      this.evaluate(rp, qp, qd, y, d, fl);
      dq[k] = -h;
      integrate(model, q, dq, qp);
      this.evaluate(rm, qp, qd, y, d, fl);
      dq[k] = 0;
      for (let e = 0; e < rows.length; e++) Rq[k * m + rows[e]] = (rp[rows[e]] - rm[rows[e]]) * inv;
      for (let j = 0; j < nv; j++) vp[j] = qd === null ? 0 : qd[j];
      vp[k] += h;
      this.evaluate(rp, q, vp, y, d, fl);
      vp[k] -= 2 * h;
      this.evaluate(rm, q, vp, y, d, fl);
      for (let e = 0; e < rows.length; e++) Rv[k * m + rows[e]] = (rp[rows[e]] - rm[rows[e]]) * inv;
    }
    const Jy = this.pattern.Jy;
    const hy = 1;
    yp.set(y);
    for (let b = 0; b < sys.blocks.length; b++) {
      const y0 = sys.blockInput0[b], ny = sys.blocks[b].inputNames.length;
      for (let c = y0; c < y0 + ny; c++) {
        yp[c] = y[c] + hy;
        this.evaluate(rp, q, qd, yp, d, fl);
        yp[c] = y[c] - hy;
        this.evaluate(rm, q, qd, yp, d, fl);
        yp[c] = y[c];
        for (let e = Jy.Ap[c]; e < Jy.Ap[c + 1]; e++) Jy.Ax[e] = (rp[Jy.Ai[e]] - rm[Jy.Ai[e]]) / (2 * hy);
      }
    }
  }
}
