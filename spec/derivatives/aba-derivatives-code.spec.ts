/**
 * The forward-dynamics derivatives from the generated kernels (aba-derivatives-code.ts: generated
 * ABA, generated RNEA derivatives, generated M⁻¹ and dense products) against
 * RecursiveForwardDynamicsDerivatives (recursive.ts) on random states: chains of odd and even nv,
 * random trees with every joint type on fixed and floating bases (branches: the products skip rows),
 * the project's humanoid, q̇ = 0, and every file of the URDF corpus that loads and whose M is
 * positive definite (skipped without ../shared); not made past the generated M⁻¹'s limit. q̈ to
 * 1e-11 and ∂q̈/∂q, ∂q̈/∂q̇, M⁻¹ to 1e-10 relative to each output's largest entry (q̈ by ABA against
 * the factorization's solve, and −M⁻¹ B by two routes, differ by the conditioning of M times the
 * rounding, as spec/derivatives/rnea-derivatives.spec.ts allows; ten times looser on the corpus,
 * whose robots include badly conditioned M). Allocates nothing per call.
 */
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { GeneratedAbaDerivatives } from '../../src/derivatives/aba-derivatives-code.ts';
import { RecursiveForwardDynamicsDerivatives } from '../../src/derivatives/recursive.ts';
import { chain, humanoid, randomTree } from '../../src/model/generators.ts';
import type { Model } from '../../src/model/model.ts';
import { randomConfiguration } from '../../src/model/random.ts';
import { Rng } from '../../src/model/rng.ts';
import { loadUrdf } from '../../src/node/urdf-file.ts';
import { describeShared, HAS_SHARED, shared } from '../shared.ts';

const largestOf = (x: ArrayLike<number>) => { let m = 0; for (let k = 0; k < x.length; k++) m = Math.max(m, Math.abs(x[k])); return m; };

/**
 * |got − ref| ≤ tol · max |ref| entry by entry; `floor`: the least scale (an output that is zero up
 * to rounding, such as ∂q̈/∂q̇ of a model whose joints' velocities exert no force, is compared on the
 * scale of the others)
 */
function close(got: ArrayLike<number>, ref: ArrayLike<number>, tol: number, what: string, floor: number): void {
  expect(got.length).toBe(ref.length);
  let scale = Math.max(largestOf(ref), floor);
  if (scale === 0) scale = 1;
  for (let k = 0; k < ref.length; k++) {
    const d = Math.abs(got[k] - ref[k]);
    if (!(d <= tol * scale)) expect.fail(`${what}[${k}]: ${got[k]} against the reference's ${ref[k]} (scale ${scale})`);
  }
}

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
      const floor = 1e-3 * Math.max(largestOf(ref.dq), largestOf(ref.dv), largestOf(ref.du));
      close(g.value, ref.value, tol / 10, `q̈ (${how})`, 0);
      close(g.dq, ref.dq, tol, `∂q̈/∂q (${how})`, floor);
      close(g.dv, ref.dv, tol, `∂q̈/∂q̇ (${how})`, floor);
      close(g.du, ref.du, tol, `M⁻¹ (${how})`, floor);
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

  it('not made past the generated M⁻¹\'s size limit, nor for one DoF', () => {
    expect(GeneratedAbaDerivatives.create(chain(60))).toBeNull();
    expect(GeneratedAbaDerivatives.create(chain(1))).toBeNull();
  });
});

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

/** heap growth per call after warm-up, the median of the last five rounds (as spec/hotpaths.spec.ts measures it) */
function bytesPerCall(f: () => void, threshold: number, n = 2000): number {
  for (let k = 0; k < 5000; k++) f();
  const rounds: number[] = [];
  let med = Infinity;
  for (let r = 0; r < 30; r++) {
    gc();
    const h0 = process.memoryUsage().heapUsed;
    for (let k = 0; k < n; k++) f();
    rounds.push((process.memoryUsage().heapUsed - h0) / n);
    if (rounds.length >= 5) {
      med = rounds.slice(-5).sort((x, y) => x - y)[2];
      if (med < threshold) break;
    }
  }
  return med;
}

describe('the forward-dynamics derivatives from the generated kernels allocate nothing per call', () => {
  for (const [name, model] of [['humanoid floating', humanoid({ floatingBase: true })], ['chain:13', chain(13)]] as const) {
    it(name, () => {
      const rng = new Rng(5), g = GeneratedAbaDerivatives.create(model)!;
      const q = randomConfiguration(model, rng), v = rng.array(model.nv, -1, 1), tau = rng.array(model.nv, -1, 1);
      expect(bytesPerCall(() => { g.compute(q, v, tau); }, 8, 1000)).toBeLessThan(8);
    });
  }
});

const CORPUS = shared('urdf-corpus');

function urdfFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? urdfFiles(p) : name.endsWith('.urdf') ? [p] : [];
  }).sort();
}

describeShared('forward-dynamics derivatives from the generated kernels on the URDF corpus, fixed and floating bases', () => {
  it('every file that loads, whose M is positive definite, within the generated M⁻¹\'s limit', () => {
    const files = HAS_SHARED ? urdfFiles(CORPUS) : [];
    expect(files.length).toBeGreaterThan(40);
    let made = 0;
    for (const path of files) {
      const file = relative(CORPUS, path);
      for (const floatingBase of [false, true]) {
        let model: Model;
        try { model = loadUrdf(path, { floatingBase, file }); } catch { continue; }
        if (model.nv < 2 || model.singularBodies.length > 0 || GeneratedAbaDerivatives.create(model) === null) continue;
        try {
          check(model, made + 1, TOL_CORPUS, 1);
        } catch (e) {
          throw new Error(`${file} (${floatingBase ? 'floating' : 'fixed'} base): ${(e as Error).message}`);
        }
        made++;
      }
    }
    expect(made).toBeGreaterThan(60);
  }, 600_000);
});
