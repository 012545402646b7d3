/**
 * URDF text → ModelSpec (and → Model through buildModel), with every failure a `UrdfError` that
 * names the element, the file and the line. Source: the URDF XML specification (ROS wiki
 * "urdf/XML": robot, link, inertial, joint, sensor), read the way urdfdom and Pinocchio's URDF
 * parser read it (joint order below). Reads no files: see urdf-file.ts for that.
 *
 * Conventions. `<origin xyz rpy>` gives the child frame in the parent frame: R = Rz(y) Ry(p) Rx(r)
 * maps child to parent coordinates, so the Plücker placement ᶜX_p has E = Rᵀ and r = xyz
 * (RBDA §2.8). `<inertial><origin xyz rpy>` puts the centre of mass at xyz and gives the
 * `<inertia>` tensor in axes rotated by rpy, so in link axes I_c = R I' Rᵀ (RBDA §2.13).
 *
 * Joint order. urdfdom keeps the joints in a std::map keyed by name and links each parent to its
 * children in that map's order; Pinocchio then numbers the joints depth first. So the joints are
 * handed to buildModel sorted by name (code-point order = std::string byte order for UTF-8), and
 * buildModel's depth-first numbering gives Pinocchio's vector layout.
 *
 * What loads is decided by what urdfdom (the ROS reference parser, which Pinocchio uses) accepts:
 * - inertia values are data: any finite mass and tensor load, kept as written (Pinocchio builds
 *   Inertia(m, c, R I Rᵀ) from whatever the file says); build.ts judges them on the bodies that
 *   move and warns (`link-…`, `body-…` codes);
 * - a blank line before the XML declaration (TinyXML skips it) and `<robot name="">` load with a
 *   warning; a missing robot name, unknown joint types, missing required elements or attributes,
 *   and numbers that do not parse are errors, as in urdfdom; a number holding an unexpanded
 *   `$(…)` or `${…}` substitution is an error that says so (the file needs xacro/roslaunch first);
 * - a repeated element where one is expected (a second `<origin>`) is ignored with a warning, as
 *   urdfdom reads the first; `<mimic>` and Drake's `<loop_joint>` are ignored with a warning;
 * - `planar` joints move in the plane normal to their `<axis>` (the URDF specification; without
 *   `<axis>`, the xy plane, as Pinocchio, which ignores the axis: a warning says when they differ).
 * `continuous` joints become revolute (recorded in `jointInfo[k].continuous`, since Pinocchio
 * stores them as (cos θ, sin θ)).
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { xmlProblem } from './xml-words.ts';
import { inertiaFromMassComInertia } from '../spatial/inertia.ts';
import { xFromRotTrans } from '../spatial/transform.ts';
import { mat3Mul, mat3Transpose, rotFromRpy } from '../spatial/vec3.ts';
import { buildModel, ModelError, type BuildOptions, type JointSpec, type LinkSpec, type ModelSpec } from './build.ts';
import type { JointType } from './joint.ts';
import type { Model } from './model.ts';
import { clipMessage, modelWarning, type ModelWarning } from './warnings.ts';

/** A problem in a URDF document; the message names the element, the file and the line when known. */
export class UrdfError extends Error {
  override name = 'UrdfError';
  /** file name given to the parser, if any */
  readonly file?: string;
  /** 1-based line of the offending element, if known */
  readonly line?: number;
  /** the offending element, e.g. `joint "knee"` */
  readonly element?: string;

  constructor(detail: string, where: { file?: string; line?: number; element?: string } = {}) {
    // prefix the element unless the detail already names it (ModelError messages do)
    super(clipMessage(modelWarning('', detail, where).message));
    this.file = where.file;
    this.line = where.line;
    this.element = where.element;
  }
}

/** `<limit>` of a joint (not used by the dynamics). */
export interface UrdfLimit {
  lower?: number;
  upper?: number;
  effort?: number;
  velocity?: number;
}

/** `<mimic>` of a joint: q = multiplier · q_joint + offset. Ignored by the model (a warning says so). */
export interface UrdfMimic {
  joint: string;
  multiplier: number;
  offset: number;
}

/** What the file says about one joint beyond the ModelSpec. */
export interface UrdfJointInfo {
  name: string;
  /** type as written in the file (`continuous`, `revolute`, …) */
  urdfType: string;
  /** true for `continuous` (modelled as revolute with one coordinate; Pinocchio uses (cos, sin)) */
  continuous: boolean;
  line?: number;
  limit?: UrdfLimit;
  mimic?: UrdfMimic;
}

