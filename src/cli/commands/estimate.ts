/**
 * `sparsedyn estimate PROBLEM.json --data LOG --out FILE`: estimate every unknown (joint torques,
 * contact and joint wrenches, accelerations) sample after sample from a sensor log (NDJSON, CSV or
 * a ROS 2 recording, read from the content), with one offline ordering and one refactorization per
 * sample; with `--jobs N`, in a pool of worker threads (the same output).
 * Files: every input is checked before any output is touched, an output that is an input is
 * refused, outputs are written beside their final name and renamed at the end (an interrupted run
 * leaves the old files). Streams: "-" is standard input or output; stdout carries estimates only.
 * Every sample is checked: rows whose inputs or results are not finite are skipped with the reason
 * (exit code 3); each estimate carries its condition figure (src/estimation/conditioning.ts), and
 * above --condition-limit the sample is flagged as near a singular configuration of the sensor
 * layout, with the direction that is poorly observed. An ill-posed problem is refused (exit 1).
 */
import { createHash } from 'node:crypto';
import { closeSync, createReadStream, openSync, readFileSync, readSync, statSync } from 'node:fs';
import type { IWritable } from '@mcap/core';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { columnUnits, csvColumn, dofUnits, unitOf, type AccuracyRow } from '../../estimation/outputs.ts';
import { DEFAULT_CONDITION_LIMIT, EstimationSession, type ModeSummary } from '../../estimation/session.ts';
import type { LayoutOffline } from '../../estimation/layouts.ts';
import type { RosMapping } from '../../estimation/ros-mapping.ts';
import { CsvRows, DEFAULT_QUATERNION_TOLERANCE, LogSchema, parseNdjsonLine, type LogError, type Sample } from '../../io/log.ts';
import { derivedProblem, describePlan, PERIOD_SAMPLES, planDerivation, SampleSequence, type DerivationPlan } from '../../estimation/derive.ts';
import { contactRule, ProblemError } from '../../estimation/problem.ts';
import { ContactDetector } from '../../estimation/contact-detection.ts';
import { buildEstimationSystem } from '../../estimation/setup.ts';
import { logRowBatches } from '../../io/log-reader.ts';
import { ParquetEstimateWriter } from '../../io/parquet-estimates.ts';
import { ParquetLogError, parquetRows } from '../../io/parquet-log.ts';
import { McapEstimateWriter } from '../../io/mcap-estimates.ts';
import { McapLogError, McapSampler } from '../../io/mcap-log.ts';
import { openLogSource } from '../../node/log-source.ts';
import { nodeCrc32 } from '../../node/log-file.ts';
import { loadEstimationSystem } from '../../node/problem-file.ts';
import { estimatePage } from '../../report/estimate-page.ts';
import { EstimateSeries } from '../../report/estimate-series.ts';
import { d3MinSource } from '../../report/write-study.ts';
import { EstimatePool } from '../estimate-pool.ts';
import { RangeScanner, readRange, type RangeScratch } from '../estimate-ranges.ts';
import { absorbStats, PASS_ROWS, RESTART_ROWS, RowProcessor, type BatchResult, type InputRow, type OutFormat, type RowSetup } from '../estimate-rows.ts';
import { checkInputFile, FileError, isStreamPath, openDataSink, printMessage, refuseOverwritingInputs, reportModelWarnings, writeFileAtomic } from '../output.ts';
import { formatAnalysis } from './analyze.ts';
import type { CliState } from '../state.ts';

interface Opts {
  data: string;
  out: string;
  report?: string;
  html?: string | false;
  jobs?: string;
  format?: OutFormat;
  covariance?: boolean;
  conditionLimit: string;
  condition: boolean;
  strict?: boolean;
  quaternionTolerance: string;
  falseAlarm: string;
  badData: boolean;
  layoutCache: string;
  cache?: string;
}

/** a row's line, where it changes here (NDJSON out: the run of flagged samples it is in named at its first) */
const utf8 = new TextDecoder();

/** rows per batch sent to a worker thread (--jobs above 1); with one job the LU row order restarts every BATCH rows all the same */
const BATCH = RESTART_ROWS;

/**
 * rows per range of a log file that a worker thread reads and parses itself (--jobs above 1, a text
 * log file whose rows need no derivatives over time): a multiple of BATCH, so that each range starts
 * where one job restarts the LU's row order
 */
const RANGE_ROWS = 4 * BATCH;


/**
 * Without --jobs, worker threads start only when the rest of the log would take one thread at least
 * this long (s), judged from the rows done so far and the bytes of the log left to read: starting
 * them costs about 0.4 s of wall time and a second of CPU time here (each worker loads the problem
 * and builds its workspaces), which a short log never wins back (measured on the demo humanoid:
 * 3,000 samples took 1.95 s with two workers, 1.56 s with one thread). The pace is that of this
 * thread's last batch of rows (the first one's includes compiling the code and the factorizations).
 * SPARSEDYN_POOL_MIN_SECONDS sets another limit (0: as soon as the pace is known, after two batches).
 */
const POOL_MIN_SECONDS = 2;

/** the default limit of the condition figure (see the README: measured distributions) */
export { DEFAULT_CONDITION_LIMIT };

/** per-row messages printed on stderr before they are only counted (all are in the report) */
const ROW_MESSAGES = 20;

export const ESTIMATE_HELP = `Units and frames: t in s; tau in N m (revolute joints) or N (prismatic), a floating base's
[force; torque] in its own frame; qdd in rad/s^2 or m/s^2; contact_wrenches: the wrench the
environment applies on each contact link, in the link's frame, torque about its origin (N m, N);
joint_wrenches: the wrench the parent applies on the child, in the child link's frame; residuals:
RMS of each sensor's residual over its standard deviation; condition: the estimate's uncertainty
relative to its typical value for the layout (1 at a typical configuration; a sample above
--condition-limit, default 10, is flagged as near a singular configuration of the layout);
sensors: the sensors whose readings were used (a row lacking some is estimated from the others
when that layout is well posed); mode: the active contacts (the row's "contacts", else the
problem's contact_schedule or contact_detection); bad_data (redundant layouts): chi-square test
at confidence 1 - --false-alarm, and the suspect sensor; implausible: the row's values beyond the
robot file's joint limits (positions with a margin of 0.05 rad or 5 mm, velocities and estimated
torques 5% over velocity and effort) or a sensor's "range", named; the row is estimated all the
same. CSV headers name each column "<name> [<unit>]". NDJSON rows follow schemas/estimates.schema.json.
Exit codes: 0 all rows estimated, 3 some rows skipped (reasons on stderr and in the report),
1 ill-posed problem, 2 unusable input or output (nothing written).`;

function progress(done: number, total: number): void {
  if (!process.stderr.isTTY) return;
  const w = 30, f = total > 0 ? Math.min(1, done / total) : 0;
  process.stderr.write(`\r[${'#'.repeat(Math.round(f * w)).padEnd(w)}] ${(100 * f).toFixed(0).padStart(3)}% ${done}/${total}`);
}

/** the median (the upper one of an even count); a typed array's sort is numeric and needs no comparator (a tenth of the time on 10⁵ numbers) */
const med = (a: number[]): number => {
  if (a.length === 0) return NaN;
  const s = Float64Array.from(a).sort();
  return s[s.length >> 1];
};
/** the largest of many numbers (no spread: a log of 10⁵ samples overflows the call stack's arguments) */
const maxOf = (a: readonly number[]): number => { let m = -Infinity; for (const x of a) if (x > m) m = x; return m; };
const mean = (a: number[]): number => (a.length ? a.reduce((x, y) => x + y, 0) / a.length : NaN);
const fmt = (x: number, d = 3): string => Number.isInteger(x) && Math.abs(x) < 1e5 ? String(x) : (Math.abs(x) >= 1e5 || (Math.abs(x) < 1e-2 && x !== 0) ? x.toExponential(d - 1) : x.toPrecision(d));
const num = (x: number): string => Math.round(x).toLocaleString('en-US');

