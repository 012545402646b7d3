/**
 * Named estimates of one sample: joint torques, joint accelerations, contact wrenches (in their
 * contact link frames, torque about the link origin), joint wrenches (wrench from the parent on the
 * child, child frame), per-sensor residuals; flattened for CSV with the unit of every column.
 * Accuracy against a log's `truth` (same layout as the reference estimation files: tau by joint,
 * contact_wrenches by link), per joint and contact, for the quantities that have truth only.
 */
import type { JointType } from '../model/joint.ts';
import type { Model } from '../model/model.ts';
import { Flops } from '../spatial/flops.ts';
import { xApplyForce } from '../spatial/transform.ts';
import type { Estimator } from './estimator.ts';
import type { EstimationSystem } from './setup.ts';
import { clearTruthNotes, truthNotes, type ReportSlots, type TruthNotes } from './report-values.ts';
import type { NamedEstimate, Wrench } from './named-estimate.ts';

export type { NamedEstimate, Wrench } from './named-estimate.ts';

const fl = new Flops();
/** a model's moving joints, listed once per model (namedEstimate runs once per sample) */
const jointLists = new WeakMap<Model, ReturnType<Model['movingJoints']>>();
function movingJointsOf(model: Model): ReturnType<Model['movingJoints']> {
  let js = jointLists.get(model);
  if (!js) { js = model.movingJoints(); jointLists.set(model, js); }
  return js;
}
const w6 = new Float64Array(6);

/**
 * The objects of a named estimate with every key already in place, in output order: a copy of one
 * (object spread) takes the template's shape, so that filling it adds no property. Objects built
 * key by key from `{}` turn into hash tables past a dozen keys, which every later reader (JSON
 * text, accuracy, report series) pays for.
 */
interface Templates {
  tau: Record<string, number | number[]>;
  joint_wrenches: Record<string, Wrench>;
  residuals: Record<string, number>;
  /** the sensors with equations, in system order (the residuals' keys) */
  sensors: EstimationSystem['sensors'];
}
const templates = new WeakMap<EstimationSystem, Templates>();
/** an object of these keys (all 0), built by JSON.parse so that its properties are fast ones */
const keysObject = (keys: readonly string[]): Record<string, never> => JSON.parse(`{${keys.map((k) => `${JSON.stringify(k)}:0`).join(',')}}`);
function templatesOf(es: EstimationSystem): Templates {
  let t = templates.get(es);
  if (!t) {
    const sensors = es.sensors.filter((s) => s.block >= 0);
    t = {
      tau: keysObject(movingJointsOf(es.model).map((j) => j.name)),
      joint_wrenches: keysObject(es.model.jointNames.slice(0, es.model.nb)),
      residuals: keysObject(sensors.map((s) => s.spec.name)),
      sensors,
    };
    templates.set(es, t);
  }
  return t;
}

/**
 * The estimate d of one sample by name: joint torques and accelerations, contact wrenches (contact
 * link frame), joint wrenches, per-sensor residuals; with `withStd` (redundant layouts) the
 * standard deviation of each torque.
 */
