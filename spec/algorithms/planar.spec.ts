/**
 * The planar joint (Pinocchio's JointModelPlanar) in the algorithms, against independent references:
 * - an equivalent chain of joints already checked against Pinocchio (prismatic along e1, prismatic
 *   along e2, revolute about the normal n; massless intermediate links), related to the planar
 *   joint by q̇_chain = J v, J = diag(R₂(θ), 1): RNEA(q, v, a) = Jᵀ RNEA_chain(q, J v, J a + J̇ v),
 *   M = Jᵀ M_chain J, and ABA through the same map;
 * - a hand-derived single body: M = [m 0 −m c_y; 0 m m c_x; −m c_y m c_x I_zz + m|c|²] in the
 *   body-frame velocities, and the static torques that hold it against in-plane gravity;
 * - the identities ABA(RNEA(a)) = a, M a + h = τ, CRBA's M symmetric, M M⁻¹ = I (Carpentier),
 *   and the sparse LU paths against RNEA and ABA.
 */
import { describe, expect, it } from 'vitest';
import { aba, AbaWorkspace } from '../../src/algorithms/aba.ts';
import { crba, CrbaWorkspace } from '../../src/algorithms/crba.ts';
import { minvCarpentier, MinvCarpentierWorkspace } from '../../src/algorithms/minv-carpentier.ts';
import { rnea, RneaWorkspace } from '../../src/algorithms/rnea.ts';
import { LuForwardDynamics, LuInverseDynamics } from '../../src/assembly/dynamics.ts';
import { buildModel, type JointSpec, type LinkSpec, type ModelSpec } from '../../src/model/build.ts';
import { inertiaFromPrincipal, randomTreeSpec } from '../../src/model/generators.ts';
import { planarBasis } from '../../src/model/joint.ts';
import type { Model } from '../../src/model/model.ts';
import { randomConfiguration } from '../../src/model/random.ts';
import { Rng } from '../../src/model/rng.ts';
import { xCreate, xFromRotTrans } from '../../src/spatial/transform.ts';
import { rotAxisAngle } from '../../src/spatial/vec3.ts';
import { expectClose } from '../helpers.ts';

/** The spec with every planar joint replaced by prismatic e1, prismatic e2, revolute n (massless links between). */
export function equivalentChainSpec(spec: ModelSpec): ModelSpec {
  const links: LinkSpec[] = [...spec.links];
  const joints: JointSpec[] = [];
  for (const j of spec.joints) {
    if (j.type !== 'planar') { joints.push(j); continue; }
    const a = j.axis ?? [0, 0, 1];
    const s = Math.hypot(a[0], a[1], a[2]);
    const n = [a[0] / s, a[1] / s, a[2] / s];
    const e = planarBasis(new Float64Array(6), n[0], n[1], n[2]);
    links.push({ name: `${j.child}__px`, inertia: null }, { name: `${j.child}__py`, inertia: null });
    joints.push(
      { name: `${j.name}__x`, type: 'prismatic', parent: j.parent, child: `${j.child}__px`, origin: j.origin, axis: [e[0], e[1], e[2]] },
      { name: `${j.name}__y`, type: 'prismatic', parent: `${j.child}__px`, child: `${j.child}__py`, origin: xCreate(), axis: [e[3], e[4], e[5]] },
      { name: `${j.name}__t`, type: 'revolute', parent: `${j.child}__py`, child: j.child, origin: xCreate(), axis: n },
    );
  }
  return { ...spec, name: `${spec.name} (chain)`, links, joints };
}