export function register(program: Command, state: CliState): void {
  program
    .command('estimate')
    .argument('<problem>', 'problem file (JSON, schemas/problem.schema.json)')
    .description('estimate joint torques, contact and joint wrenches and accelerations from a sensor log')
    .requiredOption('-d, --data <log>', 'sensor log ("-" reads standard input): NDJSON or CSV, one sample per row, a Parquet file with the CSV log\'s columns (a file, not standard input), or a ROS 2 recording (MCAP, its topics mapped by the problem\'s "ros" section); the format is read from the content')
    .requiredOption('-o, --out <file>', 'estimates, one per sample (NDJSON, CSV, Parquet or MCAP); "-" writes standard output')
    .addOption(new Option('--format <format>', 'format of the estimates (default: parquet for a .parquet --out, mcap for a .mcap --out; else the log\'s, for an MCAP or Parquet log the --out extension .csv or .ndjson)').choices(['ndjson', 'csv', 'parquet', 'mcap']))
    .option('--report <file>', 'report (Markdown); default <out>.report.md beside a file --out (--out est.csv: est.csv.report.md), none when --out is "-"')
    .option('--html <file>', 'report with plots (self-contained HTML); default <out>.report.html beside a file --out, none when --out is "-"')
    .option('--no-html', 'write no HTML report')
    .option('--jobs <n>', 'worker threads estimating batches of rows, or of a ROS 2 recording\'s samples; on a text log file whose rows need no derivatives over time, each reads and parses its own ranges of the file (default: the number of cores for a log file, started once the rest of the log would take one thread 2 s or more; 1 for standard input); the output is the same, in the same order, for any n')
    .option('--covariance', 'add the standard deviation of each estimated torque (tau_std; square and redundant layouts, posterior with priors)')
    .option('--condition-limit <x>', 'flag a sample whose condition figure exceeds x (near a singular configuration of the layout)', String(DEFAULT_CONDITION_LIMIT))
    .option('--no-condition', 'skip the per-sample condition check (faster; no sample is flagged)')
    .option('--strict', 'refuse log channels the problem does not use (default: ignored, named in one note)')
    .option('--quaternion-tolerance <x>', 'largest |norm - 1| of a quaternion in the log; within it the quaternion is renormalised, beyond it the row is refused', String(DEFAULT_QUATERNION_TOLERANCE))
    .option('--false-alarm <p>', 'bad-data test: probability that a sample with only normal noise is flagged (the chi-square test runs at confidence 1 - p)', '0.01')
    .option('--no-bad-data', 'skip the bad-data test of redundant layouts')
    .option('--cache <dir>', 'keep the offline work of the problem (analysis, sparse LU ordering, calibrations of the condition figure and of the bad-data test) in this folder, keyed by the problem, model, options and version, and start later runs from it (the shards of a fleet\'s job)')
    .option('--layout-cache <n>', 'sensor layouts (sensor subset x contact mode) kept built; a layout dropped and met again is rebuilt from its offline analysis, kept for the run', '32')
    .addHelpText('after', `\n${ESTIMATE_HELP}\n`)
    .action(async (file: string, opts: Opts) => {
      const limit = Number(opts.conditionLimit);
      const jobs = opts.jobs === undefined ? (opts.data === '-' ? 1 : availableParallelism()) : Number(opts.jobs);
      /** no --jobs: the worker threads start when the log is long enough for them to pay (POOL_MIN_SECONDS) */
      const autoJobs = opts.jobs === undefined && jobs > 1;
      if (opts.jobs !== undefined && !(/^[0-9]+$/.test(opts.jobs) && jobs >= 1 && jobs <= 1024)) throw new FileError(`--jobs must be a whole number of worker threads from 1 to 1024, got "${opts.jobs}"`);
      if (!(limit > 0 && Number.isFinite(limit)) || !/^[0-9.eE+]+$/.test(opts.conditionLimit)) throw new FileError(`--condition-limit must be a positive decimal number, got "${opts.conditionLimit}"`);
      const qtol = Number(opts.quaternionTolerance);
      if (!(qtol > 0 && qtol < 1) || !/^[0-9.eE+-]+$/.test(opts.quaternionTolerance)) throw new FileError(`--quaternion-tolerance must be a decimal number between 0 and 1, got "${opts.quaternionTolerance}"`);
      const falseAlarm = Number(opts.falseAlarm);
      if (!(falseAlarm > 0 && falseAlarm < 1) || !/^[0-9.eE+-]+$/.test(opts.falseAlarm)) throw new FileError(`--false-alarm must be a probability between 0 and 1 (e.g. 0.01), got "${opts.falseAlarm}"`);
      const cacheSize = Number(opts.layoutCache);
      if (!(Number.isInteger(cacheSize) && cacheSize >= 1)) throw new FileError(`--layout-cache must be a whole number of layouts >= 1, got "${opts.layoutCache}"`);
      // 1. inputs, before any output is touched
      const dataName = opts.data === '-' ? 'standard input' : opts.data;
      checkInputFile('problem file', file);
      if (opts.data !== '-') checkInputFile('log', opts.data);
      const loaded = loadEstimationSystem(file);
      const { problem, model, modelFile } = loaded;
      const warnings = reportModelWarnings(state, model);
      // a stream (standard output, /dev/stdout, a pipe or another device) has no reports beside it unless asked
      const streaming = isStreamPath(opts.out);
      // named after the whole --out name, its extension kept: `--out x.ndjson` and `--out x.csv` have reports of their own
      const reportPath = opts.report ?? (streaming ? undefined : `${opts.out}.report.md`);
      const htmlPath = opts.html === false ? undefined : (opts.html ?? (streaming ? undefined : `${opts.out}.report.html`));
      refuseOverwritingInputs([['--out', opts.out], ['--report', reportPath], ['--html', htmlPath]], [['problem file', file], ['model', modelFile], ['log', opts.data]]);
      if (opts.report === '-') throw new FileError('--report must name a file (the report is never written to standard output)');
      if (opts.html === '-') throw new FileError('--html must name a file (the report is never written to standard output)');
      // the log's first samples: what it carries, and what must be derived from it over time (its sample
      // rate sets the fits' windows and the derived readings' variances, so the estimation system waits for it)
      const peekSchema = new LogSchema(loaded.es, { strict: opts.strict, quaternionTolerance: qtol, derive: true });
      // the log's first bytes: a ROS 2 recording (MCAP) is checked against the problem's "ros" section now
      let source: Awaited<ReturnType<typeof openLogSource>>;
      try {
        source = await openLogSource(opts.data);
      } catch (e) {
        throw new FileError(`${dataName}: cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
      }
      if (source.notText) {
        const k = source.notText;
        throw new FileError(`${dataName} is ${k.what}, not a log (NDJSON or CSV text, or a ROS 2 recording): ${k.hint}${k.stream ? `, or read it from standard input (${k.stream} | sparsedyn estimate … --data -)` : ''}`);
      }
      let sampler: McapSampler | null = null;
      if (source.mcap) {
        if (!problem.ros) throw new FileError(`${dataName} is a ROS 2 recording (MCAP): ${file} needs a "ros" section that maps its topics to the joints, the base and the sensors (see the README, "ROS 2 recordings")`);
        try {
          // zstd, lz4 and bz2 chunks (rosbag2's compression presets) through Foxglove's decompressors (WebAssembly)
          const { loadDecompressHandlers } = await import('@mcap/support');
          sampler = new McapSampler(peekSchema, problem.ros, await loadDecompressHandlers(), nodeCrc32);
        } catch (e) {
          if (e instanceof McapLogError) throw new FileError(`${file}: "ros": ${e.message}`);
          throw e;
        }
      }
      if (source.parquet && opts.data === '-') throw new FileError('standard input is a Parquet file: give it as a file (--data FILE.parquet); a Parquet file is read by random access, its index at its end');
      let inFormat: OutFormat | null = sampler ? 'mcap' : source.parquet ? 'parquet' : null;
      /** the log's rows in groups as they come (a chunk of text, a row group of a Parquet log, or the samples a chunk of a recording completes) */
      const groups: AsyncIterator<InputRow[]> = sampler ? mcapGroups(sampler, source.bytes)
        : source.parquet ? parquetGroups(opts.data, dataName)
          : logRowBatches(source.text, { onFormat: (f) => { inFormat = f; } });
      const peeked = await peekSamples(groups, peekSchema, PERIOD_SAMPLES);
      let plan: DerivationPlan | null;
      try {
        plan = planDerivation(loaded.es, peeked.samples, problem.differentiation);
      } catch (e) {
        if (e instanceof ProblemError) throw new FileError(`${dataName}: ${e.message}`);
        throw e;
      }
      const es = plan === null ? loaded.es : buildEstimationSystem(model, derivedProblem(problem, plan));
      const sessionOpts = {
        condition: opts.condition, conditionLimit: limit, covariance: opts.covariance, layoutCache: cacheSize, confidence: opts.badData ? 1 - falseAlarm : 0,
      };
      // --cache: the offline work of this problem, model, derivation plan and options, from an earlier run
      const cache = opts.cache === undefined ? null : offlineCache(opts.cache, file, modelFile, plan, sessionOpts);
      let session: EstimationSession;
      try {
        session = new EstimationSession(es, { ...sessionOpts, ...(cache?.offline ? { offline: cache.offline } : {}) });
      } catch (e) {
        if (!cache?.offline) throw e;
        // a cache file that does not fit: the offline work is done again (and written anew)
        cache.offline = undefined;
        session = new EstimationSession(es, sessionOpts);
      }
      if (cache !== null && cache.offline === undefined) {
        try { writeFileAtomic(cache.path, JSON.stringify(session.offline())); } catch (e) { if (!(e instanceof FileError)) throw e; printMessage(`note: --cache: ${e.message}`); }
      }
      // The layout with every contact ill posed and no schedule or thresholds: the rows may still name
      // their contacts, each mode judged on its own, which only the rows tell. Each row's layout decides
      // (a row of an ill-posed mode is skipped, naming it); the problem is refused (exit 1, with its
      // analysis) when no row was estimated and none named a mode of its own (see `refuse` below).
      const illPosedWithoutModes = session.analysis.verdict === 'ill_posed' && !session.hasContactModes;
      const refuse = (): boolean => {
        if (!illPosedWithoutModes || session.modes().some((m) => m.mode !== session.full.mode)) return false;
        printMessage(formatAnalysis(session.analysis, `estimate: ${file} is ill posed; refusing to estimate${session.modes().length ? ' (no row names its contacts)' : ''}`));
        state.exitCode = 1;
        return true;
      };
      const cond = opts.condition;
      const schema = new LogSchema(es, { strict: opts.strict, quaternionTolerance: qtol, derive: plan !== null });
      // the samples in the log's order: time checks, and the derivatives (parsed in this thread, then estimated like a recording's samples)
      // (contact detection with two thresholds or a minimum duration follows the samples in that order too;
      // one threshold alone is judged row by row, where the rows are estimated)
      const stateful = (problem.contact_detection ?? []).some((d) => { const r = contactRule(d); return r.on !== r.off || r.min_duration > 0; });
      const detector = stateful ? ContactDetector.of(es) : null;
      const stage = plan !== null || sampler !== null || detector !== null ? new SampleSequence(es, plan, detector ?? undefined) : null;
      const timeline = stage ?? new SampleSequence(es, null);
      const units = columnUnits(model);
      const truth = session.truth;
      const st = session.stats;
      if (!opts.format && /\.mcap$/i.test(opts.out)) opts.format = 'mcap';
      if (!opts.format && /\.parquet$/i.test(opts.out)) opts.format = 'parquet';
      if (!opts.format && source.parquet) opts.format = /\.csv$/i.test(opts.out) ? 'csv' : /\.(ndjson|jsonl|json)$/i.test(opts.out) ? 'ndjson' : 'parquet';
      if (!opts.format && sampler) opts.format = /\.csv$/i.test(opts.out) ? 'csv' : /\.(ndjson|jsonl|json)$/i.test(opts.out) ? 'ndjson' : 'mcap';
      // 2. the run; outputs under temporary names until the end
      const sink = openDataSink(opts.out);
      let mcapOut: McapEstimateWriter | null = null;
      let parquetOut: ParquetEstimateWriter | null = null;
      /** per channel of a ROS 2 recording, the largest staleness of an estimated sample (s) */
      const maxStale = new Map<string, number>();
      const errors: LogError[] = [];
      let rows = 0, printed = 0, printedFlags = 0;
      let outFormat: OutFormat | null = opts.format ?? null;
      let csvReader: CsvRows | null = null;
      let csvHeader: string[] | null = null;
      let csvHeaderRow: { cells: string[]; line: number } | null = null;
      const series = htmlPath !== undefined ? new EstimateSeries(session.reportSlots) : null;
      const skip = (line: number, message: string, t?: number, where?: string) => {
        errors.push(where !== undefined ? { line, message, where } : { line, message });
        series?.skip(line, message, t);
        if (!state.quiet && printed++ < ROW_MESSAGES) printMessage(`${dataName}:${where !== undefined ? ` ${where}:` : `${line}:`} skipped: ${message}`);
      };
      /** a ROS 2 recording written as CSV: the input channels whose staleness (s) ends each row */
      const staleCols = sampler?.inputChannels();
      try {
        const total = process.stderr.isTTY && !state.quiet && opts.data !== '-' && !sampler ? await countLines(opts.data) : 0;
        // rows (raw rows of a text log, or the samples of a ROS 2 recording, assembled here) go through
        // RowProcessor (src/cli/estimate-rows.ts): in this thread (one job), or in batches to a pool of
        // worker threads, written back in the batches' order
        let local: RowProcessor | null = null, pool: EstimatePool | null = null;
        /**
         * without --jobs: the time the rows estimated in this thread took (ms), their batches, the pace of its
         * last batch (ms per row: the first batch's includes compiling the code and the factorizations),
         * and the row the workers started from
         */
        let localMs = 0, localBatches = 0, pace = 0, poolFrom = 0;
        /** whether the log was read in ranges (the workers reading their own) */
        let rangesRead = false;
        const logSize = autoJobs ? fileSize(opts.data) : 0;
        const minSeconds = Number(process.env.SPARSEDYN_POOL_MIN_SECONDS ?? POOL_MIN_SECONDS);
        /** whether worker threads pay for the rest of the log: its rows (by its bytes left) at this thread's pace */
        /** bytes of the log read so far (by the reader, or by the scan of a log read in ranges) */
        let readBytes = () => source.readBytes();
        const poolPays = (): boolean => {
          if (!autoJobs) return true;
          const read = readBytes();
          if (logSize <= 0 || read <= 0 || localBatches < 2) return false;
          const left = Math.max(0, logSize - read) * (rows / read);
          return left * pace >= 1000 * (minSeconds >= 0 ? minSeconds : POOL_MIN_SECONDS);
        };
        const pending: Promise<BatchResult>[] = [];
        let batch: InputRow[] = [];
        /** the row count of the first row in `batch` */
        let partFirst = 0;
        let lastFlag: { key: string; direction: string } | null = null, lastLayout: string | null = null;
        const layoutsMet = new Set<string>();
        const schemaOpts = { strict: opts.strict, quaternionTolerance: qtol, derive: plan !== null };
        const setupFor = (): RowSetup => {
          outFormat ??= inFormat ?? 'ndjson';
          // a worker's estimates come back for the accuracy figures (and the HTML series)
          return { outFormat, schema: schemaOpts, csvHeader: csvHeaderRow ?? undefined, withEstimates: true, ...(staleCols && outFormat === 'csv' ? { staleness: staleCols } : {}) };
        };
        const accept = async (b: BatchResult, fromPool: boolean) => {
          if (fromPool) absorbStats(session, b);
          // NDJSON and CSV out: the rows' lines as bytes in one array (BatchResult.bytes), written as they are but
          // for a row whose line changes here; a worker's rows: what the reports take from them in one array (BatchResult.report)
          const bytes = b.bytes;
          /** the end of the last row's bytes, and the first byte not written yet */
          let at = 0, from = 0;
          // Parquet out: the batch's numbers and texts, one row per estimated sample (colRow: the next one)
          const cols = b.columns;
          let colRow = 0;
          if (cols && parquetOut === null) parquetOut = new ParquetEstimateWriter(session.typedColumns(), (bytes) => sink.write(bytes), parquetMetadata(model, file, units, session));
          const rep = fromPool ? b.report : undefined, width = session.reportSlots.width;
          let slot = 0;
          if (rep) truth.note(rep.notes);
          for (const r of b.results) {
            const start = at;
            if (r.kind === 'ok' && r.length !== undefined) at += r.length;
            if (r.layout !== undefined) {
              // mode switches counted along the rows' order, not per worker, over the rows that reached a layout (estimated or not), as one job counts them
              // (this thread's session counts its own rows' switches: they are followed here for the workers' rows after them)
              if (fromPool && lastLayout !== null && r.layout !== lastLayout) { st.switches++; if (layoutsMet.has(r.layout)) st.switchesToSeen++; }
              lastLayout = r.layout; layoutsMet.add(r.layout);
            }
            if (r.kind === 'skip') { skip(r.line, r.message, r.t, r.where); continue; }
            if (stage === null) timeline.checkTime(r.line, r.t);
            // the row's line, where it changes here (else its bytes are written with the batch's)
            let text = '';
            if (r.near_singular !== undefined) {
              // a run of flagged samples is named at its first sample, whichever worker estimated it
              if (lastFlag !== null && lastFlag.key === r.flag_key) {
                if (lastFlag.direction !== r.near_singular) {
                  if (outFormat === 'ndjson' && bytes) {
                    // this row's line, changed: the bytes before it, then the line, in place of its own
                    text = utf8.decode(bytes.subarray(start, at));
                    if (from < start) sink.write(bytes.subarray(from, start));
                    from = at;
                    text = text.replace(`"near_singular":${JSON.stringify(r.near_singular)}`, `"near_singular":${JSON.stringify(lastFlag.direction)}`);
                  }
                  if (cols) cols.texts[colRow][0] = lastFlag.direction;
                  r.near_singular = lastFlag.direction;
                }
              } else lastFlag = { key: r.flag_key ?? '', direction: r.near_singular };
              if (fromPool) st.flagged.push({ line: r.line, t: r.t, condition: r.condition ?? NaN, direction: r.near_singular });
              if (!state.quiet && printedFlags++ < ROW_MESSAGES) {
                printMessage(`${dataName}:${r.line}: near a singular configuration of the sensor layout (condition ${fmt(r.condition!)} > ${fmt(limit)}): poorly observed: ${r.near_singular}`);
              }
            } else if (r.condition !== undefined) lastFlag = null;
            if (rep) {
              truth.addRow(rep.values, slot * width);
              series?.addRow(r.line, r.t, r.condition ?? NaN, rep.values, slot * width);
              slot++;
            } else if (r.estimate) series?.add(r.line, r.t, r.condition ?? NaN, r.estimate, r.truth);
            if (r.staleness) for (const [k, a] of r.staleness) if (!(a <= (maxStale.get(k) ?? -1))) maxStale.set(k, a);
            if (r.mcap !== undefined) {
              if (mcapOut === null) {
                mcapOut = new McapEstimateWriter(sinkWritable(sink), model);
                await mcapOut.start();
              }
              await (mcapOut as McapEstimateWriter).writeEncoded({ stamp: r.stamp!, line: r.line, condition: r.condition, nearSingular: r.near_singular, staleness: r.staleness }, r.mcap, r.status ?? r.estimate!);
              continue;
            }
            if (cols) { (parquetOut as ParquetEstimateWriter).row(cols.values, colRow * cols.width, cols.texts[colRow]); colRow++; continue; }
            if (csvHeader === null && outFormat === 'csv') {
              // a ROS 2 recording adds the staleness of each channel, in s (last columns)
              for (const k of staleCols ?? []) units.set(`staleness.${k}`, 's');
              csvHeader = [...session.columns(), ...(staleCols ?? []).map((k) => `staleness.${k}`)];
              sink.write(csvHeader.map((h) => csvColumn(h, units)).join(',') + '\n');
            }
            if (text !== '') sink.write(text);
          }
          if (bytes && from < at) sink.write(bytes.subarray(from, at));
          if (b.results.length && st.samples % 50 < b.results.length) progress(b.results[b.results.length - 1].line, total);
        };
        /** the worker threads, from row `from` of the log on */
        const startPool = (from: number) => {
          poolFrom = from;
          // the workers start from the full layout's offline work, and ask for that of any other layout they meet:
          // this thread analyses each layout once for the run, as one job does
          pool = new EstimatePool(jobs, {
            problemFile: resolve(file), ...(plan !== null ? { derivation: plan } : {}), offline: session.offline(), setup: setupFor(), n: es.sys.n, m: es.sys.m,
            options: { condition: opts.condition, conditionLimit: limit, covariance: opts.covariance, layoutCache: cacheSize, confidence: opts.badData ? 1 - falseAlarm : 0 },
          }, (l) => session.layouts.offlineOf(l));
        };
        /** `restart`: a batch of a file's rows, which starts from the initial pivot order (one job; the workers do it themselves) */
        const send = async (part: InputRow[], final: boolean, restart = false) => {
          if (part.length === 0) return;
          if (pool === null && jobs > 1 && !final && poolPays()) startPool(rows - part.length + 1);
          if (pool === null) {
            if (restart && local !== null) (local as RowProcessor).session.restartPivoting();
            local ??= new RowProcessor(session, setupFor());
            const t0 = performance.now();
            for (let o = 0; o < part.length; o += PASS_ROWS) await accept((local as RowProcessor).run(o === 0 && part.length <= PASS_ROWS ? part : part.slice(o, o + PASS_ROWS), false), false);
            const ms = performance.now() - t0;
            localMs += ms; localBatches++; pace = ms / part.length;
            return;
          }
          pending.push(pool.run(part));
          while (pending.length > (final ? 0 : 2 * jobs)) await accept(await pending.shift()!, true);
        };
        // one job: parts that never cross a multiple of BATCH rows, where the pivot order returns to
        // its initial one, as in the workers (the same bytes for any --jobs); jobs: batches of BATCH rows
        const add = async (raw: InputRow) => {
          rows++;
          if (batch.length === 0) partFirst = rows;
          batch.push(raw);
          if (rows % BATCH === 0) { const b = batch; batch = []; await send(b, jobs === 1, partFirst % BATCH === 1); }
        };
        /** a row of the log: estimated as it is, or through the stage in the log's order (parsed here) */
        const addRow = async (raw: InputRow) => {
          if (stage === null) return add(raw);
          const parsed: Sample | LogError = raw.kind === 'sample' ? raw.sample
            : raw.kind === 'error' ? { line: raw.line, message: raw.message }
              : raw.kind === 'csv' ? csvReader!.parse(raw.cells, raw.line) : parseNdjsonLine(schema, raw.text, raw.line);
          stage.push(parsed);
          for (const x of stage.drain()) await add({ kind: 'sample', sample: x });
        };
        /** the end of the log: the samples the stage holds back */
        const endRows = async () => {
          if (stage === null) return;
          stage.end();
          for (const x of stage.drain()) await add({ kind: 'sample', sample: x });
        };
        /** the rows at hand, estimated and written before more is awaited (standard input, one job) */
        const atHand = async () => {
          if (opts.data === '-' && jobs === 1 && batch.length) { const b = batch; batch = []; await send(b, true, partFirst % BATCH === 1); }
        };
        /** the rows left, and every batch in flight */
        const finish = async () => {
          const b = batch;
          batch = [];
          // the last rows go to the workers when they run (which restart the pivot order themselves), else to this thread
          await send(b, true, partFirst % BATCH === 1);
          while (pending.length) await accept(await pending.shift()!, true);
        };
        /** a CSV log's header row: the columns of its rows */
        const takeHeader = (raw: { cells: string[]; line: number }) => {
          try {
            csvReader = new CsvRows(schema, raw.cells, raw.line);
          } catch (e) {
            throw new FileError(`${dataName}: ${(e as Error).message}`);
          }
          for (const c of csvReader.ignored) session.stats.ignored.add(c);
          csvHeaderRow = { cells: raw.cells, line: raw.line };
        };
        /**
         * A text log file with worker threads, whose rows need nothing from the rows before them (no
         * derivatives over time, no contact detection with memory): read in ranges of RANGE_ROWS rows,
         * which the workers read and parse themselves (this thread scans for line breaks); null when
         * the log is read as a stream of rows. A CSV log's header is taken here.
         */
        const rangeScanner = (): RangeScanner | null => {
          if (!(jobs > 1 && opts.data !== '-' && sampler === null && stage === null && (inFormat === 'ndjson' || inFormat === 'csv'))) return null;
          if (process.env.SPARSEDYN_RANGES === '0') return null;
          let st;
          try { st = statSync(opts.data); } catch { return null; }
          if (!st.isFile()) return null;
          const first = peeked.groups.flat()[0];
          if (inFormat === 'csv' && first?.kind !== 'csv') return null;
          const head = Buffer.alloc(3);
          const fd = openSync(opts.data, 'r');
          try { readSync(fd, head, 0, 3, 0); } finally { closeSync(fd); }
          const bom = head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
          const scanner = new RangeScanner(opts.data, inFormat, RANGE_ROWS, bom, 0, 0);
          if (inFormat === 'csv' && first?.kind === 'csv') {
            // the header: the first row, read as the log's reader read it
            const h = scanner.next(1);
            if (h === null || scanner.unsafe !== null || h.rows !== 1 || h.firstLine + h.lines !== first.line) { scanner.close(); return null; }
            takeHeader(first);
          }
          return scanner;
        };
        /** the log in ranges: each range to the workers once they run, else read and estimated here */
        const readRanges = async (scanner: RangeScanner) => {
          readBytes = () => scanner.offset;
          rangesRead = true;
          // the ranges read here share one buffer, as a worker's do (each range's rows are taken before the next is read)
          const scratch: RangeScratch = {};
          for (let r = scanner.next(); r !== null; r = scanner.next()) {
            if (pool === null && jobs > 1 && poolPays()) startPool(rows + 1);
            if (pool === null) {
              for (const raw of readRange(r, scratch)) await add(raw);
              // the event loop turns once a range (the file is read synchronously): a closed standard output is noticed here
              await new Promise<void>((res) => setImmediate(res));
              continue;
            }
            // a range starts where a batch would (rows is a multiple of BATCH: nothing waits in `batch`)
            rows += r.rows;
            pending.push((pool as EstimatePool).run(r));
            while (pending.length > 2 * jobs) await accept(await pending.shift()!, true);
          }
          const u = scanner.unsafe;
          if (u === null) return;
          // a CSV log from its first line with a quote (or a lone carriage return) on: through the log's reader, numbered after the lines before
          const tail = createReadStream(opts.data, { start: u.start, encoding: 'utf8' }) as AsyncIterable<string>;
          for await (const group of logRowBatches(tail, { format: 'csv' })) {
            for (const raw of group) {
              raw.line += u.line;
              if (raw.kind === 'error') raw.message = raw.message.replace(/\bat line (\d+)/g, (_m, n: string) => `at line ${Number(n) + u.line}`);
              await add(raw);
            }
          }
        };
        try {
          const scanner = rangeScanner();
          if (scanner !== null) await readRanges(scanner);
          else {
            // the rows read ahead, then the rest of the log
            const readGroups = async function* (): AsyncGenerator<InputRow[]> {
              yield* peeked.groups;
              if (peeked.ended) return;
              for (let r = await groups.next(); !r.done; r = await groups.next()) yield r.value;
            };
            try {
              for await (const group of readGroups()) {
                // the rows at hand (a chunk of text, or of a recording); from standard input they are estimated
                // and written before more is awaited
                for (const raw of group) {
                  if (raw.kind === 'csv' && csvHeaderRow === null) { takeHeader(raw); continue; }
                  await addRow(raw);
                }
                await atHand();
              }
              await endRows();
            } catch (e) {
              // a recording that cannot be read further: the samples before it are reported first
              if (e instanceof McapLogError) { await endRows(); await finish(); }
              throw e;
            }
          }
          await finish();
        } finally {
          if (pool !== null) await (pool as EstimatePool).close();
        }
        if (total > 0) { progress(total, total); process.stderr.write('\n'); }
        if (mcapOut !== null) await (mcapOut as McapEstimateWriter).end();
        if (parquetOut !== null) (parquetOut as ParquetEstimateWriter).end();
        if (rows === 0) {
          throw new FileError(csvReader ? `${dataName}: the log has a header and no rows` : `${dataName}: the log is empty (no samples)`);
        }
        if (st.samples === 0) {
          // nothing estimated: a failed run, which leaves existing outputs as they were
          if (refuse()) { sink.abort(); return; }
          throw new FileError(`${dataName}: no sample could be estimated (${errors.length} of ${rows} rows skipped${errors.length > ROW_MESSAGES && !state.quiet ? `; the first ${ROW_MESSAGES} reasons are above` : state.quiet ? '' : '; the reasons are above'}); nothing was written${streaming ? '' : `, ${opts.out} is as it was`}${session.sensorHints().map((h) => `; ${h}`).join('')}`);
        }
        // 3. summary, report, then the outputs under their final names
        const method = session.full.estimator ? session.method : 'by contact mode (the layout with every contact is ill posed)';
        const est = session.full.estimator;
        const { samples, flagged, conditions, times, condTimes, badTimes, flops, condFlops, condSetupMs } = st;
        const jointRows = truth.jointRows(), contactRows = truth.contactRows();
        const lines = [
          `estimate: ${file} (model "${model.name}", ${problem.base} base, ${method})`,
          `  unknowns ${es.sys.n}, equations ${es.sys.m}, offline analysis ${est ? est.analyzeMs.toFixed(1) : '—'} ms${cond ? `, typical uncertainties ${condSetupMs.toFixed(0)} ms` : ''}${cache?.offline ? ' (from --cache)' : ''}`,
          `  log ${dataName} (${inFormat ?? 'empty'}): samples estimated ${samples}, rows skipped ${errors.length}${cond ? `, samples flagged near a singular configuration ${flagged.length}` : ''}`,
          `  threads: ${poolFrom > 0 ? `${jobs} worker threads${rangesRead ? ' (reading and parsing their own ranges of the log)' : ''}${poolFrom > 1 ? ` from ${sampler ? 'sample' : 'row'} ${poolFrom} on (${sampler ? 'samples' : 'rows'} 1 to ${poolFrom - 1} in this one)` : ''}` : autoJobs ? `this one (a short log: about ${(localMs / 1000).toFixed(1)} s of work; worker threads pay from about ${minSeconds >= 0 ? minSeconds : POOL_MIN_SECONDS} s)` : jobs > 1 ? `this one (fewer rows than a batch of ${BATCH})` : 'this one'}`,
          `  per sample: ${med(times).toFixed(1)} µs (median), ${samples ? num(flops / samples) : 0} flops${cond && condTimes.length ? `; condition check ${med(condTimes).toFixed(1)} µs, ${num(condFlops / condTimes.length)} flops` : ''}${badTimes.length ? `; bad-data test ${med(badTimes).toFixed(1)} µs (median), ${mean(badTimes).toFixed(1)} µs (mean, with the search for the suspect where the test fires)` : ''}`,
        ];
        if (!state.quiet && (errors.length > ROW_MESSAGES || flagged.length > ROW_MESSAGES)) {
          lines.push(`  (the first ${ROW_MESSAGES} skipped and flagged rows are shown above; ${reportPath !== undefined ? 'all are in the report' : 'give --report FILE for all of them'})`);
        }
        const derivation = timeLines(plan, timeline, peeked.samples[0]);
        for (const l of derivation) lines.push(`  ${l}`);
        for (const l of layoutLines(session, dataName)) lines.push(`  ${l}`);
        const rosLines = sampler && problem.ros ? recordingLines(problem.ros, maxStale) : [];
        for (const l of rosLines) lines.push(`  ${l}`);
        if (cond && conditions.length) lines.push(`  condition figure: median ${fmt(med(conditions))}, largest ${fmt(maxOf(conditions))} (flagged above ${fmt(limit)})`);
        if (truth.samples > 0) {
          lines.push(`  accuracy against the log's truth (${truth.samples} samples):`);
          if (jointRows.length) lines.push(`    joint torques (${jointRows.length}): ${accuracyLine(jointRows)}`);
          for (const r of contactRows) lines.push(`    contact ${r.name}: RMSE ${fmt(r.rmse)} ${r.unit}, max error ${fmt(r.max_error)} ${r.unit}, ${relText(r)}`);
        } else {
          lines.push('  no accuracy figures: the log carries no truth for the estimated joints and contacts');
        }
        const truthWarnings = truth.warnings();
        for (const w of truthWarnings) lines.push(`  warning: ${w}`);
        for (const n of es.notes) if (!state.quiet) lines.push(`  note: ${n}`);
        if (reportPath !== undefined) {
          writeFileAtomic(reportPath, reportMarkdown({
            file, dataName, inFormat, outFormat: outFormat ?? inFormat ?? 'ndjson', model: model.name, base: problem.base, method, es, samples, errors, flagged, limit,
            cond, conditions, times, condTimes, flops, condFlops, jointRows, contactRows, truthSamples: truth.samples,
            warnings: [...warnings.map((w) => w.message), ...truthWarnings], notes: es.notes, analyzeMs: est?.analyzeMs ?? 0, extra: [...derivation, ...rosLines, ...layoutLines(session, dataName)],
          }));
        }
        if (htmlPath !== undefined && series !== null) {
          writeFileAtomic(htmlPath, estimatePage({
            title: file, summary: lines, series, jointRows, contactRows, limit: cond ? limit : null, d3Source: d3MinSource(),
            joints: model.movingJoints().map((j) => ({ name: j.name, type: j.type, units: dofUnits(j).tau })),
            contacts: es.contacts.map((c) => c.link), sensors: es.sensors.filter((x) => x.block >= 0).map((x) => x.spec.name),
          }));
        }
        sink.commit();
        const wrote = [reportPath, htmlPath].filter((x) => x !== undefined);
        lines.push(`  wrote ${sink.name}${wrote.length ? ` and ${wrote.join(' and ')}` : ''}`);
        printMessage(lines.join('\n'));
      } catch (e) {
        sink.abort();
        if (e instanceof McapLogError) throw new FileError(`${dataName}: ${e.message}`);
        throw e;
      }
      state.exitCode = errors.length > 0 ? 3 : 0;
    });
}

