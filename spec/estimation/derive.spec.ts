/**
 * Logs as robots record them (src/estimation/differentiate.ts, derive.ts): derivatives by local
 * polynomial fits on uneven stamps, checked against analytic derivatives of polynomials and the
 * published Savitzky–Golay coefficients; the per-sample stage (gaps, time going back, repeated
 * times, ends of the log); Galilean invariance of the torques and wrenches (RNEA); and estimation
 * from positions and IMU readings alone, against the truth of RNEA-synthesized samples.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LocalPolyFit, noiseGain, windowSamples } from '../../src/estimation/differentiate.ts';
import { derivedProblem, planDerivation, SampleSequence } from '../../src/estimation/derive.ts';
import { EstimationSession } from '../../src/estimation/session.ts';
import { buildEstimationSystem, type EstimationSystem } from '../../src/estimation/setup.ts';
import { idealReadings, synthesize } from '../../src/estimation/synthesize.ts';
import { LogSchema, parseNdjsonLine, type LogError, type Sample } from '../../src/io/log.ts';
import { Rng } from '../../src/model/rng.ts';
import { loadEstimationSystem } from '../../src/node/problem-file.ts';
import { cross, cubicHumanoidLog, humanoidAsLogged } from '../../scripts/robot-log.ts';

const rel = (x: number, ref: number, scale = Math.abs(ref)) => Math.abs(x - ref) / Math.max(scale, 1e-300);

describe('local polynomial fits (Savitzky–Golay on uneven stamps)', () => {
  it('give the exact first and second derivatives of polynomials up to their order, centred and at the ends, on uneven stamps', () => {
    const rng = new Rng(7);
    for (const order of [2, 3, 4, 5]) {
      for (const n of [order + 2, 11, 31]) {
        const fit = new LocalPolyFit(n, order);
        const t = new Float64Array(n);
        let x = 10 * rng.uniform(-1, 1);
        for (let k = 0; k < n; k++) { t[k] = x; x += 0.005 * rng.uniform(0.4, 1.6); }
        const c = Array.from({ length: order + 1 }, () => rng.uniform(-2, 2));
        // p(t) = Σ c_j (t − t0)^j about an arbitrary t0, with its derivatives
        const t0 = t[0] + 0.3 * (t[n - 1] - t[0]);
        const p = (s: number) => c.reduce((a, cj, j) => a + cj * (s - t0) ** j, 0);
        const dp = (s: number) => c.reduce((a, cj, j) => a + (j >= 1 ? j * cj * (s - t0) ** (j - 1) : 0), 0);
        const ddp = (s: number) => c.reduce((a, cj, j) => a + (j >= 2 ? j * (j - 1) * cj * (s - t0) ** (j - 2) : 0), 0);
        const y = Array.from(t, p);
        for (const at of [t[0], t[(n - 1) >> 1], t[n - 1], t[1]]) {
          expect(fit.fit(t, 0, n, at)).toBe(true);
          let d1 = 0, d2 = 0;
          for (let k = 0; k < n; k++) { d1 += fit.w1[k] * y[k]; d2 += fit.w2[k] * y[k]; }
          // relative to the size of the derivative over the window (the fits cancel large terms)
          const s1 = Math.max(...Array.from(t, (s) => Math.abs(dp(s)))), s2 = Math.max(...Array.from(t, (s) => Math.abs(ddp(s))));
          expect(rel(d1, dp(at), s1), `order ${order}, n ${n}: first derivative`).toBeLessThan(order === 5 ? 1e-7 : 1e-9);
          expect(rel(d2, ddp(at), s2), `order ${order}, n ${n}: second derivative`).toBeLessThan(order === 5 ? 1e-7 : 1e-9);
        }
      }
    }
  });

  it('are the published Savitzky–Golay coefficients on even stamps (5 points, quadratic: [-2 -1 0 1 2]/10h and [2 -1 -2 -1 2]/7h²)', () => {
    const h = 0.01, fit = new LocalPolyFit(5, 2);
    const t = Float64Array.from([0, 1, 2, 3, 4], (k) => 3 + k * h);
    fit.fit(t, 0, 5, t[2]);
    [-2, -1, 0, 1, 2].forEach((c, k) => expect(fit.w1[k]).toBeCloseTo(c / (10 * h), 9));
    [2, -1, -2, -1, 2].forEach((c, k) => expect(fit.w2[k] * h * h).toBeCloseTo(c / 7, 12));
    // 7 points, cubic, first derivative: [22 -67 -58 0 58 67 -22]/252h
    const f3 = new LocalPolyFit(7, 3), t7 = Float64Array.from({ length: 7 }, (_, k) => k * h);
    f3.fit(t7, 0, 7, t7[3]);
    [22, -67, -58, 0, 58, 67, -22].forEach((c, k) => expect(f3.w1[k] * h).toBeCloseTo(c / 252, 12));
  });

  it('have the noise gain Σw² of their weights (Monte Carlo, white noise)', () => {
    const n = 21, fit = new LocalPolyFit(n, 3), dt = 0.005, sigma = 1e-3, rng = new Rng(3);
    const t = Float64Array.from({ length: n }, (_, k) => k * dt);
    fit.fit(t, 0, n, t[10]);
    let s2 = 0;
    const trials = 4000;
    for (let r = 0; r < trials; r++) {
      let d = 0;
      for (let k = 0; k < n; k++) d += fit.w2[k] * sigma * rng.normal();
      s2 += d * d;
    }
    expect(s2 / trials / (sigma * sigma * noiseGain(fit.w2, n))).toBeGreaterThan(0.9);
    expect(s2 / trials / (sigma * sigma * noiseGain(fit.w2, n))).toBeLessThan(1.1);
  });

  it('choose the window from the sample rate (Schafer: f_c ≈ (order + 1) f_s / (3.2 n − 4.6)) or from a span in seconds', () => {
    // 200 Hz, order 3, 10 Hz: n = (4·200/10 + 4.6)/3.2 = 26.4 → 27 (odd)
    expect(windowSamples(0.005, 3, { bandwidth: 10 })).toBe(27);
    // 1 kHz: (400 + 4.6)/3.2 = 126.4 → 127
    expect(windowSamples(0.001, 3, { bandwidth: 10 })).toBe(127);
    // a span of 0.1 s at 100 Hz: 11 samples; never fewer than order + 2 (odd)
    expect(windowSamples(0.01, 3, { window: 0.1, bandwidth: 10 })).toBe(11);
    expect(windowSamples(0.1, 4, { bandwidth: 10 })).toBe(7);
  });
});

/** A fixed-base arm of the project's own: positions of 6 joints as cubics in time. */
const CHAIN = resolve(import.meta.dirname, '../../models/chain6.urdf');
function chainSystem(extra: Record<string, unknown> = {}): EstimationSystem {
  const dir = mkdtempSync(join(tmpdir(), 'sparsedyn-derive-'));
  const file = join(dir, 'p.json');
  writeFileSync(file, JSON.stringify({ model: CHAIN, base: 'fixed', sensors: [{ name: 'enc', type: 'joint_acceleration', joints: 'all' }], ...extra }));
  return loadEstimationSystem(file).es;
}

