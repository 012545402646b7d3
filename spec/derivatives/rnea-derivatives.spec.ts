/**
 * The world-frame RNEA derivatives (rnea-derivatives.ts) and the solves −M⁻¹ B (minv-solve.ts) that
 * replaced EIDAmb's Tables 5–8 with the CRBA and the Cholesky M⁻¹ with dense products in
 * recursive.ts give those algorithms' values to 1e-12 (relative to the largest entry; −M⁻¹ B by two
 * routes to 1e-10, the new one with a backward error at the rounding level) on chains, random trees
 * with every joint type, 0-DoF bodies and a floating base; τ equals the RNEA's.
 */
import { describe, expect, it } from 'vitest';
import { aba, AbaWorkspace } from '../../src/algorithms/aba.ts';
import { crba, CrbaWorkspace } from '../../src/algorithms/crba.ts';
import { eidambDerivatives, EidambDerivativesWorkspace } from '../../src/algorithms/eidamb-derivatives.ts';
import { eidamb, EidambWorkspace } from '../../src/algorithms/eidamb.ts';
import { minvCholesky, MinvCholeskyWorkspace } from '../../src/algorithms/minv.ts';
import { rnea, RneaWorkspace } from '../../src/algorithms/rnea.ts';
import { relativeErrors } from '../../src/derivatives/finite-differences.ts';
import { MinvSolveWorkspace, negMinvSolve } from '../../src/derivatives/minv-solve.ts';
import { RneaDerivativesWorkspace } from '../../src/derivatives/rnea-derivatives.ts';
import { RecursiveForwardDynamicsDerivatives, RecursiveInverseDynamicsDerivatives } from '../../src/derivatives/recursive.ts';
import { Flops } from '../../src/spatial/flops.ts';
import { chain, randomTree } from '../../src/model/generators.ts';
import type { Model } from '../../src/model/model.ts';
import { Rng } from '../../src/model/rng.ts';
import { loadUrdf } from '../../src/node/urdf-file.ts';
import { modelFromUrdf } from '../../src/model/urdf.ts';
import { randomState } from '../state.ts';

/** the previous path: EIDAmb + Tables 5–8 (column-major, transposed here), CRBA, Cholesky M⁻¹ and −M⁻¹ B */
function previous(model: Model, q: Float64Array, v: Float64Array | null, a: Float64Array) {
  const nv = model.nv;
  const eid = new EidambWorkspace(model), der = new EidambDerivativesWorkspace(model), cw = new CrbaWorkspace(model);
  const tau = Float64Array.from(eidamb(model, eid, q, v ?? new Float64Array(nv), a));
  eidambDerivatives(model, eid, der);
  const dq = new Float64Array(nv * nv), dv = new Float64Array(nv * nv);
  for (let r = 0; r < nv; r++) for (let k = 0; k < nv; k++) { dq[r * nv + k] = der.dtau_dq[k * nv + r]; dv[r * nv + k] = der.dtau_dv[k * nv + r]; }
  const M = Float64Array.from(crba(model, cw, q));
  const Minv = Float64Array.from(minvCholesky(model, new MinvCholeskyWorkspace(model), q));
  const neg = (B: Float64Array) => {
    const X = new Float64Array(nv * nv);
    for (let r = 0; r < nv; r++) for (let k = 0; k < nv; k++) { let s = 0; for (let t = 0; t < nv; t++) s += Minv[r * nv + t] * B[t * nv + k]; X[r * nv + k] = -s; }
    return X;
  };
  return { tau, dq, dv, M, Minv, fdq: neg(dq), fdv: neg(dv) };
}

const cases: [string, () => Model][] = [
  ['chain 7', () => chain(7)],
  ['chain 30', () => chain(30)],
  ['tree:20 fixed, every joint type', () => randomTree(20, 71, { mix: { prismatic: 2, helical: 2, spherical: 2, planar: 2 } })],
  ['tree:20 floating, every joint type', () => randomTree(20, 72, { floatingBase: true, mix: { prismatic: 2, helical: 2, spherical: 2, planar: 2 } })],
  ['humanoid floating, sole and hand joints kept as 0-DoF bodies', () => loadUrdf('models/humanoid.urdf', { floatingBase: true, keepFixed: ['l_sole_joint', 'r_sole_joint', 'l_hand_joint', 'r_hand_joint'] })],
];

function close(a: Float64Array, b: Float64Array, what: string, tol = 1e-12): void {
  const e = relativeErrors(a, b).max;
  expect(e, `${what}: relative error ${e.toExponential(2)}`).toBeLessThanOrEqual(tol);
}

