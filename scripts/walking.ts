/**
 * A walking-like motion of the project's humanoid for the demo log and the tests: double support,
 * left single support (right foot swinging), double support, right single support, and so on, each
 * phase `phase` seconds. Joints move sinusoidally, the base turns about the vertical and sways; in
 * double support the left sole carries a smooth random wrench and the right sole the wrench that
 * leaves the unactuated base with none; in single support the stance sole alone carries the robot
 * and the swinging sole has no external wrench. True values from RNEA (src/estimation/synthesize.ts),
 * each sensor's ideal reading from the spatial kernels; optional Gaussian noise with each sensor's
 * variance. Seeded: reproducible.
 */
import { idealReadings, synthesize, type Truth } from '../src/estimation/synthesize.ts';
import type { EstimationSystem } from '../src/estimation/setup.ts';
import type { EstimateRecord } from '../src/estimation/session.ts';
import type { Sample } from '../src/estimation/sample.ts';
import { contactWrenches } from '../src/estimation/synth.ts';
import { LogRowWriter } from '../src/io/synth-log.ts';
import { Rng } from '../src/model/rng.ts';
import { rotFromQuat } from '../src/spatial/vec3.ts';

/** One sample of the walk: time, state, active contacts, truth and ideal (or noisy) readings. */
export interface WalkSample {
  t: number;
  q: Float64Array;
  v: Float64Array;
  contacts: string[];
  truth: Truth;
  readings: Map<string, number[]>;
}

/** The contacts of the walk at time t: double support, left single, double, right single, … */
export function walkContacts(t: number, phase: number): string[] {
  const k = Math.floor(t / phase + 1e-9) % 4;
  return k === 0 || k === 2 ? ['l_sole', 'r_sole'] : k === 1 ? ['l_sole'] : ['r_sole'];
}

/** `n` samples of the walk every `dt` seconds; with `noise`, readings get Gaussian noise of each sensor's variance. */
export function walkingSamples(es: EstimationSystem, n: number, opts: { dt?: number; phase?: number; seed?: number; noise?: boolean } = {}): WalkSample[] {
  const model = es.model, dt = opts.dt ?? 0.01, phase = opts.phase ?? 0.4;
  const rng = new Rng(opts.seed ?? 2025);
  const joints = model.movingJoints().filter((j) => j.type !== 'floating');
  const amp = joints.map(() => rng.uniform(0.1, 0.4)), freq = joints.map(() => rng.uniform(0.5, 2)), ph = joints.map(() => rng.uniform(0, 2 * Math.PI));
  const wrenchAmp = [5, 5, 5, 40, 40, 40], wrenchFreq = Array.from({ length: 6 }, () => rng.uniform(0.3, 1.5));
  const noise = new Rng((opts.seed ?? 2025) + 1);
  const lb = model.frame('l_sole').body, rb = model.frame('r_sole').body;
  const Omega = 0.3;
  const out: WalkSample[] = [];
  for (let s = 0; s < n; s++) {
    const t = s * dt;
    const q = new Float64Array(model.nq), v = new Float64Array(model.nv), a = new Float64Array(model.nv);
    const half = (Omega * t) / 2;
    const quat = [0, 0, Math.sin(half), Math.cos(half)];
    const p = [0.1 * t, 0.03 * Math.sin(Math.PI * t / phase), 0.85];
    const pd = [0.1, 0.03 * Math.PI / phase * Math.cos(Math.PI * t / phase), 0];
    const pdd = [0, -0.03 * (Math.PI / phase) ** 2 * Math.sin(Math.PI * t / phase), 0];
    const R = rotFromQuat(new Float64Array(9), quat[0], quat[1], quat[2], quat[3]);
    const RT = (x: number[]) => [0, 1, 2].map((i) => R[i] * x[0] + R[3 + i] * x[1] + R[6 + i] * x[2]);
    const w = [0, 0, Omega];
    const vb = RT(pd);
    const ab = RT(pdd).map((x, i) => x - [w[1] * vb[2] - w[2] * vb[1], w[2] * vb[0] - w[0] * vb[2], w[0] * vb[1] - w[1] * vb[0]][i]);
    for (let k = 0; k < 3; k++) { q[k] = p[k]; v[k] = vb[k]; v[3 + k] = w[k]; a[k] = ab[k]; }
    for (let k = 0; k < 4; k++) q[3 + k] = quat[k];
    joints.forEach((j, k) => {
      const th = freq[k] * t + ph[k];
      q[j.iq] = amp[k] * Math.sin(th);
      v[j.iv] = amp[k] * freq[k] * Math.cos(th);
      a[j.iv] = -amp[k] * freq[k] * freq[k] * Math.sin(th);
    });
    const contacts = walkContacts(t, phase);
    const fext = Array.from({ length: model.nb }, () => new Float64Array(6));
    let balance: number;
    if (contacts.length === 2) {
      for (let k = 0; k < 6; k++) fext[lb][k] = wrenchAmp[k] * Math.sin(wrenchFreq[k] * t) + (k === 5 ? 300 : 0);
      balance = rb;
    } else balance = contacts[0] === 'l_sole' ? lb : rb;
    const truth = synthesize(model, q, v, a, fext, balance);
    const ideal = idealReadings(es, truth);
    if (opts.noise) {
      for (const si of es.sensors) {
        if (si.spec.type === 'gyroscope') continue;
        const sd = Math.sqrt(si.spec.variance);
        ideal.set(si.spec.name, ideal.get(si.spec.name)!.map((x) => x + sd * noise.normal()));
      }
    }
    out.push({ t, q, v, contacts, truth, readings: ideal });
  }
  return out;
}

