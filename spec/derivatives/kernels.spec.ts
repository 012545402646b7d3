/**
 * The kernels of jcalcderiv.ts against dense 6×6 products and finite differences: products with a
 * joint column, the inertia rate S ×* I − I S×, the zero-mass transforms, ∂ⁱX_λ/∂s = −(S×) ⁱX_λ on
 * the manifold for every joint type, and the flop counts of the structural terms.
 */
import { describe, expect, it } from 'vitest';
import {
  crossForceS, crossMotionS, inertiaMulS, inertiaRate, jcalcderivForceT, jcalcderivMotion, JointColumns,
  rateMulMotion,
} from '../../src/algorithms/jcalcderiv.ts';
import { jcalc } from '../../src/model/jcalc.ts';
import { randomTree } from '../../src/model/generators.ts';
import { integrate } from '../../src/model/lie.ts';
import { Rng } from '../../src/model/rng.ts';
import { Flops } from '../../src/spatial/flops.ts';
import { inertiaMulMotion, inertiaToMatrix, inertiaTransformToParent } from '../../src/spatial/inertia.ts';
import { crossMotionMatrix } from '../../src/spatial/motion.ts';
import { xApplyMotion, xToMatrix, xTransposeApplyForce } from '../../src/spatial/transform.ts';
import { expectClose } from '../helpers.ts';
import { randomState } from '../state.ts';

const model = randomTree(14, 41, { floatingBase: true });
const cols = new JointColumns(model);
const rng = new Rng(5);
const vec6 = () => Float64Array.from({ length: 6 }, () => rng.uniform(-2, 2));

function matVec(A: Float64Array, x: ArrayLike<number>, transpose = false): Float64Array {
  const y = new Float64Array(6);
  for (let i = 0; i < 6; i++) for (let j = 0; j < 6; j++) y[i] += (transpose ? A[6 * j + i] : A[6 * i + j]) * x[j];
  return y;
}

function matMul(A: Float64Array, B: Float64Array): Float64Array {
  const C = new Float64Array(36);
  for (let i = 0; i < 6; i++) for (let j = 0; j < 6; j++) for (let k = 0; k < 6; k++) C[6 * i + j] += A[6 * i + k] * B[6 * k + j];
  return C;
}

describe('products with a joint column S_k', () => {
  it('m × S_k, S_k ×* f, I S_k and S_k ×* I − I S_k× equal the dense products, for every column', () => {
    const fl = new Flops();
    for (let k = 0; k < model.nv; k++) {
      const s = cols.s.subarray(6 * k, 6 * k + 6);
      const m = vec6(), f = vec6();
      const Cm = crossMotionMatrix(new Float64Array(36), m), Cs = crossMotionMatrix(new Float64Array(36), s);
      expectClose(crossMotionS(new Float64Array(6), m, cols, k, fl), matVec(Cm, s), 1e-15, `m × S_${k}`);
      // s ×* = −(s×)ᵀ
      expectClose(crossForceS(new Float64Array(6), cols, k, f, fl), matVec(Cs, f, true).map((x) => -x), 1e-15, `S_${k} ×* f`);
      const I = model.I[cols.body[k]];
      const MI = inertiaToMatrix(new Float64Array(36), I);
      expectClose(inertiaMulS(new Float64Array(6), I, cols, k, fl), matVec(MI, s), 1e-15, `I S_${k}`);
      const R = inertiaRate(new Float64Array(10), cols, k, I, fl);
      expect(R[0]).toBe(0);
      const CsT = new Float64Array(36);
      for (let i = 0; i < 6; i++) for (let j = 0; j < 6; j++) CsT[6 * i + j] = -Cs[6 * j + i];
      const dense = matMul(CsT, MI).map((x, e) => x - matMul(MI, Cs)[e]);
      expectClose(inertiaToMatrix(new Float64Array(36), R), dense, 1e-14, `S_${k} ×* I − I S_${k}×`);
    }
  });

  it('counts only the structural terms: free for a frame-axis revolute, full for a helical column', () => {
    const fl = new Flops();
    const m = vec6();
    // the floating base's columns are unit vectors: m × e_k has no multiplication
    for (let k = 0; k < 6; k++) {
      fl.reset();
      crossMotionS(new Float64Array(6), m, cols, k, fl);
      expect(fl.mul, `column ${k}`).toBe(0);
    }
    for (let k = 6; k < model.nv; k++) {
      const i = cols.body[k];
      fl.reset();
      crossMotionS(new Float64Array(6), m, cols, k, fl);
      if (model.jointTypes[i] === 'helical') expect([fl.mul, fl.add]).toEqual([18, 12]); // as the dense crossMotion
      if (model.jointTypes[i] === 'revolute' && model.axisKind[i] < 3) expect(fl.mul).toBe(0);
      if (model.jointTypes[i] === 'revolute' && model.axisKind[i] === 3) {
        const nz = [0, 1, 2].filter((r) => cols.s[6 * k + r] !== 0).length;
        if (nz === 3) expect([fl.mul, fl.add]).toEqual([12, 6]);
      }
    }
  });
});

