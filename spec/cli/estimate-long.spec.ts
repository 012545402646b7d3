/**
 * `estimate` on long logs and in many processes: a log of 130,000 samples (the summary's figures
 * over every sample without spreading them into one call: that overflowed above about 125,000), and
 * `--cache DIR` (the problem's offline work written by a first run and read by the next: the same
 * estimates, the summary says so; an unreadable cache file is done again and replaced; other options
 * another file).
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli as run } from './run.ts';

const dir = mkdtempSync(join(tmpdir(), 'sparsedyn-long-'));

describe('estimate on long logs and with --cache', () => {
  it('a log of 130,000 samples: every sample estimated, the summary written', async () => {
    const problem = join(dir, 'p.json'), log = join(dir, 'long.ndjson');
    writeFileSync(problem, JSON.stringify({ model: 'chain:2', base: 'fixed', contacts: [], sensors: [{ name: 'tau', type: 'joint_torque', joints: 'all', variance: 0.01 }, { name: 'qdd', type: 'joint_acceleration', joints: 'all', variance: 0.01 }] }));
    expect((await run(['synth', problem, '--samples', '130000', '--out', log, '--quiet'])).code).toBe(0);
    const r = await run(['estimate', problem, '--data', log, '--out', join(dir, 'long-est.ndjson'), '--no-html', '--jobs', '1']);
    expect(r.code, r.err.slice(-500)).toBe(0);
    expect(r.err).toMatch(/samples estimated 130000, rows skipped 0/);
    expect(r.err).toMatch(/condition figure: median [0-9.]+, largest [0-9.]+/);
  }, 120_000);

  it('--cache: the second run starts from the first one\'s offline work, with the same estimates', async () => {
    const cache = join(dir, 'cache');
    const common = ['estimate', 'data/problems/humanoid-demo.json', '--data', 'data/demo/humanoid.ndjson', '--no-html', '--jobs', '1', '--cache', cache];
    const a = await run([...common, '--out', join(dir, 'a.ndjson')]);
    const b = await run([...common, '--out', join(dir, 'b.ndjson')]);
    expect(a.code).toBe(0); expect(b.code).toBe(0);
    expect(a.err).not.toMatch(/from --cache/);
    expect(b.err).toMatch(/offline analysis [0-9.]+ ms, typical uncertainties [0-9]+ ms \(from --cache\)/);
    expect(readFileSync(join(dir, 'b.ndjson'), 'utf8')).toBe(readFileSync(join(dir, 'a.ndjson'), 'utf8'));
    const files = readdirSync(cache);
    expect(files).toHaveLength(1);
    // an unreadable cache file: done again, and replaced
    writeFileSync(join(cache, files[0]), '{"not": "offline work"');
    const c = await run([...common, '--out', join(dir, 'c.ndjson')]);
    expect(c.code).toBe(0);
    expect(c.err).not.toMatch(/from --cache/);
    expect(readFileSync(join(dir, 'c.ndjson'), 'utf8')).toBe(readFileSync(join(dir, 'a.ndjson'), 'utf8'));
    expect(Array.isArray(JSON.parse(readFileSync(join(cache, files[0]), 'utf8')))).toBe(true);
    // other options that shape the offline work: another file
    expect((await run([...common, '--out', join(dir, 'd.ndjson'), '--no-bad-data'])).code).toBe(0);
    expect(readdirSync(cache)).toHaveLength(2);
  }, 120_000);
});
