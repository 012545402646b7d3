/**
 * M⁻¹ by the sparse path (one factorization of the forward-dynamics system, one right-hand side per
 * DoF): M M⁻¹ = I, agreement with Carpentier's algorithm and with the reference files' Minv, exact
 * symmetry, and flops split into fill, factor and solves (the solves scale with nv exactly).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { crba, CrbaWorkspace } from '../../src/algorithms/crba.ts';
import { minvCarpentier, MinvCarpentierWorkspace } from '../../src/algorithms/minv-carpentier.ts';
import { LuForwardDynamics } from '../../src/assembly/dynamics.ts';
import { MinvLu } from '../../src/assembly/minv-lu.ts';
import { chain, humanoid, randomTree } from '../../src/model/generators.ts';
import type { Model } from '../../src/model/model.ts';
import { Rng } from '../../src/model/rng.ts';
import { loadUrdf } from '../../src/node/urdf-file.ts';
import { configurationFromReference, matrixToReference, parseReference, referenceLayout } from '../../src/verify/reference.ts';
import { expectClose } from '../helpers.ts';
import { describeShared, shared } from '../shared.ts';
import { randomState } from '../state.ts';

const models: [string, () => Model][] = [
  ['random tree 30, fixed', () => randomTree(30, 21)],
  ['random tree 30, floating', () => randomTree(30, 22, { floatingBase: true })],
  ['random tree 20 with kept-fixed joints, floating', () => randomTree(20, 23, { floatingBase: true, fixedFraction: 0.2, keepFixed: ['fix1', 'fix2'] })],
  ['humanoid, floating', () => humanoid()],
];

describe('MinvLu', () => {
  for (const [name, make] of models) {
    const model = make();
    const nv = model.nv;
    const rng = new Rng(name.length * 17);
    const lu = new MinvLu(model);
    const cw = new CrbaWorkspace(model), kw = new MinvCarpentierWorkspace(model);

    it(`${name}: M M⁻¹ = I, equal to Carpentier's M⁻¹, exactly symmetric`, () => {
      for (let t = 0; t < 2; t++) {
        const { q } = randomState(model, rng);
        const Minv = Float64Array.from(lu.compute(q));
        const M = crba(model, cw, q);
        const P = new Float64Array(nv * nv), I = new Float64Array(nv * nv);
        for (let r = 0; r < nv; r++) {
          I[r * nv + r] = 1;
          for (let c = 0; c < nv; c++) { let s = 0; for (let k = 0; k < nv; k++) s += M[r * nv + k] * Minv[k * nv + c]; P[r * nv + c] = s; }
        }
        // the LU's threshold pivoting (tol 0.001) is less accurate than a Cholesky-like recursion on
        // ill-conditioned M (the humanoid's cond₂(M) reaches ~3e5 at random q): 1e-9
        expectClose(P, I, 1e-9, 'M M⁻¹');
        expectClose(Minv, minvCarpentier(model, kw, q), 1e-9, 'LU vs Carpentier');
        for (let r = 0; r < nv; r++) for (let c = 0; c < r; c++) expect(Minv[r * nv + c]).toBe(Minv[c * nv + r]);
      }
    });
  }

  describeShared('M⁻¹ by the sparse LU equals the reference Minv of real robots', () => {
    for (const robot of ['ur5_robot', 'panda', 'solo12', 'simple_humanoid', 'talos_reduced']) {
      for (const base of ['fixed', 'floating'] as const) {
        it(`${robot}, ${base} base: equals the reference Minv`, () => {
          const ref = parseReference(readFileSync(shared('reference', `${robot}.${base}.json`), 'utf8'));
          const model = loadUrdf(shared('models', `${robot}.urdf`), { floatingBase: base === 'floating', gravity: ref.gravity });
          const layout = referenceLayout(model, ref);
          const lu = new MinvLu(model);
          const q = new Float64Array(model.nq), out = new Float64Array(model.nv * model.nv);
          for (const cs of ref.cases) {
            configurationFromReference(q, cs.q, layout);
            matrixToReference(out, lu.compute(q), layout.vToRef);
            expectClose(out, cs.Minv.flat(), 1e-9, `${robot} Minv (LU)`, 0);
          }
        });
      }
    }
  });

  it('flops: one factorization (the forward-dynamics one) and nv equal solves', () => {
    const model = chain(12);
    const { q, tau } = randomState(model, new Rng(3));
    const lu = new MinvLu(model);
    lu.compute(q);
    const fd = new LuForwardDynamics(model, { refine: 0 }); // MinvLu's solves are not refined by default
    fd.solve(q, null, tau);
    const f = lu.flops;
    expect(f.factor.total).toBe(fd.solver.flops.factor.total);
    // every solve costs the same: nv × the flops of forward dynamics' single solve
    expect(f.solve.total).toBe(model.nv * fd.solver.flops.solve.total);
    expect(f.kinematics.total).toBe(fd.solver.flops.kinematics.total);
    const total = lu.totalFlops();
    expect(total.total).toBe(f.kinematics.total + f.fill.total + f.factor.total + f.solve.total);
    for (const part of [f.kinematics, f.fill, f.factor, f.solve]) expect(Number.isInteger(part.total)).toBe(true);
  });

  it('rejects a bad configuration, naming the size', () => {
    const model = chain(4);
    expect(() => new MinvLu(model).compute([0, 0, 0])).toThrow('q has length 3, expected model.nq = 4');
  });
});
