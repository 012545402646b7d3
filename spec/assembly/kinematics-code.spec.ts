/**
 * The generated kinematics of the classical LU solvers (kinematics-code.ts) against its oracle,
 * forwardKinematics: ⁱX_λ, v_i, v_J,i, c_i to rounding and the same flop counts, on chains, trees
 * with every joint type, fixed and floating bases, q̇ = null; LuInverseDynamics / LuForwardDynamics
 * running it (once their fill is compiled) against RNEA / ABA, on those models and on the corpus;
 * the option off by default (the estimator's SparseSolver keeps forwardKinematics); the code placed
 * in another module's memory (as the solvers place it in their factorization's) computing the same
 * values bit for bit and writing nothing outside the slots it was given.
 */
import { describe, expect, it } from 'vitest';
import { aba, AbaWorkspace } from '../../src/algorithms/aba.ts';
import { forwardKinematics, KinematicsWorkspace } from '../../src/algorithms/kinematics.ts';
import { rnea, RneaWorkspace } from '../../src/algorithms/rnea.ts';
import { LuForwardDynamics, LuInverseDynamics } from '../../src/assembly/dynamics.ts';
import { GeneratedKinematics } from '../../src/assembly/kinematics-code.ts';
import { inverseDynamicsProblem } from '../../src/assembly/problems.ts';
import { SparseSolver } from '../../src/assembly/solver.ts';
import { kinematicsOwnSlots, SymbolicSystem } from '../../src/assembly/system.ts';
import { chain, humanoid, randomTree } from '../../src/model/generators.ts';
import type { Model } from '../../src/model/model.ts';
import { neutral } from '../../src/model/neutral.ts';
import { Rng } from '../../src/model/rng.ts';
import { forEachCorpusModel } from '../corpus.ts';
import { expectClose } from '../helpers.ts';
import { randomState } from '../state.ts';

const models: [string, () => Model][] = [
  ['chain:12', () => chain(12)],
  ['chain:30 axes=random', () => chain(30, { axes: 'random', seed: 4 })],
  ['chain:8 floating', () => chain(8, { floatingBase: true })],
  ['tree:40 fixed', () => randomTree(40, 21)],
  ['tree:40 floating', () => randomTree(40, 22, { floatingBase: true })],
  ['humanoid', () => humanoid()],
];

/** steps before the factorization (compile 'auto') and with it the generated fill take over */
const WARM = 20;

describe('generated kinematics = forwardKinematics', () => {
  for (const [name, make] of models) {
    it(`${name}: ⁱX_λ, v_i, v_J, c_i to rounding and the same flops, with and without q̇`, () => {
      const model = make(), rng = new Rng(name.length);
      if (name.startsWith('tree')) {
        const types = new Set(model.jointTypes);
        for (const t of ['revolute', 'prismatic', 'helical', 'spherical']) expect(types.has(t as never), t).toBe(true);
      }
      const gk = GeneratedKinematics.create(model)!, ws = new KinematicsWorkspace(model);
      expect(gk).not.toBeNull();
      // neutral: the free-flyer's translation is zero (jcalc then counts fewer flops)
      const states = [{ q: neutral(model), v: new Float64Array(model.nv) }, ...Array.from({ length: 4 }, () => randomState(model, rng))];
      for (const { q, v } of states) {
        for (const qd of [v, null]) {
          forwardKinematics(ws, q, qd);
          gk.run(q, qd);
          expectClose(gk.X, ws.XupFlat, 1e-14, 'ⁱX_λ');
          if (qd !== null) {
            expectClose(gk.V, ws.vFlat, 1e-13, 'v_i');
            expectClose(gk.VJ, ws.vJFlat, 1e-14, 'v_J');
            expectClose(gk.C, ws.cFlat, 1e-13, 'c_i');
          }
          expect({ ...gk.flops }).toEqual({ ...ws.flops });
        }
      }
    });
  }
});

describe('generated kinematics placed in another memory', () => {
  for (const [name, make] of models) {
    it(`${name}: the same values bit for bit as in a memory of its own, nothing written outside its slots`, () => {
      const model = make(), rng = new Rng(3 + name.length), nb = model.nb;
      const memory = new WebAssembly.Memory({ initial: Math.ceil((8 * (60 * nb + 2 * model.nv + 64)) / 65536) });
      const all = new Float64Array(memory.buffer);
      const SENTINEL = -7.25e77;
      all.fill(SENTINEL);
      // the regions apart, each after a gap, in an order other than the code's own
      const C = 5, X = C + 6 * nb + 3, own = X + 12 * nb + 7, V = own + kinematicsOwnSlots(model) + 2;
      const placed = GeneratedKinematics.create(model, { memory, X, V, C, own })!, alone = GeneratedKinematics.create(model)!;
      expect(placed.inPlace).toBe(true);
      expect(alone.inPlace).toBe(false);
      expect(placed.X.byteOffset).toBe(8 * X);
      for (let t = 0; t < 4; t++) {
        const { q, v } = randomState(model, rng);
        for (const qd of [v, null]) {
          placed.run(q, qd);
          alone.run(q, qd);
          expect(Array.from(placed.X)).toEqual(Array.from(alone.X));
          if (qd !== null) {
            expect(Array.from(placed.V)).toEqual(Array.from(alone.V));
            expect(Array.from(placed.C)).toEqual(Array.from(alone.C));
          }
          expect({ ...placed.flops }).toEqual({ ...alone.flops });
        }
      }
      const inside = (k: number) => (k >= X && k < X + 12 * nb) || (k >= V && k < V + 6 * nb) || (k >= C && k < C + 6 * nb) || (k >= own && k < own + kinematicsOwnSlots(model));
      const outside: number[] = [];
      for (let k = 0; k < all.length; k++) if (!inside(k) && all[k] !== SENTINEL) outside.push(k);
      expect(outside).toEqual([]);
    });
  }

  it('refuses a placement beyond its memory', () => {
    const model = chain(4), memory = new WebAssembly.Memory({ initial: 1 });
    expect(() => GeneratedKinematics.create(model, { memory, X: 8192 - 20, V: 0, C: 100, own: 200 })).toThrow(RangeError);
  });
});

