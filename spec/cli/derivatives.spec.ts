/** The `derivatives` command end to end, through main(): JSON fields, methods agree, state files, errors named. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli as run } from './run.ts';
import { LuForwardDynamicsDerivatives } from '../../src/derivatives/dynamics.ts';
import { relativeErrors } from '../../src/derivatives/finite-differences.ts';
import { Rng } from '../../src/model/rng.ts';
import { loadUrdf } from '../../src/node/urdf-file.ts';
import { randomState } from '../state.ts';


const dir = mkdtempSync(join(tmpdir(), 'sparsedyn-derivatives-'));
const flat = (rows: number[][]) => rows.flat();

describe('sparsedyn derivatives', () => {
  it('--json: the documented fields, and lu, recursive and fd agree on a random state', async () => {
    const base = ['derivatives', '--model', 'models/chain6.urdf', '--random-state', '4', '--problem', 'id', '--json'];
    const lu = JSON.parse((await run([...base, '--method', 'lu'])).out);
    const rec = JSON.parse((await run([...base, '--method', 'recursive'])).out);
    const adj = JSON.parse((await run([...base, '--method', 'lu-adjoint'])).out);
    expect(adj.flops.products.total).toBeGreaterThan(0);
    const fd = JSON.parse((await run([...base, '--method', 'fd'])).out);
    expect(lu.nv).toBe(6);
    expect(lu.dofs).toHaveLength(6);
    for (const k of ['tau', 'dtau_dq', 'dtau_dv', 'M', 'flops']) expect(lu, k).toHaveProperty(k);
    expect(lu.dtau_dq).toHaveLength(6);
    expect(lu.flops.jacobians.total).toBeGreaterThan(0);
    expect(lu.flops.solves.total).toBeGreaterThan(0);
    expect(rec.flops.derivatives.total).toBeGreaterThan(0);
    for (const k of ['dtau_dq', 'dtau_dv', 'M']) {
      expect(relativeErrors(flat(rec[k]), flat(lu[k])).max, k).toBeLessThan(1e-10);
      expect(relativeErrors(flat(adj[k]), flat(lu[k])).max, k).toBeLessThan(1e-10);
      expect(relativeErrors(flat(fd[k]), flat(lu[k])).max, k).toBeLessThan(1e-7);
    }
    expect(fd.delta).toBe(1e-6);
  });

  it('reads q, v, tau from a state file (floating base) and matches the library', async () => {
    const model = loadUrdf('models/humanoid.urdf', { floatingBase: true });
    const { q, v, tau } = randomState(model, new Rng(12));
    const file = join(dir, 'humanoid.json');
    writeFileSync(file, JSON.stringify({ q: Array.from(q), v: Array.from(v), tau: Array.from(tau) }));
    const r = await run(['derivatives', '--model', 'models/humanoid.urdf+floating', '--state', file, '--problem', 'fd', '--method', 'recursive', '--json']);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    const lib = new LuForwardDynamicsDerivatives(model).compute(q, v, tau);
    expect(relativeErrors(j.qdd, lib.value).max).toBeLessThan(1e-12);
    expect(relativeErrors(flat(j.dqdd_dq), lib.dq).max).toBeLessThan(1e-10);
    expect(relativeErrors(flat(j.Minv), lib.du).max).toBeLessThan(1e-10);
  });

  it('--check runs the other methods and exits 0 when they agree; the text output prints small matrices, summarizes large ones', async () => {
    const small = await run(['derivatives', '--model', 'models/chain6.urdf', '--random-state', '2', '--problem', 'fd', '--check']);
    expect(small.code).toBe(0);
    expect(small.out).toMatch(/check against recursive: qdd/);
    expect(small.out).toMatch(/check against fd: qdd/);
    expect(small.out).toMatch(/check against lu-adjoint: qdd/);
    expect(small.out).toMatch(/check: all methods agree/);
    expect(small.out).toMatch(/dqdd_dq \(rows: outputs, columns: tangent directions δq\):/);
    const large = await run(['derivatives', '--model', 'tree:14:3+floating', '--random-state', '1', '--problem', 'id']);
    expect(large.code).toBe(0);
    expect(large.out).toMatch(/dtau_dq: 22×22, max \|entry\|/);
    expect(large.out).toMatch(/printed with --json/);
  });

  it('names the missing or malformed field and the conflicting options', async () => {
    const model = loadUrdf('models/chain6.urdf');
    const { q, v, a } = randomState(model, new Rng(3));
    const file = join(dir, 'chain6.json');
    writeFileSync(file, JSON.stringify({ q: Array.from(q), v: Array.from(v), a: Array.from(a) }));
    let r = await run(['derivatives', '--model', 'models/chain6.urdf', '--state', file, '--problem', 'fd']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/"tau" is missing \(--problem fd needs the generalized forces τ\)/);
    writeFileSync(file, JSON.stringify({ q: Array.from(q), a: [1, 2] }));
    r = await run(['derivatives', '--model', 'models/chain6.urdf', '--state', file, '--problem', 'id']);
    expect(r.err).toMatch(/a has length 2, expected model.nv = 6/);
    r = await run(['derivatives', '--model', 'models/chain6.urdf', '--state', file, '--random-state', '1', '--problem', 'id']);
    expect(r.err).toMatch(/exactly one of --state FILE and --random-state SEED/);
    r = await run(['derivatives', '--model', 'models/chain6.urdf', '--random-state', '1', '--problem', 'id', '--method', 'fd', '--delta', '-1']);
    expect(r.err).toMatch(/--delta must be a positive number, got "-1"/);
    r = await run(['derivatives', '--model', 'models/chain6.urdf', '--random-state', '1']);
    expect(r.code).not.toBe(0);
    expect(r.err).toMatch(/--problem/);
  });
});
