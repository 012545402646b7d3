/**
 * Model generators for studies and tests: a serial chain, a seeded random tree with a mix of joint
 * types, and a floating-base humanoid. Each has a `…Spec` form (a ModelSpec) and a Model form.
 * Source: RBDA §4.1 (kinematic trees), §2.13 (rigid-body inertia: a valid rotational inertia is
 * positive definite and its principal moments satisfy the triangle inequality).
 */
import { xFromRotTrans } from '../spatial/transform.ts';
import { mat3Mul, mat3Transpose, rotFromQuat } from '../spatial/vec3.ts';
import { inertiaFromMassComInertia } from '../spatial/inertia.ts';
import { buildModel, type BuildOptions, type JointSpec, type LinkSpec, type ModelSpec } from './build.ts';
import type { JointType } from './joint.ts';
import type { Model } from './model.ts';
import { Rng } from './rng.ts';

/** Options shared by the model generators: gravity and the build options. */
export interface GeneratorOptions extends BuildOptions {
  /** gravity in world coordinates (default (0, 0, −9.81)) */
  gravity?: ArrayLike<number>;
}

// ─── inertia and placement helpers ──────────────────────────────────────────────────────────

/**
 * Rigid inertia (10 numbers, about the link origin) of mass m with centre of mass c and principal
 * moments (j1, j2, j3) about principal axes given by the columns of R (link axes; identity if omitted).
 */
export function inertiaFromPrincipal(m: number, c: ArrayLike<number>, j1: number, j2: number, j3: number, R?: Float64Array): Float64Array {
  if (!(m > 0)) throw new RangeError(`mass must be positive, got ${m}`);
  const D = Float64Array.of(j1, 0, 0, 0, j2, 0, 0, 0, j3);
  let Ic: Float64Array = D;
  if (R) {
    // I_c = R D Rᵀ
    Ic = mat3Mul(new Float64Array(9), mat3Mul(new Float64Array(9), R, D), mat3Transpose(new Float64Array(9), R));
  }
  return inertiaFromMassComInertia(new Float64Array(10), m, c, Ic[0], Ic[1], Ic[2], Ic[4], Ic[5], Ic[8]);
}

/** Solid box of mass m and side lengths (sx, sy, sz) along the link axes, centred at c. */
export function boxInertia(m: number, sx: number, sy: number, sz: number, c: ArrayLike<number> = [0, 0, 0]): Float64Array {
  return inertiaFromPrincipal(m, c, (m * (sy * sy + sz * sz)) / 12, (m * (sx * sx + sz * sz)) / 12, (m * (sx * sx + sy * sy)) / 12);
}

/** Solid cylinder of mass m, radius r, length L along the unit direction d, centred at c. */
export function cylinderInertia(m: number, r: number, L: number, d: ArrayLike<number>, c: ArrayLike<number>): Float64Array {
  const axial = (m * r * r) / 2;
  const perp = (m * (3 * r * r + L * L)) / 12;
  // I_c = perp (1 − d dᵀ) + axial d dᵀ
  const k = axial - perp;
  const I = (a: number, b: number) => (a === b ? perp : 0) + k * d[a] * d[b];
  return inertiaFromMassComInertia(new Float64Array(10), m, c, I(0, 0), I(0, 1), I(0, 2), I(1, 1), I(1, 2), I(2, 2));
}

/** Placement ᶜX_p of a child frame rotated by R (child → parent coordinates) and offset by p. */
function placement(R: Float64Array | null, p: ArrayLike<number>): Float64Array {
  const E = R ? mat3Transpose(new Float64Array(9), R) : Float64Array.of(1, 0, 0, 0, 1, 0, 0, 0, 1);
  return xFromRotTrans(new Float64Array(12), E, p);
}

const AXES: readonly (readonly number[])[] = [[1, 0, 0], [0, 1, 0], [0, 0, 1]];

/** A unit vector perpendicular to the unit vector a (cross with the frame axis least aligned). */
function perpendicular(a: ArrayLike<number>): number[] {
  const ax = Math.abs(a[0]), ay = Math.abs(a[1]), az = Math.abs(a[2]);
  const e = ax <= ay && ax <= az ? AXES[0] : ay <= az ? AXES[1] : AXES[2];
  const p = [e[1] * a[2] - e[2] * a[1], e[2] * a[0] - e[0] * a[2], e[0] * a[1] - e[1] * a[0]];
  const n = Math.hypot(p[0], p[1], p[2]);
  return [p[0] / n, p[1] / n, p[2] / n];
}

