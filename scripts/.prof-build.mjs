import { build } from 'esbuild';
const base = { absWorkingDir: '/work/main', bundle: true, format: 'cjs', platform: 'node', target: 'node20', minify: false,
  banner: { js: "var __sparsedynImportMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
  define: { 'import.meta.url': '__sparsedynImportMetaUrl' }, alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' }, logLevel: 'warning' };
await build({ ...base, entryPoints: ['src/cli/main.ts'], outfile: '/work/main/dist/prof/prof.cjs', external: ['piscina', '@mcap/support'], supported: { 'dynamic-import': false } });
await build({ ...base, entryPoints: ['src/cli/estimate-worker.ts'], outfile: '/work/main/dist/prof/estimate-worker.cjs', external: ['piscina'] });
