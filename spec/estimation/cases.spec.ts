/**
 * The estimation cases of issue 5 (physics decides): verdicts of the sensor layouts of the
 * project's humanoid (models/humanoid.urdf) standing on both soles, independent dense rank checks,
 * recovery of joint torques from ideal readings, unbiasedness of weighted least squares, the
 * reference estimation files of two real humanoids (../shared/reference), Nori's chain with two
 * load cells, and an arm with a wrist sensor in a URDF fixed joint.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { describe, expect, it } from 'vitest';
import { denseRank } from './dense-rank.ts';
import { analyzeProblem, trialConfigurations } from '../../src/estimation/analysis.ts';
import { Estimator } from '../../src/estimation/estimator.ts';
import { namedEstimate } from '../../src/estimation/outputs.ts';
import { parseProblem } from '../../src/estimation/problem.ts';
import { modelForProblem } from '../../src/node/problem-file.ts';
import { buildEstimationSystem, type EstimationSystem } from '../../src/estimation/setup.ts';
import { idealReadings, inputsFromReadings, synthesize } from '../../src/estimation/synthesize.ts';
import { Rng } from '../../src/model/rng.ts';
import { loadUrdf } from '../../src/node/urdf-file.ts';
import { findModelFile, referenceFiles } from '../../src/node/reference-file.ts';
import { expectClose } from '../helpers.ts';
import { describeShared, shared } from '../shared.ts';
import { randomState } from '../state.ts';

function system(p: object): EstimationSystem {
  const problem = parseProblem(JSON.stringify(p), 'test problem');
  return buildEstimationSystem(modelForProblem(problem, '.'), problem);
}

const humanoid = { model: 'models/humanoid.urdf', base: 'floating' };
const qddAll = { name: 'qdd', type: 'joint_acceleration', joints: 'all' };
const loadCells = [
  { name: 'lc_l', type: 'external_wrench', link: 'l_sole', components: ['fz', 'tx', 'ty'] },
  { name: 'lc_r', type: 'external_wrench', link: 'r_sole', components: ['fz', 'tx', 'ty'] },
];

describe('humanoid on two feet (models/humanoid.urdf, floating base, contacts at the soles)', () => {
  it('1: unknown contact wrenches, no force sensing → ill posed; the unobservable directions mix the two contact wrenches', () => {
    const es = system({ ...humanoid, contacts: ['l_sole', 'r_sole'], sensors: [qddAll] });
    const r = analyzeProblem(es, { redundancy: false });
    expect(r.verdict).toBe('ill_posed');
    expect(r.numerical_rank).toBe(r.unknowns - 6);
    expect(r.unobservable).toHaveLength(6);
    for (const u of r.unobservable) {
      expect(u).toMatch(/w\[l_sole\]/);
      expect(u).toMatch(/w\[r_sole\]/);
      expect(u.replace(/w\[[lr]_sole\]\.[tf][xyz]/g, '').replace(/[−+·\d.e\s-]/g, '')).toBe('');
    }
    expect(r.undetermined.some((n) => n.startsWith('tau['))).toBe(true);
    // independent dense check at the neutral pose (D_Y is empty: 604 rows for 610 unknowns)
    const neutral = r.configurations.find((c) => c.name.startsWith('neutral'))!;
    expect(denseRank(es, Float64Array.from(neutral.q))).toBe(r.unknowns - 6);
  });

  it('2: three-axis load cells (fz, tx, ty) → singular at every configuration, by three with both soles in one plane (Property 3)', () => {
    const es = system({ ...humanoid, contacts: ['l_sole', 'r_sole'], sensors: [qddAll, ...loadCells] });
    const r = analyzeProblem(es, { redundancy: false });
    expect(r.verdict).toBe('ill_posed');
    const neutral = r.configurations.find((c) => c.name.startsWith('neutral'))!;
    expect(neutral.deficiency).toBe(3);
    // everywhere else by one, also at the quarter-turn pose whose soles are parallel but at different heights
    for (const c of r.configurations) if (c !== neutral) expect(c.deficiency, c.name).toBe(1);
    expect(r.singular_configurations.map((c) => c.name)).toContain(neutral.name);
    // the one direction always lost mixes the tangential forces and vertical torques of both soles
    expect(r.unobservable).toHaveLength(1);
    for (const part of ['w[l_sole].tz', 'w[r_sole].tz', 'w[l_sole].fx', 'w[r_sole].fx']) expect(r.unobservable[0]).toContain(part);
    expect(r.unobservable[0]).not.toMatch(/\.(fz|tx|ty)/);
    // independent dense checks at the neutral pose and at the quarter-turn pose #2 (parallel soles, 0.18 m apart in height)
    expect(denseRank(es, Float64Array.from(neutral.q))).toBe(r.unknowns - 3);
    const parallel = r.configurations.find((c) => c.name === 'multiples of π/2 #2')!;
    expect(denseRank(es, Float64Array.from(parallel.q))).toBe(r.unknowns - 1);
  });

  it('3: load cells + slippery contacts (fx = fy = 0) → generically well posed, singular with parallel vertical axes; checked densely', () => {
    const es = system({ ...humanoid, contacts: [{ link: 'l_sole', zero: ['fx', 'fy'] }, { link: 'r_sole', zero: ['fx', 'fy'] }], sensors: [qddAll, ...loadCells] });
    const r = analyzeProblem(es, { redundancy: false });
    expect(r.verdict).toBe('generically_well_posed');
    expect(r.unobservable).toEqual(['w[l_sole].tz − w[r_sole].tz']);
    const configs = trialConfigurations(es.model, 1, 0, 1);
    expect(denseRank(es, configs[0].q)).toBe(r.unknowns);
    // singular exactly where the soles' vertical axes are parallel: the neutral pose, and the
    // quarter-turn pose #2 (one sole turned half a turn about the vertical, the soles 0.18 m apart in height)
    expect(r.singular_configurations.map((c) => c.name)).toEqual(['neutral (all joints at 0)', 'multiples of π/2 #2']);
    for (const c of r.singular_configurations) {
      expect(c.deficiency).toBe(1);
      expect(denseRank(es, Float64Array.from(c.q)), c.name).toBe(r.unknowns - 1);
    }
  });

  const ftProblem = {
    ...humanoid, contacts: ['l_sole', 'r_sole'],
    sensors: [qddAll, { name: 'ft_l', type: 'force_torque', joint: 'l_ankle_roll' }, { name: 'ft_r', type: 'force_torque', joint: 'r_ankle_roll' }],
  };

  it('4: six-axis F/T sensors in both ankle roll joints → well posed; torques recovered to 1e-9 from RNEA readings', () => {
    const es = system(ftProblem);
    const r = analyzeProblem(es);
    expect(r.verdict).toBe('well_posed');
    expect(r.redundant_sensors.sort()).toEqual(['ft_l', 'ft_r']);
    const model = es.model, rng = new Rng(44), est = new Estimator(es);
    const lb = model.frame('l_sole').body, rb = model.frame('r_sole').body;
    for (let t = 0; t < 3; t++) {
      const s = randomState(model, rng);
      const fext = Array.from({ length: model.nb }, () => new Float64Array(6));
      for (let k = 0; k < 6; k++) fext[lb][k] = rng.uniform(-100, 100);
      const truth = synthesize(model, s.q, s.v, s.a, fext, rb);
      expect(Math.max(...Array.from(truth.tau.subarray(0, 6), Math.abs))).toBeLessThan(1e-9);
      const d = est.estimate(s.q, s.v, inputsFromReadings(es, idealReadings(es, truth)));
      const L = es.sys.layout;
      const tau = new Float64Array(model.nv);
      for (let i = 0; i < model.nb; i++) for (let k = 0; k < model.nvi[i]; k++) tau[model.iv[i] + k] = d[L.tau[i] + k];
      expectClose(tau, truth.tau, 1e-9, 'τ');
      expectClose(d.subarray(L.fx[rb], L.fx[rb] + 6), truth.fext[rb], 1e-9, 'right contact');
    }
  });

  it('4: with noisy redundant readings the weighted least-squares estimate is unbiased', () => {
    const p = JSON.parse(JSON.stringify(ftProblem));
    p.sensors[0].variance = 1e-2; p.sensors[1].variance = 4; p.sensors[2].variance = 4;
    const es = system(p);
    const model = es.model, rng = new Rng(7), est = new Estimator(es);
    expect(est.mode).toBe('wls');
    const s = randomState(model, rng);
    const lb = model.frame('l_sole').body, rb = model.frame('r_sole').body;
    const fext = Array.from({ length: model.nb }, () => new Float64Array(6));
    for (let k = 0; k < 6; k++) fext[lb][k] = rng.uniform(-100, 100);
    const truth = synthesize(model, s.q, s.v, s.a, fext, rb);
    const ideal = idealReadings(es, truth);
    const N = 400;
    const L = es.sys.layout, joints = model.movingJoints().filter((j) => j.type !== 'floating');
    const mean = new Float64Array(joints.length), sq = new Float64Array(joints.length);
    let std: Record<string, number | number[]> | undefined;
    for (let t = 0; t < N; t++) {
      const noisy = new Map([...ideal].map(([k, v]) => [k, v.map((x) => x + Math.sqrt(es.sensors.find((si) => si.spec.name === k)!.spec.variance) * rng.normal())]));
      const d = est.estimate(s.q, s.v, inputsFromReadings(es, noisy));
      joints.forEach((j, k) => { const e = d[L.tau[j.body]] - truth.tau[j.iv]; mean[k] += e / N; sq[k] += (e * e) / N; });
      if (t === 0) std = namedEstimate(es, est, d, true).tau_std;
    }
    // mean error within 4 standard errors of zero, for every joint; spread matches the covariance
    joints.forEach((j, k) => {
      const sd = Math.sqrt(sq[k] - mean[k] * mean[k]);
      expect(Math.abs(mean[k]), j.name).toBeLessThan(4 * sd / Math.sqrt(N) + 1e-12);
      const predicted = std![j.name] as number;
      expect(sd / predicted, `${j.name}: empirical σ ${sd} vs predicted ${predicted}`).toBeGreaterThan(0.8);
      expect(sd / predicted, j.name).toBeLessThan(1.2);
    });
  });
});

// the estimation files of ../shared/reference (none when it is not there: the group is skipped)
const ESTIMATION_FILES = referenceFiles([shared('reference')], '.estimation.json');

describeShared('reference estimation cases (independent implementation)', () => {
  it('finds the estimation files of both humanoids', () => {
    expect(ESTIMATION_FILES.map((f) => basename(f))).toEqual(expect.arrayContaining(['simple_humanoid.estimation.json', 'talos_reduced.estimation.json']));
  });
  for (const file of ESTIMATION_FILES) {
    const ref = JSON.parse(readFileSync(file, 'utf8'));
    const robot = basename(file, '.estimation.json');
    const [cl, cr] = ref.contacts as string[];
    const imu = { name: 'imu', type: 'spatial_acceleration', link: 'base_link' };
    const qdd = { name: 'qdd', type: 'joint_acceleration', joints: 'actuated' };
    const layouts: [string, object[]][] = [
      ['base IMU + the leg-joint wrenches', [qdd, imu, ...(ref.wrench_joints as string[]).map((j) => ({ name: `ft_${j}`, type: 'force_torque', joint: j }))]],
      ['base IMU + the two contact wrenches (sole sensors)', [qdd, imu, { name: 'sole_l', type: 'external_wrench', link: cl }, { name: 'sole_r', type: 'external_wrench', link: cr }]],
    ];
    for (const [what, sensors] of layouts) {
      it(`${robot}: ${what} → every joint torque and both contact wrenches to 1e-9`, () => {
        const model = findModelFile(file, ref.model_file);
        const es = system({ model, base: 'floating', gravity: ref.gravity, contacts: [cl, cr], sensors: sensors.map((s) => ({ ...s, ...(s === imu ? { link: rootLink(model) } : {}) })) });
        const est = new Estimator(es);
        for (const c of ref.cases) {
          const q = Float64Array.from(c.q), v = Float64Array.from(c.v);
          const wr = (w: { torque: number[]; force: number[] }) => [...w.torque, ...w.force];
          const readings = new Map<string, number[]>();
          readings.set('qdd', c.a.slice(6));
          readings.set('imu', [...c.base_angular_acceleration, ...c.base_proper_acceleration]);
          for (const j of ref.wrench_joints) readings.set(`ft_${j}`, wr(c.joint_wrenches[j]));
          readings.set('sole_l', wr(c.contact_wrenches[cl]));
          readings.set('sole_r', wr(c.contact_wrenches[cr]));
          const used = new Map([...readings].filter(([k]) => es.sensors.some((s) => s.spec.name === k)));
          const d = est.estimate(q, v, inputsFromReadings(es, used));
          const e = namedEstimate(es, est, d);
          const tauEst = ref.joints.map((j: { name: string }) => e.tau[j.name] as number);
          const tauRef = ref.joints.map((j: { name: string }) => c.tau[j.name]);
          expectClose(tauEst, tauRef, 1e-9, `${robot} case ${c.seed} τ`);
          for (const link of [cl, cr]) expectClose(wr(e.contact_wrenches[link]), wr(c.contact_wrenches[link]), 1e-9, `${robot} case ${c.seed} contact ${link}`);
        }
      });
    }
  }
});

/** The root link of a URDF (the base of a floating-base estimation case). */
function rootLink(urdfPath: string): string {
  const model = loadUrdf(urdfPath, { floatingBase: true });
  return model.bodyNames[0];
}

