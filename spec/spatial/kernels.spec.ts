/**
 * Spatial kernels against their dense 6×6 definitions (RBDA Table 2.5 / paper 001), built
 * independently here with ml-matrix from (E, r).
 */
import { inverse, Matrix } from 'ml-matrix';
import { describe, expect, it } from 'vitest';
import { m6CongruenceAdd } from '../../src/spatial/articulated.ts';
import { Flops } from '../../src/spatial/flops.ts';
import { inertiaFromMassComInertia, inertiaMulMotion, inertiaToMatrix, inertiaTransformToParent } from '../../src/spatial/inertia.ts';
import { crossForce, crossMotion } from '../../src/spatial/motion.ts';
import { rotFromRpy } from '../../src/spatial/vec3.ts';
import {
  xApplyForce, xApplyMotion, xCompose, xFromRotTrans, xInvApplyMotion, xInverse, xTransposeApplyForce, xTransposeApplyForceAdd,
} from '../../src/spatial/transform.ts';
import { expectClose } from '../helpers.ts';

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296 * 2 - 1;
  };
}

const skew = (v: number[]) => new Matrix([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]]);

function block(A: Matrix, B: Matrix, C: Matrix, D: Matrix): Matrix {
  const M = Matrix.zeros(6, 6);
  M.setSubMatrix(A, 0, 0); M.setSubMatrix(B, 0, 3); M.setSubMatrix(C, 3, 0); M.setSubMatrix(D, 3, 3);
  return M;
}

function randomX(r: () => number): { X: Float64Array; E: Matrix; p: number[] } {
  const R = rotFromRpy(new Float64Array(9), 3 * r(), 3 * r(), 3 * r());
  const E = new Matrix([[R[0], R[1], R[2]], [R[3], R[4], R[5]], [R[6], R[7], R[8]]]);
  const p = [r(), r(), r()];
  const X = xFromRotTrans(new Float64Array(12), R, p);
  return { X, E, p };
}

/** ᴮX_A = [E 0; −E r× E] */
function motionMatrix(E: Matrix, p: number[]): Matrix {
  return block(E, Matrix.zeros(3, 3), E.mmul(skew(p)).mul(-1), E);
}

const vec = (r: () => number) => Float64Array.from({ length: 6 }, () => 2 * r());
const mv = (M: Matrix, x: Float64Array) => Float64Array.from(M.mmul(Matrix.columnVector(Array.from(x))).to1DArray());

