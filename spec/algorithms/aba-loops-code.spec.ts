/**
 * The loops' form of the generated ABA (aba-loops-code.ts, `GeneratedAba` past ABA_LOOPS_FROM
 * bodies) against the JavaScript reference (aba.ts) on random states: chains with joint axes along
 * the frame axes and at random, prismatic chains, branched trees of revolute (about frame axes and
 * any axis), prismatic and helical joints on a fixed base, q̇ = 0, the real robot files whose
 * joints allow the form (fixed base), and a 384-link chain, the size the form is made for; q̈ to 1e-11 relative (the congruence is summed in another order than the
 * reference's). The form is chosen by size and refused where a joint is not one-DoF revolute,
 * prismatic or helical (the straight-line code, or the JavaScript past its limit, then runs).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ABA_CODE_LIMIT, ABA_LOOPS_FROM, GeneratedAba } from '../../src/algorithms/aba-code.ts';
import { abaUnchecked, AbaWorkspace } from '../../src/algorithms/aba.ts';
import { chain, randomTree } from '../../src/model/generators.ts';
import { JT_HELICAL, JT_PRISMATIC, JT_REVOLUTE } from '../../src/model/joint.ts';
import type { Model } from '../../src/model/model.ts';
import { randomConfiguration } from '../../src/model/random.ts';
import { Rng } from '../../src/model/rng.ts';
import { loadUrdf } from '../../src/node/urdf-file.ts';
import { describeShared, shared } from '../shared.ts';

/** the loops' q̈ against the reference's on random states (q̇ = 0 in one); returns the largest |q̈| seen */
function check(model: Model, seed: number): number {
  const g = GeneratedAba.create(model, { form: 'loops' });
  expect(g).not.toBeNull();
  expect(g!.form).toBe('loops');
  const ws = new AbaWorkspace(model), rng = new Rng(seed), nv = model.nv;
  let largest = 0;
  for (let t = 0; t < 12; t++) {
    const q = randomConfiguration(model, rng);
    const qd = t === 0 ? null : Float64Array.from({ length: nv }, () => rng.uniform(-2, 2));
    const tau = Float64Array.from({ length: nv }, () => rng.uniform(-5, 5));
    const ref = Float64Array.from(abaUnchecked(model, ws, q, qd, tau));
    const got = g!.compute(q, qd, tau);
    const scale = Math.max(1, ...ref.map(Math.abs));
    for (let k = 0; k < nv; k++) expect(Math.abs(got[k] - ref[k]), `q̈[${k}] (${model.jointNames[k]})`).toBeLessThanOrEqual(1e-11 * scale);
    largest = Math.max(largest, scale);
  }
  return largest;
}

describe('generated ABA, loops over a table of bodies', () => {
  it('chains: joint axes cycling through x, y, z, along one axis, at random', () => {
    for (const [k, m] of [chain(6), chain(24), chain(17, { axes: 'z' }), chain(20, { axes: 'random', seed: 4 })].entries()) {
      expect(check(m, 10 + k)).toBeGreaterThan(1);
    }
  });

  it('a prismatic chain', () => {
    check(chain(12, { jointType: 'prismatic', axes: 'random', seed: 2 }), 3);
  });

  it('branched trees of revolute (any axis), prismatic and helical joints', () => {
    for (const seed of [1, 2, 3]) {
      const model = randomTree(30, seed, { mix: { spherical: 0, planar: 0 }, fixedFraction: 0.2 });
      const types = new Set(model.jtype);
      expect(types.has(JT_PRISMATIC) && types.has(JT_HELICAL) && types.has(JT_REVOLUTE)).toBe(true);
      expect(model.parents.some((p, i) => p >= 0 && p !== i - 1)).toBe(true);
      check(model, seed);
    }
  });

  it('a 384-link chain, the form chosen by size', () => {
    const model = chain(384);
    expect(GeneratedAba.create(model)!.form).toBe('loops');
    check(model, 7);
  });

  it('the form by size, and refused where a joint has more than one DoF', () => {
    expect(GeneratedAba.create(chain(ABA_LOOPS_FROM - 1))!.form).toBe('straight');
    expect(GeneratedAba.create(chain(ABA_LOOPS_FROM))!.form).toBe('loops');
    // a floating base: no loops; straight-line code up to its limit, then the JavaScript
    expect(GeneratedAba.create(chain(8, { floatingBase: true }), { form: 'loops' })).toBeNull();
    expect(GeneratedAba.create(chain(ABA_LOOPS_FROM + 8, { floatingBase: true }))!.form).toBe('straight');
    expect(GeneratedAba.create(chain(ABA_CODE_LIMIT + 8, { floatingBase: true }))).toBeNull();
    expect(GeneratedAba.create(randomTree(12, 5), { form: 'loops' })).toBeNull();
  });

  it('a q̈ that is not finite is the reference\'s', () => {
    const model = chain(5), gen = GeneratedAba.create(model, { form: 'loops' })!, ws = new AbaWorkspace(model);
    const q = new Float64Array(5), tau = Float64Array.from([1, Number.NaN, 0, 0, 0]);
    const ref = Float64Array.from(abaUnchecked(model, ws, q, null, tau));
    expect(Array.from(gen.compute(q, null, tau))).toEqual(Array.from(ref));
  });
});

describeShared('generated ABA in loops on real robot files', () => {
  it('every fixed-base robot of the models and corpus folders whose joints allow it', () => {
    const files = [...readdirSync(shared('models')).filter((f) => f.endsWith('.urdf')).map((f) => shared('models', f))];
    const corpus = shared('urdf-corpus');
    const walk = (d: string): void => {
      for (const e of readdirSync(d, { withFileTypes: true })) {
        if (e.isDirectory()) walk(join(d, e.name)); else if (e.name.endsWith('.urdf')) files.push(join(d, e.name));
      }
    };
    walk(corpus);
    let checked = 0;
    for (const f of files) {
      let model: Model;
      try { model = loadUrdf(f); } catch { continue; }
      if (model.singularBodies.length > 0 || model.nb === 0 || GeneratedAba.create(model, { form: 'loops' }) === null) continue;
      check(model, 5);
      checked++;
    }
    expect(checked).toBeGreaterThan(5);
  });
});
