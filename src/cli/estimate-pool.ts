/**
 * The pool of worker threads of `sparsedyn estimate --jobs N` (piscina): N workers, each with its
 * own session and factor workspaces (estimate-worker.ts), started from the main thread's offline
 * work. The worker's file is found beside this code: dist/cli/estimate-worker.cjs beside the bundled
 * command line, src/cli/estimate-worker.ts when the sources run under tsx (the workers then load
 * tsx too).
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import type { BatchResult, InputRow } from './estimate-rows.ts';
import type { WorkerInit } from './estimate-worker.ts';

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

  constructor(readonly jobs: number, init: WorkerInit) {
    const { filename, execArgv } = workerEntry();
    this.pool = new Piscina({ filename, execArgv, workerData: init, minThreads: jobs, maxThreads: jobs, idleTimeout: 60_000 });
  }

  /** the outputs of one batch, in its rows' order */
  run(rows: InputRow[]): Promise<BatchResult> {
    return this.pool.run(rows) as Promise<BatchResult>;
  }

  async close(): Promise<void> {
    await this.pool.destroy();
  }
}
