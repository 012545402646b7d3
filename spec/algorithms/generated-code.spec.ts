/**
 * The recursive algorithms generated per model as WebAssembly (rnea-code.ts, aba-code.ts,
 * crba-code.ts, minv-code.ts) against their JavaScript references (rnea.ts, aba.ts, crba.ts,
 * minv-carpentier.ts) on random states: chains on fixed and floating bases, the project's humanoid,
 * random trees with every joint type (spherical and free-flyer: their transforms built in the code
 * from the quaternions; helical, planar, prismatic, revolute about any axis: from jcalc; multi-DoF joint inertias inverted in the generated code; branched:
 * entries the tree leaves at zero stay zero), q̇ = 0, one triangle and both, and the real robot files
 * of other projects. RNEA and CRBA to 1e-12 relative; ABA and M⁻¹ to 1e-11 (their congruence is
 * summed in another order). Each kernel is refused past its size limit, and a q̈ that is not finite
 * goes through the reference.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GeneratedAba } from '../../src/algorithms/aba-code.ts';
import { aba, abaUnchecked, AbaWorkspace } from '../../src/algorithms/aba.ts';
import { GeneratedCrba } from '../../src/algorithms/crba-code.ts';
import { crba, CrbaWorkspace } from '../../src/algorithms/crba.ts';
import { minvCarpentier, MinvCarpentierWorkspace } from '../../src/algorithms/minv-carpentier.ts';
import { GeneratedMinv } from '../../src/algorithms/minv-code.ts';
import { GeneratedRnea } from '../../src/algorithms/rnea-code.ts';
import { rnea, RneaWorkspace } from '../../src/algorithms/rnea.ts';
import { chain, humanoid, randomTree } from '../../src/model/generators.ts';
import type { Model } from '../../src/model/model.ts';
import { randomConfiguration } from '../../src/model/random.ts';
import { Rng } from '../../src/model/rng.ts';
import { loadUrdf } from '../../src/node/urdf-file.ts';
import { describeShared, shared } from '../shared.ts';

/** |got − ref| ≤ tol · max(1, max |ref|) entry by entry (`keep`: the entries compared) */
function close(got: ArrayLike<number>, ref: Float64Array, tol: number, what: string, keep: (k: number) => boolean = () => true): void {
  const scale = Math.max(1, ...ref.map(Math.abs));
  for (let k = 0; k < ref.length; k++) if (keep(k)) expect(Math.abs(got[k] - ref[k]), `${what}[${k}]`).toBeLessThanOrEqual(tol * scale);
}

/** the four kernels against their references on one model (random states; the values compared are not all zero) */
function check(model: Model, seed: number): void {
  const nv = model.nv, rng = new Rng(seed);
  const gr = GeneratedRnea.create(model)!, ga = GeneratedAba.create(model)!, gc = GeneratedCrba.create(model)!, gm = GeneratedMinv.create(model)!;
  for (const g of [gr, ga, gc, gm]) expect(g).not.toBeNull();
  const rw = new RneaWorkspace(model), aw = new AbaWorkspace(model), cw = new CrbaWorkspace(model), mw = new MinvCarpentierWorkspace(model);
  let largest = 0;
  for (let t = 0; t < 4; t++) {
    const q = randomConfiguration(model, rng), v = rng.array(nv, -2, 2), a = rng.array(nv, -2, 2);
    for (const qd of [v, null]) {
      const tau = Float64Array.from(rnea(model, rw, q, qd, a));
      close(gr.compute(q, qd, a), tau, 1e-12, 'τ');
      close(ga.compute(q, qd, a), Float64Array.from(aba(model, aw, q, qd, a)), 1e-11, 'q̈');
      largest = Math.max(largest, ...tau.map(Math.abs));
    }
    const M = Float64Array.from(crba(model, cw, q)), Mi = Float64Array.from(minvCarpentier(model, mw, q));
    close(gc.compute(q), M, 1e-12, 'M');
    close(gm.compute(q), Mi, 1e-11, 'M⁻¹');
    // one triangle, with another configuration computed in between
    const q2 = randomConfiguration(model, rng);
    gc.compute(q2, 'lower'); gm.compute(q2, 'upper');
    close(gc.compute(q, 'lower'), M, 1e-12, 'M (lower)', (k) => k % nv <= Math.floor(k / nv));
    close(gm.compute(q, 'upper'), Mi, 1e-11, 'M⁻¹ (upper)', (k) => k % nv >= Math.floor(k / nv));
    largest = Math.max(largest, ...M.map(Math.abs));
  }
  expect(largest).toBeGreaterThan(1e-3);
}

describe('generated RNEA, ABA, CRBA and M⁻¹ = the JavaScript references', () => {
  const models: [string, () => Model][] = [
    ['chain:6', () => chain(6)],
    ['chain:30 floating', () => chain(30, { floatingBase: true })],
    ['humanoid floating', () => humanoid({ floatingBase: true })],
    ['random tree, every joint type', () => randomTree(24, 5)],
    ['random tree, floating', () => randomTree(18, 8, { floatingBase: true })],
  ];
  for (const [name, make] of models) it(name, () => check(make(), name.length));

  it('the random tree has spherical, helical, planar and prismatic joints', () => {
    expect(new Set(randomTree(24, 5).jtype).size).toBeGreaterThanOrEqual(4);
  });

  it('each kernel is refused past its size limit (the JavaScript runs)', () => {
    expect(GeneratedAba.create(chain(300, { floatingBase: true }))).toBeNull();
    expect(GeneratedCrba.create(chain(120))).toBeNull();
    // a tree with multi-DoF joints below its root: the straight-line form only, refused past its limit
    expect(GeneratedMinv.create(randomTree(80, 5))).toBeNull();
    expect(GeneratedMinv.create(randomTree(40, 5))!.form).toBe('straight');
    // one DoF per joint but the root's: the column form, whose code grows with the bodies (minv-columns-code.spec.ts)
    expect(GeneratedMinv.create(chain(60))!.form).toBe('columns');
    expect(GeneratedMinv.create(chain(60, { floatingBase: true }))!.form).toBe('columns');
    expect(GeneratedRnea.create(chain(300))).not.toBeNull();
  });

  it('a q̈ that is not finite is the reference\'s', () => {
    const model = chain(5), gen = GeneratedAba.create(model)!, ws = new AbaWorkspace(model);
    const q = new Float64Array(5), tau = Float64Array.from([1, Number.NaN, 0, 0, 0]);
    const ref = Float64Array.from(abaUnchecked(model, ws, q, null, tau));
    expect(Array.from(gen.compute(q, null, tau))).toEqual(Array.from(ref));
    expect(ref.some((x) => Number.isNaN(x))).toBe(true);
  });
});

describeShared('generated kernels on real robot files', () => {
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
