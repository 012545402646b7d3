/**
 * Massless moving bodies: the articulated-inertia check at load (model/articulated-check.ts)
 * names the bodies whose D_i = S_iᵀ I^A_i S_i is singular — a massless leaf, a massless body whose
 * only child turns about the same axis — and not a massless body carrying a massive child on a
 * different joint or on a parallel but offset axis. The verdict is checked against an independent
 * reference: the smallest eigenvalue of M (CRBA) relative to its largest, by a dense
 * eigen-decomposition (ml-matrix).
 */
import { EigenvalueDecomposition, Matrix } from 'ml-matrix';
import { describe, expect, it } from 'vitest';
import { crba, CrbaWorkspace } from '../../src/algorithms/crba.ts';
import { singularBodiesAt } from '../../src/model/articulated-check.ts';
import { buildModel, type JointSpec, type ModelSpec } from '../../src/model/build.ts';
import { inertiaFromPrincipal } from '../../src/model/generators.ts';
import type { Model } from '../../src/model/model.ts';
import { randomConfiguration } from '../../src/model/random.ts';
import { Rng } from '../../src/model/rng.ts';
import { xFromRotTrans } from '../../src/spatial/transform.ts';

const I3 = [1, 0, 0, 0, 1, 0, 0, 0, 1];
const at = (x: number, y: number, z: number) => xFromRotTrans(new Float64Array(12), I3, [x, y, z]);
const heavy = () => inertiaFromPrincipal(2, [0.1, 0.05, 0.2], 0.03, 0.04, 0.05);

/** base (welded) → j1 (revolute z) → b1 (massive) → j2 → b2 (massless) → j3 → b3 (mass or not). */
function spec3(j2: Partial<JointSpec>, j3: Partial<JointSpec> | null, b3Mass: boolean): ModelSpec {
  const joints: JointSpec[] = [
    { name: 'j1', type: 'revolute', parent: 'base', child: 'b1', origin: at(0, 0, 0.1), axis: [0, 0, 1] },
    { name: 'j2', type: 'revolute', parent: 'b1', child: 'b2', origin: at(0.3, 0, 0), axis: [0, 1, 0], ...j2 },
  ];
  const links = [{ name: 'base', inertia: heavy() }, { name: 'b1', inertia: heavy() }, { name: 'b2', inertia: null as Float64Array | null }];
  if (j3) {
    joints.push({ name: 'j3', type: 'revolute', parent: 'b2', child: 'b3', origin: at(0, 0, 0), axis: [0, 1, 0], ...j3 });
    links.push({ name: 'b3', inertia: b3Mass ? heavy() : null });
  }
  return { name: 'm', links, joints };
}

/** λ_min(M) / λ_max(M) at a configuration (dense, independent of the articulated-inertia code). */
function relMinEig(model: Model, q: ArrayLike<number>): number {
  const M = crba(model, new CrbaWorkspace(model), q);
  const n = model.nv;
  const rows = Array.from({ length: n }, (_, r) => Array.from(M.subarray(r * n, r * n + n)));
  const e = new EigenvalueDecomposition(new Matrix(rows), { assumeSymmetric: true }).realEigenvalues;
  return Math.min(...e) / Math.max(...e);
}

const cases: [string, ModelSpec, string[]][] = [
  ['a massless leaf', spec3({}, null, false), ['b2']],
  ['a massless body whose massive child turns about the same axis', spec3({}, { axis: [0, 1, 0] }, true), ['b2']],
  ['a massless body whose massive child turns about a perpendicular axis', spec3({}, { axis: [1, 0, 0] }, true), []],
  ['a massless body whose massive child turns about a parallel, offset axis', spec3({}, { axis: [0, 1, 0], origin: at(0.2, 0, 0) }, true), []],
  ['a massless body on a prismatic joint, its massive child turning about that direction', spec3({ type: 'prismatic', axis: [1, 0, 0] }, { axis: [1, 0, 0] }, true), []],
  ['two massless bodies in a row ending in nothing', spec3({}, { axis: [1, 0, 0] }, false), ['b2', 'b3']],
];

describe('singular articulated inertias are found at load', () => {
  for (const [name, spec, expected] of cases) {
    it(`${name}: ${expected.length ? expected.join(', ') : 'none'}`, () => {
      for (const floatingBase of [false, true]) {
        const model = buildModel(spec, { floatingBase });
        expect(Array.from(model.singularBodies, (i) => model.bodyNames[i])).toEqual(expected);
        const w = model.warnings.filter((x) => x.code === 'singular-articulated-inertia');
        expect(w.length).toBe(expected.length ? 1 : 0);
        if (expected.length) for (const b of expected) expect(w[0].message).toContain(`"${b}"`);
        // independent verdict: M singular ⟺ some body singular
        const rng = new Rng(5);
        for (let t = 0; t < 3; t++) {
          const q = randomConfiguration(model, rng);
          const r = relMinEig(model, q);
          if (expected.length) expect(r).toBeLessThan(1e-12); else expect(r).toBeGreaterThan(1e-6);
          expect(singularBodiesAt(model, q).map((i) => model.bodyNames[i])).toEqual(expected);
        }
      }
    });
  }

  it('a massless floating base with nothing below is singular; the fixed-base root is never judged', () => {
    const spec: ModelSpec = { name: 'plane', links: [{ name: 'plane', inertia: null }], joints: [] };
    expect(buildModel(spec).singularBodies.length).toBe(0);
    const m = buildModel(spec, { floatingBase: true });
    expect(Array.from(m.singularBodies)).toEqual([0]);
    expect(m.warnings[0].message).toMatch(/moving body "plane" \(joint "root_joint"\) is singular/);
  });

  it('a light but real body (a 1e-6 kg placeholder) with a child about the same axis is not singular: values are data', () => {
    const tiny = inertiaFromPrincipal(1e-6, [0.01, 0, 0], 1e-12, 1e-12, 1e-12);
    const spec = spec3({}, { axis: [0, 1, 0] }, true);
    spec.links[2].inertia = tiny;
    expect(buildModel(spec).singularBodies.length).toBe(0);
  });
});
