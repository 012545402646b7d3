/**
 * CRBA's lower-triangle mode and the clearing of M: on chains (fixed and floating: every entry of M
 * written, nothing cleared) and on branched trees (structural zeros cleared), with the workspace's M
 * filled with garbage before each call, M equals the columns of RNEA (M e_k = RNEA(q, 0, e_k) −
 * RNEA(q, 0, 0), gravity off by subtraction); the lower mode writes the same lower triangle and leaves
 * the strictly upper one as it was.
 */
import { describe, expect, it } from 'vitest';
import { crba, CrbaWorkspace } from '../../src/algorithms/crba.ts';
import { massMatrixByRnea } from '../helpers.ts';
import { chain, humanoid, randomTree } from '../../src/model/generators.ts';
import type { Model } from '../../src/model/model.ts';
import { randomConfiguration } from '../../src/model/random.ts';
import { Rng } from '../../src/model/rng.ts';

const models: [string, () => Model, boolean][] = [
  ['chain:12', () => chain(12), false],
  ['chain:9 floating', () => chain(9, { floatingBase: true }), false],
  ['humanoid floating', () => humanoid({ floatingBase: true }), true],
  ['random tree', () => randomTree(14, 3), true],
];

describe('CRBA: both triangles, or the lower one', () => {
  for (const [name, make, branched] of models) {
    it(name, () => {
      const model = make(), nv = model.nv, rng = new Rng(11);
      const ws = new CrbaWorkspace(model);
      expect(ws.branched).toBe(branched);
      for (let trial = 0; trial < 3; trial++) {
        const q = Float64Array.from(randomConfiguration(model, rng));
        const ref = massMatrixByRnea(model, q);
        const scale = Math.max(...ref.map(Math.abs));
        ws.M.fill(12345.678);
        const full = Float64Array.from(crba(model, ws, q));
        for (let k = 0; k < nv * nv; k++) expect(Math.abs(full[k] - ref[k]), `entry ${k}`).toBeLessThan(1e-10 * scale);
        ws.M.fill(-777);
        const lower = crba(model, ws, q, 'lower');
        for (let r = 0; r < nv; r++) {
          for (let c = 0; c < nv; c++) {
            if (c <= r) expect(lower[r * nv + c]).toBe(full[r * nv + c]);
            else if (!branched) expect(lower[r * nv + c]).toBe(-777);
          }
        }
      }
    });
  }
});
