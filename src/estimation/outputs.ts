/**
 * Named estimates of one sample: joint torques, joint accelerations, contact wrenches (in their
 * contact link frames, torque about the link origin), joint wrenches (wrench from the parent on the
 * child, child frame), per-sensor residuals; flattened for CSV. Accuracy against a sample's `truth`
 * (same layout as the reference estimation files: tau by joint, contact_wrenches by link).
 */
import { Flops } from '../spatial/flops.ts';
import { xApplyForce } from '../spatial/transform.ts';
import type { Estimator } from './estimator.ts';
import type { EstimationSystem } from './setup.ts';

/** A wrench as torque and force, 3 numbers each. */
export interface Wrench { torque: number[]; force: number[] }

/** One estimated sample by name: what `sparsedyn estimate` writes per sample. */
export interface NamedEstimate {
  tau: Record<string, number | number[]>;
  qdd: Record<string, number | number[]>;
  contact_wrenches: Record<string, Wrench>;
  joint_wrenches: Record<string, Wrench>;
  /** per sensor: root mean square of (reading residual / standard deviation) */
  residuals: Record<string, number>;
  /** standard deviation of each estimated joint torque (weighted least squares, on request) */
  tau_std?: Record<string, number | number[]>;
}

const fl = new Flops();
const w6 = new Float64Array(6);

/**
 * The estimate d of one sample by name: joint torques and accelerations, contact wrenches (contact
 * link frame), joint wrenches, per-sensor residuals; with `withStd` (redundant layouts) the
 * standard deviation of each torque.
 */
export function namedEstimate(es: EstimationSystem, est: Estimator, d: Float64Array, withStd = false): NamedEstimate {
  const model = es.model, L = es.sys.layout;
  const tau: Record<string, number | number[]> = {}, qdd: Record<string, number | number[]> = {};
  for (const j of model.movingJoints()) {
    const t = Array.from(d.subarray(L.tau[j.body], L.tau[j.body] + j.nv));
    const a = Array.from(d.subarray(L.qdd[j.body], L.qdd[j.body] + j.nv));
    tau[j.name] = j.nv === 1 ? t[0] : t;
    qdd[j.name] = j.nv === 1 ? a[0] : a;
  }
  const contact_wrenches: Record<string, Wrench> = {};
  for (const c of es.contacts) {
    xApplyForce(w6, c.X, d.subarray(L.fx[c.body], L.fx[c.body] + 6), fl);
    contact_wrenches[c.link] = { torque: [w6[0], w6[1], w6[2]], force: [w6[3], w6[4], w6[5]] };
  }
  const joint_wrenches: Record<string, Wrench> = {};
  for (let i = 0; i < model.nb; i++) {
    const f = d.subarray(L.f[i], L.f[i] + 6);
    joint_wrenches[model.jointNames[i]] = { torque: [f[0], f[1], f[2]], force: [f[3], f[4], f[5]] };
  }
  const residuals: Record<string, number> = {};
  const sys = es.sys;
  for (const s of es.sensors) {
    if (s.block < 0) continue;
    const r0 = sys.blockRow0[s.block], nr = s.inputs.length;
    let acc = 0;
    for (let r = r0; r < r0 + nr; r++) acc += (est.residual[r] * est.residual[r]) / s.spec.variance;
    residuals[s.spec.name] = Math.sqrt(acc / nr);
  }
  const out: NamedEstimate = { tau, qdd, contact_wrenches, joint_wrenches, residuals };
  if (withStd && est.mode === 'wls') {
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