/** A `<sensor>` element (top level, or inside `<gazebo reference="link">`), kept raw for later use. */
export interface UrdfSensor {
  name?: string;
  type?: string;
  /** link it is attached to (`<parent link>` or the gazebo `reference`) */
  link?: string;
  line?: number;
  /** the parsed element as fast-xml-parser gives it (attributes prefixed with "@_") */
  raw: unknown;
}

/** ModelSpec plus the URDF side tables. */
export interface UrdfSpec extends ModelSpec {
  /** file name used in error messages, if given */
  file?: string;
  /** per joint, in the same (name-sorted) order as `joints` */
  jointInfo: UrdfJointInfo[];
  sensors: UrdfSensor[];
  /** 1-based line of each `<link>` / `<joint>` element, by name */
  lines: { link: Map<string, number>; joint: Map<string, number> };
  /** warnings raised while parsing (also sent to the `warn` callback); buildModel carries them into Model.warnings */
  warnings: ModelWarning[];
}

/** Options of `parseUrdf`: the file name for messages and a callback for warnings. */
export interface UrdfParseOptions {
  /** file name for messages */
  file?: string;
  /** called with each warning (e.g. an ignored `<mimic>`) as it is raised */
  warn?: (warning: ModelWarning) => void;
}

/** Options of `buildUrdf` and `modelFromUrdf`: the base, gravity and the fixed joints to keep. */
export interface UrdfBuildOptions extends BuildOptions {
  /** gravity in world coordinates, overriding the default (0, 0, −9.81) */
  gravity?: ArrayLike<number>;
}

const META = XMLParser.getMetaDataSymbol() as unknown as symbol;
const A = '@_';
type Node = Record<string | symbol, unknown>;

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** Per-document helpers: line lookup, warnings and error construction. */
class Doc {
  private readonly lineStarts: number[] = [0];
  /** warnings raised while parsing, in document order */
  readonly warnings: ModelWarning[] = [];
  constructor(readonly text: string, readonly file: string | undefined, private readonly onWarn?: (w: ModelWarning) => void) {
    for (let k = 0; k < text.length; k++) if (text.charCodeAt(k) === 10) this.lineStarts.push(k + 1);
  }

  warn(code: string, detail: string, element?: string, line?: number): void {
    const w = modelWarning(code, detail, { element, file: this.file, line });
    this.warnings.push(w);
    this.onWarn?.(w);
  }

  lineAtIndex(index: number): number {
    let lo = 0, hi = this.lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.lineStarts[mid] <= index) lo = mid; else hi = mid - 1;
    }
    return lo + 1;
  }

  /** Line of an element from the parser's metadata, else by scanning for `<tag … name="name"`. */
  lineOf(node: unknown, tag?: string, name?: string): number | undefined {
    const meta = node && typeof node === 'object' ? (node as Node)[META] as { startIndex?: number } | undefined : undefined;
    if (meta && typeof meta.startIndex === 'number') return this.lineAtIndex(meta.startIndex);
    if (tag && name !== undefined) {
      const esc = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      const m = new RegExp(`<${tag}\\b[^>]*\\bname\\s*=\\s*["']${esc}["']`).exec(this.text);
      if (m) return this.lineAtIndex(m.index);
    }
    return undefined;
  }

  error(detail: string, element?: string, line?: number): UrdfError {
    return new UrdfError(detail, { file: this.file, line, element });
  }
}

/** Children `tag` of an element as a list (the parser gives one object, an array, or an empty string). */
function children(node: Node, tag: string): Node[] {
  const c = node[tag];
  if (c === undefined) return [];
  const list = Array.isArray(c) ? c : [c];
  return list.map((x) => (x !== null && typeof x === 'object' ? (x as Node) : {}));
}

function attr(node: Node, name: string): string | undefined {
  const v = node[A + name];
  return typeof v === 'string' ? v : v === undefined ? undefined : String(v);
}

/** Context for messages about one link or joint. */
interface Ctx { doc: Doc; element: string; line: number | undefined }

function fail(ctx: Ctx, detail: string, node?: Node): UrdfError {
  return ctx.doc.error(detail, ctx.element, (node && ctx.doc.lineOf(node)) ?? ctx.line);
}

