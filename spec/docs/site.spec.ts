/**
 * The guide as a site: the two steps of `npm run docs` (TypeDoc's API pages, then VitePress) build it
 * offline, here in a copy of docs/ in a temporary folder (the working tree's docs/api/, which `npm pack`
 * ships, is not rewritten while other tests pack it);
 * every internal link of the built pages reaches a page, and every anchor an element of it; the
 * README's relative links reach files of the repository; the site opened in headless Chromium
 * (every request answered from the built folder, any other refused) shows its pages with no console
 * error, its search finds a column of the log formats, and the playground's picture loads. With
 * SPARSEDYN_WRITE_REPORTS=1 a few pages are screenshotted into reports/docs/ (else a temp folder).
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { dirname, extname, join, relative, resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, NO_BROWSER, tempDir } from '../package/dist.ts';

const ROOT = resolve(import.meta.dirname, '../..');
/** a copy of the repository's docs/ (without its built parts), with the folders its pages reach */
const WORK = tempDir('docs-site');
const SITE = join(WORK, 'docs/.vitepress/dist');
const IN_CI = process.env.CI === '1' || process.env.CI === 'true';
const WRITE = process.env.SPARSEDYN_WRITE_REPORTS === '1';

function htmlFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...htmlFiles(p));
    else if (e.name.endsWith('.html')) out.push(p);
  }
  return out;
}

