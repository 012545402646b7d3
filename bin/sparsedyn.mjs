#!/usr/bin/env node
// The `sparsedyn` command: runs the compiled command line (dist/cli/sparsedyn.js, one bundled ES
// module written by `npm run build`, which `npm ci` runs). On Node ≥ 22 the compiled code is cached
// between runs (module.enableCompileCache), which shortens the start further.
import module from 'node:module';

module.enableCompileCache?.();
let cli;
try {
  cli = await import('../dist/cli/sparsedyn.js');
} catch (e) {
  if (e?.code !== 'ERR_MODULE_NOT_FOUND' || !String(e.message).includes('sparsedyn.js')) throw e;
  process.stderr.write('sparsedyn: the command line is not built (dist/cli/sparsedyn.js is missing): run `npm run build` in the sparsedyn folder\n');
  process.exit(2);
}
process.exitCode = await cli.main(process.argv);
