/**
 * The per-row work of `sparsedyn estimate` on a batch of raw log rows, written once and run either
 * in the main thread (one job) or in worker threads (`--jobs N`, estimate-worker.ts): parse each
 * row, estimate it with the session, format the estimate as an NDJSON line or a CSV row. Results
 * come back in the batch's order; the caller writes them in the order of the batches, so that the
 * output is the same, byte for byte, whatever the number of jobs. What a batch adds to the run's
 * figures comes back with it (`BatchStats`), for the main thread's session to absorb.
 *
 * A ROS 2 recording is sampled in the main thread (McapSampler: the sample clock, latest or
 * interpolated values, staleness): its rows come as samples already assembled. Estimates written as
 * MCAP come back as the CDR bytes of their messages but the status (McapEstimateEncoder), which the
 * main thread writes with the status in the rows' order.
 *
 * A worker's session never analyses a layout (sensor subset × contact mode): the main thread does,
 * once per layout in the run. A batch that meets a layout the worker was not given comes back
 * unestimated, naming the layouts it needs (`BatchResult.need`); the pool sends it again with their
 * offline work (estimate-pool.ts).
 */
import type { NamedEstimate } from '../estimation/outputs.ts';
import { truthNotes, type TruthNotes } from '../estimation/report-values.ts';
import type { LayoutKey } from '../estimation/layouts.ts';
import type { EstimationSession, SessionOutcome, SessionStats } from '../estimation/session.ts';
import { CsvRows, LogSchema, parseNdjsonLine, type LogError, type LogSchemaOptions, type Sample } from '../io/log.ts';
import type { AnyLogFormat, RawRow } from '../io/log-reader.ts';
import { McapEstimateEncoder, secondsToNs, type EncodedEstimate } from '../io/mcap-estimates.ts';
import { nsText } from '../io/mcap-log.ts';
import { ByteOutput } from '../text/byte-output.ts';

const LF = 10;

/**
 * rows after which the LU returns to its initial row order (one job: every RESTART_ROWS rows of the
 * log; a worker: at the start of each batch, and every RESTART_ROWS rows of a range), so that the
 * estimates are the same, bit for bit, whichever thread estimates which rows
 */
export const RESTART_ROWS = 128;

/**
 * rows per pass of a batch (parse and estimate PASS_ROWS rows, then format them; one job's main
 * thread hands its batches over PASS_ROWS rows at a time): the samples and estimates of one pass are
 * dropped before the next, so that few of them are alive when the garbage collector runs (a worker's
 * range is 512 rows; measured on the demo humanoid, one job: CSV and MCAP about 7% faster than passes
 * of 128 rows, NDJSON the same)
 */
export const PASS_ROWS = 32;

/** the formats estimates are written in: a log's (NDJSON, CSV, MCAP), or Parquet */
export type OutFormat = AnyLogFormat | 'parquet';

/** A row to estimate: a raw row of a text log, or a sample of a ROS 2 recording (or why there is none). */
export type InputRow = RawRow | { kind: 'sample'; sample: Sample | LogError };

/** A batch's rows: an array, or rows made when asked for (a range of a log file read by a worker: RangeRows) */
export interface RowList { readonly length: number; at(k: number): InputRow | undefined }

/** One row's outcome. `estimate` and `truth` come with an estimated row when the caller asked for them. */
export type RowResult =
  | { kind: 'skip'; line: number; message: string; t?: number; where?: string; /** the layout's key, when the row reached the session's layouts */ layout?: string }
  | {
    kind: 'ok'; line: number; t: number;
    /** NDJSON and CSV out: the length of its line (line break included) in BatchResult.bytes */
    length?: number;
    /** MCAP out: the sample's stamp (ns) and its messages but the status */
    stamp?: bigint; mcap?: EncodedEstimate;
    /** a ROS 2 recording's sample: the age (s) of each channel's value */
    staleness?: Map<string, number>;
    /** the layout's key (LayoutCache: sensors used | active contacts) */
    layout: string;
    condition?: number; near_singular?: string; flag_key?: string;
    /** the caller's own session's row (one job): its estimate and the row's truth, for the reports */
    estimate?: NamedEstimate; truth?: unknown;
    /** a worker's row written as MCAP: what the status message takes from the estimate */
    status?: Pick<NamedEstimate, 'residuals' | 'tau_std'>;
  };

