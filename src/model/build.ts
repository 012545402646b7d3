/**
 * ModelSpec → Model: validate the link/joint graph (one root, no cycles, every joint's
 * parent and child exist, each link has at most one parent joint), number the bodies depth-first
 * so that λ(i) < i (RBDA §4.1.2; Pinocchio's URDF parser uses the same depth-first order), merge
 * fixed joints into their parent body with lumped inertia (unless asked to keep them as 0-DoF
 * joints), and optionally add a floating base.
 *
 * Inertias are data: they are kept as given (as Pinocchio keeps a URDF's) and judged with warnings
 * (model/warnings.ts codes), never rejected:
 * - a link whose own inertia is not physically valid (inertia-check.ts) but does not matter — it
 *   is on the welded root, or merged into a moving body whose total is valid — gets a `link-…`
 *   warning saying so;
 * - a moving body whose inertia after merging is not physically valid gets a `body-…` warning
 *   naming the links it came from;
 * - moving bodies whose articulated inertia is singular (articulated-check.ts) are named in one
 *   `singular-articulated-inertia` warning and listed in Model.singularBodies.
 */
import { Flops } from '../spatial/flops.ts';
import { inertiaAdd, inertiaTransformToParent } from '../spatial/inertia.ts';
import { xCompose, xCreate } from '../spatial/transform.ts';
import { singularBodies } from './articulated-check.ts';
import { rigidInertiaProblem, type InertiaProblem } from './inertia-check.ts';
import { jointNq, jointNv, jointTypeCode, motionSubspace, type JointType } from './joint.ts';
import { Model, type Frame, type JointLimits } from './model.ts';
import { clipMessage, modelWarning, type ModelWarning } from './warnings.ts';

/** A link of a model description: its name and rigid inertia. */
export interface LinkSpec {
  name: string;
  /** rigid inertia about the link origin in link axes (10 numbers), or null for a massless link */
  inertia: Float64Array | null;
  /** 1-based line of the link in its description file, for messages */
  line?: number;
  /** the inertia as the description wrote it (e.g. `mass=0 ixx=1e-06 …`), for messages */
  inertiaText?: string;
}

/**
 * A joint of a model description: type, parent and child links, placement, axis (and pitch for
 * helical joints).
 */
export interface JointSpec {
  name: string;
  type: JointType;
  parent: string;
  child: string;
  /** ᶜX_p at q = 0: joint frame (= child link frame) relative to the parent link frame */
  origin: Float64Array;
  /** joint axis in the joint frame (normalised here; must be non-zero for 1-DoF joints) */
  axis?: ArrayLike<number>;
  /** helical pitch in m/rad */
  pitch?: number;
  /** 1-based line of the joint in its description file, for messages */
  line?: number;
  /** what the description states about the joint's motion (URDF `<limit>`), carried into Model.limits */
  limit?: JointLimits;
}

/**
 * A model description (what a URDF or a generator gives): links, joints, gravity; `buildModel`
 * turns it into a Model.
 */
export interface ModelSpec {
  name: string;
  links: LinkSpec[];
  joints: JointSpec[];
  gravity?: ArrayLike<number>;
  /** what the description's reader found odd (carried into Model.warnings) */
  warnings?: readonly ModelWarning[];
  /** file the description was read from, for the messages of the warnings raised here */
  file?: string;
}

/**
 * Options of `buildModel`: the base (floating or welded) and the fixed joints to keep as 0-DoF
 * joints.
 */
export interface BuildOptions {
  /** add a 6-DoF floating joint between the world and the root link (default false: welded) */
  floatingBase?: boolean;
  /** name of that joint (default "root_joint", as Pinocchio names it) */
  rootJointName?: string;
  /** fixed joints to keep as 0-DoF joints of their own body (e.g. force/torque sensor joints) */
  keepFixed?: readonly string[];
}

/**
 * The largest |translation| of a joint placement (m) and |number| of a link's rigid inertia (kg,
 * kg m, kg m² about the link origin) that a model may hold. Beyond them the products the algorithms
 * form (inertias moved along a chain, squared in the eigenvalue checks) leave double precision;
 * a model that needs them is refused with the link or joint named, rather than computed as NaN.
 */
export const MAX_MODEL_LENGTH = 1e9;
export const MAX_MODEL_INERTIA = 1e30;

/** A structural problem in a model description, naming the offending link or joint. */
export class ModelError extends Error {
  override name = 'ModelError';
  constructor(message: string, readonly item: { joint?: string; link?: string } = {}) {
    super(clipMessage(message));
  }
}

