/**
 * The per-row work of `sparsedyn estimate` on a batch of raw log rows, written once and run either
 * in the main thread (one job) or in worker threads (`--jobs N`, estimate-worker.ts): parse each
 * row, estimate it with the session, format the estimate as an NDJSON line or a CSV row. Results
 * come back in the batch's order; the caller writes them in the order of the batches, so that the
 * output is the same, byte for byte, whatever the number of jobs.
 */
import type { NamedEstimate } from '../estimation/outputs.ts';
import type { EstimationSession } from '../estimation/session.ts';
import { CsvRows, LogSchema, parseNdjsonLine, type LogError, type Sample } from '../io/log.ts';
import type { LogFormat, RawRow } from '../io/log-reader.ts';

/** One row's outcome. `estimate` and `truth` come with an estimated row when the caller asked for them. */
export type RowResult =
  | { kind: 'skip'; line: number; message: string; t?: number }
  | {
    kind: 'ok'; line: number; t: number; text: string;
    condition?: number; near_singular?: string; flag_key?: string;
    estimate?: NamedEstimate; truth?: unknown;
  };

/** What a batch adds to the run's figures (merged into the main session's stats). */
export interface BatchStats { times: number[]; condTimes: number[]; conditions: number[]; flops: number; condFlops: number; samples: number }

export interface BatchResult {
  results: RowResult[];
  stats: BatchStats;
  /** the CSV columns of the estimates (CSV output, once a row was estimated) */
  header?: string[];
}

/** How rows are read and written: the formats, the CSV header of the log, what comes back. */
export interface RowSetup {
  outFormat: LogFormat;
  /** the log's CSV header cells and line (CSV logs) */
  csvHeader?: { cells: string[]; line: number };
  /** send each estimate (torques, contact wrenches, residuals, tau_std) and the row's truth back */
  withEstimates: boolean;
}

/** A batch processor bound to one session. */
export class RowProcessor {
  private readonly schema: LogSchema;
  private readonly csv: CsvRows | null;
  /** the CSV columns of the estimates, fixed by the first estimated row */
  header: string[] | null = null;

  constructor(readonly session: EstimationSession, readonly setup: RowSetup) {
    this.schema = new LogSchema(session.es);
    this.csv = setup.csvHeader ? new CsvRows(this.schema, setup.csvHeader.cells, setup.csvHeader.line) : null;
  }

  /** Parse, estimate and format every row of the batch. */
  run(rows: RawRow[]): BatchResult {
    const st = this.session.stats;
    const t0 = st.times.length, c0 = st.condTimes.length, k0 = st.conditions.length, f0 = st.flops, cf0 = st.condFlops, s0 = st.samples;
    const results: RowResult[] = [];
    for (const raw of rows) {
      if (raw.kind === 'error') { results.push({ kind: 'skip', line: raw.line, message: raw.message }); continue; }
      let parsed: Sample | LogError;
      if (raw.kind === 'csv') {
        if (!this.csv) throw new Error('a CSV row without the log\'s header');
        parsed = this.csv.parse(raw.cells, raw.line);
      } else parsed = parseNdjsonLine(this.schema, raw.text, raw.line);
      if ('message' in parsed) { results.push({ kind: 'skip', line: parsed.line, message: parsed.message }); continue; }
      const out = this.session.estimate(parsed);
      if (!out.ok) { results.push({ kind: 'skip', line: out.line, message: out.message, t: parsed.t }); continue; }
      const r = out.record;
      let text: string;
      if (this.setup.outFormat === 'csv') {
        const cols = this.session.toColumns(r);
        this.header ??= [...cols.keys()];
        text = this.header.map((k) => cols.get(k)).join(',') + '\n';
      } else text = JSON.stringify(this.session.toJson(r)) + '\n';
      const res: RowResult = { kind: 'ok', line: r.line, t: r.t, text };
      if (r.condition !== undefined) res.condition = r.condition;
      if (r.near_singular !== undefined) { res.near_singular = r.near_singular; res.flag_key = r.flag_key; }
      if (this.setup.withEstimates) {
        const e = r.estimate;
        res.estimate = { tau: e.tau, qdd: {}, contact_wrenches: e.contact_wrenches, joint_wrenches: {}, residuals: e.residuals, ...(e.tau_std ? { tau_std: e.tau_std } : {}) };
        res.truth = parsed.truth;
      }
      results.push(res);
    }
    const stats: BatchStats = {
      times: st.times.slice(t0), condTimes: st.condTimes.slice(c0), conditions: st.conditions.slice(k0),
      flops: st.flops - f0, condFlops: st.condFlops - cf0, samples: st.samples - s0,
    };
    return this.header ? { results, stats, header: this.header } : { results, stats };
  }
}
