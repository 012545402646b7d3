/**
 * The real recordings as worked examples: each converted by examples/real-logs/,
 * estimated by `sparsedyn estimate` (from the sources, in this process), and compared with what the
 * robot measured. Writes reports/real/README.md and its SVG plots.
 *
 *   KUKA LWR4+ runs 1 and 2: per joint, the RMSE and correlation of the estimated torques against
 *   the joint torque sensors, (a) with the recording's own velocities and accelerations, (b) from
 *   the positions and time only; plots of lwr_0 … lwr_3 over run 1.
 *   iCub standing: the total vertical contact force estimated from positions + IMU against the
 *   feet's logged normal forces, the model's weight against what the feet measure, the joint
 *   torques of the legs.
 *
 * Run: npx tsx scripts/real-logs-report.ts   (every row of the recordings; about a minute)
 * Without the recordings (the shared folder beside the repository) it says so in one line and exits 0.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import * as d3 from 'd3';
import { loadProblem } from '../src/node/problem-file.ts';
import { drawTimeChart, type TimeSeries } from '../src/report/time-chart.ts';
import {
  convert, estimate, fit, HAS_REAL_LOGS, ICUB_DIR, ICUB_LOG, KUKA_DIR, KUKA_JOINTS, KUKA_LARGE, KUKA_RUN, problemIn, REAL_LOGS, relativeDifference, ROOT,
  Table, torqueFits, verticalForces, type Fit,
} from './real-logs.ts';

if (!HAS_REAL_LOGS) {
  console.log(`real-logs-report: the real recordings are missing (expected the shared folder beside this repository, with ${REAL_LOGS}): nothing written`);
  process.exit(0);
}

const OUT = join(ROOT, 'reports/real');
mkdirSync(OUT, { recursive: true });
const dir = mkdtempSync(join(tmpdir(), 'sparsedyn-real-logs-'));
const f = (x: number, d = 3): string => (Number.isFinite(x) ? x.toFixed(d) : '—');
/** the error of a failed run, in the report's words: its sparsedyn lines, the temporary folder and the recordings' folder left out */
const failure = (err: string): string => err.trim().split('\n').filter((l) => l.startsWith('sparsedyn')).slice(-2).join(' / ')
  .replaceAll(`${dir}/`, '').replaceAll(`${REAL_LOGS}/`, '').replace(/`/g, "'");
const md: string[] = [];
/** what `estimate` says it derived (its summary's line), if it derived anything */
const derivedLine = (err: string): string | undefined => /derived from the log over time: (.*)/.exec(err)?.[1]?.trim();
const started = Date.now();

// ---------------------------------------------------------------- KUKA LWR4+
const kukaProblem = problemIn(dir, 'kuka', join(KUKA_DIR, 'kuka_lwr4.urdf'));
interface KukaRun { a: ReturnType<typeof torqueFits>; b?: ReturnType<typeof torqueFits>; bError?: string; derived?: string }
const kuka = new Map<number, KukaRun>();
for (const run of [1, 2] as const) {
  const full = join(dir, `kuka-${run}.csv`), positions = join(dir, `kuka-${run}-q.csv`);
  convert('kuka-to-log.ts', [KUKA_RUN(run), full]);
  convert('kuka-to-log.ts', [KUKA_RUN(run), positions, '--positions-only']);
  const ea = join(dir, `kuka-${run}-estimates.csv`), eb = join(dir, `kuka-${run}-q-estimates.csv`);
  const ra = await estimate([kukaProblem, '--data', full, '--out', ea, '--jobs', '1', '--no-html']);
  if (ra.code !== 0) throw new Error(`KUKA run ${run}, the recording's derivatives: estimate exited with ${ra.code}`);
  const rb = await estimate([kukaProblem, '--data', positions, '--out', eb, '--jobs', '1', '--no-html']);
  const r: KukaRun = { a: torqueFits(ea, full), derived: derivedLine(rb.err) };
  if (rb.code === 0 || rb.code === 3) r.b = torqueFits(eb, full);
  else r.bError = `exit ${rb.code}: ${failure(rb.err)}`;
  kuka.set(run, r);
}

