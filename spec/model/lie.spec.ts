/**
 * integrate / difference on the configuration manifold (Pinocchio's convention): inverse of each
 * other, the free flyer against an independent SE(3) exponential (matrix series of the 4×4 twist),
 * small-angle series continuous with the closed forms, shortest-arc quaternion logarithms, and
 * entry checks naming the vector.
 */
import { describe, expect, it } from 'vitest';
import { randomTree } from '../../src/model/generators.ts';
import { difference, integrate } from '../../src/model/lie.ts';
import type { Model } from '../../src/model/model.ts';
import { Rng } from '../../src/model/rng.ts';
import { rotFromQuat } from '../../src/spatial/vec3.ts';
import { expectClose } from '../helpers.ts';
import { randomState } from '../state.ts';

/** 4×4 homogeneous matrix (row-major) of a free-flyer configuration q[0..7] = [p, quaternion xyzw]. */
function homogeneous(q: ArrayLike<number>): Float64Array {
  const R = rotFromQuat(new Float64Array(9), q[3], q[4], q[5], q[6]);
  const M = new Float64Array(16);
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 3; j++) M[4 * i + j] = R[3 * i + j];
    M[4 * i + 3] = q[i];
  }
  M[15] = 1;
  return M;
}

function mul4(A: Float64Array, B: Float64Array): Float64Array {
  const C = new Float64Array(16);
  for (let i = 0; i < 4; i++) for (let j = 0; j < 4; j++) {
    let s = 0;
    for (let k = 0; k < 4; k++) s += A[4 * i + k] * B[4 * k + j];
    C[4 * i + j] = s;
  }
  return C;
}

/** exp of the 4×4 twist matrix [ω× v; 0 0] by scaling and squaring of a 30-term Taylor series. */
function expTwist(v: ArrayLike<number>, w: ArrayLike<number>): Float64Array {
  const T = new Float64Array(16);
  T[1] = -w[2]; T[2] = w[1]; T[4] = w[2]; T[6] = -w[0]; T[8] = -w[1]; T[9] = w[0];
  T[3] = v[0]; T[7] = v[1]; T[11] = v[2];
  const s = 2 ** 8;
  for (let k = 0; k < 16; k++) T[k] /= s;
  let E: Float64Array = new Float64Array(16), term: Float64Array = new Float64Array(16);
  for (let k = 0; k < 4; k++) { E[5 * k] = 1; term[5 * k] = 1; }
  for (let n = 1; n < 30; n++) {
    term = mul4(term, T);
    for (let k = 0; k < 16; k++) { term[k] /= n; E[k] += term[k]; }
  }
  for (let k = 0; k < 8; k++) E = mul4(E, E);
  return E;
}

const models: [string, Model][] = [
  ['tree:15 floating (every joint type)', randomTree(15, 31, { floatingBase: true })],
  ['tree:10 fixed', randomTree(10, 32)],
];

