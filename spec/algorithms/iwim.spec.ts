/**
 * The inertia-weighted input matrix B̂ = M⁻¹B (paper 002) by its three methods — the extended unit
 * force method (m + 1 ABA runs), the Implicit Inversion Method on ABA's quantities, and the sparse
 * LU with m + 1 right-hand sides — against a dense M⁻¹B (CRBA's M, ml-matrix solve) whose B is
 * built independently from velocity kinematics (B = Jᵀ: the column of a unit force along d at a
 * point is the transpose of that point's velocity along d); the world-frame contact columns also
 * against finite differences of the contact point's world position. Plus exact flop structure and
 * the error cases.
 */
import { Matrix, solve } from 'ml-matrix';
import { describe, expect, it } from 'vitest';
import { aba, AbaWorkspace } from '../../src/algorithms/aba.ts';
import { crba, CrbaWorkspace } from '../../src/algorithms/crba.ts';
import { InputMatrix, InputSpecError, type ContactSpec, type InputSpec } from '../../src/algorithms/iwim-inputs.ts';
import { iwimIim, IwimIimWorkspace } from '../../src/algorithms/iwim-iim.ts';
import { iwimUnitForce, IwimUnitForceWorkspace } from '../../src/algorithms/iwim-unit-force.ts';
import { forwardKinematics, KinematicsWorkspace } from '../../src/algorithms/kinematics.ts';
import { LuForwardDynamics } from '../../src/assembly/dynamics.ts';
import { IwimLu } from '../../src/assembly/iwim-lu.ts';
import { chain, humanoid, randomTree } from '../../src/model/generators.ts';
import type { Model } from '../../src/model/model.ts';
import { Rng } from '../../src/model/rng.ts';
import { expectClose } from '../helpers.ts';
import { randomState } from '../state.ts';

/** ᵇE_0 of every body (world → body rotation) from the transforms Xup. */
function worldRotations(model: Model, Xup: readonly Float64Array[]): Float64Array[] {
  const E: Float64Array[] = [];
  for (let i = 0; i < model.nb; i++) {
    const X = Xup[i], p = model.parents[i], out = new Float64Array(9);
    for (let a = 0; a < 3; a++) for (let b = 0; b < 3; b++) {
      if (p < 0) { out[3 * a + b] = X[3 * a + b]; continue; }
      let s = 0;
      for (let k = 0; k < 3; k++) s += X[3 * a + k] * E[p][3 * k + b];
      out[3 * a + b] = s;
    }
    E.push(out);
  }
  return E;
}

/** Dense B (nv × m) from velocity kinematics: B[:, c] = J_cᵀ, J_c = the contact's velocity component. */
function denseB(model: Model, spec: InputSpec, B: InputMatrix, q: Float64Array): Matrix {
  const nv = model.nv, kin = new KinematicsWorkspace(model);
  const out = new Matrix(nv, B.m);
  for (let c = 0; c < B.nJoint; c++) out.set(B.dof[c], c, 1);
  const qd = new Float64Array(nv);
  for (let k = 0; k < nv; k++) {
    qd.fill(0); qd[k] = 1;
    forwardKinematics(kin, q, qd);
    const E0 = worldRotations(model, kin.Xup);
    (spec.contacts ?? []).forEach((ct, j) => {
      const f = model.frame(ct.link);
      const off = ct.offset ?? [0, 0, 0];
      const Ef = f.X;
      // the point in body coordinates: r_f + E_fᵀ offset
      const p = [0, 1, 2].map((a) => Ef[9 + a] + Ef[a] * off[0] + Ef[3 + a] * off[1] + Ef[6 + a] * off[2]);
      const v = kin.v[f.body];
      const w = [v[0], v[1], v[2]];
      const vp = [v[3] + w[1] * p[2] - w[2] * p[1], v[4] + w[2] * p[0] - w[0] * p[2], v[5] + w[0] * p[1] - w[1] * p[0]];
      const world = (ct.frame ?? spec.frame ?? 'world') === 'world';
      const Eb = E0[f.body];
      // world components: ᵇE_0ᵀ x;  link components: E_f x
      const axes = (x: number[]) => [0, 1, 2].map((e) => world ? Eb[e] * x[0] + Eb[3 + e] * x[1] + Eb[6 + e] * x[2] : Ef[3 * e] * x[0] + Ef[3 * e + 1] * x[1] + Ef[3 * e + 2] * x[2]);
      const lin = axes(vp), ang = axes(w);
      const c0 = B.cCol0[j];
      for (let e = 0; e < 3; e++) out.set(k, c0 + e, lin[e]);
      if (ct.type === 'wrench') for (let e = 0; e < 3; e++) out.set(k, c0 + 3 + e, ang[e]);
    });
  }
  return out;
}

