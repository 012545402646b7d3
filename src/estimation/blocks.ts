/**
 * Measurement equations D_Y d + b_Y = 0 of Nori (2017) §VI (eq. 17) for each sensor and constraint
 * type, as MeasurementBlocks of the assembled system. Frames: a sensor frame s is given relative
 * to a link L (URDF origin xyz/rpy); with L rigidly attached to body i, ˢX_i = ˢX_L ᴸX_i = (E, p):
 * E rotates body-i coordinates into sensor coordinates, p is the sensor origin in body-i coordinates.
 *
 *   force/torque in joint j:       y = sel · ˢX*_j f_j                      (wrench from λ(j) on j)
 *   external wrench on link L:     y = sel · ˢX*_i f^x_i                    (wrench on L, environment → L)
 *   contact component known zero:  0 = sel · ᴸX*_i f^x_i
 *   joint torque / acceleration:   y = τ_j / q̈_j
 *   accelerometer at p (proper):   y = sel · E (a_i,lin + α_i × p + ω_i × (v_i,lin + ω_i × p))
 *     — a_i includes gravity as −a_g (Nori (2017) §IV-A), so E a_i,lin already subtracts g: the
 *       reading of an ideal accelerometer (at rest it reads +g upwards);
 *   spatial acceleration:          [α; proper linear acceleration] at the sensor, in its frame.
 */
import type { MeasurementBlock, FillContext } from '../assembly/system.ts';
import type { VariableLayout } from '../assembly/variables.ts';
import type { Flops } from '../spatial/flops.ts';

/** Dense 6×6 force transform ˢX*_i = [E −E p×; 0 E] of X = (E, p), row-major. */
export function forceTransformMatrix(X: Float64Array): Float64Array {
  const F = new Float64Array(36);
  const p0 = X[9], p1 = X[10], p2 = X[11];
  for (let i = 0; i < 3; i++) {
    const e0 = X[3 * i], e1 = X[3 * i + 1], e2 = X[3 * i + 2];
    for (let j = 0; j < 3; j++) { F[6 * i + j] = X[3 * i + j]; F[6 * (i + 3) + j + 3] = X[3 * i + j]; }
    // −E p×, p× = [[0,−p2,p1],[p2,0,−p0],[−p1,p0,0]]
    F[6 * i + 3] = -(e1 * p2 - e2 * p1);
    F[6 * i + 4] = -(e2 * p0 - e0 * p2);
    F[6 * i + 5] = -(e0 * p1 - e1 * p0);
  }
  return F;
}

/**
 * Rows with constant coefficients on a set of columns: row k reads `coef[k]·d + (−y_k or 0)`.
 * Used for wrench sensors, joint sensors and exact constraints (no inputs, no variance).
 */
export class LinearBlock implements MeasurementBlock {
  private readonly rows: Int32Array;
  private readonly cols: Int32Array;
  private readonly vals: Float64Array;

  constructor(
    readonly name: string,
    readonly rowNames: readonly string[],
    readonly inputNames: readonly string[],
    entries: readonly { row: number; col: number; val: number }[],
    readonly variance?: number,
  ) {
    if (inputNames.length !== 0 && inputNames.length !== rowNames.length) {
      throw new RangeError(`block "${name}": ${inputNames.length} inputs for ${rowNames.length} rows`);
    }
    const nz = entries.filter((e) => e.val !== 0);
    this.rows = Int32Array.from(nz, (e) => e.row);
    this.cols = Int32Array.from(nz, (e) => e.col);
    this.vals = Float64Array.from(nz, (e) => e.val);
  }

  pattern(_layout: VariableLayout): { rows: Int32Array; cols: Int32Array } {
    return { rows: this.rows, cols: this.cols };
  }

  fill(_ctx: FillContext, Ax: Float64Array, slots: Int32Array, b: Float64Array, row0: number, y: Float64Array, y0: number): void {
    const v = this.vals;
    for (let e = 0; e < v.length; e++) Ax[slots[e]] = v[e];
    const n = this.rowNames.length;
    if (this.inputNames.length === 0) for (let r = 0; r < n; r++) b[row0 + r] = 0;
    else for (let r = 0; r < n; r++) b[row0 + r] = -y[y0 + r];
  }