function accuracyLine(rows: AccuracyRow[]): string {
  const worst = (rs: AccuracyRow[], k: 'rmse' | 'max_error' | 'max_rel_error') => rs.reduce((a, b) => ((b[k] ?? -1) > (a[k] ?? -1) ? b : a));
  const r = worst(rows, 'rmse'), m = worst(rows, 'max_error');
  // relative: over the rows whose truth is not 0 throughout (those have an absolute error only, named apart)
  const withTruth = rows.filter((x) => x.max_rel_error !== null), zero = rows.filter((x) => x.max_rel_error === null);
  const rel = withTruth.length ? `, ${relText(worst(withTruth, 'max_rel_error'), true)}` : '';
  const abs = zero.length ? `; truth 0 throughout for ${zero.slice(0, 3).map((x) => `${x.name} (max error ${fmt(x.max_error)} ${x.unit})`).join(', ')}${zero.length > 3 ? `, and ${zero.length - 3} more` : ''}, no relative error` : '';
  return `RMSE up to ${fmt(r.rmse)} ${r.unit} (${r.name}), max error ${fmt(m.max_error)} ${m.unit} (${m.name})${rel}${abs}`;
}

/**
 * A row's relative error and what it is relative to: `max rel. error 8.16e-1 (0.193 of at most 0.237 N m)`,
 * with the row's name when `named`; when the truth is 0 throughout, there is none (its max error is absolute).
 */
