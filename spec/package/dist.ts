/**
 * The build the package tests run against (dist/, written by `npm run build`, which `npm ci` runs
 * through the `prepare` script), and headless Chromium for the browser checks.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';

/** the repository folder */
export const ROOT = resolve(import.meta.dirname, '../..');
/** the outputs of the build; the CLI bundle is written last and stamps the build */
export const OUTPUTS = ['dist/index.js', 'dist/index.d.ts', 'dist/sparse/index.js', 'dist/node/index.js', 'dist/browser/sparsedyn.js', 'dist/playground/playground.js', 'dist/cli/sparsedyn.cjs'];
const STAMP = 'dist/cli/sparsedyn.cjs';
const INPUTS = ['src', 'web', 'package.json', 'tsconfig.json', 'tsconfig.build.json', 'scripts/build.mjs'];

function newestMtime(path: string): number {
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let t = 0;
  for (const e of readdirSync(path)) t = Math.max(t, newestMtime(join(path, e)));
  return t;
}

/** '' when dist/ is complete and newer than every source, else what is wrong. */
export function buildProblem(): string {
  const missing = OUTPUTS.filter((f) => !existsSync(resolve(ROOT, f)));
  if (missing.length) return `missing ${missing.join(', ')}`;
  const stamp = statSync(resolve(ROOT, STAMP)).mtimeMs;
  const newer = INPUTS.filter((f) => newestMtime(resolve(ROOT, f)) > stamp);
  return newer.length ? `${newer.join(', ')} changed after the last build` : '';
}

/**
 * Make sure dist/ is the build of the current sources. In CI it must already be (npm ci built it:
 * the tests check that build, they do not make their own); elsewhere a stale build is redone.
 */
export function ensureBuilt(): void {
  const problem = buildProblem();
  if (!problem) return;
  if (process.env.CI === '1' || process.env.CI === 'true') {
    throw new Error(`CI: dist/ is not the build of these sources (${problem}); \`npm ci\` builds it through the "prepare" script`);
  }
  process.stderr.write(`package tests: building dist/ (${problem})\n`);
  execFileSync(process.execPath, [resolve(ROOT, 'scripts/build.mjs')], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
}

// ── headless Chromium (Debian's, driven by playwright-core) ──────────────────────────────────

/** Debian's Chromium */
export const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

function hasPlaywright(): boolean {
  try {
    createRequire(import.meta.url).resolve('playwright-core');
    return true;
  } catch {
    return false;
  }
}
/** why the browser checks cannot run here ('' when they can) */
export const NO_BROWSER = !existsSync(CHROMIUM) ? `no Chromium at ${CHROMIUM} (apt-get install -y chromium)` : !hasPlaywright() ? 'playwright-core is not installed' : '';

/** Launch Chromium headless, no network. */
export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
}

/**
 * A page at http://sparsedyn.test/ whose files come from `files` (URL path → absolute file path),
 * every other request refused; console errors, page errors and refused requests are collected.
 */
export async function pageServing(browser: Browser, files: Record<string, string>): Promise<{ page: Page; problems: string[] }> {
  const { readFileSync } = await import('node:fs');
  const page = await browser.newPage();
  const problems: string[] = [];
  page.on('console', (msg) => { if (msg.type() === 'error') problems.push(`console error: ${msg.text()}`); });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  await page.route('**/*', (route) => {
    const url = new URL(route.request().url());
    const file = url.origin === 'http://sparsedyn.test' ? files[url.pathname] : undefined;
    if (url.origin === 'http://sparsedyn.test' && url.pathname === '/') return route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>sparsedyn</title>' });
    if (file === undefined) {
      problems.push(`request refused: ${url.href}`);
      return route.abort();
    }
    return route.fulfill({ contentType: 'text/javascript', body: readFileSync(file) });
  });
  await page.goto('http://sparsedyn.test/');
  return { page, problems };
}

/** A fresh temporary folder under the system's temporary folder. */
export function tempDir(name: string): string {
  const dir = join(process.env.TMPDIR ?? '/tmp', `sparsedyn-${name}-${process.pid}-${Date.now()}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  return dir;
}