function build(spec: ModelSpec, opts: GeneratorOptions): Model {
  return buildModel(opts.gravity ? { ...spec, gravity: opts.gravity } : spec, opts);
}

// ─── serial chain ───────────────────────────────────────────────────────────────────────────

/** Joint axes of a chain: cycled x, y, z (default), all about one frame axis, or random unit axes. */
export type ChainAxes = 'cycle' | 'x' | 'y' | 'z' | 'random';

/** Options of `chain`: joint axes and type, link length, mass and radius. */
export interface ChainOptions extends GeneratorOptions {
  axes?: ChainAxes;
  /** seed for `axes: 'random'` (default 1) */
  seed?: number;
  /** link length in m (default 0.3) */
  length?: number;
  /** link mass in kg (default 1) */
  mass?: number;
  /** link radius in m (default 0.04) */
  radius?: number;
  /** joint type (default revolute) */
  jointType?: 'revolute' | 'prismatic';
}

/**
 * Serial chain: links `base`, `link1` … `linkN`, joints `joint1` … `jointN` (joint k moves linkk).
 * Each link is a solid cylinder of the given length, radius and mass, pointing along a direction
 * perpendicular to its joint axis (z for an x or y axis, x for a z axis); the next joint sits at
 * its tip. The base is a box of twice the link mass (it matters only with a floating base).
 */
export function chainSpec(n: number, opts: ChainOptions = {}): ModelSpec {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`chain: n must be a positive integer, got ${n}`);
  const axes = opts.axes ?? 'cycle';
  const L = opts.length ?? 0.3, m = opts.mass ?? 1, r = opts.radius ?? 0.04;
  if (!(L > 0) || !(m > 0) || !(r > 0)) throw new RangeError(`chain: length, mass and radius must be positive (got ${L}, ${m}, ${r})`);
  const rng = new Rng(opts.seed ?? 1);
  const links: LinkSpec[] = [{ name: 'base', inertia: boxInertia(2 * m, 0.2, 0.2, 0.1) }];
  const joints: JointSpec[] = [];
  let tip = [0, 0, 0];
  for (let k = 1; k <= n; k++) {
    let a: number[];
    switch (axes) {
      case 'cycle': a = [...AXES[(k - 1) % 3]]; break;
      case 'x': a = [...AXES[0]]; break;
      case 'y': a = [...AXES[1]]; break;
      case 'z': a = [...AXES[2]]; break;
      case 'random': a = Array.from(rng.unitVector()); break;
      default: throw new RangeError(`chain: unknown axes "${axes as string}" (expected cycle, x, y, z or random)`);
    }
    const d = a[2] === 1 ? [1, 0, 0] : a[0] === 1 || a[1] === 1 ? [0, 0, 1] : perpendicular(a);
    joints.push({ name: `joint${k}`, type: opts.jointType ?? 'revolute', parent: k === 1 ? 'base' : `link${k - 1}`, child: `link${k}`, origin: placement(null, tip), axis: a });
    links.push({ name: `link${k}`, inertia: cylinderInertia(m, r, L, d, [(L / 2) * d[0], (L / 2) * d[1], (L / 2) * d[2]]) });
    tip = [L * d[0], L * d[1], L * d[2]];
  }
  const name = `chain:${n}${axes === 'cycle' ? '' : `:axes=${axes}`}${axes === 'random' ? `:seed=${opts.seed ?? 1}` : ''}`;
  return { name, links, joints };
}

/** Serial chain of n links as a Model (see chainSpec). */
export function chain(n: number, opts: ChainOptions = {}): Model {
  return build(chainSpec(n, opts), opts);
}

// ─── random tree ────────────────────────────────────────────────────────────────────────────

/**
 * Joint kinds of a random tree: revolute about a frame axis (±x, ±y, ±z), revolute about a general
 * unit axis, prismatic (frame or general axis), helical (general axis, pitch ±[0.01, 0.1] m/rad),
 * spherical (3 DoF), planar (3 DoF, plane normal z or a general axis; weight 0 by default, so the
 * default trees are unchanged: ask for it with `mix: { planar: w }`).
 */
export type TreeJointKind = 'revolute' | 'revoluteGeneral' | 'prismatic' | 'helical' | 'spherical' | 'planar';

