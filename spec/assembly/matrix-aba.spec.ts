/**
 * Property 2 (paper 004 §V-C, appendix B): q̈ from W^L D W^R d' = −W^L b equals ABA's; the
 * product, formed densely with ml-matrix from W's built out of ABA's own I^A, U, D⁻¹, equals the
 * sparse one and is lower triangular under the permutations (34)–(35).
 */
import { Matrix } from 'ml-matrix';
import { describe, expect, it } from 'vitest';
import { aba, AbaWorkspace } from '../../src/algorithms/aba.ts';
import { MatrixAba, matrixAbaOnce, type RowMatrix } from '../../src/assembly/matrix-aba.ts';
import { forwardDynamicsProblem, inverseDynamicsProblem } from '../../src/assembly/problems.ts';
import { SymbolicSystem, SystemValues } from '../../src/assembly/system.ts';
import { SparseSolver } from '../../src/assembly/solver.ts';
import { chain, humanoid, randomTree } from '../../src/model/generators.ts';
import type { Model } from '../../src/model/model.ts';
import { Rng } from '../../src/model/rng.ts';
import { loadUrdf } from '../../src/node/urdf-file.ts';
import { xToMatrix } from '../../src/spatial/transform.ts';
import { expectClose } from '../helpers.ts';
import { describeShared, shared } from '../shared.ts';
import { randomState } from '../state.ts';

function wrenches(model: Model, rng: Rng): Float64Array[] {
  return Array.from({ length: model.nb }, () => Float64Array.from({ length: 6 }, () => rng.uniform(-5, 5)));
}

function maxAbs(A: Matrix): number {
  return A.clone().abs().max();
}

function dense(A: RowMatrix): Matrix {
  const M = Matrix.zeros(A.m, A.n);
  for (let i = 0; i < A.m; i++) for (let e = A.Rp[i]; e < A.Rp[i + 1]; e++) M.set(i, A.Rj[e], A.x[e]);
  return M;
}

function matrixAbaIsAba(name: string, make: () => Model): void {
  it(`${name}`, () => {
    const model = make();
    const rng = new Rng(name.length + 7);
    const mat = new MatrixAba(model), aw = new AbaWorkspace(model);
    if (name.includes('0-DoF')) expect(Array.from(model.nvi).filter((n) => n === 0).length).toBe(2);
    for (let t = 0; t < 3; t++) {
      const { q, v, tau } = randomState(model, rng);
      const fext = wrenches(model, rng);
      expectClose(mat.solve(q, v, tau, fext), aba(model, aw, q, v, tau, fext), 1e-10, 'matrix ABA vs ABA');
      expectClose(mat.solve(q, null, tau), aba(model, aw, q, null, tau), 1e-10, 'matrix ABA vs ABA, q̇ = 0');
    }
  });
}

describe('matrix ABA: q̈ = ABA(q, q̇, τ, f^x)', () => {
  const models: [string, () => Model][] = [
    ['tree:30 fixed', () => randomTree(30, 31)],
    ['tree:30 floating', () => randomTree(30, 32, { floatingBase: true })],
    ['tree:25 floating, kept 0-DoF joints', () => randomTree(25, 33, { floatingBase: true, fixedFraction: 0.2, keepFixed: ['fix1', 'fix3'] })],
    ['tree:12 spherical and helical only', () => randomTree(12, 34, { mix: { revolute: 0, revoluteGeneral: 0, prismatic: 0, helical: 1, spherical: 1 } })],
    ['chain:20 axes=z (planar)', () => chain(20, { axes: 'z' })],
    ['chain:15 prismatic', () => chain(15, { jointType: 'prismatic', axes: 'random', seed: 3 })],
    ['humanoid', () => humanoid()],
    ['humanoid URDF floating, sole joints kept as 0-DoF', () => loadUrdf('models/humanoid.urdf', { floatingBase: true, keepFixed: ['l_sole_joint', 'r_sole_joint'] })],
  ];
  for (const [name, make] of models) matrixAbaIsAba(name, make);
});

describe('matrix ABA once (no plans kept): the same q̈ and flops as MatrixAba', () => {
  const models: [string, () => Model][] = [
    ['tree:30 floating', () => randomTree(30, 32, { floatingBase: true })],
    ['tree:25 floating, kept 0-DoF joints', () => randomTree(25, 33, { floatingBase: true, fixedFraction: 0.2, keepFixed: ['fix1', 'fix3'] })],
    ['chain:15 prismatic', () => chain(15, { jointType: 'prismatic', axes: 'random', seed: 3 })],
  ];
  for (const [name, make] of models) {
    it(`${name}: bit for bit, own system or a given one`, () => {
      const model = make();
      const rng = new Rng(name.length + 11);
      const mat = new MatrixAba(model);
      const shared = new SystemValues(new SymbolicSystem(model, forwardDynamicsProblem(model)));
      for (let t = 0; t < 2; t++) {
        const { q, v, tau } = randomState(model, rng);
        const fext = wrenches(model, rng);
        const ref = Float64Array.from(mat.solve(q, v, tau, fext));
        for (const once of [matrixAbaOnce(model, q, v, tau, fext), matrixAbaOnce(model, q, v, tau, fext, shared)]) {
          expect(Array.from(once.qdd)).toEqual(Array.from(ref));
          for (const part of ['kinematics', 'fill', 'inertias', 'product', 'solve'] as const) {
            expect(once.flops[part].toJSON(), part).toEqual(mat.flops[part].toJSON());
          }
          expect([once.n, once.nnz]).toEqual([mat.product.m, mat.product.Rj.length]);
        }
      }
    });
  }
  it('refuses the values of another system, naming it', () => {
    const model = randomTree(6, 5);
    const { q, v, tau } = randomState(model, new Rng(5));
    const other = new SystemValues(new SymbolicSystem(model, inverseDynamicsProblem(model)));
    expect(() => matrixAbaOnce(model, q, v, tau, undefined, other)).toThrow(/"inverse dynamics"/);
  });
});