/** max |M X + B| / (max|M| max|X| nv + max|B|): the backward error of X = −M⁻¹ B */
function residual(M: Float64Array, X: Float64Array, B: Float64Array, nv: number): number {
  let worst = 0, mM = 0, mX = 0, mB = 0;
  for (let k = 0; k < nv * nv; k++) { mM = Math.max(mM, Math.abs(M[k])); mX = Math.max(mX, Math.abs(X[k])); mB = Math.max(mB, Math.abs(B[k])); }
  for (let r = 0; r < nv; r++) {
    for (let k = 0; k < nv; k++) {
      let s = B[r * nv + k];
      for (let t = 0; t < nv; t++) s += M[r * nv + t] * X[t * nv + k];
      worst = Math.max(worst, Math.abs(s));
    }
  }
  return worst / (mM * mX * nv + mB + 1e-300);
}

describe('world-frame RNEA derivatives and −M⁻¹ solves give the previous recursive path\'s values', () => {
  for (const [name, make] of cases) {
    it(name, () => {
      const model = make();
      for (const [seed, rest] of [[3, false], [4, true]] as const) {
        const s = randomState(model, new Rng(seed + name.length));
        const v = rest ? null : s.v;
        const old = previous(model, s.q, v, s.a);
        const id = new RecursiveInverseDynamicsDerivatives(model).compute(s.q, v, s.a);
        close(id.value, old.tau, `${name} τ`);
        close(id.value, rnea(model, new RneaWorkspace(model), s.q, v ?? new Float64Array(model.nv), s.a), `${name} τ vs RNEA`);
        close(id.dq, old.dq, `${name} ∂τ/∂q`);
        close(id.dv, old.dv, `${name} ∂τ/∂q̇`);
        close(id.du, old.M, `${name} M`);
        if (rest) expect(id.dv.every((x) => x === 0)).toBe(true);
        const fd = new RecursiveForwardDynamicsDerivatives(model).compute(s.q, v, s.tau);
        // q̈ = M⁻¹ (τ − b) by the articulated factorization in world coordinates: ABA's q̈ to rounding
        close(fd.value, aba(model, new AbaWorkspace(model), s.q, v, s.tau), `${name} q̈ vs ABA`, 1e-11);
        const at = previous(model, s.q, v, fd.value);
        // −M⁻¹ B by two routes differs by the conditioning of M times the rounding: 1e-10 between
        // them, and the new one's backward error at the rounding level
        close(fd.dq, at.fdq, `${name} ∂q̈/∂q`, 1e-10);
        close(fd.dv, at.fdv, `${name} ∂q̈/∂q̇`, 1e-10);
        close(fd.du, at.Minv, `${name} M⁻¹`, 1e-10);
        // derive at the same q̈ again: the same values
        const dq = Float64Array.from(fd.dq), dv = Float64Array.from(fd.dv);
        fd.derive(s.q, v);
        expect(Array.from(fd.dq)).toEqual(Array.from(dq));
        expect(Array.from(fd.dv)).toEqual(Array.from(dv));
        const nv = model.nv;
        for (const [X, B, k] of [[fd.dq, at.dq, 'q'], [fd.dv, at.dv, 'q̇']] as const) {
          const e = residual(at.M, X, B, nv);
          expect(e, `${name}: backward error of ∂q̈/∂${k} ${e.toExponential(2)}`).toBeLessThanOrEqual(1e-15);
        }
      }
    });
  }

  /** a fixed base carrying a one-link branch (a leaf) and a two-link branch */
  const link = (n: string, m: number) => `<link name="${n}"><inertial><origin xyz="0.1 0.02 -0.03"/><mass value="${m}"/><inertia ixx="0.02" ixy="0.001" ixz="0" iyy="0.03" iyz="0.002" izz="0.025"/></inertial></link>`;
  const joint = (n: string, p: string, c: string, axis: string) => `<joint name="${n}" type="revolute"><parent link="${p}"/><child link="${c}"/><origin xyz="0.2 0.1 0" rpy="0.3 0 0.2"/><axis xyz="${axis}"/><limit effort="1" velocity="1" lower="-3" upper="3"/></joint>`;
  const TWO_ROOTS = `<robot name="two_roots">${link('base', 5)}${link('a', 1)}${link('b', 2)}${link('c', 1.5)}${joint('ja', 'base', 'a', '0 0 1')}${joint('jb', 'base', 'b', '0 1 0')}${joint('jc', 'b', 'c', '1 0 0')}</robot>`;

  it('−M⁻¹ B and M⁻¹ by the generated WebAssembly (one-DoF joints) equal the JavaScript passes bit for bit, with the same counts', () => {
    const models: [string, Model, boolean][] = [
      ['chain 1', chain(1), true], ['chain 2', chain(2), true], ['chain 7', chain(7), true], ['chain 30', chain(30), true],
      ['tree:25 fixed, one-DoF joints of every kind', randomTree(25, 74, { mix: { spherical: 0 } }), true],
      ['humanoid fixed', loadUrdf('models/humanoid.urdf'), true],
      // two bodies on the fixed base, the first a leaf: its column of M⁻¹ below the diagonal is zero,
      // written by the code after a solve has left −M⁻¹ B there
      ['two roots, the first a leaf', modelFromUrdf(TWO_ROOTS), true],
      // joints of several degrees of freedom: the JavaScript
      ['chain 7 floating', chain(7, { floatingBase: true }), false],
      ['tree:20 with spherical joints', randomTree(20, 71, { mix: { spherical: 2 } }), false],
    ];
    for (const [name, model, compiled] of models) {
      const nv = model.nv;
      const wsJ = new MinvSolveWorkspace(model, false), wsC = new MinvSolveWorkspace(model);
      expect(wsC.code !== null, name).toBe(compiled);
      if (!compiled) continue;
      const fd = new RecursiveForwardDynamicsDerivatives(model);
      for (const seed of [5, 6]) {
        const s = randomState(model, new Rng(seed));
        fd.compute(s.q, s.v, s.tau);
        const J = fd.id.rd!.J, B = fd.id.dq;
        for (const rhs of [null, B]) {
          const fj = new Flops(), fc = new Flops();
          const XJ = new Float64Array(nv * nv).fill(7), XC = new Float64Array(nv * nv).fill(-7);
          negMinvSolve(model, wsJ, fd.factor, J, rhs, XJ, fj);
          negMinvSolve(model, wsC, fd.factor, J, rhs, XC, fc);
          expect(XC.every((x, k) => Object.is(x, XJ[k])), `${name} ${rhs === null ? 'M⁻¹' : '−M⁻¹ B'} seed ${seed}`).toBe(true);
          expect([fc.mul, fc.add, fc.div], name).toEqual([fj.mul, fj.add, fj.div]);
        }
      }
    }
  });

  it('the ancestor pairs of ∂τ/∂q, ∂τ/∂q̇ and M by the generated WebAssembly (one-DoF joints) equal the JavaScript bit for bit, with the same counts', () => {
    const models: [string, Model, boolean][] = [
      ['chain 1', chain(1), true], ['chain 7', chain(7), true], ['chain 30', chain(30), true],
      ['tree:25 fixed, one-DoF joints of every kind', randomTree(25, 74, { mix: { spherical: 0 } }), true],
      ['humanoid fixed', loadUrdf('models/humanoid.urdf'), true],
      ['chain 7 floating', chain(7, { floatingBase: true }), false],
      ['tree:20 with spherical joints', randomTree(20, 71, { mix: { spherical: 2 } }), false],
    ];
    for (const [name, model, compiled] of models) {
      const js = new RneaDerivativesWorkspace(model, false), wasm = new RneaDerivativesWorkspace(model);
      expect(wasm.code !== null, name).toBe(compiled);
      if (!compiled) continue;
      for (const [seed, withM] of [[1, true], [2, false], [3, true]] as const) {
        const s = randomState(model, new Rng(seed));
        js.compute(s.q, s.v, s.a, withM);
        wasm.compute(s.q, s.v, s.a, withM);
        for (const k of ['tau', 'dq', 'dv', 'M'] as const) {
          expect(wasm[k].every((x, i) => Object.is(x, js[k][i])), `${name} ${k} seed ${seed}`).toBe(true);
        }
        expect(wasm.totalFlops().total, name).toBe(js.totalFlops().total);
      }
    }
  });

  it('a second call on the same objects gives the same values (the workspaces are reset)', () => {
    const model = randomTree(12, 73, { floatingBase: true });
    const s1 = randomState(model, new Rng(1)), s2 = randomState(model, new Rng(2));
    const id = new RecursiveInverseDynamicsDerivatives(model), fd = new RecursiveForwardDynamicsDerivatives(model);
    id.compute(s1.q, s1.v, s1.a); fd.compute(s1.q, s1.v, s1.tau);
    id.compute(s2.q, s2.v, s2.a); fd.compute(s2.q, s2.v, s2.tau);
    const id2 = new RecursiveInverseDynamicsDerivatives(model).compute(s2.q, s2.v, s2.a);
    const fd2 = new RecursiveForwardDynamicsDerivatives(model).compute(s2.q, s2.v, s2.tau);
    for (const k of ['value', 'dq', 'dv', 'du'] as const) {
      expect(Array.from(id[k])).toEqual(Array.from(id2[k]));
      expect(Array.from(fd[k])).toEqual(Array.from(fd2[k]));
    }
    expect(id.flops.derivatives.total).toBe(id2.flops.derivatives.total);
  });

  it('the world base-twist option still runs the EIDAmb path (Tables 5–8), its derivatives differing in ∂τ/∂q only', () => {
    const model = randomTree(8, 74, { floatingBase: true });
    const s = randomState(model, new Rng(9));
    const body = new RecursiveInverseDynamicsDerivatives(model).compute(s.q, s.v, s.a);
    const world = new RecursiveInverseDynamicsDerivatives(model, { baseVelocity: 'world' }).compute(s.q, s.v, s.a);
    close(world.value, body.value, 'τ');
    close(world.du, body.du, 'M');
    expect(relativeErrors(world.dq, body.dq).max).toBeGreaterThan(1e-6);
  });
});