/** A layout met in a batch: what the session's list of layouts keeps, and the batch's samples in it. */
export interface SeenLayout { key: string; sensors: string[]; mode: string; verdict: string; samples: number; priorOnly: string[]; unchecked: string[]; checked: string[] }

/** What a batch adds to the run's figures. */
export interface BatchStats {
  times: number[]; condTimes: number[]; badTimes: number[]; conditions: number[];
  samples: number; flops: number; condFlops: number; partial: number; maxQuaternionDeviation: number;
  analysesAtSeenSwitches: number; badDataTested: number; badDataDetected: number; badDataAmbiguous: number;
  modes: [string, number][]; suspects: [string, number][]; ignored: string[]; layouts: SeenLayout[];
  /** rows with implausible values by item, the first row of each item new in this batch, the sensors read (SessionStats) */
  implausible: [string, number][]; implausibleFirst: [string, { line: number; message: string }][]; sensorsRead: string[];
}

export interface BatchResult {
  results: RowResult[];
  stats: BatchStats;
  /**
   * NDJSON or CSV out: the lines of the batch's estimated rows as UTF-8, one after the other, each
   * row's `length` the number of them that is its own; written as they are. The numbers are
   * printed as bytes (json-lines.ts) and copied here, not made strings to be encoded again by the
   * writes (one job, 20,000 demo rows profiled: 232 ms decoding and encoding, now 157 ms for the
   * copies and writes). A worker's are moved to the main thread, not copied (estimate-worker.ts):
   * as one string per batch they were copied on the way and encoded by the main thread (2 jobs on
   * 40,000 demo samples, NDJSON out, alternated runs: 8.5–9.6 → 7.7–8.1 s, system time 2.6–2.9 →
   * 1.7–1.8 s, peak memory 371–385 → 315–319 MB).
   */
  bytes?: Uint8Array;
  /**
   * a worker's batch (RowSetup.withEstimates): the values the reports take from its estimated rows,
   * one row of the session's ReportSlots each, in the order of those rows, and what their truth
   * held that is unusable; instead of each row's estimate and truth as objects, which the main
   * thread would rebuild and collect (45,000 demo samples, two jobs: 10.6–11.0 → 9.9–10.1 s;
   * --no-condition 6.6–7.7 → 6.1–6.2 s)
   */
  report?: { values: Float64Array; notes: TruthNotes };
  /**
   * Parquet out: the numbers of the estimated rows under the session's typedColumns(), `width` per
   * row, and their texts, one list per row (nothing is formatted)
   */
  columns?: { values: Float64Array; width: number; texts: (string | string[] | undefined)[][] };
  /**
   * a worker's batch that meets layouts it was not given: those layouts, and no result (the batch
   * is sent again with their offline work)
   */
  need?: LayoutKey[];
}

/** How rows are read and written: the formats, the CSV header of the log, what comes back. */
export interface RowSetup {
  outFormat: OutFormat;
  /** a ROS 2 recording written as CSV: the input channels whose staleness ends each row (s; empty when a sample has none) */
  staleness?: string[];
  schema: LogSchemaOptions;
  /** the log's CSV header cells and line (CSV logs) */
  csvHeader?: { cells: string[]; line: number };
  /** send back what the reports take from each estimate and the row's truth (a worker's batch: BatchResult.report) */
  withEstimates: boolean;
}

