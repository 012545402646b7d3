/**
 * The time series an estimation run shows in its HTML report, collected sample after sample with
 * bounded memory: every estimated joint torque (one value per degree of freedom), its standard
 * deviation when a covariance was computed, every contact wrench (contact link frame), the truth of
 * each when the log carries it (in the estimate's shape: ReportSlots), every sensor's normalized
 * residual and the condition figure, each sample read from its row of ReportSlots. Beyond
 * `maxPoints` samples the series keep every 2nd, 4th, … sample (the stride is stated in the
 * report); the accuracy table is computed on every sample elsewhere (TruthComparison). Skipped rows
 * are all kept (line, and time when the row had one).
 */
import type { NamedEstimate } from '../estimation/outputs.ts';
import { clearTruthNotes, truthNotes, type ReportSlots, type TruthNotes } from '../estimation/report-values.ts';

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
  /** the columns by prefix and name (the same arrays as in `columns`) */
  private readonly byPrefix = new Map<string, Map<string, number[][]>>();

  /** each sample is taken as its row of `slots` (`add` packs it; `addRow` takes a row packed elsewhere, e.g. by a worker thread) */
  constructor(readonly slots: ReportSlots, readonly maxPoints = 2000) {
    this.row = new Float64Array(slots.width);
  }

  private readonly row: Float64Array;
  private readonly notes: TruthNotes = truthNotes();

  /** Offer one estimated sample; it is kept when its index is a multiple of the stride. */
  add(line: number, t: number, condition: number, e: NamedEstimate, truth: unknown): void {
    if (this.seen % this.stride !== 0) { this.seen++; return; }
    this.slots.pack(e, truth, this.row, 0, this.notes);
    // what the truth held that is unusable is the accuracy's to report (TruthComparison)
    clearTruthNotes(this.notes);
    this.addRow(line, t, condition, this.row, 0);
  }

  /**
   * Offer one estimated sample as its row of `slots` at v[at ..] (NaN: no value); kept when its
   * index is a multiple of the stride. Only the truth the accuracy uses is shown (ReportSlots.pack).
   */
  addRow(line: number, t: number, condition: number, v: Float64Array, at: number): void {
    if (this.seen++ % this.stride !== 0) return;
    const S = this.slots;
    const n = this.t.length;
    this.t.push(t); this.line.push(line); this.condition.push(condition);
    this.dofRow('tau', v, at + S.tau);
    this.dofRow('tau_std', v, at + S.std);
    this.wrenchRow('contact', v, at + S.contact);
    for (let k = 0; k < S.sensors.length; k++) { const x = v[at + S.residual + k]; if (!Number.isNaN(x)) this.cols('residual', S.sensors[k], 0)[0].push(x); }
    this.dofRow('truth.tau', v, at + S.truthTau);
    this.wrenchRow('truth.contact', v, at + S.truthContact);
    for (const c of this.all) if (c.length === n) c.push(NaN);
    if (this.t.length > this.maxPoints) this.halve();
  }

  /** the joints' values of a row from v[o ..], those present */
  private dofRow(prefix: string, v: Float64Array, o: number): void {
    for (const j of this.slots.joints) {
      if (Number.isNaN(v[o + j.at])) continue;
      const cs = this.cols(prefix, j.name, j.nv === 1 ? 0 : j.nv);
      for (let k = 0; k < j.nv; k++) cs[k].push(v[o + j.at + k]);
    }
  }

  /** the contacts' wrenches of a row from v[o ..] (6 each), those present */
  private wrenchRow(prefix: string, v: Float64Array, o: number): void {
    const contacts = this.slots.contacts;
    for (let c = 0; c < contacts.length; c++) {
      if (Number.isNaN(v[o + 6 * c])) continue;
      const cs = this.cols(prefix, contacts[c], -1);
      for (let k = 0; k < 6; k++) cs[k].push(v[o + 6 * c + k]);
    }
  }

  /** every column, in the order of `columns` */
  private readonly all: Column[] = [];

  /**
   * The columns of a name under a prefix, looked up by (prefix, name) without building their keys:
   * `count` 0 is one column named `<prefix>.<name>`, `count` k ≥ 1 are `<prefix>.<name>[0…k−1]`,
   * -1 the six wrench components `<prefix>.<name>.tx` … `.fz`.
   */
  private cols(prefix: string, name: string, count: number): number[][] {
    let byName = this.byPrefix.get(prefix);
    if (!byName) { byName = new Map(); this.byPrefix.set(prefix, byName); }
    let cs = byName.get(name);
    const size = count === 0 ? 1 : count < 0 ? 6 : count;
    if (!cs || cs.length !== size) {
      cs = Array.from({ length: size }, (_, k) => {
        const key = `${prefix}.${name}${count === 0 ? '' : count < 0 ? `.${COMPONENTS[k]}` : `[${k}]`}`;
        let c = this.columns.get(key);
        if (!c) { c = new Array<number>(this.t.length - 1).fill(NaN); this.columns.set(key, c); this.all.push(c); }
        return c;
      });
      byName.set(name, cs);
    }
    return cs;
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
    for (const c of this.all) keep(c);
    this.stride *= 2;
  }
}
