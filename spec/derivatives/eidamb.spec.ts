/**
 * Saccon's extended inverse dynamics (paper 003 Table 4) and its derivative tables (5–8): τ̄ of
 * EIDAmb equals RNEA (fixed and moving base), Table 5 in the paper's own world-twist convention
 * against geometric finite differences, flop counts that depend on the structure only, and errors.
 */
import { describe, expect, it } from 'vitest';
import { eidambD1 } from '../../src/algorithms/eidamb-d1.ts';
import { eidambDerivatives, EidambDerivativesWorkspace } from '../../src/algorithms/eidamb-derivatives.ts';
import { eidamb, EidambWorkspace } from '../../src/algorithms/eidamb.ts';
import { rnea, RneaWorkspace } from '../../src/algorithms/rnea.ts';
import { chain, humanoid, randomTree } from '../../src/model/generators.ts';
import { integrate } from '../../src/model/lie.ts';
import type { Model } from '../../src/model/model.ts';
import { Rng } from '../../src/model/rng.ts';
import { loadUrdf } from '../../src/node/urdf-file.ts';
import { Flops } from '../../src/spatial/flops.ts';
import { xApplyMotion, xInvApplyMotion } from '../../src/spatial/transform.ts';
import { expectClose } from '../helpers.ts';
import { describeShared, shared } from '../shared.ts';
import { randomState } from '../state.ts';

const models: [string, Model][] = [
  ['tree:25 fixed', randomTree(25, 51)],
  ['tree:25 floating', randomTree(25, 52, { floatingBase: true })],
  ['humanoid floating', humanoid()],
  ['chain:7 fixed, random axes', chain(7, { axes: 'random', seed: 5 })],
];
/** real robots of the shared folder, read inside the tests */
const robots: [string, () => Model][] = [
  ['talos_reduced floating', () => loadUrdf(shared('models/talos_reduced.urdf'), { floatingBase: true })],
  ['panda fixed', () => loadUrdf(shared('models/panda.urdf'))],
];

function tauIsRnea(name: string, make: () => Model): void {
  it(`${name}: τ̄ = RNEA(q, q̇, q̈) (base wrench first for a moving base)`, () => {
    const model = make();
    const rng = new Rng(name.length);
    const ws = new EidambWorkspace(model), rw = new RneaWorkspace(model);
    for (let t = 0; t < 3; t++) {
      const { q, v, a } = randomState(model, rng);
      expectClose(eidamb(model, ws, q, v, a), rnea(model, rw, q, v, a), 1e-13, 'τ̄');
    }
    expect(ws.floating).toBe(model.floatingBase);
  });
}

function flopsAreStructural(name: string, make: () => Model): void {
  it(`${name}: the flops of every table depend on the structure only, not on the state`, () => {
    const model = make();
    const rng = new Rng(3);
    const ws = new EidambWorkspace(model), dws = new EidambDerivativesWorkspace(model);
    const counts: number[][] = [];
    for (let t = 0; t < 2; t++) {
      const { q, v, a } = randomState(model, rng);
      eidamb(model, ws, q, v, a);
      eidambDerivatives(model, ws, dws);
      counts.push([ws.flops.total, dws.flopsD1.total, dws.flopsD2.total, dws.flopsD3.total, dws.flopsD4.total]);
    }
    expect(counts[1]).toEqual(counts[0]);
    if (!model.floatingBase) expect([counts[0][1], counts[0][3]]).toEqual([0, 0]);
    else expect(counts[0].every((c) => c > 0)).toBe(true);
  });
}

describe('EIDAmb (Table 4)', () => {
  for (const [name, model] of models) tauIsRnea(name, () => model);

  it('checks its inputs at the entry, naming the vector', () => {
    const model = models[0][1];
    const ws = new EidambWorkspace(model);
    const z = new Float64Array(model.nv);
    const { q } = randomState(model, new Rng(1));
    expect(() => eidamb(model, ws, q, z, z.subarray(1))).toThrow(`a has length ${model.nv - 1}, expected model.nv = ${model.nv}`);
    expect(() => eidamb(model, ws, q.subarray(1), z, z)).toThrow(`q has length ${model.nq - 1}, expected model.nq = ${model.nq}`);
    expect(() => eidamb(models[1][1], ws, q, z, z)).toThrow('workspace was created for another model');
  });
});

describe('derivative tables (5–8)', () => {
  it('Table 5 in the paper\'s convention (world-frame base twist ᴬv_A,0 held fixed) against geometric finite differences', () => {
    const model = models[1][1];
    const { q, v, a } = randomState(model, new Rng(9));
    const ws = new EidambWorkspace(model), dws = new EidambDerivativesWorkspace(model), rw = new RneaWorkspace(model);
    eidamb(model, ws, q, v, a);
    eidambDerivatives(model, ws, dws, { baseVelocity: 'world' });
    // ᴬv_A,0 = ᴬX_0 v_0 from the state; at q ⊕ δ the body twist is ⁰X_A(q ⊕ δ) ᴬv_A,0
    const v0 = Float64Array.of(v[3], v[4], v[5], v[0], v[1], v[2]);
    const vA = xInvApplyMotion(new Float64Array(6), ws.Xup[0], v0, new Flops());
    const nv = model.nv, h = 1e-6;
    const tauAt = (dq: Float64Array): Float64Array => {
      const qp = integrate(model, q, dq);
      const ws2 = new EidambWorkspace(model);
      eidamb(model, ws2, qp, v, a);
      const vb = xApplyMotion(new Float64Array(6), ws2.Xup[0], vA, new Flops());
      const vp = Float64Array.from(v);
      vp.set([vb[3], vb[4], vb[5], vb[0], vb[1], vb[2]], 0);
      return Float64Array.from(rnea(model, rw, qp, vp, a));
    };
    for (let k = 0; k < 6; k++) {
      const dq = new Float64Array(nv);
      dq[k] = h;
      const tp = tauAt(dq);
      dq[k] = -h;
      const tm = tauAt(dq);
      const fd = tp.map((x, r) => (x - tm[r]) / (2 * h));
      expectClose(dws.dtau_dq.subarray(k * nv, (k + 1) * nv), fd, 1e-7, `∂̃τ̄/∂H column ${k} ('world')`);
    }
    // with the body-frame twist (sparsedyn's state) only gravity depends on H: the columns differ
    const body = new EidambDerivativesWorkspace(model);
    eidambDerivatives(model, ws, body);
    let differ = 0;
    for (let e = 0; e < 6 * nv; e++) differ = Math.max(differ, Math.abs(body.dtau_dq[e] - dws.dtau_dq[e]));
    expect(differ).toBeGreaterThan(1e-3);
    expectClose(body.dtau_dq.subarray(6 * nv), dws.dtau_dq.subarray(6 * nv), 0, 'joint columns (Table 6) do not depend on the convention');
  });

  for (const [name, model] of models) flopsAreStructural(name, () => model);

  it('Table 5 on a fixed base is refused, naming the model', () => {
    const model = models[0][1];
    expect(() => eidambD1(model, new EidambWorkspace(model), new EidambDerivativesWorkspace(model), 'body')).toThrow(`model "${model.name}" has no floating base`);
  });
});

describeShared('EIDAmb and its tables on real robots', () => {
  for (const [name, make] of robots) {
    tauIsRnea(name, make);
    flopsAreStructural(name, make);
  }
});
