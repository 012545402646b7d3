/**
 * The generic sensitivities of D(q) d + b(q, q̇, y) = 0 (src/derivatives/pattern.ts, sensitivity.ts):
 * ∂D/∂q on D's own slots against central differences of the assembled D; J_q, J_v inside their
 * fixed patterns and equal to differences of the residual; ∂d/∂q, ∂d/∂q̇, ∂d/∂y of a square system
 * with a measurement block against differences of the solution; exact solve-flop accounting.
 */
import { describe, expect, it } from 'vitest';
import { forwardDynamicsProblem, inverseDynamicsProblem } from '../../src/assembly/problems.ts';
import { SparseSolver } from '../../src/assembly/solver.ts';
import { fillSystem, SymbolicSystem, SystemValues, type FillContext, type MeasurementBlock, type ProblemSpec } from '../../src/assembly/system.ts';
import type { VariableLayout } from '../../src/assembly/variables.ts';
import { AdjointSensitivity } from '../../src/derivatives/adjoint.ts';
import { SystemJacobians } from '../../src/derivatives/jacobians.ts';
import { DerivativePattern } from '../../src/derivatives/pattern.ts';
import { SystemSensitivity } from '../../src/derivatives/sensitivity.ts';
import { relativeErrors } from '../../src/derivatives/finite-differences.ts';
import { randomTree } from '../../src/model/generators.ts';
import { integrate } from '../../src/model/lie.ts';
import type { Model } from '../../src/model/model.ts';
import { Rng } from '../../src/model/rng.ts';
import { randomState } from '../state.ts';

const models: [string, Model][] = [
  ['tree:12 floating', randomTree(12, 71, { floatingBase: true })],
  ['tree:12 fixed', randomTree(12, 72)],
];

/** y of a classical problem: [x (nv); f^x = 0] */
function inputs(sys: SymbolicSystem, x: ArrayLike<number>): Float64Array {
  const y = new Float64Array(sys.ny);
  for (let k = 0; k < x.length; k++) y[k] = x[k];
  return y;
}

/** dense D (m×n, row-major) from a fill */
function denseD(sys: SymbolicSystem, Ax: Float64Array): Float64Array {
  const D = new Float64Array(sys.m * sys.n), P = sys.pattern;
  for (let j = 0; j < sys.n; j++) for (let e = P.Ap[j]; e < P.Ap[j + 1]; e++) D[P.Ai[e] * sys.n + j] = Ax[e];
  return D;
}

/** r = D d + b of a fill */
function residual(sys: SymbolicSystem, vals: SystemValues, d: Float64Array): Float64Array {
  const r = Float64Array.from(vals.b), P = sys.pattern;
  for (let j = 0; j < sys.n; j++) for (let e = P.Ap[j]; e < P.Ap[j + 1]; e++) r[P.Ai[e]] += vals.Ax[e] * d[j];
  return r;
}