describeShared('matrix ABA: q̈ = ABA(q, q̇, τ, f^x) on real robots', () => {
  const robots: [string, () => Model][] = [
    ['talos floating, ft joints kept', () => loadUrdf(shared('models/talos_reduced.urdf'), { floatingBase: true, keepFixed: ['wrist_right_ft_joint', 'wrist_left_ft_joint'] })],
    ['panda fixed', () => loadUrdf(shared('models/panda.urdf'))],
    ['solo12 floating', () => loadUrdf(shared('models/solo12.urdf'), { floatingBase: true })],
    ['ur5 floating', () => loadUrdf(shared('models/ur5_robot.urdf'), { floatingBase: true })],
    ['simple_humanoid floating', () => loadUrdf(shared('models/simple_humanoid.urdf'), { floatingBase: true })],
  ];
  for (const [name, make] of robots) matrixAbaIsAba(name, make);
});

describe('matrix ABA: W^L D W^R against a dense product of the appendix-B matrices', () => {
  const models: [string, Model][] = [
    ['tree:8 floating, one kept 0-DoF joint', randomTree(8, 41, { floatingBase: true, fixedFraction: 0.3, keepFixed: ['fix2'] })],
    ['tree:10 fixed', randomTree(10, 42)],
  ];
  for (const [name, model] of models) {
    it(`${name}: equal to round-off, lower triangular under (34)–(35), the eliminated blocks vanish`, () => {
      const rng = new Rng(5);
      const mat = new MatrixAba(model), aw = new AbaWorkspace(model);
      const { q, v, tau } = randomState(model, rng);
      const fext = wrenches(model, rng);
      mat.solve(q, v, tau, fext);
      aba(model, aw, q, v, tau, fext);
      const sys = mat.sys, L = sys.layout, m = sys.m, n = sys.n, nb = model.nb;
      // D and b from the system values
      const D = Matrix.zeros(m, n);
      const A = sys.pattern;
      for (let j = 0; j < n; j++) for (let s = A.Ap[j]; s < A.Ap[j + 1]; s++) D.set(A.Ai[s], j, mat.values.Ax[s]);
      const b = Matrix.columnVector(Array.from(mat.values.b));
      // (29)–(33) from ABA's I^A_i, U_i = I^A_i S_i, D_i⁻¹ and ⁱX_λ
      const WR = Matrix.eye(n), W1 = Matrix.eye(m), W2 = Matrix.eye(m), W3 = Matrix.eye(m), W4 = Matrix.eye(m);
      const X6 = new Float64Array(36);
      for (let i = 0; i < nb; i++) {
        const IA = aw.IA[i], U = aw.U[i], Dinv = aw.Dinv[i], S = model.S[i], ni = model.nvi[i];
        for (let r = 0; r < 6; r++) for (let c = 0; c < 6; c++) WR.set(L.f[i] + r, L.a[i] + c, IA[6 * r + c]);
        for (let k = 0; k < ni; k++) {
          for (let c = 0; c < 6; c++) W1.set(sys.rowTau[i] + k, sys.rowA[i] + c, U[6 * k + c]);
          for (let l = 0; l < ni; l++) W2.set(sys.rowTau[i] + k, sys.rowTau[i] + l, Dinv[ni * k + l]);
          for (let r = 0; r < 6; r++) W3.set(sys.rowA[i] + r, sys.rowTau[i] + k, -S[6 * k + r]);
        }
        const p = model.parents[i];
        if (p >= 0) {
          // ᵖX*_i I^A_i = ⁱX_pᵀ I^A_i
          xToMatrix(X6, aw.kin.Xup[i]);
          for (let r = 0; r < 6; r++) for (let c = 0; c < 6; c++) {
            let s = 0;
            for (let k = 0; k < 6; k++) s += X6[6 * k + r] * IA[6 * k + c];
            W4.set(sys.rowF[p] + r, sys.rowA[i] + c, s);
          }
        }
      }
      const WL = W4.mmul(W3).mmul(W2).mmul(W1);
      const F = WL.mmul(D).mmul(WR);
      const M = dense(mat.product);
      const scale = maxAbs(F);
      expect(maxAbs(F.clone().sub(M)) / scale).toBeLessThan(1e-12);
      let upper = 0, diagMin = Infinity;
      for (let k = 0; k < n; k++) {
        for (let l = k + 1; l < n; l++) upper = Math.max(upper, Math.abs(F.get(mat.rowPerm[k], mat.colPerm[l])));
        diagMin = Math.min(diagMin, Math.abs(F.get(mat.rowPerm[k], mat.colPerm[k])));
      }
      expect(upper / scale).toBeLessThan(1e-13);
      expect(diagMin).toBeGreaterThan(0.5);
      // the blocks the derivation eliminates are round-off in the dense product and absent from the sparse one
      for (let i = 0; i < nb; i++) {
        for (let r = 0; r < 6; r++) for (let c = 0; c < 6; c++) {
          expect(Math.abs(F.get(sys.rowF[i] + r, L.a[i] + c)) / scale).toBeLessThan(1e-13);
          expect(M.get(sys.rowF[i] + r, L.a[i] + c)).toBe(0);
        }
        for (let k = 0; k < model.nvi[i]; k++) for (let l = 0; l < model.nvi[i]; l++) {
          expect(M.get(sys.rowTau[i] + k, L.qdd[i] + l)).toBe(k === l ? 1 : 0);
        }
      }
      // d' solves the transformed system and d = W^R d' solves D d + b = 0
      const dp = Matrix.columnVector(Array.from(mat.dPrime));
      const wb = WL.mmul(b);
      expect(maxAbs(F.mmul(dp).add(wb)) / (scale * maxAbs(dp))).toBeLessThan(1e-12);
      const d = WR.mmul(dp);
      expectClose(mat.d, d.getColumn(0), 1e-12, 'd = W^R d\'');
      expect(maxAbs(D.mmul(d).add(b)) / (maxAbs(D) * maxAbs(d))).toBeLessThan(1e-12);
    });
  }
});

