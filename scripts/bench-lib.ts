/**
 * Benchmark helpers: median time per call over many repetitions, with inputs prepared before the
 * timer and an empty-loop baseline subtracted; peak memory from the process's resource usage; the
 * real robots and benchmark matrices of other projects, read from the folder beside the clone.
 */
import { existsSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { basename, resolve } from 'node:path';

/**
 * The folder beside the clone (../shared) that holds real robot files (`models/`), reference values
 * and benchmark matrices (`sparse-bench/`) of other projects. They are never copied into the
 * repository; a clone without that folder runs the benchmarks on the project's own models only.
 */
export const SHARED_DIR = resolve(import.meta.dirname, '../../shared');

/**
 * The URDF files of the real robots `names` (SHARED_DIR/models/NAME.urdf) that are there. When some
 * are not, one line on stderr names them and says what the script skips (`skipped`), so that the
 * rest still runs.
 */
export function realRobots(script: string, names: readonly string[], skipped: string): Map<string, string> {
  const files = new Map(names.map((n) => [n, resolve(SHARED_DIR, 'models', `${n}.urdf`)]));
  const missing = [...files.values()].filter((f) => !existsSync(f));
  if (missing.length > 0) {
    process.stderr.write(`${script}: the robot files of other projects are not here (${missing.length === files.size ? `${resolve(SHARED_DIR, 'models')}: ${missing.map((f) => basename(f)).join(', ')}` : missing.join(', ')}); skipped ${skipped}\n`);
    for (const [n, f] of files) if (!existsSync(f)) files.delete(n);
  }
  return files;
}

/** Median µs per call of fn over `rounds` rounds of `reps` calls each (after a warm-up). */
export function timeCall(fn: () => void, opts: { reps?: number; rounds?: number; minMs?: number } = {}): number {
  return timeStats(fn, opts).median;
}

/**
 * µs per call of fn over `rounds` rounds of `reps` calls each, the empty loop's time subtracted:
 * the median round and the best (the one least disturbed by other processes). `warmup` calls first
 * (default 200); `reps` calibrated so that a round lasts at least `minMs` unless given.
 */
export function timeStats(fn: () => void, opts: { reps?: number; rounds?: number; minMs?: number; warmup?: number } = {}): { median: number; best: number } {
  const rounds = opts.rounds ?? 21;
  let reps = opts.reps ?? 1;
  const minMs = opts.minMs ?? 5;
  for (let k = 0; k < (opts.warmup ?? 200); k++) fn();
  if (opts.reps === undefined) {
    for (;;) {
      const t0 = performance.now();
      for (let k = 0; k < reps; k++) fn();
      if (performance.now() - t0 >= minMs || reps > 1e7) break;
      reps *= 2;
    }
  }
  const noop = () => {};
  const samples: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const t0 = performance.now();
    for (let k = 0; k < reps; k++) fn();
    const t1 = performance.now();
    for (let k = 0; k < reps; k++) noop();
    const t2 = performance.now();
    samples.push(((t1 - t0) - (t2 - t1)) * 1000 / reps);
  }
  samples.sort((a, b) => a - b);
  return { median: samples[rounds >> 1], best: samples[0] };
}

/** Peak resident set size of this process so far, MiB. */
export function peakRssMiB(): number {
  return process.resourceUsage().maxRSS / 1024;
}

export function fmt(x: number, digits = 2): string {
  return x >= 100 ? x.toFixed(0) : x.toFixed(digits);
}

/**
 * Median µs per call of each function, timed in interleaved rounds (every function once per round,
 * the order rotated from round to round, in batches of calls lasting about `minMs`), so that a
 * change of the machine's load affects all of them alike; ratios between them are then measured in
 * the same run. The clock is the process's CPU time (user + system), which other processes
 * sharing the cores do not inflate the way they inflate wall-clock time. `warmup` calls of each first.
 */
export function timeInterleaved(fns: (() => void)[], rounds = 15, minMs = 3, warmup = 100): number[] {
  const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
  const reps = fns.map((f) => {
    for (let k = 0; k < warmup; k++) f();
    let n = 1;
    for (;;) {
      const t0 = cpuMs();
      for (let k = 0; k < n; k++) f();
      if (cpuMs() - t0 >= minMs || n > 1e6) return n;
      n *= 2;
    }
  });
  const samples: number[][] = fns.map(() => []);
  for (let r = 0; r < rounds; r++) {
    for (let t = 0; t < fns.length; t++) {
      const k = (t + r) % fns.length;
      const f = fns[k];
      const t0 = cpuMs();
      for (let i = 0; i < reps[k]; i++) f();
      samples[k].push(((cpuMs() - t0) * 1000) / reps[k]);
    }
  }
  return samples.map((x) => x.sort((a, b) => a - b)[x.length >> 1]);
}
