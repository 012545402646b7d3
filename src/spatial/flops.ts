/**
 * Exact floating-point operation counter: plain integer fields incremented by the kernels as
 * they run. Convention used throughout sparsedyn: a multiply-add is two flops (one `mul`, one
 * `add`); subtractions count as `add`; negations, copies and multiplications by an exact ±1 or 0
 * that the code skips are not counted; `sqrt`, `sin`, `cos` are counted apart in `fn`.
 */
export class Flops {
  /** multiplications */
  mul = 0;
  /** additions and subtractions */
  add = 0;
  /** divisions */
  div = 0;
  /** elementary functions (sqrt, sin, cos) */
  fn = 0;

  /** Zero every counter; returns this. */
  reset(): this {
    this.mul = 0;
    this.add = 0;
    this.div = 0;
    this.fn = 0;
    return this;
  }

  /** mul + add + div (elementary functions are reported apart). */
  get total(): number {
    return this.mul + this.add + this.div;
  }

  /** this += other */
  accumulate(other: Flops): this {
    this.mul += other.mul;
    this.add += other.add;
    this.div += other.div;
    this.fn += other.fn;
    return this;
  }

  /** The counts and their total, for JSON output. */
  toJSON(): { mul: number; add: number; div: number; fn: number; total: number } {
    return { mul: this.mul, add: this.add, div: this.div, fn: this.fn, total: this.total };
  }
}