/** the built file a site path names (/guide/ → guide/index.html; /guide/tutorial → .html) */
function fileOf(path: string): string | null {
  const p = decodeURIComponent(path.split(/[?#]/)[0]);
  for (const c of [p, `${p}.html`, join(p, 'index.html')]) {
    const f = join(SITE, c);
    if (existsSync(f) && statSync(f).isFile()) return f;
  }
  return null;
}

describe('the guide as a site', () => {
  let buildSeconds = 0;
  let buildLog = '';

  beforeAll(() => {
    const built = ['docs/api', 'docs/.vitepress/dist', 'docs/.vitepress/cache'].map((p) => resolve(ROOT, p));
    cpSync(resolve(ROOT, 'docs'), join(WORK, 'docs'), { recursive: true, filter: (src) => !built.some((b) => src === b || src.startsWith(`${b}/`)) });
    for (const d of ['node_modules', 'reports']) symlinkSync(resolve(ROOT, d), join(WORK, d));
    const env = { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' };
    const t0 = Date.now();
    // the two steps of `npm run docs`, into the copy
    const typedoc = spawnSync(process.execPath, [resolve(ROOT, 'node_modules/typedoc/bin/typedoc'), '--out', join(WORK, 'docs/api')], { cwd: ROOT, encoding: 'utf8', env, timeout: 300_000 });
    const vitepress = spawnSync(process.execPath, [resolve(ROOT, 'node_modules/vitepress/bin/vitepress.js'), 'build', 'docs'], { cwd: WORK, encoding: 'utf8', env, timeout: 300_000 });
    buildSeconds = (Date.now() - t0) / 1000;
    buildLog = `${typedoc.stdout}${typedoc.stderr}${vitepress.stdout}${vitepress.stderr}`;
    expect(typedoc.status, buildLog).toBe(0);
    expect(vitepress.status, buildLog).toBe(0);
    process.stdout.write(`typedoc && vitepress build docs: the site built in ${buildSeconds.toFixed(1)} s\n`);
  }, 300_000);

  afterAll(() => rmSync(WORK, { recursive: true, force: true }));

  it('npm run docs is these two steps', () => {
    const pkg = JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts.docs).toBe('typedoc && vitepress build docs');
  });

  it('npm run docs builds it offline with no warning from TypeDoc or VitePress (its time is printed, not asserted)', () => {
    const warnings = buildLog.replace(/\x1b\[[0-9;]*m/g, '').split('\n').filter((l) => /warn|error|dead link/i.test(l));
    expect(warnings).toEqual([]);
    for (const p of ['index.html', 'guide/tutorial.html', 'reference/log-formats.html', 'api/index.html', 'api/sparsedyn.html', 'lab/sparse-path-time.html']) {
      expect(existsSync(join(SITE, p)), p).toBe(true);
    }
  });

  it('every internal link of the built pages reaches a page, and every anchor an element of it', () => {
    const ids = new Map<string, Set<string>>();
    const idsOf = (file: string): Set<string> => {
      let s = ids.get(file);
      if (!s) {
        s = new Set([...readFileSync(file, 'utf8').matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]));
        ids.set(file, s);
      }
      return s;
    };
    const broken: string[] = [];
    let checked = 0;
    for (const file of htmlFiles(SITE)) {
      const html = readFileSync(file, 'utf8');
      const page = `/${relative(SITE, file)}`;
      for (const m of html.matchAll(/<a\s[^>]*href="([^"]+)"/g)) {
        const href = m[1].replace(/&amp;/g, '&');
        if (/^(https?:|mailto:|javascript:)/.test(href)) continue;
        const [path, hash] = href.split('#');
        const target = path === '' ? file : fileOf(path.startsWith('/') ? path : resolve(dirname(page), path));
        checked++;
        if (target === null) { broken.push(`${page}: ${href} (no page)`); continue; }
        if (hash && extname(target) === '.html' && !idsOf(target).has(decodeURIComponent(hash))) broken.push(`${page}: ${href} (no #${hash})`);
      }
    }
    expect(checked).toBeGreaterThan(500);
    expect(broken).toEqual([]);
  });

  it('the README\'s relative links reach files of the repository', () => {
    const readme = readFileSync(resolve(ROOT, 'README.md'), 'utf8');
    const links = [...readme.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]).filter((l) => !/^(https?:|mailto:|#)/.test(l));
    expect(links.length).toBeGreaterThan(5);
    expect(links.filter((l) => !existsSync(resolve(ROOT, l.split('#')[0])))).toEqual([]);
  });

  describe.skipIf(NO_BROWSER !== '' && !IN_CI)('in headless Chromium', () => {
    let browser: Browser;
    const shots = WRITE ? resolve(ROOT, 'reports/docs') : join(WORK, 'shots');
    const problems: string[] = [];

    beforeAll(async () => {
      expect(NO_BROWSER, 'CI opens the site in Chromium: Chromium and playwright-core must be there').toBe('');
      mkdirSync(shots, { recursive: true });
      browser = await launchChromium();
    });
    afterAll(async () => { await browser?.close(); });

    async function open(path: string): Promise<Page> {
      const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
      page.on('console', (m) => { if (m.type() === 'error') problems.push(`${path}: console error: ${m.text()}`); });
      page.on('pageerror', (e) => problems.push(`${path}: page error: ${e.message}`));
      await page.route('**/*', (route) => {
        const url = new URL(route.request().url());
        const file = url.origin === 'http://sparsedyn.docs' ? fileOf(url.pathname) : null;
        if (file === null) {
          problems.push(`${path}: request refused: ${url.href}`);
          return route.abort();
        }
        const type: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.png': 'image/png', '.svg': 'image/svg+xml', '.json': 'application/json', '.woff2': 'font/woff2' };
        return route.fulfill({ contentType: type[extname(file)] ?? 'application/octet-stream', body: readFileSync(file) });
      });
      await page.goto(`http://sparsedyn.docs${path}`);
      await page.waitForLoadState('networkidle');
      return page;
    }

    const PAGES: [string, string, string][] = [
      ['/', 'home', 'sparsedyn'],
      ['/guide/tutorial.html', 'tutorial', 'Your robot in 15 minutes'],
      ['/reference/log-formats.html', 'log-formats', 'Log formats'],
      ['/how-to/playground.html', 'playground', 'The sensor-layout playground'],
      ['/api/sparsedyn.html', 'api', 'sparsedyn'],
    ];

    it('each page shows its title and the sidebar, with no console error and nothing fetched from elsewhere', async () => {
      for (const [path, name, title] of PAGES) {
        const page = await open(path);
        const h1 = (await page.locator('h1').first().textContent())?.trim() ?? '';
        expect(h1, path).toContain(title);
        if (path !== '/') expect(await page.locator('.VPSidebar').count(), `${path}: sidebar`).toBe(1);
        if (name === 'playground') {
          const width = await page.locator('main img').first().evaluate((img) => (img as HTMLImageElement).naturalWidth);
          expect(width, 'the playground picture loads').toBeGreaterThan(100);
        }
        if (name === 'log-formats') expect(await page.locator('main table tr').count()).toBeGreaterThan(40);
        await page.screenshot({ path: join(shots, `${name}.png`), fullPage: false });
        await page.close();
      }
      expect(problems).toEqual([]);
    }, 120_000);

    it('the local search finds a column of the log formats', async () => {
      const page = await open('/guide/');
      await page.locator('.DocSearch-Button, .VPNavBarSearchButton').first().click();
      await page.locator('input.search-input, #localsearch-input').first().fill('base.qw');
      await page.waitForSelector('.result, .results li', { timeout: 20_000 });
      const text = await page.locator('.results').first().textContent();
      expect(text).toMatch(/Log formats/);
      await page.screenshot({ path: join(shots, 'search.png') });
      await page.close();
      expect(problems).toEqual([]);
    }, 60_000);
  });
});
