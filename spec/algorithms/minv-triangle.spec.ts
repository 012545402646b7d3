/**
 * Carpentier's M⁻¹, both triangles or the upper one, in body and in world coordinates: with the
 * workspace's result filled with garbage before each call, on chains (nothing cleared: every entry is
 * set by the passes) and on branched trees, M⁻¹ M = I with M from CRBA (an independent algorithm);
 * the upper mode writes the same upper triangle and leaves the strictly lower one as it was (but for
 * a multi-DoF joint's own block, written whole).
 */
import { describe, expect, it } from 'vitest';
import { crba, CrbaWorkspace } from '../../src/algorithms/crba.ts';
import { minvCarpentier, MinvCarpentierWorkspace } from '../../src/algorithms/minv-carpentier.ts';
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

describe('M⁻¹ (Carpentier): both triangles, or the upper one', () => {
  for (const [name, make, branched] of models) {
    for (const frame of ['local', 'world'] as const) {
      it(`${name}, ${frame} coordinates`, () => {
        const model = make(), nv = model.nv, rng = new Rng(5);
        const ws = new MinvCarpentierWorkspace(model, { frame });
        expect(ws.branched).toBe(branched);
        const cw = new CrbaWorkspace(model);
        // a joint's own block (a multi-DoF joint's D⁻¹) is written whole
        const jointOf = new Int32Array(nv);
        for (let i = 0; i < model.nb; i++) for (let k = 0; k < model.nvi[i]; k++) jointOf[model.iv[i] + k] = i;
        for (let trial = 0; trial < 3; trial++) {
          const q = Float64Array.from(randomConfiguration(model, rng));
          const M = crba(model, cw, q);
          ws.Minv.fill(999.5);
          const full = Float64Array.from(minvCarpentier(model, ws, q));
          for (let r = 0; r < nv; r++) {
            for (let c = 0; c < nv; c++) {
              let acc = 0;
              for (let k = 0; k < nv; k++) acc += full[r * nv + k] * M[k * nv + c];
              expect(Math.abs(acc - (r === c ? 1 : 0)), `(M⁻¹ M)[${r}, ${c}]`).toBeLessThan(1e-9);
            }
          }
          ws.Minv.fill(-3.25);
          const upper = minvCarpentier(model, ws, q, 'upper');
          for (let r = 0; r < nv; r++) {
            for (let c = 0; c < nv; c++) {
              if (c >= r) expect(upper[r * nv + c]).toBe(full[r * nv + c]);
              else if (!branched && jointOf[r] !== jointOf[c]) expect(upper[r * nv + c]).toBe(-3.25);
            }
          }
        }
      });
    }
  }
});
