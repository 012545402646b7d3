/**
 * Our algorithms against Pinocchio 3.7's times on this machine kind, read from the shared folder
 * of other projects' material (anchors/pinocchio-times.json: median µs per call of Pinocchio's C++,
 * -O3 -march=native, for 18 model/base pairs). Every pair of that file is timed here with the same
 * scheme as those figures: 64 random states (random configuration; v, a, τ uniform in [−1, 1])
 * prepared before the clock and cycled, rounds that last at least 5 ms, 11 rounds, an empty-loop
 * baseline subtracted, the median round. Ratios are ours ÷ Pinocchio's. Pinocchio's figures were
 * measured on this machine kind, not in this run: our RNEA's ratio is given beside every row as
 * the calibration (a loaded machine inflates every ratio of that row alike).
 *
 * Algorithms: RNEA, ABA (local), CRBA (local), M⁻¹ (Carpentier's algorithm in world coordinates,
 * as computeMinverse), the recursive derivatives of RNEA and ABA (computeRNEADerivatives,
 * computeABADerivatives), and the two sparse paths of Nori's system: LU inverse dynamics ÷
 * Pinocchio's RNEA, LU forward dynamics ÷ Pinocchio's ABA.
 *
 *   npx tsx scripts/bench-pinocchio.ts [--rounds 11] [--out reports/bench-pinocchio.md]
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { aba, AbaWorkspace } from '../src/algorithms/aba.ts';
import { crba, CrbaWorkspace } from '../src/algorithms/crba.ts';
import { crbaWorld, CrbaWorldWorkspace } from '../src/algorithms/crba-world.ts';
import { minvCarpentier, MinvCarpentierWorkspace } from '../src/algorithms/minv-carpentier.ts';
import { rnea, RneaWorkspace } from '../src/algorithms/rnea.ts';
import { GeneratedRnea } from '../src/algorithms/rnea-code.ts';
import { ABA_CODE_LIMIT, ABA_LOOPS_FROM, GeneratedAba } from '../src/algorithms/aba-code.ts';
import { GeneratedCrba } from '../src/algorithms/crba-code.ts';
import { GeneratedMinv } from '../src/algorithms/minv-code.ts';
import { LuForwardDynamics, LuInverseDynamics } from '../src/assembly/dynamics.ts';
import { RecursiveForwardDynamicsDerivatives, RecursiveInverseDynamicsDerivatives } from '../src/derivatives/recursive.ts';
import { GeneratedRneaDerivatives, RNEA_DERIVATIVES_CODE_LIMIT } from '../src/derivatives/rnea-derivatives-code.ts';
import { GeneratedAbaDerivatives } from '../src/derivatives/aba-derivatives-code.ts';
import { chain } from '../src/model/generators.ts';
import type { Model } from '../src/model/model.ts';
import { randomConfiguration } from '../src/model/random.ts';
import { Rng } from '../src/model/rng.ts';
import { loadUrdf } from '../src/node/urdf-file.ts';
import { fmt, peakRssMiB, SHARED_DIR } from './bench-lib.ts';

function arg(name: string, dflt: string): string {
  const k = process.argv.indexOf(name);
  return k > 0 ? process.argv[k + 1] : dflt;
}
const ROUNDS = Number(arg('--rounds', '11'));
const OUT = arg('--out', 'reports/bench-pinocchio.md');
/** --only REGEX: the pairs whose name ("chain:96 fixed", "go1.urdf floating", …) matches, for a quick look (the report is then not written unless --out is given) */
const ONLY = process.argv.includes('--only') ? new RegExp(arg('--only', '')) : null;
const ANCHORS = join(SHARED_DIR, 'anchors/pinocchio-times.json');

interface Anchor { model: string; base: 'fixed' | 'floating'; nq: number; nv: number; median_us: Record<string, number> }
if (!existsSync(ANCHORS)) {
  process.stderr.write(`bench-pinocchio: Pinocchio's times are not here (${ANCHORS}, in the shared folder of other projects' material beside the clone); nothing to compare with\n`);
  process.exit(0);
}
const anchors = JSON.parse(readFileSync(ANCHORS, 'utf8')) as { what: string; models: Anchor[] };

