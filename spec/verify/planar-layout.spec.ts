/**
 * Reference files (Pinocchio's layouts) for models with a planar joint: JointModelPlanar stores
 * q as (x, y, cos θ, sin θ) and v as (vx, vy, ω); the model stores (x, y, θ).
 */
import { describe, expect, it } from 'vitest';
import { buildModel } from '../../src/model/build.ts';
import { inertiaFromPrincipal } from '../../src/model/generators.ts';
import { xCreate } from '../../src/spatial/transform.ts';
import { configurationFromReference, fromReference, referenceLayout, type ReferenceFile } from '../../src/verify/reference.ts';

describe('reference layout of a planar joint', () => {
  const I = inertiaFromPrincipal(2, [0.1, 0, 0], 0.1, 0.1, 0.1);
  const model = buildModel({
    name: 'mobile',
    links: [{ name: 'world', inertia: null }, { name: 'base', inertia: I }, { name: 'arm', inertia: I }],
    joints: [
      { name: 'floor', type: 'planar', parent: 'world', child: 'base', origin: xCreate() },
      { name: 'shoulder', type: 'revolute', parent: 'base', child: 'arm', origin: xCreate(), axis: [0, 1, 0] },
    ],
  });
  const ref = {
    model_file: 'mobile.urdf', base: 'fixed', gravity: [0, 0, -9.81], nq: 5, nv: 4,
    joints: [
      { name: 'floor', type: 'JointModelPlanar', idx_q: 0, nq: 4, idx_v: 0, nv: 3 },
      { name: 'shoulder', type: 'JointModelRY', idx_q: 4, nq: 1, idx_v: 3, nv: 1 },
    ],
    cases: [],
  } as unknown as ReferenceFile;

  it('maps (x, y, cos θ, sin θ) to (x, y, θ) and the velocities one to one', () => {
    const layout = referenceLayout(model, ref);
    const th = 2.5;
    const q = configurationFromReference(new Float64Array(4), [0.3, -0.4, Math.cos(th), Math.sin(th), 0.7], layout);
    expect(q[0]).toBe(0.3);
    expect(q[1]).toBe(-0.4);
    expect(q[2]).toBeCloseTo(th, 15);
    expect(q[3]).toBe(0.7);
    expect(Array.from(fromReference(new Float64Array(4), [1, 2, 3, 4], layout.vToRef))).toEqual([1, 2, 3, 4]);
  });

  it('a reference whose sizes do not match says so', () => {
    expect(() => referenceLayout(model, { ...ref, nq: 6 })).toThrow(/nq = 6/);
  });
});