export function namedEstimate(es: EstimationSystem, est: Estimator, d: Float64Array, withStd = false): NamedEstimate {
  const model = es.model, L = es.sys.layout, T = templatesOf(es);
  const tau: Record<string, number | number[]> = { ...T.tau }, qdd: Record<string, number | number[]> = { ...T.tau };
  for (const j of movingJointsOf(model)) {
    const t0 = L.tau[j.body], a0 = L.qdd[j.body];
    if (j.nv === 1) { tau[j.name] = d[t0]; qdd[j.name] = d[a0]; continue; }
    const t = new Array<number>(j.nv), a = new Array<number>(j.nv);
    for (let k = 0; k < j.nv; k++) { t[k] = d[t0 + k]; a[k] = d[a0 + k]; }
    tau[j.name] = t;
    qdd[j.name] = a;
  }
  const contact_wrenches: Record<string, Wrench> = {};
  for (const c of es.contacts) {
    xApplyForce(w6, c.X, d.subarray(L.fx[c.body], L.fx[c.body] + 6), fl);
    contact_wrenches[c.link] = { torque: [w6[0], w6[1], w6[2]], force: [w6[3], w6[4], w6[5]] };
  }
  const joint_wrenches: Record<string, Wrench> = { ...T.joint_wrenches };
  for (let i = 0; i < model.nb; i++) {
    const f = L.f[i];
    joint_wrenches[model.jointNames[i]] = { torque: [d[f], d[f + 1], d[f + 2]], force: [d[f + 3], d[f + 4], d[f + 5]] };
  }
  const residuals: Record<string, number> = { ...T.residuals };
  const sys = es.sys;
  for (const s of T.sensors) {
    const r0 = sys.blockRow0[s.block], nr = s.inputs.length;
    let acc = 0;
    for (let r = r0; r < r0 + nr; r++) acc += (est.residual[r] * est.residual[r]) / s.spec.variance;
    residuals[s.spec.name] = Math.sqrt(acc / nr);
  }
  const out: NamedEstimate = { tau, qdd, contact_wrenches, joint_wrenches, residuals };
  if (withStd) {
    const cols: number[] = [];
    const js = model.movingJoints();
    for (const j of js) for (let k = 0; k < j.nv; k++) cols.push(L.tau[j.body] + k);
    const C = est.covariance(cols);
    const n = cols.length;
    const std: Record<string, number | number[]> = {};
    let k0 = 0;
    for (const j of js) {
      const s = Array.from({ length: j.nv }, (_, k) => Math.sqrt(Math.max(0, C[(k0 + k) * n + k0 + k])));
      std[j.name] = j.nv === 1 ? s[0] : s;
      k0 += j.nv;
    }
    out.tau_std = std;
  }
  return out;
}

/** Flat name → value map of an estimate (CSV columns). */
export function flatten(e: NamedEstimate): Map<string, number> {
  const m = new Map<string, number>();
  const put = (prefix: string, x: number | number[]) => {
    if (typeof x === 'number') m.set(prefix, x); else x.forEach((v, k) => m.set(`${prefix}[${k}]`, v));
  };
  for (const [k, v] of Object.entries(e.tau)) put(`tau.${k}`, v);
  for (const [k, v] of Object.entries(e.qdd)) put(`qdd.${k}`, v);
  const comps = ['tx', 'ty', 'tz', 'fx', 'fy', 'fz'];
  for (const [k, w] of Object.entries(e.contact_wrenches)) [...w.torque, ...w.force].forEach((v, c) => m.set(`contact.${k}.${comps[c]}`, v));
  for (const [k, w] of Object.entries(e.joint_wrenches)) [...w.torque, ...w.force].forEach((v, c) => m.set(`wrench.${k}.${comps[c]}`, v));
  for (const [k, v] of Object.entries(e.residuals)) m.set(`residual.${k}`, v);
  if (e.tau_std) for (const [k, v] of Object.entries(e.tau_std)) put(`tau_std.${k}`, v);
  return m;
}

/** Units (SI, ASCII) of a joint's generalized force and acceleration components, in velocity order. */
export function dofUnits(j: { type: JointType; nv: number }): { tau: string[]; qdd: string[] } {
  switch (j.type as string) {
    case 'prismatic': return { tau: ['N'], qdd: ['m/s^2'] };
    case 'floating': return { tau: ['N', 'N', 'N', 'N m', 'N m', 'N m'], qdd: ['m/s^2', 'm/s^2', 'm/s^2', 'rad/s^2', 'rad/s^2', 'rad/s^2'] };
    case 'planar': return { tau: ['N', 'N', 'N m'], qdd: ['m/s^2', 'm/s^2', 'rad/s^2'] };
    default: return { tau: Array(j.nv).fill('N m'), qdd: Array(j.nv).fill('rad/s^2') };
  }
}

/**
 * The unit of every column of `flatten` for this model ("" for dimensionless ones): the CSV header
 * names a column "<name> [<unit>]".
 */
export function columnUnits(model: Model): Map<string, string> {
  const u = new Map<string, string>([['t', 's'], ['line', ''], ['condition', '']]);
  for (const j of model.movingJoints()) {
    const { tau, qdd } = dofUnits(j);
    for (let k = 0; k < j.nv; k++) {
      const s = j.nv === 1 ? '' : `[${k}]`;
      u.set(`tau.${j.name}${s}`, tau[k]); u.set(`qdd.${j.name}${s}`, qdd[k]); u.set(`tau_std.${j.name}${s}`, tau[k]);
    }
  }
  return u;
}

