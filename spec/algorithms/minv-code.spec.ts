/**
 * CRBA generated per model as WebAssembly (minv-code.ts) against the JavaScript reference (crba.ts),
 * to 1e-12 relative on random configurations, both triangles and the lower one: chains on fixed and
 * floating bases, the project's humanoid, random trees with every joint type (branched: the entries
 * the tree leaves at zero stay zero), and the real robot files of other projects.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MINV_CODE_PAIRS, GeneratedMinv } from '../../src/algorithms/minv-code.ts';
import { minvCarpentier, MinvCarpentierWorkspace } from "../../src/algorithms/minv-carpentier.ts";
import { chain, humanoid, randomTree } from '../../src/model/generators.ts';
import type { Model } from '../../src/model/model.ts';
import { randomConfiguration } from '../../src/model/random.ts';
import { Rng } from '../../src/model/rng.ts';
import { loadUrdf } from '../../src/node/urdf-file.ts';
import { describeShared, shared } from '../shared.ts';

function check(model: Model, seed: number): void {
  const gen = GeneratedMinv.create(model);
  expect(gen).not.toBeNull();
  const ws = new MinvCarpentierWorkspace(model), rng = new Rng(seed), nv = model.nv;
  for (let t = 0; t < 5; t++) {
    const q = randomConfiguration(model, rng);
    const ref = Float64Array.from(minvCarpentier(model, ws, q));
    const scale = Math.max(...ref.map(Math.abs));
    expect(scale).toBeGreaterThan(1e-6);
    const full = Float64Array.from(gen!.compute(q));
    for (let k = 0; k < nv * nv; k++) expect(Math.abs(full[k] - ref[k]), `M entry ${k}`).toBeLessThanOrEqual(1e-11 * scale);
    // another configuration in between: the upper triangle of the next call is q's own
    gen!.compute(randomConfiguration(model, rng), "upper");
    const again = gen!.compute(q, "upper");
    for (let r = 0; r < nv; r++) for (let c = r; c < nv; c++) expect(Math.abs(again[r * nv + c] - ref[r * nv + c])).toBeLessThanOrEqual(1e-11 * scale);
  }
}

describe('generated M⁻¹ = the JavaScript M⁻¹ (Carpentier)', () => {
  const models: [string, () => Model][] = [
    ['chain:6', () => chain(6)],
    ['chain:30 floating', () => chain(30, { floatingBase: true })],
    ['humanoid floating', () => humanoid({ floatingBase: true })],
    ['random tree, every joint type', () => randomTree(24, 5)],
    ['random tree, floating', () => randomTree(18, 8, { floatingBase: true })],
  ];
  for (const [name, make] of models) it(name, () => check(make(), name.length));

  it(`is not made past ${MINV_CODE_PAIRS} (DoF, ancestor) pairs (the JavaScript runs)`, () => {
    expect(GeneratedMinv.create(chain(60))).toBeNull();
  });
});

describeShared('generated M⁻¹ on real robot files', () => {
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