describe('inertia rates (zero mass)', () => {
  it('an inertia rate passes to the parent as Xᵀ R X (dense check), skipping the mass terms; rateMulMotion equals the rigid kernel at m = 0', () => {
    const { q } = randomState(model, rng);
    const X = jcalc(new Float64Array(12), model, 3, q, new Flops());
    const R = inertiaRate(new Float64Array(10), cols, 7, model.I[2], new Flops());
    const f1 = new Flops();
    const out = inertiaToMatrix(new Float64Array(36), inertiaTransformToParent(new Float64Array(10), X, R, f1));
    expect([f1.mul, f1.add]).toEqual([70, 50]);
    const Xm = xToMatrix(new Float64Array(36), X), Rm = inertiaToMatrix(new Float64Array(36), R);
    const dense = new Float64Array(36);
    for (let i = 0; i < 6; i++) for (let j = 0; j < 6; j++) {
      let acc = 0;
      for (let a = 0; a < 6; a++) for (let b = 0; b < 6; b++) acc += Xm[6 * a + i] * Rm[6 * a + b] * Xm[6 * b + j];
      dense[6 * i + j] = acc;
    }
    expectClose(out, dense, 1e-14, 'Xᵀ R X');
    const m = vec6();
    f1.reset();
    expectClose(rateMulMotion(new Float64Array(6), R, m, f1), inertiaMulMotion(new Float64Array(6), R, m, new Flops()), 1e-15, 'R m');
    expect([f1.mul, f1.add]).toEqual([21, 15]);
  });
});

describe('jcalcderiv: ∂ⁱX_λ/∂s_k = −(S_k×) ⁱX_λ on the manifold', () => {
  it('matches central differences of jcalc at q ⊕ ±h e_k for every joint type (floating, spherical, helical, prismatic, revolute)', () => {
    const types = new Set(model.jointTypes);
    for (const t of ['floating', 'spherical', 'helical', 'prismatic', 'revolute']) expect(types.has(t as never), t).toBe(true);
    const { q } = randomState(model, rng);
    const h = 1e-6, fl = new Flops(), t6 = new Float64Array(6);
    const X = new Float64Array(12), Xp = new Float64Array(12), Xm = new Float64Array(12);
    for (let k = 0; k < model.nv; k++) {
      const i = cols.body[k];
      const dq = new Float64Array(model.nv);
      dq[k] = h;
      jcalc(Xp, model, i, integrate(model, q, dq), fl);
      dq[k] = -h;
      jcalc(Xm, model, i, integrate(model, q, dq), fl);
      jcalc(X, model, i, q, fl);
      const m = vec6(), f = vec6();
      const fdM = xApplyMotion(new Float64Array(6), Xp, m, fl).map((x, r) => (x - xApplyMotion(new Float64Array(6), Xm, m, fl)[r]) / (2 * h));
      expectClose(jcalcderivMotion(new Float64Array(6), X, m, cols, k, t6, fl), fdM, 1e-8, `(∂X/∂s_${k}) m, joint ${model.jointNames[i]}`);
      const fdF = xTransposeApplyForce(new Float64Array(6), Xp, f, fl).map((x, r) => (x - xTransposeApplyForce(new Float64Array(6), Xm, f, fl)[r]) / (2 * h));
      expectClose(jcalcderivForceT(new Float64Array(6), X, f, cols, k, t6, fl), fdF, 1e-8, `(∂X/∂s_${k})ᵀ f, joint ${model.jointNames[i]}`);
    }
  });
});
