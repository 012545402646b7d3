/**
 * Generators, the seeded RNG and model SPEC strings: determinism per seed, parents[i] < i, the
 * requested joint-type mix, physically valid inertias (RBDA §2.13: positive mass, positive-definite
 * rotational inertia about the centre of mass whose principal moments satisfy the triangle inequality).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chain, chainSpec, humanoid, randomInertia, randomTree, randomTreeSpec } from '../../src/model/generators.ts';
import type { Model } from '../../src/model/model.ts';
import { Rng } from '../../src/model/rng.ts';
import { ModelSpecError } from '../../src/model/spec.ts';
import { parseModelSpec } from '../../src/node/spec.ts';
import { UrdfError } from '../../src/model/urdf.ts';

/** Eigenvalues (ascending) of the symmetric 3×3 [xx xy xz; xy yy yz; xz yz zz] (trigonometric method). */
function sym3Eigenvalues(xx: number, xy: number, xz: number, yy: number, yz: number, zz: number): number[] {
  const p1 = xy * xy + xz * xz + yz * yz;
  const q = (xx + yy + zz) / 3;
  const p2 = (xx - q) ** 2 + (yy - q) ** 2 + (zz - q) ** 2 + 2 * p1;
  const p = Math.sqrt(p2 / 6);
  if (p === 0) return [q, q, q];
  const b = [(xx - q) / p, xy / p, xz / p, (yy - q) / p, yz / p, (zz - q) / p];
  const detB = b[0] * (b[3] * b[5] - b[4] * b[4]) - b[1] * (b[1] * b[5] - b[4] * b[2]) + b[2] * (b[1] * b[4] - b[3] * b[2]);
  const phi = Math.acos(Math.min(1, Math.max(-1, detB / 2))) / 3;
  const e1 = q + 2 * p * Math.cos(phi);
  const e3 = q + 2 * p * Math.cos(phi + (2 * Math.PI) / 3);
  return [e3, 3 * q - e1 - e3, e1].sort((a, c) => a - c);
}

/** Check a rigid inertia [m, h, Ī] (about the frame origin) is physically valid; returns the principal moments. */
function expectValidInertia(I: ArrayLike<number>): number[] {
  const m = I[0];
  expect(m).toBeGreaterThan(0);
  const cx = I[1] / m, cy = I[2] / m, cz = I[3] / m;
  // I_c = Ī − m (cᵀc 1 − c cᵀ)
  const xx = I[4] - m * (cy * cy + cz * cz), yy = I[7] - m * (cx * cx + cz * cz), zz = I[9] - m * (cx * cx + cy * cy);
  const xy = I[5] + m * cx * cy, xz = I[6] + m * cx * cz, yz = I[8] + m * cy * cz;
  const ev = sym3Eigenvalues(xx, xy, xz, yy, yz, zz);
  expect(ev[0]).toBeGreaterThan(0);
  expect(ev[0] + ev[1]).toBeGreaterThanOrEqual(ev[2] * (1 - 1e-12));
  return ev;
}

function expectTopological(m: Model): void {
  for (let i = 0; i < m.nb; i++) expect(m.parents[i]).toBeLessThan(i);
}

function sameModel(a: Model, b: Model): void {
  expect(a.jointTypes).toEqual(b.jointTypes);
  expect(Array.from(a.parents)).toEqual(Array.from(b.parents));
  expect(Array.from(a.axis)).toEqual(Array.from(b.axis));
  expect(Array.from(a.pitch)).toEqual(Array.from(b.pitch));
  for (let i = 0; i < a.nb; i++) {
    expect(Array.from(a.Xtree[i])).toEqual(Array.from(b.Xtree[i]));
    expect(Array.from(a.I[i])).toEqual(Array.from(b.I[i]));
  }
}

