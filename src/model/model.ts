/**
 * The immutable kinematic-tree model (Pinocchio's `Model`, RBDA §4.1.2 "model data structure").
 *
 * Bodies are numbered 0..nb−1 in a topological order, `parents[i] < i`, with −1 for the fixed
 * world (the paper's body 0). Body i is the child link of joint i; its frame is the joint frame
 * (= the URDF child link frame). `Xtree[i]` = ⁱX_λ(i) at q = 0 (joint placement in the parent
 * body frame), `I[i]` the rigid inertia of body i (fixed-joint children lumped in) about its
 * origin, `S[i]` the joint's motion subspace (6×nv_i, column-major) in body i coordinates.
 */
import type { JointType } from './joint.ts';
import type { ModelWarning } from './warnings.ts';

/** A named frame rigidly attached to a body (every URDF link has one). */
export interface Frame {
  readonly name: string;
  /** body the frame is attached to (−1 = world) */
  readonly body: number;
  /** ᶠX_body: placement of the frame in the body frame (rotation + translation, 12 numbers) */
  readonly X: Float64Array;
}

/**
 * What a robot file states about a joint's motion (URDF `<limit>`, in the joint's units: rad or m,
 * N·m or N); the dynamics never read it, the plausibility checks of estimation do.
 */
export interface JointLimits {
  /** position limits; absent for a continuous joint */
  readonly lower?: number;
  readonly upper?: number;
  /** largest |τ| the joint can exert */
  readonly effort?: number;
  /** largest |q̇| */
  readonly velocity?: number;
}

/** The fields a Model is built from (what `buildModel` assembles). */
export interface ModelData {
  name: string;
  bodyNames: string[];
  jointNames: string[];
  jointTypes: JointType[];
  parents: Int32Array;
  axis: Float64Array;
  pitch: Float64Array;
  Xtree: Float64Array[];
  I: Float64Array[];
  gravity: Float64Array;
  frames: Frame[];
  warnings?: readonly ModelWarning[];
  /** bodies whose articulated inertia is singular along their joint (articulated-check.ts) */
  singularBodies?: Int32Array;
  /** per joint (body) i, its limits as the robot file states them */
  limits?: (JointLimits | undefined)[];
}

/**
 * The immutable kinematic tree (Pinocchio's `Model`): bodies numbered with parents[i] < i, joint
 * placements Xtree, rigid inertias I, motion subspaces S, the sizes nq and nv, gravity and every
 * named frame. Built by `modelFromUrdf`, `buildModel` or a generator; never changed afterwards.
 */
export class Model {
  /** model name (URDF robot name or generator spec) */
  readonly name: string;
  /** N_B: number of moving bodies (world excluded) */
  readonly nb: number;
  /** λ(i): parent body of body i, −1 for the world; parents[i] < i */
  readonly parents: Int32Array;
  /** μ(i): children of body i, in increasing order */
  readonly children: Int32Array[];
  /** children of the world */
  readonly rootBodies: Int32Array;
  readonly bodyNames: readonly string[];
  readonly jointNames: readonly string[];
  readonly jointTypes: readonly JointType[];
  /** integer joint type codes (JT_* in joint.ts) for the hot loops */
  readonly jtype: Int8Array;
  /** unit joint axis of body i's joint in its frame (3 per body; zeros for floating/spherical/fixed) */
  readonly axis: Float64Array;
  /** 0/1/2: revolute or prismatic joint about ±x/±y/±z; 3: general axis or another type */
  readonly axisKind: Int8Array;
  /** helical pitch (m/rad), 0 otherwise */
  readonly pitch: Float64Array;
  /** ⁱX_λ(i) at q = 0 */
  readonly Xtree: readonly Float64Array[];
  /** rigid inertia of body i about its origin, 10 numbers (spatial/inertia.ts layout) */
  readonly I: readonly Float64Array[];
  /** motion subspace S_i, 6×nv_i column-major */
  readonly S: readonly Float64Array[];
  /** index of joint i's first coordinate in q */
  readonly iq: Int32Array;
  /** index of joint i's first velocity coordinate in v, a, tau */
  readonly iv: Int32Array;
  readonly nqi: Int32Array;
  readonly nvi: Int32Array;
  readonly nq: number;
  readonly nv: number;
  /** gravity in world coordinates (default (0, 0, −9.81)) */
  readonly gravity: Float64Array;
  /** every named frame (links, merged links, sensor frames) */
  readonly frames: readonly Frame[];
  private readonly frameIndex: Map<string, number>;
  private readonly bodyIndex: Map<string, number>;
  private readonly jointIndex: Map<string, number>;
  /** true when body 0 hangs from the world by a floating joint */
  readonly floatingBase: boolean;
  /** what was odd in the model's description but handled (printed once by every command) */
  readonly warnings: readonly ModelWarning[];
  /**
   * bodies whose articulated inertia S_iᵀ I^A_i S_i is singular (massless moving bodies, found at
   * build time by model/articulated-check.ts): forward dynamics is undefined and the ABA, the
   * sparse forward dynamics and M⁻¹ refuse the model, naming the first of them
   */
  readonly singularBodies: Int32Array;
  /**
   * per joint (body) i, its limits as the robot file states them (URDF `<limit>`); undefined where
   * it states none (generated models, a floating base, fixed joints)
   */
  readonly limits: readonly (JointLimits | undefined)[];
  private readonly data: ModelData;