/** The model of an anchor: a generated spec, or a robot file of the shared folder. */
function modelOf(a: Anchor): Model | null {
  const floatingBase = a.base === 'floating';
  const gen = /^generated: sparsedyn urdf --model chain:(\d+)$/.exec(a.model);
  if (gen) return chain(Number(gen[1]), { floatingBase });
  for (const dir of ['', 'urdf-corpus']) {
    const f = join(SHARED_DIR, dir, a.model);
    if (existsSync(f)) return loadUrdf(f, { floatingBase });
  }
  return null;
}

/** Median µs per call of fn(k) (k cycling over the 64 states), rounds of ≥ 5 ms, baseline subtracted. */
function time(fn: (k: number) => void): number {
  const t0 = performance.now();
  while (performance.now() - t0 < 150) for (let k = 0; k < 64; k++) fn(k);
  let reps = 64;
  for (;;) {
    const t = performance.now();
    for (let k = 0; k < reps; k++) fn(k & 63);
    if (performance.now() - t >= 5) break;
    reps *= 2;
  }
  let sink = 0;
  const noop = (k: number) => { sink += k; };
  const rounds: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const a = performance.now();
    for (let k = 0; k < reps; k++) fn(k & 63);
    const b = performance.now();
    for (let k = 0; k < reps; k++) noop(k & 63);
    const c = performance.now();
    rounds.push(((b - a) - (c - b)) * 1000 / reps);
  }
  if (sink < 0) process.stdout.write('');
  rounds.sort((x, y) => x - y);
  return rounds[rounds.length >> 1];
}

/**
 * Median µs per call of each of fns, timed in alternating rounds (round r of every fn, then the
 * next round), so that a change of the machine's load falls on all of them alike: the ratio of the
 * JavaScript and the generated kernel is then measured in the same stretch of time.
 */
function timeAlternating(fns: ((k: number) => void)[]): number[] {
  const reps = fns.map((fn) => {
    const t0 = performance.now();
    while (performance.now() - t0 < 150) for (let k = 0; k < 64; k++) fn(k);
    let n = 64;
    for (;;) {
      const t = performance.now();
      for (let k = 0; k < n; k++) fn(k & 63);
      if (performance.now() - t >= 5) return n;
      n *= 2;
    }
  });
  let sink = 0;
  const noop = (k: number) => { sink += k; };
  const rounds: number[][] = fns.map(() => []);
  for (let r = 0; r < ROUNDS; r++) {
    fns.forEach((fn, j) => {
      const n = reps[j];
      const a = performance.now();
      for (let k = 0; k < n; k++) fn(k & 63);
      const b = performance.now();
      for (let k = 0; k < n; k++) noop(k & 63);
      const c = performance.now();
      rounds[j].push(((b - a) - (c - b)) * 1000 / n);
    });
  }
  if (sink < 0) process.stdout.write('');
  return rounds.map((x) => { x.sort((u, w) => u - w); return x[x.length >> 1]; });
}

/** the JavaScript kernel and, where it is made, the generated one, timed in alternating rounds: [js, generated or NaN] */
function timeBoth(js: (k: number) => void, gen: ((k: number) => void) | null): [number, number] {
  if (!gen) return [time(js), NaN];
  const [a, b] = timeAlternating([js, gen]);
  return [a, b];
}