describe('∂D/∂q and the jacobians J_q, J_v', () => {
  for (const [name, model] of models) {
    it(`${name}: ∂D/∂q_k on the slots of ⁱX_λ equals central differences of D; J_q, J_v equal differences of D d + b and stay in their patterns`, () => {
      const sys = new SymbolicSystem(model, forwardDynamicsProblem(model));
      const solver = new SparseSolver(sys);
      const sens = new SystemSensitivity(solver);
      const { q, v, tau } = randomState(model, new Rng(4));
      const y = inputs(sys, tau);
      solver.step(q, v, y);
      sens.fillJacobians(q, v, y);
      const P = sens.pattern, m = sys.m, nv = model.nv, h = 1e-6;
      // J_q, J_v (dense columns before the solves) lie inside the CSC patterns
      for (const [J, R, what] of [[P.Jq, sens.dd_dq, 'J_q'], [P.Jv, sens.dd_dv, 'J_v']] as const) {
        const inside = new Uint8Array(m * nv);
        for (let k = 0; k < nv; k++) for (let e = J.Ap[k]; e < J.Ap[k + 1]; e++) inside[k * m + J.Ai[e]] = 1;
        for (let t = 0; t < m * nv; t++) if (!inside[t]) expect(R[t], `${what} entry (${t % m}, ${(t / m) | 0}) outside the pattern`).toBe(0);
      }
      const vals = new SystemValues(sys), d = solver.d, dq = new Float64Array(nv);
      for (let k = 0; k < nv; k++) {
        dq[k] = h;
        fillSystem(vals, integrate(model, q, dq), v, y);
        const Dp = denseD(sys, vals.Ax), rp = residual(sys, vals, d);
        dq[k] = -h;
        fillSystem(vals, integrate(model, q, dq), v, y);
        const Dm = denseD(sys, vals.Ax), rm = residual(sys, vals, d);
        dq[k] = 0;
        // ∂D/∂q_k: the tensor's values at ⁱX_λ's slots (c3a[i] × a_λ and, transposed, c3f[λ] × f_i), zero elsewhere
        const dD = new Float64Array(m * sys.n);
        const i = P.cols.body[k], t0 = P.dStart[k];
        for (let e = sys.xStart[i]; e < sys.xStart[i + 1]; e++) {
          const val = sens.dD[t0 + e - sys.xStart[i]];
          for (const slot of [sys.xSlotA[e], sys.xSlotF[e]]) {
            let col = 0;
            while (sys.pattern.Ap[col + 1] <= slot) col++;
            dD[sys.pattern.Ai[slot] * sys.n + col] = val;
          }
        }
        const fdD = Dp.map((x, t) => (x - Dm[t]) / (2 * h));
        expect(relativeErrors(dD, fdD).max, `∂D/∂q_${k}`).toBeLessThan(1e-8);
        const fdr = rp.map((x, t) => (x - rm[t]) / (2 * h));
        const Jq = new Float64Array(m);
        for (let e = P.Jq.Ap[k]; e < P.Jq.Ap[k + 1]; e++) Jq[P.Jq.Ai[e]] = sens.dd_dq[k * m + P.Jq.Ai[e]];
        expect(relativeErrors(Jq, fdr).max, `J_q column ${k}`).toBeLessThan(1e-8);
        const vp = Float64Array.from(v);
        vp[k] += h;
        fillSystem(vals, q, vp, y);
        const bp = Float64Array.from(vals.b);
        vp[k] -= 2 * h;
        fillSystem(vals, q, vp, y);
        const Jv = new Float64Array(m);
        for (let e = P.Jv.Ap[k]; e < P.Jv.Ap[k + 1]; e++) Jv[P.Jv.Ai[e]] = sens.dd_dv[k * m + P.Jv.Ai[e]];
        expect(relativeErrors(Jv, bp.map((x, t) => (x - vals.b[t]) / (2 * h))).max, `J_v column ${k}`).toBeLessThan(1e-8);
      }
    });
  }
});

/**
 * A sensor row for a square "mixed" problem: the acceleration of joint `joint` is measured, with a
 * velocity-dependent bias so that the block depends on q and q̇:  q̈_j + c |v_i|² − y = 0.
 */
class BiasedAccelerationSensor implements MeasurementBlock {
  readonly name = 'biased q̈ sensor';
  readonly rowNames: readonly string[];
  readonly inputNames: readonly string[];
  constructor(readonly body: number, readonly col: number, readonly c: number) {
    this.rowNames = [`y[qdd ${body}]`];
    this.inputNames = [`qdd sensor ${body}`];
  }
  pattern(_layout: VariableLayout): { rows: Int32Array; cols: Int32Array } {
    return { rows: Int32Array.of(0), cols: Int32Array.of(this.col) };
  }
  fill(ctx: FillContext, Ax: Float64Array, slots: Int32Array, b: Float64Array, row0: number, y: Float64Array, y0: number): void {
    Ax[slots[0]] = 1;
    const v = ctx.kin.v[this.body];
    let s = 0;
    for (let k = 0; k < 6; k++) s += v[k] * v[k];
    b[row0] = this.c * s - y[y0];
  }
}

