/** `sparsedyn flops` end to end: JSON fields, figures equal to the kernels' counts, saved orderings, help. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { aba, AbaWorkspace } from '../../src/algorithms/aba.ts';
import { rnea, RneaWorkspace } from '../../src/algorithms/rnea.ts';
import { flopsReport, randomDynamicsState } from '../../src/assembly/flops-report.ts';
import { fullCollection } from '../../src/node/collect.ts';
import { runCli as run } from './run.ts';
import { parseModelSpec } from '../../src/node/spec.ts';
import { Rng } from '../../src/model/rng.ts';


type Fig = { mul: number; add: number; div: number; total: number };
function expectFigure(f: Fig, what: string): void {
  expect(Object.keys(f).sort(), what).toEqual(['add', 'div', 'mul', 'total']);
  for (const k of ['mul', 'add', 'div'] as const) expect(Number.isInteger(f[k]) && f[k] >= 0, `${what}.${k}`).toBe(true);
  expect(f.total, what).toBe(f.mul + f.add + f.div);
}

describe('sparsedyn flops', () => {
  it('collects between the paths when given a collection (twice; the same report); fullCollection frees what is unreachable', async () => {
    const model = parseModelSpec('tree:12:5+floating');
    let calls = 0;
    const withCollect = flopsReport(model, { seed: 3, collect: () => { calls++; } }).report;
    expect(calls).toBe(2);
    expect(withCollect).toEqual(flopsReport(model, { seed: 3 }).report);
    const gc = fullCollection();
    expect(typeof gc).toBe('function');
    // the engine's flag is back as it was (the command line's code cache is keyed by the flags): no gc in a new context
    expect(runInNewContext('typeof gc')).toBe('undefined');
    const ref = (() => new WeakRef(new Float64Array(1 << 20)))();
    const tick = () => new Promise((r) => setImmediate(r));
    await tick();
    // alive before the collection (a WeakRef's target is kept until the end of the job that read it)
    expect(ref.deref()).toBeInstanceOf(Float64Array);
    await tick();
    gc!();
    expect(ref.deref()).toBeUndefined();
  });

  it('--json has the documented fields; figures add up and equal the kernels\' counts', async () => {
    const spec = 'tree:12:5+floating';
    const r = await run(['flops', '--model', spec, '--json', '--seed', '3']);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    for (const k of ['rnea', 'aba', 'aba_matrix', 'lu_id', 'lu_fd', 'n', 'nnz']) expect(j, k).toHaveProperty(k);
    expectFigure(j.rnea, 'rnea');
    expectFigure(j.aba, 'aba');
    for (const p of ['lu_id', 'lu_fd']) {
      const f = j[p];
      for (const part of ['kinematics', 'fill', 'factor', 'solve', 'total']) expectFigure(f[part], `${p}.${part}`);
      expect(f.total.total).toBe(f.kinematics.total + f.fill.total + f.factor.total + f.solve.total);
      for (const k of ['n', 'nnz', 'blocks', 'max_block', 'lu_nnz', 'off_nnz']) expect(Number.isInteger(f[k]), `${p}.${k}`).toBe(true);
    }
    const m = j.aba_matrix;
    for (const part of ['kinematics', 'fill', 'inertias', 'product', 'solve', 'total', 'without_inertias']) expectFigure(m[part], `aba_matrix.${part}`);
    expect(m.total.total).toBe(m.kinematics.total + m.fill.total + m.inertias.total + m.product.total + m.solve.total);
    expect(m.without_inertias.total).toBe(m.total.total - m.inertias.total);
    // inverse dynamics is triangular: no factorization work, one block per unknown
    expect(j.lu_id.factor.total).toBe(0);
    expect(j.lu_id.blocks).toBe(j.lu_id.n);
    expect(j.n).toBe(j.lu_fd.n);
    expect(j.nnz).toBe(j.lu_fd.nnz);
    for (const k of ['lu_id', 'lu_fd', 'aba_matrix']) expect(j.agreement[k], k).toBeLessThan(1e-12);
    // the same state through the gold standards gives the same counts
    const model = parseModelSpec(spec);
    const s = randomDynamicsState(model, new Rng(3));
    const rw = new RneaWorkspace(model), aw = new AbaWorkspace(model);
    rnea(model, rw, s.q, s.v, s.a, s.fext);
    aba(model, aw, s.q, s.v, s.tau, s.fext);
    expect(j.rnea.total).toBe(rw.totalFlops().total);
    expect(j.aba.total).toBe(aw.totalFlops().total);
    expect(j.lu_id.kinematics).toEqual(j.lu_fd.kinematics);
  });

  it('prints a table by default', async () => {
    const r = await run(['flops', '--model', 'chain:10']);
    expect(r.code).toBe(0);
    for (const s of ['RNEA', 'ABA', 'matrix ABA', '(a) I^A recursion', '(b) W^L D W^R', 'factor', 'inverse-dynamics D: n = 200', 'BTF blocks']) expect(r.out).toContain(s);
  });

  it('saves the offline orderings and loads them back to the same figures; refuses another model\'s', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sparsedyn-flops-'));
    const a = await run(['flops', '--model', 'humanoid', '--json', '--save-symbolic', dir]);
    const b = await run(['flops', '--model', 'humanoid', '--json', '--symbolic', dir]);
    expect(a.code).toBe(0);
    expect(b.code).toBe(0);
    expect(JSON.parse(b.out)).toEqual(JSON.parse(a.out));
    const c = await run(['flops', '--model', 'chain:5', '--symbolic', dir]);
    expect(c.code).toBe(2);
    expect(c.err).toMatch(/--symbolic .*SymbolicLU.*does not belong/);
    const d = await run(['flops', '--model', 'chain:5', '--symbolic', join(dir, 'nope')]);
    expect(d.code).toBe(2);
    expect(d.err).toMatch(/cannot read .*lu_id\.symbolic\.json/);
  });

  it('--help explains the counting convention', async () => {
    const r = await run(['flops', '--help']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/A multiply-add is two flops/);
    expect(r.out).toMatch(/--save-symbolic/);
  });
});