function relText(r: AccuracyRow, named = false): string {
  if (r.max_rel_error === null) return `no relative error (the truth is 0 throughout${named ? ` for ${r.name}` : ''}; the max error is absolute)`;
  return `max rel. error ${r.max_rel_error.toExponential(2)} (${named ? `${r.name}: ` : ''}${fmt(r.max_error)} of at most ${fmt(r.max_truth)} ${r.unit})`;
}

interface ReportData {
  file: string; dataName: string; inFormat: OutFormat | null; outFormat: OutFormat; model: string; base: string; method: string;
  es: { sys: { n: number; m: number } }; samples: number; errors: LogError[]; flagged: { line: number; t: number; condition: number; direction: string }[];
  limit: number; cond: boolean; conditions: number[]; times: number[]; condTimes: number[]; flops: number; condFlops: number;
  jointRows: AccuracyRow[]; contactRows: AccuracyRow[]; truthSamples: number; warnings: string[]; notes: string[]; analyzeMs: number;
  extra: string[];
}

/**
 * A contact mode in the summary: `l_sole (well posed) 80 rows estimated`, `l_sole+r_sole (ill posed:
 * w[l_sole].fz + w[r_sole].fz, and 5 more directions) 160 rows skipped`, `… (well posed; ill posed
 * without ft_left, ft_right) 150 rows estimated, 10 skipped`.
 */