/** The first `<tag>` child (urdfdom reads the first; further ones are ignored with a warning). */
function single(ctx: Ctx, node: Node, tag: string, required: boolean): Node | undefined {
  const list = children(node, tag);
  if (list.length > 1) {
    ctx.doc.warn('duplicate-element', `${ctx.element} has ${list.length} <${tag}> elements where one is expected: the first is used, as urdfdom does`,
      ctx.element, ctx.doc.lineOf(list[1]) ?? ctx.line);
  }
  if (list.length === 0 && required) throw fail(ctx, `missing required <${tag}> element`);
  return list[0];
}

/** The first `$(…)` or `${…}` in a text, if any. */
function substitution(text: string): string | undefined {
  return /\$\([^)]*\)?|\$\{[^}]*\}?/.exec(text)?.[0];
}

function requiredAttr(ctx: Ctx, node: Node, tag: string, name: string): string {
  const v = attr(node, name);
  if (v === undefined) throw fail(ctx, `<${tag}> is missing required attribute ${name}`, node);
  return v;
}

function parseNumbers(ctx: Ctx, node: Node, tag: string, name: string, text: string, count: number): number[] {
  const sub = substitution(text);
  if (sub !== undefined) {
    throw fail(ctx, `<${tag} ${name}="${text}">: "${sub}" is an unexpanded xacro/roslaunch substitution, not a number; expand the file first (xacro FILE.urdf.xacro > FILE.urdf)`, node);
  }
  const parts = text.trim().split(/\s+/).filter((s) => s.length > 0);
  if (parts.length !== count) {
    throw fail(ctx, `<${tag} ${name}="${text}"> needs ${count} number${count > 1 ? 's' : ''}, got ${parts.length}`, node);
  }
  return parts.map((p) => {
    if (!NUMBER.test(p) || !Number.isFinite(Number(p))) throw fail(ctx, `<${tag} ${name}="${text}">: "${p}" is not a number`, node);
    return Number(p);
  });
}

function numberAttr(ctx: Ctx, node: Node, tag: string, name: string, fallback?: number): number {
  const v = attr(node, name);
  if (v === undefined) {
    if (fallback === undefined) throw fail(ctx, `<${tag}> is missing required attribute ${name}`, node);
    return fallback;
  }
  return parseNumbers(ctx, node, tag, name, v, 1)[0];
}

function vec3Attr(ctx: Ctx, node: Node | undefined, tag: string, name: string, fallback: number[]): number[] {
  if (!node) return fallback;
  const v = attr(node, name);
  return v === undefined ? fallback : parseNumbers(ctx, node, tag, name, v, 3);
}

/** R (child → parent coordinates) and xyz of an optional `<origin>` (defaults: identity, 0). */
function origin(ctx: Ctx, parent: Node): { R: Float64Array; xyz: number[] } {
  const o = single(ctx, parent, 'origin', false);
  const xyz = vec3Attr(ctx, o, 'origin', 'xyz', [0, 0, 0]);
  const rpy = vec3Attr(ctx, o, 'origin', 'rpy', [0, 0, 0]);
  return { R: rotFromRpy(new Float64Array(9), rpy[0], rpy[1], rpy[2]), xyz };
}

function parseLink(doc: Doc, node: Node): { spec: LinkSpec; line: number | undefined } {
  const line0 = doc.lineOf(node);
  const name = attr(node, 'name');
  if (name === undefined || name === '') throw doc.error('<link> is missing required attribute name', undefined, line0);
  const ctx: Ctx = { doc, element: `link "${name}"`, line: line0 ?? doc.lineOf(undefined, 'link', name) };
  const inertial = single(ctx, node, 'inertial', false);
  if (!inertial) return { spec: { name, inertia: null, line: ctx.line }, line: ctx.line };

  const massEl = single(ctx, inertial, 'mass', true)!;
  const m = numberAttr(ctx, massEl, 'mass', 'value');
  const inEl = single(ctx, inertial, 'inertia', true)!;
  const keys = ['ixx', 'ixy', 'ixz', 'iyy', 'iyz', 'izz'] as const;
  const [ixx, ixy, ixz, iyy, iyz, izz] = keys.map((k) => numberAttr(ctx, inEl, 'inertia', k));
  const inertiaText = `mass ${attr(massEl, 'value')!.trim()}; ${keys.map((k) => `${k} ${attr(inEl, k)!.trim()}`).join(', ')}`;
  const { R, xyz } = origin(ctx, inertial);
  // values are data: kept as written (build.ts warns where they are not physically valid)
  // I_c in link axes = R I' Rᵀ
  const Ip = Float64Array.of(ixx, ixy, ixz, ixy, iyy, iyz, ixz, iyz, izz);
  const Rt = mat3Transpose(new Float64Array(9), R);
  const Ic = mat3Mul(Ip, mat3Mul(Ip, R, Ip), Rt);
  const inertia = inertiaFromMassComInertia(new Float64Array(10), m, xyz, Ic[0], Ic[1], Ic[2], Ic[4], Ic[5], Ic[8]);
  return { spec: { name, inertia, line: ctx.line, inertiaText }, line: ctx.line };
}