/** "name [unit]", or the name alone for a dimensionless column */
export function csvColumn(name: string, units: Map<string, string>): string {
  const unit = unitOf(name, units);
  return unit ? `${name} [${unit}]` : name;
}

/** the unit of a column ('' for a dimensionless one) */
export function unitOf(name: string, units: Map<string, string>): string {
  const unit = units.get(name);
  if (unit !== undefined) return unit;
  if (/^(contact|wrench)\..*\.t[xyz]$/.test(name)) return 'N m';
  if (/^(contact|wrench)\..*\.f[xyz]$/.test(name)) return 'N';
  return '';
}


interface ErrorStats { n: number; sse: number; maxErr: number; maxTruth: number }
const stats = (): ErrorStats => ({ n: 0, sse: 0, maxErr: 0, maxTruth: 0 });
function addStat(s: ErrorStats, est: number, truth: number): void {
  const e = est - truth;
  s.n++; s.sse += e * e; s.maxErr = Math.max(s.maxErr, Math.abs(e)); s.maxTruth = Math.max(s.maxTruth, Math.abs(truth));
}

export interface AccuracyRow {
  /** joint name, or contact link and part ("l_sole force") */
  name: string;
  unit: string;
  samples: number;
  rmse: number;
  max_error: number;
  /** the largest |truth| of that quantity in the run */
  max_truth: number;
  /** max error over max_truth; null when the truth is 0 throughout (no relative figure: max_error is the one) */
  max_rel_error: number | null;
}

/**
 * Accuracy of a run against the truth a log carries (`truth.tau` by joint, `truth.contact_wrenches`
 * by contact link, torque and force in the contact frame): per joint and contact RMSE and largest
 * error in N·m or N, beside the relative figure. Names that match no joint or contact are kept to
 * be reported; quantities without truth have no figure. Each sample is taken as its row of
 * ReportSlots (`add` packs it; `addRow` takes a row packed elsewhere, e.g. by a worker thread).
 */
export class TruthComparison {
  readonly unknownJoints = new Set<string>();
  readonly unknownContacts = new Set<string>();
  /** truth entries that are not numbers of the right shape, by name */
  readonly malformed = new Set<string>();
  samples = 0;
  /** the places of a sample's values (contacts: the problem's, in its order) */
  readonly slots: ReportSlots;
  private readonly tau = new Map<string, ErrorStats[]>();
  private readonly contacts = new Map<string, { torque: ErrorStats; force: ErrorStats }>();
  private readonly row: Float64Array;
  private readonly notes: TruthNotes = truthNotes();

  constructor(readonly model: Model, slots: ReportSlots) {
    this.slots = slots;
    this.row = new Float64Array(this.slots.width);
  }

  add(e: NamedEstimate, truth: unknown): void {
    if (typeof truth !== 'object' || truth === null) return;
    const used = this.slots.pack(e, truth, this.row, 0, this.notes);
    this.note(this.notes);
    if (used) this.addRow(this.row, 0);
  }

  /** What samples' truth held that is unusable (TruthNotes, in the order met); the lists are emptied. */
  note(n: TruthNotes): void {
    for (const k of n.unknownJoints) this.unknownJoints.add(k);
    for (const k of n.unknownContacts) this.unknownContacts.add(k);
    for (const k of n.malformed) this.malformed.add(k);
    clearTruthNotes(n);
  }

