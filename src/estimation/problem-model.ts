/**
 * A problem file as an editable layout on a model, without I/O (for the browser playground and any
 * other tool that edits layouts in memory): the model of a problem from a generator SPEC or a URDF
 * text, the problem written back as the JSON `sparsedyn analyze` reads (defaults left out), the
 * items of a layout that do not fit a model, and the terms of an unobservable direction mapped back
 * to the links and joints of the model.
 */
import type { Model } from '../model/model.ts';
import { modelFromSpec } from '../model/spec.ts';
import { modelFromUrdf, parseUrdf } from '../model/urdf.ts';
import { ProblemError, sensorComponents, type ProblemFile, type SensorSpec } from './problem.ts';
import { rosJson } from './ros-mapping.ts';
import { sensorsFromUrdf } from './urdf-sensors.ts';

const urdfText = (problem: ProblemFile, urdfTexts: Readonly<Record<string, string>>): string | undefined => {
  const path = problem.model.trim().replace(/\+(floating|fixed)$/, '');
  if (!/\.urdf$/i.test(path)) return undefined;
  return urdfTexts[path] ?? urdfTexts[path.split(/[\\/]/).pop() ?? path];
};

/**
 * The problem with the URDF's <sensor> elements added when it asks for them (`urdf_sensors`), as
 * `sparsedyn analyze` does, from the URDF text in `urdfTexts`; names must not collide.
 */
export function withUrdfSensorsFromText(problem: ProblemFile, urdfTexts: Readonly<Record<string, string>>): ProblemFile {
  if (!problem.urdf_sensors) return problem;
  const text = urdfText(problem, urdfTexts);
  if (text === undefined) throw new ProblemError(`urdf_sensors: model "${problem.model}" is not a loaded URDF file`);
  const { sensors, notes } = sensorsFromUrdf(parseUrdf(text).sensors, problem.urdf_sensors);
  const taken = new Set(problem.sensors.map((s) => s.name));
  for (const s of sensors) if (taken.has(s.name)) throw new ProblemError(`urdf_sensors: sensor "${s.name}" of the URDF has the name of a sensor of the problem`);
  return { ...problem, sensors: [...problem.sensors, ...sensors], urdf_sensors: undefined, notes: [...(problem.notes ?? []), ...notes] };
}

/**
 * The model of a problem: `problem.model` is a generator SPEC (chain:N, tree:N:SEED, humanoid) or a
 * URDF file name whose text is in `urdfTexts` (looked up by the file's base name too). The base and
 * gravity are the problem's; URDF fixed joints that carry a force/torque sensor are kept as 0-DoF
 * joints, as `sparsedyn analyze` does.
 */
export function problemModel(problem: ProblemFile, urdfTexts: Readonly<Record<string, string>> = {}): Model {
  const spec = problem.model.trim().replace(/\+(floating|fixed)$/, '');
  const loadUrdf = (path: string, o: object) => {
    const base = path.split(/[\\/]/).pop() ?? path;
    const text = urdfTexts[path] ?? urdfTexts[base];
    if (text === undefined) throw new ProblemError(`model "${problem.model}": the URDF file "${base}" is not loaded`);
    return modelFromUrdf(text, o);
  };
  const opts = { floatingBase: problem.base === 'floating', gravity: problem.gravity, loadUrdf };
  let model = modelFromSpec(spec, opts);
  const keep = [...new Set(problem.sensors.filter((s) => s.type === 'force_torque' && !model.hasJoint(s.joint!)).map((s) => s.joint!))];
  if (keep.length > 0) {
    try {
      model = modelFromSpec(spec, { ...opts, keepFixed: keep });
    } catch {
      const s = problem.sensors.find((x) => x.type === 'force_torque' && keep.includes(x.joint!))!;
      throw new ProblemError(`sensor "${s.name}": joint "${s.joint}" is not a joint of model "${model.name}"`);
    }
  }
  return model;
}

/** A sensor as a problem file writes it: fields at their defaults left out. */
function sensorJson(s: SensorSpec): Record<string, unknown> {
  const o: Record<string, unknown> = { name: s.name, type: s.type };
  if (s.joints !== undefined) {
    if (Array.isArray(s.joints) && s.joints.length === 1) o.joint = s.joints[0];
    else o.joints = s.joints;
  }
  if (s.joint !== undefined) o.joint = s.joint;
  if (s.link !== undefined) o.link = s.link;
  const { xyz, rpy } = s.origin;
  if (xyz.some((x) => x !== 0) || rpy.some((x) => x !== 0)) o.origin = { xyz, rpy };
  const all = sensorComponents(s.type);
  if (all.length > 0 && !(s.components.length === all.length && s.components.every((c, k) => c === all[k]))) o.components = s.components;
  if (s.variance !== 1) o.variance = s.variance;
  if (s.measure_direction !== undefined) o.measure_direction = s.measure_direction;
  return o;
}

/**
 * The JSON text of a problem (schemas/problem.schema.json), as `parseProblem` reads it back to the
 * same problem: contacts without zero components as plain link names, defaults left out, one line
 * per contact, sensor and other list entry.
 */
