/**
 * Benchmark of the gold standards: µs per call (median) of RNEA, ABA, CRBA, M⁻¹ by Carpentier's
 * algorithm and the recursive derivatives of inverse and forward dynamics (Carpentier & Mansard 2018) on serial
 * chains of 6–96 links and on five real robots of other projects (fixed and floating base, read
 * from the folder beside the clone; skipped with one line when it is not there), with their exact
 * flop counts, and our times over the figures measured earlier for Pinocchio 3.7 (C++, -O3
 * -march=native) measured on this machine. Pinocchio itself cannot be installed here (only the npm
 * and Debian registries are reachable): the ratios are against those stated figures, not a run.
 * Writes reports/bench-algorithms.md. Run: npx tsx scripts/bench-algorithms.ts
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { aba, AbaWorkspace } from '../src/algorithms/aba.ts';
import { crba, CrbaWorkspace } from '../src/algorithms/crba.ts';
import { eidambDerivatives, EidambDerivativesWorkspace } from '../src/algorithms/eidamb-derivatives.ts';
import { eidamb, EidambWorkspace } from '../src/algorithms/eidamb.ts';
import { minvCholesky, MinvCholeskyWorkspace } from '../src/algorithms/minv.ts';
import { minvCarpentier, MinvCarpentierWorkspace } from '../src/algorithms/minv-carpentier.ts';
import { RecursiveForwardDynamicsDerivatives, RecursiveInverseDynamicsDerivatives } from '../src/derivatives/recursive.ts';
import { rnea, RneaWorkspace } from '../src/algorithms/rnea.ts';
import { chain } from '../src/model/generators.ts';
import type { Model } from '../src/model/model.ts';
import { Rng } from '../src/model/rng.ts';
import { loadUrdf } from '../src/node/urdf-file.ts';
import { fmt, peakRssMiB, realRobots, timeCall, timeStats } from './bench-lib.ts';


function state(model: Model, seed: number) {
  const rng = new Rng(seed);
  const q = new Float64Array(model.nq);
  for (const j of model.movingJoints()) {
    if (j.type === 'floating') { q[j.iq + 6] = 1; q[j.iq + 3] = 0; }
    else if (j.type === 'spherical') q[j.iq + 3] = 1;
    else q[j.iq] = rng.uniform(-1, 1);
  }
  const vec = () => Float64Array.from({ length: model.nv }, () => rng.uniform(-1, 1));
  return { q, v: vec(), a: vec(), tau: vec() };
}

/**
 * Run fn for `ms` milliseconds before it is timed: on a loaded machine the optimizing compiler
 * (a background thread) can take that long to deliver, and the first model measured would be
 * timed in an unoptimized tier.
 */
function warm(fn: () => void, ms = 150): () => void {
  const t0 = performance.now();
  while (performance.now() - t0 < ms) for (let k = 0; k < 50; k++) fn();
  return fn;
}

const rows: string[] = [];
const models: [string, Model][] = [];
for (const n of [6, 12, 24, 48, 96]) models.push([`chain ${n}`, chain(n)]);
const ROBOTS = ['ur5_robot', 'panda', 'solo12', 'simple_humanoid', 'talos_reduced'];
const robots = realRobots('bench-algorithms', ROBOTS, 'their rows (the chains still run)');
const notRun = ROBOTS.filter((r) => !robots.has(r));
for (const [r, file] of robots) {
  models.push([`${r} fixed`, loadUrdf(file)]);
  models.push([`${r} floating`, loadUrdf(file, { floatingBase: true })]);
}

/**
 * The previous recursive route, rebuilt from the algorithms it called (for the same-run ratios):
 * EIDAmb and Saccon et al.'s Tables 5–8 with the CRBA (inverse dynamics); ABA, the same at its q̈,
 * the Cholesky M⁻¹ and the two dense products −M⁻¹ ∂τ/∂x (forward dynamics).
 */
