/**
 * The time series an estimation run shows in its HTML report, collected sample after sample with
 * bounded memory: every estimated joint torque (one value per degree of freedom), its standard
 * deviation when a covariance was computed, every contact wrench (contact link frame), the truth of
 * each when the log carries it, every sensor's normalized residual and the condition figure. Beyond
 * `maxPoints` samples the series keep every 2nd, 4th, … sample (the stride is stated in the
 * report); the accuracy table is computed on every sample elsewhere (TruthComparison). Skipped rows
 * are all kept (line, and time when the row had one).
 */
import type { NamedEstimate, Wrench } from '../estimation/outputs.ts';

const COMPONENTS = ['tx', 'ty', 'tz', 'fx', 'fy', 'fz'] as const;

/** Values of one named quantity over the kept samples (NaN: no value at that sample). */
export type Column = number[];

export class EstimateSeries {
  /** sample times kept, s */
  readonly t: number[] = [];
  /** log line of each kept sample */
  readonly line: number[] = [];
  /** condition figure of each kept sample (NaN when not computed) */
  readonly condition: number[] = [];
  /** columns by key: `tau.<joint>[k]`, `tau_std.<joint>[k]`, `truth.tau.<joint>[k]`, `contact.<link>.<c>`, `truth.contact.<link>.<c>`, `residual.<sensor>` */
  readonly columns = new Map<string, Column>();
  /** skipped rows: line, time if the row had one, reason */
  readonly skipped: { line: number; t?: number; message: string }[] = [];
  /** every `stride`-th estimated sample is kept */
  stride = 1;
  /** samples offered to add() */
  seen = 0;
  private readonly keys = new Map<string, string[]>();

  constructor(readonly maxPoints = 2000) {}

  /** Offer one estimated sample; it is kept when its index is a multiple of the stride. */
  add(line: number, t: number, condition: number, e: NamedEstimate, truth: unknown): void {
    if (this.seen++ % this.stride !== 0) return;
    const n = this.t.length;
    this.t.push(t); this.line.push(line); this.condition.push(condition);
    const put = (key: string, v: number) => {
      let c = this.columns.get(key);
      if (!c) { c = new Array<number>(n).fill(NaN); this.columns.set(key, c); }
      c.push(v);
    };
    // the keys of a name under a prefix, built once (this runs once per sample)
    const keys = (prefix: string, name: string, count: number, sub: (k: number) => string): string[] => {
      const id = `${prefix}\u0000${name}`;
      let ks = this.keys.get(id);
      if (!ks || ks.length !== count) { ks = Array.from({ length: count }, (_, k) => `${prefix}.${name}${sub(k)}`); this.keys.set(id, ks); }
      return ks;
    };
    const dofs = (prefix: string, rec: Record<string, number | number[]>) => {
      for (const name in rec) {
        const x = rec[name];
        if (typeof x === 'number') put(keys(prefix, name, 1, () => '')[0], x);
        else { const ks = keys(prefix, name, x.length, (k) => `[${k}]`); for (let k = 0; k < x.length; k++) put(ks[k], x[k]); }
      }
    };
    const wrench = (prefix: string, link: string, w: Wrench) => {
      const ks = keys(prefix, link, 6, (k) => `.${COMPONENTS[k]}`);
      for (let c = 0; c < 3; c++) { put(ks[c], w.torque[c]); put(ks[c + 3], w.force[c]); }
    };
    dofs('tau', e.tau);
    if (e.tau_std) dofs('tau_std', e.tau_std);
    for (const [link, w] of Object.entries(e.contact_wrenches)) wrench('contact', link, w);
    for (const s in e.residuals) put(keys('residual', s, 1, () => '')[0], e.residuals[s]);
    if (typeof truth === 'object' && truth !== null) {
      const tr = truth as { tau?: Record<string, unknown>; contact_wrenches?: Record<string, unknown> };
      if (typeof tr.tau === 'object' && tr.tau !== null) {
        for (const [name, x] of Object.entries(tr.tau)) {
          if (!(name in e.tau)) continue;
          if (typeof x === 'number') put(`truth.tau.${name}`, x);
          else if (Array.isArray(x)) x.forEach((v, k) => { if (typeof v === 'number') put(`truth.tau.${name}[${k}]`, v); });
        }
      }
      if (typeof tr.contact_wrenches === 'object' && tr.contact_wrenches !== null) {
        for (const [link, w] of Object.entries(tr.contact_wrenches)) {
          const ww = w as Partial<Wrench> | null;
          if (!(link in e.contact_wrenches) || !ww || !Array.isArray(ww.torque) || !Array.isArray(ww.force)) continue;
          wrench('truth.contact', link, { torque: ww.torque, force: ww.force });
        }
      }
    }
    // a column this sample did not fill gets NaN
    for (const c of this.columns.values()) if (c.length === n) c.push(NaN);
    if (this.t.length > this.maxPoints) this.halve();
  }

  /** Record a skipped row (`t` when the row was read far enough to have one). */
  skip(line: number, message: string, t?: number): void {
    this.skipped.push(t === undefined || !Number.isFinite(t) ? { line, message } : { line, t, message });
  }

  /**
   * Times of the skipped rows: their own when they had one, else interpolated from the line numbers
   * of the kept samples around them (a row that could not be read has no time of its own).
   */
  skippedTimes(): number[] {
    return this.skipped.map((s) => {
      if (s.t !== undefined) return s.t;
      const L = this.line, T = this.t;
      if (L.length === 0) return NaN;
      let k = 0;
      while (k < L.length && L[k] < s.line) k++;
      if (k === 0) return T[0];
      if (k === L.length) return T[L.length - 1];
      return T[k - 1] + ((T[k] - T[k - 1]) * (s.line - L[k - 1])) / (L[k] - L[k - 1]);
    });
  }

  private halve(): void {
    const keep = <T>(a: T[]) => { let j = 0; for (let i = 0; i < a.length; i += 2) a[j++] = a[i]; a.length = j; };
    keep(this.t); keep(this.line); keep(this.condition);
    for (const c of this.columns.values()) keep(c);
    this.stride *= 2;
  }
}
