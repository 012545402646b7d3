/**
 * samples = synthSamples(es, opts): a synthetic log with its truth, for any problem and robot (what
 * `sparsedyn synth` writes). Per sample:
 * - the motion: every joint on a smooth path inside its limits, q = q₀ ⊕ θ(t) n (lie.ts), one
 *   direction n per joint, so that q̇ = θ̇ n and q̈ = θ̈ n exactly for every joint type (a
 *   one-parameter subgroup; a floating base turns about and slides along one screw axis). θ(t) is a
 *   cubic polynomial over the log (`polynomial`, default: θ = Σ aₖ Tₖ(x) / Σ|aₖ|, Chebyshev
 *   polynomials of x = 2t/T − 1, T the log's duration or 2 s if longer, |θ| ≤ 1 on the whole log)
 *   or a sinusoid of 0.2 to 0.8 Hz (`sines`). Local fits of
 *   order 3 differentiate cubic paths exactly: a log of positions alone gives the same estimates.
 * - the contacts: the problem's (all of them, or its contact_schedule, or `opts.schedule`), each
 *   active one with a smooth wrench in its link frame, zero in the components the problem knows to
 *   be zero; inactive ones carry none. Where the problem has unactuated joints (a floating base), the
 *   wrenches are the ones nearest (least squares, N and N·m alike) to a nominal share
 *   of the robot's weight that leave every unactuated joint with τ = 0: the robot is held by its
 *   contacts, as `synthesize(…, balance)` holds it by one.
 * - the truth: RNEA with those wrenches (synthesize.ts): τ, body accelerations, joint wrenches; each
 *   sensor's ideal reading (idealReadings), plus Gaussian noise of standard deviation
 *   `noise`·√variance. A gyroscope's readings are kinematics, which the estimator takes as exact
 *   (they are the base's angular velocity): they get no noise.
 * The motion does not keep a contact link still: contacts are unknown wrenches (Nori 2017 §VI), not
 * kinematic constraints, and the estimator does not use contact kinematics. Seeded: the same options
 * give the same samples, number for number.
 */
import { forwardKinematics, KinematicsWorkspace } from '../algorithms/kinematics.ts';
import { rnea, RneaWorkspace } from '../algorithms/rnea.ts';
import { integrate } from '../model/lie.ts';
import type { Model } from '../model/model.ts';
import { neutral } from '../model/neutral.ts';
import { Rng } from '../model/rng.ts';
import { Flops } from '../spatial/flops.ts';
import { xApplyForce, xApplyMotion, xCompose, xTransposeApplyForce } from '../spatial/transform.ts';
import { WRENCH_COMPONENTS, type ContactPhase } from './problem.ts';
import type { EstimationSystem } from './setup.ts';
import { idealReadings, synthesize, type Truth } from './synthesize.ts';

/** How joints move in a synthetic log: one cubic polynomial over the log, or a sinusoid. */
export type SynthMotion = 'polynomial' | 'sines';

/** Options of {@link synthSamples}; {@link SYNTH_DEFAULTS} gives the defaults. */
export interface SynthOptions {
  /** number of samples */
  samples?: number;
  /** sample rate, Hz (t = k / rate, k = 0 … samples − 1) */
  rate?: number;
  /** seed of the motion, the wrenches and the noise */
  seed?: number;
  /** scale of each sensor's standard deviation √variance (0: ideal readings) */
  noise?: number;
  /** the joints' paths */
  motion?: SynthMotion;
  /** largest excursion of a joint from its centre, rad (a prismatic joint: a fifth of it, m), inside its limits */
  amplitude?: number;
  /** active contacts by time, instead of the problem's contact_schedule (or all its contacts) */
  schedule?: ContactPhase[];
}

/** The defaults of {@link SynthOptions}. */
export const SYNTH_DEFAULTS = { samples: 300, rate: 100, seed: 1, noise: 1, motion: 'polynomial', amplitude: 0.5 } as const;

