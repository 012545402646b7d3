/**
 * `sparsedyn estimate PROBLEM.json --data LOG --out FILE`: estimate every unknown (joint torques,
 * contact and joint wrenches, accelerations) sample after sample from a sensor log (NDJSON or CSV),
 * with one offline ordering and one refactorization per sample. Malformed rows are reported with
 * their line number and skipped (exit code 3); an ill-posed problem is refused (exit code 1).
 */
import { createReadStream, mkdirSync, writeFileSync, createWriteStream } from 'node:fs';
import { dirname, extname } from 'node:path';
import { createInterface } from 'node:readline';
import type { Command } from 'commander';
import { analyzeProblem } from '../../estimation/analysis.ts';
import { Estimator } from '../../estimation/estimator.ts';
import { CsvRows, LogSchema, parseNdjsonLine, type LogError, type Sample } from '../../io/log.ts';
import { compareWithTruth, flatten, namedEstimate } from '../../estimation/outputs.ts';
import { loadProblem } from '../../node/problem-file.ts';
import { buildEstimationSystem } from '../../estimation/setup.ts';
import { inputsFromReadings } from '../../estimation/synthesize.ts';
import { formatAnalysis } from './analyze.ts';
import type { CliState } from './index.ts';

interface Opts { data: string; out: string; report?: string; covariance?: boolean; quiet?: boolean }

function progress(done: number, total: number): void {
  if (!process.stderr.isTTY) return;
  const w = 30, f = total > 0 ? Math.min(1, done / total) : 0;
  process.stderr.write(`\r[${'#'.repeat(Math.round(f * w)).padEnd(w)}] ${(100 * f).toFixed(0).padStart(3)}% ${done}/${total}`);
}

