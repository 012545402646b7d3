/**
 * `sparsedyn estimate PROBLEM.json --data LOG --out FILE`: estimate every unknown (joint torques,
 * contact and joint wrenches, accelerations) sample after sample from a sensor log (NDJSON or CSV,
 * read from the content), with one offline ordering and one refactorization per sample.
 * Files: every input is checked before any output is touched, an output that is an input is
 * refused, outputs are written beside their final name and renamed at the end (an interrupted run
 * leaves the old files). Streams: "-" is standard input or output; stdout carries estimates only.
 * Every sample is checked: rows whose inputs or results are not finite are skipped with the reason
 * (exit code 3); each estimate carries its condition figure (src/estimation/conditioning.ts), and
 * above --condition-limit the sample is flagged as near a singular configuration of the sensor
 * layout, with the direction that is poorly observed. An ill-posed problem is refused (exit 1).
 */
import { createReadStream } from 'node:fs';
import type { IWritable } from '@mcap/core';
import { Option, type Command } from 'commander';
import { analyzeProblem, directionsAt } from '../../estimation/analysis.ts';
import { EstimateConditioning } from '../../estimation/conditioning.ts';
import { Estimator } from '../../estimation/estimator.ts';
import { columnUnits, csvColumn, flatten, namedEstimate, TruthComparison, type AccuracyRow, type NamedEstimate } from '../../estimation/outputs.ts';
import { inputsFromReadings } from '../../estimation/synthesize.ts';
import { CsvRows, LogSchema, parseNdjsonLine, type LogError, type Sample } from '../../io/log.ts';
import { logRows, type AnyLogFormat, type RawRow } from '../../io/log-reader.ts';
import { McapEstimateWriter, secondsToNs } from '../../io/mcap-estimates.ts';
import { McapLogError, McapSampler, mcapSamples } from '../../io/mcap-log.ts';
import { openLogSource } from '../../node/log-source.ts';
import { loadEstimationSystem } from '../../node/problem-file.ts';
import { SingularPivotError } from '../../sparse/errors.ts';
import { checkInputFile, FileError, openDataSink, printMessage, refuseOverwritingInputs, reportModelWarnings, writeFileAtomic } from '../output.ts';
import { formatAnalysis } from './analyze.ts';
import type { CliState } from './index.ts';

interface Opts {
  data: string;
  out: string;
  report?: string;
  format?: AnyLogFormat;
  covariance?: boolean;
  conditionLimit: string;
  condition: boolean;
}

/** the default limit of the condition figure (see the README: measured distributions) */
export const DEFAULT_CONDITION_LIMIT = 10;

/** per-row messages printed on stderr before they are only counted (all are in the report) */
const ROW_MESSAGES = 20;

export const ESTIMATE_HELP = `Units and frames: t in s; tau in N m (revolute joints) or N (prismatic), a floating base's
[force; torque] in its own frame; qdd in rad/s^2 or m/s^2; contact_wrenches: the wrench the
environment applies on each contact link, in the link's frame, torque about its origin (N m, N);
joint_wrenches: the wrench the parent applies on the child, in the child link's frame; residuals:
RMS of each sensor's residual over its standard deviation; condition: the estimate's uncertainty
relative to its typical value for the layout (1 at a typical configuration; a sample above
--condition-limit, default 10, is flagged as near a singular configuration of the layout). CSV
headers name each column "<name> [<unit>]". NDJSON rows follow schemas/estimates.schema.json.
Exit codes: 0 all rows estimated, 3 some rows skipped (reasons on stderr and in the report),
1 ill-posed problem, 2 unusable input or output (nothing written).`;

function progress(done: number, total: number): void {
  if (!process.stderr.isTTY) return;
  const w = 30, f = total > 0 ? Math.min(1, done / total) : 0;
  process.stderr.write(`\r[${'#'.repeat(Math.round(f * w)).padEnd(w)}] ${(100 * f).toFixed(0).padStart(3)}% ${done}/${total}`);
}

const med = (a: number[]): number => {
  if (a.length === 0) return NaN;
  const s = [...a].sort((x, y) => x - y);
  return s[s.length >> 1];
};
const fmt = (x: number, d = 3): string => Number.isInteger(x) && Math.abs(x) < 1e5 ? String(x) : (Math.abs(x) >= 1e5 || (Math.abs(x) < 1e-2 && x !== 0) ? x.toExponential(d - 1) : x.toPrecision(d));
const num = (x: number): string => Math.round(x).toLocaleString('en-US');