/** Relative weights of the joint kinds in a random tree. */
export const DEFAULT_TREE_MIX: Readonly<Record<TreeJointKind, number>> = {
  revolute: 4, revoluteGeneral: 2, prismatic: 2, helical: 1, spherical: 1, planar: 0,
};

/** Options of `randomTree`: joint kinds, branching and link sizes. */
export interface RandomTreeOptions extends GeneratorOptions {
  /** relative weights of the joint kinds (missing kinds take DEFAULT_TREE_MIX's weight; 0 excludes) */
  mix?: Partial<Record<TreeJointKind, number>>;
  /** probability that a body hangs from a uniformly chosen earlier body rather than the previous one (default 0.4) */
  branching?: number;
  /** extra massive links welded by fixed joints, as a fraction of n (default 0.1; at least one when > 0) */
  fixedFraction?: number;
}

/**
 * Random tree: links `base`, `b1` … `bn` with joints `j1` … `jn` (joint k moves bk, whose parent is
 * b(k−1) or, with probability `branching`, any earlier body or the base), plus extra links
 * `f1`, `f2`, … welded by fixed joints `fix1`, … to random bodies (they are merged into them).
 * With n ≥ the number of kinds of non-zero weight, every such kind appears at least once.
 * Placements: uniform random rotation and an offset in [−0.4, 0.4]³; inertias: mass in [0.2, 5] kg,
 * principal moments (b + c, a + c, a + b) from second moments a, b, c > 0 (so positive definite and
 * satisfying the triangle inequality), random principal axes, centre of mass in [−0.15, 0.15]³.
 * The Model has n bodies (n + 1 with a floating base).
 */
export function randomTreeSpec(n: number, seed: number, opts: RandomTreeOptions = {}): ModelSpec {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`randomTree: n must be a positive integer, got ${n}`);
  const rng = new Rng(seed);
  const kinds = Object.keys(DEFAULT_TREE_MIX) as TreeJointKind[];
  const weights = kinds.map((k) => {
    const w = opts.mix?.[k] ?? DEFAULT_TREE_MIX[k];
    if (!(w >= 0) || !Number.isFinite(w)) throw new RangeError(`randomTree: weight of ${k} must be a finite number ≥ 0, got ${w}`);
    return w;
  });
  const used = kinds.filter((_, i) => weights[i] > 0);
  if (used.length === 0) throw new RangeError('randomTree: every joint kind has weight 0');
  const branching = opts.branching ?? 0.4;
  if (!(branching >= 0 && branching <= 1)) throw new RangeError(`randomTree: branching must be in [0, 1], got ${branching}`);
  const fixedFraction = opts.fixedFraction ?? 0.1;
  if (!(fixedFraction >= 0)) throw new RangeError(`randomTree: fixedFraction must be ≥ 0, got ${fixedFraction}`);

  // joint kinds: one of each used kind when there is room, the rest by weight, then shuffled
  const plan: TreeJointKind[] = n >= used.length ? [...used] : [];
  while (plan.length < n) plan.push(kinds[rng.weighted(weights)]);
  rng.shuffle(plan);

  const links: LinkSpec[] = [{ name: 'base', inertia: randomInertia(rng, 2, 10) }];
  const joints: JointSpec[] = [];
  const R = new Float64Array(9), quat = new Float64Array(4);
  const randomPlacement = (): Float64Array => {
    rng.quaternion(quat);
    rotFromQuat(R, quat[0], quat[1], quat[2], quat[3]);
    return placement(R, [rng.uniform(-0.4, 0.4), rng.uniform(-0.4, 0.4), rng.uniform(-0.4, 0.4)]);
  };
  const frameAxis = (): number[] => {
    const a = [...AXES[rng.int(3)]];
    return rng.next() < 0.25 ? a.map((x) => -x) : a;
  };
  for (let k = 1; k <= n; k++) {
    const parentIndex = k === 1 ? 0 : rng.next() < branching ? rng.int(k) : k - 1;
    const parent = parentIndex === 0 ? 'base' : `b${parentIndex}`;
    const kind = plan[k - 1];
    const j: JointSpec = { name: `j${k}`, type: 'revolute', parent, child: `b${k}`, origin: randomPlacement() };
    switch (kind) {
      case 'revolute': j.axis = frameAxis(); break;
      case 'revoluteGeneral': j.axis = Array.from(rng.unitVector()); break;
      case 'prismatic': j.type = 'prismatic'; j.axis = rng.next() < 0.5 ? frameAxis() : Array.from(rng.unitVector()); break;
      case 'helical':
        j.type = 'helical';
        j.axis = Array.from(rng.unitVector());
        j.pitch = (rng.next() < 0.5 ? -1 : 1) * rng.uniform(0.01, 0.1);
        break;
      case 'spherical': j.type = 'spherical'; break;
      case 'planar': j.type = 'planar'; j.axis = rng.next() < 0.5 ? [0, 0, 1] : Array.from(rng.unitVector()); break;
    }
    joints.push(j);
    links.push({ name: `b${k}`, inertia: randomInertia(rng, 0.2, 5) });
  }
  const nFixed = fixedFraction > 0 ? Math.max(1, Math.round(fixedFraction * n)) : 0;
  for (let k = 1; k <= nFixed; k++) {
    const p = rng.int(n) + 1;
    joints.push({ name: `fix${k}`, type: 'fixed', parent: `b${p}`, child: `f${k}`, origin: randomPlacement() });
    links.push({ name: `f${k}`, inertia: randomInertia(rng, 0.1, 1) });
  }
  return { name: `tree:${n}:${seed}`, links, joints };
}