export function register(program: Command, state: CliState): void {
  program
    .command('estimate')
    .argument('<problem>', 'problem file (JSON)')
    .description('estimate joint torques, contact and joint wrenches and accelerations from a sensor log')
    .requiredOption('-d, --data <log>', 'sensor log: NDJSON (.ndjson, .jsonl) or CSV (.csv), one sample per line')
    .requiredOption('-o, --out <file>', 'estimates, one per sample: NDJSON, or CSV when the name ends in .csv')
    .option('--report <file>', 'summary report (markdown; default: <out>.report.md)')
    .option('--covariance', 'add the standard deviation of each estimated torque (redundant layouts)')
    .option('-q, --quiet', 'no per-row messages for skipped rows (the count is still printed)')
    .action(async (file: string, opts: Opts) => {
      const { problem, model } = loadProblem(file);
      const es = buildEstimationSystem(model, problem);
      const check = analyzeProblem(es, { random: 2, special: 0, redundancy: false });
      if (check.verdict === 'ill_posed') {
        process.stdout.write(formatAnalysis(check, `estimate: ${file} is ill posed; refusing to estimate`));
        state.exitCode = 1;
        return;
      }
      const est = new Estimator(es);
      const schema = new LogSchema(es);
      const csvOut = extname(opts.out).toLowerCase() === '.csv';
      const csvIn = extname(opts.data).toLowerCase() === '.csv';
      mkdirSync(dirname(opts.out) || '.', { recursive: true });
      const out = createWriteStream(opts.out);
      let csvHeader: string[] | null = null;
      let csvReader: CsvRows | null = null;
      const errors: LogError[] = [];
      const times: number[] = [];
      let flops = 0, samples = 0, lineNo = 0, worstTau = 0, worstContact = 0, truthSamples = 0;
      const y = new Float64Array(es.sys.ny);
      const total = process.stderr.isTTY ? await countLines(opts.data) : 0;
      const rl = createInterface({ input: createReadStream(opts.data), crlfDelay: Infinity });
      for await (const text of rl) {
        lineNo++;
        if (text.trim() === '') continue;
        let parsed: Sample | LogError;
        if (csvIn) {
          if (csvReader === null) { csvReader = new CsvRows(schema, text, lineNo); continue; }
          parsed = csvReader.parse(text, lineNo);
        } else parsed = parseNdjsonLine(schema, text, lineNo);
        if ('message' in parsed) {
          errors.push(parsed);
          if (!opts.quiet) process.stderr.write(`${opts.data}:${parsed.line}: skipped: ${parsed.message}\n`);
          continue;
        }
        let named;
        try {
          inputsFromReadings(es, parsed.readings, y);
          const t0 = performance.now();
          const d = est.estimate(parsed.q, parsed.v, y);
          times.push((performance.now() - t0) * 1000);
          named = namedEstimate(es, est, d, opts.covariance);
        } catch (e) {
          const err = { line: lineNo, message: `${(e as Error).name}: ${(e as Error).message}` };
          errors.push(err);
          if (!opts.quiet) process.stderr.write(`${opts.data}:${lineNo}: skipped: ${err.message}\n`);
          continue;
        }
        samples++;
        flops += est.totalFlops().total;
        const acc = compareWithTruth(named, parsed.truth);
        if (acc.tau !== undefined) { truthSamples++; worstTau = Math.max(worstTau, acc.tau); }
        if (acc.contact !== undefined) worstContact = Math.max(worstContact, acc.contact);
        if (csvOut) {
          const flat = flatten(named);
          if (csvHeader === null) { csvHeader = ['t', 'line', ...flat.keys()]; out.write(csvHeader.join(',') + '\n'); }
          out.write([parsed.t, parsed.line, ...csvHeader.slice(2).map((k) => flat.get(k))].join(',') + '\n');
        } else {
          out.write(JSON.stringify({ t: parsed.t, line: parsed.line, ...named }) + '\n');
        }
        if (samples % 50 === 0) progress(lineNo, total);
      }
      progress(total, total);
      if (process.stderr.isTTY) process.stderr.write('\n');
      await new Promise<void>((res) => out.end(res));
      times.sort((a, b) => a - b);
      const med = times.length ? times[times.length >> 1] : 0;
      const lines = [
        `estimate: ${file} (model "${model.name}", ${problem.base} base, ${est.mode === 'square' ? 'square system, sparse LU' : 'redundant sensors, weighted least squares'})`,
        `  unknowns ${es.sys.n}, equations ${es.sys.m}, offline analysis ${est.analyzeMs.toFixed(1)} ms`,
        `  samples estimated ${samples}, rows skipped ${errors.length}`,
        `  per sample: ${med.toFixed(1)} µs (median), ${samples ? Math.round(flops / samples) : 0} flops`,
      ];
      if (truthSamples > 0) {
        lines.push(`  accuracy against the log's truth: joint torques max rel. error ${worstTau.toExponential(2)}, contact wrenches ${worstContact.toExponential(2)}`);
      }
      for (const n of es.notes) lines.push(`  note: ${n}`);
      lines.push(`  wrote ${opts.out}`);
      const reportPath = opts.report ?? `${opts.out.replace(/\.(ndjson|jsonl|csv)$/i, '')}.report.md`;
      const md = [
        `# Estimation report`, '',
        `- problem: \`${file}\`, model "${model.name}", ${problem.base} base`,
        `- method: ${est.mode === 'square' ? 'square system, permuted sparse LU' : 'weighted least squares (augmented system, sparse LU)'}`,
        `- unknowns ${es.sys.n}, equations ${es.sys.m}; offline analysis ${est.analyzeMs.toFixed(1)} ms`,
        `- samples estimated: ${samples}; rows skipped: ${errors.length}`,
        `- time per sample: ${med.toFixed(1)} µs (median); flops per sample: ${samples ? Math.round(flops / samples) : 0}`,
        ...(truthSamples > 0 ? [`- accuracy against the log's truth (${truthSamples} samples): joint torques max relative error ${worstTau.toExponential(2)}, contact wrenches ${worstContact.toExponential(2)}`] : []),
        ...(errors.length ? ['', '## Skipped rows', '', ...errors.slice(0, 50).map((e) => `- line ${e.line}: ${e.message}`)] : []),
        '',
      ].join('\n');
      writeFileSync(reportPath, md);
      lines.push(`  wrote ${reportPath}`);
      process.stdout.write(lines.join('\n') + '\n');
      state.exitCode = errors.length > 0 ? 3 : 0;
    });
}

async function countLines(path: string): Promise<number> {
  let n = 0;
  const rl = createInterface({ input: createReadStream(path), crlfDelay: Infinity });
  for await (const _ of rl) n++;
  return n;
}