md.push('# The real recordings as worked examples: KUKA LWR4+ and iCub', '');
md.push(`Written by \`npx tsx scripts/real-logs-report.ts\` on ${new Date().toISOString().slice(0, 10)} (${cpus()[0]?.model.trim() ?? 'unknown CPU'}, Node ${process.version}), every row of each recording. `
  + 'Two recordings of real robots from other projects (transcribed to CSV with named columns, values unchanged), converted to sparsedyn logs by the examples in '
  + '[`examples/real-logs/`](../../examples/real-logs/) and estimated by `sparsedyn estimate`; the figures compare the estimates with what the robots measured.', '');

md.push('## KUKA LWR4+: joint torques against the joint torque sensors', '');
md.push('FloBaRoID\'s excitation runs 1 and 2 (github.com/kjyv/FloBaRoID, `data/KUKA/HW/measurements_{1,2}.npz`, LGPL-3): 5,027 samples each at 200 Hz (25.1 s), with the arm\'s link-side joint torque sensors. '
  + 'Model: FloBaRoID\'s `kuka_lwr4.urdf` (fixed base; not its identified parameters). Problem: [`kuka.json`](../../examples/real-logs/kuka.json), the torques unknown, a `joint_acceleration` sensor on every joint (a square layout, solved by the sparse LU).', '');
md.push('- **(a)** the recording\'s own velocities (`qd_*`, from the robot) and accelerations (`qdd_*`, differentiated and filtered by FloBaRoID) as `v.*` and the sensor\'s readings;');
md.push('- **(b)** the positions and time only (what the robot records): velocities and accelerations derived by `estimate` from the positions.', '');
md.push('```sh');
md.push('npx tsx examples/real-logs/kuka-to-log.ts measurements_1.csv kuka-1.csv                    # (a): t, q, v, accelerations, measured torques (truth.tau.*)');
md.push('npx tsx examples/real-logs/kuka-to-log.ts measurements_1.csv kuka-1-q.csv --positions-only  # (b): t and q only');
md.push('npx sparsedyn estimate kuka.json --data kuka-1.csv --out kuka-1-estimates.csv      # kuka.json beside kuka_lwr4.urdf');
md.push('npx sparsedyn estimate kuka.json --data kuka-1-q.csv --out kuka-1-q-estimates.csv');
md.push('```', '');
md.push('RMSE of the estimated torque against the measured one (N·m), correlation, and the measured torque\'s standard deviation over the run (its spread). '
  + 'The targets are on the four large joints: (b) ≤ 1.1 × (a).', '');
for (const [run, r] of kuka) {
  md.push(`### Run ${run}`, '');
  if (r.bError) md.push(`(b) is not available: \`estimate\` on the positions-only log gave ${r.bError}`, '');
  else if (r.b) md.push(`(b): ${r.b.estimated} of ${r.b.rows} rows estimated; \`estimate\` derived ${r.derived ?? '(nothing said)'}.`, '');
  md.push('| joint | spread | RMSE (a) | RMSE (b) | (b) / (a) | correlation (a) | correlation (b) | mean error (a) |', '|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const j of KUKA_JOINTS) {
    const a = r.a.joints.get(j)!, b = r.b?.joints.get(j);
    const target = KUKA_LARGE.includes(j) && b ? (b.rmse <= 1.1 * a.rmse ? ' ✓' : ' ✗') : '';
    md.push(`| ${KUKA_LARGE.includes(j) ? `**${j}**` : j} | ${f(a.spread, 2)} | ${f(a.rmse)} | ${b ? f(b.rmse) : '—'} | ${b ? f(b.rmse / a.rmse, 3) + target : '—'} | ${f(a.corr, 4)} | ${b ? f(b.corr, 4) : '—'} | ${f(a.bias, 2)} |`);
  }
  md.push('');
}
md.push('lwr_0 turns about the vertical axis: gravity gives it no torque, and its measured torque (spread below 1 N·m) is mostly friction and the sensor\'s offset, which the rigid-body model does not have, '
  + 'hence its low correlation; the wrist joints (lwr_4 … lwr_6) carry about 1 N·m and show offsets of 0.6–0.9 N·m (the mean error column).', '');

