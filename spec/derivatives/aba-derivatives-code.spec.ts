/**
 * The forward-dynamics derivatives from the generated kernels (aba-derivatives-code.ts: generated
 * M⁻¹, q̈ = M⁻¹ (τ − b) by the generated RNEA (the generated ABA where that is not finite), generated
 * RNEA derivatives and dense products) against
 * RecursiveForwardDynamicsDerivatives (recursive.ts) on random states: chains of odd and even nv,
 * random trees with every joint type on fixed and floating bases (branches: the products skip rows),
 * the project's humanoid, q̇ = 0, and every file of the URDF corpus that loads and whose M is
 * positive definite (skipped without ../shared); not made past the generated M⁻¹'s limit. q̈ to
 * 1e-11 and ∂q̈/∂q, ∂q̈/∂q̇, M⁻¹ to 1e-10 relative to each output's largest entry (q̈ by M⁻¹ (τ − b) against
 * the factorization's solve, and −M⁻¹ B by two routes, differ by the conditioning of M times the
 * rounding, as spec/derivatives/rnea-derivatives.spec.ts allows; ten times looser on the corpus,
 * whose robots include badly conditioned M). Allocates nothing per call.
 */
import { describe, expect, it } from 'vitest';
import { GeneratedAbaDerivatives } from '../../src/derivatives/aba-derivatives-code.ts';
import { RecursiveForwardDynamicsDerivatives } from '../../src/derivatives/recursive.ts';
import { chain, humanoid, randomTree } from '../../src/model/generators.ts';
import type { Model } from '../../src/model/model.ts';
import { randomConfiguration } from '../../src/model/random.ts';
import { Rng } from '../../src/model/rng.ts';
import { bytesPerCall } from '../allocation.ts';
import { expectEntriesClose, maxAbs } from '../helpers.ts';
import { forEachCorpusModel } from '../corpus.ts';
import { describeShared } from '../shared.ts';

/** the corpus's robots include badly conditioned M (tiny links beside heavy ones): the two routes agree to cond(M) times the rounding (tiago_pro floating: q̈ to 1.5e-11) */
const TOL_CORPUS = 1e-9;

function check(model: Model, seed: number, tol = 1e-10, states = 2): void {
  const nv = model.nv, rng = new Rng(seed);
  const g = GeneratedAbaDerivatives.create(model)!, ref = new RecursiveForwardDynamicsDerivatives(model);
  expect(g, 'made').not.toBeNull();
  for (let t = 0; t < states; t++) {
    const q = randomConfiguration(model, rng), v = rng.array(nv, -1, 1), tau = rng.array(nv, -1, 1);
    for (const qd of [v, null]) {
      ref.compute(q, qd, tau);
      g.compute(q, qd, tau);
      const how = qd ? 'q̇ random' : 'q̇ = 0';
      const floor = 1e-3 * Math.max(maxAbs(ref.dq), maxAbs(ref.dv), maxAbs(ref.du));
      expectEntriesClose(g.value, ref.value, tol / 10, `q̈ (${how})`, 0);
      expectEntriesClose(g.dq, ref.dq, tol, `∂q̈/∂q (${how})`, floor);
      expectEntriesClose(g.dv, ref.dv, tol, `∂q̈/∂q̇ (${how})`, floor);
      expectEntriesClose(g.du, ref.du, tol, `M⁻¹ (${how})`, floor);
    }
  }
}

describe('forward-dynamics derivatives from the generated kernels = RecursiveForwardDynamicsDerivatives', () => {
  const models: [string, () => Model][] = [
    ['chain:2', () => chain(2)],
    ['chain:3', () => chain(3)],
    ['chain:5', () => chain(5)],
    ['chain:7 (odd nv)', () => chain(7)],
    ['chain:3 floating (odd nv)', () => chain(3, { floatingBase: true })],
    ['chain:24', () => chain(24)],
    ['chain:7 floating', () => chain(7, { floatingBase: true })],
    ['humanoid floating', () => humanoid({ floatingBase: true })],
    ['random tree, every joint type', () => randomTree(20, 71, { mix: { prismatic: 2, helical: 2, spherical: 2, planar: 2 } })],
    ['random tree, every joint type, floating', () => randomTree(20, 72, { floatingBase: true, mix: { prismatic: 2, helical: 2, spherical: 2, planar: 2 } })],
  ];
  for (const [name, make] of models) it(name, () => check(make(), name.length));

  it('q̈ by the generated ABA where M⁻¹ (τ − b) is not finite (the path that names a joint whose inertia is not positive definite)', () => {
    const model = chain(5), rng = new Rng(11), g = GeneratedAbaDerivatives.create(model)!, ref = new RecursiveForwardDynamicsDerivatives(model);
    const q = randomConfiguration(model, rng), v = rng.array(5, -1, 1), tau = rng.array(5, -1, 1);
    const broken = new Float64Array(25).fill(NaN);
    (g as unknown as { minv: { compute(q: ArrayLike<number>): Float64Array } }).minv = { compute: () => broken };
    g.compute(q, v, tau);
    ref.compute(q, v, tau);
    expectEntriesClose(g.value, ref.value, 1e-11, 'q̈', 0);
  });

  it('not made past the generated M⁻¹\'s size limit, nor for one DoF', () => {
    expect(GeneratedAbaDerivatives.create(chain(60))).toBeNull();
    expect(GeneratedAbaDerivatives.create(chain(1))).toBeNull();
  });
});

describe('the forward-dynamics derivatives from the generated kernels allocate nothing per call', () => {
  for (const [name, model] of [['humanoid floating', humanoid({ floatingBase: true })], ['chain:13', chain(13)]] as const) {
    it(name, () => {
      const rng = new Rng(5), g = GeneratedAbaDerivatives.create(model)!;
      const q = randomConfiguration(model, rng), v = rng.array(model.nv, -1, 1), tau = rng.array(model.nv, -1, 1);
      expect(bytesPerCall(() => { g.compute(q, v, tau); }, 8, 1000)).toBeLessThan(8);
    });
  }
});

describeShared('forward-dynamics derivatives from the generated kernels on the URDF corpus, fixed and floating bases', () => {
  it('every file that loads, whose M is positive definite, within the generated M⁻¹\'s limit', () => {
    let made = 0;
    const files = forEachCorpusModel((model) => {
      if (model.nv < 2 || model.singularBodies.length > 0 || GeneratedAbaDerivatives.create(model) === null) return;
      check(model, made + 1, TOL_CORPUS, 1);
      made++;
    });
    expect(files).toBeGreaterThan(40);
    expect(made).toBeGreaterThan(60);
  }, 600_000);
});
