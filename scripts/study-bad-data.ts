/**
 * Bad-data detection and identification on the walking humanoid (data/problems/humanoid-walk.json):
 * the χ² test on the weighted residual, then the largest normalized residual, per sample
 * (src/estimation/bad-data.ts). Faults injected into noisy walking samples (scripts/walking.ts):
 * a 10σ bias on one channel, a sign flip, two swapped channels, a dead (zero) sensor — on the
 * swinging foot's force/torque sensor in single support, and on an ankle sensor in double support —
 * and the false alarm rate on clean samples at the chosen confidence. Writes reports/bad-data/README.md.
 * Run: npx tsx scripts/study-bad-data.ts [samples=1600]
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { EstimationSession } from '../src/estimation/session.ts';
import { loadEstimationSystem } from '../src/node/problem-file.ts';
import type { Sample } from '../src/io/log.ts';
import { walkingSamples, type WalkSample } from './walking.ts';

const N = Number(process.argv[2] ?? 1600);
const { es } = loadEstimationSystem('data/problems/humanoid-walk.json');
const walk = walkingSamples(es, N, { noise: true, dt: 0.0025, seed: 77 });
// (1600 samples: 4 s, two steps of each foot)
const sd = Math.sqrt(es.problem.sensors.find((s) => s.name === 'ft_left')!.variance);

type Fault = (r: number[], k: number) => number[];
const faults: Record<string, Fault> = {
  'bias 10σ on one channel (channel k mod 6)': (r, k) => r.map((x, c) => (c === k % 6 ? x + 10 * sd : x)),
  'sign flip (every channel)': (r) => r.map((x) => -x),
  'swapped channels fx ↔ fy': (r) => [r[0], r[1], r[2], r[4], r[3], r[5]],
  'swapped channels tx ↔ fx': (r) => [r[3], r[1], r[2], r[0], r[4], r[5]],
  'dead sensor (all zero)': (r) => r.map(() => 0),
};

function sample(w: WalkSample, line: number, faulty?: { sensor: string; f: Fault; k: number }): Sample {
  const readings = new Map<string, Float64Array>();
  for (const [n, r] of w.readings) {
    if (es.sensors.find((s) => s.spec.name === n)!.block < 0) continue;
    readings.set(n, Float64Array.from(faulty && faulty.sensor === n ? faulty.f(r, line) : r));
  }
  return { line, t: w.t, q: w.q, v: w.v, readings, contacts: w.contacts };
}

interface Row { what: string; where: string; samples: number; detected: number; named: number; ambiguous: number; other: Map<string, number> }
function run(what: string, where: string, pick: (w: WalkSample) => string | null, f: Fault | null, confidence = 0.99): Row {
  const session = new EstimationSession(es, { condition: false, confidence });
  const row: Row = { what, where, samples: 0, detected: 0, named: 0, ambiguous: 0, other: new Map() };
  walk.forEach((w, k) => {
    const sensor = pick(w);
    if (sensor === null) return;
    const out = session.estimate(sample(w, k + 1, f ? { sensor, f, k } : undefined));
    if (!out.ok) throw new Error(out.message);
    row.samples++;
    const b = out.record.bad_data!;
    if (b.detected) {
      row.detected++;
      if (b.alternatives?.length) row.ambiguous++;
      if (b.suspect === sensor) row.named++;
      else row.other.set(b.suspect ?? '?', (row.other.get(b.suspect ?? '?') ?? 0) + 1);
    }
  });
  return row;
}

const swing = (w: WalkSample) => (w.contacts.length === 1 ? (w.contacts[0] === 'l_sole' ? 'ft_right' : 'ft_left') : null);
const stance = (w: WalkSample) => (w.contacts.length === 1 ? (w.contacts[0] === 'l_sole' ? 'ft_left' : 'ft_right') : null);
const double = (w: WalkSample) => (w.contacts.length === 2 ? 'ft_left' : null);
const rows: Row[] = [];
const t0 = performance.now();
for (const [name, f] of Object.entries(faults)) rows.push(run(name, 'swinging foot, single support', swing, f));
for (const [name, f] of Object.entries(faults)) rows.push(run(name, 'stance foot, single support', stance, f));
for (const [name, f] of Object.entries(faults)) rows.push(run(name, 'left ankle, double support', double, f));
const clean: Row[] = [];
for (const conf of [0.95, 0.99, 0.999]) {
  for (const [where, pick] of [['single support', swing], ['double support', double]] as const) clean.push(run(`clean, confidence ${conf}`, where, pick, null, conf));
}
const ms = performance.now() - t0;

// which sensors each layout can check
const session = new EstimationSession(es, { condition: false });
const layouts = [['l_sole', 'r_sole'], ['l_sole'], ['r_sole']].map((c) => session.layouts.get(['encoders', 'imu_acc', 'ft_left', 'ft_right'], c));
const fmtSigma = (x: number) => (Number.isFinite(x) ? `${x < 10 ? x.toFixed(1) : x.toFixed(0)}σ` : '∞');
const pct = (a: number, b: number) => (b ? `${(100 * a / b).toFixed(1)}%` : '—');
const md = [
  '# Bad-data detection on the walking humanoid', '',
  `Written by \`npx tsx scripts/study-bad-data.ts ${N}\` (${(ms / 1000).toFixed(0)} s). Layout: data/problems/humanoid-walk.json (joint encoders σ = 0.05 rad/s², base IMU σ = 0.02, ankle force/torque sensors σ = ${sd} N and N·m). ${N} noisy walking samples (scripts/walking.ts, every 2.5 ms: double support, left single, double, right single support, 0.4 s each). χ² test at confidence 0.99 on J = Σ e²/V (m − n degrees of freedom), then the suspect: the sensor with the smallest p-value of its block test (drop of J without its readings) or of its largest normalized residual |e_r|/√Ω_rr as the largest of its k readings (1 − (1 − p)^k, Šidák) (src/estimation/bad-data.ts); Ω from the factors of the sample.`, '',
  '## What each contact mode can check', '',
  '| mode | degrees of freedom | sensors that can be checked | sensors that cannot (residual always zero) |', '|---|---:|---|---|',
  ...layouts.map((l) => `| ${l.mode} | ${l.badData?.dof ?? 0} | ${l.badData?.checked.join(', ') || '—'} | ${l.badData?.unchecked.join(', ') || '—'} |`),
  '',
  'Bias (in standard deviations of the reading) for which the expected normalized residual of that reading is 5: 5/√(Ω_rr/V_r), smallest Ω over 3 random configurations; most and least visible reading of each sensor (a one-channel bias well above it is named, one well below it is lost in the noise):', '',
  `| mode | ${['encoders', 'imu_acc', 'ft_left', 'ft_right'].join(' | ')} |`, '|---|---:|---:|---:|---:|',
  ...layouts.map((l) => `| ${l.mode} | ${['encoders', 'imu_acc', 'ft_left', 'ft_right'].map((n) => { const d = l.badData?.detectable.get(n); return d ? `${fmtSigma(d.best)} – ${fmtSigma(d.worst)}` : '—'; }).join(' | ')} |`),
  '',
  '## Faults', '',
  'Named: the χ² test fired and the suspect is the faulty sensor, over all samples of that mode. Ambiguous: samples where another sensor explains the disagreement about as well (the output lists it under `alternatives`).', '',
  '| fault | on | samples | detected | named | ambiguous | named otherwise |', '|---|---|---:|---:|---:|---:|---|',
  ...rows.map((r) => `| ${r.what} | ${r.where} | ${r.samples} | ${pct(r.detected, r.samples)} | ${pct(r.named, r.samples)} | ${pct(r.ambiguous, r.samples)} | ${[...r.other].map(([n, k]) => `${n} ${k}`).join(', ') || '—'} |`),
  '',
  '## False alarms on clean samples', '',
  '| confidence | mode | samples | flagged | expected |', '|---|---|---:|---:|---:|',
  ...clean.map((r) => `| ${r.what.replace('clean, confidence ', '')} | ${r.where} | ${r.samples} | ${pct(r.detected, r.samples)} | ${(100 * (1 - Number(r.what.split(' ').pop()))).toFixed(1)}% |`),
  '',
];
mkdirSync('reports/bad-data', { recursive: true });
writeFileSync('reports/bad-data/README.md', md.join('\n'));
process.stdout.write(md.join('\n'));
