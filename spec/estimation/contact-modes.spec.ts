/**
 * Contact modes judged one by one (src/estimation/session.ts `modes`, layouts.ts) and contact
 * detection with hysteresis and a minimum duration (src/estimation/contact-detection.ts):
 * references are the truth of RNEA-synthesized walking samples (scripts/walking.ts) and switching
 * sequences computed by hand.
 */
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { ContactDetector, type DetectorSample } from '../../src/estimation/contact-detection.ts';
import { problemJson } from '../../src/estimation/problem-model.ts';
import { contactRule, parseProblem, type ContactDetection, type ProblemFile } from '../../src/estimation/problem.ts';
import { EstimationSession } from '../../src/estimation/session.ts';
import { buildEstimationSystem, type EstimationSystem } from '../../src/estimation/setup.ts';
import type { Sample } from '../../src/io/log.ts';
import { Rng } from '../../src/model/rng.ts';
import { loadEstimationSystem } from '../../src/node/problem-file.ts';
import { walkErrors, walkingSamples, walkRow, walkSample } from '../../scripts/walking.ts';

const { es: walkEs } = loadEstimationSystem('data/problems/humanoid-walk.json');

/** the walking humanoid without force sensing (encoders and the base IMU), with `extra` fields */
function noForce(extra: Partial<ProblemFile> = {}): EstimationSystem {
  return buildEstimationSystem(walkEs.model, { ...walkEs.problem, contact_detection: undefined, sensors: walkEs.problem.sensors.filter((s) => s.type !== 'force_torque'), ...extra });
}

describe('contact modes judged one by one: walking without force sensing, rows naming their contacts', () => {
  it('every single-support row is estimated exactly (1e-9 relative, torques and contact wrenches), every double-support row skipped naming its mode and directions; modes() gives each mode its verdict and rows', () => {
    const es = noForce();
    const session = new EstimationSession(es, { condition: false });
    expect(session.analysis.verdict).toBe('ill_posed'); // every contact active: refused as a whole before
    const walk = walkingSamples(es, 48, { dt: 0.04 });
    let single = 0, double = 0;
    for (const [k, w] of walk.entries()) {
      const out = session.estimate(walkSample(es, w, k + 1, { contacts: true }));
      if (w.contacts.length === 1) {
        if (!out.ok) throw new Error(out.message);
        single++;
        expect(out.record.mode).toBe(w.contacts[0]);
        const e = walkErrors(walkEs, out.record, w);
        expect(e.tau, `line ${k + 1}`).toBeLessThan(1e-9);
        expect(e.contacts, `line ${k + 1}`).toBeLessThan(1e-9);
      } else {
        double++;
        expect(out.ok).toBe(false);
        if (!out.ok) expect(out.message).toMatch(/^its sensors in contact mode l_sole\+r_sole do not determine every unknown: w\[l_sole\]\.tx \+ .*w\[r_sole\]/);
      }
    }
    expect(single).toBe(20);
    expect(double).toBe(28);
    const modes = session.modes();
    expect(modes.map((m) => [m.mode, m.verdict, m.estimated, m.skipped])).toEqual([
      ['l_sole+r_sole', 'ill_posed', 0, 28], ['l_sole', 'well_posed', 10, 0], ['r_sole', 'well_posed', 10, 0],
    ]);
    expect(modes[0].unobservable).toHaveLength(6);
    expect(modes[0].unobservable.join(' ')).toMatch(/w\[l_sole\]\.fz .*w\[r_sole\]\.fz/);
    expect(modes[1].unobservable).toEqual([]);
  });

  it('with a prior on a contact wrench, the double-support rows are estimated too (the data-determined torques exact), and the mode is well posed with the priors', () => {
    const es = noForce({ priors: [{ on: 'contact:l_sole', mean: [0, 0, 0, 0, 0, 300], variance: 100 }] });
    const session = new EstimationSession(es, { condition: false });
    const walk = walkingSamples(es, 24, { dt: 0.04 });
    for (const [k, w] of walk.entries()) {
      const out = session.estimate(walkSample(es, w, k + 1, { contacts: true }));
      if (!out.ok) throw new Error(out.message);
      // in double support the prior fills what the data leave open; in single support it disagrees with them (a compromise)
      if (w.contacts.length === 1) continue;
      const truth = (walkRow(walkEs, w) as { truth: { tau: Record<string, number> } }).truth.tau;
      for (const j of ['l_elbow', 'r_shoulder_roll', 'neck_pitch', 'torso_yaw']) expect(Math.abs((out.record.estimate.tau[j] as number) - truth[j]), j).toBeLessThan(1e-9 * Math.max(1, Math.abs(truth[j])));
    }
    const ds = session.modes().find((m) => m.mode === 'l_sole+r_sole')!;
    expect([ds.verdict, ds.byPriors, ds.estimated, ds.skipped]).toEqual(['well_posed', true, 14, 0]);
    expect(ds.unobservable).toHaveLength(6); // what only the prior determines
  });

  it('rows lacking a reading in a mode count in that mode, with the verdict of those rows\' layout', () => {
    const session = new EstimationSession(walkEs, { condition: false });
    const walk = walkingSamples(walkEs, 12, { dt: 0.01 }); // double support
    for (const [k, w] of walk.entries()) {
      const s = walkSample(walkEs, w, k + 1);
      if (k % 3 === 0) { s.readings.delete('ft_left'); s.readings.delete('ft_right'); }
      session.estimate(s);
    }
    const [ds] = session.modes();
    expect([ds.mode, ds.verdict, ds.estimated, ds.skipped]).toEqual(['l_sole+r_sole', 'well_posed', 8, 4]);
    expect(ds.partial).toEqual([{ missing: ['ft_left', 'ft_right'], verdict: 'ill_posed' }]);
  });
});