  constructor(d: ModelData, nqi: Int32Array, nvi: Int32Array, S: Float64Array[], jtype: Int8Array, axisKind: Int8Array) {
    this.name = d.name;
    this.nb = d.parents.length;
    this.parents = d.parents;
    this.bodyNames = Object.freeze(d.bodyNames.slice());
    this.jointNames = Object.freeze(d.jointNames.slice());
    this.jointTypes = Object.freeze(d.jointTypes.slice());
    this.jtype = jtype;
    this.axis = d.axis;
    this.axisKind = axisKind;
    this.pitch = d.pitch;
    this.Xtree = Object.freeze(d.Xtree.slice());
    this.I = Object.freeze(d.I.slice());
    this.S = Object.freeze(S.slice());
    this.nqi = nqi;
    this.nvi = nvi;
    this.iq = new Int32Array(this.nb);
    this.iv = new Int32Array(this.nb);
    let nq = 0, nv = 0;
    for (let i = 0; i < this.nb; i++) {
      this.iq[i] = nq; this.iv[i] = nv;
      nq += nqi[i]; nv += nvi[i];
    }
    this.nq = nq;
    this.nv = nv;
    this.gravity = d.gravity;
    this.frames = Object.freeze(d.frames.slice());
    const kids: number[][] = Array.from({ length: this.nb }, () => []);
    const roots: number[] = [];
    for (let i = 0; i < this.nb; i++) {
      const p = this.parents[i];
      if (p < 0) roots.push(i); else kids[p].push(i);
    }
    this.children = kids.map((k) => Int32Array.from(k));
    this.rootBodies = Int32Array.from(roots);
    this.frameIndex = new Map(this.frames.map((f, k) => [f.name, k]));
    this.bodyIndex = new Map(this.bodyNames.map((n, k) => [n, k]));
    this.jointIndex = new Map(this.jointNames.map((n, k) => [n, k]));
    this.floatingBase = this.nb > 0 && d.jointTypes[0] === 'floating' && this.parents[0] === -1;
    this.warnings = Object.freeze((d.warnings ?? []).slice());
    this.singularBodies = d.singularBodies ?? new Int32Array(0);
    this.limits = Object.freeze(Array.from({ length: this.nb }, (_x, i) => d.limits?.[i]));
    this.data = d;
  }

  /**
   * The same model with other rigid inertias (one 10-number inertia per body), other warnings and
   * other singular bodies (none unless given): for what-if work on the same structure, e.g. flop
   * counts of a model whose own inertias leave forward dynamics undefined.
   */
  withInertias(I: readonly Float64Array[], extra: { warnings?: readonly ModelWarning[]; singularBodies?: Int32Array } = {}): Model {
    if (I.length !== this.nb) throw new RangeError(`withInertias: ${I.length} inertias for ${this.nb} bodies`);
    return new Model(
      { ...this.data, I: I.slice(), warnings: extra.warnings ?? this.warnings, singularBodies: extra.singularBodies },
      this.nqi, this.nvi, this.S.slice(), this.jtype, this.axisKind,
    );
  }

  /** Body index of a body (link) name; throws a RangeError naming it when absent. */
  body(name: string): number {
    const i = this.bodyIndex.get(name);
    if (i === undefined) throw new RangeError(`unknown body "${name}" in model "${this.name}"`);
    return i;
  }

  /** Body index of joint `name` (joint i moves body i); throws a RangeError naming it when absent. */
  joint(name: string): number {
    const i = this.jointIndex.get(name);
    if (i === undefined) throw new RangeError(`unknown joint "${name}" in model "${this.name}"`);
    return i;
  }

  /** Whether the model has a joint of that name (a fixed joint merged into its parent does not count). */
  hasJoint(name: string): boolean {
    return this.jointIndex.has(name);
  }

  /** A frame by name (any URDF link, merged or not); throws a RangeError naming it when absent. */
  frame(name: string): Frame {
    const k = this.frameIndex.get(name);
    if (k === undefined) throw new RangeError(`unknown frame (link) "${name}" in model "${this.name}"`);
    return this.frames[k];
  }

  /** Whether the model has a frame (link) of that name. */
  hasFrame(name: string): boolean {
    return this.frameIndex.has(name);
  }

  /** Names of the joints with at least one DoF, in velocity order (with each DoF's index). */
  movingJoints(): { name: string; body: number; iq: number; iv: number; nq: number; nv: number; type: JointType }[] {
    const out = [];
    for (let i = 0; i < this.nb; i++) {
      if (this.nvi[i] === 0) continue;
      out.push({ name: this.jointNames[i], body: i, iq: this.iq[i], iv: this.iv[i], nq: this.nqi[i], nv: this.nvi[i], type: this.jointTypes[i] });
    }
    return out;
  }

  /** Total mass of the moving bodies. */
  totalMass(): number {
    let m = 0;
    for (let i = 0; i < this.nb; i++) m += this.I[i][0];
    return m;
  }
}