function previousRoute(model: Model) {
  const nv = model.nv;
  const eid = new EidambWorkspace(model), der = new EidambDerivativesWorkspace(model), cw = new CrbaWorkspace(model);
  const aw = new AbaWorkspace(model), mc = new MinvCholeskyWorkspace(model);
  const tq = new Float64Array(nv * nv), tv = new Float64Array(nv * nv), xq = new Float64Array(nv * nv), xv = new Float64Array(nv * nv);
  const transpose = (out: Float64Array, src: Float64Array) => { for (let r = 0; r < nv; r++) for (let k = 0; k < nv; k++) out[r * nv + k] = src[k * nv + r]; };
  const negProduct = (out: Float64Array, A: Float64Array, B: Float64Array) => {
    for (let r = 0; r < nv; r++) for (let k = 0; k < nv; k++) { let x = 0; for (let t = 0; t < nv; t++) x += A[r * nv + t] * B[k * nv + t]; out[r * nv + k] = -x; }
  };
  const total = () => eid.flops.total + der.totalFlops().total;
  return {
    /** flops of the last id / fd call, as the previous route counted them */
    idFlops: () => total() + cw.flops.total,
    fdFlops: () => aw.kin.flops.total + aw.flops.total + total() + mc.crba.flops.total + mc.flops.total + 2 * nv * nv * (2 * nv - 1),
    id: (q: Float64Array, v: Float64Array, a: Float64Array) => {
      eidamb(model, eid, q, v, a); eidambDerivatives(model, eid, der);
      transpose(tq, der.dtau_dq); transpose(tv, der.dtau_dv); crba(model, cw, q);
    },
    fd: (q: Float64Array, v: Float64Array, tau: Float64Array) => {
      const qdd = aba(model, aw, q, v, tau);
      eidamb(model, eid, q, v, qdd); eidambDerivatives(model, eid, der);
      const Minv = minvCholesky(model, mc, q);
      negProduct(xq, Minv, der.dtau_dq); negProduct(xv, Minv, der.dtau_dv);
    },
  };
}

/** Pinocchio 3.7's µs per call as measured earlier on this machine, by our model name */
const PINOCCHIO: Record<string, { rnea: number; aba: number; rneaDer?: number; abaDer?: number }> = {
  'chain 6': { rnea: 0.75, aba: 1.75, rneaDer: 2.7, abaDer: 3.6 },
  'chain 24': { rnea: 3.2, aba: 7.05, rneaDer: 12.4, abaDer: 17.1 },
  'chain 96': { rnea: 12.8, aba: 30.2, rneaDer: 73.6, abaDer: 172 },
  'talos_reduced floating': { rnea: 4.4, aba: 10.2 },
};
const ratioRows: string[] = [];
const prevRows: string[] = [];
const load0 = loadavg()[0];
process.stdout.write('model                      nv |  RNEA µs   ABA µs  CRBA µs  Minv µs  dID µs  dFD µs | RNEA flops  ABA flops CRBA flops\n');
for (const [name, model] of models) {
  const s = state(model, 1);
  const rw = new RneaWorkspace(model), aw = new AbaWorkspace(model), cw = new CrbaWorkspace(model), mw = new MinvCarpentierWorkspace(model);
  const did = new RecursiveInverseDynamicsDerivatives(model), dfd = new RecursiveForwardDynamicsDerivatives(model);
  const sR = timeStats(warm(() => { rnea(model, rw, s.q, s.v, s.a); }), { rounds: 41, minMs: 2, warmup: 0 });
  const sA = timeStats(warm(() => { aba(model, aw, s.q, s.v, s.tau); }), { rounds: 41, minMs: 2, warmup: 0 });
  const sC = timeStats(warm(() => { crba(model, cw, s.q); }), { rounds: 41, minMs: 2, warmup: 0 });
  const sM = timeStats(warm(() => { minvCarpentier(model, mw, s.q); }), { rounds: 41, minMs: 2, warmup: 0 });
  const tR = sR.median, tA = sA.median, tC = sC.median, tM = sM.median;
  const tDI = timeCall(warm(() => { did.compute(s.q, s.v, s.a); }), { minMs: 2, rounds: 11 });
  const tDF = timeCall(warm(() => { dfd.compute(s.q, s.v, s.tau); }), { minMs: 2, rounds: 11 });
  const fR = rw.totalFlops(), fA = aw.totalFlops(), fC = cw.flops;
  const line = `| ${name} | ${model.nv} | ${fmt(tR)} | ${fmt(tA)} | ${fmt(tC)} | ${fmt(tM)} | ${fmt(tDI)} | ${fmt(tDF)} | ${fR.mul} / ${fR.add} | ${fA.mul} / ${fA.add} / ${fA.div} | ${fC.mul} / ${fC.add} |`;
  rows.push(line);
  const pin = PINOCCHIO[name];
  if (pin) {
    const r = (ours: number, theirs: number | undefined, target: number) => (theirs === undefined ? '—' : `${fmt(ours / theirs)}× ${ours / theirs <= target ? '(met)' : `(target ${target}×)`}`);
    // RNEA and ABA: best round (median round in parentheses); derivatives: median
    const rb = (st: { median: number; best: number }, theirs: number, target: number) => `${r(st.best, theirs, target)} (median ${fmt(st.median / theirs)}×)`;
    ratioRows.push(`| ${name} | ${fmt(sR.best)} | ${rb(sR, pin.rnea, 1.5)} | ${fmt(sA.best)} | ${rb(sA, pin.aba, 1.5)} | ${r(tDI, pin.rneaDer, 3)} | ${r(tDF, pin.abaDer, 3)} |`);
    // the previous recursive route, timed in this run
    const pr = previousRoute(model);
    const pDI = timeCall(warm(() => { pr.id(s.q, s.v, s.a); }), { minMs: 2, rounds: 11 });
    const pDF = timeCall(warm(() => { pr.fd(s.q, s.v, s.tau); }), { minMs: 2, rounds: 11 });
    const fl = (o: { flops: Record<string, { total: number }> }) => Object.values(o.flops).reduce((x, f) => x + f.total, 0);
    prevRows.push(`| ${name} | ${fmt(pDI)} | ${fmt(tDI)} | ${fmt(pDI / tDI)}× | ${pr.idFlops()} / ${fl(did)} | ${fmt(pDF)} | ${fmt(tDF)} | ${fmt(pDF / tDF)}× | ${pr.fdFlops()} / ${fl(dfd)} |`);
  }
  process.stdout.write(`${name.padEnd(24)} ${String(model.nv).padStart(4)} | ${fmt(tR).padStart(8)} ${fmt(tA).padStart(8)} ${fmt(tC).padStart(8)} ${fmt(tM).padStart(8)} ${fmt(tDI).padStart(7)} ${fmt(tDF).padStart(7)} | ${String(fR.total).padStart(10)} ${String(fA.total).padStart(10)} ${String(fC.total).padStart(10)}\n`);
}