/** One sample of a synthetic log: the state, the active contacts, the truth and the readings. */
export interface SynthSample {
  /** time, s */
  t: number;
  /** configuration, velocity and acceleration (model order) */
  q: Float64Array;
  v: Float64Array;
  qdd: Float64Array;
  /** the contacts active at t (links, in the problem's order) */
  contacts: string[];
  /** per contact of the problem (es.contacts order): its wrench [tx ty tz fx fy fz] in the link frame, torque about the link origin; zero when inactive */
  wrenches: Float64Array[];
  /** RNEA's values: τ, external and joint wrenches, body accelerations and velocities */
  truth: Truth;
  /** each sensor's readings (ideal + noise), by name, in the sensor's input order */
  readings: Map<string, number[]>;
}

/** A synthetic log that cannot be made as asked (the message says why, in the problem's words). */
export class SynthError extends Error {
  override name = 'SynthError';
}

/** The contacts a schedule makes active at time t (the first entry's before it starts), or null without a schedule. */
export function scheduledContacts(schedule: readonly ContactPhase[] | undefined, t: number): string[] | null {
  if (!schedule || schedule.length === 0) return null;
  let phase = schedule[0];
  for (const p of schedule) if (p.t <= t) phase = p;
  return phase.contacts;
}

/** Each contact's wrench in its link frame (ᴸX*_i f^x_i), from a truth's external wrenches: what a log's truth carries. */
export function contactWrenches(es: EstimationSystem, truth: Truth): Float64Array[] {
  const fl = new Flops();
  return es.contacts.map((c) => xApplyForce(new Float64Array(6), c.X, truth.fext[c.body], fl));
}

/** A smooth scalar path θ(t) with |θ| ≤ 1 over the log, and its first two time derivatives. */
type Path = (t: number, out: Float64Array) => void;

function makePath(rng: Rng, motion: SynthMotion, T: number): Path {
  if (motion === 'sines') {
    const w = 2 * Math.PI * rng.uniform(0.2, 0.8), ph = rng.uniform(0, 2 * Math.PI);
    return (t, out) => { const s = Math.sin(w * t + ph), c = Math.cos(w * t + ph); out[0] = s; out[1] = w * c; out[2] = -w * w * s; };
  }
  // Σ aₖ Tₖ(x) / Σ|aₖ| with T₁ = x, T₂ = 2x² − 1, T₃ = 4x³ − 3x: |θ| ≤ 1 for x in [−1, 1]; a cubic part of at least a third
  const a1 = rng.uniform(-1, 1), a2 = rng.uniform(-1, 1), a3 = (rng.next() < 0.5 ? -1 : 1) * rng.uniform(0.5, 1);
  const S = Math.abs(a1) + Math.abs(a2) + Math.abs(a3), k = 2 / T;
  return (t, out) => {
    const x = k * t - 1;
    out[0] = (a1 * x + a2 * (2 * x * x - 1) + a3 * (4 * x * x * x - 3 * x)) / S;
    out[1] = ((a1 + 4 * a2 * x + a3 * (12 * x * x - 3)) / S) * k;
    out[2] = ((4 * a2 + 24 * a3 * x) / S) * k * k;
  };
}

/** ᶠX_0 (world → frame) of a frame X on body `body`, from the kinematics' ⁱX_λ. */
function frameFromWorld(model: Model, kin: KinematicsWorkspace, body: number, X: Float64Array, fl: Flops): Float64Array {
  const out = Float64Array.from(X);
  for (let i = body; i >= 0; i = model.parents[i]) xCompose(out, out, kin.Xup[i], fl);
  return out;
}

/** The degrees of freedom of the unactuated joints (τ = 0): the problem's list, or the floating base. */
function unactuatedDofs(es: EstimationSystem): number[] {
  const model = es.model;
  const names = es.problem.unactuated ?? (model.floatingBase ? [model.jointNames[0]] : []);
  const out: number[] = [];
  for (const n of names) { const i = model.joint(n); for (let k = 0; k < model.nvi[i]; k++) out.push(model.iv[i] + k); }
  return out;
}