export function register(program: Command, state: CliState): void {
  program
    .command('estimate')
    .argument('<problem>', 'problem file (JSON, schemas/problem.schema.json)')
    .description('estimate joint torques, contact and joint wrenches and accelerations from a sensor log')
    .requiredOption('-d, --data <log>', 'sensor log ("-" reads standard input): NDJSON or CSV, one sample per row, or a ROS 2 recording (MCAP, its topics mapped by the problem\'s "ros" section); the format is read from the content')
    .requiredOption('-o, --out <file>', 'estimates, one per sample (NDJSON, CSV or MCAP); "-" writes standard output')
    .addOption(new Option('--format <format>', 'format of the estimates (default: mcap for a .mcap --out; else the log\'s, for an MCAP log the --out extension .csv or .ndjson)').choices(['ndjson', 'csv', 'mcap']))
    .option('--report <file>', 'report (Markdown); default <out>.report.md beside a file --out, none when --out is "-"')
    .option('--covariance', 'add the standard deviation of each estimated torque (tau_std; redundant layouts)')
    .option('--condition-limit <x>', 'flag a sample whose condition figure exceeds x (near a singular configuration of the layout)', String(DEFAULT_CONDITION_LIMIT))
    .option('--no-condition', 'skip the per-sample condition check (faster; no sample is flagged)')
    .addHelpText('after', `\n${ESTIMATE_HELP}\n`)
    .action(async (file: string, opts: Opts) => {
      const limit = Number(opts.conditionLimit);
      if (!(limit > 0 && Number.isFinite(limit)) || !/^[0-9.eE+]+$/.test(opts.conditionLimit)) throw new FileError(`--condition-limit must be a positive decimal number, got "${opts.conditionLimit}"`);
      // 1. inputs, before any output is touched
      const dataName = opts.data === '-' ? 'standard input' : opts.data;
      checkInputFile('problem file', file);
      if (opts.data !== '-') checkInputFile('log', opts.data);
      const { problem, model, modelFile, es } = loadEstimationSystem(file);
      const warnings = reportModelWarnings(state, model);
      const reportPath = opts.report ?? (opts.out === '-' ? undefined : `${opts.out.replace(/\.(ndjson|jsonl|json|csv|mcap)$/i, '')}.report.md`);
      refuseOverwritingInputs([['--out', opts.out], ['--report', reportPath]], [['problem file', file], ['model', modelFile], ['log', opts.data]]);
      if (opts.report === '-') throw new FileError('--report must name a file (the report is never written to standard output)');
      const check = analyzeProblem(es, { random: 2, special: 0, redundancy: false });
      if (check.verdict === 'ill_posed') {
        printMessage(formatAnalysis(check, `estimate: ${file} is ill posed; refusing to estimate`));
        state.exitCode = 1;
        return;
      }
      const est = new Estimator(es);
      const t0 = performance.now();
      const cond = opts.condition ? new EstimateConditioning(est) : null;
      const condSetupMs = performance.now() - t0;
      const schema = new LogSchema(es);
      const units = columnUnits(model);
      const truth = new TruthComparison(model);
      // the log's first bytes: a ROS 2 recording (MCAP) is checked against the problem's "ros" section now
      let source: Awaited<ReturnType<typeof openLogSource>>;
      try {
        source = await openLogSource(opts.data);
      } catch (e) {
        throw new FileError(`${dataName}: cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
      }
      let sampler: McapSampler | null = null;
      if (source.mcap) {
        if (!problem.ros) throw new FileError(`${dataName} is a ROS 2 recording (MCAP): ${file} needs a "ros" section that maps its topics to the joints, the base and the sensors (see the README, "ROS 2 recordings")`);
        try {
          sampler = new McapSampler(schema, problem.ros);
        } catch (e) {
          if (e instanceof McapLogError) throw new FileError(`${file}: "ros": ${e.message}`);
          throw e;
        }
      }
      if (!opts.format && /\.mcap$/i.test(opts.out)) opts.format = 'mcap';
      if (!opts.format && sampler) opts.format = /\.csv$/i.test(opts.out) ? 'csv' : /\.(ndjson|jsonl|json)$/i.test(opts.out) ? 'ndjson' : 'mcap';
      // 2. the run; outputs under temporary names until the end
      const sink = openDataSink(opts.out);
      let mcapOut: McapEstimateWriter | null = null;
      const errors: LogError[] = [];
      const flagged: { line: number; t: number; condition: number; direction: string }[] = [];
      const times: number[] = [], condTimes: number[] = [], conditions: number[] = [];
      let flops = 0, condFlops = 0, samples = 0, rows = 0, printed = 0, printedFlags = 0;
      let inFormat: AnyLogFormat | null = sampler ? 'mcap' : null;
      let outFormat: AnyLogFormat | null = opts.format ?? null;
      let csvReader: CsvRows | null = null;
      let csvHeader: string[] | null = null;
      let run: { key: string; direction: string } | null = null;
      const y = new Float64Array(es.sys.ny);
      const skip = (line: number, message: string, where?: string) => {
        errors.push(where !== undefined ? { line, message, where } : { line, message });
        if (!state.quiet && printed++ < ROW_MESSAGES) printMessage(`${dataName}:${where !== undefined ? ` ${where}:` : `${line}:`} skipped: ${message}`);
      };
      async function* rawRows(): AsyncGenerator<RawRow | { kind: 'parsed'; row: Sample | LogError }> {
        if (sampler) {
          for await (const row of mcapSamples(source.bytes, schema, problem.ros, sampler)) yield { kind: 'parsed', row };
        } else yield* logRows(source.text, { onFormat: (f) => { inFormat = f; } });
      }
      try {
        const total = process.stderr.isTTY && !state.quiet && opts.data !== '-' && !sampler ? await countLines(opts.data) : 0;
        for await (const raw of rawRows()) {
          if (raw.kind === 'error') { rows++; skip(raw.line, raw.message); continue; }
          let parsed: Sample | LogError;
          if (raw.kind === 'parsed') {
            rows++;
            parsed = raw.row;
          } else if (raw.kind === 'csv') {
            if (csvReader === null) {
              try {
                csvReader = new CsvRows(schema, raw.cells, raw.line);
              } catch (e) {
                throw new FileError(`${dataName}: ${(e as Error).message}`);
              }
              continue;
            }
            rows++;
            parsed = csvReader.parse(raw.cells, raw.line);
          } else {
            rows++;
            parsed = parseNdjsonLine(schema, raw.text, raw.line);
          }
          if ('message' in parsed) { skip(parsed.line, parsed.message, parsed.where); continue; }
          const s = parsed;
          // estimate; a singular sample is named in the layout's words
          let d: Float64Array;
          try {
            inputsFromReadings(es, s.readings, y);
            const ta = performance.now();
            d = est.estimate(s.q, s.v, y);
            times.push((performance.now() - ta) * 1000);
          } catch (e) {
            if (e instanceof SingularPivotError) {
              const at = directionsAt(es, s.q);
              skip(s.line, `singular configuration of the sensor layout: ${at.directions.join('; ') || 'a combination of the unknowns'} ${at.directions.length > 1 ? 'are' : 'is'} not observed here (no estimate)`);
            } else if (e instanceof RangeError && /finite/.test(e.message)) {
              skip(s.line, `the inputs give values that are not finite (${largestInput(s)})`);
            } else if (e instanceof RangeError) {
              skip(s.line, e.message);
            } else throw e;
            continue;
          }
          if (!allFinite(d) || !allFinite(est.residual)) {
            skip(s.line, `the estimate is not finite: the inputs are out of range (${largestInput(s)})`);
            continue;
          }
          let condition = NaN, direction: string | undefined;
          if (cond) {
            const tc = performance.now();
            cond.update();
            condition = cond.value;
            condTimes.push((performance.now() - tc) * 1000);
            condFlops += cond.flops.mul + cond.flops.add + cond.flops.div;
            if (!(condition <= limit)) {
              // one analysis per run of flagged samples with the same dominant outputs
              const key = cond.dominant().slice(0, 3).sort().join(',');
              if (run === null || run.key !== key) {
                const at = directionsAt(es, s.q);
                run = { key, direction: at.directions.join('; ') };
              }
              direction = run.direction;
              flagged.push({ line: s.line, t: s.t, condition, direction });
              if (!state.quiet && printedFlags++ < ROW_MESSAGES) {
                printMessage(`${dataName}:${s.line}: near a singular configuration of the sensor layout (condition ${fmt(condition)} > ${fmt(limit)}): poorly observed: ${direction}`);
              }
            } else run = null;
          }
          const named = namedEstimate(es, est, d, opts.covariance);
          if (!namedFinite(named)) {
            skip(s.line, `the estimate is not finite: the inputs are out of range (${largestInput(s)})`);
            continue;
          }
          if (cond && Number.isFinite(condition)) conditions.push(condition);
          samples++;
          flops += est.totalFlops().total;
          truth.add(named, s.truth);
          outFormat ??= inFormat ?? 'ndjson';
          if (outFormat === 'mcap') {
            if (mcapOut === null) {
              mcapOut = new McapEstimateWriter(sinkWritable(sink), model);
              await mcapOut.start();
            }
            await mcapOut.write({ stamp: s.stamp ?? secondsToNs(s.t), line: s.line, condition: cond ? condition : undefined, nearSingular: direction, staleness: s.staleness }, named);
          } else if (outFormat === 'csv') {
            const flat = flatten(named);
            if (s.staleness) for (const [k, a] of s.staleness) { flat.set(`staleness.${k}`, a); units.set(`staleness.${k}`, 's'); }
            if (csvHeader === null) {
              csvHeader = ['t', 'line', ...(cond ? ['condition', 'flagged'] : []), ...flat.keys()];
              sink.write(csvHeader.map((h) => csvColumn(h, units)).join(',') + '\n');
            }
            const lead = [s.t, s.line, ...(cond ? [condition, direction !== undefined ? 1 : 0] : [])];
            sink.write([...lead, ...csvHeader.slice(lead.length).map((k) => flat.get(k))].join(',') + '\n');
          } else {
            const head: Record<string, unknown> = { t: s.t, line: s.line };
            if (cond) head.condition = condition;
            if (direction !== undefined) head.near_singular = direction;
            if (s.staleness) head.staleness = Object.fromEntries(s.staleness);
            sink.write(JSON.stringify({ ...head, ...named }) + '\n');
          }
          if (samples % 50 === 0) progress(s.line, total);
        }
        if (total > 0) { progress(total, total); process.stderr.write('\n'); }
        if (mcapOut !== null) await mcapOut.end();
        if (rows === 0) {
          throw new FileError(csvReader ? `${dataName}: the log has a header and no rows` : `${dataName}: the log is empty (no samples)`);
        }
        // 3. summary, report, then the outputs under their final names
        const method = est.mode === 'square' ? 'square system, permuted sparse LU' : 'redundant sensors, weighted least squares (augmented system, sparse LU)';
        const jointRows = truth.jointRows(), contactRows = truth.contactRows();
        const lines = [
          `estimate: ${file} (model "${model.name}", ${problem.base} base, ${method})`,
          `  unknowns ${es.sys.n}, equations ${es.sys.m}, offline analysis ${est.analyzeMs.toFixed(1)} ms${cond ? `, typical uncertainties ${condSetupMs.toFixed(0)} ms` : ''}`,
          `  log ${dataName} (${inFormat ?? 'empty'}): samples estimated ${samples}, rows skipped ${errors.length}${cond ? `, samples flagged near a singular configuration ${flagged.length}` : ''}`,
          `  per sample: ${med(times).toFixed(1)} µs (median), ${samples ? num(flops / samples) : 0} flops${cond && condTimes.length ? `; condition check ${med(condTimes).toFixed(1)} µs, ${num(condFlops / condTimes.length)} flops` : ''}`,
        ];
        if (!state.quiet && (errors.length > ROW_MESSAGES || flagged.length > ROW_MESSAGES)) {
          lines.push(`  (the first ${ROW_MESSAGES} skipped and flagged rows are shown above; ${reportPath !== undefined ? 'all are in the report' : 'give --report FILE for all of them'})`);
        }
        if (cond && conditions.length) lines.push(`  condition figure: median ${fmt(med(conditions))}, largest ${fmt(Math.max(...conditions))} (flagged above ${fmt(limit)})`);
        if (truth.samples > 0) {
          lines.push(`  accuracy against the log's truth (${truth.samples} samples):`);
          if (jointRows.length) lines.push(`    joint torques (${jointRows.length}): ${accuracyLine(jointRows)}`);
          for (const r of contactRows) lines.push(`    contact ${r.name}: RMSE ${fmt(r.rmse)} ${r.unit}, max error ${fmt(r.max_error)} ${r.unit}, max rel. error ${r.max_rel_error.toExponential(2)}`);
        } else {
          lines.push('  no accuracy figures: the log carries no truth for the estimated joints and contacts');
        }
        const truthWarnings = truth.warnings();
        for (const w of truthWarnings) lines.push(`  warning: ${w}`);
        for (const n of es.notes) if (!state.quiet) lines.push(`  note: ${n}`);
        if (reportPath !== undefined) {
          writeFileAtomic(reportPath, reportMarkdown({
            file, dataName, inFormat, outFormat: outFormat ?? inFormat ?? 'ndjson', model: model.name, base: problem.base, method, es, samples, errors, flagged, limit,
            cond: cond !== null, conditions, times, condTimes, flops, condFlops, jointRows, contactRows, truthSamples: truth.samples,
            warnings: [...warnings.map((w) => w.message), ...truthWarnings], notes: es.notes, analyzeMs: est.analyzeMs,
          }));
        }
        sink.commit();
        lines.push(`  wrote ${sink.name}${reportPath !== undefined ? ` and ${reportPath}` : ''}`);
        printMessage(lines.join('\n'));
      } catch (e) {
        sink.abort();
        if (e instanceof McapLogError) throw new FileError(`${dataName}: ${e.message}`);
        throw e;
      }
      state.exitCode = errors.length > 0 ? 3 : 0;
    });
}