/** J (nv×nv, row-major) and J̇ v for q̇_chain = J v: R₂(θ) on each planar joint's (vx, vy), identity elsewhere. */
function planarMap(model: Model, q: ArrayLike<number>, v: ArrayLike<number>): { J: Float64Array; Jdv: Float64Array } {
  const nv = model.nv;
  const J = new Float64Array(nv * nv), Jdv = new Float64Array(nv);
  for (let k = 0; k < nv; k++) J[k * nv + k] = 1;
  for (const j of model.movingJoints()) {
    if (j.type !== 'planar') continue;
    const th = q[j.iq + 2], c = Math.cos(th), s = Math.sin(th), o = j.iv;
    J[o * nv + o] = c; J[o * nv + o + 1] = -s; J[(o + 1) * nv + o] = s; J[(o + 1) * nv + o + 1] = c;
    const w = v[o + 2];
    Jdv[o] = w * (-s * v[o] - c * v[o + 1]);
    Jdv[o + 1] = w * (c * v[o] - s * v[o + 1]);
  }
  return { J, Jdv };
}

const mul = (A: Float64Array, x: ArrayLike<number>, n: number, transpose = false): Float64Array => {
  const y = new Float64Array(n);
  for (let r = 0; r < n; r++) { let s = 0; for (let c = 0; c < n; c++) s += (transpose ? A[c * n + r] : A[r * n + c]) * x[c]; y[r] = s; }
  return y;
};
const add = (a: ArrayLike<number>, b: ArrayLike<number>): Float64Array => Float64Array.from(a, (x, k) => x + b[k]);

/** A mobile base on a planar joint (normal n) off a welded "world" link, carrying a 3-link arm. */
function mobileManipulatorSpec(n: number[]): ModelSpec {
  const I = (m: number, c: number[]) => inertiaFromPrincipal(m, c, 0.02 * m, 0.03 * m, 0.025 * m);
  const R = rotAxisAngle(new Float64Array(9), 0.6, 0, 0.8, 0.4);
  return {
    name: 'mobile-manipulator',
    links: [{ name: 'world', inertia: null }, { name: 'base', inertia: I(20, [0.05, -0.02, 0.1]) },
      { name: 'l1', inertia: I(3, [0, 0, 0.15]) }, { name: 'l2', inertia: I(2, [0.1, 0, 0]) }, { name: 'l3', inertia: I(1, [0, 0.05, 0.02]) }],
    joints: [
      { name: 'base_joint', type: 'planar', parent: 'world', child: 'base', origin: xFromRotTrans(new Float64Array(12), R, [0.1, 0.2, 0.3]), axis: n },
      { name: 'j1', type: 'revolute', parent: 'base', child: 'l1', origin: xFromRotTrans(new Float64Array(12), [1, 0, 0, 0, 1, 0, 0, 0, 1], [0.2, 0, 0.3]), axis: [0, 0, 1] },
      { name: 'j2', type: 'revolute', parent: 'l1', child: 'l2', origin: xFromRotTrans(new Float64Array(12), [1, 0, 0, 0, 1, 0, 0, 0, 1], [0, 0, 0.3]), axis: [0, 1, 0] },
      { name: 'j3', type: 'revolute', parent: 'l2', child: 'l3', origin: xFromRotTrans(new Float64Array(12), [1, 0, 0, 0, 1, 0, 0, 0, 1], [0.25, 0, 0]), axis: [0.6, 0, 0.8] },
    ],
  };
}

const cases: [string, ModelSpec, boolean][] = [
  ['mobile manipulator, plane normal z', mobileManipulatorSpec([0, 0, 1]), false],
  ['mobile manipulator, plane normal (1, 2, 2)/3', mobileManipulatorSpec([1 / 3, 2 / 3, 2 / 3]), false],
  ['mobile manipulator, plane normal −z', mobileManipulatorSpec([0, 0, -1]), false],
  ['random tree 24 with planar joints, fixed', randomTreeSpec(24, 71, { mix: { planar: 4 } }), false],
  ['random tree 20 with planar joints, floating', randomTreeSpec(20, 72, { mix: { planar: 4 } }), true],
];