/** the figures of a batch estimated by the caller's own session (nothing to absorb) */
const NO_STATS: BatchStats = {
  times: [], condTimes: [], badTimes: [], conditions: [], samples: 0, flops: 0, condFlops: 0, partial: 0, maxQuaternionDeviation: 0,
  analysesAtSeenSwitches: 0, badDataTested: 0, badDataDetected: 0, badDataAmbiguous: 0, modes: [], suspects: [], ignored: [], layouts: [],
  implausible: [], implausibleFirst: [], sensorsRead: [],
};
function mapDelta(after: Map<string, number>, before: Map<string, number>): [string, number][] {
  const out: [string, number][] = [];
  for (const [k, v] of after) { const d = v - (before.get(k) ?? 0); if (d !== 0) out.push([k, d]); }
  return out;
}

/** A batch processor bound to one session. */
export class RowProcessor {
  readonly schema: LogSchema;
  private readonly csv: CsvRows | null;
  private readonly mcap: McapEstimateEncoder | null;
  /** Parquet out: the numbers per row, and the last batch's columns (BatchResult.columns) */
  private parquetWidth?: number;
  private lastColumns?: BatchResult['columns'];
  /** NDJSON and CSV out: the texts of the batch's estimated rows (BatchResult.bytes) */
  private readonly out = new ByteOutput();

  constructor(readonly session: EstimationSession, readonly setup: RowSetup) {
    this.schema = new LogSchema(session.es, setup.schema);
    this.csv = setup.csvHeader ? new CsvRows(this.schema, setup.csvHeader.cells, setup.csvHeader.line) : null;
    this.mcap = setup.outFormat === 'mcap' ? new McapEstimateEncoder(session.es.model) : null;
  }

  /**
   * Parse, estimate and format every row of the batch; with `withStats` (a worker's batch), what it
   * added to the session's figures comes back with it.
   */
  run(rows: RowList, withStats = true, restartEvery = 0): BatchResult {
    const session = this.session, st = session.stats;
    if (!withStats) {
      const local: BatchResult = { results: this.rows(rows, false) as RowResult[], stats: NO_STATS };
      if (this.out.length > 0) local.bytes = this.out.take();
      if (this.lastColumns) { local.columns = this.lastColumns; this.lastColumns = undefined; }
      return local;
    }
    // a worker's batch need not follow its previous one: a run of flagged samples starts afresh (the
    // caller joins runs across batches), and the LU returns to its initial row order (as one job does every BATCH rows)
    session.breakRun();
    session.restartPivoting();
    const cp = session.checkpoint(), before = cp.stats, seenBefore = cp.seen;
    const { times: t0, condTimes: c0, badTimes: b0, conditions: k0 } = cp.lengths;
    const report: BatchResult['report'] = this.setup.withEstimates ? { values: new Float64Array(0), notes: truthNotes() } : undefined;
    const done = this.rows(rows, true, report, restartEvery, true);
    if (!Array.isArray(done)) {
      // the worker analyses no layout: the batch met one it lacks, and waits for the offline work of those it lacks
      cp.restore();
      this.lastColumns = undefined;
      this.out.drop(this.out.length);
      return { results: [], stats: NO_STATS, need: done.need };
    }
    const results = done;
    const layouts: SeenLayout[] = [];
    for (const [key, v] of session.layouts.seen) {
      const d = v.samples - (seenBefore.get(key) ?? 0);
      if (d !== 0 || !seenBefore.has(key)) layouts.push({ key, ...v, samples: d });
    }
    const stats: BatchStats = {
      times: st.times.slice(t0), condTimes: st.condTimes.slice(c0), badTimes: st.badTimes.slice(b0), conditions: st.conditions.slice(k0),
      samples: st.samples - before.samples, flops: st.flops - before.flops, condFlops: st.condFlops - before.condFlops, partial: st.partial - before.partial,
      maxQuaternionDeviation: st.maxQuaternionDeviation, analysesAtSeenSwitches: st.analysesAtSeenSwitches - before.analysesAtSeenSwitches,
      badDataTested: st.badDataTested - before.badDataTested, badDataDetected: st.badDataDetected - before.badDataDetected, badDataAmbiguous: st.badDataAmbiguous - before.badDataAmbiguous,
      modes: mapDelta(st.modes, before.modes), suspects: mapDelta(st.suspects, before.suspects), ignored: [...st.ignored], layouts,
      // the first row of an item is this batch's when the session had not met the item before it
      implausible: mapDelta(st.implausible, before.implausible), implausibleFirst: [...st.implausibleFirst].filter(([k]) => !before.implausible.has(k)), sensorsRead: [...st.sensorsRead],
    };
    const out: BatchResult = { results, stats };
    if (this.out.length > 0) out.bytes = this.out.take();
    if (this.lastColumns) { out.columns = this.lastColumns; this.lastColumns = undefined; }
    if (report) out.report = report;
    return out;
  }