/**
 * Solve the small symmetric system A y = b (n×n, row-major) by Gaussian elimination with complete
 * pivoting, dropping pivots below `tol`·(largest): the minimum-norm-like solution of a singular but
 * consistent system (the caller checks the residual). A and b are overwritten.
 */
function solveSmall(A: Float64Array, b: Float64Array, n: number): Float64Array {
  const perm = Array.from({ length: n }, (_, k) => k);
  let big = 0;
  for (let k = 0; k < n * n; k++) big = Math.max(big, Math.abs(A[k]));
  const tol = 1e-12 * big;
  let rank = 0;
  for (let k = 0; k < n; k++) {
    let p = -1, q = -1, best = tol;
    for (let i = k; i < n; i++) for (let j = k; j < n; j++) if (Math.abs(A[i * n + j]) > best) { best = Math.abs(A[i * n + j]); p = i; q = j; }
    if (p < 0) break;
    rank++;
    if (p !== k) { for (let j = 0; j < n; j++) { const x = A[k * n + j]; A[k * n + j] = A[p * n + j]; A[p * n + j] = x; } const x = b[k]; b[k] = b[p]; b[p] = x; }
    if (q !== k) { for (let i = 0; i < n; i++) { const x = A[i * n + k]; A[i * n + k] = A[i * n + q]; A[i * n + q] = x; } const x = perm[k]; perm[k] = perm[q]; perm[q] = x; }
    for (let i = k + 1; i < n; i++) {
      const f = A[i * n + k] / A[k * n + k];
      if (f === 0) continue;
      for (let j = k; j < n; j++) A[i * n + j] -= f * A[k * n + j];
      b[i] -= f * b[k];
    }
  }
  const z = new Float64Array(n);
  for (let k = rank - 1; k >= 0; k--) {
    let s = b[k];
    for (let j = k + 1; j < rank; j++) s -= A[k * n + j] * z[j];
    z[k] = s / A[k * n + k];
  }
  const y = new Float64Array(n);
  for (let k = 0; k < n; k++) y[perm[k]] = z[k];
  return y;
}