const md = `# Gold-standard algorithms: time and flops

Generated by \`npx tsx scripts/bench-algorithms.ts\` on ${new Date().toISOString().slice(0, 10)}
(${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores, Node ${process.version}).
Median µs per call over 41 rounds of at least 2 ms for RNEA, ABA, CRBA and M⁻¹, 11 rounds of at
least 2 ms for the derivatives (inputs prepared before timing; every call warmed up
for 150 ms first, so that the optimizing compiler has delivered; empty-loop baseline subtracted).
Flops are the exact counts of the kernels (mul / add, and div for ABA), velocity kinematics
included; a multiply-add counts as two flops. Peak RSS of the run: ${fmt(peakRssMiB(), 0)} MiB.
Load average ${load0.toFixed(1)} → ${loadavg()[0].toFixed(1)} on ${cpus().length} CPUs from other work during the run: above the CPU
count, times are inflated and noisy (the flops are exact).

| model | nv | RNEA µs | ABA µs | CRBA µs | M⁻¹ (Carpentier) µs | ID derivatives (recursive) µs | FD derivatives (recursive) µs | RNEA mul / add | ABA mul / add / div | CRBA mul / add |
|---|---|---|---|---|---|---|---|---|---|---|
${rows.join('\n')}

Against Pinocchio 3.7 (C++, -O3 -march=native): our time over Pinocchio's time for it as measured earlier on
this machine (RNEA 0.75 / 3.2 / 12.8 / 4.4 µs, ABA 1.75 / 7.05 / 30.2 / 10.2 µs, RNEA derivatives
2.7 / 12.4 / 73.6 µs, ABA derivatives 3.6 / 17.1 / 172 µs for the 6-, 24-, 96-link chains and
talos_reduced with a floating base). Pinocchio cannot be installed here (only the npm and Debian
registries are reachable), so it did not run beside ours: on a loaded machine our times, hence the
ratios, are pessimistic. RNEA and ABA are compared by their fastest round of 41 (the round least
disturbed by the other work on the machine; the ratio of the median round in parentheses), the
derivatives by their median. Targets: RNEA and ABA ≤ 1.5×, recursive derivatives ≤ 3×. Those earlier
figures give no absolute time for CRBA or M⁻¹, only ratios, so they have no row here (\`scripts/bench-pinocchio.ts\`
compares all of them with Pinocchio's times on this machine kind).

| model | RNEA best µs | RNEA | ABA best µs | ABA | ID derivatives | FD derivatives |
|---|---|---|---|---|---|---|
${ratioRows.join('\n')}

The recursive derivatives (Carpentier & Mansard, RSS 2018, in the world frame; for forward dynamics
the articulated-body factorization of M for M⁻¹ and −M⁻¹ ∂τ/∂x) against the route they replaced
(Saccon et al. 2017, Tables 4–8, with the CRBA; ABA, the same tables at its q̈, the Cholesky M⁻¹ and
two dense products, n²(n mul + n − 1 add) each), both timed in this run (median µs), with their exact flop counts:

| model | ID derivatives before µs | after µs | speed-up | flops before / after | FD derivatives before µs | after µs | speed-up | flops before / after |
|---|---|---|---|---|---|---|---|---|
${prevRows.join('\n')}
${notRun.length > 0 ? `\nNot run: ${notRun.join(', ')} (their robot files were not beside the clone).\n` : ''}`;
mkdirSync('reports', { recursive: true });
writeFileSync('reports/bench-algorithms.md', md);
process.stdout.write('wrote reports/bench-algorithms.md\n');