/**
 * Build the immutable Model of a description: validate the link/joint graph, number bodies
 * depth-first (λ(i) < i), merge fixed joints into their parent (unless kept), add a floating base
 * on request. Throws ModelError naming the link or joint.
 */
export function buildModel(spec: ModelSpec, options: BuildOptions = {}): Model {
  // names are keys of Maps and Sets (never of plain objects: a link may be called "constructor" or "__proto__")
  const linkNames = new Set<string>();
  for (const l of spec.links) {
    if (linkNames.has(l.name)) throw new ModelError(`link "${l.name}" is defined twice`, { link: l.name });
    linkNames.add(l.name);
    checkInertiaMagnitude(l);
  }
  const jointByChild = new Map<string, JointSpec>();
  const jointNames = new Set<string>();
  const childOrder = new Map<string, JointSpec[]>();
  for (const j of spec.joints) {
    if (jointNames.has(j.name)) throw new ModelError(`joint "${j.name}" is defined twice`, { joint: j.name });
    jointNames.add(j.name);
    if (!linkNames.has(j.parent)) throw new ModelError(`joint "${j.name}": parent link "${j.parent}" does not exist`, { joint: j.name, link: j.parent });
    if (!linkNames.has(j.child)) throw new ModelError(`joint "${j.name}": child link "${j.child}" does not exist`, { joint: j.name, link: j.child });
    if (j.parent === j.child) throw new ModelError(`joint "${j.name}" connects link "${j.child}" to itself`, { joint: j.name, link: j.child });
    const prev = jointByChild.get(j.child);
    if (prev) throw new ModelError(`link "${j.child}" is the child of two joints, "${prev.name}" and "${j.name}" (kinematic loop)`, { joint: j.name, link: j.child });
    checkPlacementMagnitude(j);
    jointByChild.set(j.child, j);
    const list = childOrder.get(j.parent) ?? [];
    list.push(j);
    childOrder.set(j.parent, list);
  }
  const roots = spec.links.filter((l) => !jointByChild.has(l.name)).map((l) => l.name);
  if (roots.length === 0) {
    throw new ModelError(`no root link: the joints form a cycle (every link has a parent joint)`, { joint: spec.joints[0]?.name });
  }
  if (roots.length > 1) {
    throw new ModelError(`more than one root link: ${roots.map((r) => `"${r}"`).join(', ')} (a tree has exactly one)`, { link: roots[1] });
  }
  const root = roots[0];
  // Every link must be reachable from the root; one that is not sits on a cycle.
  const reached = new Set<string>([root]);
  const stack = [root];
  while (stack.length) {
    const l = stack.pop()!;
    for (const j of childOrder.get(l) ?? []) {
      if (!reached.has(j.child)) { reached.add(j.child); stack.push(j.child); }
    }
  }
  if (reached.size !== spec.links.length) {
    const lost = spec.links.find((l) => !reached.has(l.name))!;
    const j = jointByChild.get(lost.name)!;
    throw new ModelError(`joint "${j.name}" closes a cycle through link "${lost.name}" (a kinematic tree has none)`, { joint: j.name, link: lost.name });
  }

  const rootJoint = options.rootJointName ?? 'root_joint';
  if (options.floatingBase && jointNames.has(rootJoint)) {
    throw new ModelError(`joint "${rootJoint}" already exists: choose another rootJointName for the floating base`, { joint: rootJoint });
  }
  const keep = new Set(options.keepFixed ?? []);
  for (const k of keep) {
    const j = spec.joints.find((jj) => jj.name === k);
    if (!j) throw new ModelError(`keepFixed: joint "${k}" does not exist`, { joint: k });
    if (j.type !== 'fixed') throw new ModelError(`keepFixed: joint "${k}" is ${j.type}, not fixed`, { joint: k });
  }
  const linkSpec = new Map(spec.links.map((l) => [l.name, l]));
  const fl = new Flops();

  const bodyNames: string[] = [];
  const jNames: string[] = [];
  const jTypes: JointType[] = [];
  const parents: number[] = [];
  const axes: number[] = [];
  const pitches: number[] = [];
  const Xtree: Float64Array[] = [];
  const inertias: Float64Array[] = [];
  const frames: Frame[] = [];
  const limits: (JointLimits | undefined)[] = [];

  const addBody = (name: string, jname: string, type: JointType, parent: number, X: Float64Array, axis: ArrayLike<number> | undefined, pitch: number, limit?: JointLimits): number => {
    const i = bodyNames.length;
    bodyNames.push(name);
    jNames.push(jname);
    jTypes.push(type);
    parents.push(parent);
    let ax = [0, 0, 0];
    if (type === 'revolute' || type === 'prismatic' || type === 'helical' || type === 'planar') {
      // a planar joint's axis is its plane normal (default z: Pinocchio's xy plane)
      const a = axis ?? (type === 'planar' ? [0, 0, 1] : [1, 0, 0]);
      const n = Math.hypot(a[0], a[1], a[2]);
      if (!(n > 1e-12) || !Number.isFinite(n)) throw new ModelError(`joint "${jname}" has a zero or invalid axis`, { joint: jname });
      ax = [a[0] / n, a[1] / n, a[2] / n];
    }
    axes.push(...ax);
    pitches.push(type === 'helical' ? pitch : 0);
    Xtree.push(X);
    inertias.push(new Float64Array(10));
    frames.push({ name, body: i, X: xCreate() });
    limits.push(limit);
    return i;
  };

  // Depth-first numbering from the root; (link, body, ᴸX_body) for each visited link.
  const visit: { link: string; body: number; Xlb: Float64Array }[] = [];
  /** body (before renumbering; −1 = the welded root) each link ends up in */
  const linkBody = new Map<string, number>();
  if (options.floatingBase) {
    const b = addBody(root, rootJoint, 'floating', -1, xCreate(), undefined, 0);
    visit.push({ link: root, body: b, Xlb: xCreate() });
  } else {
    frames.push({ name: root, body: -1, X: xCreate() });
    visit.push({ link: root, body: -1, Xlb: xCreate() });
  }
  const lumped = new Float64Array(10);
  while (visit.length) {
    const { link, body, Xlb } = visit.pop()!;
    linkBody.set(link, body);
    // lump this link's inertia into its body
    const ls = linkSpec.get(link)!;
    if (ls.inertia && body >= 0) {
      inertiaTransformToParent(lumped, Xlb, ls.inertia, fl);
      inertiaAdd(inertias[body], inertias[body], lumped, fl);
    }
    const kids = childOrder.get(link) ?? [];
    // push in reverse so that children are numbered in file order (depth first)
    const next: { link: string; body: number; Xlb: Float64Array }[] = [];
    for (const j of kids) {
      if (j.type === 'fixed' && !keep.has(j.name)) {
        // child link rigidly merged: ᶜX_body = ᶜX_link ᴸX_body
        const Xcb = xCompose(new Float64Array(12), j.origin, Xlb, fl);
        frames.push({ name: j.child, body, X: Xcb });
        next.push({ link: j.child, body, Xlb: Xcb });
      } else {
        // moving (or kept-fixed) joint: new body whose Xtree = ᶜX_link ᴸX_body
        const Xt = xCompose(new Float64Array(12), j.origin, Xlb, fl);
        const b = addBody(j.child, j.name, j.type, body, Xt, j.axis, j.pitch ?? 0, j.limit);
        next.push({ link: j.child, body: b, Xlb: xCreate() });
      }
    }
    // depth-first: process the first child's whole subtree before the second child
    for (let k = next.length - 1; k >= 0; k--) visit.push(next[k]);
  }
  // The pop order above numbers a body when its parent link is expanded, so parents[i] < i holds;
  // re-number into strict depth-first order (Pinocchio's) for stable vector layouts.
  const { model, newIndex } = finish(spec, { bodyNames, jNames, jTypes, parents, axes, pitches, Xtree, inertias, frames, limits });
  const bodyOf = new Map<string, number>();
  for (const [l, b] of linkBody) bodyOf.set(l, b < 0 ? -1 : newIndex[b]);
  const singular = singularBodies(model);
  const warnings = [...(spec.warnings ?? []), ...inertiaWarnings(spec, model, bodyOf), ...singularWarnings(spec, model, singular)];
  return model.withInertias(model.I, { warnings, singularBodies: singular });
}