function randomSpec(model: Model, rng: Rng): InputSpec {
  const joints = model.movingJoints().map((j) => j.name);
  const links = model.frames.filter((f) => f.body >= 0).map((f) => f.name);
  const actuated = joints.filter(() => rng.next() < 0.6);
  const contacts: ContactSpec[] = [];
  const nc = 1 + rng.int(4);
  for (let k = 0; k < nc; k++) {
    contacts.push({
      link: rng.pick(links),
      offset: [rng.uniform(-0.3, 0.3), rng.uniform(-0.3, 0.3), rng.uniform(-0.3, 0.3)],
      type: rng.next() < 0.6 ? 'force' : 'wrench',
      frame: rng.next() < 0.5 ? 'world' : 'local',
    });
  }
  return { actuated, contacts };
}

const models: [string, () => Model][] = [
  ['random tree 30, fixed', () => randomTree(30, 41)],
  ['random tree 30, floating', () => randomTree(30, 42, { floatingBase: true })],
  ['random tree 20, floating, merged and kept-fixed links', () => randomTree(20, 43, { floatingBase: true, fixedFraction: 0.3, keepFixed: ['fix1', 'fix2'] })],
  ['humanoid, floating', () => humanoid()],
];

describe('B̂ = M⁻¹B: eUFM, IIM and sparse LU agree with dense M⁻¹B', () => {
  for (const [name, make] of models) {
    const model = make();
    const rng = new Rng(name.length * 101);
    const aw = new AbaWorkspace(model), cw = new CrbaWorkspace(model);

    it(`${name}: three random input sets`, () => {
      for (let t = 0; t < 3; t++) {
        const spec = randomSpec(model, rng);
        const B = new InputMatrix(model, spec);
        const { q, v } = randomState(model, rng);
        const nv = model.nv;
        const M = crba(model, cw, q);
        const Mm = new Matrix(nv, nv);
        for (let r = 0; r < nv; r++) for (let c = 0; c < nv; c++) Mm.set(r, c, M[r * nv + c]);
        const ref = Float64Array.from(solve(Mm, denseB(model, spec, B, q)).to1DArray());
        const uf = new IwimUnitForceWorkspace(model, B), iim = new IwimIimWorkspace(model, B), lu = new IwimLu(model, B);
        expectClose(iwimUnitForce(model, uf, q, v), ref, 1e-9, 'eUFM', 0);
        expectClose(iwimIim(model, iim, q, v), ref, 1e-9, 'IIM', 0);
        expectClose(lu.solve(q, v), ref, 1e-9, 'LU', 0);
        const qdd0 = aba(model, aw, q, v, new Float64Array(nv));
        expectClose(uf.qdd0, qdd0, 1e-12, 'eUFM q̈_0', 0);
        expectClose(iim.qdd0, qdd0, 1e-12, 'IIM q̈_0', 0);
        expectClose(lu.qdd0, qdd0, 1e-9, 'LU q̈_0', 0);
      }
    });
  }

  it('world-frame contact columns are the transposed finite-difference Jacobian of the point (M B̂ = B)', () => {
    const model = randomTree(15, 44, { mix: { spherical: 0 } });
    const rng = new Rng(9);
    const links = model.frames.filter((f) => f.body >= 0).map((f) => f.name);
    const contacts: ContactSpec[] = [0, 1, 2].map(() => ({ link: rng.pick(links), offset: [rng.uniform(-0.3, 0.3), 0.1, -0.2], type: 'force' }));
    const B = new InputMatrix(model, { actuated: [], contacts });
    const { q } = randomState(model, rng);
    const Bhat = new IwimLu(model, B).solve(q, null);
    const M = crba(model, new CrbaWorkspace(model), q);
    const nv = model.nv, m = B.m, kin = new KinematicsWorkspace(model);
    // world position of contact j: r_b + ᵇE_0ᵀ p, composed from the transforms
    const position = (qq: Float64Array, j: number): number[] => {
      forwardKinematics(kin, qq, null);
      const E0 = worldRotations(model, kin.Xup);
      const pos: number[][] = [];
      for (let i = 0; i < model.nb; i++) {
        const X = kin.Xup[i], pp = model.parents[i];
        // origin of i in world: o_λ + ᵏE_0ᵀ r (r in parent coordinates)
        const r = [X[9], X[10], X[11]];
        pos.push(pp < 0 ? r : [0, 1, 2].map((a) => pos[pp][a] + E0[pp][a] * r[0] + E0[pp][3 + a] * r[1] + E0[pp][6 + a] * r[2]));
      }
      const f = model.frame(contacts[j].link), off = contacts[j].offset!, Ef = f.X;
      const p = [0, 1, 2].map((a) => Ef[9 + a] + Ef[a] * off[0] + Ef[3 + a] * off[1] + Ef[6 + a] * off[2]);
      const Eb = E0[f.body], o = pos[f.body];
      return [0, 1, 2].map((a) => o[a] + Eb[a] * p[0] + Eb[3 + a] * p[1] + Eb[6 + a] * p[2]);
    };
    const h = 1e-6;
    for (let j = 0; j < contacts.length; j++) {
      for (let k = 0; k < nv; k++) {
        const qp = Float64Array.from(q), qm = Float64Array.from(q);
        qp[k] += h; qm[k] -= h;
        const a = position(qp, j), b = position(qm, j);
        for (let e = 0; e < 3; e++) {
          const jac = (a[e] - b[e]) / (2 * h);
          let mb = 0;
          for (let t = 0; t < nv; t++) mb += M[k * nv + t] * Bhat[t * m + 3 * j + e];
          expect(Math.abs(mb - jac)).toBeLessThan(1e-7);
        }
      }
    }
  });

  it('column layout and names: actuated DoFs first, then force [fx fy fz] and wrench [fx fy fz tx ty tz]', () => {
    const model = humanoid();
    const B = new InputMatrix(model, { actuated: 'all', contacts: [{ link: model.bodyNames[5], type: 'force' }, { link: model.bodyNames[5], type: 'wrench', frame: 'local' }] });
    expect(B.nJoint).toBe(model.nv - 6);
    expect(B.m).toBe(model.nv - 6 + 9);
    expect(B.names.slice(B.nJoint)).toEqual(['fx', 'fy', 'fz', 'fx', 'fy', 'fz', 'tx', 'ty', 'tz'].map((s, k) => `${model.bodyNames[5]}${k < 3 ? '' : '#2'}.${s}`));
    expect(B.names).not.toContain('tau[root_joint][0]');
    const withBase = new InputMatrix(model, { actuated: ['root_joint'] });
    expect(withBase.names).toEqual([0, 1, 2, 3, 4, 5].map((k) => `tau[root_joint][${k}]`));
  });
});