const JOINT_TYPES: Record<string, JointType> = {
  revolute: 'revolute', continuous: 'revolute', prismatic: 'prismatic', fixed: 'fixed', floating: 'floating', planar: 'planar',
};

function parseJoint(doc: Doc, node: Node): { spec: JointSpec; info: UrdfJointInfo } {
  const line0 = doc.lineOf(node);
  const name = attr(node, 'name');
  if (name === undefined || name === '') throw doc.error('<joint> is missing required attribute name', undefined, line0);
  const ctx: Ctx = { doc, element: `joint "${name}"`, line: line0 ?? doc.lineOf(undefined, 'joint', name) };
  const urdfType = attr(node, 'type');
  if (urdfType === undefined) throw fail(ctx, '<joint> is missing required attribute type');
  if (!(urdfType in JOINT_TYPES)) {
    throw fail(ctx, `unknown joint type "${urdfType}" (expected one of ${Object.keys(JOINT_TYPES).join(', ')})`);
  }
  const type = JOINT_TYPES[urdfType];
  const parentEl = single(ctx, node, 'parent', true)!;
  const childEl = single(ctx, node, 'child', true)!;
  const parent = requiredAttr(ctx, parentEl, 'parent', 'link');
  const child = requiredAttr(ctx, childEl, 'child', 'link');
  const { R, xyz } = origin(ctx, node);
  // ᶜX_p: E = Rᵀ (parent → child coordinates), r = xyz (child origin in parent coordinates)
  const X = xFromRotTrans(new Float64Array(12), mat3Transpose(new Float64Array(9), R), xyz);
  const spec: JointSpec = { name, type, parent, child, origin: X, line: ctx.line };
  if (type === 'revolute' || type === 'prismatic' || type === 'planar') {
    const axisEl = single(ctx, node, 'axis', false);
    // urdfdom's default axis is (1, 0, 0); a planar joint without <axis> moves in the xy plane (as Pinocchio's)
    const axis = axisEl ? parseNumbers(ctx, axisEl, 'axis', 'xyz', requiredAttr(ctx, axisEl, 'axis', 'xyz'), 3) : type === 'planar' ? [0, 0, 1] : [1, 0, 0];
    const n = Math.hypot(axis[0], axis[1], axis[2]);
    if (!(n > 1e-12)) {
      throw fail(ctx, `zero axis <axis xyz="${axis.join(' ')}">`, axisEl);
    }
    spec.axis = axis;
    if (type === 'planar') {
      if (!axisEl) {
        doc.warn('planar-axis-missing', `planar joint "${name}" has no <axis>: it moves in its frame's xy plane, as in Pinocchio `
          + '(the URDF default axis 1 0 0 would make it the yz plane; write <axis xyz="1 0 0"/> for that)', ctx.element, ctx.line);
      } else if (!(axis[0] === 0 && axis[1] === 0 && axis[2] > 0)) {
        doc.warn('planar-axis-not-z', `planar joint "${name}" moves in the plane normal to <axis xyz="${axis.join(' ')}"> (the URDF specification), `
          + 'with x along the image of the frame\'s x axis under the smallest rotation taking z to the axis; Pinocchio ignores a planar joint\'s axis '
          + '(always its xy plane), so its answers for this joint differ from sparsedyn\'s', ctx.element, doc.lineOf(axisEl) ?? ctx.line);
      }
    }
  }
  const info: UrdfJointInfo = { name, urdfType, continuous: urdfType === 'continuous', line: ctx.line };
  const limitEl = single(ctx, node, 'limit', false);
  if (limitEl) {
    const limit: UrdfLimit = {};
    for (const k of ['lower', 'upper', 'effort', 'velocity'] as const) {
      if (attr(limitEl, k) !== undefined) limit[k] = numberAttr(ctx, limitEl, 'limit', k);
    }
    info.limit = limit;
    // into Model.limits for the joints whose motion <limit> describes; a continuous joint has no position limits (urdfdom ignores them)
    if (urdfType === 'revolute' || urdfType === 'prismatic') spec.limit = { ...limit };
    else if (urdfType === 'continuous') spec.limit = { effort: limit.effort, velocity: limit.velocity };
  } else if (urdfType === 'revolute' || urdfType === 'prismatic') {
    // urdfdom refuses a revolute or prismatic joint without <limit>; its values never reach the dynamics
    doc.warn('joint-limit-missing', `${urdfType} joint "${name}" has no <limit> (urdfdom, and so Pinocchio, refuses such a file; `
      + 'the dynamics do not use limits, so sparsedyn loads it)', ctx.element, ctx.line);
  }
  const mimicEl = single(ctx, node, 'mimic', false);
  if (mimicEl) {
    const mimic: UrdfMimic = {
      joint: requiredAttr(ctx, mimicEl, 'mimic', 'joint'),
      multiplier: numberAttr(ctx, mimicEl, 'mimic', 'multiplier', 1),
      offset: numberAttr(ctx, mimicEl, 'mimic', 'offset', 0),
    };
    info.mimic = mimic;
    doc.warn('mimic-ignored', `joint "${name}" mimics joint "${mimic.joint}": `
      + `<mimic> is ignored${type === 'fixed' ? '' : `, "${name}" is modelled as an independent joint`}`, ctx.element, ctx.line);
  }
  return { spec, info };
}