describe('∂d/∂q, ∂d/∂q̇, ∂d/∂y of a square system with a measurement block', () => {
  it('against central differences of the solution (the block by its own central differences)', () => {
    const model = randomTree(10, 73, { floatingBase: true });
    const fd = forwardDynamicsProblem(model);
    // replace τ of one joint by a sensor on its q̈: still square, and the sensor depends on q, q̇
    const j = 4, L0 = new SymbolicSystem(model, fd).layout;
    const problem: ProblemSpec = {
      name: 'mixed',
      known: fd.known.filter((z) => !(z.kind === 'tau' && z.body === j)),
      blocks: [new BiasedAccelerationSensor(j, L0.qdd[j], 0.3)],
    };
    const sys = new SymbolicSystem(model, problem);
    expect(sys.m).toBe(sys.n);
    const solver = new SparseSolver(sys);
    const sens = new SystemSensitivity(solver);
    const rng = new Rng(6);
    const { q, v } = randomState(model, rng);
    const y = Float64Array.from({ length: sys.ny }, (_, k) => (k < model.nv - 1 || k === sys.ny - 1 ? rng.uniform(-2, 2) : 0));
    solver.step(q, v, y);
    sens.compute(q, v, y);
    const n = sys.n, nv = model.nv, h = 1e-5;
    const solveAt = (qq: ArrayLike<number>, vv: ArrayLike<number>, yy: Float64Array) => Float64Array.from(solver.step(qq, vv, yy));
    const dq = new Float64Array(nv);
    const fdq = new Float64Array(n * nv), fdv = new Float64Array(n * nv);
    for (let k = 0; k < nv; k++) {
      dq[k] = h;
      const dp = solveAt(integrate(model, q, dq), v, y);
      dq[k] = -h;
      const dm = solveAt(integrate(model, q, dq), v, y);
      dq[k] = 0;
      for (let r = 0; r < n; r++) fdq[k * n + r] = (dp[r] - dm[r]) / (2 * h);
      const vp = Float64Array.from(v);
      vp[k] += h;
      const ep = solveAt(q, vp, y);
      vp[k] -= 2 * h;
      const em = solveAt(q, vp, y);
      for (let r = 0; r < n; r++) fdv[k * n + r] = (ep[r] - em[r]) / (2 * h);
    }
    expect(relativeErrors(sens.dd_dq, fdq).max, '∂d/∂q').toBeLessThan(1e-7);
    expect(relativeErrors(sens.dd_dv, fdv).max, '∂d/∂q̇').toBeLessThan(1e-7);
    // ∂d/∂y: the solution is affine in y
    for (const c of [0, 3, sys.ny - 1]) {
      const yp = Float64Array.from(y);
      yp[c] += 1;
      const dp = solveAt(q, v, yp);
      yp[c] -= 2;
      const dm = solveAt(q, v, yp);
      const col = sens.dd_dy.subarray(c * n, (c + 1) * n);
      expect(relativeErrors(col, dp.map((x, r) => (x - dm[r]) / 2)).max, `∂d/∂y_${c} (${sys.inputNames[c]})`).toBeLessThan(1e-10);
    }
  });
});