/** Random tree of n bodies as a Model (see randomTreeSpec). */
export function randomTree(n: number, seed: number, opts: RandomTreeOptions = {}): Model {
  return build(randomTreeSpec(n, seed, opts), opts);
}

/** A physically valid random rigid inertia: mass in [mMin, mMax], see randomTreeSpec. */
export function randomInertia(rng: Rng, mMin: number, mMax: number): Float64Array {
  const m = rng.uniform(mMin, mMax);
  // second moments a = m⟨x²⟩ etc. about the principal axes (radii of gyration 0.02 … 0.2 m)
  const a = m * rng.uniform(0.02, 0.2) ** 2, b = m * rng.uniform(0.02, 0.2) ** 2, c = m * rng.uniform(0.02, 0.2) ** 2;
  const q = rng.quaternion();
  const R = rotFromQuat(new Float64Array(9), q[0], q[1], q[2], q[3]);
  const com = [rng.uniform(-0.15, 0.15), rng.uniform(-0.15, 0.15), rng.uniform(-0.15, 0.15)];
  return inertiaFromPrincipal(m, com, b + c, a + c, a + b, R);
}

// ─── humanoid ───────────────────────────────────────────────────────────────────────────────

/** Options of `humanoid`. */
export interface HumanoidOptions extends GeneratorOptions {
  /** 6-DoF floating pelvis (default true; false welds the pelvis to the world) */
  floatingBase?: boolean;
}

/**
 * A humanoid-like tree (z up, x forward, y left), about 1.6 m and 67 kg: pelvis (root), torso
 * (torso_yaw), head (neck_yaw, neck_pitch), per leg hip_yaw, hip_roll, hip_pitch, knee,
 * ankle_pitch, ankle_roll (6), per arm shoulder_pitch, shoulder_roll, shoulder_yaw, elbow,
 * wrist_yaw, wrist_pitch, wrist_roll (7): 29 joints, prefixed `l_`/`r_` on the limbs. Massless
 * frames `l_sole`, `r_sole`, `l_hand`, `r_hand` hang from the feet and hands by fixed joints.
 */