/** The NDJSON row of a walk sample (the shipped log's format, written by the library's LogRowWriter); `round` rounds every number. */
export function walkRow(es: EstimationSystem, s: WalkSample, round: (x: number) => number = (x) => x): Record<string, unknown> {
  const row = new LogRowWriter(es, { round, truthContacts: true }).object({ ...s, wrenches: contactWrenches(es, s.truth) });
  // every reading of the sample, also those of sensors `es` does not have (tests read samples made for another layout)
  row.sensors = Object.fromEntries([...s.readings].map(([k, r]) => [k, r.map(round)]));
  return row;
}

/** A walk sample as a parsed log row of `es`: its readings (less those `drop` names), and with `contacts` the contacts it names. */
export function walkSample(es: EstimationSystem, w: WalkSample, line: number, opts: { drop?: string[]; contacts?: boolean } = {}): Sample {
  const readings = new Map<string, Float64Array>();
  for (const s of es.sensors) if (s.block >= 0 && !(opts.drop ?? []).includes(s.spec.name)) readings.set(s.spec.name, Float64Array.from(w.readings.get(s.spec.name)!));
  const out: Sample = { line, t: w.t, q: w.q, v: w.v, readings };
  if (opts.contacts) out.contacts = w.contacts;
  return out;
}

/** max |x − t| / max |t| over the joint torques, and over the contact wrenches (contact frames), of an estimate against its walk sample's truth */
export function walkErrors(es: EstimationSystem, r: EstimateRecord, w: WalkSample): { tau: number; contacts: number } {
  const row = walkRow(es, w) as { truth: { tau: Record<string, number>; contact_wrenches: Record<string, { torque: number[]; force: number[] }> } };
  let nt = 0, dt = 0, nc = 0, dc = 0;
  for (const [j, v] of Object.entries(row.truth.tau)) { nt = Math.max(nt, Math.abs((r.estimate.tau[j] as number) - v)); dt = Math.max(dt, Math.abs(v)); }
  for (const [c, w6] of Object.entries(row.truth.contact_wrenches)) {
    const e = r.estimate.contact_wrenches[c];
    [...w6.torque, ...w6.force].forEach((v, k) => { nc = Math.max(nc, Math.abs([...e.torque, ...e.force][k] - v)); dc = Math.max(dc, Math.abs(v)); });
  }
  return { tau: nt / dt, contacts: nc / dc };
}
