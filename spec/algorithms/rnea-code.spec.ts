/**
 * RNEA generated per model as WebAssembly (rnea-code.ts) against the JavaScript reference (rnea.ts),
 * to 1e-12 relative on random states: chains on fixed and floating bases, the project's humanoid,
 * random trees with every joint type (spherical, helical, planar, prismatic, revolute about any
 * axis: their transforms computed by jcalc), q̇ = 0, and the real robot files of other projects.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GeneratedRnea } from '../../src/algorithms/rnea-code.ts';
import { rnea, RneaWorkspace } from '../../src/algorithms/rnea.ts';
import { chain, humanoid, randomTree } from '../../src/model/generators.ts';
import type { Model } from '../../src/model/model.ts';
import { randomConfiguration } from '../../src/model/random.ts';
import { Rng } from '../../src/model/rng.ts';
import { loadUrdf } from '../../src/node/urdf-file.ts';
import { describeShared, shared } from '../shared.ts';

function check(model: Model, seed: number): void {
  const gen = GeneratedRnea.create(model);
  expect(gen).not.toBeNull();
  const ws = new RneaWorkspace(model), rng = new Rng(seed);
  let largest = 0;
  for (let t = 0; t < 6; t++) {
    const q = randomConfiguration(model, rng), v = rng.array(model.nv, -2, 2), a = rng.array(model.nv, -2, 2);
    for (const qd of [v, null]) {
      const ref = Float64Array.from(rnea(model, ws, q, qd, a));
      const got = gen!.compute(q, qd, a);
      const scale = Math.max(1, ...ref.map(Math.abs));
      for (let k = 0; k < model.nv; k++) expect(Math.abs(got[k] - ref[k]), `τ[${k}]`).toBeLessThanOrEqual(1e-12 * scale);
      largest = Math.max(largest, ...ref.map(Math.abs));
    }
  }
  // the comparison is not between zeros
  expect(largest).toBeGreaterThan(1e-3);
}

describe('generated RNEA = the JavaScript RNEA', () => {
  const models: [string, () => Model][] = [
    ['chain:6', () => chain(6)],
    ['chain:40 floating', () => chain(40, { floatingBase: true })],
    ['humanoid floating', () => humanoid({ floatingBase: true })],
    ['random tree, every joint type', () => randomTree(24, 5)],
    ['random tree, floating', () => randomTree(18, 8, { floatingBase: true })],
  ];
  for (const [name, make] of models) it(name, () => check(make(), name.length));

  it('a model with spherical, helical and planar joints has them', () => {
    const jt = new Set(randomTree(24, 5).jtype);
    expect(jt.size).toBeGreaterThanOrEqual(4);
  });
});

describeShared('generated RNEA on real robot files', () => {
  it('every robot of the models folder, fixed and floating', () => {
    const dir = shared('models');
    const files = readdirSync(dir).filter((f) => f.endsWith('.urdf'));
    expect(files.length).toBeGreaterThan(3);
    for (const f of files) {
      let model: Model;
      try { model = loadUrdf(join(dir, f)); } catch { continue; }
      check(model, 3);
      check(loadUrdf(join(dir, f), { floatingBase: true }), 4);
    }
  });
});