/** a problem of two feet with a load cell each, and these detection entries */
function twoFeet(detection: object[]): ProblemFile {
  return parseProblem(JSON.stringify({
    model: 'humanoid', base: 'floating', contacts: ['l_sole', 'r_sole'], contact_detection: detection,
    sensors: [
      { name: 'lc_l', type: 'external_wrench', link: 'l_sole' },
      { name: 'lc_r', type: 'external_wrench', link: 'r_sole', components: ['fz', 'tx', 'ty'] },
    ],
  }), 'feet.json');
}
/** a sample whose left load cell reads force fz (N; undefined: no reading) */
const leftAt = (t: number, fz: number | undefined): DetectorSample => ({ t, readings: fz === undefined ? new Map() : new Map([['lc_l', Float64Array.of(0, 0, 0, 0, 0, fz)]]) });
/** the left contact's state (1 active) at each sample */
const states = (d: ContactDetector, samples: DetectorSample[]): number[] => samples.map((s) => (d.next(s).includes('l_sole') ? 1 : 0));
const switches = (x: number[]): number => x.reduce((n, v, k) => n + (k > 0 && v !== x[k - 1] ? 1 : 0), 0);

describe('contact detection with hysteresis and a minimum duration (ContactDetector)', () => {
  it('switches at the samples computed by hand: on 70 N, off 50 N, min_duration 0.03 s; threshold 60 N alone', () => {
    // the force (N) every 10 ms; undefined: the row lacks the reading (its state is kept)
    const f = [0, 80, 20, 80, 80, 80, 80, 60, 40, 60, 40, 40, 40, 65, 75, undefined, 75, 75];
    const samples = () => f.map((x, k) => leftAt(k / 100, x));
    // k=0: the first reading sets the state (0 ≤ off); k=1: a blip above on, gone at k=2 (rejected);
    // k=3 above on, lasted 0.03 s at k=6; k=7 60 > off keeps it; k=8 at 40 ≤ off, lasted at k=11;
    // k=13 65 ≤ on: still off; k=14 above on, k=15 no reading, accepted at k=17
    const hyst = new ContactDetector(twoFeet([{ contact: 'l_sole', sensor: 'lc_l', on: 70, off: 50, min_duration: 0.03 }]));
    expect(states(hyst, samples())).toEqual([0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 1]);
    // one threshold: active while the force exceeds it (60 is not above 60), the state kept without a reading
    const single = new ContactDetector(twoFeet([{ contact: 'l_sole', sensor: 'lc_l', threshold: 60 }]));
    expect(states(single, samples())).toEqual([0, 1, 0, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1]);
    // contacts without a rule are always active; the returned list is the sample's contacts
    const s = leftAt(1, 0);
    expect(single.next(s)).toEqual(['r_sole']);
    expect(s.contacts).toEqual(['r_sole']);
    // a row naming its contacts keeps them (the state still follows its readings)
    const named = { ...leftAt(1.01, 100), contacts: ['r_sole'] };
    expect(single.next(named)).toEqual(['r_sole']);
    expect(single.detected).toEqual(['l_sole', 'r_sole']);
  });

  it('a noisy force crossing one threshold chatters with "threshold" and not with "on" and "off"; the switches come where the force crosses', () => {
    const rng = new Rng(7);
    // 60 + 30 sin(πt) N and ±8 N of noise, every 5 ms for 4 s: it falls through 60 N at 1 s and 3 s, rises at 2 s
    const samples = Array.from({ length: 801 }, (_x, k) => leftAt(k * 0.005, 60 + 30 * Math.sin(Math.PI * k * 0.005) + rng.uniform(-8, 8)));
    const single = states(new ContactDetector(twoFeet([{ contact: 'l_sole', sensor: 'lc_l', threshold: 60 }])), samples.map((s) => ({ ...s })));
    const hyst = states(new ContactDetector(twoFeet([{ contact: 'l_sole', sensor: 'lc_l', on: 70, off: 50 }])), samples.map((s) => ({ ...s })));
    expect(switches(single)).toBeGreaterThan(12);
    expect(switches(hyst)).toBe(3);
    const at = hyst.flatMap((v, k) => (k > 0 && v !== hyst[k - 1] ? [k * 0.005] : []));
    at.forEach((t, k) => expect(Math.abs(t - [1, 2, 3][k]), `switch ${k}`).toBeLessThan(0.15));
    expect(hyst[0]).toBe(1);
  });

  it('min_duration suppresses short blips and dips, and delays every accepted switch by that long', () => {
    // 10 ms samples: in the air with blips of 1 and 2 samples at 200 N, then in stance (300 N) with dips of 1 and 2 samples to 0
    const f = [0, 0, 200, 0, 0, 200, 200, 0, 0, 0, 300, 300, 300, 300, 300, 0, 300, 300, 0, 0, 300, 300, 300];
    const rule = { contact: 'l_sole', sensor: 'lc_l', on: 70, off: 50 };
    const samples = () => f.map((x, k) => leftAt(k / 100, x));
    const quick = states(new ContactDetector(twoFeet([rule])), samples());
    const slow = states(new ContactDetector(twoFeet([{ ...rule, min_duration: 0.025 }])), samples());
    expect(switches(quick)).toBe(9);
    // the stance from k=10 is accepted at k=13 (0.03 s ≥ 0.025 s); the blips and dips of ≤ 0.02 s are ignored
    expect(slow).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]);
  });

  it('the force compared: the magnitude, fz or −fz; a load cell measuring fz alone takes "fz"', () => {
    const down = (t: number): DetectorSample => ({ t, readings: new Map([['lc_l', Float64Array.of(0, 0, 0, 5, 5, -300)], ['lc_r', Float64Array.of(-300, 0, 0)]]) });
    // the right load cell measures fz alone: "norm" is not for it (fz there)
    const make = (component: string) => new ContactDetector(twoFeet([
      { contact: 'l_sole', sensor: 'lc_l', threshold: 60, component },
      { contact: 'r_sole', sensor: 'lc_r', threshold: 60, component: component === 'norm' ? 'fz' : component },
    ]));
    expect(make('norm').next(down(0))).toEqual(['l_sole']);
    expect(make('fz').next(down(0))).toEqual([]);
    expect(make('-fz').next(down(0))).toEqual(['l_sole', 'r_sole']);
  });

  it('samples out of time order are refused (a RangeError naming both times), changing nothing; reset starts afresh', () => {
    const d = new ContactDetector(twoFeet([{ contact: 'l_sole', sensor: 'lc_l', on: 70, off: 50 }]));
    d.next({ ...leftAt(0.5, 0), line: 7 });
    expect(() => d.next({ ...leftAt(0.4, 100), line: 8 })).toThrow('contact detection takes the samples in time order: t = 0.4 s (line 8) comes after t = 0.5 s (line 7)');
    expect(d.detected).toEqual(['r_sole']);
    d.reset();
    expect(d.next(leftAt(0.4, 60))).toEqual(['l_sole', 'r_sole']); // the first reading: 60 > off
  });

  it('"threshold" alone gives, sample by sample, the contacts the stateless rule gives (EstimationSession.contactsOf)', () => {
    const es = buildEstimationSystem(walkEs.model, walkEs.problem);
    const session = new EstimationSession(es, { condition: false });
    const detector = new ContactDetector(es);
    const rng = new Rng(3);
    for (let k = 0; k < 400; k++) {
      const w = (f: number) => Float64Array.of(1, 2, 3, rng.uniform(-20, 20), rng.uniform(-20, 20), f);
      const s = { line: k + 1, t: k / 100, q: new Float64Array(es.model.nq), v: new Float64Array(es.model.nv), readings: new Map([['ft_left', w(rng.uniform(0, 120))], ['ft_right', w(rng.uniform(-120, 0))]]) } as Sample;
      expect(detector.next({ t: s.t, readings: s.readings })).toEqual(session.contactsOf(s));
    }
  });
});

