/**
 * The planar joint in the model layer: jcalc against the explicit placement (R(n, θ), x e1 + y e2)
 * (Rodrigues from spatial/vec3.ts), integrate against an independent SE(2) exponential (Taylor
 * series of the 3×3 twist matrix), difference as its inverse, the derivative of ⁱX_λ along a
 * tangent direction equal to −(S δ)× ⁱX_λ (central differences), the worst-case pattern of ⁱX_λ
 * containing every nonzero met at random configurations, and the URDF loader and writer.
 */
import { describe, expect, it } from 'vitest';
import { transformPattern } from '../../src/assembly/patterns.ts';
import { buildModel, type ModelSpec } from '../../src/model/build.ts';
import { randomTree } from '../../src/model/generators.ts';
import { jcalc } from '../../src/model/jcalc.ts';
import { jointNq, jointNv, planarBasis } from '../../src/model/joint.ts';
import { difference, integrate } from '../../src/model/lie.ts';
import { randomConfiguration } from '../../src/model/random.ts';
import { Rng } from '../../src/model/rng.ts';
import { modelFromUrdf, parseUrdf } from '../../src/model/urdf.ts';
import { urdfFromSpec } from '../../src/model/urdf-writer.ts';
import { Flops } from '../../src/spatial/flops.ts';
import { crossMotionMatrix } from '../../src/spatial/motion.ts';
import { xCreate, xToMatrix } from '../../src/spatial/transform.ts';
import { rotAxisAngle } from '../../src/spatial/vec3.ts';
import { expectClose } from '../helpers.ts';

const single = (axis: number[] | undefined): ModelSpec => ({
  name: 'p',
  links: [{ name: 'ground', inertia: null }, { name: 'body', inertia: Float64Array.of(1, 0.1, 0.2, 0, 0.3, 0, 0, 0.4, 0, 0.5) }],
  joints: [{ name: 'slide', type: 'planar', parent: 'ground', child: 'body', origin: xCreate(), axis }],
});

describe('planar joint: sizes, S and jcalc', () => {
  it('nq = 3 (x, y, θ), nv = 3 (vx, vy, ω); S = [0 0 n; e1 e2 0] with (e1, e2, n) right-handed', () => {
    expect(jointNq('planar')).toBe(3);
    expect(jointNv('planar')).toBe(3);
    for (const n of [[0, 0, 1], [0, 0, -1], [1, 0, 0], [0.48, -0.6, 0.64]]) {
      const m = buildModel(single(n));
      const S = m.S[0];
      const e1 = [S[3], S[4], S[5]], e2 = [S[9], S[10], S[11]], nn = [S[12], S[13], S[14]];
      expectClose(nn, n, 1e-15, 'n');
      const cross = [e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]];
      expectClose(cross, n, 1e-15, 'e1 × e2 = n');
      expect(Math.abs(e1[0] * e2[0] + e1[1] * e2[1] + e1[2] * e2[2])).toBeLessThan(1e-15);
      for (const k of [0, 1, 2, 6, 7, 8, 15, 16, 17]) expect(S[k]).toBe(0);
    }
    // normal z: e1 = x, e2 = y (Pinocchio's JointModelPlanar)
    expect(Array.from(planarBasis(new Float64Array(6), 0, 0, 1))).toEqual([1, 0, 0, 0, 1, 0]);
  });

  it('jcalc gives X_J = (R(n, θ)ᵀ, x e1 + y e2), on the fast path (normal z) and the general one', () => {
    const rng = new Rng(3);
    for (const n of [[0, 0, 1], [0, 0, -1], [0.48, -0.6, 0.64]]) {
      const m = buildModel(single(n));
      const e = planarBasis(new Float64Array(6), n[0], n[1], n[2]);
      for (let t = 0; t < 5; t++) {
        const q = [rng.uniform(-2, 2), rng.uniform(-2, 2), rng.uniform(-4, 4)];
        const X = jcalc(new Float64Array(12), m, 0, q, new Flops());
        const R = rotAxisAngle(new Float64Array(9), n[0], n[1], n[2], q[2]);
        const Et = [R[0], R[3], R[6], R[1], R[4], R[7], R[2], R[5], R[8]];
        const p = [0, 1, 2].map((k) => q[0] * e[k] + q[1] * e[3 + k]);
        expectClose(X, [...Et, ...p], 1e-15, `X_J, n = ${n}`);
      }
    }
  });
});