function parseSensors(doc: Doc, robot: Node): UrdfSensor[] {
  const out: UrdfSensor[] = [];
  for (const s of children(robot, 'sensor')) {
    const parent = children(s, 'parent')[0];
    out.push({ name: attr(s, 'name'), type: attr(s, 'type'), link: parent ? attr(parent, 'link') : undefined, line: doc.lineOf(s), raw: s });
  }
  for (const g of children(robot, 'gazebo')) {
    for (const s of children(g, 'sensor')) {
      out.push({ name: attr(s, 'name'), type: attr(s, 'type'), link: attr(g, 'reference'), line: doc.lineOf(s), raw: s });
    }
  }
  return out;
}

function codePointCompare(a: string, b: string): number {
  const ia = a[Symbol.iterator](), ib = b[Symbol.iterator]();
  for (;;) {
    const x = ia.next(), y = ib.next();
    if (x.done || y.done) return x.done ? (y.done ? 0 : -1) : 1;
    const d = x.value.codePointAt(0)! - y.value.codePointAt(0)!;
    if (d !== 0) return d;
  }
}

/** Drake's `<loop_joint>` elements: reported, not modelled (urdfdom and Pinocchio skip them silently). */
function warnLoopJoints(doc: Doc, robot: Node): void {
  for (const lj of children(robot, 'loop_joint')) {
    const name = attr(lj, 'name') ?? '';
    const parent = children(lj, 'parent')[0], child = children(lj, 'child')[0];
    const links = [parent && attr(parent, 'link'), child && attr(child, 'link')].filter((x): x is string => typeof x === 'string');
    const element = `loop joint "${name}"`;
    doc.warn('loop-joint-ignored', `${element}${links.length === 2 ? ` between links "${links[0]}" and "${links[1]}"` : ''} (Drake's <loop_joint>) is ignored: `
      + 'the model is the kinematic tree of the <joint> elements, so the loop is open and its closure constraint is not enforced', element, doc.lineOf(lj));
  }
}

/**
 * TinyXML (urdfdom's XML reader) skips white space before the XML declaration; an XML parser
 * must not. Move the declaration to the front and its leading white space after it: the same
 * characters on the same lines, so positions and line numbers of everything after it are kept.
 */
function declarationFirst(text: string): { text: string; movedFrom?: number } {
  const m = /^(\s+)(<\?xml\b[^?]*\?>)/.exec(text);
  if (!m) return { text };
  return { text: m[2] + m[1] + text.slice(m[0].length), movedFrom: m[1].split('\n').length };
}