export function humanoidSpec(): ModelSpec {
  const links: LinkSpec[] = [];
  const joints: JointSpec[] = [];
  const link = (name: string, inertia: Float64Array | null) => links.push({ name, inertia });
  const joint = (name: string, type: JointType, parent: string, child: string, p: number[], axis?: number[]) =>
    joints.push({ name, type, parent, child, origin: placement(null, p), axis });
  const X = [1, 0, 0], Y = [0, 1, 0], Z = [0, 0, 1];

  link('pelvis', boxInertia(8, 0.15, 0.25, 0.12));
  joint('torso_yaw', 'revolute', 'pelvis', 'torso', [0, 0, 0.1], Z);
  link('torso', boxInertia(18, 0.2, 0.3, 0.4, [0, 0, 0.2]));
  joint('neck_yaw', 'revolute', 'torso', 'neck', [0, 0, 0.45], Z);
  link('neck', cylinderInertia(0.5, 0.04, 0.05, Z, [0, 0, 0.025]));
  joint('neck_pitch', 'revolute', 'neck', 'head', [0, 0, 0.05], Y);
  link('head', inertiaFromPrincipal(4, [0.01, 0, 0.1], 0.016, 0.016, 0.016));
  for (const [s, sy] of [['l', 1], ['r', -1]] as const) {
    // leg: three hip axes meet at one point, then thigh (0.4 m), shank (0.4 m), two ankle axes
    joint(`${s}_hip_yaw`, 'revolute', 'pelvis', `${s}_hip1`, [0, sy * 0.09, -0.05], Z);
    link(`${s}_hip1`, boxInertia(1, 0.08, 0.08, 0.08));
    joint(`${s}_hip_roll`, 'revolute', `${s}_hip1`, `${s}_hip2`, [0, 0, 0], X);
    link(`${s}_hip2`, boxInertia(1, 0.08, 0.08, 0.08));
    joint(`${s}_hip_pitch`, 'revolute', `${s}_hip2`, `${s}_thigh`, [0, 0, 0], Y);
    link(`${s}_thigh`, cylinderInertia(6, 0.06, 0.4, Z, [0, 0, -0.2]));
    joint(`${s}_knee`, 'revolute', `${s}_thigh`, `${s}_shank`, [0, 0, -0.4], Y);
    link(`${s}_shank`, cylinderInertia(3.5, 0.05, 0.4, Z, [0, 0, -0.2]));
    joint(`${s}_ankle_pitch`, 'revolute', `${s}_shank`, `${s}_ankle`, [0, 0, -0.4], Y);
    link(`${s}_ankle`, boxInertia(0.5, 0.05, 0.05, 0.05));
    joint(`${s}_ankle_roll`, 'revolute', `${s}_ankle`, `${s}_foot`, [0, 0, 0], X);
    link(`${s}_foot`, boxInertia(1.2, 0.22, 0.1, 0.05, [0.03, 0, -0.05]));
    joint(`${s}_sole_joint`, 'fixed', `${s}_foot`, `${s}_sole`, [0.03, 0, -0.075]);
    link(`${s}_sole`, null);
    // arm: shoulder at the top of the torso, upper arm 0.28 m, forearm 0.25 m, spherical-like wrist
    joint(`${s}_shoulder_pitch`, 'revolute', 'torso', `${s}_shoulder1`, [0, sy * 0.2, 0.35], Y);
    link(`${s}_shoulder1`, boxInertia(0.5, 0.06, 0.06, 0.06));
    joint(`${s}_shoulder_roll`, 'revolute', `${s}_shoulder1`, `${s}_shoulder2`, [0, 0, 0], X);
    link(`${s}_shoulder2`, boxInertia(0.5, 0.06, 0.06, 0.06));
    joint(`${s}_shoulder_yaw`, 'revolute', `${s}_shoulder2`, `${s}_upper_arm`, [0, 0, 0], Z);
    link(`${s}_upper_arm`, cylinderInertia(2, 0.04, 0.28, Z, [0, 0, -0.14]));
    joint(`${s}_elbow`, 'revolute', `${s}_upper_arm`, `${s}_forearm`, [0, 0, -0.28], Y);
    link(`${s}_forearm`, cylinderInertia(1.2, 0.035, 0.25, Z, [0, 0, -0.125]));
    joint(`${s}_wrist_yaw`, 'revolute', `${s}_forearm`, `${s}_wrist1`, [0, 0, -0.25], Z);
    link(`${s}_wrist1`, boxInertia(0.3, 0.04, 0.04, 0.04));
    joint(`${s}_wrist_pitch`, 'revolute', `${s}_wrist1`, `${s}_wrist2`, [0, 0, 0], Y);
    link(`${s}_wrist2`, boxInertia(0.2, 0.04, 0.04, 0.04));
    joint(`${s}_wrist_roll`, 'revolute', `${s}_wrist2`, `${s}_palm`, [0, 0, 0], X);
    link(`${s}_palm`, boxInertia(0.4, 0.04, 0.08, 0.12, [0, 0, -0.06]));
    joint(`${s}_hand_joint`, 'fixed', `${s}_palm`, `${s}_hand`, [0, 0, -0.1]);
    link(`${s}_hand`, null);
  }
  return { name: 'humanoid', links, joints };
}

/** The humanoid as a Model, with a floating pelvis unless `floatingBase: false`. */
export function humanoid(opts: HumanoidOptions = {}): Model {
  return build(humanoidSpec(), { ...opts, floatingBase: opts.floatingBase ?? true });
}