function modeText(m: ModeSummary): string {
  const words = (v: string) => v.replace(/_/g, ' ');
  let verdict = `${words(m.verdict)}${m.byPriors ? ' with the priors' : ''}`;
  if (m.verdict === 'ill_posed' && m.unobservable.length) verdict += `: ${m.unobservable[0]}${m.unobservable.length > 1 ? `, and ${m.unobservable.length - 1} more direction${m.unobservable.length > 2 ? 's' : ''}` : ''}`;
  for (const p of m.partial) verdict += `; ${words(p.verdict)} without ${p.missing.join(', ')}`;
  const rows = m.estimated && m.skipped ? `${m.estimated} rows estimated, ${m.skipped} skipped` : m.skipped ? `${m.skipped} row${m.skipped > 1 ? 's' : ''} skipped` : `${m.estimated} row${m.estimated > 1 ? 's' : ''} estimated`;
  return `${m.mode} (${verdict}) ${rows}`;
}

/** Summary lines of the layouts met: ignored channels, partial rows, contact modes, offline analyses, quaternions, bad data, implausible values, sensors without readings. */
function layoutLines(session: EstimationSession, dataName: string): string[] {
  const st = session.stats, out: string[] = [];
  if (st.ignored.size) out.push(`note: ${dataName} has ${st.ignored.size === 1 ? 'a channel' : 'channels'} the problem does not use, ignored: ${[...st.ignored].slice(0, 12).join(', ')}${st.ignored.size > 12 ? ', …' : ''} (--strict refuses them)`);
  if (st.maxQuaternionDeviation > 0) out.push(`quaternions renormalised: largest |norm - 1| ${st.maxQuaternionDeviation.toExponential(2)}`);
  if (st.partial) out.push(`samples estimated from the sensors they have (some readings missing): ${st.partial}`);
  const seen = [...session.layouts.seen.values()].filter((l) => l.samples > 0);
  if (seen.length > 1 || st.modes.size > 1) {
    out.push(`layouts met ${seen.length} (sensor subset x contact mode), offline analyses ${session.layouts.analyses}; mode switches ${st.switches}, of which to a layout seen before ${st.switchesToSeen}, costing ${st.analysesAtSeenSwitches} new analyses`);
    out.push(`samples by contact mode: ${[...st.modes].map(([m, n]) => `${m} ${n}`).join(', ')}`);
    // each layout's own verdict (in the order the rows met them)
    for (const l of seen.slice(0, 12)) out.push(`layout ${l.mode} (${l.sensors.join(', ')}): ${l.verdict.replace(/_/g, ' ')}, ${l.samples} samples`);
    if (seen.length > 12) out.push(`… and ${seen.length - 12} more layouts`);
  }
  // each contact mode met, judged on its own: its verdict and its rows estimated and skipped
  const modes = session.modes();
  if (modes.length > 1 || modes.some((m) => m.mode !== session.full.mode)) out.push(`contact modes: ${modes.map(modeText).join('; ')}`);
  for (const l of seen) if (l.priorOnly.length) out.push(`layout ${l.mode} (${l.sensors.join(', ')}): only the priors determine ${l.priorOnly.slice(0, 4).join('; ')}${l.priorOnly.length > 4 ? '; …' : ''}`);
  if (st.badDataTested) {
    const sus = [...st.suspects].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)); // ties by name: the same for any --jobs
    out.push(`bad data (chi-square at confidence ${session.opts.confidence}): ${st.badDataDetected} of ${st.badDataTested} samples flagged (${(100 * st.badDataDetected / st.badDataTested).toFixed(1)}%)${sus.length ? `; suspects: ${sus.map(([n, k]) => `${n} ${k}`).join(', ')}` : ''}${st.badDataAmbiguous ? ` (in ${st.badDataAmbiguous} of them another sensor explains the disagreement about as well: see bad_data.alternatives)` : ''}`);
    const unchecked = new Set(seen.flatMap((l) => l.unchecked));
    if (unchecked.size) out.push(`cannot be checked (their residual is always zero in ${seen.length > 1 ? 'some layouts' : 'this layout'}): ${[...unchecked].join(', ')}`);
  }
  if (st.implausible.size) {
    // by rows, ties by name: the same for any --jobs
    const items = [...st.implausible].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    out.push(`implausible values (beyond the robot file's joint limits or a sensor's range; flagged, never a reason to skip a row): ${items.slice(0, 12).map(([k, n]) => `${k} in ${n} row${n > 1 ? 's' : ''}`).join(', ')}${items.length > 12 ? `, and ${items.length - 12} more` : ''}`);
    for (const [k] of items.slice(0, 6)) {
      const f = st.implausibleFirst.get(k);
      if (f) out.push(`${k}, first at ${dataName}:${f.line}: ${f.message}`);
    }
  }
  for (const h of session.sensorHints()) out.push(h);
  return out;
}