function allFinite(x: Float64Array): boolean {
  for (let k = 0; k < x.length; k++) if (!(x[k] - x[k] === 0)) return false;
  return true;
}

function namedFinite(e: NamedEstimate): boolean {
  let ok = true;
  JSON.stringify(e, (_k, v) => { if (typeof v === 'number' && !Number.isFinite(v)) ok = false; return v; });
  return ok;
}

/** the input of largest magnitude of a sample, named (a hint for values out of range) */
function largestInput(s: Sample): string {
  let best = 0, name = '';
  s.q.forEach((x, k) => { if (Math.abs(x) > best) { best = Math.abs(x); name = `q[${k}]`; } });
  s.v.forEach((x, k) => { if (Math.abs(x) > best) { best = Math.abs(x); name = `v[${k}]`; } });
  for (const [sn, r] of s.readings) r.forEach((x, k) => { if (Math.abs(x) > best) { best = Math.abs(x); name = `sensor "${sn}" reading ${k + 1}`; } });
  return name ? `largest input: ${name} = ${best.toExponential(3)}` : 'no input';
}

function accuracyLine(rows: AccuracyRow[]): string {
  const worst = (k: 'rmse' | 'max_error' | 'max_rel_error') => rows.reduce((a, b) => (b[k] > a[k] ? b : a));
  const r = worst('rmse'), m = worst('max_error'), rel = worst('max_rel_error');
  return `RMSE up to ${fmt(r.rmse)} ${r.unit} (${r.name}), max error ${fmt(m.max_error)} ${m.unit} (${m.name}), max rel. error ${rel.max_rel_error.toExponential(2)} (${rel.name})`;
}

