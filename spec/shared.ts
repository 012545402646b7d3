/**
 * Material from other projects (real robot files, reference values, benchmark matrices) is read
 * from ../shared beside the repository, never copied into it. A user's clone has no ../shared:
 * the groups of tests that need it skip, each with one line saying so. In CI (CI=1 or CI=true) it
 * must be there.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe } from 'vitest';

/** absolute path of the shared folder (../shared beside the repository) */
export const SHARED_DIR = resolve(import.meta.dirname, '../../shared');
const present = existsSync(SHARED_DIR);
const inCi = process.env.CI === '1' || process.env.CI === 'true';
if (!present && inCi) throw new Error(`CI: ${SHARED_DIR} is missing; the shared test material must be beside the repository in CI`);

/** whether ../shared is there */
export const HAS_SHARED = present;

/** path of a file or folder inside ../shared */
export function shared(...parts: string[]): string {
  return resolve(SHARED_DIR, ...parts);
}

/**
 * describe() for a group that needs ../shared: without it the group is skipped, with one line
 * naming it. The group's body runs even when skipped (vitest collects the tests), so it must not
 * read the shared files itself: read them inside the tests or in beforeAll.
 */
export function describeShared(name: string, fn: () => void): void {
  if (!present) process.stderr.write(`skipped (needs the real robot files, reference values and benchmark matrices of other projects, not here: ${SHARED_DIR}): ${name}\n`);
  (present ? describe : describe.skip)(name, fn);
}