const load0 = loadavg()[0];
const rows: string[] = [];
const missing: string[] = [];
const COLS = ['rnea', 'aba', 'crba', 'minv', 'rnea_derivatives', 'aba_derivatives'] as const;
const TARGET: Record<string, number> = { rnea: 1.0, aba: 1.1, crba: 1.5, minv: 1.5, rnea_derivatives: 1.5, aba_derivatives: 1.5, lu_id: 1.0, lu_fd: 1.2 };
const met: Record<string, number> = {};
for (const a of anchors.models) {
  const model = modelOf(a);
  const name = `${a.model.replace(/^generated: sparsedyn urdf --model /, '').replace(/^.*\//, '')} ${a.base}`;
  if (ONLY && !ONLY.test(name)) continue;
  if (!model) { missing.push(name); continue; }
  if (model.nv !== a.nv) throw new Error(`${name}: nv ${model.nv} here, ${a.nv} in Pinocchio's figures`);
  const rng = new Rng(7);
  const S = Array.from({ length: 64 }, () => ({
    q: randomConfiguration(model, rng),
    v: Float64Array.from({ length: model.nv }, () => rng.uniform(-1, 1)),
    a: Float64Array.from({ length: model.nv }, () => rng.uniform(-1, 1)),
    tau: Float64Array.from({ length: model.nv }, () => rng.uniform(-1, 1)),
  }));
  const rw = new RneaWorkspace(model), aw = new AbaWorkspace(model), cw = new CrbaWorkspace(model), ww = new CrbaWorldWorkspace(model), mw = new MinvCarpentierWorkspace(model, { frame: 'world' });
  const did = new RecursiveInverseDynamicsDerivatives(model), dfd = new RecursiveForwardDynamicsDerivatives(model);
  const luId = new LuInverseDynamics(model), luFd = new LuForwardDynamics(model);
  const grnea = GeneratedRnea.create(model), gaba = GeneratedAba.create(model), gcrba = GeneratedCrba.create(model), gminv = GeneratedMinv.create(model);
  const grd = GeneratedRneaDerivatives.create(model), gad = GeneratedAbaDerivatives.create(model);
  // the generated code warmed up: the engine optimizes new WebAssembly after some calls (Pinocchio's is compiled ahead of time)
  for (let w = 0; w < 3000; w++) { grnea?.compute(S[w & 63].q, S[w & 63].v, S[w & 63].a); gaba?.compute(S[w & 63].q, S[w & 63].v, S[w & 63].tau); gcrba?.compute(S[w & 63].q, 'lower'); gminv?.compute(S[w & 63].q, 'upper'); grd?.compute(S[w & 63].q, S[w & 63].v, S[w & 63].a); gad?.compute(S[w & 63].q, S[w & 63].v, S[w & 63].tau); luId.solve(S[w & 63].q, S[w & 63].v, S[w & 63].a); luFd.solve(S[w & 63].q, S[w & 63].v, S[w & 63].tau); }
  const [rnea_js, rnea_gen] = timeBoth((k) => { rnea(model, rw, S[k].q, S[k].v, S[k].a); }, grnea ? (k) => { grnea.compute(S[k].q, S[k].v, S[k].a); } : null);
  const [aba_js, aba_gen] = timeBoth((k) => { aba(model, aw, S[k].q, S[k].v, S[k].tau); }, gaba ? (k) => { gaba.compute(S[k].q, S[k].v, S[k].tau); } : null);
  // the local CRBA, the world-frame one (crba-world.ts) and the generated one, in alternating rounds
  const crbaFns = [(k: number) => { crba(model, cw, S[k].q, 'lower'); }, (k: number) => { crbaWorld(model, ww, S[k].q, 'lower'); }];
  if (gcrba) crbaFns.push((k) => { gcrba.compute(S[k].q, 'lower'); });
  const [crba_js, crba_w, crba_gen = NaN] = timeAlternating(crbaFns);
  const [minv_js, minv_gen] = timeBoth((k) => { minvCarpentier(model, mw, S[k].q, 'upper'); }, gminv ? (k) => { gminv.compute(S[k].q, 'upper'); } : null);
  const [rd_js, rd_gen] = timeBoth((k) => { did.compute(S[k].q, S[k].v, S[k].a); }, grd ? (k) => { grd.compute(S[k].q, S[k].v, S[k].a); } : null);
  const [ad_js, ad_gen] = timeBoth((k) => { dfd.compute(S[k].q, S[k].v, S[k].tau); }, gad ? (k) => { gad.compute(S[k].q, S[k].v, S[k].tau); } : null);
  const ours: Record<string, number> = {
    rnea_js, rnea_gen, aba_js, aba_gen, crba_js, crba_gen, crba_w, minv_js, minv_gen, rd_js, rd_gen, ad_js, ad_gen,
    lu_id: time((k) => { luId.solve(S[k].q, S[k].v, S[k].a); }),
    lu_fd: time((k) => { luFd.solve(S[k].q, S[k].v, S[k].tau); }),
  };
  // the faster of our two for the verdict: the generated code where it is made and faster
  ours.rnea = Math.min(ours.rnea_js, Number.isNaN(ours.rnea_gen) ? Infinity : ours.rnea_gen);
  ours.aba = Math.min(ours.aba_js, Number.isNaN(ours.aba_gen) ? Infinity : ours.aba_gen);
  ours.crba = Math.min(ours.crba_js, ours.crba_w, Number.isNaN(ours.crba_gen) ? Infinity : ours.crba_gen);
  ours.minv = Math.min(ours.minv_js, Number.isNaN(ours.minv_gen) ? Infinity : ours.minv_gen);
  ours.rnea_derivatives = Math.min(ours.rd_js, Number.isNaN(ours.rd_gen) ? Infinity : ours.rd_gen);
  ours.aba_derivatives = Math.min(ours.ad_js, Number.isNaN(ours.ad_gen) ? Infinity : ours.ad_gen);
  const pin = a.median_us;
  const ratio: Record<string, number> = {};
  for (const c of COLS) ratio[c] = ours[c] / pin[c];
  ratio.lu_id = ours.lu_id / pin.rnea;
  ratio.lu_fd = ours.lu_fd / pin.aba;
  for (const [c, r] of Object.entries(ratio)) if (r <= TARGET[c]) met[c] = (met[c] ?? 0) + 1;
  const cell = (c: string) => `${fmt(ratio[c])}${ratio[c] <= TARGET[c] ? ' ✓' : ''}`;
  const us = (x: number) => (Number.isNaN(x) ? '—' : fmt(x));
  const gcell = (x: number, p: number) => (Number.isNaN(x) ? '—' : fmt(x / p));
  rows.push(`| ${name} | ${model.nv} | ${fmt(ours.rnea_js / pin.rnea)} | ${gcell(ours.rnea_gen, pin.rnea)} | ${fmt(ours.aba_js / pin.aba)} | ${gcell(ours.aba_gen, pin.aba)} | ${fmt(ours.crba_js / pin.crba)} | ${fmt(ours.crba_w / pin.crba)} | ${gcell(ours.crba_gen, pin.crba)} | ${fmt(ours.minv_js / pin.minv)} | ${gcell(ours.minv_gen, pin.minv)} | ${fmt(ours.rd_js / pin.rnea_derivatives)} | ${gcell(ours.rd_gen, pin.rnea_derivatives)} | ${fmt(ours.ad_js / pin.aba_derivatives)} | ${gcell(ours.ad_gen, pin.aba_derivatives)} | ${[...COLS, 'lu_id', 'lu_fd'].map(cell).join(' | ')} | ${fmt(ours.rnea_js)} / ${us(ours.rnea_gen)} / ${fmt(pin.rnea)} | ${fmt(ours.aba_js)} / ${us(ours.aba_gen)} / ${fmt(pin.aba)} | ${pin.crba_world ? fmt(ours.crba_w / pin.crba_world) : '—'} |`);
  process.stdout.write(`${name.padEnd(28)} ${[...COLS, 'lu_id', 'lu_fd'].map((c) => fmt(ratio[c]).padStart(6)).join(' ')}\n`);
}
const n = rows.length;
const md = [
  '# Against Pinocchio 3.7 on this machine kind',
  '',
  `Written by \`npx tsx scripts/bench-pinocchio.ts --rounds ${ROUNDS}\` on ${new Date().toISOString().slice(0, 10)} (${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores, Node ${process.version}; 1-minute load average ${load0.toFixed(2)} at the start, ${loadavg()[0].toFixed(2)} at the end; peak resident memory ${fmt(peakRssMiB(), 0)} MiB).`,
  '',
  'Ours ÷ Pinocchio\'s median µs per call, every model/base pair of the shared Pinocchio figures (Pinocchio 3.7.0, C++, -O3 -march=native, measured on this machine kind with the same scheme: 64 prepared random states cycled, rounds of at least 5 ms, 11 rounds, empty-loop baseline subtracted, median). **Pinocchio did not run in this run**: its figures were measured before, on this machine kind; the last column gives our RNEA and Pinocchio\'s, the calibration of each row (a loaded machine inflates every ratio of a row alike): the JavaScript RNEA (rnea.ts, the reference) does the same work as Pinocchio\'s; the generated one (rnea-code.ts: WebAssembly generated per model, the model\'s constants folded in, τ equal to the reference\'s to rounding) the generated ABA (aba-code.ts, q̈ equal to the reference\'s to rounding; straight-line code up to ' + (ABA_LOOPS_FROM - 1) + ' bodies, from ' + ABA_LOOPS_FROM + ' on where every joint has one DoF aba-loops-code.ts instead, the passes as loops over a table of bodies, otherwise straight-line up to ' + ABA_CODE_LIMIT + ') and the generated CRBA (crba-code.ts, M equal to the reference\'s to rounding; made up to 5,000 (DoF, ancestor) pairs) and the generated M⁻¹ (minv-code.ts, Carpentier\'s passes in body coordinates, made up to 2,500 (DoF, column) pairs; where every joint below the root has one DoF minv-columns-code.ts instead, Pinocchio\'s world-frame passes, the per-body work straight-line up to 128 bodies, the work per (DoF, column) pair as a SIMD loop; M⁻¹ equal to the reference\'s to rounding) and the generated RNEA derivatives (rnea-derivatives-code.ts: the world-frame passes of rnea-derivatives.ts as straight-line code, the pairs with the columns above as a loop; τ, ∂τ/∂q, ∂τ/∂q̇ and M equal to the JavaScript\'s to rounding; made up to ' + RNEA_DERIVATIVES_CODE_LIMIT + ' bodies) and the forward-dynamics derivatives from the generated kernels (aba-derivatives-code.ts: the generated ABA, the generated RNEA derivatives without M, then the generated M⁻¹ and dense products −M⁻¹ ∂τ/∂x, or past its limit the world-frame factorization\'s solves; equal to RecursiveForwardDynamicsDerivatives\' to rounding) are timed after 3,000 warm-up calls (the engine optimizes new WebAssembly after some calls; Pinocchio\'s C++ is compiled ahead of time), each in alternating rounds with its JavaScript reference (a round of one, then a round of the other), so that the two columns of a row see the same load; the RNEA, ABA, CRBA, M⁻¹, ∂RNEA and ∂ABA columns give the faster of ours, on which the targets are judged. M⁻¹: our Carpentier algorithm in world coordinates against `computeMinverse`, one triangle each (`minvCarpentier(…, \'upper\')`, the memory Pinocchio writes); CRBA against `crba` (local), one triangle each (`crba(…, \'lower\')`), ours the faster of the local JavaScript, the generated code and the world-frame JavaScript (crba-world.ts: Pinocchio\'s WORLD-convention algorithm, composite inertias and motion subspaces in world coordinates, one 6-term dot product per (DoF, ancestor) pair instead of a spatial transform; M equal to the local one\'s to rounding), timed in alternating rounds with the local one; the last column compares it with Pinocchio\'s `crba` in the WORLD convention, the same algorithm. LU-ID: our sparse LU inverse dynamics ÷ Pinocchio\'s RNEA; LU-FD: our sparse LU forward dynamics ÷ Pinocchio\'s ABA (their factorization, fill and kinematics are generated WebAssembly too: timed after the same 3,000 warm-up calls). ✓: within the target (RNEA 1.0, ABA 1.1, CRBA 1.5, M⁻¹ 1.5, derivatives 1.5, LU-ID 1.0, LU-FD 1.2).',
  '',
  `How Pinocchio's figures were measured, in their own words: "${anchors.what}" This run's processor is named above: where it differs from theirs, the ratios carry the difference between the two processors too — the RNEA column, where our code and theirs do the same work, shows its size.`,
  '',
  '| model | nv | RNEA (JavaScript) | RNEA (generated) | ABA (JavaScript) | ABA (generated) | CRBA (JavaScript) | CRBA (JavaScript, world frame) | CRBA (generated) | M⁻¹ (JavaScript) | M⁻¹ (generated) | ∂RNEA (JavaScript) | ∂RNEA (generated) | ∂ABA (JavaScript) | ∂ABA (generated) | RNEA | ABA | CRBA | M⁻¹ | ∂RNEA | ∂ABA | LU-ID ÷ RNEA | LU-FD ÷ ABA | RNEA µs: ours JavaScript / ours generated / Pinocchio\'s | ABA µs: ours JavaScript / ours generated / Pinocchio\'s | CRBA, world frame: ours ÷ Pinocchio\'s WORLD convention |',
  '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ...rows,
  '',
  `Within target, of ${n} pairs: ${['rnea', 'aba', 'crba', 'minv', 'rnea_derivatives', 'aba_derivatives', 'lu_id', 'lu_fd'].map((c) => `${c} ${met[c] ?? 0}`).join(', ')}.`,
  ...(missing.length ? ['', `Not run (their robot files were not in the shared folder): ${missing.join(', ')}.`] : []),
  '',
];
if (ONLY && !process.argv.includes('--out')) process.stdout.write(`(--only: ${OUT} not written)\n`);
else {
  mkdirSync('reports', { recursive: true });
  writeFileSync(OUT, md.join('\n'));
}
