/**
 * Carpentier's analytical M⁻¹ (paper 000, Algorithm 1; paper 003, Table 9): M M⁻¹ = I with CRBA's
 * M, agreement with the dense Cholesky inverse and with every shipped reference file's Minv (fixed
 * and floating base), multi-DoF and 0-DoF kept-fixed joints, several root trees, exact flop counts
 * that grow as n² on a chain, and the error cases.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SingularJointInertiaError } from '../../src/algorithms/aba.ts';
import { crba, CrbaWorkspace } from '../../src/algorithms/crba.ts';
import { minvCholesky, MinvCholeskyWorkspace } from '../../src/algorithms/minv.ts';
import { minvCarpentier, MinvCarpentierWorkspace } from '../../src/algorithms/minv-carpentier.ts';
import { buildModel } from '../../src/model/build.ts';
import { chain, humanoid, inertiaFromPrincipal, randomTree } from '../../src/model/generators.ts';
import type { Model } from '../../src/model/model.ts';
import { Rng } from '../../src/model/rng.ts';
import { loadUrdf } from '../../src/node/urdf-file.ts';
import { xCreate } from '../../src/spatial/transform.ts';
import { configurationFromReference, matrixToReference, parseReference, referenceLayout } from '../../src/verify/reference.ts';
import { expectClose } from '../helpers.ts';
import { describeShared, shared } from '../shared.ts';
import { randomState } from '../state.ts';

function product(A: Float64Array, B: Float64Array, n: number): Float64Array {
  const P = new Float64Array(n * n);
  for (let r = 0; r < n; r++) for (let k = 0; k < n; k++) {
    const a = A[r * n + k];
    if (a !== 0) for (let c = 0; c < n; c++) P[r * n + c] += a * B[k * n + c];
  }
  return P;
}

function identity(n: number): Float64Array {
  const I = new Float64Array(n * n);
  for (let k = 0; k < n; k++) I[k * n + k] = 1;
  return I;
}

const models: [string, () => Model][] = [
  ['random tree 40, fixed (several root trees)', () => randomTree(40, 11)],
  ['random tree 35, floating', () => randomTree(35, 12, { floatingBase: true })],
  ['random tree 25 with 0-DoF kept-fixed joints, floating', () => randomTree(25, 13, { floatingBase: true, fixedFraction: 0.2, keepFixed: ['fix1', 'fix2', 'fix3'] })],
  ['random tree 25 with 0-DoF kept-fixed joints, fixed', () => randomTree(25, 14, { fixedFraction: 0.2, keepFixed: ['fix1', 'fix2', 'fix3', 'fix4'] })],
  ['spherical joints only', () => randomTree(12, 15, { floatingBase: true, mix: { revolute: 0, revoluteGeneral: 0, prismatic: 0, helical: 0, spherical: 1 } })],
  ['chain 30', () => chain(30)],
  ['humanoid, floating', () => humanoid()],
];

describe('minvCarpentier', () => {
  for (const [name, make] of models) {
    const model = make();
    const rng = new Rng(name.length * 31);
    const cw = new CrbaWorkspace(model), hw = new MinvCholeskyWorkspace(model);
    const nv = model.nv;

    for (const frame of ['local', 'world'] as const) it(`${name} (${frame} frame): M M⁻¹ = I and M⁻¹ equals the Cholesky inverse`, () => {
      const ws = new MinvCarpentierWorkspace(model, { frame });
      for (let t = 0; t < 3; t++) {
        const { q } = randomState(model, rng);
        const Minv = Float64Array.from(minvCarpentier(model, ws, q));
        const M = crba(model, cw, q);
        expectClose(product(M, Minv, nv), identity(nv), 1e-10, 'M M⁻¹');
        expectClose(Minv, minvCholesky(model, hw, q), 1e-10, 'M⁻¹ vs Cholesky');
        for (let r = 0; r < nv; r++) for (let c = 0; c < r; c++) expect(Minv[r * nv + c]).toBe(Minv[c * nv + r]);
        expect(Number.isInteger(ws.flops.total)).toBe(true);
      }
    });
  }

  it('the test models have the structure they claim', () => {
    const kept = randomTree(25, 13, { floatingBase: true, fixedFraction: 0.2, keepFixed: ['fix1', 'fix2', 'fix3'] });
    expect([...kept.nvi].filter((n) => n === 0).length).toBe(3);
    const fixed = randomTree(40, 11);
    expect(fixed.rootBodies.length).toBeGreaterThan(1);
    // the workspace detects several root trees: M⁻¹ is block diagonal across them
    const ws = new MinvCarpentierWorkspace(fixed);
    const q = randomState(fixed, new Rng(5)).q;
    const Minv = minvCarpentier(fixed, ws, q);
    const r0 = fixed.rootBodies[0], r1 = fixed.rootBodies[1];
    expect(Minv[fixed.iv[r0] * fixed.nv + fixed.iv[r1]]).toBe(0);
  });

  describeShared('Carpentier\'s M⁻¹ equals the reference Minv of real robots', () => {
    for (const robot of ['ur5_robot', 'panda', 'solo12', 'simple_humanoid', 'talos_reduced']) {
      for (const base of ['fixed', 'floating'] as const) {
        it(`${robot}, ${base} base: equals the reference Minv`, () => {
          const ref = parseReference(readFileSync(shared('reference', `${robot}.${base}.json`), 'utf8'));
          const model = loadUrdf(shared('models', `${robot}.urdf`), { floatingBase: base === 'floating', gravity: ref.gravity });
          const layout = referenceLayout(model, ref);
          const q = new Float64Array(model.nq), out = new Float64Array(model.nv * model.nv);
          for (const frame of ['local', 'world'] as const) {
            const ws = new MinvCarpentierWorkspace(model, { frame });
            for (const cs of ref.cases) {
              configurationFromReference(q, cs.q, layout);
              matrixToReference(out, minvCarpentier(model, ws, q), layout.vToRef);
              // 1e-9 relative to the largest entry (the references are well conditioned to that level)
              expectClose(out, cs.Minv.flat(), 1e-9, `${robot} Minv (${frame})`, 0);
            }
          }
        });
      }
    }
  });

  it('flops are exact integers, quadratic in the chain length (Σ over pairs of joints); world frame is cheaper per pair', () => {
    const count = (n: number, frame: 'local' | 'world' = 'local') => {
      const m = chain(n, { axes: 'z' });
      const ws = new MinvCarpentierWorkspace(m, { frame });
      minvCarpentier(m, ws, randomState(m, new Rng(n)).q);
      return ws.flops;
    };
    const second = (f: number[]) => f[2] - 2 * f[1] + f[0];
    for (const frame of ['local', 'world'] as const) {
      const f = [8, 16, 24, 32].map((n) => count(n, frame).total);
      for (const x of f) expect(Number.isInteger(x)).toBe(true);
      // a quadratic polynomial in n: constant second difference over equal steps
      expect(second(f)).toBe(f[3] - 2 * f[2] + f[1]);
      expect(second(f)).toBeGreaterThan(0);
    }
    // per pair of joints (2 × the n² coefficient): 110 flops in body coordinates (55 per pass: a 42-flop transform, 12 for U_i M⁻¹ or D⁻¹Uᵀ, 1 for D⁻¹ or S), 47 in world coordinates
    expect(second([8, 16, 24].map((n) => count(n).total)) / 64).toBe(110);
    expect(second([8, 16, 24].map((n) => count(n, 'world').total)) / 64).toBe(47);
    // one division per 1-DoF joint (D_i⁻¹), jcalc's sin and cos
    const fl = count(10);
    expect(fl.div).toBe(10);
    expect(fl.fn).toBe(20);
  });

  it('names the joint above a massless subtree and rejects a foreign workspace or a bad q', () => {
    const I = inertiaFromPrincipal(1, [0, 0, 0.1], 0.01, 0.01, 0.01);
    const model = buildModel({
      name: 'massless-tip',
      links: [{ name: 'base', inertia: I }, { name: 'l1', inertia: I }, { name: 'tip', inertia: null }],
      joints: [
        { name: 'j1', type: 'revolute', parent: 'base', child: 'l1', origin: xCreate(), axis: [0, 0, 1] },
        { name: 'j2', type: 'revolute', parent: 'l1', child: 'tip', origin: xCreate(), axis: [0, 1, 0] },
      ],
    });
    const ws = new MinvCarpentierWorkspace(model);
    expect(() => minvCarpentier(model, ws, [0.1, 0.2])).toThrow(SingularJointInertiaError);
    expect(() => minvCarpentier(model, ws, [0.1, 0.2])).toThrow(/joint "j2"/);
    expect(() => minvCarpentier(chain(3), ws, [0, 0, 0])).toThrow(/workspace was created for another model/);
    const c3 = chain(3);
    expect(() => minvCarpentier(c3, new MinvCarpentierWorkspace(c3), [0, 0])).toThrow('q has length 2, expected model.nq = 3');
  });
});