/** Cubic positions per joint, piecewise: each stretch of the log its own cubic (so that a fit spanning a gap would be wrong). */
function cubicRows(es: EstimationSystem, times: number[], stretchOf: (k: number) => number): { rows: string[]; qd: number[][]; qdd: number[][] } {
  const joints = es.model.movingJoints();
  const coef = (s: number, j: number) => [0.1 * (j + 1) + s, 0.5 - 0.1 * j - 0.3 * s, 0.7 * Math.cos(j + s), -0.4 + 0.05 * j * (s + 1)];
  const rows: string[] = [], qd: number[][] = [], qdd: number[][] = [];
  times.forEach((t, k) => {
    const s = stretchOf(k);
    const q: Record<string, number> = {};
    const d1: number[] = [], d2: number[] = [];
    joints.forEach((j, i) => {
      const [a, b, c, d] = coef(s, i);
      q[j.name] = a + b * t + c * t * t + d * t * t * t;
      d1.push(b + 2 * c * t + 3 * d * t * t);
      d2.push(2 * c + 6 * d * t);
    });
    rows.push(JSON.stringify({ t, q }));
    qd.push(d1); qdd.push(d2);
  });
  return { rows, qd, qdd };
}

/** Push rows through the stage one at a time, draining as a stream reader would. */
function runStage(es: EstimationSystem, rows: string[], planFrom = 64): { out: (Sample | LogError)[]; seq: SampleSequence } {
  const schema = new LogSchema(es, { derive: true });
  const parsed = rows.map((r, k) => parseNdjsonLine(schema, r, k + 1));
  const plan = planDerivation(es, parsed.filter((p): p is Sample => 'q' in p).slice(0, planFrom));
  const seq = new SampleSequence(es, plan);
  const out: (Sample | LogError)[] = [];
  for (const p of parsed) { seq.push(p); out.push(...seq.drain()); }
  seq.end();
  out.push(...seq.drain());
  return { out, seq };
}

