/**
 * Worker thread of `sparsedyn estimate --jobs N` (run by a piscina pool, estimate-pool.ts): builds
 * its own estimation system from the problem file, and its own session from the main thread's
 * offline work (analysis, sparse LU ordering and patterns, condition calibration, as JSON), so it
 * holds its own factor workspaces and orders nothing; then estimates batches of raw rows
 * or samples of a ROS 2 recording (estimate-rows.ts) and returns their formatted outputs. It never
 * analyses a layout (sensor subset × contact mode): a batch that meets one it was not given comes
 * back naming it, and comes again with the main thread's offline work of it (`BatchTask.layouts`).
 */
import { move, transferableSymbol, valueSymbol, workerData } from 'piscina';
import type { LayoutOffline } from '../estimation/layouts.ts';
import { EstimationSession, type SessionOptions } from '../estimation/session.ts';
import { derivedProblem, type DerivationPlan } from '../estimation/derive.ts';
import { buildEstimationSystem } from '../estimation/setup.ts';
import { loadProblem } from '../node/problem-file.ts';
import { readRange, type LogRange, type RangeScratch } from './estimate-ranges.ts';
import { RESTART_ROWS, RowProcessor, type BatchResult, type InputRow, type RowSetup } from './estimate-rows.ts';

/** What each worker starts from (piscina's workerData). */
/**
 * One task of the pool: a batch of rows, or a range of a log file that the worker reads and parses
 * itself (its first row where one job restarts the LU's row order: estimate-ranges.ts), and the
 * offline work of layouts the task asked for (estimate-pool.ts).
 */
export interface BatchTask {
  rows?: InputRow[];
  range?: LogRange;
  layouts?: LayoutOffline[];
}

export interface WorkerInit {
  /** the problem file (absolute path) */
  problemFile: string;
  /** what the main thread derives from the log over time: its estimation system has the derived sensors (derive.ts) */
  derivation?: DerivationPlan;
  options: Omit<SessionOptions, 'offline'>;
  offline: LayoutOffline[];
  setup: RowSetup;
  /** size of the estimation system the main thread built: the worker's must match */
  n: number;
  m: number;
}

let processor: RowProcessor | null = null;

function init(): RowProcessor {
  const w = workerData as WorkerInit;
  const { problem, model } = loadProblem(w.problemFile);
  const es = buildEstimationSystem(model, derivedProblem(problem, w.derivation ?? null));
  if (es.sys.n !== w.n || es.sys.m !== w.m) throw new Error(`${w.problemFile} changed during the run (${es.sys.n} unknowns and ${es.sys.m} equations now, ${w.n} and ${w.m} at the start)`);
  const session = new EstimationSession(es, { ...w.options, offline: w.offline, givenOnly: true, compareTruth: false });
  return new RowProcessor(session, w.setup);
}

/**
 * A batch's result with its arrays (the texts' bytes, the Parquet numbers, the report values) moved
 * to the main thread rather than copied: piscina's Transferable, the result itself its value.
 */
function moved(r: BatchResult): unknown {
  const list = new Set<ArrayBufferLike>();
  if (r.bytes) list.add(r.bytes.buffer);
  if (r.columns) list.add(r.columns.values.buffer);
  if (r.report) list.add(r.report.values.buffer);
  if (list.size === 0) return r;
  return move({ get [transferableSymbol]() { return [...list]; }, get [valueSymbol]() { return r; } } as never);
}

/** the buffer this worker reads its ranges into (one batch at a time: a range's rows are done with when its batch returns) */
const scratch: RangeScratch = {};

/** Estimate one batch of rows. */
export default function estimateBatch(task: BatchTask): unknown {
  processor ??= init();
  if (task.layouts) processor.session.layouts.give(task.layouts);
  return moved(task.range ? processor.run(readRange(task.range, scratch), true, RESTART_ROWS) : processor.run(task.rows ?? []));
}
