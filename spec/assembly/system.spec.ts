/**
 * The assembled pattern and values of D against an independent dense construction (dense 6×6
 * blocks with ml-matrix) at random and special configurations (multiples of π/2), and the
 * residual of RNEA's solution in D d + b = 0 (paper 004 eq. 6).
 */
import { Matrix } from 'ml-matrix';
import { describe, expect, it } from 'vitest';
import { rnea, RneaWorkspace } from '../../src/algorithms/rnea.ts';
import { classicalInputs, inverseDynamicsProblem, forwardDynamicsProblem } from '../../src/assembly/problems.ts';
import { fillSystem, SymbolicSystem, SystemValues } from '../../src/assembly/system.ts';
import { humanoid, randomTree } from '../../src/model/generators.ts';
import { loadUrdf } from '../../src/node/urdf-file.ts';
import type { Model } from '../../src/model/model.ts';
import { Rng } from '../../src/model/rng.ts';
import { Flops } from '../../src/spatial/flops.ts';
import { inertiaMulMotion, inertiaToMatrix } from '../../src/spatial/inertia.ts';
import { crossForce } from '../../src/spatial/motion.ts';
import { xApplyMotion, xToMatrix } from '../../src/spatial/transform.ts';
import { transformPattern } from '../../src/assembly/patterns.ts';
import { describeShared, shared } from '../shared.ts';
import { randomState } from '../state.ts';

/** Dense D built block by block from (5a)–(5e) and (9). */
function denseD(sys: SymbolicSystem, vals: SystemValues): Matrix {
  const model = sys.model, L = sys.layout, D = Matrix.zeros(sys.m, sys.n);
  const X6 = new Float64Array(36), I6 = new Float64Array(36);
  for (let i = 0; i < model.nb; i++) {
    const p = model.parents[i], S = model.S[i];
    xToMatrix(X6, vals.kin.Xup[i]);
    inertiaToMatrix(I6, model.I[i]);
    for (let r = 0; r < 6; r++) {
      D.set(sys.rowA[i] + r, L.a[i] + r, -1);
      D.set(sys.rowF[i] + r, L.f[i] + r, -1);
      D.set(sys.rowF[i] + r, L.fx[i] + r, -1);
      for (let c = 0; c < 6; c++) {
        if (p >= 0) {
          D.set(sys.rowA[i] + r, L.a[p] + c, X6[6 * r + c]);
          D.set(sys.rowF[p] + c, L.f[i] + r, X6[6 * r + c]);
        }
        D.set(sys.rowF[i] + r, L.a[i] + c, I6[6 * r + c]);
      }
      for (let k = 0; k < model.nvi[i]; k++) {
        D.set(sys.rowA[i] + r, L.qdd[i] + k, S[6 * k + r]);
        D.set(sys.rowTau[i] + k, L.f[i] + r, S[6 * k + r]);
      }
    }
    for (let k = 0; k < model.nvi[i]; k++) D.set(sys.rowTau[i] + k, L.tau[i] + k, -1);
  }
  sys.known.forEach((z, k) => D.set(sys.knownRow[k], L.start(z.kind, z.body) + z.offset, 1));
  return D;
}

function sparseAsDense(sys: SymbolicSystem, vals: SystemValues): { D: Matrix; structural: Uint8Array } {
  const D = Matrix.zeros(sys.m, sys.n);
  const structural = new Uint8Array(sys.m * sys.n);
  const A = sys.pattern;
  for (let j = 0; j < sys.n; j++) for (let p = A.Ap[j]; p < A.Ap[j + 1]; p++) {
    D.set(A.Ai[p], j, vals.Ax[p]);
    structural[A.Ai[p] * sys.n + j] = 1;
  }
  return { D, structural };
}

function checkPattern(model: Model, q: Float64Array, qd: Float64Array): void {
  for (const problem of [inverseDynamicsProblem(model), forwardDynamicsProblem(model)]) {
    const sys = new SymbolicSystem(model, problem);
    const vals = new SystemValues(sys);
    fillSystem(vals, q, qd, new Float64Array(sys.ny));
    const ref = denseD(sys, vals);
    const { D, structural } = sparseAsDense(sys, vals);
    for (let r = 0; r < sys.m; r++) for (let c = 0; c < sys.n; c++) {
      const x = ref.get(r, c);
      if (x !== 0 && !structural[r * sys.n + c]) {
        throw new Error(`${problem.name}: D[${sys.rowNames[r]}, ${sys.layout.names[c]}] = ${x} is outside the worst-case pattern`);
      }
      if (D.get(r, c) !== x) throw new Error(`${problem.name}: D[${sys.rowNames[r]}, ${sys.layout.names[c]}] = ${D.get(r, c)}, dense ${x}`);
    }
  }
}

function specialConfigurations(model: Model, rng: Rng): Float64Array[] {
  const out: Float64Array[] = [];
  for (let t = 0; t < 6; t++) {
    const { q } = randomState(model, rng);
    for (const j of model.movingJoints()) {
      if (j.type === 'revolute' || j.type === 'helical') q[j.iq] = (Math.PI / 2) * (rng.int(9) - 4);
      if (j.type === 'prismatic') q[j.iq] = t === 0 ? 0 : q[j.iq];
    }
    out.push(q);
  }
  return out;
}