// plots: run 1, the large joints, decimated to 40 Hz (every 5th sample) to keep the files small
const r1 = kuka.get(1)!;
for (const j of KUKA_LARGE) {
  const keep = (k: number) => k % 5 === 0;
  const t = r1.a.t.filter((_, k) => keep(k));
  const series: TimeSeries[] = [
    { name: 'measured (torque sensor)', y: r1.a.meas.get(j)!.filter((_, k) => keep(k)), color: '#444', dashed: true },
    { name: '(a) recording\'s derivatives', y: r1.a.est.get(j)!.filter((_, k) => keep(k)), color: '#1f4e99' },
  ];
  if (r1.b) {
    // (b) matched to (a)'s times by log line (both hold the recording's rows in order)
    const byT = new Map(r1.b.t.map((x, k) => [x, r1.b!.est.get(j)![k]]));
    series.push({ name: '(b) from positions', y: r1.a.t.filter((_, k) => keep(k)).map((x) => byT.get(x) ?? null), color: '#d1495b' });
  }
  const svg = drawTimeChart(d3, { id: `kuka-${j}`, title: `KUKA LWR4+ run 1: ${j}`, xLabel: 't (s)', yLabel: 'joint torque (N·m)', t, series, width: 820, height: 280 });
  writeFileSync(join(OUT, `kuka-run1-${j}.svg`), svg);
}
md.push('Run 1, the large joints (every 5th sample drawn):', '');
for (const j of KUKA_LARGE) md.push(`![${j}: estimated and measured torque over run 1](kuka-run1-${j}.svg)`);
md.push('');

// ---------------------------------------------------------------- iCub
md.push('## iCub standing: the total vertical contact force against the feet\'s sensors', '');
md.push('ami-iit\'s iCubGenova04 standing on both feet with a sinusoidal motion of its centre of mass (github.com/ami-iit/paper_ramadoss-2022-iros-humanoid-base-estimation, `com-sinusoid.mat`, BSD-3): '
  + '2,004 samples at about 100 Hz (20 s) of the 26 logged joints\' positions, the base IMU (accelerometer and gyroscope of `root_link_imu_acc`), the base pose from motion capture and each foot\'s normal force (from its six-axis F/T sensor). '
  + 'Model: the paper\'s `model.urdf` (32 joints: the 6 forearm and wrist joints, not logged, held at 0).', '');
md.push('- [`icub.json`](../../examples/real-logs/icub.json): joint velocities and accelerations derived from the positions, the base\'s angular velocity from the gyroscope and its angular acceleration from the gyroscope\'s readings differentiated, the accelerometer for its linear acceleration; no base velocity (none is needed: Galilean invariance). '
  + 'The Newton–Euler equations fix the sum of the two contact wrenches, not how it is shared between the feet; soft constraints say what standing is: each sole\'s moments about its origin and its tangential forces near zero (σ = 5 N·m and 5 N, the centre of pressure within about 3 cm of the sole\'s origin), so that the balance of moments shares the weight. '
  + 'The feet\'s logged forces are not used: the total vertical force is estimated from the model, the kinematics and the IMU alone, an independent check of them.');
md.push('- [`icub-load-cells.json`](../../examples/real-logs/icub-load-cells.json): the same, plus the logged normal forces as load cells under the soles (fz, σ = 2 N), which measure the sharing; its total follows the load cells as much as the model, so it checks nothing.', '');
md.push('Soft constraints rather than weak priors on the whole wrenches (σ = 100 N or N·m, tried first): with those, the sharing was left to the priors (each foot\'s force against the logged one: correlation 0.46), and with the load cells too, the disagreement between the cells and the model (its 3% of missing weight, its centre of mass) went into ±50 N of tangential forces pushing the feet together and hip roll torques of 30–50 N·m, beyond the joints\' effort limit of 37 N·m.', '');
md.push('The recording\'s time stamps are those of delivery: 100 Hz samples, some arriving in bursts stamped 0.3 ms apart after gaps of up to 0.17 s (the motion capture moves by equal steps from row to row). '
  + '`--uniform-time` re-times the rows t₀ + k·Δ (Δ = 10.05 ms, the mean step). Both are reported: on the recorded stamps, `estimate` treats the long intervals as gaps (no fit spans them) but fits the bursts as they are stamped, samples 10 ms apart taken as 0.3 ms apart, '
  + 'which makes their derivatives, and the forces, wrong there.', '');
