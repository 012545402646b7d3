/**
 * `sparsedyn study CONFIG.json [--out DIR] [--no-timing] [--quiet]`: run a flop-count and timing
 * study (src/study) and write its points (CSV, JSON), its self-contained HTML report, one SVG per
 * chart and the spy plot into DIR (default reports/<name>/). A progress bar on a terminal. A solver
 * that throws on a point is recorded as a failed point (with the error) and the run goes on; the
 * exit code is then 1.
 * Source: the project's study pages.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import { writeStudy } from '../../report/write-study.ts';
import { parseStudyConfig, StudyConfigError, studyModelFiles } from '../../study/config.ts';
import { runStudy } from '../../study/runner.ts';
import { reportModelWarnings } from '../output.ts';
import type { CliState } from '../state.ts';

interface StudyCliOptions {
  out?: string;
  timing: boolean;
  quiet?: boolean;
}

/** A one-line progress bar on a TTY (stderr); on other streams, one line per model and problem. */
export function progressPrinter(stream: NodeJS.WriteStream, quiet = false): (done: number, total: number, label: string) => void {
  let lastGroup = '';
  const t0 = Date.now();
  return (done, total, label) => {
    if (quiet) return;
    if (stream.isTTY) {
      const width = 28, filled = total === 0 ? width : Math.round((width * done) / total);
      const secs = ((Date.now() - t0) / 1000).toFixed(0);
      const line = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} ${secs}s ${label}`;
      const cols = stream.columns ?? 120;
      stream.write(`\r${line.length > cols - 1 ? line.slice(0, cols - 2) + '…' : line.padEnd(cols - 1)}`);
      if (done === total) stream.write('\n');
      return;
    }
    const group = label.split(' · ').slice(0, 2).join(' · ');
    if (group !== lastGroup && done < total) {
      lastGroup = group;
      stream.write(`  ${done}/${total} ${group}\n`);
    }
  };
}

export function register(program: Command, state: CliState): void {
  program
    .command('study')
    .description('run a flop-count and timing study (models × problems × solvers) and write its CSV, JSON, HTML report and SVG charts')
    .argument('<config>', 'study configuration (JSON; see studies/*.json)')
    .option('-o, --out <dir>', 'output folder (default reports/<name>/)')
    .option('--no-timing', 'count flops only (no time measurements)')
    .action((configPath: string, opts: StudyCliOptions) => {
      let text: string;
      try {
        text = readFileSync(configPath, 'utf8');
      } catch (e) {
        throw new Error(`cannot read the study configuration ${configPath}: ${(e as Error).message}`);
      }
      const config = parseStudyConfig(text, configPath, dirname(resolve(configPath)));
      if (!opts.timing) config.timing.enabled = false;
      const missing = studyModelFiles(config).filter((f) => !existsSync(f));
      if (missing.length > 0) throw new StudyConfigError(`${configPath}: the robot files of the study are not here (${missing.join(', ')}); nothing was run`);
      const out = resolve(opts.out ?? `reports/${config.name}`);
      const result = runStudy(config, { onProgress: progressPrinter(process.stderr, state.quiet), onModel: (m) => reportModelWarnings(state, m) });
      const written = writeStudy(result, out, { root: process.cwd(), configText: text });
      const failed = result.points.filter((p) => p.status === 'failed');
      process.stdout.write(`study ${config.name}: ${result.points.length} points (${failed.length} failed) in ${result.meta.seconds.toFixed(1)} s; wrote ${written.files.length} files to ${out}\n`);
      for (const n of result.notes) process.stdout.write(`  note: ${n}\n`);
      for (const p of failed) process.stdout.write(`  failed: ${p.spec} ${p.problem} ${p.solver}: ${p.notes.join('; ')}\n`);
      state.exitCode = failed.length > 0 ? 1 : 0;
    });
}