/** The checks of D on one model (built once, when a test first asks); `rng` is the group's. */
function checksOfD(name: string, make: () => Model, rng: Rng): void {
  let built: Model | undefined;
  const get = () => (built ??= make());
  it(`${name}: dense D inside the pattern with equal values, random and special q`, () => {
    const model = get();
    for (let t = 0; t < 4; t++) {
      const { q, v } = randomState(model, rng);
      checkPattern(model, q, v);
    }
    for (const q of specialConfigurations(model, rng)) checkPattern(model, q, randomState(model, rng).v);
  });

  it(`${name}: RNEA's solution satisfies D d + b = 0`, () => {
    const model = get();
    const sys = new SymbolicSystem(model, inverseDynamicsProblem(model));
    const vals = new SystemValues(sys);
    const { q, v, a } = randomState(model, rng);
    const fext = Array.from({ length: model.nb }, () => Float64Array.from({ length: 6 }, () => rng.uniform(-5, 5)));
    const ws = new RneaWorkspace(model);
    const tau = rnea(model, ws, q, v, a, fext);
    fillSystem(vals, q, v, classicalInputs(new Float64Array(sys.ny), model, a, fext));
    const L = sys.layout;
    const d = new Float64Array(sys.n);
    for (let i = 0; i < model.nb; i++) {
      d.set(ws.a[i], L.a[i]); d.set(ws.f[i], L.f[i]); d.set(fext[i], L.fx[i]);
      for (let k = 0; k < model.nvi[i]; k++) { d[L.tau[i] + k] = tau[model.iv[i] + k]; d[L.qdd[i] + k] = a[model.iv[i] + k]; }
    }
    const A = sys.pattern;
    const res = Float64Array.from(vals.b);
    for (let j = 0; j < sys.n; j++) for (let p = A.Ap[j]; p < A.Ap[j + 1]; p++) res[A.Ai[p]] += vals.Ax[p] * d[j];
    let worst = 0, scale = 1;
    for (let r = 0; r < sys.m; r++) { worst = Math.max(worst, Math.abs(res[r])); scale = Math.max(scale, Math.abs(vals.b[r])); }
    expect(worst / scale).toBeLessThan(1e-13);
    expect(sys.m).toBe(sys.n);
  });
}

describe('worst-case pattern of D', () => {
  const rng = new Rng(7);
  const models: [string, () => Model][] = [
    ['tree:30 fixed', () => randomTree(30, 11)],
    ['tree:30 floating', () => randomTree(30, 12, { floatingBase: true })],
    ['humanoid floating', () => humanoid()],
  ];
  for (const [name, make] of models) checksOfD(name, make, rng);
});

describeShared('worst-case pattern of D on real robots', () => {
  const rng = new Rng(7);
  const robots: [string, () => Model][] = [
    ['talos floating', () => loadUrdf(shared('models/talos_reduced.urdf'), { floatingBase: true })],
    ['panda fixed', () => loadUrdf(shared('models/panda.urdf'))],
  ];
  for (const [name, make] of robots) checksOfD(name, make, rng);
});

describe('the fill of b and its flop count against the spatial kernels', () => {
  // fillValues writes the kernels out on flat arrays (the per-sample hot path); here the kernels
  // themselves give b's bias rows and the counts: the same arithmetic in the same order, so equal bit for bit
  const models: [string, () => Model][] = [
    ['tree:30 fixed', () => randomTree(30, 21)],
    ['tree:30 floating', () => randomTree(30, 22, { floatingBase: true })],
    ['humanoid floating', () => humanoid()],
  ];
  for (const [name, make] of models) {
    for (const withV of [true, false]) {
      it(`${name}, ${withV ? 'with' : 'without'} q̇: b(3a), b(3f) and the fill's mul and add`, () => {
        const model = make(), rng = new Rng(5);
        for (const problem of [inverseDynamicsProblem(model), forwardDynamicsProblem(model)]) {
          const sys = new SymbolicSystem(model, problem), vals = new SystemValues(sys);
          const { q, v: qd } = randomState(model, rng);
          fillSystem(vals, q, withV ? qd : null, new Float64Array(sys.ny).fill(0.5));
          const fl = new Flops(), t6 = new Float64Array(6), u6 = new Float64Array(6);
          for (let i = 0; i < model.nb; i++) {
            const p = model.parents[i];
            if (p >= 0) {
              const codes = transformPattern(model, i).skewTerms;
              for (const c of codes) { if (c === 3) { fl.mul += 2; fl.add += 1; } else if (c !== 0) fl.mul += 1; }
              expect(Array.from(vals.b.subarray(sys.rowA[i], sys.rowA[i] + 6))).toEqual(Array.from(vals.kin.c[i]));
            } else {
              xApplyMotion(t6, vals.kin.Xup[i], vals.kin.a0, fl);
              expect(Array.from(vals.b.subarray(sys.rowA[i], sys.rowA[i] + 6))).toEqual(Array.from(t6));
            }
            if (withV) {
              inertiaMulMotion(u6, model.I[i], vals.kin.v[i], fl);
              crossForce(t6, vals.kin.v[i], u6, fl);
              expect(Array.from(vals.b.subarray(sys.rowF[i], sys.rowF[i] + 6))).toEqual(Array.from(t6));
            } else expect(Array.from(vals.b.subarray(sys.rowF[i], sys.rowF[i] + 6))).toEqual([0, 0, 0, 0, 0, 0]);
          }
          expect([vals.flops.mul, vals.flops.add, vals.flops.div]).toEqual([fl.mul, fl.add, 0]);
          expect(fl.mul).toBeGreaterThan(0);
        }
      });
    }
  }
});