const MAX_REPORT_ROWS = 500;

function reportMarkdown(r: ReportData): string {
  const md = [
    '# Estimation report', '',
    `- problem: \`${r.file}\`, model "${r.model}", ${r.base} base`,
    `- method: ${r.method}; unknowns ${r.es.sys.n}, equations ${r.es.sys.m}; offline analysis ${r.analyzeMs.toFixed(1)} ms`,
    `- log: ${r.dataName} (${r.inFormat ?? 'empty'}); estimates written as ${r.outFormat.toUpperCase()}`,
    `- samples estimated: ${r.samples}; rows skipped: ${r.errors.length}${r.cond ? `; samples flagged near a singular configuration: ${r.flagged.length}` : ''}`,
    `- time per sample: ${med(r.times).toFixed(1)} µs (median); flops per sample: ${r.samples ? num(r.flops / r.samples) : 0}${r.cond && r.condTimes.length ? `; condition check: ${med(r.condTimes).toFixed(1)} µs, ${num(r.condFlops / r.condTimes.length)} flops` : ''}`,
    '',
    '## Units and frames', '',
    '| field | unit | frame |', '|---|---|---|',
    '| `t` | s | — |',
    '| `tau` | N·m (revolute), N (prismatic); floating base [force N; torque N·m] | joint axis; a floating base in its own frame |',
    '| `qdd` | rad/s² (revolute), m/s² (prismatic); floating base [linear m/s²; angular rad/s²] | a floating base in its own frame |',
    '| `contact_wrenches` | torque N·m, force N | wrench of the environment on the contact link, in the link frame, torque about its origin |',
    '| `joint_wrenches` | torque N·m, force N | wrench of the parent on the child across the joint, child link frame, torque about its origin |',
    '| `residuals` | dimensionless | RMS over a sensor\'s readings of residual / standard deviation |',
    '| `condition` | dimensionless | 1-norm of the covariance of the estimated torques, accelerations and contact wrenches, each over its typical standard deviation for this layout |',
    '| `tau_std` | as `tau` | standard deviation of each estimated torque |',
    '',
    '## Accuracy against the log\'s truth', '',
  ];
  if (r.truthSamples === 0) md.push('The log carries no truth for the estimated joints and contacts: no accuracy figure.', '');
  else {
    md.push(`${r.truthSamples} samples with truth. Relative error: the largest error over the largest |truth| of that quantity in the run (none where the truth is 0 throughout).`, '');
    md.push('| quantity | unit | samples | RMSE | max error | max \\|truth\\| | max rel. error |', '|---|---|---:|---:|---:|---:|---:|');
    for (const a of [...r.jointRows, ...r.contactRows]) md.push(`| ${a.name} | ${a.unit} | ${a.samples} | ${fmt(a.rmse)} | ${fmt(a.max_error)} | ${fmt(a.max_truth)} | ${a.max_rel_error === null ? '— (truth 0)' : a.max_rel_error.toExponential(2)} |`);
    md.push('');
  }
  if (r.cond) {
    md.push('## Condition of each estimate', '');
    md.push(`Figure per sample: the estimate's uncertainty relative to its typical value for this layout, 1 at a typical configuration (median ${r.conditions.length ? fmt(med(r.conditions)) : '—'}, largest ${r.conditions.length ? fmt(maxOf(r.conditions)) : '—'}). A sample above ${fmt(r.limit)} is flagged: it is near a singular configuration of the sensor layout, and the direction named is poorly observed there.`, '');
    if (r.flagged.length) {
      md.push('| line | t (s) | condition | poorly observed |', '|---:|---:|---:|---|');
      for (const f of r.flagged.slice(0, MAX_REPORT_ROWS)) md.push(`| ${f.line} | ${f.t} | ${fmt(f.condition)} | ${f.direction} |`);
      if (r.flagged.length > MAX_REPORT_ROWS) md.push(`| … | | | ${r.flagged.length - MAX_REPORT_ROWS} more |`);
    } else md.push('No sample was flagged.');
    md.push('');
  }
  md.push('## Skipped rows', '');
  if (r.errors.length === 0) md.push('None.');
  else {
    for (const e of r.errors.slice(0, MAX_REPORT_ROWS)) md.push(`- ${e.where ?? `line ${e.line}`}: ${e.message}`);
    if (r.errors.length > MAX_REPORT_ROWS) md.push(`- … ${r.errors.length - MAX_REPORT_ROWS} more`);
  }
  md.push('');
  if (r.extra.length) md.push('## Layouts, contact modes, bad data and plausibility', '', ...r.extra.map((w) => `- ${w}`), '');
  if (r.warnings.length) md.push('## Warnings', '', ...r.warnings.map((w) => `- ${w}`), '');
  if (r.notes.length) md.push('## Notes', '', ...r.notes.map((n) => `- ${n}`), '');
  return md.join('\n');
}

