/**
 * M⁻¹ by the world-frame passes with their column work generated (minv-columns-code.ts, the form
 * GeneratedMinv takes where every joint has one DoF) against the JavaScript's passes in body
 * coordinates (minv-carpentier.ts, 'local': another frame, another order of operations) and against
 * M from the CRBA (M⁻¹ M = 1): chains and branched trees, fixed and floating (a root joint of six
 * DoF), with the per-body work generated (up to
 * MINV_BODIES_CODE_LIMIT bodies) and in JavaScript (past it), both triangles and one, each
 * configuration after another one (the entries a branched tree's passes only add to start at zero
 * at every call), and TALOS' arms and legs.
 */
import { describe, expect, it } from 'vitest';
import { crba, CrbaWorkspace } from '../../src/algorithms/crba.ts';
import { minvCarpentier, MinvCarpentierWorkspace } from '../../src/algorithms/minv-carpentier.ts';
import { GeneratedMinv } from '../../src/algorithms/minv-code.ts';
import { MINV_BODIES_CODE_LIMIT, MinvColumnsCode } from '../../src/algorithms/minv-columns-code.ts';
import { chain, randomTree } from '../../src/model/generators.ts';
import type { Model } from '../../src/model/model.ts';
import { randomConfiguration } from '../../src/model/random.ts';
import { Rng } from '../../src/model/rng.ts';
import { loadUrdf } from '../../src/node/urdf-file.ts';
import { describeShared, shared } from '../shared.ts';

/** revolute and prismatic joints only (one DoF each), no welded links */
const oneDof = { mix: { revolute: 5, prismatic: 1, spherical: 0, helical: 0, planar: 0 }, fixedFraction: 0 };

function check(model: Model, bodiesGenerated: boolean, seed: number): void {
  const code = MinvColumnsCode.create(model)!;
  expect(code).not.toBeNull();
  expect(code.bodiesGenerated).toBe(bodiesGenerated);
  const nv = model.nv, rng = new Rng(seed), ws = new MinvCarpentierWorkspace(model), cw = new CrbaWorkspace(model);
  for (let t = 0; t < 3; t++) {
    const q = randomConfiguration(model, rng), other = randomConfiguration(model, rng);
    const ref = Float64Array.from(minvCarpentier(model, ws, q));
    const scale = Math.max(...ref.map(Math.abs));
    for (const triangle of ['full', 'upper'] as const) {
      code.compute(other, 'full');
      const got = code.compute(q, triangle);
      for (let r = 0; r < nv; r++) {
        for (let c = triangle === 'upper' ? r : 0; c < nv; c++) {
          expect(Math.abs(got[r * nv + c] - ref[r * nv + c]), `M⁻¹[${r}, ${c}] (${triangle})`).toBeLessThanOrEqual(1e-11 * scale);
        }
      }
    }
    // M⁻¹ M = 1 (M by the CRBA), column by column of a few
    const got = Float64Array.from(code.compute(q)), M = crba(model, cw, q);
    for (const c of [0, nv >> 1, nv - 1]) {
      for (let r = 0; r < nv; r++) {
        let s = 0;
        for (let k = 0; k < nv; k++) s += got[r * nv + k] * M[k * nv + c];
        expect(Math.abs(s - (r === c ? 1 : 0)), `(M⁻¹ M)[${r}, ${c}]`).toBeLessThanOrEqual(1e-9);
      }
    }
  }
}

describe('M⁻¹ with the column work generated = the JavaScript passes in body coordinates', () => {
  it('a 96-link chain (per-body work generated)', () => check(chain(96), true, 1));
  it(`a ${MINV_BODIES_CODE_LIMIT + 32}-link chain (per-body work in JavaScript)`, () => check(chain(MINV_BODIES_CODE_LIMIT + 32), false, 2));
  it('a branched tree of revolute and prismatic joints (per-body work generated)', () => {
    const model = randomTree(60, 3, oneDof);
    expect(model.children.some((c) => c.length > 1)).toBe(true);
    check(model, true, 3);
  });
  it('a branched tree past the per-body code\'s limit', () => check(randomTree(MINV_BODIES_CODE_LIMIT + 20, 4, oneDof), false, 4));
  it('a 40-link chain on a floating base (the root\'s six DoF)', () => check(chain(40, { floatingBase: true }), true, 6));
  it(`a branched tree on a floating base past the per-body code's limit`, () => check(randomTree(MINV_BODIES_CODE_LIMIT + 10, 7, { ...oneDof, floatingBase: true }), false, 7));
  it('is the form GeneratedMinv takes where every joint below the root has one DoF, not otherwise', () => {
    expect(GeneratedMinv.create(chain(6))!.form).toBe('columns');
    expect(GeneratedMinv.create(randomTree(20, 5, oneDof))!.form).toBe('columns');
    expect(GeneratedMinv.create(chain(6, { floatingBase: true }))!.form).toBe('columns');
    const multi = randomTree(24, 5);
    expect(multi.nvi.some((n, i) => n > 1 && multi.parents[i] >= 0)).toBe(true);
    expect(MinvColumnsCode.create(multi)).toBeNull();
    expect(GeneratedMinv.create(multi)!.form).toBe('straight');
  });
});

describeShared('M⁻¹ with the column work generated on a real robot', () => {
  it('TALOS (arms, legs, torso: 32 joints, branched), fixed and floating', () => {
    check(loadUrdf(shared('models/talos_reduced.urdf')), true, 5);
    check(loadUrdf(shared('models/talos_reduced.urdf'), { floatingBase: true }), true, 8);
  });
});