describe('planar joint: RNEA, CRBA, ABA against an equivalent chain of checked joints', () => {
  for (const [name, spec, floatingBase] of cases) {
    const model = buildModel(spec, { floatingBase });
    const chainModel = buildModel(equivalentChainSpec(spec), { floatingBase });
    const nv = model.nv;
    const rng = new Rng(name.length * 31);

    it(`${name}: the layouts agree and the planar joints are there`, () => {
      expect(model.jointTypes.filter((t) => t === 'planar').length).toBeGreaterThanOrEqual(1);
      expect(chainModel.nv).toBe(nv);
      expect(chainModel.nq).toBe(model.nq);
      expect(model.singularBodies.length).toBe(0);
      expect(chainModel.singularBodies.length).toBe(0);
    });

    it(`${name}: RNEA = Jᵀ RNEA_chain(q, J v, J a + J̇ v), M = Jᵀ M_chain J, ABA through the same map`, () => {
      const rw = new RneaWorkspace(model), rc = new RneaWorkspace(chainModel);
      const cw = new CrbaWorkspace(model), cc = new CrbaWorkspace(chainModel);
      const aw = new AbaWorkspace(model), ac = new AbaWorkspace(chainModel);
      for (let t = 0; t < 3; t++) {
        const q = randomConfiguration(model, rng);
        const v = rng.array(nv, -2, 2), a = rng.array(nv, -2, 2);
        const { J, Jdv } = planarMap(model, q, v);
        const vc = mul(J, v, nv), ac_ = add(mul(J, a, nv), Jdv);
        const tau = Float64Array.from(rnea(model, rw, q, v, a));
        expectClose(tau, mul(J, rnea(chainModel, rc, q, vc, ac_), nv, true), 1e-12, 'RNEA');
        const M = Float64Array.from(crba(model, cw, q));
        const Mc = crba(chainModel, cc, q);
        const JtMcJ = new Float64Array(nv * nv);
        for (let r = 0; r < nv; r++) for (let c = 0; c < nv; c++) {
          let s = 0;
          for (let k = 0; k < nv; k++) for (let l = 0; l < nv; l++) s += J[k * nv + r] * Mc[k * nv + l] * J[l * nv + c];
          JtMcJ[r * nv + c] = s;
        }
        expectClose(M, JtMcJ, 1e-12, 'M');
        // ABA: τ_chain = J τ (J⁻ᵀ = J), a = Jᵀ (q̈_chain − J̇ v)
        const tauIn = rng.array(nv, -3, 3);
        const qddc = aba(chainModel, ac, q, vc, mul(J, tauIn, nv));
        const viaChain = mul(J, Float64Array.from(qddc, (x, k) => x - Jdv[k]), nv, true);
        expectClose(aba(model, aw, q, v, tauIn), viaChain, 1e-10, 'ABA');
      }
    });

    it(`${name}: ABA(RNEA(a)) = a, M a + h = τ, M symmetric, M M⁻¹ = I (Carpentier), LU paths = RNEA / ABA`, () => {
      const rw = new RneaWorkspace(model), aw = new AbaWorkspace(model), cw = new CrbaWorkspace(model), mw = new MinvCarpentierWorkspace(model);
      const id = new LuInverseDynamics(model), fd = new LuForwardDynamics(model);
      for (let t = 0; t < 3; t++) {
        const q = randomConfiguration(model, rng);
        const v = rng.array(nv, -2, 2), a = rng.array(nv, -2, 2);
        const fext = Array.from({ length: model.nb }, () => rng.array(6, -3, 3));
        const tau = Float64Array.from(rnea(model, rw, q, v, a, fext));
        expectClose(aba(model, aw, q, v, tau, fext), a, 1e-10, 'ABA(RNEA(a))');
        expectClose(id.solve(q, v, a, fext), tau, 1e-10, 'LU inverse dynamics');
        expectClose(fd.solve(q, v, tau, fext), a, 1e-10, 'LU forward dynamics');
        const M = Float64Array.from(crba(model, cw, q));
        for (let r = 0; r < nv; r++) for (let c = 0; c < nv; c++) expect(M[r * nv + c]).toBe(M[c * nv + r]);
        const h = Float64Array.from(rnea(model, rw, q, v, new Float64Array(nv), fext));
        expectClose(add(mul(M, a, nv), h), tau, 1e-12, 'M a + h');
        const Minv = minvCarpentier(model, mw, q);
        const P = new Float64Array(nv * nv);
        for (let r = 0; r < nv; r++) for (let c = 0; c < nv; c++) { let s = 0; for (let k = 0; k < nv; k++) s += M[r * nv + k] * Minv[k * nv + c]; P[r * nv + c] = s; }
        const I = new Float64Array(nv * nv);
        for (let k = 0; k < nv; k++) I[k * nv + k] = 1;
        expectClose(P, I, 1e-10, 'M M⁻¹');
      }
    });
  }
});