describe('other layouts', () => {
  it('serial chain with load cells at both end links (paper 004 Figure 2, five of six components): generically well posed in 3-D, ill posed when planar', () => {
    const N = 12;
    const comps = ['tx', 'ty', 'fx', 'fy', 'fz'];
    const joints = Array.from({ length: N - 4 }, (_, k) => `joint${k + 3}`);
    const es = system({
      model: `chain:${N}`, base: 'fixed', gravity: [0, -9.81, 0], contacts: [`link${N}`],
      sensors: [
        { name: 'qdd', type: 'joint_acceleration', joints },
        { name: 'cell1', type: 'force_torque', joint: 'joint1', components: comps },
        { name: 'cell2', type: 'external_wrench', link: `link${N}`, components: comps },
      ],
    });
    expect(es.sys.m).toBe(es.sys.n);
    const r = analyzeProblem(es);
    // axes cycled x, y, z: determined at random configurations; with the chain straight (all joints
    // at 0) the torque about the last link's axis, the one component the cell does not read, is not
    expect(r.verdict).toBe('generically_well_posed');
    expect(r.configurations.filter((c) => c.kind === 'random').every((c) => c.deficiency === 0)).toBe(true);
    expect(r.unobservable).toEqual([`w[link${N}].tz`]);
    // a planar chain (all axes z) cannot be: in the plane, 4 unknown q̈ and 3 end-wrench components
    // against 2 + 2 measured in-plane components
    const planar = system({
      model: `chain:${N}:axes=z`, base: 'fixed', contacts: [`link${N}`],
      sensors: [
        { name: 'qdd', type: 'joint_acceleration', joints },
        { name: 'cell1', type: 'force_torque', joint: 'joint1', components: comps },
        { name: 'cell2', type: 'external_wrench', link: `link${N}`, components: comps },
      ],
    });
    const rp = analyzeProblem(planar, { redundancy: false });
    expect(rp.verdict).toBe('ill_posed');
    expect(rp.configurations[0].deficiency).toBe(3);
    // with three components per cell (eq. 19) the 3-D chain is not either
    const es3 = system({
      model: `chain:${N}`, base: 'fixed', contacts: [`link${N}`],
      sensors: [
        { name: 'qdd', type: 'joint_acceleration', joints },
        { name: 'cell1', type: 'force_torque', joint: 'joint1', components: ['fz', 'tx', 'ty'] },
        { name: 'cell2', type: 'external_wrench', link: `link${N}`, components: ['fz', 'tx', 'ty'] },
      ],
    });
    expect(analyzeProblem(es3, { redundancy: false }).verdict).toBe('ill_posed');
  });

  it('humanoid on a fixed base: wrist F/T in the URDF fixed joint l_hand_joint (kept as a 0-DoF joint) + joint torque sensors: redundant, well posed', () => {
    wristSensor('models/humanoid.urdf', 'l_hand', 'l_hand_joint');
  });
});