  /** A row parsed (or why it cannot be). */
  private parse(raw: InputRow): Sample | LogError {
    if (raw.kind === 'error') return { line: raw.line, message: raw.message };
    if (raw.kind === 'sample') return raw.sample;
    if (raw.kind === 'csv') {
      if (!this.csv) throw new Error('a CSV row without the log\'s header');
      return this.csv.parse(raw.cells, raw.line);
    }
    return parseNdjsonLine(this.schema, raw.text, raw.line);
  }

  /** Add to `need` the layouts of parsed[0 … n) whose offline work the session lacks; the list, or null when none is lacking. */
  private missingLayouts(parsed: (Sample | LogError | undefined)[], n: number, need: LayoutKey[] | null): LayoutKey[] | null {
    const session = this.session, layouts = session.layouts;
    let last = '';
    for (let k = 0; k < n; k++) {
      const p = parsed[k]!;
      if ('message' in p) continue;
      const l = session.layoutOf(p);
      if (l.key === last) continue;
      last = l.key;
      if (!layouts.has(l.key) && !need?.some((x) => x.key === l.key)) (need ??= []).push(l);
    }
    return need;
  }

  /**
   * The batch in passes of PASS_ROWS rows: parse and estimate every sample of a pass, then format
   * every estimate of it. The estimates follow one another with the factors and workspaces of the
   * solve still in the processor's cache; parsing and formatting between two solves would push them
   * out (measured: the solve of the demo humanoid then takes about 1.5 times as long). A pass's
   * samples and estimates are dropped once formatted, and a pass is parsed only when its turn comes:
   * with the whole batch of a worker parsed up front (a range of 512 rows) or alive until its end,
   * the collector copied and kept them, and V8 then placed the estimates' small objects in the old
   * generation from the start (2 jobs on 40,000 demo samples, Parquet out, alternated runs: 9.1–9.4
   * → 7.4–8.6 s, 17 → 14.5 s of CPU time; a worker's profile: 440–615 → 114–133 ms building the
   * named estimates of its 20,000 rows, 300–450 → 180–200 ms collecting).
   * `copy`: the estimates sent back are cut to what the caller uses (a worker's, sent to the main
   * thread); else they are the session's. `check` (a worker): a pass with a layout the session
   * lacks stops the batch, which returns the layouts lacking in it (the rest parsed for theirs).
   */
  private rows(rows: RowList, copy: boolean, report?: BatchResult['report'], restartEvery = 0, check = false): RowResult[] | { need: LayoutKey[] } {
    const session = this.session;
    const n = rows.length;
    const results: RowResult[] = new Array(n);
    const parsed: (Sample | LogError | undefined)[] = new Array(Math.min(n, PASS_ROWS));
    const outcomes: (SessionOutcome | null)[] = new Array(Math.min(n, PASS_ROWS));
    const slots = session.reportSlots;
    // room for every row; cut to the estimated ones at the end (a copy: a view would take its whole buffer to the main thread)
    if (report) report.values = new Float64Array(n * slots.width);
    /** the rows estimated so far: the place of the next one's numbers (Parquet) and report values */
    let nok = 0;
    // Parquet out: the numbers of the estimated rows, one after the other, and their texts
    let cols: BatchResult['columns'] | undefined;
    if (this.setup.outFormat === 'parquet') {
      const width = this.parquetWidth ??= session.typedColumns().filter((c) => c.type !== 'STRING' && c.type !== 'STRINGS').length;
      cols = this.lastColumns = { values: new Float64Array(n * width), width, texts: [] };
    }
    for (let k0 = 0; k0 < n; k0 += PASS_ROWS) {
      const k1 = Math.min(n, k0 + PASS_ROWS);
      for (let k = k0; k < k1; k++) parsed[k - k0] = this.parse(rows.at(k)!);
      if (check) {
        let need = this.missingLayouts(parsed, k1 - k0, null);
        if (need !== null) {
          for (let j0 = k1; j0 < n; j0 += PASS_ROWS) {
            const j1 = Math.min(n, j0 + PASS_ROWS);
            for (let j = j0; j < j1; j++) parsed[j - j0] = this.parse(rows.at(j)!);
            need = this.missingLayouts(parsed, j1 - j0, need);
          }
          return { need: need! };
        }
      }
      for (let k = k0; k < k1; k++) {
        const p = parsed[k - k0]!;
        if (restartEvery > 0 && k > 0 && k % restartEvery === 0) session.restartPivoting();
        outcomes[k - k0] = 'message' in p ? null : session.estimate(p);
      }
      for (let k = k0; k < k1; k++) {
        const p = parsed[k - k0]!, out = outcomes[k - k0];
        // the pass's samples and estimates are not kept past it
        parsed[k - k0] = undefined;
        outcomes[k - k0] = null;
        results[k] = this.result(p, out, copy, cols, report, nok);
        if (out?.ok) nok++;
      }
    }
    if (cols && nok < n) cols.values = cols.values.slice(0, nok * cols.width);
    if (report && nok < n) report.values = report.values.slice(0, nok * slots.width);
    return results;
  }

