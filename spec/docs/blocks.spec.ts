/**
 * Every code block of the guide runs (docs/**.md and the README; spec/docs/markdown.ts says how a
 * page marks its blocks). Each page gets a fresh folder holding copies of the repository's data/,
 * models/, examples/ and schemas/, with `sparsedyn` and `tsx` installed there as a user has them
 * (`npx sparsedyn`, `import … from 'sparsedyn'`: the built package), and its blocks run in order in
 * it: shell blocks with bash (`set -e`, their exit code checked), TypeScript with tsx; JSON blocks
 * are written as the files they show, compared with the files they quote, or parsed; a block's
 * shown output is checked against what it printed. Blocks that cannot run are marked with a reason
 * and counted here: a new one must be added to the count, on purpose.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync, readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, tempDir } from '../package/dist.ts';
import { HAS_SHARED, shared } from '../shared.ts';
import { blocksOf, DATA_LANGS, guidePages, missingLine, RUN_LANGS, type Block } from './markdown.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const TSX = resolve(ROOT, 'node_modules/tsx/dist/cli.mjs');

/** blocks marked `skip`, by page: each with its reason (update on purpose when a page gains or loses one) */
const EXPECTED_SKIPPED = 9;

const counts = { shell: 0, typescript: 0, json: 0, output: 0, skipped: [] as string[], sharedMissing: [] as string[], needsMissing: [] as string[] };
const IN_CI = process.env.CI === '1' || process.env.CI === 'true';

/** A folder as a user's: the repository's data, models, examples and schemas, and the package installed. */
function fixture(name: string): string {
  const dir = tempDir(`docs-${name.replace(/[^a-z0-9]+/gi, '-')}`);
  for (const d of ['data', 'models', 'examples', 'schemas']) cpSync(resolve(ROOT, d), join(dir, d), { recursive: true });
  // scripts of the repository (the lab notebook's) read src/ beside them; nothing is written there
  for (const d of ['scripts', 'src', 'studies']) symlinkSync(resolve(ROOT, d), join(dir, d));
  mkdirSync(join(dir, 'node_modules/.bin'), { recursive: true });
  symlinkSync(ROOT, join(dir, 'node_modules/sparsedyn'));
  symlinkSync(resolve(ROOT, 'bin/sparsedyn.mjs'), join(dir, 'node_modules/.bin/sparsedyn'));
  symlinkSync(TSX, join(dir, 'node_modules/.bin/tsx'));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'guide-reader', private: true, type: 'module' }));
  return dir;
}

function run(cmd: string, args: string[], cwd: string): { code: number | null; out: string } {
  const env = { ...process.env, NODE_OPTIONS: '', NO_COLOR: '1', FORCE_COLOR: '0', PATH: `${join(cwd, 'node_modules/.bin')}:${process.env.PATH}`, npm_config_update_notifier: 'false', npm_config_offline: 'true' };
  const r = spawnSync(cmd, args, { cwd, env, encoding: 'utf8', timeout: 240_000, maxBuffer: 64 * 1024 * 1024 });
  return { code: r.status, out: `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? `\n${r.error.message}` : ''}` };
}

/** the object `{…}` of a JSON excerpt ("key": value, …) */
const wrap = (code: string): unknown => JSON.parse(`{${code}}`);