describe('jacobians of a non-square (stacked estimation-like) system', () => {
  it('J_q, J_v, J_y of [D; D_Y] d + [b; b_Y] at any d match central differences of the residual', () => {
    const model = randomTree(9, 75, { floatingBase: true });
    const id = inverseDynamicsProblem(model);
    const L0 = new SymbolicSystem(model, id).layout;
    // inverse dynamics plus a redundant biased q̈ sensor: one more row than unknowns
    const sys = new SymbolicSystem(model, { name: 'stacked', known: id.known, blocks: [new BiasedAccelerationSensor(4, L0.qdd[4], 0.5)] });
    expect(sys.m).toBe(sys.n + 1);
    const jac = new SystemJacobians(sys);
    const rng = new Rng(12);
    const { q, v } = randomState(model, rng);
    const y = Float64Array.from({ length: sys.ny }, () => rng.uniform(-1, 1));
    const d = Float64Array.from({ length: sys.n }, () => rng.uniform(-1, 1));
    const vals = new SystemValues(sys);
    fillSystem(vals, q, v, y);
    jac.fill(vals, d, q, v, y);
    const m = sys.m, nv = model.nv, h = 1e-6, dq = new Float64Array(nv);
    const col = (J: { Ap: Int32Array; Ai: Int32Array; Ax: Float64Array }, k: number) => {
      const x = new Float64Array(m);
      for (let e = J.Ap[k]; e < J.Ap[k + 1]; e++) x[J.Ai[e]] = J.Ax[e];
      return x;
    };
    const P = jac.pattern, other = new SystemValues(sys);
    for (let k = 0; k < nv; k += 3) {
      dq[k] = h;
      fillSystem(other, integrate(model, q, dq), v, y);
      const rp = residual(sys, other, d);
      dq[k] = -h;
      fillSystem(other, integrate(model, q, dq), v, y);
      const rm = residual(sys, other, d);
      dq[k] = 0;
      expect(relativeErrors(col(P.Jq, k), rp.map((x, t) => (x - rm[t]) / (2 * h))).max, `J_q column ${k}`).toBeLessThan(1e-7);
    }
    const c = sys.ny - 1, yp = Float64Array.from(y);
    yp[c] += 1;
    fillSystem(other, q, v, yp);
    const bp = Float64Array.from(other.b);
    yp[c] -= 2;
    fillSystem(other, q, v, yp);
    expect(relativeErrors(col(P.Jy, c), bp.map((x, t) => (x - other.b[t]) / 2)).max, 'J_y of the sensor input').toBeLessThan(1e-12);
    expect(() => jac.fill(new SystemValues(new SymbolicSystem(model, id)), d, q, v, y)).toThrow('the values belong to another system');
  });
});

describe('the adjoint route', () => {
  it('w_r = D⁻ᵀ e_r gives the same output rows of ∂d/∂q, ∂d/∂q̇, ∂d/∂y as the forward solves, with a measurement block too', () => {
    const model = randomTree(10, 74, { floatingBase: true });
    const fd = forwardDynamicsProblem(model);
    const j = 3, L0 = new SymbolicSystem(model, fd).layout;
    const sys = new SymbolicSystem(model, {
      name: 'mixed',
      known: fd.known.filter((z) => !(z.kind === 'tau' && z.body === j)),
      blocks: [new BiasedAccelerationSensor(j, L0.qdd[j], 0.2)],
    });
    const solver = new SparseSolver(sys);
    const rng = new Rng(9);
    const { q, v } = randomState(model, rng);
    const y = Float64Array.from({ length: sys.ny }, () => rng.uniform(-1, 1));
    solver.step(q, v, y);
    const inputs = [0, 5, sys.ny - 1];
    const fwd = new SystemSensitivity(solver, { inputs }).compute(q, v, y);
    const outputs = [sys.layout.qdd[2], sys.layout.f[5] + 3, sys.layout.a[7] + 1, sys.layout.tau[j]];
    const adj = new AdjointSensitivity(solver, outputs, { inputs, pattern: fwd.pattern }).compute(q, v, y);
    const n = sys.n, nv = model.nv;
    const pick = (D: Float64Array, ncol: number) => Float64Array.from({ length: outputs.length * ncol }, (_, t) => D[(t % ncol) * n + outputs[(t / ncol) | 0]]);
    expect(relativeErrors(adj.dq, pick(fwd.dd_dq, nv)).max).toBeLessThan(1e-12);
    expect(relativeErrors(adj.dv, pick(fwd.dd_dv, nv)).max).toBeLessThan(1e-12);
    expect(relativeErrors(adj.dy, pick(fwd.dd_dy, inputs.length)).max).toBeLessThan(1e-12);
    expect(adj.flops.solve.div).toBe(outputs.length * n);
    expect(() => new AdjointSensitivity(solver, [n])).toThrow(`output ${n} is not a column of d (0..${n - 1})`);
    expect(() => new AdjointSensitivity(solver, [0], { inputs: [-1] })).toThrow(`input index -1 is outside 0..${sys.ny - 1}`);
  });
});