interface ReportData {
  file: string; dataName: string; inFormat: AnyLogFormat | null; outFormat: AnyLogFormat; model: string; base: string; method: string;
  es: { sys: { n: number; m: number } }; samples: number; errors: LogError[]; flagged: { line: number; t: number; condition: number; direction: string }[];
  limit: number; cond: boolean; conditions: number[]; times: number[]; condTimes: number[]; flops: number; condFlops: number;
  jointRows: AccuracyRow[]; contactRows: AccuracyRow[]; truthSamples: number; warnings: string[]; notes: string[]; analyzeMs: number;
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
    md.push(`${r.truthSamples} samples with truth. Relative error: the largest error over the largest |truth| of that quantity in the run.`, '');
    md.push('| quantity | unit | samples | RMSE | max error | max rel. error |', '|---|---|---:|---:|---:|---:|');
    for (const a of [...r.jointRows, ...r.contactRows]) md.push(`| ${a.name} | ${a.unit} | ${a.samples} | ${fmt(a.rmse)} | ${fmt(a.max_error)} | ${a.max_rel_error.toExponential(2)} |`);
    md.push('');
  }
  if (r.cond) {
    md.push('## Condition of each estimate', '');
    md.push(`Figure per sample: the estimate's uncertainty relative to its typical value for this layout, 1 at a typical configuration (median ${r.conditions.length ? fmt(med(r.conditions)) : '—'}, largest ${r.conditions.length ? fmt(Math.max(...r.conditions)) : '—'}). A sample above ${fmt(r.limit)} is flagged: it is near a singular configuration of the sensor layout, and the direction named is poorly observed there.`, '');
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