function runPage(page: string, blocks: Block[]): void {
  const dir = fixture(page);
  let last: { block: Block; out: string } | null = null;
  const where = (b: Block) => `${b.page}:${b.line}`;
  try {
    for (let k = 0; k < blocks.length; k++) {
      const b = blocks[k];
      if (b.skip !== undefined) {
        counts.skipped.push(`${where(b)}: ${b.skip}`);
        continue;
      }
      if (b.shared.length) {
        if (!HAS_SHARED) {
          // outside CI only (spec/shared.ts fails the run in CI without the folder); the blocks after it may need its files
          for (const r of blocks.slice(k)) counts.sharedMissing.push(where(r));
          process.stdout.write(`${where(b)}: skipped with the blocks after it (needs the shared test material: ${b.shared.join(', ')})\n`);
          return;
        }
        for (const f of b.shared) copyFileSync(shared(f), join(dir, basename(f)));
      }
      if (b.needs !== undefined && !IN_CI && run('bash', ['-c', b.needs], dir).code !== 0) {
        // a program a user's machine may lack (CI installs it): the blocks after it may need it too
        for (const r of blocks.slice(k)) counts.needsMissing.push(where(r));
        process.stdout.write(`${where(b)}: skipped with the blocks after it (needs what \`${b.needs}\` checks for, not installed here)\n`);
        return;
      }
      if (RUN_LANGS.has(b.lang)) {
        if (b.lang === 'python' || b.lang === 'html') throw new Error(`${where(b)}: a ${b.lang} block cannot run here: mark it <!-- test: skip REASON -->`);
        let r: { code: number | null; out: string };
        if (b.lang === 'ts' || b.lang === 'typescript' || b.lang === 'js' || b.lang === 'javascript') {
          const file = `block-${b.line}.${b.lang.startsWith('t') ? 'ts' : 'js'}`;
          writeFileSync(join(dir, file), b.code);
          r = run(process.execPath, [TSX, file], dir);
          counts.typescript++;
        } else {
          r = run('bash', ['-e', '-o', 'pipefail', '-c', b.code], dir);
          counts.shell++;
        }
        expect(r.code, `${where(b)} exit code; output:\n${r.out}`).toBe(b.exit);
        expect(r.out, `${where(b)}: no JavaScript error or NaN in the output`).not.toMatch(/\b(TypeError|ReferenceError|SyntaxError)\b|\bNaN\b/);
        last = { block: b, out: r.out };
      } else if (b.output) {
        expect(last, `${where(b)}: an output block follows a block that ran`).not.toBeNull();
        expect(missingLine(last!.out, b.code), `${where(b)}: the output shown is not what ${where(last!.block)} printed:\n${last!.out}`).toBeNull();
        counts.output++;
      } else if (b.lang === 'json') {
        if (b.file) writeFileSync(join(dir, b.file), `${b.code}\n`);
        else if (b.excerpt) {
          const whole = JSON.parse(readFileSync(resolve(ROOT, b.excerpt), 'utf8')) as Record<string, unknown>;
          const part = wrap(b.code) as Record<string, unknown>;
          for (const key of Object.keys(part)) expect(part[key], `${where(b)}: "${key}" as in ${b.excerpt}`).toEqual(whole[key]);
        } else if (b.fragment) wrap(b.code);
        else JSON.parse(b.code);
        counts.json++;
      } else if (!DATA_LANGS.has(b.lang)) {
        throw new Error(`${where(b)}: a block of language "${b.lang}": run it, show it as text, or mark it skipped`);
      }
    }
  } finally {
    if (existsSync(dir)) rmSync(dir, { recursive: true, force: true });
  }
}

describe('every code block of the guide runs', () => {
  beforeAll(() => ensureBuilt(), 300_000);

  const pages = guidePages(ROOT).map((p) => ({ page: p, blocks: blocksOf(ROOT, p) })).filter((p) => p.blocks.length > 0);
  for (const { page, blocks } of pages) {
    it(`${page}: ${blocks.length} blocks`, () => runPage(page, blocks), 600_000);
  }

  it('the blocks that cannot run are marked, with a reason, and counted', () => {
    const all = pages.flatMap((p) => p.blocks);
    expect(all.filter((b) => RUN_LANGS.has(b.lang)).length).toBeGreaterThan(40);
    const skipped = all.filter((b) => b.skip !== undefined).map((b) => `${b.page}:${b.line}: ${b.skip}`);
    expect(skipped, 'blocks marked skip (change EXPECTED_SKIPPED on purpose)').toHaveLength(EXPECTED_SKIPPED);
    for (const s of skipped) expect(s).not.toMatch(/\(no reason given\)$/);
  });

  afterAll(() => {
    process.stdout.write(`guide blocks: ${counts.shell} shell and ${counts.typescript} TypeScript blocks run, ${counts.output} outputs checked, ${counts.json} JSON blocks written or parsed; `
      + `${counts.skipped.length} marked skip${counts.sharedMissing.length ? `, ${counts.sharedMissing.length} not run for want of the shared test material` : ''}${counts.needsMissing.length ? `, ${counts.needsMissing.length} not run for want of a program this machine lacks` : ''}\n`
      + counts.skipped.map((s) => `  skip ${s}\n`).join(''));
  });
});