describe('flops and errors', () => {
  it('the solves cost (2 nv + inputs) times one solve of the step, and the jacobians depend on the structure only', () => {
    const model = models[0][1];
    const sys = new SymbolicSystem(model, inverseDynamicsProblem(model));
    const solver = new SparseSolver(sys);
    const sens = new SystemSensitivity(solver, { inputs: [0, 1, 2], sparse: false });
    const rng = new Rng(2);
    const counts: number[] = [];
    for (let t = 0; t < 2; t++) {
      const { q, v, a } = randomState(model, rng);
      const y = inputs(sys, a);
      solver.step(q, v, y);
      sens.compute(q, v, y);
      const one = solver.flops.solve;
      expect(sens.flops.solve.mul).toBe((2 * model.nv + 3) * one.mul);
      expect(sens.flops.solve.add).toBe((2 * model.nv + 3) * one.add);
      counts.push(sens.flops.jacobians.total);
    }
    expect(counts[1]).toBe(counts[0]);
  });

  it('reach-restricted solves (the default) and zero-skipping solves give the full solves\' sensitivities with less work', () => {
    for (const [name, model] of models) {
      for (const problem of [inverseDynamicsProblem(model), forwardDynamicsProblem(model)]) {
        const sys = new SymbolicSystem(model, problem);
        const solver = new SparseSolver(sys);
        const inputsAll = Int32Array.from({ length: sys.ny }, (_, k) => k);
        const sparse = new SystemSensitivity(solver, { inputs: inputsAll });
        const full = new SystemSensitivity(solver, { inputs: inputsAll, sparse: false });
        const skip = new SystemSensitivity(solver, { inputs: inputsAll, sparse: true });
        expect(sparse.sparse).toBe('reach');
        const { q, v, a } = randomState(model, new Rng(4));
        const y = inputs(sys, a);
        solver.step(q, v, y);
        sparse.compute(q, v, y);
        full.compute(q, v, y);
        skip.compute(q, v, y);
        const zero = (x: number) => x + 0;
        for (const key of ['dd_dq', 'dd_dv', 'dd_dy'] as const) {
          expect(Array.from(sparse[key], zero), `${name}, ${problem.name}, ${key}`).toEqual(Array.from(full[key], zero));
          expect(Array.from(skip[key], zero), `${name}, ${problem.name}, ${key}`).toEqual(Array.from(full[key], zero));
        }
        expect(sparse.flops.solve.mul, `${name}, ${problem.name}`).toBeLessThan(full.flops.solve.mul);
        expect(skip.flops.solve.mul, `${name}, ${problem.name}`).toBeLessThan(full.flops.solve.mul);
        expect(skip.flops.solve.div).toBe(full.flops.solve.div);
        expect(sparse.flops.solve.div).toBeLessThan(full.flops.solve.div);
      }
    }
  });

  it('names a bad input index and a pattern of another system', () => {
    const model = models[1][1];
    const sys = new SymbolicSystem(model, inverseDynamicsProblem(model));
    const solver = new SparseSolver(sys);
    expect(() => new SystemSensitivity(solver, { inputs: [sys.ny] })).toThrow(`input index ${sys.ny} is outside 0..${sys.ny - 1}`);
    const other = new DerivativePattern(new SymbolicSystem(model, forwardDynamicsProblem(model)));
    expect(() => new SystemSensitivity(solver, { pattern: other })).toThrow('the given pattern belongs to another system');
  });
});