md.push('```sh');
md.push('npx tsx examples/real-logs/icub-to-log.ts com-sinusoid.csv icub.csv --uniform-time');
md.push('npx sparsedyn estimate icub.json --data icub.csv --out icub-estimates.csv          # icub.json beside model.urdf');
md.push('npx sparsedyn estimate icub-load-cells.json --data icub.csv --out icub-load-cells-estimates.csv');
md.push('```', '');

const urdf = join(ICUB_DIR, 'model.urdf');
const icubRuns: { name: string; problem: string; stamps: 'recorded' | 'uniform' }[] = [
  { name: 'icub', problem: 'icub', stamps: 'uniform' },
  { name: 'icub-recorded-time', problem: 'icub', stamps: 'recorded' },
  { name: 'icub-load-cells', problem: 'icub-load-cells', stamps: 'uniform' },
];
const icubLogs = { uniform: join(dir, 'icub.csv'), recorded: join(dir, 'icub-recorded-time.csv') };
convert('icub-to-log.ts', [ICUB_LOG, icubLogs.uniform, '--uniform-time']);
convert('icub-to-log.ts', [ICUB_LOG, icubLogs.recorded]);
const logged = new Table(icubLogs.uniform);
const loggedSum = logged.col('l_sole_load.fz').map((x, k) => x + logged.col('r_sole_load.fz')[k]);
const meanLogged = loggedSum.reduce((s, x) => s + x, 0) / loggedSum.length;
const sdLogged = Math.sqrt(loggedSum.reduce((s, x) => s + (x - meanLogged) ** 2, 0) / loggedSum.length);
md.push('| problem | time stamps | rows estimated | mean total vertical force (N) | logged sum (N) | mean relative difference | difference of the means | left foot: RMSE (N), correlation | right foot: RMSE (N), correlation |', '|---|---|---:|---:|---:|---:|---:|---:|---:|');
let icubDerived: string | undefined;
let main: { forces: ReturnType<typeof verticalForces>; estimates: string } | undefined;
const failures: string[] = [];
const icubModel = loadProblem(problemIn(dir, 'icub', urdf)).model;
const mass = icubModel.totalMass(), g = Math.hypot(...icubModel.gravity);
for (const run of icubRuns) {
  const problem = problemIn(dir, run.problem, urdf, {}, run.name);
  const out = join(dir, `${run.name}-estimates.csv`);
  const r = await estimate([problem, '--data', icubLogs[run.stamps], '--out', out, '--jobs', '1', '--no-html']);
  if (r.code !== 0 && r.code !== 3) {
    failures.push(`\`${run.problem}.json\` on the ${run.stamps} time stamps: \`estimate\` exit ${r.code}: ${failure(r.err)}`);
    md.push(`| ${run.problem}.json | ${run.stamps} | 0 | — | — | — | — | — | — |`);
    continue;
  }
  const forces = verticalForces(problem, icubLogs[run.stamps], out);
  if (run.name === 'icub') { main = { forces, estimates: out }; icubDerived = derivedLine(r.err); }
  const rel = relativeDifference(forces.total, forces.logged);
  const mean = (a: number[]) => a.reduce((s, x) => s + x, 0) / a.length;
  const foot = (l: string): Fit => fit(forces.feet.get(l)!.est, forces.feet.get(l)!.logged);
  const lf = foot('l_sole'), rf = foot('r_sole');
  md.push(`| ${run.problem}.json | ${run.stamps} | ${forces.total.length} of ${forces.rows} | ${f(mean(forces.total), 1)} | ${f(mean(forces.logged), 1)} | ${f(100 * rel.meanAbs, 2)}% | ${f(100 * rel.ofMeans, 2)}% | ${f(lf.rmse, 1)}, ${f(lf.corr, 3)} | ${f(rf.rmse, 1)}, ${f(rf.corr, 3)} |`);
}
md.push('');
if (failures.length) md.push('Not available:', '', ...failures.map((x) => `- ${x}`), '');
if (icubDerived) md.push(`On \`icub.json\`, \`estimate\` derived ${icubDerived}.`, '');
md.push(`The target: the estimated total vertical force within 5% of the logged sum on average (mean relative difference: the mean of |estimated − logged| / logged over the rows). The logged \`lfoot_Fz + rfoot_Fz\` averages ${f(meanLogged, 1)} N (standard deviation ${f(sdLogged, 1)} N); `
  + `the URDF's total mass is ${f(mass, 2)} kg, m·g = ${f(mass * g, 1)} N: ${f(100 * (1 - (mass * g) / meanLogged), 1)}% below what the feet's sensors measure, so an estimate true to the model, standing still, is about that much below them.`, '');

