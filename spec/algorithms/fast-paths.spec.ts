/**
 * The fast paths for joints about or along a frame axis (S_i = ±e_row: kinematics.ts unitAxes)
 * give what the general path gives on the same model — the same outputs to round-off and exactly
 * the same flop counts — checked by switching the fast paths off in a second workspace.
 */
import { describe, expect, it } from 'vitest';
import { aba, AbaWorkspace } from '../../src/algorithms/aba.ts';
import { crba, CrbaWorkspace } from '../../src/algorithms/crba.ts';
import { minvCarpentier, MinvCarpentierWorkspace } from '../../src/algorithms/minv-carpentier.ts';
import { rnea, RneaWorkspace } from '../../src/algorithms/rnea.ts';
import { chain, humanoid, randomTree } from '../../src/model/generators.ts';
import type { Model } from '../../src/model/model.ts';
import { Rng } from '../../src/model/rng.ts';
import { expectClose } from '../helpers.ts';
import { randomState } from '../state.ts';

const models: [string, () => Model][] = [
  ['chain:12 (axes x, y, z)', () => chain(12)],
  ['chain:8 prismatic', () => chain(8, { jointType: 'prismatic' })],
  ['tree:30 floating (all joint kinds)', () => randomTree(30, 61, { floatingBase: true })],
  ['tree:20 with kept 0-DoF joints', () => randomTree(20, 62, { fixedFraction: 0.2, keepFixed: ['fix1', 'fix2'] })],
  ['humanoid', () => humanoid()],
];

describe('fast paths for joints about or along a frame axis = the general path', () => {
  for (const [name, make] of models) {
    it(name, () => {
      const model = make();
      const rng = new Rng(name.length + 5);
      const { q, v, a, tau } = randomState(model, rng);
      const fext = Array.from({ length: model.nb }, () => rng.array(6, -3, 3));
      const rf = new RneaWorkspace(model), rg = new RneaWorkspace(model);
      const af = new AbaWorkspace(model), ag = new AbaWorkspace(model);
      const cf = new CrbaWorkspace(model), cg = new CrbaWorkspace(model);
      const mf = new MinvCarpentierWorkspace(model), mg = new MinvCarpentierWorkspace(model);
      const fast = Array.from(rf.kin.unitRow).filter((r) => r >= 0).length;
      if (!name.includes('tree')) expect(fast).toBeGreaterThan(model.nb / 2);
      for (const rows of [rg.kin.unitRow, ag.kin.unitRow, cg.dofRow, mg.unitRow]) rows.fill(-1);
      for (const qd of [v, null]) {
        expectClose(rnea(model, rf, q, qd, a, fext), rnea(model, rg, q, qd, a, fext), 1e-12, 'rnea');
        expect(rf.totalFlops().toJSON()).toEqual(rg.totalFlops().toJSON());
        expectClose(aba(model, af, q, qd, tau, fext), aba(model, ag, q, qd, tau, fext), 1e-12, 'aba');
        expect(af.totalFlops().toJSON()).toEqual(ag.totalFlops().toJSON());
      }
      expectClose(crba(model, cf, q), crba(model, cg, q), 1e-12, 'crba');
      expect(cf.flops.toJSON()).toEqual(cg.flops.toJSON());
      expectClose(minvCarpentier(model, mf, q), minvCarpentier(model, mg, q), 1e-12, 'minv');
      expect(mf.flops.toJSON()).toEqual(mg.flops.toJSON());
    });
  }
});
