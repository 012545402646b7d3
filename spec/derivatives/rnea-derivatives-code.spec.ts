/**
 * The RNEA derivatives generated per model as WebAssembly (rnea-derivatives-code.ts) against the
 * JavaScript workspace (rnea-derivatives.ts, its pairs in JavaScript: an independent implementation
 * of the same identities, with the full 6×6 B^c) on random states, each output to 1e-11 relative to
 * its largest entry: chains, random trees with every joint type on fixed and floating bases, the
 * project's humanoid, q̇ = 0, M left out, the pairs with the columns above as the loop and as
 * straight-line code, and every file of the URDF corpus that loads (skipped without ../shared). Anchored to
 * an independent reference by central differences of RNEA on a floating-base tree (q on the manifold,
 * model/lie.ts). Refused past its size limit; allocates nothing per call.
 */
import { describe, expect, it } from 'vitest';
import { rnea, RneaWorkspace } from '../../src/algorithms/rnea.ts';
import { GeneratedRneaDerivatives, RNEA_DERIVATIVES_CODE_LIMIT, RNEA_DERIVATIVES_STRAIGHT_PAIRS, rneaDerivativePairs } from '../../src/derivatives/rnea-derivatives-code.ts';
import { RneaDerivativesWorkspace } from '../../src/derivatives/rnea-derivatives.ts';
import { chain, humanoid, randomTree } from '../../src/model/generators.ts';
import { integrate } from '../../src/model/lie.ts';
import type { Model } from '../../src/model/model.ts';
import { randomConfiguration } from '../../src/model/random.ts';
import { Rng } from '../../src/model/rng.ts';
import { loadUrdf } from '../../src/node/urdf-file.ts';
import { bytesPerCall } from '../allocation.ts';
import { expectEntriesClose, maxAbs } from '../helpers.ts';
import { forEachCorpusModel } from '../corpus.ts';
import { describeShared } from '../shared.ts';

/**
 * the generated code (both forms of the pairs with the columns above: the loop, straight-line code;
 * `forms` false: the default, the loop, only) against the JavaScript on `states` random states, with
 * and without q̇; returns the largest |∂τ/∂q| seen (the comparisons are not vacuous)
 */
function check(model: Model, seed: number, states = 3, forms = true): number {
  const nv = model.nv, rng = new Rng(seed);
  const ref = new RneaDerivativesWorkspace(model, false);
  const gens = [GeneratedRneaDerivatives.create(model)];
  if (forms) gens.push(GeneratedRneaDerivatives.create(model, { straightPairs: Infinity }));
  for (const g of gens) expect(g, 'the generated code is made').not.toBeNull();
  expect(gens[0]!.loop).toBe(true);
  if (forms) expect(gens[1]!.loop).toBe(false);
  let largest = 0;
  for (let t = 0; t < states; t++) {
    const q = randomConfiguration(model, rng), v = rng.array(nv, -2, 2), a = rng.array(nv, -2, 2);
    for (const qd of [v, null]) {
      ref.compute(q, qd, a);
      for (const g of gens) {
        g!.compute(q, qd, a);
        const how = `${g!.loop ? 'loop' : 'straight'}${qd ? '' : ', q̇ = 0'}`;
        const floor = 1e-3 * Math.max(maxAbs(ref.tau), maxAbs(ref.dq), maxAbs(ref.dv), maxAbs(ref.M));
        expectEntriesClose(g!.tau, ref.tau, 1e-11, `τ (${how})`, floor);
        expectEntriesClose(g!.dq, ref.dq, 1e-11, `∂τ/∂q (${how})`, floor);
        expectEntriesClose(g!.dv, ref.dv, 1e-11, `∂τ/∂q̇ (${how})`, floor);
        expectEntriesClose(g!.M, ref.M, 1e-11, `M (${how})`, floor);
      }
      largest = Math.max(largest, ...ref.dq.map(Math.abs));
    }
  }
  return largest;
}