if (main) {
  const { forces, estimates } = main;
  // every other sample drawn (50 Hz), to keep the files small
  const half = <T>(a: T[]): T[] => a.filter((_, k) => k % 2 === 0);
  const chart = (id: string, title: string, yLabel: string, series: TimeSeries[], t = forces.t) =>
    writeFileSync(join(OUT, `${id}.svg`), drawTimeChart(d3, { id, title, xLabel: 't (s)', yLabel, t: half(t), series: series.map((x) => ({ ...x, y: half(x.y) })), width: 820, height: 280 }));
  chart('icub-vertical-force', 'iCub standing: total vertical contact force (icub.json, uniform time)', 'force along world z (N)', [
    { name: 'logged lfoot_Fz + rfoot_Fz', y: forces.logged, color: '#444', dashed: true },
    { name: 'estimated (model + kinematics + IMU)', y: forces.total, color: '#1f4e99' },
    { name: 'm·g of the URDF', y: forces.t.map(() => mass * g), color: '#2a9d4b', dashed: true },
  ]);
  chart('icub-feet', 'iCub standing: each foot\'s vertical force (icub.json: shared by the balance of moments)', 'force along world z (N)', [
    { name: 'left, logged', y: forces.feet.get('l_sole')!.logged, color: '#1f4e99', dashed: true },
    { name: 'left, estimated', y: forces.feet.get('l_sole')!.est, color: '#1f4e99' },
    { name: 'right, logged', y: forces.feet.get('r_sole')!.logged, color: '#d1495b', dashed: true },
    { name: 'right, estimated', y: forces.feet.get('r_sole')!.est, color: '#d1495b' },
  ]);
  const E = new Table(estimates);
  const t = E.col('t');
  for (const side of ['l', 'r']) {
    const joints = ['hip_pitch', 'hip_roll', 'hip_yaw', 'knee', 'ankle_pitch', 'ankle_roll'].map((j) => `${side}_${j}`);
    chart(`icub-torques-${side}-leg`, `iCub standing: ${side === 'l' ? 'left' : 'right'} leg joint torques (icub.json)`, 'joint torque (N·m)', joints.map((j) => ({ name: j, y: E.col(`tau.${j}`) })), t);
  }
  chart('icub-torques-torso', 'iCub standing: torso joint torques (icub.json)', 'joint torque (N·m)', ['torso_pitch', 'torso_roll', 'torso_yaw'].map((j) => ({ name: j, y: E.col(`tau.${j}`) })), t);
  md.push('![total vertical contact force, estimated and logged](icub-vertical-force.svg)', '', '![each foot\'s vertical force](icub-feet.svg)', '');
  md.push('Joint torques (no torque sensors to compare with):', '');
  md.push('![left leg joint torques](icub-torques-l-leg.svg)', '![right leg joint torques](icub-torques-r-leg.svg)', '![torso joint torques](icub-torques-torso.svg)', '');
}
md.push(`Run time of the script: ${((Date.now() - started) / 1000).toFixed(0)} s.`, '');
writeFileSync(join(OUT, 'README.md'), md.join('\n'));
rmSync(dir, { recursive: true, force: true });
console.log(`real-logs-report: wrote ${join('reports/real', 'README.md')} and its plots`);
