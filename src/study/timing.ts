/**
 * Median time per call of a prepared function: a warm-up (bounded in time, so that the JIT has
 * compiled the hot loops, and at least one call), repetitions calibrated so that a
 * round lasts at least `minMs`, an empty-loop baseline subtracted per round, the median over
 * `rounds`. The same scheme as scripts/bench-lib.ts.
 */
import { performance } from 'node:perf_hooks';

export interface TimingOptions {
  /** number of timed rounds (default 9) */
  rounds?: number;
  /** least duration of a round in ms (default 2) */
  minMs?: number;
  /** warm-up: calls until `warmupCalls` calls or `warmupMs` ms, whichever comes first (defaults: no bound on calls, 40 ms) */
  warmupCalls?: number;
  warmupMs?: number;
}

export interface Timing {
  /** median µs per call */
  us: number;
  /** fastest round's µs per call (least disturbed by other load on the machine) */
  minUs: number;
  rounds: number;
  /** calls per round */
  reps: number;
}

export function medianMicros(fn: () => void, opts: TimingOptions = {}): Timing {
  const rounds = opts.rounds ?? 9;
  const minMs = opts.minMs ?? 2;
  const warmupMs = opts.warmupMs ?? 40, warmupCalls = opts.warmupCalls ?? Infinity;
  let t0 = performance.now();
  let calls = 0;
  do { fn(); calls++; } while (performance.now() - t0 < warmupMs && calls < warmupCalls);
  let reps = 1;
  for (;;) {
    t0 = performance.now();
    for (let k = 0; k < reps; k++) fn();
    if (performance.now() - t0 >= minMs || reps >= 1 << 20) break;
    reps *= 2;
  }
  const noop = (): void => {};
  const samples = new Float64Array(rounds);
  for (let r = 0; r < rounds; r++) {
    const a = performance.now();
    for (let k = 0; k < reps; k++) fn();
    const b = performance.now();
    for (let k = 0; k < reps; k++) noop();
    const c = performance.now();
    samples[r] = Math.max(0, (b - a) - (c - b)) * 1000 / reps;
  }
  samples.sort();
  return { us: samples[rounds >> 1], minUs: samples[0], rounds, reps };
}