describe('the per-sample stage: what a log does not carry, derived in its order', () => {
  const es = chainSystem();

  it('derives q̇ and the encoders\' q̈ exactly for cubic motion on uneven stamps, at the ends too; a fit never spans a gap or time going back', () => {
    const rng = new Rng(11);
    const times: number[] = [];
    let t = 0;
    for (let k = 0; k < 120; k++) {
      times.push(t);
      // jittered 5 ms; a 60 ms gap before sample 50; time back by 1 s before sample 90
      t += k === 49 ? 0.06 : 0.005 * rng.uniform(0.7, 1.3);
      if (k === 89) t -= 1;
    }
    const stretch = (k: number) => (k < 50 ? 0 : k < 90 ? 1 : 2);
    const { rows, qd, qdd } = cubicRows(es, times, stretch);
    const { out, seq } = runStage(es, rows);
    expect(out.length).toBe(120);
    const joints = es.model.movingJoints();
    out.forEach((s, k) => {
      expect('q' in s, `row ${k + 1}: ${'message' in s ? s.message : ''}`).toBe(true);
      if (!('q' in s)) return;
      expect(s.line).toBe(k + 1);
      joints.forEach((j, i) => {
        expect(rel(s.v[j.iv], qd[k][i], 1), `v of ${j.name} at row ${k + 1}`).toBeLessThan(1e-9);
        expect(rel(s.readings.get('enc')![i], qdd[k][i], 1), `q̈ of ${j.name} at row ${k + 1}`).toBeLessThan(1e-8);
      });
    });
    expect(seq.stats.segments).toBe(3);
    expect(seq.stats.gaps.map((g) => g.line)).toEqual([51]);
    expect(seq.stats.backwards.map((b) => b.line)).toEqual([91]);
    expect(seq.stats.offCentre).toBeGreaterThan(0);
  });

  it('skips a row that repeats the previous time, and the rows of a stretch too short for a fit, naming why; valid rows are kept in order', () => {
    const times = Array.from({ length: 40 }, (_, k) => k * 0.01);
    times[20] = times[19]; // repeated
    // a stretch of 3 samples between two gaps
    for (let k = 30; k < 40; k++) times[k] += k < 33 ? 1 : 2;
    const { rows } = cubicRows(es, times, () => 0);
    const { out, seq } = runStage(es, rows);
    expect(out.map((x) => x.line)).toEqual(Array.from({ length: 40 }, (_, k) => k + 1));
    const errs = out.filter((x): x is LogError => 'message' in x);
    expect(errs.map((e) => e.line)).toEqual([21, 31, 32, 33]);
    expect(errs[0].message).toMatch(/repeats that of line 20/);
    expect(errs[1].message).toMatch(/only 3 samples between gaps/);
    expect(seq.stats.repeats.length).toBe(1);
    expect(seq.stats.short).toBe(3);
  });

  it('keeps what the log carries (per channel) and derives nothing when it carries everything', () => {
    const schema = new LogSchema(es, { derive: true });
    const joints = es.model.movingJoints().map((j) => j.name);
    const full = JSON.stringify({ t: 0, q: Object.fromEntries(joints.map((j) => [j, 0.1])), v: Object.fromEntries(joints.map((j) => [j, 0.2])), sensors: { enc: joints.map(() => 0.3) } });
    const s = parseNdjsonLine(schema, full, 1) as Sample;
    expect(planDerivation(es, [s])).toBeNull();
    // one joint's velocity missing: only that one is derived; the encoders are carried
    const partial = JSON.stringify({ t: 0, q: Object.fromEntries(joints.map((j) => [j, 0.1])), v: Object.fromEntries(joints.slice(1).map((j) => [j, 0.2])), sensors: { enc: joints.map(() => 0.3) } });
    const plan = planDerivation(es, [parseNdjsonLine(schema, partial, 1) as Sample, { ...(parseNdjsonLine(schema, partial, 2) as Sample), t: 0.01 }]);
    expect(plan?.velocities).toEqual([joints[0]]);
    expect(plan?.accelerations).toEqual([]);
  });

  it('refuses to derive without time, naming what needs it', () => {
    const schema = new LogSchema(es, { derive: true });
    const joints = es.model.movingJoints().map((j) => j.name);
    const s = parseNdjsonLine(schema, JSON.stringify({ q: Object.fromEntries(joints.map((j) => [j, 0.1])) }), 1) as Sample;
    expect(() => planDerivation(es, [s])).toThrow(/no time \("t"\).*velocities of 6 joints/);
  });

  it('gives the derived accelerations the variance of the fit for the stated encoder noise (differentiation.encoder_noise)', () => {
    const es2 = chainSystem({ differentiation: { encoder_noise: 2e-4, window: 0.1 } });
    const { rows } = cubicRows(es2, Array.from({ length: 30 }, (_, k) => k * 0.01), () => 0);
    const schema = new LogSchema(es2, { derive: true });
    const plan = planDerivation(es2, rows.map((r, k) => parseNdjsonLine(schema, r, k + 1) as Sample), es2.problem.differentiation)!;
    expect(plan.samples).toBe(11);
    // the centred 11-point cubic's second-derivative weights: Σ w² = 12/(Σ (k²−10)²·h⁴)... computed independently as the quadratic SG sum
    const h = 0.01, ks = Array.from({ length: 11 }, (_, k) => k - 5), m2 = ks.reduce((a, k) => a + k * k, 0) / 11;
    const w = ks.map((k) => (k * k - m2)), norm = w.reduce((a, x, i) => a + x * ks[i] * ks[i], 0);
    const gain = w.reduce((a, x) => a + (2 * x / norm) ** 2, 0) / h ** 4;
    expect(rel(plan.variances.enc, 4e-8 * gain)).toBeLessThan(1e-9);
    const built = buildEstimationSystem(es2.model, derivedProblem(es2.problem, plan));
    expect(built.problem.sensors.find((s) => s.name === 'enc')!.variance).toBe(plan.variances.enc);
  });
});

