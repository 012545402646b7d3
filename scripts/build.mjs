#!/usr/bin/env node
/**
 * The build (`npm run build`; `npm ci` runs it through the `prepare` script). Writes dist/ afresh:
 *   1. tsc -p tsconfig.build.json: the library as ESM JavaScript with declarations and source maps,
 *      from the three entries src/index.ts, src/sparse/index.ts, src/node/index.ts and what they import;
 *   2. esbuild: dist/browser/sparsedyn.js, the root entry as one minified ES module for browsers
 *      (its dependencies bundled; the build fails if anything behind the root entry needs Node);
 *   3. esbuild: dist/cli/sparsedyn.cjs, the command line as one CommonJS file for Node, dependencies
 *      bundled but piscina, so that it starts without resolving hundreds of modules (bin/sparsedyn.mjs
 *      runs it); beside it dist/cli/estimate-worker.cjs, the worker thread of `estimate --jobs N`.
 *   4. esbuild: dist/playground/, the sensor-layout playground (web/): index.html, playground.css and
 *      one classic script with three.js and the worker bundled in (the worker starts from a Blob URL),
 *      so that the page works from file:// as from any static server, with no network.
 * Source maps (with the TypeScript sources inlined) come with the library files only: the bundles are
 * for running; to debug in a browser, bundle the root entry with your own bundler, which reads them.
 * Written last, dist/cli/sparsedyn.cjs also stamps the build: the tests rebuild when a source is newer.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const t0 = performance.now();
const step = (what) => process.stdout.write(`build: ${what} (${((performance.now() - t0) / 1000).toFixed(1)} s)\n`);

rmSync(join(root, 'dist'), { recursive: true, force: true });

execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', join(root, 'tsconfig.build.json')], { cwd: root, stdio: 'inherit' });
step('dist/ (tsc: JavaScript, declarations, source maps)');

await build({
  absWorkingDir: root,
  entryPoints: ['src/index.ts'],
  outfile: 'dist/browser/sparsedyn.js',
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  legalComments: 'eof',
  logLevel: 'warning',
});
step('dist/browser/sparsedyn.js (esbuild)');

// the worker thread of `estimate --jobs N`, beside the command line (src/cli/estimate-pool.ts finds it there);
// piscina stays a package of node_modules: it starts its workers from its own files
/**
 * The command line and its worker as bundled CommonJS for Node (bin/sparsedyn.mjs compiles the
 * command line with a V8 code cache); import.meta.url (the study pages read d3's files beside the
 * package; the pool finds its worker) is the bundle's own URL.
 */
const nodeCjs = {
  absWorkingDir: root,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  minify: true,
  legalComments: 'eof',
  banner: { js: "var __sparsedynImportMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
  define: { 'import.meta.url': '__sparsedynImportMetaUrl' },
  logLevel: 'warning',
};
await build({
  ...nodeCjs,
  entryPoints: ['src/cli/estimate-worker.ts'],
  outfile: 'dist/cli/estimate-worker.cjs',
  external: ['piscina'],
});
step('dist/cli/estimate-worker.cjs (esbuild)');
// the playground: the worker first (its text is inlined in the page's script)
const workerBundle = await build({
  absWorkingDir: root,
  entryPoints: ['web/worker.ts'],
  bundle: true,
  write: false,
  format: 'iife',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  legalComments: 'none',
  logLevel: 'warning',
});
await build({
  absWorkingDir: root,
  entryPoints: ['web/main.ts'],
  outfile: 'dist/playground/playground.js',
  bundle: true,
  format: 'iife',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  legalComments: 'eof',
  define: { __WORKER_SOURCE__: JSON.stringify(workerBundle.outputFiles[0].text) },
  logLevel: 'warning',
});
mkdirSync(join(root, 'dist/playground'), { recursive: true });
for (const f of ['index.html', 'playground.css', 'favicon.svg']) copyFileSync(join(root, 'web', f), join(root, 'dist/playground', f));
step('dist/playground/ (esbuild)');

await build({
  ...nodeCjs,
  entryPoints: ['src/cli/main.ts'],
  outfile: 'dist/cli/sparsedyn.cjs',
  // @mcap/support loads its decompressors' .wasm files from beside its own: it stays in node_modules too
  external: ['piscina', '@mcap/support'],
  // import() becomes require(): bin/sparsedyn.mjs runs this file as a vm.Script, which has no dynamic-import hook
  supported: { 'dynamic-import': false },
});
step('dist/cli/sparsedyn.cjs (esbuild)');