describe('planar joint: a single body, by hand', () => {
  // mass m, centre of mass c = (cx, cy, cz) in the body frame, principal moments about c along the body axes
  const m = 2.5, cx = 0.3, cy = -0.2, cz = 0.1, Ixx = 0.04, Iyy = 0.05, Izz = 0.07;
  const spec: ModelSpec = {
    name: 'puck',
    links: [{ name: 'ground', inertia: null }, { name: 'puck', inertia: inertiaFromPrincipal(m, [cx, cy, cz], Ixx, Iyy, Izz) }],
    joints: [{ name: 'slide', type: 'planar', parent: 'ground', child: 'puck', origin: xCreate(), axis: [0, 0, 1] }],
    // gravity in the plane of motion, along −y of the ground
    gravity: [0, -9.81, 0],
  };
  const model = buildModel(spec);

  it('M = [m 0 −m c_y; 0 m m c_x; −m c_y m c_x I_zz + m (c_x² + c_y²)] at every configuration', () => {
    const expected = [m, 0, -m * cy, 0, m, m * cx, -m * cy, m * cx, Izz + m * (cx * cx + cy * cy)];
    const ws = new CrbaWorkspace(model);
    for (const q of [[0, 0, 0], [0.4, -1.2, 2.1], [3, 2, -0.7]]) expectClose(crba(model, ws, q), expected, 1e-14, `M at q = ${q}`);
  });

  it('at rest, the static torques hold the weight: τ_xy = m R₂(θ)ᵀ (0, g), τ_θ = −(c × F)_z with F = m R₂(θ)ᵀ (0, −g)', () => {
    const ws = new RneaWorkspace(model);
    for (const th of [0, 0.7, -2.4]) {
      const c = Math.cos(th), s = Math.sin(th), g = 9.81;
      // gravity force on the body, in body axes: F = m R₂(θ)ᵀ (0, −g)
      const Fx = m * (c * 0 + s * -g), Fy = m * (-s * 0 + c * -g);
      expectClose(rnea(model, ws, [0.5, -0.3, th], null, [0, 0, 0]), [-Fx, -Fy, -(cx * Fy - cy * Fx)], 1e-14, `θ = ${th}`);
    }
  });

  it('a spin about the centre of mass needs no force: v = (ω c_y, −ω c_x, ω), a = 0 gives τ = gravity only', () => {
    // the body-frame velocity of a rotation about the CoM: v_origin = −ω ẑ × c = (ω c_y, −ω c_x)
    const ws = new RneaWorkspace(model);
    const w = 1.7;
    const q = [0.2, 0.1, 0.5];
    const spin = Float64Array.from(rnea(model, ws, q, [w * cy, -w * cx, w], [0, 0, 0]));
    const still = rnea(model, ws, q, null, [0, 0, 0]);
    // the centripetal acceleration of the origin (about the CoM) is carried by the velocity terms: the CoM itself does not accelerate
    expectClose(spin, still, 1e-13, 'τ(spin) = τ(rest)');
  });
});