describe('a floating base as robots log it', () => {
  const es = humanoidAsLogged().es;
  const model = es.model;
  const rng = new Rng(5);

  /** a random state, and the same state seen with the base moving by an extra uniform velocity δ (base frame) */
  function pair() {
    const q = new Float64Array(model.nq), v = new Float64Array(model.nv), a = new Float64Array(model.nv);
    const quat = [rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(-1, 1)];
    const nq = Math.hypot(...quat);
    for (let k = 0; k < 4; k++) q[3 + k] = quat[k] / nq;
    for (let k = 7; k < model.nq; k++) q[k] = rng.uniform(-0.5, 0.5);
    for (let k = 0; k < model.nv; k++) { v[k] = rng.uniform(-1, 1); a[k] = rng.uniform(-2, 2); }
    const delta = [rng.uniform(-2, 2), rng.uniform(-2, 2), rng.uniform(-2, 2)];
    const w = [v[3], v[4], v[5]], wd = cross(w, delta);
    const v2 = Float64Array.from(v), a2 = Float64Array.from(a);
    for (let k = 0; k < 3; k++) { v2[k] += delta[k]; a2[k] -= wd[k]; }
    const fext = Array.from({ length: model.nb }, () => new Float64Array(6));
    const lb = model.frame('l_sole').body, rb = model.frame('r_sole').body;
    for (let k = 0; k < 6; k++) fext[lb][k] = rng.uniform(-20, 20) + (k === 5 ? 250 : 0);
    return { q, v, a, v2, a2, fext, rb };
  }

  it('Galilean invariance: a uniform base velocity δ (with the base acceleration that keeps every point\'s acceleration) changes no joint torque, contact or joint wrench, nor any IMU or F/T reading (RNEA)', () => {
    for (let r = 0; r < 5; r++) {
      const { q, v, a, v2, a2, fext, rb } = pair();
      const t1 = synthesize(model, q, v, a, fext, rb), t2 = synthesize(model, q, v2, a2, fext, rb);
      const scale = Math.max(...Array.from(t1.tau, Math.abs));
      for (let k = 6; k < model.nv; k++) expect(Math.abs(t2.tau[k] - t1.tau[k]) / scale).toBeLessThan(1e-12);
      for (let i = 0; i < model.nb; i++) for (let k = 0; k < 6; k++) {
        expect(Math.abs(t2.fext[i][k] - t1.fext[i][k])).toBeLessThan(1e-9);
        expect(Math.abs(t2.f[i][k] - t1.f[i][k])).toBeLessThan(1e-9);
      }
      const r1 = idealReadings(es, t1), r2 = idealReadings(es, t2);
      for (const [name, x] of r1) if (name !== 'encoders') x.forEach((y, k) => expect(Math.abs(r2.get(name)![k] - y), `${name}[${k}]`).toBeLessThan(1e-9));
      // the velocity does change the body's spatial acceleration: the test is not empty
      expect(Math.abs(a2[0] - a[0]) + Math.abs(a2[1] - a[1]) + Math.abs(a2[2] - a[2])).toBeGreaterThan(1e-3);
    }
  });

  it('estimates every joint torque and contact wrench (1e-9) from positions, base orientation, accelerometer, gyroscope and F/T readings alone: no velocities, no accelerations, no base linear velocity or position', () => {
    const n = 60;
    const joints = model.movingJoints().filter((j) => j.type !== 'floating');
    const log = cubicHumanoidLog(es, n);
    const rows = log.rows.map((r) => JSON.stringify(r)), truths = log.truths;
    const schema0 = new LogSchema(es, { derive: true });
    const first = rows.slice(0, 64).map((r, k) => parseNdjsonLine(schema0, r, k + 1) as Sample);
    expect(first[0].noBaseVelocity).toBe(true);
    const plan = planDerivation(es, first)!;
    expect(plan.velocities.length).toBe(joints.length);
    expect(plan.accelerations).toEqual(['encoders']);
    expect(plan.baseRate?.sensor).toBe('imu_gyro_rate');
    const es2 = buildEstimationSystem(model, derivedProblem(es.problem, plan));
    const schema = new LogSchema(es2, { derive: true });
    const seq = new SampleSequence(es2, plan);
    const session = new EstimationSession(es2, { condition: false });
    expect(session.analysis.verdict).not.toBe('ill_posed');
    let worstTau = 0, worstW = 0, estimated = 0;
    const check = (x: Sample | LogError) => {
      expect('q' in x, 'message' in x ? x.message : '').toBe(true);
      if (!('q' in x)) return;
      const out = session.estimate(x);
      expect(out.ok, out.ok ? '' : out.message).toBe(true);
      if (!out.ok) return;
      estimated++;
      const truth = truths[x.line - 1];
      const scale = Math.max(...joints.map((j) => Math.abs(truth.tau[j.iv])));
      for (const j of joints) worstTau = Math.max(worstTau, Math.abs((out.record.estimate.tau[j.name] as number) - truth.tau[j.iv]) / scale);
      const fr = model.frame('l_sole');
      const e = out.record.estimate.contact_wrenches.l_sole;
      // the truth's wrench on l_sole, in its link frame (fext is in body coordinates; the frame is the sole's)
      const X = fr.X, f = truth.fext[fr.body];
      const E = (i: number, j: number) => X[3 * i + j], p = [X[9], X[10], X[11]];
      const force = [0, 1, 2].map((i) => E(i, 0) * f[3] + E(i, 1) * f[4] + E(i, 2) * f[5]);
      const nb = [0, 1, 2].map((i) => f[i] - cross(p, [f[3], f[4], f[5]])[i]);
      const torque = [0, 1, 2].map((i) => E(i, 0) * nb[0] + E(i, 1) * nb[1] + E(i, 2) * nb[2]);
      for (let i = 0; i < 3; i++) worstW = Math.max(worstW, Math.abs(e.force[i] - force[i]) / 200, Math.abs(e.torque[i] - torque[i]) / 200);
    };
    rows.forEach((r, k) => { seq.push(parseNdjsonLine(schema, r, k + 1)); seq.drain().forEach(check); });
    seq.end();
    seq.drain().forEach(check);
    expect(estimated).toBe(n);
    expect(worstTau).toBeLessThan(1e-9);
    expect(worstW).toBeLessThan(1e-9);
  });
});
