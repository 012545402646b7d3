/**
 * vitest globalSetup: the package tests (spec/package/*.spec.ts that load dist/) run against the
 * build of the current sources, made once before the test files start (in CI, `npm ci` made it and
 * it is only checked). A run restricted to other test files does not build.
 */
import { readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { ensureBuilt, ROOT } from './dist.ts';

/** test files that load dist/ */
const USES_DIST = readdirSync(resolve(ROOT, 'spec/package')).filter((f) => f.endsWith('.spec.ts') && !['api.spec.ts', 'imports.spec.ts'].includes(f)).map((f) => `spec/package/${f}`);

export default function setup(): void {
  // file filters on the command line (`vitest run spec/sparse …`): build only if one selects a dist test
  const filters = process.argv.slice(2).filter((a) => !a.startsWith('-') && /^(\.\/)?spec\b|\.ts$/.test(a)).map((a) => a.replace(/^\.\//, ''));
  if (filters.length > 0 && !USES_DIST.some((f) => filters.some((a) => f.includes(a)))) return;
  ensureBuilt();
}