export function problemJson(problem: ProblemFile, description?: string): string {
  const o: [string, unknown][] = [];
  if (description) o.push(['description', description]);
  o.push(['model', problem.model], ['base', problem.base]);
  if (problem.gravity) o.push(['gravity', problem.gravity]);
  if (problem.unactuated) o.push(['unactuated', problem.unactuated]);
  if (problem.unactuated_variance !== undefined) o.push(['unactuated_variance', problem.unactuated_variance]);
  o.push(['contacts', problem.contacts.map((c) => (c.zero.length || c.zero_variance !== undefined ? { ...c } : c.link))]);
  if (problem.contact_schedule) o.push(['contact_schedule', problem.contact_schedule]);
  if (problem.contact_detection) o.push(['contact_detection', problem.contact_detection]);
  if (problem.priors) o.push(['priors', problem.priors]);
  o.push(['sensors', problem.sensors.map(sensorJson)]);
  if (problem.urdf_sensors !== undefined) o.push(['urdf_sensors', problem.urdf_sensors]);
  if (problem.ros) o.push(['ros', rosJson(problem.ros)]);
  const field = ([k, v]: [string, unknown]) => {
    if (!Array.isArray(v) || v.every((x) => typeof x !== 'object')) return `  ${JSON.stringify(k)}: ${JSON.stringify(v)}`;
    return v.length === 0 ? `  ${JSON.stringify(k)}: []` : `  ${JSON.stringify(k)}: [\n${v.map((x) => `    ${JSON.stringify(x)}`).join(',\n')}\n  ]`;
  };
  return `{\n${o.map(field).join(',\n')}\n}\n`;
}

/**
 * The contacts and sensors of a problem that do not fit a model (a link or joint it lacks, a link
 * welded to the fixed world, a fixed joint), each with the reason; the problem without them.
 */
export function fitProblem(problem: ProblemFile, model: Model): { problem: ProblemFile; removed: string[] } {
  const removed: string[] = [];
  const linkOk = (link: string | undefined, what: string) => {
    if (link === undefined) return true;
    if (!model.hasFrame(link)) { removed.push(`${what}: link "${link}" is not a link of model "${model.name}"`); return false; }
    if (model.frame(link).body < 0) { removed.push(`${what}: link "${link}" is welded to the fixed world`); return false; }
    return true;
  };
  const contacts = problem.contacts.filter((c) => linkOk(c.link, `contact "${c.link}"`));
  const sensors: SensorSpec[] = [];
  for (const s of problem.sensors) {
    const what = `sensor "${s.name}"`;
    if (!linkOk(s.link, what)) continue;
    if (s.joint !== undefined && s.type !== 'force_torque' && !model.hasJoint(s.joint)) { removed.push(`${what}: joint "${s.joint}" is not a joint of model "${model.name}"`); continue; }
    if (s.type === 'force_torque' && !model.hasJoint(s.joint!)) { removed.push(`${what}: joint "${s.joint}" is not a joint of model "${model.name}"`); continue; }
    if (Array.isArray(s.joints)) {
      const ok = s.joints.filter((j) => model.hasJoint(j) && model.nvi[model.joint(j)] > 0);
      if (ok.length < s.joints.length) removed.push(`${what}: ${s.joints.filter((j) => !ok.includes(j)).map((j) => `joint "${j}"`).join(', ')} has no DoF in model "${model.name}"`);
      if (ok.length === 0) continue;
      sensors.push({ ...s, joints: ok });
      continue;
    }
    sensors.push(s);
  }
  const unactuated = problem.unactuated?.filter((j) => model.hasJoint(j));
  return { problem: { ...problem, contacts, sensors, unactuated }, removed };
}

/** Where a variable of a direction lives on the model, and what it moves or pushes. */
export interface VariableSite {
  /** the variable's name as the analysis prints it */
  name: string;
  /** w: contact wrench (contact link frame); a: body acceleration; f: joint wrench; fx: external wrench; tau, qdd: joint */
  kind: 'w' | 'a' | 'f' | 'fx' | 'tau' | 'qdd';
  /** the body whose frame the component is in (−1 when unknown to the model) */
  body: number;
  /** the link (w, a, fx) or joint (f, tau, qdd) named */
  item: string;
  /** component index: 0–2 angular (torque, angular acceleration), 3–5 linear; the DoF for tau/qdd */
  component: number;
}

const COMPONENT_INDEX: Record<string, number> = {
  tx: 0, ty: 1, tz: 2, fx: 3, fy: 4, fz: 5, wx: 0, wy: 1, wz: 2, vx: 3, vy: 4, vz: 5,
};

/**
 * The terms of an unobservable direction as `analyzeProblem` prints it ("w[l_sole].tz − 0.5·w[r_sole].tz"),
 * with their coefficients and their sites on the model.
 */
export function directionTerms(model: Model, direction: string): { coef: number; site: VariableSite }[] {
  const out: { coef: number; site: VariableSite }[] = [];
  // each term: an optional sign, an optional "c·", a variable name (brackets, dots)
  const re = /(^|\s)([−+-]\s)?(?:([0-9.eE+-]+)·)?((?:w|a|f|fx|tau|qdd)\[[^\]]+\](?:\[\d+\])?(?:\.[a-z]+)?)/g;
  for (const m of direction.matchAll(re)) {
    const sign = m[2] && /[−-]/.test(m[2]) ? -1 : 1;
    const coef = sign * (m[3] ? Number(m[3]) : 1);
    const name = m[4];
    const v = /^(w|a|f|fx|tau|qdd)\[([^\]]+)\](?:\[(\d+)\])?(?:\.([a-z]+))?$/.exec(name);
    if (!v) continue;
    const kind = v[1] as VariableSite['kind'];
    const item = v[2];
    let body = -1;
    let component = 0;
    if (kind === 'w' || kind === 'a' || kind === 'fx') {
      if (model.hasFrame(item)) body = model.frame(item).body;
      component = COMPONENT_INDEX[v[4] ?? ''] ?? 0;
    } else {
      if (model.hasJoint(item)) body = model.joint(item);
      component = kind === 'f' ? COMPONENT_INDEX[v[4] ?? ''] ?? 0 : Number(v[3] ?? 0);
    }
    out.push({ coef, site: { name, kind, body, item, component } });
  }
  return out;
}