  /**
   * One row's result: why it was skipped, or its estimate formatted (Parquet: its numbers into
   * `cols`); `at`: the rows of the batch estimated before it (the place of its numbers and report values)
   */
  private result(p: Sample | LogError, out: SessionOutcome | null, copy: boolean, cols: BatchResult['columns'] | undefined, report: BatchResult['report'] | undefined, at: number): RowResult {
    const session = this.session;
    if ('message' in p) return p.where !== undefined ? { kind: 'skip', line: p.line, message: p.message, where: p.where } : { kind: 'skip', line: p.line, message: p.message };
    if (!out!.ok) {
      const skipped: RowResult = p.stamp !== undefined
        ? { kind: 'skip', line: out!.line, message: out!.message, t: p.t, where: `sample ${p.line} (t = ${nsText(p.stamp)} s)` }
        : { kind: 'skip', line: out!.line, message: out!.message, t: p.t };
      if (out!.layout !== undefined) skipped.layout = out!.layout;
      return skipped;
    }
    const r = out!.record, fmt = this.setup.outFormat, bytes = this.out, start = bytes.length;
    if (fmt === 'csv') {
      session.writeCsv(r, bytes);
      // a ROS 2 recording adds the staleness of each channel, in s (last columns)
      const stale = this.setup.staleness;
      if (stale) for (const c of stale) { const a = p.staleness?.get(c); bytes.text(a === undefined ? ',' : `,${a}`); }
      bytes.byte(LF);
    } else if (fmt === 'ndjson') {
      session.writeJson(r, bytes);
      if (p.staleness) { bytes.drop(1); bytes.text(`,"staleness":${JSON.stringify(Object.fromEntries(p.staleness))}}`); }
      bytes.byte(LF);
    } else if (cols) {
      session.numbers(r, cols.values, at * cols.width);
      cols.texts.push(session.texts(r));
    }
    const res: RowResult = { kind: 'ok', line: r.line, t: r.t, layout: r.layout! };
    if (bytes.length > start) res.length = bytes.length - start;
    if (p.staleness) res.staleness = p.staleness;
    if (this.mcap) {
      res.stamp = p.stamp ?? secondsToNs(r.t);
      res.mcap = this.mcap.encode(res.stamp, r.estimate);
    }
    if (r.condition !== undefined) res.condition = r.condition;
    if (r.near_singular !== undefined) { res.near_singular = r.near_singular; res.flag_key = r.flag_key; }
    if (this.setup.withEstimates) {
      const e = r.estimate;
      if (!copy) { res.estimate = e; res.truth = p.truth; } else {
        if (report) session.reportSlots.pack(e, p.truth, report.values, at * session.reportSlots.width, report.notes);
        if (this.mcap) res.status = e.tau_std ? { residuals: e.residuals, tau_std: e.tau_std } : { residuals: e.residuals };
      }
    }
    return res;
  }
}