describe('B̂ flops', () => {
  it('eUFM: exactly m + 1 ABA runs plus the differences', () => {
    const model = chain(10);
    const B = new InputMatrix(model, { actuated: 'all' });
    const { q, v } = randomState(model, new Rng(1));
    const uf = new IwimUnitForceWorkspace(model, B);
    iwimUnitForce(model, uf, q, v);
    const aw = new AbaWorkspace(model);
    aba(model, aw, q, v, new Float64Array(model.nv), Array.from({ length: model.nb }, () => new Float64Array(6)));
    expect(uf.flops.total).toBe((B.m + 1) * aw.totalFlops().total + B.m * model.nv);
  });

  it('LU: the forward-dynamics factorization and m + 1 equal solves', () => {
    const model = humanoid();
    const B = new InputMatrix(model, { actuated: 'all', contacts: [{ link: model.bodyNames[model.nb - 1], type: 'force', offset: [0.1, 0, 0] }] });
    const { q, v, tau } = randomState(model, new Rng(2));
    const lu = new IwimLu(model, B);
    lu.solve(q, v);
    const fd = new LuForwardDynamics(model, { refine: 0 }); // IwimLu's solves are not refined by default
    fd.solve(q, v, tau);
    expect(lu.flops.factor.total).toBe(fd.solver.flops.factor.total);
    expect(lu.flops.solve.total).toBe((B.m + 1) * fd.solver.flops.solve.total);
  });

  it('IIM: one ABA plus O(N_B) per input; quadratic in n for a fully actuated chain, linear for one input', () => {
    const run = (n: number, all: boolean) => {
      const model = chain(n, { axes: 'z' });
      const B = new InputMatrix(model, { actuated: all ? 'all' : [model.jointNames[n - 1]] });
      const ws = new IwimIimWorkspace(model, B);
      iwimIim(model, ws, randomState(model, new Rng(n)).q, null);
      const aw = new AbaWorkspace(model);
      aba(model, aw, randomState(model, new Rng(n)).q, null, new Float64Array(model.nv));
      return ws.flops.total - aw.totalFlops().total;
    };
    const full = [8, 16, 24, 32].map((n) => run(n, true));
    const single = [8, 16, 24, 32].map((n) => run(n, false));
    for (const x of [...full, ...single]) expect(Number.isInteger(x)).toBe(true);
    expect(full[2] - 2 * full[1] + full[0]).toBe(full[3] - 2 * full[2] + full[1]);
    expect(full[2] - 2 * full[1] + full[0]).toBeGreaterThan(0);
    expect(single[2] - 2 * single[1] + single[0]).toBe(0);
  });
});