describe('Rng', () => {
  it('is deterministic per seed and differs across seeds', () => {
    const a = new Rng(42), b = new Rng(42), c = new Rng(43);
    const xa = Array.from({ length: 50 }, () => a.next());
    const xb = Array.from({ length: 50 }, () => b.next());
    const xc = Array.from({ length: 50 }, () => c.next());
    expect(xa).toEqual(xb);
    expect(xa).not.toEqual(xc);
    for (const x of xa) expect(x >= 0 && x < 1).toBe(true);
  });

  it('has sane moments, integers in range, unit vectors and quaternions, permutations', () => {
    const r = new Rng(7);
    let s = 0, s2 = 0;
    const N = 20000;
    for (let k = 0; k < N; k++) { const z = r.normal(); s += z; s2 += z * z; }
    expect(Math.abs(s / N)).toBeLessThan(0.05);
    expect(Math.abs(s2 / N - 1)).toBeLessThan(0.05);
    const counts = [0, 0, 0];
    for (let k = 0; k < 3000; k++) counts[r.int(3)]++;
    for (const c of counts) expect(c).toBeGreaterThan(850);
    const u = r.unitVector();
    expect(Math.hypot(u[0], u[1], u[2])).toBeCloseTo(1, 14);
    const q = r.quaternion();
    expect(Math.hypot(q[0], q[1], q[2], q[3])).toBeCloseTo(1, 14);
    const perm = r.shuffle(Array.from({ length: 20 }, (_, k) => k));
    expect([...perm].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, k) => k));
    expect(() => r.int(0)).toThrow(RangeError);
    expect(() => new Rng(NaN)).toThrow(/finite/);
    expect(r.weighted([0, 0, 1])).toBe(2);
  });
});

describe('chain', () => {
  it('n links, parents[i] = i − 1, axes cycled x, y, z, total mass n m', () => {
    const m = chain(7, { mass: 2 });
    expect(m.nb).toBe(7);
    expect(m.nq).toBe(7);
    expect(Array.from(m.parents)).toEqual([-1, 0, 1, 2, 3, 4, 5]);
    expect(Array.from(m.axisKind)).toEqual([0, 1, 2, 0, 1, 2, 0]);
    expect(m.totalMass()).toBeCloseTo(14, 12);
    expect(m.jointNames[0]).toBe('joint1');
    for (const I of m.I) expectValidInertia(I);
  });

  it('all-z axes, floating base, link length places the next joint at the tip', () => {
    const m = chain(4, { axes: 'z', length: 0.5, floatingBase: true });
    expect(m.nb).toBe(5);
    expect(m.floatingBase).toBe(true);
    expect(m.nq).toBe(11);
    expect(m.nv).toBe(10);
    expect(Array.from(m.axisKind.subarray(1))).toEqual([2, 2, 2, 2]);
    expect(Array.from(m.Xtree[2].subarray(9))).toEqual([0.5, 0, 0]);
    expectTopological(m);
  });

  it('random axes: deterministic per seed, unit, different seeds differ', () => {
    const a = chain(6, { axes: 'random', seed: 3 }), b = chain(6, { axes: 'random', seed: 3 }), c = chain(6, { axes: 'random', seed: 4 });
    sameModel(a, b);
    expect(Array.from(a.axis)).not.toEqual(Array.from(c.axis));
    for (let i = 0; i < 6; i++) expect(Math.hypot(a.axis[3 * i], a.axis[3 * i + 1], a.axis[3 * i + 2])).toBeCloseTo(1, 14);
    for (const I of a.I) expectValidInertia(I);
    expect(a.name).toBe('chain:6:axes=random:seed=3');
  });

  it('prismatic joints and bad sizes', () => {
    expect(chain(3, { jointType: 'prismatic' }).jointTypes).toEqual(['prismatic', 'prismatic', 'prismatic']);
    expect(() => chainSpec(0)).toThrow(/positive integer/);
    expect(() => chainSpec(3, { length: -1 })).toThrow(/positive/);
  });
});