describe('matrix ABA: flops and errors', () => {
  it('kinematics and fill are the LU path\'s; (a), (b), (c) are counted and repeatable', () => {
    const model = randomTree(20, 51, { floatingBase: true });
    const mat = new MatrixAba(model);
    const solver = new SparseSolver(mat.sys);
    const { q, v, tau } = randomState(model, new Rng(2));
    mat.solve(q, v, tau);
    const y = Float64Array.from(mat.y);
    solver.step(q, v, y);
    expect(mat.flops.kinematics.toJSON()).toEqual(solver.flops.kinematics.toJSON());
    expect(mat.flops.fill.toJSON()).toEqual(solver.flops.fill.toJSON());
    const first = JSON.stringify(mat.flops);
    for (const part of ['inertias', 'product', 'solve'] as const) expect(mat.flops[part].total, part).toBeGreaterThan(0);
    const s2 = randomState(model, new Rng(3));
    mat.solve(s2.q, s2.v, s2.tau);
    expect(JSON.stringify(mat.flops)).toBe(first);
    const f = mat.flops;
    expect(mat.totalFlops().total).toBe(f.kinematics.total + f.fill.total + f.inertias.total + f.product.total + f.solve.total);
    expect(mat.totalFlops(false).total).toBe(mat.totalFlops().total - f.inertias.total);
    // the forward substitution divides by nothing: every diagonal entry of W^L D W^R is ±1
    expect(f.solve.div).toBe(0);
  });

  it('the worst-case patterns of I^A_i hold ABA\'s I^A_i (planar zeros of a z-axis chain kept)', () => {
    for (const model of [chain(6, { axes: 'z' }), randomTree(15, 52, { floatingBase: true })]) {
      const mat = new MatrixAba(model), aw = new AbaWorkspace(model);
      const { q, v, tau } = randomState(model, new Rng(4));
      aba(model, aw, q, v, tau);
      let outside = 0, zeros = 0;
      for (let i = 0; i < model.nb; i++) for (let k = 0; k < 36; k++) {
        if (!mat.IApattern[i][k]) { zeros++; outside = Math.max(outside, Math.abs(aw.IA[i][k])); }
      }
      expect(outside).toBeLessThan(1e-14);
      if (model.name.startsWith('chain')) {
        expect(zeros).toBeGreaterThan(0);
        // W^{L,1} = S_iᵀ I^A_i is row z of I^A_i's pattern: no more entries than that
        const [W1] = mat.WL;
        let rowZ = 0;
        for (let i = 0; i < model.nb; i++) for (let c = 0; c < 6; c++) rowZ += mat.IApattern[i][12 + c];
        expect(W1.Rj.length - W1.m).toBe(rowZ);
      }
    }
  });

  it('names bad inputs', () => {
    const model = randomTree(5, 1);
    const mat = new MatrixAba(model);
    const { q, v, tau } = randomState(model, new Rng(1));
    expect(() => mat.solve(q, v, tau.subarray(1))).toThrow(/tau has length \d+, expected model.nv = \d+/);
    const bad = Float64Array.from(q); bad[0] = Number.NaN;
    expect(() => mat.solve(bad, v, tau)).toThrow(/q\[0\] is NaN/);
  });
});
