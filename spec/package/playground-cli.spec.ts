/**
 * `sparsedyn playground`: serves the built playground (dist/playground) on 127.0.0.1, prints the URL
 * on standard output, serves the page, its script and stylesheet with their types, nothing outside
 * the folder, and stops cleanly on SIGTERM. (The page itself: playground.spec.ts.)
 */
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildProblem, ROOT } from './dist.ts';

/** a GET with the path sent as written (no normalisation of "..") */
function get(url: URL, path: string): Promise<{ status: number; type: string; body: string }> {
  return new Promise((ok, fail) => {
    const req = request({ host: url.hostname, port: url.port, path, method: 'GET' }, (res) => {
      let body = '';
      res.on('data', (b) => { body += b; });
      res.on('end', () => ok({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body }));
    });
    req.on('error', fail);
    req.end();
  });
}

describe('sparsedyn playground (the command)', () => {
  it('serves dist/playground on 127.0.0.1, prints the URL, stops on SIGTERM', async () => {
    expect(buildProblem(), 'dist/ must be the build of these sources (npm run build)').toBe('');
    const child = spawn(process.execPath, [resolve(ROOT, 'bin/sparsedyn.mjs'), 'playground', '--no-open', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '', err = '';
    child.stderr.on('data', (b) => { err += b; });
    const closed = new Promise<number | null>((ok) => child.on('close', (code) => ok(code)));
    const line = await new Promise<string>((ok, fail) => {
      child.stdout.on('data', (b) => { out += b; if (out.includes('\n')) ok(out.split('\n')[0]); });
      child.on('close', () => fail(new Error(`the command ended: ${err}`)));
    });
    try {
      const m = /^sparsedyn playground: (http:\/\/127\.0\.0\.1:\d+\/)$/.exec(line);
      expect(m, line).not.toBeNull();
      const url = new URL(m![1]);
      const page = await get(url, '/');
      expect(page.status).toBe(200);
      expect(page.type).toMatch(/^text\/html/);
      expect(page.body).toContain('<script src="playground.js"></script>');
      const js = await get(url, '/playground.js');
      expect(js.status).toBe(200);
      expect(js.type).toMatch(/^text\/javascript/);
      expect(js.body.length).toBeGreaterThan(100_000); // three.js, the library and the worker, bundled
      expect((await get(url, '/playground.css')).type).toMatch(/^text\/css/);
      // the page's icon, also where browsers look for one whatever the page says
      expect(page.body).toContain('<link rel="icon" href="favicon.svg" type="image/svg+xml">');
      for (const icon of ['/favicon.svg', '/favicon.ico']) {
        const r = await get(url, icon);
        expect(r.status, icon).toBe(200);
        expect(r.type).toMatch(/^image\/svg\+xml/);
      }
      expect((await get(url, '/../../package.json')).status).toBe(404);
      expect((await get(url, '/%2e%2e/%2e%2e/package.json')).status).toBe(404);
      expect((await get(url, '/missing.js')).status).toBe(404);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await closed).toBe(0);
    expect(err).toContain('Ctrl-C to stop');
  });
});