describe('EstimationSession: contact detection in order (option "ordered") or row by row', () => {
  const problem = (d: Partial<ContactDetection>) => ({ ...walkEs.problem, contact_detection: ['l_sole', 'r_sole'].map((c) => ({ contact: c, sensor: c === 'l_sole' ? 'ft_left' : 'ft_right', ...d })) });
  const walk = walkingSamples(walkEs, 100, { dt: 0.01 });

  it('in order, the modes follow the state machine (each switch accepted min_duration later); row by row, each row\'s own forces; the estimates exact where the mode is right', () => {
    const es = buildEstimationSystem(walkEs.model, problem({ on: 80, off: 40, min_duration: 0.05 }));
    const ordered = new EstimationSession(es, { condition: false, ordered: true });
    const alone = new EstimationSession(es, { condition: false });
    expect(ordered.detector).not.toBeNull();
    expect(alone.detector).toBeNull();
    for (const [k, w] of walk.entries()) {
      const a = ordered.estimate(walkSample(es, w, k + 1)), b = alone.estimate(walkSample(es, w, k + 1));
      if (!a.ok || !b.ok) throw new Error('not estimated');
      // a foot lifts at 0.40 s and lands at 0.80 s: accepted at 0.45 s and 0.85 s
      expect(a.record.mode, `t = ${w.t}`).toBe(walk[Math.max(0, k - 5)].contacts.join('+'));
      expect(b.record.mode, `t = ${w.t}`).toBe(w.contacts.join('+'));
      if (a.record.mode === b.record.mode) expect(walkErrors(walkEs, a.record, w).tau).toBeLessThan(1e-9);
    }
    // rows in the wrong order: skipped with the reason, the state kept
    const back = ordered.estimate(walkSample(es, walk[3], 101));
    expect(back.ok).toBe(false);
    if (!back.ok) expect(back.message).toMatch(/^contact detection takes the samples in time order: t = 0\.03 s \(line 101\) comes after t = 0\.99 s \(line 100\)$/);
  });

  it('row by row, a force between off and on keeps the contact active (as a missing reading does)', () => {
    const es = buildEstimationSystem(walkEs.model, problem({ on: 5000, off: 40 }));
    const alone = new EstimationSession(es, { condition: false });
    for (const [k, w] of walk.entries()) expect(alone.contactsOf(walkSample(es, w, k + 1))).toEqual(w.contacts);
  });
});

