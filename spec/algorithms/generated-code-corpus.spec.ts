/**
 * The generated kernels (rnea-code.ts, aba-code.ts, crba-code.ts, minv-code.ts) against their
 * JavaScript references on every file of the real-robot URDF corpus that loads, with a fixed and
 * with a floating base, at two random states, entry by entry: RNEA and CRBA to 1e-12 relative, ABA
 * and M⁻¹ to 1e-11 (their congruence is summed in another order). RNEA is made for every model (its
 * inverse dynamics is defined when M is singular, too); ABA, CRBA and M⁻¹ are compared on the models
 * whose M is positive definite, wherever the kernel is within its size limit (null otherwise: the
 * JavaScript runs). The group is skipped without the corpus.
 */
import { expect, it } from 'vitest';
import { GeneratedAba } from '../../src/algorithms/aba-code.ts';
import { aba, AbaWorkspace } from '../../src/algorithms/aba.ts';
import { GeneratedCrba } from '../../src/algorithms/crba-code.ts';
import { crba, CrbaWorkspace } from '../../src/algorithms/crba.ts';
import { minvCarpentier, MinvCarpentierWorkspace } from '../../src/algorithms/minv-carpentier.ts';
import { GeneratedMinv } from '../../src/algorithms/minv-code.ts';
import { GeneratedRnea } from '../../src/algorithms/rnea-code.ts';
import { rnea, RneaWorkspace } from '../../src/algorithms/rnea.ts';
import type { Model } from '../../src/model/model.ts';
import { randomConfiguration } from '../../src/model/random.ts';
import { Rng } from '../../src/model/rng.ts';
import { forEachCorpusModel } from '../corpus.ts';
import { describeShared } from '../shared.ts';

/** |got − ref| ≤ tol · max(1, max |ref|) entry by entry */
function close(got: ArrayLike<number>, ref: Float64Array, tol: number, what: string): void {
  expect(got.length).toBe(ref.length);
  const scale = Math.max(1, ...ref.map(Math.abs));
  for (let k = 0; k < ref.length; k++) {
    const d = Math.abs(got[k] - ref[k]);
    if (!(d <= tol * scale)) expect.fail(`${what}[${k}]: ${got[k]} against the reference's ${ref[k]} (scale ${scale})`);
  }
}

/** the kernels compared on one model; returns how many kernels were compared and the largest |τ| */
function check(model: Model, seed: number): [number, number] {
  const nv = model.nv, rng = new Rng(seed);
  const regular = model.singularBodies.length === 0;
  const gr = GeneratedRnea.create(model);
  expect(gr, 'the generated RNEA is made').not.toBeNull();
  const ga = regular ? GeneratedAba.create(model) : null;
  if (regular) expect(ga, 'the generated ABA is made').not.toBeNull();
  const gc = regular ? GeneratedCrba.create(model) : null, gm = regular ? GeneratedMinv.create(model) : null;
  const rw = new RneaWorkspace(model), aw = new AbaWorkspace(model), cw = new CrbaWorkspace(model), mw = new MinvCarpentierWorkspace(model);
  let largest = 0;
  for (let t = 0; t < 2; t++) {
    const q = randomConfiguration(model, rng), v = rng.array(nv, -1, 1), a = rng.array(nv, -1, 1);
    const tau = Float64Array.from(rnea(model, rw, q, v, a));
    largest = Math.max(largest, ...tau.map(Math.abs));
    close(gr!.compute(q, v, a), tau, 1e-12, 'τ');
    if (ga) close(ga.compute(q, v, tau), Float64Array.from(aba(model, aw, q, v, tau)), 1e-11, 'q̈');
    if (gc) close(gc.compute(q), Float64Array.from(crba(model, cw, q)), 1e-12, 'M');
    if (gm) close(gm.compute(q), Float64Array.from(minvCarpentier(model, mw, q)), 1e-11, 'M⁻¹');
  }
  return [1 + (ga ? 1 : 0) + (gc ? 1 : 0) + (gm ? 1 : 0), largest];
}

describeShared('generated kernels on the URDF corpus, fixed and floating bases', () => {
  it('every file that loads', () => {
    let models = 0, kernels = 0, nonzero = 0;
    const files = forEachCorpusModel((model) => {
      if (model.nv === 0) return;
      const [k, largest] = check(model, models + 1);
      kernels += k;
      if (largest > 1e-3) nonzero++;
      models++;
    });
    expect(files).toBeGreaterThan(40);
    expect(models).toBeGreaterThan(80);
    expect(kernels).toBeGreaterThan(3 * models);
    // the comparisons are not vacuous: τ is not zero (only a massless model, such as a plane, gives zero)
    expect(nonzero).toBeGreaterThan(models - 5);
  });
});
