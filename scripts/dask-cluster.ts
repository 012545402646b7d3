/**
 * Pieces of a local Dask cluster for the Dask recipe's test and benchmark (examples/dask/): a free
 * loopback port, and a cluster process (scheduler or worker) that resolves once its log says it is
 * ready.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

/** a TCP port nobody listens on, on loopback */
export function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const s = createServer();
    s.on('error', rej);
    s.listen(0, '127.0.0.1', () => { const { port } = s.address() as { port: number }; s.close(() => res(port)); });
  });
}

/** `python args…` (a dask-scheduler or dask-worker module); resolves once its output matches `ready` */
export function daemon(python: string, args: string[], ready: RegExp): Promise<ChildProcess> {
  const p = spawn(python, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, PYTHONUNBUFFERED: '1' } });
  let log = '';
  return new Promise((res, rej) => {
    const look = (b: Buffer) => { log += b; if (ready.test(log)) res(p); };
    p.stdout!.on('data', look);
    p.stderr!.on('data', look);
    p.on('exit', (code) => rej(new Error(`${args.join(' ')} exited with ${code}:\n${log.slice(-2000)}`)));
  });
}