describe('randomTree', () => {
  it('is deterministic per seed; different seeds give different trees', () => {
    sameModel(randomTree(40, 11), randomTree(40, 11));
    sameModel(randomTree(30, 5, { floatingBase: true }), randomTree(30, 5, { floatingBase: true }));
    expect(Array.from(randomTree(40, 11).parents)).not.toEqual(Array.from(randomTree(40, 12).parents));
  });

  it('n bodies (n + 1 floating), parents[i] < i, branching (not a chain)', () => {
    for (const seed of [1, 2, 3]) {
      const m = randomTree(50, seed);
      expect(m.nb).toBe(50);
      expectTopological(m);
      const f = randomTree(50, seed, { floatingBase: true });
      expect(f.nb).toBe(51);
      expect(f.floatingBase).toBe(true);
      expectTopological(f);
      const branchPoints = m.children.filter((c) => c.length > 1).length;
      expect(branchPoints).toBeGreaterThan(2);
    }
    expect(Array.from(randomTree(20, 1, { branching: 0 }).parents)).toEqual(Array.from({ length: 20 }, (_, i) => i - 1));
  });

  it('the mix of joint types appears: frame-axis and general revolute, prismatic, helical, spherical, fixed', () => {
    for (const seed of [1, 2, 3, 4]) {
      const m = randomTree(10, seed);
      const kinds = new Set<string>();
      for (let i = 0; i < m.nb; i++) {
        const t = m.jointTypes[i];
        kinds.add(t === 'revolute' ? (m.axisKind[i] < 3 ? 'revolute-frame' : 'revolute-general') : t);
        if (t === 'helical') expect(Math.abs(m.pitch[i])).toBeGreaterThanOrEqual(0.01);
      }
      expect([...kinds].sort()).toEqual(['helical', 'prismatic', 'revolute-frame', 'revolute-general', 'spherical']);
      const spec = randomTreeSpec(10, seed);
      const fixed = spec.joints.filter((j) => j.type === 'fixed');
      expect(fixed.length).toBe(1);
      // the welded link survives as a frame of its body
      expect(m.hasFrame(fixed[0].child)).toBe(true);
    }
    const onlyPrismatic = randomTree(12, 9, { mix: { revolute: 0, revoluteGeneral: 0, helical: 0, spherical: 0 } });
    expect(new Set(onlyPrismatic.jointTypes)).toEqual(new Set(['prismatic']));
    expect(() => randomTreeSpec(5, 1, { mix: { revolute: 0, revoluteGeneral: 0, prismatic: 0, helical: 0, spherical: 0 } })).toThrow(/weight 0/);
  });

  it('every link and every (lumped) body inertia is physically valid; the mass adds up', () => {
    const spec = randomTreeSpec(60, 21);
    for (const l of spec.links) expectValidInertia(l.inertia!);
    const m = randomTree(60, 21, { floatingBase: true });
    for (const I of m.I) expectValidInertia(I);
    const specMass = spec.links.reduce((s, l) => s + l.inertia![0], 0);
    expect(m.totalMass()).toBeCloseTo(specMass, 10);
    const r = new Rng(3);
    for (let k = 0; k < 200; k++) expectValidInertia(randomInertia(r, 0.1, 10));
  });
});

describe('humanoid', () => {
  it('floating pelvis, torso, head, 2 × 6 leg and 2 × 7 arm joints, plausible mass', () => {
    const m = humanoid();
    expect(m.floatingBase).toBe(true);
    expect(m.nb).toBe(30);
    expect(m.nv).toBe(35);
    expect(m.nq).toBe(36);
    expect(m.totalMass()).toBeCloseTo(67.1, 10);
    expect(m.bodyNames[0]).toBe('pelvis');
    for (const s of ['l', 'r']) {
      for (const j of ['hip_yaw', 'hip_roll', 'hip_pitch', 'knee', 'ankle_pitch', 'ankle_roll', 'shoulder_pitch', 'shoulder_roll',
        'shoulder_yaw', 'elbow', 'wrist_yaw', 'wrist_pitch', 'wrist_roll']) expect(m.hasJoint(`${s}_${j}`)).toBe(true);
      expect(m.frame(`${s}_sole`).body).toBe(m.body(`${s}_foot`));
    }
    expectTopological(m);
    for (const I of m.I) expectValidInertia(I);
    const fixed = humanoid({ floatingBase: false });
    expect(fixed.nv).toBe(29);
  });
});

describe('parseModelSpec', () => {
  it('generators, files and base suffixes', () => {
    expect(parseModelSpec('chain:6').nv).toBe(6);
    const z = parseModelSpec('chain:6:axes=z:length=0.2+floating');
    expect([z.nv, z.floatingBase, z.name]).toEqual([12, true, 'chain:6:axes=z']);
    expect(Array.from(z.Xtree[2].subarray(9))).toEqual([0.2, 0, 0]);
    sameModel(parseModelSpec('tree:30:4'), randomTree(30, 4));
    expect(parseModelSpec('tree:30:4+floating').nb).toBe(31);
    expect(parseModelSpec('humanoid').floatingBase).toBe(true);
    expect(parseModelSpec('humanoid+fixed').floatingBase).toBe(false);
    const file = join(import.meta.dirname, '../../models/humanoid.urdf');
    expect(parseModelSpec(file).nv).toBe(29);
    expect(parseModelSpec(`${file}+floating`).nv).toBe(35);
  });

  it('bad specs raise ModelSpecError quoting the spec; bad files raise UrdfError', () => {
    const bad = ['chain:0', 'chain:x', 'chain:4:axes=w', 'chain:4:bogus=1', 'chain:4:mass=-1', 'tree:5', 'tree:5:x', 'humanoid:3', 'robot', ''];
    for (const s of bad) {
      expect(() => parseModelSpec(s), s).toThrow(ModelSpecError);
      try { parseModelSpec(s); } catch (e) { expect((e as Error).message).toContain(`"${s}"`); }
    }
    expect(() => parseModelSpec('/nonexistent/x.urdf')).toThrow(UrdfError);
  });
});