/**
 * Add a batch estimated by another session (a worker's) to this session's figures. Flagged samples,
 * mode switches and the accuracy against the truth are taken from the ordered rows by the caller.
 * Layouts and contact modes new to the run are listed in the order the batch's rows meet them, as
 * one job lists them (a worker's own lists follow what it met before).
 */
export function absorbStats(session: EstimationSession, batch: BatchResult): void {
  const st: SessionStats = session.stats, b = batch.stats, seen = session.layouts.seen;
  for (const r of batch.results) {
    const k = r.layout;
    if (k === undefined) continue;
    const known = seen.get(k);
    if (known !== undefined && (r.kind === 'skip' || st.modes.has(known.mode))) continue;
    const l = known ?? b.layouts.find((x) => x.key === k);
    if (l === undefined) continue;
    if (known === undefined) seen.set(k, { sensors: l.sensors, mode: l.mode, verdict: l.verdict, samples: 0, priorOnly: l.priorOnly, unchecked: l.unchecked, checked: l.checked });
    if (r.kind === 'ok' && !st.modes.has(l.mode)) st.modes.set(l.mode, 0);
  }
  for (const x of b.times) st.times.push(x);
  for (const x of b.condTimes) st.condTimes.push(x);
  for (const x of b.badTimes) st.badTimes.push(x);
  for (const x of b.conditions) st.conditions.push(x);
  st.samples += b.samples; st.flops += b.flops; st.condFlops += b.condFlops; st.partial += b.partial;
  st.maxQuaternionDeviation = Math.max(st.maxQuaternionDeviation, b.maxQuaternionDeviation);
  st.analysesAtSeenSwitches += b.analysesAtSeenSwitches; st.badDataTested += b.badDataTested; st.badDataDetected += b.badDataDetected; st.badDataAmbiguous += b.badDataAmbiguous;
  for (const [k, d] of b.modes) st.modes.set(k, (st.modes.get(k) ?? 0) + d);
  for (const [k, d] of b.suspects) st.suspects.set(k, (st.suspects.get(k) ?? 0) + d);
  for (const c of b.ignored) st.ignored.add(c);
  // a worker's batch comes back in the rows' order: the first row of an item is that of the first batch that meets it, as with one job
  for (const [k, d] of b.implausible) st.implausible.set(k, (st.implausible.get(k) ?? 0) + d);
  for (const [k, f] of b.implausibleFirst) if (!st.implausibleFirst.has(k)) st.implausibleFirst.set(k, f);
  for (const n of b.sensorsRead) st.sensorsRead.add(n);
  for (const l of b.layouts) {
    const s = seen.get(l.key);
    if (s) s.samples += l.samples;
    else seen.set(l.key, { sensors: l.sensors, mode: l.mode, verdict: l.verdict, samples: l.samples, priorOnly: l.priorOnly, unchecked: l.unchecked, checked: l.checked });
  }
}