/** 3×3 homogeneous matrix of SE(2) (row-major). */
const h2 = (x: number, y: number, th: number): number[] => [Math.cos(th), -Math.sin(th), x, Math.sin(th), Math.cos(th), y, 0, 0, 1];
const mul3 = (A: number[], B: number[]): number[] => {
  const C = new Array(9).fill(0);
  for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) for (let k = 0; k < 3; k++) C[3 * i + j] += A[3 * i + k] * B[3 * k + j];
  return C;
};
/** exp of the twist matrix [0 −ω vx; ω 0 vy; 0 0 0]: scaling and squaring of a 25-term Taylor series. */
function expSe2(vx: number, vy: number, w: number): number[] {
  const s = 2 ** 8;
  const T = [0, -w / s, vx / s, w / s, 0, vy / s, 0, 0, 0];
  let E = [1, 0, 0, 0, 1, 0, 0, 0, 1], P = [1, 0, 0, 0, 1, 0, 0, 0, 1];
  for (let k = 1; k <= 25; k++) {
    P = mul3(P, T).map((x) => x / k);
    E = E.map((x, i) => x + P[i]);
  }
  for (let k = 0; k < 8; k++) E = mul3(E, E);
  return E;
}

describe('planar joint: integrate and difference (SE(2), Pinocchio convention)', () => {
  const model = randomTree(12, 81, { mix: { planar: 5 } });
  const rng = new Rng(9);
  const planars = model.movingJoints().filter((j) => j.type === 'planar');

  it('q ⊕ δ = H(q) exp(δ) on every planar joint, for small and large δ', () => {
    expect(planars.length).toBeGreaterThanOrEqual(2);
    for (const scale of [1e-6, 1e-3, 0.5, 3]) {
      const q = randomConfiguration(model, rng);
      const d = rng.array(model.nv, -scale, scale);
      const q1 = integrate(model, q, d);
      for (const j of planars) {
        const expected = mul3(h2(q[j.iq], q[j.iq + 1], q[j.iq + 2]), expSe2(d[j.iv], d[j.iv + 1], d[j.iv + 2]));
        expectClose(h2(q1[j.iq], q1[j.iq + 1], q1[j.iq + 2]), expected, 1e-13, `H(q ⊕ δ), |δ| ~ ${scale}`);
        expect(q1[j.iq + 2]).toBe(q[j.iq + 2] + d[j.iv + 2]);
      }
    }
  });

  it('difference(q, q ⊕ δ) = δ (|ω| < 2π), and (q ⊕ δ/2) ⊕ δ/2 = q ⊕ δ', () => {
    for (const scale of [1e-7, 1e-2, 1, 3]) {
      const q = randomConfiguration(model, rng);
      const d = rng.array(model.nv, -scale, scale);
      expectClose(difference(model, q, integrate(model, q, d)), d, 1e-12, `difference, |δ| ~ ${scale}`);
      const half = d.map((x) => x / 2);
      expectClose(integrate(model, integrate(model, q, half), half), integrate(model, q, d), 1e-13, 'one-parameter subgroup');
    }
  });

  it('∂ⁱX_λ/∂δ = −(S δ)× ⁱX_λ along q ⊕ tδ (central differences), for the planar bodies', () => {
    const fl = new Flops();
    const q = randomConfiguration(model, rng);
    const X = new Float64Array(12), Xp = new Float64Array(12), Xm = new Float64Array(12);
    const M = new Float64Array(36), Mp = new Float64Array(36), Mm = new Float64Array(36), C = new Float64Array(36);
    const h = 1e-6;
    for (const j of planars) {
      const d = new Float64Array(model.nv);
      for (let k = 0; k < 3; k++) d[j.iv + k] = rng.uniform(-1, 1);
      jcalc(X, model, j.body, q, fl);
      jcalc(Xp, model, j.body, integrate(model, q, d.map((x) => x * h)), fl);
      jcalc(Xm, model, j.body, integrate(model, q, d.map((x) => -x * h)), fl);
      xToMatrix(M, X); xToMatrix(Mp, Xp); xToMatrix(Mm, Xm);
      const S = model.S[j.body];
      const s = [0, 1, 2, 3, 4, 5].map((r) => S[r] * d[j.iv] + S[6 + r] * d[j.iv + 1] + S[12 + r] * d[j.iv + 2]);
      crossMotionMatrix(C, s);
      const expected = new Float64Array(36);
      for (let r = 0; r < 6; r++) for (let c = 0; c < 6; c++) { let acc = 0; for (let k = 0; k < 6; k++) acc -= C[6 * r + k] * M[6 * k + c]; expected[6 * r + c] = acc; }
      expectClose(Mp.map((x, k) => (x - Mm[k]) / (2 * h)), expected, 1e-8, `joint ${j.name}`);
    }
  });
});