describe('integrate and difference', () => {
  for (const [name, model] of models) {
    it(`${name}: difference(q, q ⊕ δ) = δ and q₀ ⊕ (q₁ ⊖ q₀) = q₁`, () => {
      const rng = new Rng(7);
      for (let t = 0; t < 20; t++) {
        const { q } = randomState(model, rng);
        const scale = [1e-9, 1e-5, 1e-3, 0.3, 1.7][t % 5]; // |ω| < √3·1.7 < π: the logarithm returns δ itself
        const dq = Float64Array.from({ length: model.nv }, () => rng.uniform(-1, 1) * scale);
        const q1 = integrate(model, q, dq);
        // absolute: q_i + δ_i − q_i keeps ε·|q_i|, a quaternion ε (as in Pinocchio)
        expectClose(difference(model, q, q1), dq, 1e-14, `δ (scale ${scale})`, 10);
        const { q: q2 } = randomState(model, rng);
        const back = integrate(model, q, difference(model, q, q2));
        // quaternions are defined up to sign: compare the configurations through difference
        expectClose(difference(model, q2, back), new Float64Array(model.nv), 1e-12, 'q₀ ⊕ (q₁ ⊖ q₀) ⊖ q₁');
      }
    });
  }

  it('q ⊕ 0 = q, q ⊖ q = 0, and the same rotation with a negated quaternion has zero difference', () => {
    const model = models[0][1];
    const { q } = randomState(model, new Rng(3));
    expectClose(integrate(model, q, new Float64Array(model.nv)), q, 1e-15, 'q ⊕ 0');
    expectClose(difference(model, q, q), new Float64Array(model.nv), 1e-15, 'q ⊖ q');
    const flipped = Float64Array.from(q);
    for (const j of model.movingJoints()) {
      if (j.type !== 'floating' && j.type !== 'spherical') continue;
      const o = j.iq + (j.type === 'floating' ? 3 : 0);
      for (let k = 0; k < 4; k++) flipped[o + k] = -flipped[o + k];
    }
    expectClose(difference(model, q, flipped), new Float64Array(model.nv), 1e-15, 'shortest arc');
  });

  it('the free flyer moves by M exp6(δ) with δ = [v; ω] in the body frame (independent matrix exponential)', () => {
    const model = randomTree(3, 5, { floatingBase: true });
    const rng = new Rng(11);
    for (let t = 0; t < 12; t++) {
      const { q } = randomState(model, rng);
      const scale = [1e-6, 0.05, 1, 3][t % 4];
      const dq = new Float64Array(model.nv);
      for (let k = 0; k < 6; k++) dq[k] = rng.uniform(-1, 1) * scale;
      const q1 = integrate(model, q, dq);
      const expected = mul4(homogeneous(q), expTwist(dq.subarray(0, 3), dq.subarray(3, 6)));
      expectClose(homogeneous(q1), expected, 1e-12, `M ⊕ δ (scale ${scale})`);
    }
  });

  it('a pure body-frame translation moves the base origin by R v', () => {
    const model = randomTree(2, 6, { floatingBase: true });
    const { q } = randomState(model, new Rng(2));
    const dq = new Float64Array(model.nv);
    dq[0] = 0.3; dq[1] = -0.2; dq[2] = 0.7;
    const q1 = integrate(model, q, dq);
    const R = rotFromQuat(new Float64Array(9), q[3], q[4], q[5], q[6]);
    const p = [0, 1, 2].map((i) => q[i] + R[3 * i] * dq[0] + R[3 * i + 1] * dq[1] + R[3 * i + 2] * dq[2]);
    expectClose(q1.subarray(0, 3), p, 1e-15, 'p + R v');
    expectClose(q1.subarray(3, 7), q.subarray(3, 7), 1e-15, 'quaternion unchanged');
  });

  it('the small-angle series join the closed forms (continuity across the thresholds)', () => {
    const model = randomTree(2, 8, { floatingBase: true });
    const { q } = randomState(model, new Rng(4));
    const dir = [0.6, -0.48, 0.64];
    for (const theta of [0.99e-4, 1.01e-4, 0.99e-2, 1.01e-2]) {
      const dq = new Float64Array(model.nv);
      for (let k = 0; k < 3; k++) { dq[k] = 0.5 * dir[(k + 1) % 3]; dq[3 + k] = theta * dir[k]; }
      const q1 = integrate(model, q, dq);
      const expected = mul4(homogeneous(q), expTwist(dq.subarray(0, 3), dq.subarray(3, 6)));
      expectClose(homogeneous(q1), expected, 1e-13, `θ = ${theta}`);
      expectClose(difference(model, q, q1), dq, 1e-13, `log at θ = ${theta}`, 1);
    }
  });

  it('names the vector of the wrong length', () => {
    const model = models[1][1];
    const q = new Float64Array(model.nq), dq = new Float64Array(model.nv);
    expect(() => integrate(model, q.subarray(1), dq)).toThrow(`q has length ${model.nq - 1}, expected model.nq = ${model.nq}`);
    expect(() => integrate(model, q, new Float64Array(2))).toThrow(`dq has length 2, expected model.nv = ${model.nv}`);
    expect(() => difference(model, q, new Float64Array(1))).toThrow(`q1 has length 1, expected model.nq = ${model.nq}`);
    expect(() => difference(model, q, q, new Float64Array(1))).toThrow(`out has length 1, expected model.nv = ${model.nv}`);
  });
});
