/**
 * The values a run's reports take from each estimated sample (the accuracy against the log's truth,
 * TruthComparison; the HTML report's time series, EstimateSeries), at fixed places of one row of
 * numbers: every degree of freedom's torque, its standard deviation, every contact wrench, every
 * sensor's residual, and the log's truth of the torques and contact wrenches; NaN where the sample
 * has no such value. A worker thread of `estimate --jobs` sends its batch's rows as one
 * Float64Array instead of each sample's estimate and truth as objects; one job packs the same rows:
 * both reports are made from the same numbers, in the same order.
 *
 * A truth entry is used only when it has the estimate's shape and finite numbers (a 1-DoF joint's
 * torque: a number or a list of one; an n-DoF joint's: a list of n; a contact's: torque and force
 * lists of 3); names the estimate does not have and entries of another shape are noted, by name.
 */
import type { Model } from '../model/model.ts';
import type { NamedEstimate, Wrench } from './named-estimate.ts';

/** What a sample's truth held that the reports cannot use, in the order met. */
export interface TruthNotes {
  unknownJoints: string[];
  unknownContacts: string[];
  /** e.g. `tau of joint "knee"`, `wrench of contact "foot"` */
  malformed: string[];
}

/** Empty TruthNotes. */
export function truthNotes(): TruthNotes {
  return { unknownJoints: [], unknownContacts: [], malformed: [] };
}

/** Empty the lists of `n` (kept for the next samples). */
export function clearTruthNotes(n: TruthNotes): void {
  n.unknownJoints.length = 0; n.unknownContacts.length = 0; n.malformed.length = 0;
}

/** A moving joint's place among the degrees of freedom. */
export interface SlotJoint { name: string; nv: number; at: number }

export class ReportSlots {
  /** the moving joints, in model order, with their first degree of freedom */
  readonly joints: SlotJoint[];
  /** degrees of freedom */
  readonly ndof: number;
  /** offsets of the parts of a row: torques, their standard deviations, contact wrenches (6 each: torque, force), residuals, the truth's torques and contact wrenches */
  readonly tau: number;
  readonly std: number;
  readonly contact: number;
  readonly residual: number;
  readonly truthTau: number;
  readonly truthContact: number;
  /** numbers per row */
  readonly width: number;
  private readonly jointAt = new Map<string, SlotJoint>();
  private readonly contactAt = new Map<string, number>();
  private readonly sensorAt = new Map<string, number>();

  constructor(model: Model, readonly contacts: readonly string[], readonly sensors: readonly string[]) {
    let at = 0;
    this.joints = model.movingJoints().map((j) => { const s = { name: j.name, nv: j.nv, at }; at += j.nv; return s; });
    for (const j of this.joints) this.jointAt.set(j.name, j);
    contacts.forEach((c, k) => this.contactAt.set(c, k));
    sensors.forEach((s, k) => this.sensorAt.set(s, k));
    this.ndof = at;
    this.tau = 0;
    this.std = at;
    this.contact = 2 * at;
    this.residual = this.contact + 6 * contacts.length;
    this.truthTau = this.residual + sensors.length;
    this.truthContact = this.truthTau + at;
    this.width = this.truthContact + 6 * contacts.length;
  }

  /**
   * Write one sample's row at `out[at ..]`: NaN first, then what the estimate and the truth have.
   * Returns whether the truth had a usable value; what it had that is unusable goes to `notes`.
   */
  pack(e: NamedEstimate, truth: unknown, out: Float64Array, at: number, notes: TruthNotes): boolean {
    out.fill(NaN, at, at + this.width);
    for (const j of this.joints) {
      dof(e.tau[j.name], out, at + this.tau + j.at, j.nv);
      if (e.tau_std) dof(e.tau_std[j.name], out, at + this.std + j.at, j.nv);
    }
    for (let k = 0; k < this.contacts.length; k++) {
      const w = e.contact_wrenches[this.contacts[k]];
      if (w) wrench(w, out, at + this.contact + 6 * k);
    }
    for (const s in e.residuals) {
      const k = this.sensorAt.get(s);
      if (k !== undefined) out[at + this.residual + k] = e.residuals[s];
    }
    if (typeof truth !== 'object' || truth === null) return false;
    const t = truth as { tau?: unknown; contact_wrenches?: unknown };
    let used = false;
    // loops rather than entries/map/every: this runs once per sample
    if (typeof t.tau === 'object' && t.tau !== null) {
      const tt = t.tau as Record<string, unknown>;
      for (const k in tt) {
        const j = this.jointAt.get(k);
        if (j === undefined) { notes.unknownJoints.push(k); continue; }
        const v = tt[k], o = at + this.truthTau + j.at;
        if (j.nv === 1) {
          const x = typeof v === 'number' ? v : Array.isArray(v) && v.length === 1 ? v[0] : undefined;
          if (!(typeof x === 'number' && Number.isFinite(x))) { notes.malformed.push(`tau of joint "${k}"`); continue; }
          out[o] = x;
        } else {
          let ok = Array.isArray(v) && v.length === j.nv;
          if (ok) for (let c = 0; c < j.nv; c++) if (!(typeof (v as unknown[])[c] === 'number' && Number.isFinite((v as number[])[c]))) { ok = false; break; }
          if (!ok) { notes.malformed.push(`tau of joint "${k}"`); continue; }
          for (let c = 0; c < j.nv; c++) out[o + c] = (v as number[])[c];
        }
        used = true;
      }
    }
    if (typeof t.contact_wrenches === 'object' && t.contact_wrenches !== null) {
      const tw = t.contact_wrenches as Record<string, unknown>;
      for (const k in tw) {
        const c = this.contactAt.get(k);
        if (c === undefined) { notes.unknownContacts.push(k); continue; }
        const w = tw[k] as { torque?: unknown; force?: unknown } | null;
        if (typeof w !== 'object' || w === null || !finite3(w.torque) || !finite3(w.force)) { notes.malformed.push(`wrench of contact "${k}"`); continue; }
        wrench(w as Wrench, out, at + this.truthContact + 6 * c);
        used = true;
      }
    }
    return used;
  }
}

/** a joint's value (a number, or a list for several degrees of freedom) at out[o ..] */
function dof(x: number | number[] | undefined, out: Float64Array, o: number, nv: number): void {
  if (typeof x === 'number') out[o] = x;
  else if (x !== undefined) for (let c = 0; c < nv && c < x.length; c++) out[o + c] = x[c];
}

function wrench(w: Wrench, out: Float64Array, o: number): void {
  for (let c = 0; c < 3; c++) { out[o + c] = w.torque[c]; out[o + 3 + c] = w.force[c]; }
}

/** a list of 3 finite numbers */
function finite3(a: unknown): a is number[] {
  return Array.isArray(a) && a.length === 3 && typeof a[0] === 'number' && Number.isFinite(a[0]) && typeof a[1] === 'number' && Number.isFinite(a[1]) && typeof a[2] === 'number' && Number.isFinite(a[2]);
}
