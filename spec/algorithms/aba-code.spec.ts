/**
 * ABA generated per model as WebAssembly (aba-code.ts) against the JavaScript reference (aba.ts), to
 * 1e-11 relative on random states (the congruence is summed in another order): chains on fixed and
 * floating bases, the project's humanoid, random trees with every joint type (spherical, helical,
 * planar: multi-DoF joint inertias inverted in the generated code), q̇ = 0, the real robot files of
 * other projects; a q̈ that is not finite goes through the reference.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GeneratedAba } from '../../src/algorithms/aba-code.ts';
import { aba, abaUnchecked, AbaWorkspace } from '../../src/algorithms/aba.ts';
import { chain, humanoid, randomTree } from '../../src/model/generators.ts';
import type { Model } from '../../src/model/model.ts';
import { randomConfiguration } from '../../src/model/random.ts';
import { Rng } from '../../src/model/rng.ts';
import { loadUrdf } from '../../src/node/urdf-file.ts';
import { describeShared, shared } from '../shared.ts';

function check(model: Model, seed: number): void {
  const gen = GeneratedAba.create(model);
  expect(gen).not.toBeNull();
  const ws = new AbaWorkspace(model), rng = new Rng(seed);
  let largest = 0;
  for (let t = 0; t < 6; t++) {
    const q = randomConfiguration(model, rng), v = rng.array(model.nv, -2, 2), tau = rng.array(model.nv, -5, 5);
    for (const qd of [v, null]) {
      const ref = Float64Array.from(aba(model, ws, q, qd, tau));
      const got = gen!.compute(q, qd, tau);
      const scale = Math.max(1, ...ref.map(Math.abs));
      for (let k = 0; k < model.nv; k++) expect(Math.abs(got[k] - ref[k]), `q̈[${k}]`).toBeLessThanOrEqual(1e-11 * scale);
      largest = Math.max(largest, ...ref.map(Math.abs));
    }
  }
  expect(largest).toBeGreaterThan(1e-3);
}

describe('generated ABA = the JavaScript ABA', () => {
  const models: [string, () => Model][] = [
    ['chain:6', () => chain(6)],
    ['chain:40 floating', () => chain(40, { floatingBase: true })],
    ['humanoid floating', () => humanoid({ floatingBase: true })],
    ['random tree, every joint type', () => randomTree(24, 5)],
    ['random tree, floating', () => randomTree(18, 8, { floatingBase: true })],
  ];
  for (const [name, make] of models) it(name, () => check(make(), name.length));

  it('a q̈ that is not finite is the reference\'s', () => {
    const model = chain(5), gen = GeneratedAba.create(model)!, ws = new AbaWorkspace(model);
    const q = new Float64Array(5), tau = Float64Array.from([1, Number.NaN, 0, 0, 0]);
    const ref = Float64Array.from(abaUnchecked(model, ws, q, null, tau));
    expect(Array.from(gen.compute(q, null, tau))).toEqual(Array.from(ref));
    expect(ref.some((x) => Number.isNaN(x))).toBe(true);
  });

  it('is not made past its size limit (the JavaScript runs)', () => {
    expect(GeneratedAba.create(chain(300))).toBeNull();
  });
});

describeShared('generated ABA on real robot files', () => {
  it('every robot of the models folder, fixed and floating', () => {
    const dir = shared('models');
    const files = readdirSync(dir).filter((f) => f.endsWith('.urdf'));
    expect(files.length).toBeGreaterThan(3);
    for (const f of files) {
      let model: Model;
      try { model = loadUrdf(join(dir, f)); } catch { continue; }
      if (model.singularBodies.length > 0) continue;
      check(model, 3);
      check(loadUrdf(join(dir, f), { floatingBase: true }), 4);
    }
  });
});