describe('LU inverse/forward dynamics with the generated kinematics = RNEA/ABA', () => {
  for (const [name, make] of models) {
    it(`${name}: τ and q̈ to round-off (with f^x, q̇ = null), flops and values.kin as the JavaScript path's`, () => {
      const model = make(), rng = new Rng(7 + name.length);
      const id = new LuInverseDynamics(model), fd = new LuForwardDynamics(model);
      const idJs = new LuInverseDynamics(model, { kinematicsCode: false }), fdJs = new LuForwardDynamics(model, { kinematicsCode: false });
      const rw = new RneaWorkspace(model), aw = new AbaWorkspace(model), ws = new KinematicsWorkspace(model);
      for (let t = 0; t < WARM + 6; t++) {
        const { q, v, a, tau } = randomState(model, rng);
        const fext = t % 2 === 0 ? undefined : Array.from({ length: model.nb }, () => Float64Array.from({ length: 6 }, () => rng.uniform(-5, 5)));
        const qd = t % 3 === 2 ? null : v;
        expectClose(id.solve(q, qd, a, fext), rnea(model, rw, q, qd, a, fext), 1e-12, 'lu_id vs RNEA');
        expectClose(fd.solve(q, qd, tau, fext), aba(model, aw, q, qd, tau, fext), 1e-9, 'lu_fd vs ABA');
        idJs.solve(q, qd, a, fext); fdJs.solve(q, qd, tau, fext);
        for (const [s, js] of [[id.solver, idJs.solver], [fd.solver, fdJs.solver]] as const) {
          expect({ ...s.flops.kinematics }).toEqual({ ...js.flops.kinematics });
          expect({ ...s.flops.fill }).toEqual({ ...js.flops.fill });
        }
        if (t >= WARM) {
          expect(id.solver.kinematicsGenerated).toBe(true);
          expect(fd.solver.kinematicsGenerated).toBe(true);
          // the workspace brought up to date when the values are read
          forwardKinematics(ws, q, qd);
          const kin = id.solver.values.kin;
          expectClose(kin.XupFlat, ws.XupFlat, 1e-14, 'values.kin ⁱX_λ');
          expectClose(kin.vFlat, ws.vFlat, 1e-13, 'values.kin v_i');
          expectClose(kin.vJFlat, ws.vJFlat, 1e-14, 'values.kin v_J');
          expectClose(kin.cFlat, ws.cFlat, 1e-13, 'values.kin c_i');
          expect({ ...kin.flops }).toEqual({ ...ws.flops });
        }
      }
      expect(idJs.solver.kinematicsGenerated).toBe(false);
    });
  }

  it('is off by default: a SparseSolver (as the estimator makes them) keeps forwardKinematics', () => {
    const model = humanoid(), rng = new Rng(3);
    const sys = new SymbolicSystem(model, inverseDynamicsProblem(model));
    const s = new SparseSolver(sys, { gather: true });
    const y = new Float64Array(sys.ny);
    for (let t = 0; t < WARM; t++) { const { q, v } = randomState(model, rng); s.stepUnchecked(q, v, y); }
    expect(s.kinematicsGenerated).toBe(false);
  });
});

describe('LU dynamics with the generated kinematics on every robot of the corpus', () => {
  it('τ = RNEA to 1e-12 and q̈ as with forwardKinematics to 1e-12 (relative), fixed and floating base', () => {
    let checked = 0;
    const files = forEachCorpusModel((model) => {
      if (model.nv === 0) return;
      const rng = new Rng(model.nb);
      const id = new LuInverseDynamics(model, { compile: 'always' }), rw = new RneaWorkspace(model);
      // q̈ against the same solver on forwardKinematics (accuracy.spec.ts compares it with ABA and an exact reference)
      const fd = new LuForwardDynamics(model, { compile: 'always' }), fdJs = new LuForwardDynamics(model, { compile: 'always', kinematicsCode: false });
      // forward dynamics is undefined where a moving subtree has no mass (the solver says so)
      let defined = true;
      try { fdJs.solve(neutral(model), null, new Float64Array(model.nv)); } catch { defined = false; }
      for (let t = 0; t < 3; t++) {
        const { q, v, a, tau } = randomState(model, rng);
        expectClose(id.solve(q, v, a), rnea(model, rw, q, v, a), 1e-12, 'lu_id vs RNEA');
        if (defined) expectClose(fd.solve(q, v, tau), fdJs.solve(q, v, tau), 1e-12, 'lu_fd vs lu_fd on forwardKinematics');
      }
      expect(id.solver.kinematicsGenerated).toBe(true);
      if (defined) expect(fd.solver.kinematicsGenerated).toBe(true);
      checked++;
    });
    if (files === 0) {
      console.log('generated kinematics corpus: skipped (no ../shared)');
      return;
    }
    expect(checked).toBeGreaterThan(0);
  });
});
