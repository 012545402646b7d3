#!/usr/bin/env node
// The `sparsedyn` command: runs the compiled command line, dist/cli/sparsedyn.cjs (one bundled
// file written by `npm run build`, which `npm ci` runs).
//
// Start-up time is mostly V8 compiling that file, so the compiled code is cached between runs:
// on Node ≥ 22 by Node itself (module.enableCompileCache, in the system's temporary folder); on
// Node 20 here, with V8's code cache (vm.Script cachedData) in the user's cache folder
// ($XDG_CACHE_HOME or ~/.cache, then sparsedyn/), one file per Node version and build. V8 checks
// the cache and ignores one that does not fit; NODE_DISABLE_COMPILE_CACHE=1 turns both off.
import module, { createRequire } from 'node:module';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';

const file = join(dirname(fileURLToPath(import.meta.url)), '../dist/cli/sparsedyn.cjs');
if (!existsSync(file)) {
  process.stderr.write('sparsedyn: the command line is not built (dist/cli/sparsedyn.cjs is missing): run `npm run build` in the sparsedyn folder\n');
  process.exit(2);
}
const noCache = process.env.NODE_DISABLE_COMPILE_CACHE === '1';

let cli;
let saveCache = () => {};
if (noCache || typeof module.enableCompileCache === 'function') {
  if (!noCache) module.enableCompileCache();
  cli = createRequire(import.meta.url)(file);
} else {
  const st = statSync(file);
  const dir = join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'sparsedyn');
  const name = `cli-${process.version}-${process.arch}-${st.size}-${Math.round(st.mtimeMs)}.v8cache`;
  let cachedData;
  try {
    cachedData = readFileSync(join(dir, name));
  } catch {
    cachedData = undefined;
  }
  // the CommonJS wrapper, as Node's require would compile it
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${readFileSync(file, 'utf8')}\n})`, { filename: file, cachedData });
  const mod = { exports: {} };
  script.runInThisContext()(mod.exports, createRequire(file), mod, file, dirname(file));
  cli = mod.exports;
  if (cachedData === undefined || script.cachedDataRejected) {
    // after the run, so that the functions it compiled are in the cache too
    saveCache = () => {
      try {
        mkdirSync(dir, { recursive: true });
        for (const old of readdirSync(dir)) if (old.startsWith('cli-') && old !== name) rmSync(join(dir, old), { force: true });
        const tmp = join(dir, `${name}.${process.pid}.tmp`);
        writeFileSync(tmp, script.createCachedData());
        renameSync(tmp, join(dir, name));
      } catch {
        // no cache folder to write: the next run compiles again
      }
    };
  }
}
process.exitCode = await cli.main(process.argv);
saveCache();