/** Refuses a link whose rigid inertia holds a number that is not finite or beyond MAX_MODEL_INERTIA. */
function checkInertiaMagnitude(l: LinkSpec): void {
  if (!l.inertia) return;
  let big = 0;
  for (let k = 0; k < 10; k++) big = Math.max(big, Math.abs(l.inertia[k]));
  if (big <= MAX_MODEL_INERTIA) return;
  const written = l.inertiaText ? ` (${l.inertiaText})` : '';
  throw new ModelError(`link "${l.name}": its <inertial>${written} gives ${Number.isFinite(big) ? `an inertia of ${big.toExponential(1)} kg m² about the link origin` : 'an inertia about the link origin that is not finite'} `
    + `(mass times the square of the inertial origin's distance); sparsedyn accepts at most ${MAX_MODEL_INERTIA.toExponential(0)}, beyond which the dynamics overflow double precision`, { link: l.name });
}

/** Refuses a joint whose placement is not finite or moves farther than MAX_MODEL_LENGTH. */
function checkPlacementMagnitude(j: JointSpec): void {
  let big = 0;
  for (let k = 0; k < 12; k++) big = Math.max(big, Math.abs(j.origin[k]));
  if (big <= MAX_MODEL_LENGTH) return;
  throw new ModelError(`joint "${j.name}": its origin ${Number.isFinite(big) ? `lies ${big.toExponential(1)} m from its parent link's frame` : 'is not finite'}; `
    + `sparsedyn accepts at most ${MAX_MODEL_LENGTH.toExponential(0)} m, beyond which the dynamics overflow double precision`, { joint: j.name });
}