describe('generated RNEA derivatives = the JavaScript workspace', () => {
  const models: [string, () => Model][] = [
    ['chain:1', () => chain(1)],
    ['chain:6', () => chain(6)],
    ['chain:24', () => chain(24)],
    ['chain:30 floating', () => chain(30, { floatingBase: true })],
    ['humanoid floating', () => humanoid({ floatingBase: true })],
    ['humanoid fixed, 0-DoF bodies kept', () => loadUrdf('models/humanoid.urdf', { keepFixed: ['l_sole_joint', 'r_sole_joint', 'l_hand_joint', 'r_hand_joint'] })],
    ['random tree, every joint type', () => randomTree(24, 5)],
    ['random tree, every joint type, floating', () => randomTree(20, 72, { floatingBase: true, mix: { prismatic: 2, helical: 2, spherical: 2, planar: 2 } })],
    ['random tree, floating', () => randomTree(18, 8, { floatingBase: true })],
  ];
  for (const [name, make] of models) it(name, () => { expect(check(make(), name.length)).toBeGreaterThan(1e-3); });

  it('the random trees have spherical, helical, planar and prismatic joints', () => {
    expect(new Set(randomTree(24, 5).jtype).size).toBeGreaterThanOrEqual(4);
    expect(new Set(randomTree(20, 72, { floatingBase: true, mix: { prismatic: 2, helical: 2, spherical: 2, planar: 2 } }).jtype).size).toBeGreaterThanOrEqual(6);
  });

  it('without M: the same ∂τ, M left at zero', () => {
    const model = randomTree(16, 3, { floatingBase: true }), rng = new Rng(9);
    const ref = new RneaDerivativesWorkspace(model, false), g = GeneratedRneaDerivatives.create(model, { withM: false })!;
    const q = randomConfiguration(model, rng), v = rng.array(model.nv, -1, 1), a = rng.array(model.nv, -1, 1);
    ref.compute(q, v, a); g.compute(q, v, a);
    expectEntriesClose(g.tau, ref.tau, 1e-11, 'τ'); expectEntriesClose(g.dq, ref.dq, 1e-11, '∂τ/∂q'); expectEntriesClose(g.dv, ref.dv, 1e-11, '∂τ/∂q̇');
    expect(g.M.every((x) => x === 0)).toBe(true);
  });

  it('the pairs above are a loop past RNEA_DERIVATIVES_STRAIGHT_PAIRS pairs; refused past RNEA_DERIVATIVES_CODE_LIMIT bodies', () => {
    expect(GeneratedRneaDerivatives.create(chain(24))!.loop).toBe(rneaDerivativePairs(chain(24)) > RNEA_DERIVATIVES_STRAIGHT_PAIRS);
    expect(GeneratedRneaDerivatives.create(chain(RNEA_DERIVATIVES_CODE_LIMIT))).not.toBeNull();
    expect(GeneratedRneaDerivatives.create(chain(RNEA_DERIVATIVES_CODE_LIMIT + 1))).toBeNull();
  });

  it('larger models = the JavaScript (chains of lengths 0 and 3 modulo 4: the loop takes up to four columns at a time)', () => {
    expect(check(chain(96), 11, 1, false)).toBeGreaterThan(1e-3);
    expect(check(chain(131), 12, 1, false)).toBeGreaterThan(1e-3);
    expect(check(randomTree(60, 13, { floatingBase: true, mix: { prismatic: 2, helical: 2, spherical: 2, planar: 2 } }), 13, 1)).toBeGreaterThan(1e-3);
  });

  it('= central differences of RNEA on a floating-base tree with every joint type (q on the manifold)', () => {
    const model = randomTree(12, 31, { floatingBase: true, mix: { prismatic: 1, helical: 1, spherical: 1, planar: 1 } }), nv = model.nv, rng = new Rng(4);
    const q = randomConfiguration(model, rng), v = rng.array(nv, -1, 1), a = rng.array(nv, -1, 1);
    const g = GeneratedRneaDerivatives.create(model)!.compute(q, v, a);
    const rw = new RneaWorkspace(model), h = 1e-6;
    const fdq = new Float64Array(nv * nv), fdv = new Float64Array(nv * nv), fM = new Float64Array(nv * nv);
    for (let k = 0; k < nv; k++) {
      const e = new Float64Array(nv);
      const diff = (out: Float64Array, plus: Float64Array, minus: Float64Array) => { for (let r = 0; r < nv; r++) out[r * nv + k] = (plus[r] - minus[r]) / (2 * h); };
      e[k] = h;
      const qp = integrate(model, q, e), vp = Float64Array.from(v), ap = Float64Array.from(a);
      vp[k] += h; ap[k] += h;
      e[k] = -h;
      const qm = integrate(model, q, e), vm_ = Float64Array.from(v), am = Float64Array.from(a);
      vm_[k] -= h; am[k] -= h;
      const t = (qq: Float64Array, vv: Float64Array, aa: Float64Array) => Float64Array.from(rnea(model, rw, qq, vv, aa));
      diff(fdq, t(qp, v, a), t(qm, v, a));
      diff(fdv, t(q, vp, a), t(q, vm_, a));
      diff(fM, t(q, v, ap), t(q, v, am));
    }
    expectEntriesClose(g.tau, Float64Array.from(rnea(model, rw, q, v, a)), 1e-12, 'τ against RNEA');
    expectEntriesClose(g.dq, fdq, 1e-5, '∂τ/∂q against central differences');
    expectEntriesClose(g.dv, fdv, 1e-5, '∂τ/∂q̇ against central differences');
    expectEntriesClose(g.M, fM, 1e-5, 'M against central differences');
    expect(Math.max(...fdq.map(Math.abs))).toBeGreaterThan(1e-2);
  });
});

describe('the generated RNEA derivatives allocate nothing per call', () => {
  for (const [name, model] of [['humanoid floating', humanoid({ floatingBase: true })], ['tree:40 floating (all joint types)', randomTree(40, 9, { floatingBase: true })], ['chain:96', chain(96)]] as const) {
    it(name, () => {
      const rng = new Rng(5), g = GeneratedRneaDerivatives.create(model)!;
      const q = randomConfiguration(model, rng), v = rng.array(model.nv, -1, 1), a = rng.array(model.nv, -1, 1);
      expect(bytesPerCall(() => { g.compute(q, v, a); }, 8)).toBeLessThan(8);
      expect(bytesPerCall(() => { g.compute(q, null, a); }, 8)).toBeLessThan(8);
    });
  }
});

describeShared('generated RNEA derivatives on the URDF corpus, fixed and floating bases', () => {
  it('every file that loads', () => {
    let models = 0, made = 0, nonzero = 0;
    const files = forEachCorpusModel((model) => {
      if (model.nv === 0) return;
      models++;
      if (model.nb > RNEA_DERIVATIVES_CODE_LIMIT) { expect(GeneratedRneaDerivatives.create(model)).toBeNull(); return; }
      if (check(model, models, 2, model.nv <= 60) > 1e-3) nonzero++;
      made++;
    });
    expect(files).toBeGreaterThan(40);
    expect(models).toBeGreaterThan(80);
    expect(made).toBeGreaterThan(models - 5);
    // the comparisons are not vacuous: ∂τ/∂q is not zero (only a massless model gives zero)
    expect(nonzero).toBeGreaterThan(made - 5);
  }, 600_000);
});