describeShared('an arm with a wrist sensor, on a real robot', () => {
  it('panda: wrist F/T in the URDF fixed joint panda_hand_joint (kept as a 0-DoF joint) + joint torque sensors: redundant, well posed', () => {
    wristSensor(shared('models/panda.urdf'), 'panda_hand', 'panda_hand_joint');
  });
});

/** A fixed-base robot with an unknown wrench on `hand`, a F/T sensor in the URDF fixed joint `wrist` and torque sensors in every joint. */
function wristSensor(urdf: string, hand: string, wrist: string): void {
  const es = system({
    model: urdf, base: 'fixed', contacts: [hand],
    sensors: [
      { name: 'qdd', type: 'joint_acceleration', joints: 'all' },
      { name: 'wrist', type: 'force_torque', joint: wrist },
      { name: 'tau', type: 'joint_torque', joints: 'all', variance: 0.01 },
    ],
  });
  expect(es.model.hasJoint(wrist)).toBe(true);
  expect(es.model.nvi[es.model.joint(wrist)]).toBe(0);
  const r = analyzeProblem(es);
  expect(r.verdict).toBe('well_posed');
  // q̈ follows from τ (forward dynamics) and τ from q̈; the wrist sensor cannot go: at the
  // neutral pose the arm is singular and τ alone does not determine the hand wrench
  expect(r.redundant_sensors.sort()).toEqual(['qdd', 'tau']);
  const est = new Estimator(es);
  expect(est.mode).toBe('wls');
  const model = es.model, rng = new Rng(3), s = randomState(model, rng);
  const hb = model.frame(hand).body;
  const fext = Array.from({ length: model.nb }, () => new Float64Array(6));
  for (let k = 0; k < 6; k++) fext[hb][k] = rng.uniform(-10, 10);
  const truth = synthesize(model, s.q, s.v, s.a, fext);
  const d = est.estimate(s.q, s.v, inputsFromReadings(es, idealReadings(es, truth)));
  expectClose(d.subarray(es.sys.layout.fx[hb], es.sys.layout.fx[hb] + 6), fext[hb], 1e-9, 'hand wrench');
}