/** `link-…` / `body-…` code of an inertia problem: link-mass-zero, body-inertia-not-positive-definite, … */
function inertiaCode(prefix: 'link' | 'body', p: InertiaProblem): string {
  return `${prefix}-${p.code.startsWith('mass') ? p.code : `inertia-${p.code}`}`;
}

const KEPT = 'kept as written, as Pinocchio does';

/** The inertia warnings of the file header: per link when harmless, per moving body when not. */
function inertiaWarnings(spec: ModelSpec, model: Model, bodyOf: Map<string, number>): ModelWarning[] {
  const out: ModelWarning[] = [];
  const file = spec.file;
  const linkSpec = new Map(spec.links.map((l) => [l.name, l]));
  const bodyProblem = model.I.map((I) => rigidInertiaProblem(I));
  const bodyLinks = new Map<number, string[]>();
  for (const l of spec.links) {
    const b = bodyOf.get(l.name);
    if (b === undefined || b < 0) continue;
    const list = bodyLinks.get(b) ?? [];
    list.push(l.name);
    bodyLinks.set(b, list);
  }
  const written = (l: LinkSpec | undefined) => (l?.inertiaText ? ` (${l.inertiaText})` : '');
  const quoted = (names: string[]) => (names.length <= 4 ? names : names.slice(0, 3)).map((n) => `"${n}"`).join(', ')
    + (names.length > 4 ? ` and ${names.length - 3} more` : '');
  for (const l of spec.links) {
    if (!l.inertia) continue;
    const p = rigidInertiaProblem(l.inertia);
    if (!p) continue;
    const b = bodyOf.get(l.name) ?? -1;
    if (b >= 0 && bodyProblem[b]) continue; // reported with its body below
    let harmless: string;
    if (b < 0) {
      harmless = `this is the root link, welded to the world (fixed base), so it never moves${p.code === 'mass-zero' ? ' (mass 0 is pybullet\'s way of marking a static base)' : ''}`;
    } else {
      const others = (bodyLinks.get(b) ?? []).filter((n) => n !== l.name);
      harmless = model.bodyNames[b] === l.name
        ? `with the fixed link${others.length > 1 ? 's' : ''} ${quoted(others)} merged in, moving body "${l.name}" has a physically valid inertia`
        : `it is merged into moving body "${model.bodyNames[b]}", whose total inertia is physically valid`;
    }
    out.push(modelWarning(inertiaCode('link', p), `link "${l.name}": its <inertial>${written(l)} is not physically valid: ${p.detail}; ${KEPT}; harmless here: ${harmless}`,
      { element: `link "${l.name}"`, file, line: l.line }));
  }
  for (let b = 0; b < model.nb; b++) {
    const p = bodyProblem[b];
    if (!p) continue;
    const name = model.bodyNames[b];
    const links = bodyLinks.get(b) ?? [name];
    const others = links.filter((n) => n !== name);
    const odd = links.filter((n) => { const I = linkSpec.get(n)?.inertia; return I ? rigidInertiaProblem(I) !== null : false; });
    const at = linkSpec.get(odd.length === 1 ? odd[0] : name);
    const what = others.length > 0 ? `its inertia, with the fixed link${others.length > 1 ? 's' : ''} ${quoted(others)} merged in,` : 'its inertia';
    const from = odd.length === 1 && odd[0] === name && others.length === 0 ? ` (its <inertial>${written(linkSpec.get(name))})`
      : odd.length > 0 ? ` (from the <inertial> of ${odd.map((n) => `link "${n}"${written(linkSpec.get(n))}`).join(', ')})` : '';
    const element = `link "${at?.name ?? name}"`;
    const subject = element === `link "${name}"` ? `link "${name}", a moving body (joint "${model.jointNames[b]}")` : `moving body "${name}" (joint "${model.jointNames[b]}")`;
    out.push(modelWarning(inertiaCode('body', p),
      `${subject}: ${what} is not physically valid: ${p.detail}${from}; ${KEPT}, so the dynamics of this body are those of no real object`,
      { element, file, line: at?.line }));
  }
  return out;
}

