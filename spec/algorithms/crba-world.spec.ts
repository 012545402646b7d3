/**
 * CRBA in world coordinates (crba-world.ts) against two independent references: the columns of RNEA
 * (M e_k = RNEA(q, 0, e_k) − RNEA(q, 0, 0)) and the local-frame CRBA (crba.ts, RBDA Table 6.2), on
 * chains, branched trees with every joint type (fixed and floating base), the humanoid and a real
 * robot file; the lower-triangle mode; its flop count against an independent tally of the
 * operations; how M loses digits as the robot moves away from the world's origin (the world-frame
 * inertias grow as m |p|²); bad inputs named.
 */
import { describe, expect, it } from 'vitest';
import { crba, CrbaWorkspace } from '../../src/algorithms/crba.ts';
import { crbaWorld, CrbaWorldWorkspace } from '../../src/algorithms/crba-world.ts';
import { massMatrixByRnea } from '../helpers.ts';
import { chain, humanoid, randomTree } from '../../src/model/generators.ts';
import { jcalc } from '../../src/model/jcalc.ts';
import type { Model } from '../../src/model/model.ts';
import { randomConfiguration } from '../../src/model/random.ts';
import { Rng } from '../../src/model/rng.ts';
import { loadUrdf } from '../../src/node/urdf-file.ts';
import { Flops } from '../../src/spatial/flops.ts';
import { describeShared, shared } from '../shared.ts';

/** max |A − B| ÷ max |B| */
function relErr(A: ArrayLike<number>, B: ArrayLike<number>): number {
  let e = 0, s = 0;
  for (let k = 0; k < B.length; k++) { e = Math.max(e, Math.abs(A[k] - B[k])); s = Math.max(s, Math.abs(B[k])); }
  return e / s;
}

const models: [string, () => Model][] = [
  ['chain:24', () => chain(24)],
  ['chain:30 random axes, floating', () => chain(30, { axes: 'random', seed: 3, floatingBase: true })],
  ['tree:40 (every joint type)', () => randomTree(40, 21)],
  ['tree:40 floating (every joint type)', () => randomTree(40, 22, { floatingBase: true })],
  ['humanoid floating', () => humanoid({ floatingBase: true })],
];

/** M against RNEA's columns and the local CRBA, full and lower, three random configurations */
function checkModel(name: string, model: Model): void {
      const rng = new Rng(name.length), nv = model.nv;
      const ws = new CrbaWorldWorkspace(model), local = new CrbaWorkspace(model);
      for (let t = 0; t < 3; t++) {
        const q = randomConfiguration(model, rng);
        // garbage in M first: every entry must be written (or cleared)
        ws.M.fill(Number.NaN);
        const M = Float64Array.from(crbaWorld(model, ws, q));
        expect(relErr(M, massMatrixByRnea(model, q)), 'against RNEA').toBeLessThan(1e-12);
        expect(relErr(M, crba(model, local, q)), 'against the local CRBA').toBeLessThan(1e-13);
        for (let r = 0; r < nv; r++) for (let c = 0; c < r; c++) expect(M[r * nv + c]).toBe(M[c * nv + r]);
        // the lower triangle alone: the same entries, the strictly upper triangle left as it was
        ws.M.fill(7);
        const L = crbaWorld(model, ws, q, 'lower');
        for (let r = 0; r < nv; r++) for (let c = 0; c < nv; c++) expect(L[r * nv + c], `(${r}, ${c})`).toBe(c <= r ? M[r * nv + c] : 7);
      }
}

describeShared('CRBA in world coordinates on a real robot', () => {
  it('talos_reduced, floating (light links beside a heavy torso): M = the columns of RNEA, and = the local CRBA\'s, to rounding', () => {
    checkModel('talos_reduced', loadUrdf(shared('models/talos_reduced.urdf'), { floatingBase: true }));
  });
});

describe('CRBA in world coordinates', () => {
  for (const [name, make] of models) {
    it(`${name}: M = the columns of RNEA, and = the local CRBA's, to rounding`, () => checkModel(name, make()));
  }

  it('counts its flops: jcalc\'s, the poses and world inertias per body, two spatial products per DoF, one dot product per (DoF, DoF at or above it) pair', () => {
    for (const model of [randomTree(30, 5, { floatingBase: true }), chain(20)]) {
      const ws = new CrbaWorldWorkspace(model), q = randomConfiguration(model, new Rng(2));
      crbaWorld(model, ws, q);
      // the tally, from the model's structure and the kernels' documented counts: jcalc's (its own),
      // xCompose 36 mul 27 add (not for a root), inertiaTransformToParent 83 mul 62 add (70 and 50 for a
      // massless body), xInvApplyMotion 24 mul 18 add per DoF, F = I s 24 mul 18 add per DoF, the
      // composite sum 10 add (not for a root), 6 mul 5 add per (DoF, DoF at or above it) pair
      const jf = new Flops(), X = new Float64Array(12);
      let mul = 0, add = 0;
      for (let i = 0; i < model.nb; i++) {
        jcalc(X, model, i, q, jf);
        const p = model.parents[i];
        if (p >= 0) { mul += 36; add += 27 + 10; }
        if (model.I[i][0] === 0) { mul += 70; add += 50; } else { mul += 83; add += 62; }
        const ni = model.nvi[i];
        mul += 48 * ni; add += 36 * ni;
        let above = 0;
        for (let j = p; j >= 0; j = model.parents[j]) above += model.nvi[j];
        const pairs = (ni * (ni + 1)) / 2 + ni * above;
        mul += 6 * pairs; add += 5 * pairs;
      }
      expect(ws.flops.mul).toBe(jf.mul + mul);
      expect(ws.flops.add).toBe(jf.add + add);
      expect(ws.flops.div).toBe(jf.div);
    }
  });

  it('loses digits as the robot moves away from the origin, as any world-frame CRBA does (inertias of order m |p|²)', () => {
    const model = humanoid({ floatingBase: true }), rng = new Rng(4);
    const ws = new CrbaWorldWorkspace(model), local = new CrbaWorkspace(model);
    const q = randomConfiguration(model, rng);
    const errAt = (d: number) => { q[0] = d; q[1] = 0; q[2] = 0; return relErr(crbaWorld(model, ws, q), crba(model, local, q)); };
    // the local CRBA does not depend on where the base is; the world one within ~|p|² ε of it
    expect(errAt(0)).toBeLessThan(1e-14);
    expect(errAt(10)).toBeLessThan(1e-12);
    expect(errAt(1000)).toBeLessThan(1e-9);
    expect(errAt(1000)).toBeGreaterThan(errAt(0));
  });

  it('names its bad inputs', () => {
    const model = chain(4), ws = new CrbaWorldWorkspace(model);
    expect(() => crbaWorld(model, ws, [0, 0, 0])).toThrow('q has length 3, expected model.nq = 4');
    expect(() => crbaWorld(model, ws, [0, 0, Number.NaN, 0])).toThrow(/q\[2\] is NaN/);
    expect(() => crbaWorld(chain(5), ws, [0, 0, 0, 0, 0])).toThrow('crbaWorld: workspace was created for another model');
  });
});