  /** One sample's row of `slots` at v[at ..]; a sample with no truth value counts for nothing. */
  addRow(v: Float64Array, at: number): void {
    const S = this.slots;
    let used = false;
    for (const j of S.joints) {
      const o = at + S.truthTau + j.at;
      if (Number.isNaN(v[o])) continue;
      let st = this.tau.get(j.name);
      if (!st) { st = Array.from({ length: j.nv }, stats); this.tau.set(j.name, st); }
      for (let c = 0; c < j.nv; c++) addStat(st[c], v[at + S.tau + j.at + c], v[o + c]);
      used = true;
    }
    for (let k = 0; k < S.contacts.length; k++) {
      const o = at + S.truthContact + 6 * k, x = at + S.contact + 6 * k;
      if (Number.isNaN(v[o])) continue;
      let st = this.contacts.get(S.contacts[k]);
      if (!st) { st = { torque: stats(), force: stats() }; this.contacts.set(S.contacts[k], st); }
      for (let c = 0; c < 3; c++) { addStat(st.torque, v[x + c], v[o + c]); addStat(st.force, v[x + 3 + c], v[o + 3 + c]); }
      used = true;
    }
    if (used) this.samples++;
  }

  /** per-joint rows (model order, one per DoF), in N·m or N */
  jointRows(): AccuracyRow[] {
    const out: AccuracyRow[] = [];
    for (const j of this.model.movingJoints()) {
      const st = this.tau.get(j.name);
      if (!st) continue;
      const units = dofUnits(j).tau;
      st.forEach((s, k) => out.push(row(j.nv === 1 ? j.name : `${j.name}[${k}]`, units[k], s)));
    }
    return out;
  }

  /** per-contact rows: torque (N·m, about the contact frame's origin) and force (N), contact frame */
  contactRows(): AccuracyRow[] {
    const out: AccuracyRow[] = [];
    for (const [k, st] of this.contacts) out.push(row(`${k} torque`, 'N m', st.torque), row(`${k} force`, 'N', st.force));
    return out;
  }

  /** messages about the truth the run could not use */
  warnings(): string[] {
    const w: string[] = [];
    const list = (s: Set<string>) => [...s].slice(0, 8).map((x) => `"${x}"`).join(', ') + (s.size > 8 ? `, … (${s.size} in all)` : '');
    if (this.unknownJoints.size) w.push(`the log's truth names ${this.unknownJoints.size === 1 ? 'a joint' : 'joints'} the model does not have: ${list(this.unknownJoints)} (no accuracy figure for ${this.unknownJoints.size === 1 ? 'it' : 'them'})`);
    if (this.unknownContacts.size) w.push(`the log's truth names ${this.unknownContacts.size === 1 ? 'a contact' : 'contacts'} the problem does not have: ${list(this.unknownContacts)} (no accuracy figure for ${this.unknownContacts.size === 1 ? 'it' : 'them'})`);
    if (this.malformed.size) w.push(`truth values that are not finite numbers of the right shape were ignored: ${list(this.malformed)}`);
    return w;
  }
}

function row(name: string, unit: string, s: ErrorStats): AccuracyRow {
  return { name, unit, samples: s.n, rmse: Math.sqrt(s.sse / s.n), max_error: s.maxErr, max_truth: s.maxTruth, max_rel_error: s.maxTruth > 0 ? s.maxErr / s.maxTruth : null };
}

/** Largest relative errors of τ and of the contact wrenches against a truth object, when it has them. */
export function compareWithTruth(e: NamedEstimate, truth: unknown): { tau?: number; contact?: number } {
  if (typeof truth !== 'object' || truth === null) return {};
  const t = truth as { tau?: Record<string, number>; contact_wrenches?: Record<string, Wrench> };
  const out: { tau?: number; contact?: number } = {};
  if (t.tau) {
    let num = 0, den = 0;
    for (const [k, v] of Object.entries(t.tau)) {
      const x = e.tau[k];
      if (typeof x !== 'number' || typeof v !== 'number') continue;
      num = Math.max(num, Math.abs(x - v)); den = Math.max(den, Math.abs(v));
    }
    out.tau = den > 0 ? num / den : num;
  }
  if (t.contact_wrenches) {
    let num = 0, den = 0;
    for (const [k, w] of Object.entries(t.contact_wrenches)) {
      const x = e.contact_wrenches[k];
      if (!x) continue;
      const a = [...x.torque, ...x.force], b = [...w.torque, ...w.force];
      a.forEach((v, c) => { num = Math.max(num, Math.abs(v - b[c])); den = Math.max(den, Math.abs(b[c])); });
    }
    out.contact = den > 0 ? num / den : num;
  }
  return out;
}