  /** coefficient rows as (row, col, val) triplets (for analysis) */
  entries(): { rows: Int32Array; cols: Int32Array; vals: Float64Array } {
    return { rows: this.rows, cols: this.cols, vals: this.vals };
  }
}

/**
 * Link acceleration sensors (accelerometer, spatial acceleration): rows on a_i with constant
 * coefficients and a velocity-dependent bias. `components` index into
 * [alpha_x, alpha_y, alpha_z, ax, ay, az] (angular acceleration, proper linear acceleration).
 */
export class LinkAccelerationBlock implements MeasurementBlock {
  private readonly rows: Int32Array;
  private readonly cols: Int32Array;
  private readonly vals: Float64Array;
  private readonly comp: Int8Array;
  /** scratch: proper-acceleration bias in sensor coordinates */
  private readonly bias = new Float64Array(3);

  constructor(
    readonly name: string,
    readonly rowNames: readonly string[],
    readonly inputNames: readonly string[],
    readonly body: number,
    /** ˢX_i (E, p) */
    readonly X: Float64Array,
    components: readonly number[],
    aCol: number,
    readonly variance?: number,
  ) {
    this.comp = Int8Array.from(components);
    const rows: number[] = [], cols: number[] = [], vals: number[] = [];
    const p0 = X[9], p1 = X[10], p2 = X[11];
    components.forEach((c, r) => {
      const k = c % 3;
      const e0 = X[3 * k], e1 = X[3 * k + 1], e2 = X[3 * k + 2];
      if (c < 3) {
        // E α
        [e0, e1, e2].forEach((v, j) => { if (v !== 0) { rows.push(r); cols.push(aCol + j); vals.push(v); } });
      } else {
        // E (a_lin − p × α): coefficient on α is −E p× … = row k of E·(−p×); on a_lin, row k of E
        const ang = [-(e1 * p2 - e2 * p1), -(e2 * p0 - e0 * p2), -(e0 * p1 - e1 * p0)];
        ang.forEach((v, j) => { if (v !== 0) { rows.push(r); cols.push(aCol + j); vals.push(v); } });
        [e0, e1, e2].forEach((v, j) => { if (v !== 0) { rows.push(r); cols.push(aCol + 3 + j); vals.push(v); } });
      }
    });
    this.rows = Int32Array.from(rows); this.cols = Int32Array.from(cols); this.vals = Float64Array.from(vals);
  }

  pattern(_layout: VariableLayout): { rows: Int32Array; cols: Int32Array } {
    return { rows: this.rows, cols: this.cols };
  }

  fill(ctx: FillContext, Ax: Float64Array, slots: Int32Array, b: Float64Array, row0: number, y: Float64Array, y0: number): void {
    const v = this.vals;
    for (let e = 0; e < v.length; e++) Ax[slots[e]] = v[e];
    const comp = this.comp;
    let linear = false;
    for (let r = 0; r < comp.length; r++) if (comp[r] >= 3) linear = true;
    if (linear) properAccelerationBias(this.bias, this.X, ctx.kin.v[this.body], ctx.flops);
    for (let r = 0; r < comp.length; r++) {
      const c = comp[r];
      b[row0 + r] = (c >= 3 ? this.bias[c - 3] : 0) - y[y0 + r];
    }
    ctx.flops.add += comp.length;
  }
}

/** out = E (ω × (v + ω × p)): the velocity part of the proper acceleration of point p, sensor axes. 21 mul, 15 add. */
function properAccelerationBias(out: Float64Array, X: Float64Array, vel: Float64Array, fl: Flops): void {
  const w0 = vel[0], w1 = vel[1], w2 = vel[2];
  const p0 = X[9], p1 = X[10], p2 = X[11];
  const u0 = vel[3] + (w1 * p2 - w2 * p1);
  const u1 = vel[4] + (w2 * p0 - w0 * p2);
  const u2 = vel[5] + (w0 * p1 - w1 * p0);
  const c0 = w1 * u2 - w2 * u1, c1 = w2 * u0 - w0 * u2, c2 = w0 * u1 - w1 * u0;
  out[0] = X[0] * c0 + X[1] * c1 + X[2] * c2;
  out[1] = X[3] * c0 + X[4] * c1 + X[5] * c2;
  out[2] = X[6] * c0 + X[7] * c1 + X[8] * c2;
  fl.mul += 21; fl.add += 15;
}