describe('input errors name the joint or link', () => {
  const fixed = randomTree(8, 51, { fixedFraction: 0.3, keepFixed: ['fix1'] });
  const cases: [string, InputSpec, RegExp][] = [
    ['unknown joint', { actuated: ['j1', 'nope'] }, /actuated joint "nope" is not a joint of model "tree:8:51"/],
    ['joint listed twice', { actuated: ['j2', 'j2'] }, /actuated joint "j2" is listed twice/],
    ['fixed joint', { actuated: ['fix1'] }, /actuated joint "fix1" is a fixed joint/],
    ['unknown link', { actuated: [], contacts: [{ link: 'nowhere', type: 'force' }] }, /contact link "nowhere" is not a link of model/],
    ['contact on the fixed world', { actuated: [], contacts: [{ link: 'base', type: 'force' }] }, /contact link "base" is welded to the fixed world/],
    ['bad type', { actuated: [], contacts: [{ link: 'b1', type: 'torque' as 'force' }] }, /contact on link "b1" has type "torque"/],
    ['bad offset', { actuated: [], contacts: [{ link: 'b2', type: 'force', offset: [1, 2] }] }, /contact on link "b2" has offset \[1,2\]/],
    ['bad frame', { actuated: [], contacts: [{ link: 'b2', type: 'force', frame: 'body' as 'world' }] }, /contact on link "b2" has frame "body"/],
  ];
  for (const [name, spec, msg] of cases) {
    it(name, () => {
      expect(() => new InputMatrix(fixed, spec)).toThrow(InputSpecError);
      expect(() => new InputMatrix(fixed, spec)).toThrow(msg);
    });
  }

  it('a workspace for another model is refused', () => {
    const other = chain(3);
    const B = new InputMatrix(fixed, { actuated: 'all' });
    expect(() => new IwimIimWorkspace(other, B)).toThrow(/another model/);
    expect(() => new IwimLu(other, B)).toThrow(/another model/);
  });
});