/** Parse URDF text into a ModelSpec with side tables. Throws UrdfError. */
export function parseUrdf(input: string, opts: UrdfParseOptions = {}): UrdfSpec {
  // a byte-order mark is not content (TinyXML skips it too)
  const { text, movedFrom } = declarationFirst(input.charCodeAt(0) === 0xfeff ? input.slice(1) : input);
  const doc = new Doc(text, opts.file, opts.warn);
  if (movedFrom !== undefined) {
    doc.warn('xml-declaration-not-first', 'white space (a blank line) comes before the XML declaration <?xml …?>, which XML forbids; '
      + 'read as if the declaration came first, as urdfdom does', 'the XML declaration', movedFrom);
  }
  const valid = XMLValidator.validate(text);
  if (valid !== true) {
    // a file cut short is said to be, at its end; the validator's other findings in our words
    const p = xmlProblem(text, valid.err);
    throw doc.error(`malformed XML: ${p.message}`, undefined, p.line);
  }
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: A,
    parseAttributeValue: false,
    parseTagValue: false,
    // every element becomes an object (even `<link/>`), so every element carries its metadata
    alwaysCreateTextNode: true,
    captureMetaData: true,
  });
  let parsed: Node;
  try {
    parsed = parser.parse(text) as Node;
  } catch (e) {
    throw doc.error(`malformed XML: ${(e as Error).message}`);
  }
  const robots = children(parsed, 'robot');
  if (robots.length !== 1) throw doc.error(robots.length === 0 ? 'no <robot> element at the top level' : 'more than one <robot> element');
  const robot = robots[0];
  let name = attr(robot, 'name');
  if (name === undefined) throw doc.error('<robot> is missing required attribute name (urdfdom requires one)', undefined, doc.lineOf(robot));
  if (name.trim() === '') {
    const stem = opts.file ? opts.file.replace(/^.*[\\/]/, '').replace(/\.[^.]*$/, '') : '';
    const fallback = stem || 'unnamed';
    doc.warn('robot-name-empty', `<robot name="${name}"> is empty: the model is named "${fallback}"${stem ? ' after the file' : ''}`, '<robot>', doc.lineOf(robot));
    name = fallback;
  }

  const lines = { link: new Map<string, number>(), joint: new Map<string, number>() };
  const links: LinkSpec[] = [];
  for (const l of children(robot, 'link')) {
    const { spec, line } = parseLink(doc, l);
    links.push(spec);
    if (line !== undefined) lines.link.set(spec.name, line);
  }
  if (links.length === 0) throw doc.error(`robot "${name}" has no <link>`, undefined, doc.lineOf(robot));
  const parsedJoints = children(robot, 'joint').map((j) => parseJoint(doc, j));
  warnLoopJoints(doc, robot);
  for (const { info } of parsedJoints) if (info.line !== undefined) lines.joint.set(info.name, info.line);
  // urdfdom's std::map order (see header); Array.prototype.sort is stable, so duplicates keep file order
  parsedJoints.sort((a, b) => codePointCompare(a.spec.name, b.spec.name));
  return {
    name,
    links,
    joints: parsedJoints.map((p) => p.spec),
    file: opts.file,
    jointInfo: parsedJoints.map((p) => p.info),
    sensors: parseSensors(doc, robot),
    lines,
    warnings: doc.warnings,
  };
}

/** buildModel on a parsed URDF, turning its ModelErrors into UrdfErrors with the element's line. */
export function buildUrdf(urdf: UrdfSpec, opts: UrdfBuildOptions = {}): Model {
  const spec: ModelSpec = opts.gravity ? { ...urdf, gravity: opts.gravity } : urdf;
  try {
    return buildModel(spec, opts);
  } catch (e) {
    if (!(e instanceof ModelError)) throw e;
    const { joint, link } = e.item;
    const line = (joint !== undefined ? urdf.lines.joint.get(joint) : undefined)
      ?? (link !== undefined ? urdf.lines.link.get(link) : undefined);
    throw new UrdfError(e.message, { file: urdf.file, line, element: joint !== undefined ? `joint "${joint}"` : link !== undefined ? `link "${link}"` : undefined });
  }
}

/** URDF text → Model (parseUrdf then buildUrdf). */
export function modelFromUrdf(text: string, opts: UrdfParseOptions & UrdfBuildOptions = {}): Model {
  return buildUrdf(parseUrdf(text, opts), opts);
}
