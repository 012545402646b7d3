/**
 * Cross-checks of the gold standards on seeded random trees (≥ 30 bodies, all joint types,
 * fixed and floating base), Pinocchio-style: ABA(RNEA(q̈)) = q̈, M q̈ + RNEA(q, q̇, 0) = RNEA(q, q̇, q̈),
 * M M⁻¹ = I, ½ q̇ᵀ M q̇ = Σ ½ v_iᵀ I_i v_i, and f^x handled alike by RNEA and ABA.
 */
import { describe, expect, it } from 'vitest';
import { aba, AbaWorkspace } from '../../src/algorithms/aba.ts';
import { crba, CrbaWorkspace } from '../../src/algorithms/crba.ts';
import { minvCholesky, MinvCholeskyWorkspace } from '../../src/algorithms/minv.ts';
import { rnea, RneaWorkspace } from '../../src/algorithms/rnea.ts';
import { chain, humanoid, randomTree } from '../../src/model/generators.ts';
import type { Model } from '../../src/model/model.ts';
import { Rng } from '../../src/model/rng.ts';
import { Flops } from '../../src/spatial/flops.ts';
import { inertiaMulMotion } from '../../src/spatial/inertia.ts';
import { expectClose } from '../helpers.ts';
import { randomState } from '../state.ts';

const models: [string, () => Model][] = [
  ['random tree 40, fixed', () => randomTree(40, 101)],
  ['random tree 35, floating', () => randomTree(35, 202, { floatingBase: true })],
  ['random tree 60, fixed', () => randomTree(60, 303)],
  ['chain 30', () => chain(30)],
  ['humanoid, floating', () => humanoid({ floatingBase: true })],
];

describe('RNEA / ABA / CRBA identities', () => {
  for (const [name, make] of models) {
    const model = make();
    const rng = new Rng(name.length * 7919);
    const rw = new RneaWorkspace(model), aw = new AbaWorkspace(model), cw = new CrbaWorkspace(model), mw = new MinvCholeskyWorkspace(model);
    const nv = model.nv;

    it(`${name}: the tree has the joint mix asked for`, () => {
      expect(model.nb).toBeGreaterThanOrEqual(model.name.startsWith('humanoid') ? 20 : 30);
      for (let i = 0; i < model.nb; i++) expect(model.parents[i]).toBeLessThan(i);
    });

    it(`${name}: ABA(RNEA(q̈)) = q̈ and RNEA(ABA(τ)) = τ, with external wrenches`, () => {
      for (let t = 0; t < 3; t++) {
        const { q, v, a, tau } = randomState(model, rng);
        const fext = Array.from({ length: model.nb }, () => Float64Array.from({ length: 6 }, () => rng.uniform(-3, 3)));
        const tauId = Float64Array.from(rnea(model, rw, q, v, a, fext));
        expectClose(aba(model, aw, q, v, tauId, fext), a, 1e-10, 'ABA(RNEA(a))');
        const qdd = Float64Array.from(aba(model, aw, q, v, tau, fext));
        expectClose(rnea(model, rw, q, v, qdd, fext), tau, 1e-10, 'RNEA(ABA(τ))');
      }
    });

    it(`${name}: M q̈ + RNEA(q, q̇, 0) = RNEA(q, q̇, q̈), M M⁻¹ = I`, () => {
      const { q, v, a } = randomState(model, rng);
      const M = crba(model, cw, q);
      const nle = Float64Array.from(rnea(model, rw, q, v, new Float64Array(nv)));
      const tau = Float64Array.from(rnea(model, rw, q, v, a));
      const Ma = new Float64Array(nv);
      for (let r = 0; r < nv; r++) { let s = nle[r]; for (let c = 0; c < nv; c++) s += M[r * nv + c] * a[c]; Ma[r] = s; }
      expectClose(Ma, tau, 1e-12, 'M a + nle');
      for (let r = 0; r < nv; r++) for (let c = 0; c < nv; c++) expect(M[r * nv + c]).toBe(M[c * nv + r]);
      const Minv = minvCholesky(model, mw, q);
      const P = new Float64Array(nv * nv), I = new Float64Array(nv * nv);
      for (let r = 0; r < nv; r++) {
        I[r * nv + r] = 1;
        for (let c = 0; c < nv; c++) { let s = 0; for (let k = 0; k < nv; k++) s += M[r * nv + k] * Minv[k * nv + c]; P[r * nv + c] = s; }
      }
      expectClose(P, I, 1e-9, 'M M⁻¹');
      // ABA with unit torques and no bias gives the columns of M⁻¹ (gravity off via τ = g(q), v = 0)
      const g = Float64Array.from(rnea(model, rw, q, null, new Float64Array(nv)));
      const col = new Float64Array(nv);
      for (const c of [0, nv >> 1, nv - 1]) {
        const t2 = Float64Array.from(g); t2[c] += 1;
        const x = aba(model, aw, q, null, t2);
        for (let r = 0; r < nv; r++) col[r] = Minv[r * nv + c];
        expectClose(x, col, 1e-9, `ABA column ${c} of M⁻¹`);
      }
    });

    it(`${name}: ½ q̇ᵀ M q̇ equals the summed body kinetic energies`, () => {
      const { q, v } = randomState(model, rng);
      const M = crba(model, cw, q);
      let T = 0;
      for (let r = 0; r < nv; r++) for (let c = 0; c < nv; c++) T += 0.5 * v[r] * M[r * nv + c] * v[c];
      rnea(model, rw, q, v, new Float64Array(nv));
      const fl = new Flops(), h = new Float64Array(6);
      let Tb = 0;
      for (let i = 0; i < model.nb; i++) {
        const vi = rw.kin.v[i];
        inertiaMulMotion(h, model.I[i], vi, fl);
        for (let k = 0; k < 6; k++) Tb += 0.5 * vi[k] * h[k];
      }
      expect(Math.abs(T - Tb) / Math.abs(Tb)).toBeLessThan(1e-12);
    });
  }

  it('flop counters are exact integers that grow linearly with the chain length', () => {
    const counts = [6, 12, 24].map((n) => {
      const m = chain(n);
      const rng = new Rng(n);
      const { q, v, a } = randomState(m, rng);
      const w = new RneaWorkspace(m);
      rnea(m, w, q, v, a);
      return w.totalFlops().total;
    });
    expect(Number.isInteger(counts[0])).toBe(true);
    // affine in n: equal increments for equal steps
    expect(counts[2] - counts[1]).toBe(2 * (counts[1] - counts[0]));
  });
});