describe('planar joint: worst-case pattern of ⁱX_λ', () => {
  it('holds every nonzero met at 30 random configurations', () => {
    const model = randomTree(16, 82, { mix: { planar: 6 } });
    const rng = new Rng(4);
    const X = new Float64Array(12), M = new Float64Array(36), fl = new Flops();
    const bodies = model.movingJoints().filter((j) => j.type === 'planar').map((j) => j.body);
    expect(bodies.length).toBeGreaterThanOrEqual(3);
    let zOnly = 0;
    for (const i of bodies) {
      const P = transformPattern(model, i).pattern;
      if (model.axis[3 * i + 2] === 1) {
        zOnly++;
        // normal z keeps row 2 of E_tree: the pattern is no denser than the tree's there
        const Xt = model.Xtree[i];
        for (let c = 0; c < 3; c++) expect(P[6 * 2 + c]).toBe(Xt[6 + c] !== 0 ? 1 : 0);
      }
      for (let t = 0; t < 30; t++) {
        jcalc(X, model, i, randomConfiguration(model, rng), fl);
        xToMatrix(M, X);
        for (let k = 0; k < 36; k++) if (M[k] !== 0) expect(P[k], `body ${model.bodyNames[i]} entry ${k}`).toBe(1);
      }
    }
    expect(zOnly).toBeGreaterThanOrEqual(1);
  });
});

describe('planar joint in URDF', () => {
  const urdf = (axis: string) => `<?xml version="1.0"?>
<robot name="base">
  <link name="world"/>
  <link name="base"><inertial><mass value="10"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>
  <joint name="floor" type="planar">
    <parent link="world"/><child link="base"/>${axis}
  </joint>
</robot>
`;

  it('<axis xyz="0 0 1">: the xy plane, no warning; q = [x, y, θ]', () => {
    const m = modelFromUrdf(urdf('<axis xyz="0 0 1"/>'), { file: 'b.urdf' });
    expect(m.jointTypes).toEqual(['planar']);
    expect([m.nq, m.nv]).toEqual([3, 3]);
    expect(m.warnings).toEqual([]);
    expect(Array.from(m.axis)).toEqual([0, 0, 1]);
  });

  it('no <axis>: the xy plane (as Pinocchio), with a planar-axis-missing warning naming the joint and its line', () => {
    const text = urdf('');
    const m = modelFromUrdf(text, { file: 'b.urdf' });
    expect(Array.from(m.axis)).toEqual([0, 0, 1]);
    expect(m.warnings.map((w) => w.code)).toEqual(['planar-axis-missing']);
    expect(m.warnings[0]).toMatchObject({ element: 'joint "floor"', file: 'b.urdf', line: 5 });
    expect(m.warnings[0].message).toMatch(/^b\.urdf:5: planar joint "floor".*xy plane/);
  });

  it('a tilted <axis>: the plane normal to it, with a planar-axis-not-z warning saying Pinocchio differs', () => {
    const m = modelFromUrdf(urdf('<axis xyz="0 3 4"/>'), { file: 'b.urdf' });
    expectClose(m.axis, [0, 0.6, 0.8], 1e-16, 'unit normal');
    expect(m.warnings.map((w) => w.code)).toEqual(['planar-axis-not-z']);
    expect(m.warnings[0].message).toMatch(/Pinocchio ignores a planar joint's axis/);
  });

  it('the URDF writer writes planar joints with their normal; the round trip keeps the dynamics', () => {
    const spec = single([0.48, -0.6, 0.64]);
    const text = urdfFromSpec(spec);
    expect(text).toMatch(/type="planar"/);
    const back = parseUrdf(text);
    const a = buildModel(spec), b = modelFromUrdf(text);
    expect(back.joints[0].type).toBe('planar');
    expectClose(b.axis, a.axis, 1e-16, 'normal');
    expectClose(b.I[0], a.I[0], 1e-15, 'inertia');
    expectClose(b.S[0], a.S[0], 1e-15, 'S');
  });
});