/** One `singular-articulated-inertia` warning naming the singular bodies. */
function singularWarnings(spec: ModelSpec, model: Model, singular: Int32Array): ModelWarning[] {
  if (singular.length === 0) return [];
  const names = Array.from(singular, (i) => `"${model.bodyNames[i]}" (joint "${model.jointNames[i]}")`);
  const first = model.bodyNames[singular[0]];
  const line = spec.links.find((l) => l.name === first)?.line;
  const n = singular.length;
  return [modelWarning('singular-articulated-inertia',
    `link "${first}": the articulated inertia of ${n === 1 ? 'moving body' : `${n} moving bodies`} ${names.join(', ')} is singular: `
    + `some motion of ${n === 1 ? 'its joint' : 'their joints'} moves no mass (massless links: no <inertial>, or mass 0), so M is singular; `
    + 'forward dynamics (ABA, the sparse LU) and M⁻¹ refuse this model, while inverse dynamics, M, flop counts, spy plots and the offline analysis work',
    { element: `link "${first}"`, file: spec.file, line })];
}

interface Raw {
  bodyNames: string[]; jNames: string[]; jTypes: JointType[]; parents: number[]; axes: number[];
  pitches: number[]; Xtree: Float64Array[]; inertias: Float64Array[]; frames: Frame[]; limits: (JointLimits | undefined)[];
}

function finish(spec: ModelSpec, r: Raw): { model: Model; newIndex: Int32Array } {
  const nb = r.bodyNames.length;
  // depth-first order over the body tree
  const kids: number[][] = Array.from({ length: nb }, () => []);
  const roots: number[] = [];
  for (let i = 0; i < nb; i++) (r.parents[i] < 0 ? roots : kids[r.parents[i]]).push(i);
  const order: number[] = [];
  const st = roots.slice().reverse();
  while (st.length) {
    const i = st.pop()!;
    order.push(i);
    for (let k = kids[i].length - 1; k >= 0; k--) st.push(kids[i][k]);
  }
  const newIndex = new Int32Array(nb);
  order.forEach((old, k) => { newIndex[old] = k; });
  const pick = <T>(a: T[]): T[] => order.map((o) => a[o]);
  const parents = Int32Array.from(order.map((o) => (r.parents[o] < 0 ? -1 : newIndex[r.parents[o]])));
  const axis = new Float64Array(3 * nb);
  order.forEach((o, k) => { axis[3 * k] = r.axes[3 * o]; axis[3 * k + 1] = r.axes[3 * o + 1]; axis[3 * k + 2] = r.axes[3 * o + 2]; });
  const types = pick(r.jTypes);
  const jtype = Int8Array.from(types.map(jointTypeCode));
  const axisKind = new Int8Array(nb);
  const S: Float64Array[] = [];
  const nqi = new Int32Array(nb), nvi = new Int32Array(nb);
  for (let k = 0; k < nb; k++) {
    const t = types[k];
    axisKind[k] = 3;
    if (t === 'revolute' || t === 'prismatic') {
      // (a planar joint keeps 3: its fast path in jcalc tests the normal itself)
      for (let c = 0; c < 3; c++) {
        if (Math.abs(axis[3 * k + c]) === 1) axisKind[k] = c;
      }
    }
    S.push(motionSubspace(t, axis.subarray(3 * k, 3 * k + 3), r.pitches[order[k]]));
    nqi[k] = jointNq(t);
    nvi[k] = jointNv(t);
  }
  const frames = r.frames.map((f) => ({ name: f.name, body: f.body < 0 ? -1 : newIndex[f.body], X: f.X }));
  const g = spec.gravity ?? [0, 0, -9.81];
  const model = new Model(
    {
      name: spec.name,
      bodyNames: pick(r.bodyNames),
      jointNames: pick(r.jNames),
      jointTypes: types,
      parents,
      axis,
      pitch: Float64Array.from(pick(r.pitches)),
      Xtree: pick(r.Xtree),
      I: pick(r.inertias),
      gravity: Float64Array.from([g[0], g[1], g[2]]),
      frames,
      warnings: spec.warnings ?? [],
      limits: pick(r.limits),
    },
    nqi, nvi, S, jtype, axisKind,
  );
  return { model, newIndex };
}
