/**
 * `sparsedyn playground [--port N] [--no-open]`: serve the sensor-layout playground (dist/playground,
 * built by `npm run build` from web/) on this machine only (127.0.0.1), print its URL and open it in
 * the default browser. The page needs no network: every script is in the folder, which also works
 * opened straight from disk (file://). Runs until interrupted (Ctrl-C).
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { printData, releaseSignals } from '../output.ts';
import type { CliState } from '../state.ts';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
};

/** The built playground: dist/playground of the package this file belongs to. */
export function playgroundDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let k = 0; k < 6; k++) {
    for (const cand of [join(dir, 'playground'), join(dir, 'dist', 'playground')]) {
      if (existsSync(join(cand, 'index.html')) && existsSync(join(cand, 'playground.js'))) return cand;
    }
    dir = dirname(dir);
  }
  throw new Error('the playground is not built (dist/playground/index.html is missing): run `npm run build` in the sparsedyn folder');
}

/** A static server of `root` on 127.0.0.1 (GET and HEAD of files under root only). */
export function servePlayground(root: string, port: number): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') { res.writeHead(405).end(); return; }
    let path = decodeURIComponent(new URL(req.url ?? '/', 'http://localhost').pathname);
    // browsers ask for /favicon.ico whatever the page says: the page's icon
    if (path === '/favicon.ico') path = '/favicon.svg';
    const file = resolve(root, `.${path.endsWith('/') ? `${path}index.html` : path}`);
    if (!(file === root || file.startsWith(root + sep)) || !existsSync(file)) { res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n'); return; }
    const ext = file.slice(file.lastIndexOf('.'));
    let body: Buffer;
    try {
      body = readFileSync(file);
    } catch {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[ext] ?? 'application/octet-stream', 'cache-control': 'no-store' });
    res.end(req.method === 'HEAD' ? undefined : body);
  });
  return new Promise((ok, fail) => {
    server.once('error', (e: NodeJS.ErrnoException) => fail(new Error(e.code === 'EADDRINUSE' ? `port ${port} is in use: choose another with --port` : e.message)));
    server.listen(port, '127.0.0.1', () => {
      const addr = server.address();
      const p = typeof addr === 'object' && addr ? addr.port : port;
      ok({ server, url: `http://127.0.0.1:${p}/` });
    });
  });
}

/** Open a URL in the default browser, if the system has a way to (errors are ignored). */
function openInBrowser(url: string): void {
  const cmd = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'cmd' : 'xdg-open';
  const args = process.platform === 'win32' ? ['/c', 'start', '', url] : [url];
  try {
    const child = spawn(cmd, args, { stdio: 'ignore', detached: true });
    child.on('error', () => { /* no browser opener here: the URL is printed */ });
    child.unref();
  } catch { /* the URL is printed */ }
}

export function register(program: Command, state: CliState): void {
  program
    .command('playground')
    .description('serve the sensor-layout playground on this machine (127.0.0.1), print its URL and open it in the browser')
    .option('--port <n>', 'port to listen on (0: any free port)', '0')
    .option('--no-open', 'print the URL only, do not open a browser')
    .action(async (opts: { port: string; open: boolean }) => {
      const port = Number(opts.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535) throw new RangeError(`--port must be an integer in 0…65535, got "${opts.port}"`);
      const root = playgroundDir();
      const { server, url } = await servePlayground(root, port);
      printData(`sparsedyn playground: ${url}\n`);
      if (!state.quiet) process.stderr.write(`serving ${root} on 127.0.0.1 only; the page also works opened from disk: ${join(root, 'index.html')}\nCtrl-C to stop\n`);
      if (opts.open) openInBrowser(url);
      // Ctrl-C is how the server stops: nothing is interrupted
      releaseSignals();
      await new Promise<void>((done) => {
        const stop = () => { server.close(); done(); };
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
      state.exitCode = 0;
    });
}