/** The samples of a synthetic log of a problem (see the file header). Throws SynthError when the contacts cannot hold the motion. */
export function synthSamples(es: EstimationSystem, opts: SynthOptions = {}): SynthSample[] {
  const model = es.model;
  const N = opts.samples ?? SYNTH_DEFAULTS.samples, rate = opts.rate ?? SYNTH_DEFAULTS.rate;
  const motion = opts.motion ?? SYNTH_DEFAULTS.motion, amp = opts.amplitude ?? SYNTH_DEFAULTS.amplitude;
  const noise = opts.noise ?? SYNTH_DEFAULTS.noise, seed = opts.seed ?? SYNTH_DEFAULTS.seed;
  if (!(Number.isInteger(N) && N >= 1)) throw new SynthError(`samples must be a positive integer, got ${N}`);
  if (!(rate > 0 && Number.isFinite(rate))) throw new SynthError(`the rate must be a positive number of Hz, got ${rate}`);
  if (!(amp > 0 && Number.isFinite(amp))) throw new SynthError(`the amplitude must be a positive number of rad, got ${amp}`);
  if (!(noise >= 0 && Number.isFinite(noise))) throw new SynthError(`the noise scale must be a number >= 0, got ${noise}`);
  if (motion !== 'polynomial' && motion !== 'sines') throw new SynthError(`motion must be polynomial or sines, got "${String(motion)}"`);
  const schedule = opts.schedule ?? es.problem.contact_schedule;
  const links = new Set(es.contacts.map((c) => c.link));
  for (const p of schedule ?? []) for (const c of p.contacts) if (!links.has(c)) throw new SynthError(`contact schedule at t = ${p.t} s: "${c}" is not a contact of the problem (${[...links].join(', ') || 'none'})`);
  // the paths' time scale: the log's duration, at least 2 s (a short log is a part of a slow motion, not a fast one)
  const T = Math.max((N - 1) / rate, 2);
  const rng = new Rng(seed), noiseRng = new Rng(seed + 7919);

  // the motion: q = q0 ⊕ Σ θ_j(t) n_j
  const q0 = neutral(model);
  const dirs: { iv: number; n: Float64Array; path: Path }[] = [];
  for (const j of model.movingJoints()) {
    const n = new Float64Array(j.nv);
    if (j.type === 'floating') {
      // a screw: about a mostly vertical axis (0.3 rad) and along a random direction (5 cm)
      const u = rng.unitVector(), w = [0.3 * rng.uniform(-1, 1), 0.3 * rng.uniform(-1, 1), 1], wn = Math.hypot(w[0], w[1], w[2]);
      for (let k = 0; k < 3; k++) { n[k] = 0.05 * u[k]; n[3 + k] = (0.3 * w[k]) / wn; }
    } else if (j.nv === 1) {
      const lim = model.limits[j.body];
      const scale = j.type === 'prismatic' ? 0.2 : 1;
      const lo = lim?.lower ?? -Infinity, hi = lim?.upper ?? Infinity;
      const A = Math.min(amp * scale, (hi - lo) / 2);
      // centre as near 0 as the limits allow: the path stays in [c − A, c + A] ⊂ [lower, upper]
      q0[j.iq] = Math.min(Math.max(0, lo + A), hi - A);
      n[0] = A;
    } else {
      // spherical: a rotation about a random axis; planar: a random direction of (x, y, θ)
      const u = rng.unitVector();
      if (j.type === 'planar') { n[0] = 0.2 * amp * u[0]; n[1] = 0.2 * amp * u[1]; n[2] = amp * u[2]; } else for (let k = 0; k < 3; k++) n[k] = amp * u[k];
    }
    dirs.push({ iv: j.iv, n, path: makePath(rng, motion, T) });
  }
  // nominal contact wrenches: a share of the weight (floating base) or a tenth of it (fixed base), varying smoothly
  const mass = model.totalMass(), g = model.gravity, gn = Math.hypot(g[0], g[1], g[2]);
  const variation = es.contacts.map(() => Array.from({ length: 6 }, () => makePath(rng, motion, T)));
  const zeroOf = es.problem.contacts.map((c) => new Set(c.zero.map((z) => WRENCH_COMPONENTS.indexOf(z as never))));
  const U = unactuatedDofs(es);

  const kin = new KinematicsWorkspace(model), ws = new RneaWorkspace(model), fl = new Flops();
  const th = new Float64Array(3), delta = new Float64Array(model.nv), out: SynthSample[] = [];
  const fextOf = (w: Float64Array[]) => {
    const fx = Array.from({ length: model.nb }, () => new Float64Array(6));
    es.contacts.forEach((c, k) => xTransposeApplyForce(fx[c.body], c.X, w[k], fl));
    return fx;
  };
  for (let s = 0; s < N; s++) {
    const t = s / rate;
    const v = new Float64Array(model.nv), qdd = new Float64Array(model.nv);
    for (const d of dirs) {
      d.path(t, th);
      for (let k = 0; k < d.n.length; k++) { delta[d.iv + k] = th[0] * d.n[k]; v[d.iv + k] = th[1] * d.n[k]; qdd[d.iv + k] = th[2] * d.n[k]; }
    }
    const q = integrate(model, q0, delta);
    const contacts = scheduledContacts(schedule, t) ?? es.contacts.map((c) => c.link);
    const active = es.contacts.map((c) => contacts.includes(c.link));
    const nActive = active.filter(Boolean).length;
    forwardKinematics(kin, q, null);
    const w = es.contacts.map((c, k) => {
      const x = new Float64Array(6);
      if (!active[k]) return x;
      const share = (model.floatingBase ? 1 : 0.1) * mass * gn / nActive;
      if (model.floatingBase && gn > 0) {
        // the share of the weight, against gravity, in the contact frame
        const up = xApplyMotion(new Float64Array(6), frameFromWorld(model, kin, c.body, c.X, fl), Float64Array.of(0, 0, 0, -g[0] / gn, -g[1] / gn, -g[2] / gn), fl);
        for (let i = 0; i < 3; i++) x[3 + i] = share * up[3 + i];
      }
      for (let i = 0; i < 6; i++) {
        variation[k][i](t, th);
        x[i] += th[0] * share * (i < 3 ? 0.02 : model.floatingBase ? 0.1 : 1);
      }
      for (const z of zeroOf[k]) x[z] = 0;
      return x;
    });
    if (U.length > 0) balance(es, ws, q, v, qdd, w, active, zeroOf, U, fextOf, t);
    const truth = synthesize(model, q, v, qdd, fextOf(w));
    const readings = idealReadings(es, truth);
    if (noise > 0) {
      for (const si of es.sensors) {
        if (si.block < 0) continue; // a gyroscope: kinematics, taken as exact
        const sd = noise * Math.sqrt(si.spec.variance);
        readings.set(si.spec.name, readings.get(si.spec.name)!.map((x) => x + sd * noiseRng.normal()));
      }
    }
    out.push({ t, q, v, qdd, contacts: es.contacts.filter((_c, k) => active[k]).map((c) => c.link), wrenches: w, truth, readings });
  }
  return out;
}