async function countLines(path: string): Promise<number> {
  let n = 0;
  for await (const chunk of createReadStream(path)) {
    const b = chunk as Buffer;
    for (let i = 0; i < b.length; i++) if (b[i] === 10) n++;
  }
  return n;
}

/** The data sink as the byte stream the MCAP writer writes to. */
function sinkWritable(sink: { write(data: string | Uint8Array): void }): IWritable {
  let pos = 0n;
  return {
    write: async (b: Uint8Array) => { sink.write(b); pos += BigInt(b.length); },
    position: () => pos,
  };
}

/** the sampling of a ROS 2 recording, and each channel's largest staleness, in words */
function recordingLines(ros: RosMapping, maxStale: Map<string, number>): string[] {
  const clock = 'rate' in ros.clock ? `${ros.clock.rate} Hz` : `the stamps of ${ros.clock.topic}${ros.clock.frame_id ? ` (frame ${ros.clock.frame_id})` : ''}`;
  const out = [`ROS 2 recording: samples at ${clock}, ${ros.values === 'latest' ? 'latest values' : 'interpolated values'}, ${ros.stamps === 'header' ? 'header stamps' : 'log times'}${ros.max_staleness !== undefined ? `, max_staleness ${ros.max_staleness} s` : ''}`];
  if (maxStale.size) out.push(`largest staleness per channel: ${[...maxStale].map(([k, a]) => `${k} ${fmt(a)} s`).join(', ')}`);
  return out;
}

