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

/** N worker threads estimating batches of rows (raw rows of a text log, or samples of a ROS 2 recording). */
export class EstimatePool {
  private readonly pool: Piscina;

  /**
   * `provide`: the offline work of a layout a worker asks for (the main thread's session:
   * `layouts.offlineOf`, computed on first need)
   */
  constructor(readonly jobs: number, init: WorkerInit, private readonly provide: (l: LayoutKey) => LayoutOffline) {
    const { filename, execArgv } = workerEntry();
    this.pool = new Piscina({ filename, execArgv, workerData: init, minThreads: jobs, maxThreads: jobs, idleTimeout: 60_000 });
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
