/**
 * The pool of worker threads of `sparsedyn estimate --jobs N` (piscina): N workers, each with its
 * own session and factor workspaces (estimate-worker.ts), started from the main thread's offline
 * work. A batch that meets a layout (sensor subset × contact mode) its worker was not given is sent
 * again with the offline work of that layout, which the main thread computes once for the run
 * (`provide`); the workers analyse nothing. The worker's file is found beside this code: dist/cli/estimate-worker.cjs beside the bundled
 * command line, src/cli/estimate-worker.ts when the sources run under tsx (the workers then load
 * tsx too).
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import type { BatchResult, InputRow } from './estimate-rows.ts';
import type { LayoutKey, LayoutOffline } from '../estimation/layouts.ts';
import type { BatchTask, WorkerInit } from './estimate-worker.ts';
import type { LogRange } from './estimate-ranges.ts';

/** the worker's file and the Node options it needs */
export function workerEntry(): { filename: string; execArgv: string[] } {
  const here = import.meta.url;
  if (here.endsWith('.cjs')) return { filename: fileURLToPath(new URL('./estimate-worker.cjs', here)), execArgv: [] };
  const ts = fileURLToPath(new URL('./estimate-worker.ts', here));
  if (!existsSync(ts)) throw new Error(`the worker of --jobs is not beside ${fileURLToPath(here)}`);
  const tsx = process.execArgv.some((a) => /tsx/.test(a));
  return { filename: ts, execArgv: tsx ? process.execArgv : [...process.execArgv, '--import', 'tsx'] };
}

/**
 * Each worker's young generation (MB; V8 sizes it for the machine otherwise: 32–48 MB here): the
 * estimates of a batch die young, and three heaps' young generations were a third of the peak
 * memory of two jobs. Measured with 2 jobs on 100,200 demo samples (alternated runs): NDJSON out
 * 504–509 → 391–419 MB, Parquet 480–486 → 403–411 MB, for 1–2% more wall time (the collector runs
 * more often); 6 MB saved another 30 MB and cost 5%.
 */
const WORKER_YOUNG_MB = 24;

/** N worker threads estimating batches of rows (raw rows of a text log, or samples of a ROS 2 recording). */
export class EstimatePool {
  private readonly pool: Piscina;

  /**
   * `provide`: the offline work of a layout a worker asks for (the main thread's session:
   * `layouts.offlineOf`, computed on first need)
   */
  constructor(readonly jobs: number, init: WorkerInit, private readonly provide: (l: LayoutKey) => LayoutOffline) {
    const { filename, execArgv } = workerEntry();
    this.pool = new Piscina({ filename, execArgv, workerData: init, minThreads: jobs, maxThreads: jobs, idleTimeout: 60_000, resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_MB } });
  }

  /**
   * The outputs of one batch, in its rows' order. A worker lacking some of the batch's layouts
   * returns it unestimated with their keys; it goes again with their offline work and that of the
   * layouts asked for before (another worker may take it), at most once per worker and layout.
   */
  async run(rows: InputRow[] | LogRange): Promise<BatchResult> {
    const task: BatchTask = Array.isArray(rows) ? { rows } : { range: rows };
    for (;;) {
      const r = await (this.pool.run(task) as Promise<BatchResult>);
      if (r.need === undefined) return r;
      const given = task.layouts ?? [];
      for (const l of r.need) if (!given.some((g) => g.key === l.key)) given.push(this.provide(l));
      task.layouts = given;
    }
  }

  async close(): Promise<void> {
    await this.pool.destroy();
  }
}