/** the size of a log file (bytes; 0 for standard input, a pipe or a device) */
function fileSize(path: string): number {
  if (path === '-') return 0;
  try {
    const st = statSync(path);
    return st.isFile() ? st.size : 0;
  } catch {
    return 0;
  }
}

/** A ROS 2 recording's samples in groups: those each chunk of bytes completes. */
async function* mcapGroups(sm: McapSampler, bytes: AsyncIterable<Uint8Array>): AsyncGenerator<InputRow[]> {
  const group = (): InputRow[] => sm.drain().map((sample) => ({ kind: 'sample', sample }));
  for await (const chunk of bytes) {
    sm.push(chunk);
    yield group();
  }
  sm.end();
  yield group();
}

/**
 * The log's first groups of rows, read until `want` valid samples (or the end): the groups, to be
 * estimated as any others, and those samples, parsed leniently (a velocity the row does not carry is
 * NaN) to tell what the log carries and its sample rate. A header or row that cannot be parsed here is
 * reported when the rows are estimated.
 */
async function peekSamples(groups: AsyncIterator<InputRow[]>, schema: LogSchema, want: number): Promise<{ groups: InputRow[][]; samples: Sample[]; ended: boolean }> {
  const out = { groups: [] as InputRow[][], samples: [] as Sample[], ended: false };
  let csv: CsvRows | null = null, header = false;
  while (out.samples.length < want) {
    const r = await groups.next();
    if (r.done) { out.ended = true; break; }
    out.groups.push(r.value);
    for (const raw of r.value) {
      let p: Sample | LogError | null = null;
      if (raw.kind === 'sample') p = raw.sample;
      else if (raw.kind === 'ndjson') p = parseNdjsonLine(schema, raw.text, raw.line);
      else if (raw.kind === 'csv') {
        if (!header) {
          header = true;
          try { csv = new CsvRows(schema, raw.cells, raw.line); } catch { csv = null; }
          continue;
        }
        if (csv !== null) p = csv.parse(raw.cells, raw.line);
      }
      if (p !== null && 'q' in p) out.samples.push(p);
    }
  }
  return out;
}

/** Summary lines of the samples' order: what was derived and at what cost, gaps, time going back or repeating, the base's velocity. */
function timeLines(plan: DerivationPlan | null, seq: SampleSequence, first: Sample | undefined): string[] {
  const out: string[] = [];
  const st = seq.stats;
  if (plan !== null) {
    out.push(...describePlan(plan));
    if (st.samples) out.push(`derivatives: ${med(st.times).toFixed(2)} µs per sample (median); ${st.offCentre} samples with a window not centred on them (the ends of the log${st.segments > 1 ? ' and of its stretches between gaps' : ''})${st.short ? `; ${st.short} rows skipped in stretches too short for a fit` : ''}`);
    if (st.shortIntervals) out.push(`warning: ${st.shortIntervals} intervals between rows are shorter than a quarter of the sample period (${fmtSeconds(plan.period)}): stamps of delivery rather than sampling? The fits take the stamps as they are; re-time the rows if the samples are even`);
  }
  const lines = (xs: { line: number }[]) => `${xs.slice(0, 5).map((x) => x.line).join(', ')}${xs.length > 5 ? ', …' : ''}`;
  if (st.gaps.length) out.push(`gaps in time: ${st.gaps.length} (before line${st.gaps.length > 1 ? 's' : ''} ${lines(st.gaps)}; the longest ${fmtSeconds(maxOf(st.gaps.map((g) => g.dt)))}): no fit spans them`);
  for (const b of st.backwards.slice(0, 5)) out.push(`time goes back at line ${b.line} (t = ${b.t} s after ${b.previous} s): the log is split there${plan === null ? '' : ' (no fit spans it)'}`);
  if (st.backwards.length > 5) out.push(`… time goes back ${st.backwards.length - 5} more times`);
  if (st.repeats.length) out.push(`rows repeating the previous row's time: ${st.repeats.length} (line${st.repeats.length > 1 ? 's' : ''} ${lines(st.repeats)})${plan === null ? ', estimated all the same' : ', skipped'}`);
  if (first?.noBaseVelocity) out.push('the log carries no linear velocity of the base: estimated at zero linear velocity (joint torques and contact wrenches do not depend on a uniform velocity; the base\'s estimated linear acceleration is that of its origin, in its frame)');
  return out;
}

const fmtSeconds = (s: number): string => (s < 1 ? `${(s * 1000).toPrecision(3)} ms` : `${s.toPrecision(3)} s`);

/**
 * The key-value metadata of a Parquet file of estimates: what wrote it, from what, each column's unit
 * and the frames of the wrenches (the NDJSON schema's words).
 */
function parquetMetadata(model: { name: string }, problemFile: string, units: Map<string, string>, session: EstimationSession): Record<string, string> {
  const cols = session.typedColumns().map((c) => c.name);
  return {
    'sparsedyn.version': '0.1.0',
    'sparsedyn.problem': problemFile,
    'sparsedyn.model': model.name,
    'sparsedyn.units': JSON.stringify(Object.fromEntries(cols.map((c) => [c, unitOf(c, units)]).filter(([, u]) => u !== ''))),
    'sparsedyn.frames': 'contact.<link>.*: the wrench the environment applies on the link, in the link\'s frame, torque about its origin; '
      + 'wrench.<joint>.*: the wrench the parent applies on the child across the joint, in the child link\'s frame, torque about its origin; '
      + 'tx ty tz: torque (N m), fx fy fz: force (N); qdd: joint accelerations; residual.<sensor>: the root mean square over the sensor\'s readings of residual / standard deviation',
  };
}

/** A Parquet log's rows by row group (as the cells of a CSV log), its errors named with the log. */
async function* parquetGroups(path: string, dataName: string): AsyncGenerator<InputRow[]> {
  const { asyncBufferFromFile } = await import('hyparquet');
  try {
    yield* parquetRows(await asyncBufferFromFile(path));
  } catch (e) {
    if (e instanceof ParquetLogError) throw new FileError(`${dataName}: ${e.message}`);
    throw e;
  }
}

/**
 * How the offline work a --cache file holds is computed: a new number when that changes, so that a
 * file written by an earlier build is not read (2: the condition figure's calibration solves without
 * the refinement step).
 */
const OFFLINE_REVISION = 2;

/**
 * The file of --cache DIR for this run (its name a SHA-256 of the problem file, the model file, the
 * derivation plan, the options that shape the offline work, the version and OFFLINE_REVISION), and
 * its offline work when an earlier run wrote it (undefined when absent or unreadable).
 */
function offlineCache(dir: string, problemFile: string, modelFile: string | undefined, plan: DerivationPlan | null, options: object): { path: string; offline?: LayoutOffline[] } {
  const h = createHash('sha256');
  h.update(JSON.stringify({ version: '0.1.0', revision: OFFLINE_REVISION, node: process.versions.node, plan, options }));
  h.update(readFileSync(problemFile));
  if (modelFile !== undefined) { try { h.update(readFileSync(modelFile)); } catch { /* a generated model: its spec is in the problem file */ } }
  const path = join(dir, `offline-${h.digest('hex').slice(0, 32)}.json`);
  let offline: LayoutOffline[] | undefined;
  try {
    const x = JSON.parse(readFileSync(path, 'utf8')) as unknown;
    if (Array.isArray(x)) offline = x as LayoutOffline[];
  } catch { /* not there yet, or unreadable: done again */ }
  return { path, ...(offline ? { offline } : {}) };
}