describe('problem files: contact_detection', () => {
  const entry = (d: object) => twoFeet([{ contact: 'l_sole', sensor: 'lc_l', ...d }]).contact_detection![0];
  const error = (d: object) => { try { entry(d); } catch (e) { return (e as Error).message; } return 'parsed'; };

  it('reads "threshold" or "on" and "off", with "min_duration" and "component"; the rule fills the defaults; written back the same', () => {
    expect(entry({ threshold: 60 })).toEqual({ contact: 'l_sole', sensor: 'lc_l', threshold: 60 });
    expect(contactRule(entry({ threshold: 60 }))).toEqual({ contact: 'l_sole', sensor: 'lc_l', on: 60, off: 60, min_duration: 0, component: 'norm' });
    const full = entry({ on: 70, off: 0, min_duration: 0.02, component: '-fz' });
    expect(contactRule(full)).toEqual({ contact: 'l_sole', sensor: 'lc_l', on: 70, off: 0, min_duration: 0.02, component: '-fz' });
    const p = twoFeet([{ contact: 'l_sole', sensor: 'lc_l', on: 70, off: 50, min_duration: 0.02 }, { contact: 'r_sole', sensor: 'lc_r', threshold: 60, component: 'fz' }]);
    expect(parseProblem(problemJson(p), 'again.json').contact_detection).toEqual(p.contact_detection);
  });

  it('names what is wrong', () => {
    expect(error({ threshold: 60, on: 70 })).toBe('feet.json: contact_detection[0]: give "threshold", or "on" and "off" (hysteresis), not both');
    expect(error({ on: 70 })).toBe('feet.json: contact_detection[0]: give both "on" (make contact above) and "off" (break contact at or below), or "threshold" alone');
    expect(error({})).toBe('feet.json: contact_detection[0]: needs "threshold" (N), or "on" and "off" (N, hysteresis)');
    expect(error({ on: 50, off: 70 })).toBe('feet.json: contact_detection[0]: "off" (70 N) must not exceed "on" (50 N): a contact is made above "on" and broken at or below "off"');
    expect(error({ on: 70, off: -1 })).toBe('feet.json: contact_detection[0]: "off" must be a number >= 0 (N)');
    expect(error({ on: 0, off: 0 })).toBe('feet.json: contact_detection[0]: "on" must be a positive number');
    expect(error({ threshold: 60, min_duration: -0.1 })).toBe('feet.json: contact_detection[0]: "min_duration" must be a duration >= 0 (s)');
    expect(error({ threshold: 60, component: 'fy' })).toBe('feet.json: contact_detection[0]: "component" must be "norm", "fz", "-fz" (got "fy")');
    expect(error({ threshold: 60, hysteresis: 5 })).toBe('feet.json: contact_detection[0]: unknown field "hysteresis" (expected contact, sensor, threshold, on, off, min_duration, component)');
    const right = (d: object) => { try { twoFeet([{ contact: 'r_sole', sensor: 'lc_r', threshold: 60, ...d }]); } catch (e) { return (e as Error).message; } return 'parsed'; };
    expect(right({})).toBe('feet.json: contact_detection[0]: sensor "lc_r" must measure fx, fy and fz (or give "component": "fz")');
    expect(right({ component: 'fz' })).toBe('parsed');
    // entries built in code are checked by the rule
    expect(() => contactRule({ contact: 'l_sole', sensor: 'lc_l', on: 70 })).toThrow('contact detection of "l_sole": needs "threshold", or "on" and "off"');
  });

  it('the schema takes the same entries and refuses the same mixtures', () => {
    const validate = new Ajv2020({ strict: false }).compile(JSON.parse(readFileSync('schemas/problem.schema.json', 'utf8')));
    const file = (d: object) => ({ model: 'humanoid', base: 'floating', contacts: ['l_sole'], sensors: [{ name: 'lc_l', type: 'external_wrench', link: 'l_sole' }], contact_detection: [{ contact: 'l_sole', sensor: 'lc_l', ...d }] });
    for (const ok of [{ threshold: 60 }, { on: 70, off: 50 }, { on: 70, off: 0, min_duration: 0.02, component: 'fz' }]) expect(validate(file(ok)), JSON.stringify(ok)).toBe(true);
    for (const bad of [{ threshold: 60, on: 70 }, { on: 70 }, {}, { threshold: 60, component: 'fy' }, { threshold: 60, min_duration: -1 }]) expect(validate(file(bad)), JSON.stringify(bad)).toBe(false);
  });
});
