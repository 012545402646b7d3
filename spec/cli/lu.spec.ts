/** The `lu` command end to end through main(): JSON fields, text report, .mtx input, errors, --help. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli as run } from './run.ts';
import { describeShared, shared } from '../shared.ts';


const FIELDS = ['n', 'nnz', 'blocks', 'max_block', 'lu_nnz', 'off_nnz', 'factor_flops', 'solve_flops', 'analyze_ms', 'refactor_us', 'solve_us', 'residual', 'condest'];

describeShared('sparsedyn lu on the benchmark matrices', () => {
  it('--json prints exactly the documented fields', async () => {
    const r = await run(['lu', shared('sparse-bench/robot_ID_100.tri'), '--json', '--runs', '5']);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    expect(Object.keys(j)).toEqual(FIELDS);
    expect([j.n, j.nnz, j.blocks, j.max_block, j.lu_nnz, j.off_nnz, j.factor_flops]).toEqual([2000, 10546, 2000, 1, 2000, 8546, 0]);
    expect(j.solve_flops).toBe(2 * 8546 + 2000);
    expect(j.residual).toBeLessThan(1e-14);
    for (const k of ['analyze_ms', 'refactor_us', 'solve_us']) expect(j[k]).toBeGreaterThan(0);
  });

  it('prints a readable report with the ordering chosen per block', async () => {
    const file = shared('sparse-bench/robot_FD_50.tri');
    const r = await run(['lu', file, '--runs', '3', '--ordering', 'amd']);
    expect(r.code).toBe(0);
    expect(r.out.startsWith(`lu ${file}\n  n 1000, nnz 5246\n  blocks 174, largest 827\n`)).toBe(true);
    expect(r.out).toMatch(/block \d+ \(size 827\): amd, \d+ flops \[amd \d+\]/);
    expect(r.out).toMatch(/residual ‖Ax−b‖\/‖b‖ \d\.\d\de-1[4-7]/);
  });
});

describe('sparsedyn lu', () => {

  it('reads Matrix Market files', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sparsedyn-lu-'));
    const f = join(dir, 'a.mtx');
    writeFileSync(f, '%%MatrixMarket matrix coordinate real general\n3 3 5\n1 1 4\n2 1 1\n2 2 3\n3 3 2\n1 3 1\n');
    const r = await run(['lu', f, '--json', '--runs', '3']);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    expect([j.n, j.nnz, j.blocks, j.factor_flops]).toEqual([3, 5, 3, 0]);
    expect(j.residual).toBeLessThan(1e-15);
  });

  it('exits 2 naming the file for a missing or unusable file and an unknown ordering, 1 for a singular matrix', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sparsedyn-lu-'));
    const missing = await run(['lu', join(dir, 'nope.tri')]);
    expect(missing.code).toBe(2);
    expect(missing.err).toBe(`sparsedyn lu: ${join(dir, 'nope.tri')}: cannot read the matrix file (no such file)\n`);
    const ok = join(dir, 'ok.tri');
    writeFileSync(ok, '1 1 2\n2 1 1\n2 2 3\n');
    const bad = await run(['lu', ok, '--ordering', 'metis']);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/^sparsedyn lu: unknown ordering "metis"; expected auto or one of natural, amd/);
    const hex = join(dir, 'hex.tri');
    writeFileSync(hex, '1 1 0x10\n');
    const h = await run(['lu', hex]);
    expect(h.code).toBe(2);
    expect(h.err).toBe(`sparsedyn lu: ${hex} line 1: value is not a decimal number in "1 1 0x10"\n`);
    const f = join(dir, 's.tri');
    writeFileSync(f, '1 1 1\n1 2 1\n2 3 1\n3 3 1\n');
    const sing = await run(['lu', f]);
    expect(sing.code).toBe(1);
    expect(sing.err).toMatch(new RegExp(`^sparsedyn lu: ${f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: matrix is structurally singular: structural rank 2 < n = 3`));
  });

  it('--help describes the command', async () => {
    const r = await run(['lu', '--help']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/Usage: sparsedyn lu \[options\] <file>/);
    expect(r.out).toMatch(/--ordering <name>/);
    expect(r.out).toMatch(/--json/);
  });
});