describe('spatial kernels vs dense 6×6', () => {
  const r = rng(42);
  const fl = new Flops();
  for (let trial = 0; trial < 20; trial++) {
    it(`transform products, trial ${trial}`, () => {
      const { X, E, p } = randomX(r);
      const XM = motionMatrix(E, p);
      const XF = inverse(XM).transpose(); // X* = X⁻ᵀ
      const m = vec(r), f = vec(r);
      expectClose(xApplyMotion(new Float64Array(6), X, m, fl), mv(XM, m), 1e-14, 'X m');
      expectClose(xInvApplyMotion(new Float64Array(6), X, m, fl), mv(inverse(XM), m), 1e-13, 'X⁻¹ m');
      expectClose(xApplyForce(new Float64Array(6), X, f, fl), mv(XF, f), 1e-13, 'X* f');
      expectClose(xTransposeApplyForce(new Float64Array(6), X, f, fl), mv(XM.transpose(), f), 1e-14, 'Xᵀ f');
      const acc = Float64Array.from(m);
      expectClose(xTransposeApplyForceAdd(acc, X, f, fl), mv(XM.transpose(), f).map((x, k) => x + m[k]), 1e-14, 'm + Xᵀ f');
      // aliasing: out = in
      const al = Float64Array.from(m);
      expectClose(xApplyMotion(al, X, al, fl), mv(XM, m), 1e-14, 'X m aliased');
      // composition and inverse
      const { X: X2, E: E2, p: p2 } = randomX(r);
      const C = xCompose(new Float64Array(12), X2, X, fl);
      expectClose(xApplyMotion(new Float64Array(6), C, m, fl), mv(motionMatrix(E2, p2).mmul(XM), m), 1e-13, 'X2 X m');
      const Xi = xInverse(new Float64Array(12), X, fl);
      expectClose(xApplyMotion(new Float64Array(6), Xi, m, fl), mv(inverse(XM), m), 1e-13, 'inverse');
    });
  }

  it('cross products', () => {
    for (let t = 0; t < 10; t++) {
      const v = vec(r), m = vec(r), f = vec(r);
      const w = [v[0], v[1], v[2]], u = [v[3], v[4], v[5]];
      const cm = block(skew(w), Matrix.zeros(3, 3), skew(u), skew(w));
      expectClose(crossMotion(new Float64Array(6), v, m, fl), mv(cm, m), 1e-15, 'v×m');
      // v×* = −(v×)ᵀ
      expectClose(crossForce(new Float64Array(6), v, f, fl), mv(cm.transpose().mul(-1), f), 1e-15, 'v×*f');
    }
  });

  it('rigid inertia: product and transform to parent', () => {
    for (let t = 0; t < 10; t++) {
      const m = 1 + Math.abs(r()) * 5;
      const c = [r(), r(), r()];
      const I = inertiaFromMassComInertia(new Float64Array(10), m, c, 2, 0.1 * r(), 0.1 * r(), 3, 0.1 * r(), 2.5);
      // independent dense: [Ic + m c× c×ᵀ, m c×; m c×ᵀ, m 1]
      const cx = skew(c);
      const IcDense = new Matrix([
        [I[4] - m * (c[1] * c[1] + c[2] * c[2]), I[5] + m * c[0] * c[1], I[6] + m * c[0] * c[2]],
        [I[5] + m * c[0] * c[1], I[7] - m * (c[0] * c[0] + c[2] * c[2]), I[8] + m * c[1] * c[2]],
        [I[6] + m * c[0] * c[2], I[8] + m * c[1] * c[2], I[9] - m * (c[0] * c[0] + c[1] * c[1])],
      ]);
      expectClose(IcDense.to1DArray(), [2, IcDense.get(0, 1), IcDense.get(0, 2), IcDense.get(0, 1), 3, IcDense.get(1, 2), IcDense.get(0, 2), IcDense.get(1, 2), 2.5], 1e-14, 'Ic recovered');
      const D = block(IcDense.add(cx.mmul(cx.transpose()).mul(m)), cx.clone().mul(m), cx.transpose().mul(m), Matrix.eye(3).mul(m));
      const Id = new Matrix(6, 6);
      const flat = inertiaToMatrix(new Float64Array(36), I);
      for (let i = 0; i < 6; i++) for (let j = 0; j < 6; j++) Id.set(i, j, flat[6 * i + j]);
      expectClose(Id.to1DArray(), D.to1DArray(), 1e-14, 'inertiaToMatrix');
      const a = vec(r);
      expectClose(inertiaMulMotion(new Float64Array(6), I, a, fl), mv(D, a), 1e-14, 'I a');
      const { X, E, p } = randomX(r);
      const XM = motionMatrix(E, p);
      const Ip = inertiaTransformToParent(new Float64Array(10), X, I, fl);
      const Ipd = inertiaToMatrix(new Float64Array(36), Ip);
      expectClose(Ipd, XM.transpose().mmul(D).mmul(XM).to1DArray(), 1e-13, 'Xᵀ I X');
      // general symmetric congruence accumulates into P
      const P = Float64Array.from(flat);
      m6CongruenceAdd(P, X, flat, fl);
      expectClose(P, XM.transpose().mmul(D).mmul(XM).add(D).to1DArray(), 1e-13, 'P + Xᵀ M X');
    }
  });

  it('counts flops as integers', () => {
    const f2 = new Flops();
    const { X } = randomX(r);
    xApplyMotion(new Float64Array(6), X, vec(r), f2);
    expect([f2.mul, f2.add, f2.div]).toEqual([24, 18, 0]);
    crossForce(new Float64Array(6), vec(r), vec(r), f2);
    expect(f2.total).toBe(24 + 18 + 30);
  });
});