/**
 * Change the active contacts' free wrench components `w` (in place) by the least change (in N and
 * N·m) that gives every unactuated degree of freedom U τ = 0. τ is affine in the
 * external wrenches: its columns are RNEA's changes for unit wrench components; a second pass
 * removes what rounding left. Throws SynthError when the contacts cannot do it.
 */
function balance(
  es: EstimationSystem, ws: RneaWorkspace, q: Float64Array, v: Float64Array, qdd: Float64Array, w: Float64Array[],
  active: boolean[], zeroOf: Set<number>[], U: number[], fextOf: (w: Float64Array[]) => Float64Array[], t: number,
): void {
  const model = es.model;
  const free: { c: number; k: number }[] = [];
  es.contacts.forEach((_c, c) => { if (active[c]) for (let k = 0; k < 6; k++) if (!zeroOf[c].has(k)) free.push({ c, k }); });
  const tauU = (ww: Float64Array[]) => { const tau = rnea(model, ws, q, v, qdd, fextOf(ww)); return U.map((i) => tau[i]); };
  let scale = 1;
  for (let pass = 0; pass < 2; pass++) {
    const r0 = tauU(w);
    const B = free.map(({ c, k }) => {
      const ww = w.map((x) => Float64Array.from(x));
      ww[c][k] += 1;
      return tauU(ww).map((x, i) => x - r0[i]);
    });
    if (pass === 0) scale = Math.max(1, ...rnea(model, ws, q, v, qdd, fextOf(w)).map(Math.abs));
    const n = U.length, M = new Float64Array(n * n), b = Float64Array.from(r0, (x) => -x);
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) { let s = 0; for (let f = 0; f < free.length; f++) s += B[f][i] * B[f][j]; M[i * n + j] = s; }
    const y = solveSmall(M, b, n);
    // Δw = Bᵀ y with (B Bᵀ) y = −τ_U(w): the least change that zeroes τ_U
    free.forEach(({ c, k }, f) => { let s = 0; for (let i = 0; i < n; i++) s += B[f][i] * y[i]; w[c][k] += s; });
  }
  const r = tauU(w);
  const worst = r.reduce((m, x, i) => (Math.abs(x) > Math.abs(r[m]) ? i : m), 0);
  if (Math.abs(r[worst]) > 1e-8 * scale) {
    const dof = U[worst];
    let joint = 0;
    for (let i = 0; i < model.nb; i++) if (model.iv[i] <= dof && dof < model.iv[i] + model.nvi[i]) joint = i;
    const on = es.contacts.filter((_c, k) => active[k]).map((c) => c.link);
    throw new SynthError(`at t = ${t} s the ${on.length ? `active contacts (${on.join(', ')})` : 'robot has no active contact and'} cannot hold the motion: unactuated joint "${model.jointNames[joint]}" would need ${Math.abs(r[worst]).toPrecision(3)} N or N·m that no contact wrench gives. Give more contacts, fewer components known to be zero, or a contact schedule with a contact at every time`);
  }
}
