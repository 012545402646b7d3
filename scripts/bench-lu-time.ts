/**
 * Time per call of the sparse path against the recursive algorithms, in the same run, alternating:
 *   - inverse dynamics by sparse LU vs RNEA, forward dynamics by sparse LU vs ABA, each with the
 *     generic kernels (FactorOptions.compile 'never') and with the compiled WebAssembly ('always');
 *   - derivatives by factor reuse (full solves, generic kernels: before; compiled solves skipping zero
 *     columns: skip; reach-restricted solves: now) vs the recursive derivatives, inverse and forward dynamics;
 *   - the estimator's per-sample refactor + solve on the demo humanoid (data/problems/humanoid-demo.json),
 *     generic vs compiled, on the same symbolic factorization;
 * on chains and random trees of 6–1,000 bodies, the shipped models, and the real robots of other
 * projects (read from the folder beside the clone; skipped with one line when it is not there),
 * fixed and floating base; with exact flops, the 1-minute load average per row and the peak memory.
 * Writes reports/bench-lu-time.md. Run: npx tsx scripts/bench-lu-time.ts [--quick]
 *
 * Timing: every solver of a row is warmed up (≥ 0.8 s), then
 * 25 rounds run the solvers one after the other (starting with a different one each round), each a
 * batch of at least 4 calls and ~1 ms (so that the solvers of 1,000 bodies, whose calls take ~1 ms,
 * are timed as a loop calls them, not only right after the others have used the caches); a figure is the best round's µs per call (on a shared machine other
 * processes only add time), and a ratio the ratio of two such figures of the same row.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { aba, AbaWorkspace } from '../src/algorithms/aba.ts';
import { rnea, RneaWorkspace } from '../src/algorithms/rnea.ts';
import { LuForwardDynamics, LuInverseDynamics } from '../src/assembly/dynamics.ts';
import { LuForwardDynamicsDerivatives, LuInverseDynamicsDerivatives } from '../src/derivatives/dynamics.ts';
import { RecursiveForwardDynamicsDerivatives, RecursiveInverseDynamicsDerivatives } from '../src/derivatives/recursive.ts';
import { SystemSensitivity } from '../src/derivatives/sensitivity.ts';
import { Estimator } from '../src/estimation/estimator.ts';
import { buildEstimationSystem } from '../src/estimation/setup.ts';
import { chain, randomTree } from '../src/model/generators.ts';
import type { Model } from '../src/model/model.ts';
import { randomConfiguration } from '../src/model/random.ts';
import { Rng } from '../src/model/rng.ts';
import { loadProblem } from '../src/node/problem-file.ts';
import { loadUrdf } from '../src/node/urdf-file.ts';
import { NumericLU } from '../src/sparse/numeric.ts';
import { fmt, peakRssMiB, realRobots } from './bench-lib.ts';

const quick = process.argv.includes('--quick');
const ROUNDS = quick ? 11 : 25;

interface Timed { name: string; fn: () => void }

/** fewest calls in a timed batch */
const MIN_BATCH = 4;

/** Best-round µs per call of each function, alternating, and the ratios of those. */
function alternate(fns: Timed[], warmMs = 800): { us: Map<string, number>; ratio: (a: string, b: string) => number } {
  for (const f of fns) {
    const t0 = performance.now();
    let k = 0;
    while (k < 20 || performance.now() - t0 < warmMs) { f.fn(); k++; }
  }
  const reps = fns.map((f) => {
    let r = 1;
    for (;;) {
      const t0 = performance.now();
      for (let k = 0; k < r; k++) f.fn();
      if ((r >= MIN_BATCH && performance.now() - t0 >= 1) || r > 1e6) return r;
      r *= 2;
    }
  });
  const samples = fns.map(() => [] as number[]);
  for (let round = 0; round < ROUNDS; round++) {
    for (let t = 0; t < fns.length; t++) {
      const i = (t + round) % fns.length;
      const f = fns[i].fn, r = reps[i];
      const t0 = performance.now();
      for (let k = 0; k < r; k++) f();
      samples[i].push(((performance.now() - t0) * 1000) / r);
    }
  }
  // the machine is shared: other processes only ever add time, so the best round is the figure
  const us = new Map(fns.map((f, i) => [f.name, Math.min(...samples[i])]));
  return { us, ratio: (a, b) => us.get(a)! / us.get(b)! };
}

function state(model: Model, seed: number) {
  const rng = new Rng(seed);
  const q = randomConfiguration(model, rng);
  return { q, v: rng.array(model.nv, -1, 1), a: rng.array(model.nv, -1, 1), tau: rng.array(model.nv, -1, 1) };
}

// ---- models
const models: [string, Model][] = [];
const sizes = quick ? [6, 24, 96] : [6, 24, 96, 384, 1000];
for (const n of sizes) models.push([`chain ${n}`, chain(n)]);
for (const n of quick ? [24] : [24, 96]) models.push([`chain ${n} floating`, chain(n, { floatingBase: true })]);
for (const n of quick ? [50] : [12, 50, 200, 1000]) models.push([`tree ${n}`, randomTree(n, 7)]);
for (const n of quick ? [50] : [50, 200]) models.push([`tree ${n} floating`, randomTree(n, 8, { floatingBase: true })]);
models.push(['models/chain6.urdf', loadUrdf('models/chain6.urdf')]);
models.push(['models/humanoid.urdf fixed', loadUrdf('models/humanoid.urdf')]);
models.push(['models/humanoid.urdf floating', loadUrdf('models/humanoid.urdf', { floatingBase: true })]);
const ROBOTS = ['ur5_robot', 'panda', 'solo12', 'simple_humanoid', 'talos_reduced'];
const robots = realRobots('bench-lu-time', ROBOTS, 'their rows (the generated and shipped models still run)');
for (const [r, file] of robots) {
  models.push([`${r} fixed`, loadUrdf(file)]);
  models.push([`${r} floating`, loadUrdf(file, { floatingBase: true })]);
}

const loadStart = loadavg()[0];
const dynRows: string[] = [];
const derRows: string[] = [];
process.stdout.write('model | nv | RNEA ID-gen ID-now | ABA FD-gen FD-now (µs) | ID/RNEA gen→now | FD/ABA gen→now\n');
for (const [name, model] of models) {
  const s = state(model, 1);
  const rw = new RneaWorkspace(model), aw = new AbaWorkspace(model);
  // "now": the defaults (compile 'auto': the 16th refactor compiles; its step is timed alone)
  const idG = new LuInverseDynamics(model, { compile: 'never' }), idC = new LuInverseDynamics(model, { compile: 'auto' });
  const fdG = new LuForwardDynamics(model, { compile: 'never' }), fdC = new LuForwardDynamics(model, { compile: 'auto' });
  for (let k = 0; k < 15; k++) { idC.solve(s.q, s.v, s.a); fdC.solve(s.q, s.v, s.tau); }
  const tc0 = performance.now();
  idC.solve(s.q, s.v, s.a); // the 16th refactor compiles
  fdC.solve(s.q, s.v, s.tau);
  const compileMs = performance.now() - tc0;
  const load = loadavg()[0];
  const t = alternate([
    { name: 'rnea', fn: () => { rnea(model, rw, s.q, s.v, s.a); } },
    { name: 'idG', fn: () => { idG.solve(s.q, s.v, s.a); } },
    { name: 'idC', fn: () => { idC.solve(s.q, s.v, s.a); } },
    { name: 'aba', fn: () => { aba(model, aw, s.q, s.v, s.tau); } },
    { name: 'fdG', fn: () => { fdG.solve(s.q, s.v, s.tau); } },
    { name: 'fdC', fn: () => { fdC.solve(s.q, s.v, s.tau); } },
  ]);
  const u = (k: string) => fmt(t.us.get(k)!);
  const fR = rw.totalFlops().total, fA = aw.totalFlops().total;
  const fI = idC.solver.totalFlops().total, fF = fdC.solver.totalFlops().total;
  const rI = t.ratio('idC', 'rnea'), rF = t.ratio('fdC', 'aba');
  const info = (lu: NumericLU) => {
    const c = lu.compiledSize;
    if (c === null) return 'generic';
    return c.kind === 'straight' ? `${fmt(c.statements / 1000, 1)}k / ${fmt(c.bytes / 1048576, 2)} MB` : `loops / ${fmt(c.bytes / 1024, 1)} kB`;
  };
  dynRows.push(`| ${name} | ${model.nv} | ${u('rnea')} | ${u('idG')} | ${u('idC')} | ${fmt(t.ratio('idG', 'rnea'))} → **${fmt(rI)}**${rI <= 1.2 ? ' ✓' : ''} | ${fmt(fI / fR)} | ${u('aba')} | ${u('fdG')} | ${u('fdC')} | ${fmt(t.ratio('fdG', 'aba'))} → **${fmt(rF)}**${rF <= 1.5 ? ' ✓' : ''} | ${fmt(fF / fA)} | ID ${info(idC.solver.lu)}; FD ${info(fdC.solver.lu)}; ${fmt(compileMs, 1)} ms | ${fmt(load, 1)} |`);
  process.stdout.write(`${name} | ${model.nv} | ${u('rnea')} ${u('idG')} ${u('idC')} | ${u('aba')} ${u('fdG')} ${u('fdC')} | ${fmt(t.ratio('idG', 'rnea'))}→${fmt(rI)} | ${fmt(t.ratio('fdG', 'aba'))}→${fmt(rF)} | load ${fmt(load, 1)}\n`);

  // derivatives (quadratic in nv: up to ~100 velocities)
  if (model.nv > 100) continue;
  const inputs = Int32Array.from({ length: model.nv }, (_, k) => k);
  const recI = new RecursiveInverseDynamicsDerivatives(model), recF = new RecursiveForwardDynamicsDerivatives(model);
  const luI = new LuInverseDynamicsDerivatives(model), luF = new LuForwardDynamicsDerivatives(model);
  const oldI = new LuInverseDynamicsDerivatives(model, { compile: 'never' }), oldF = new LuForwardDynamicsDerivatives(model, { compile: 'never' });
  const skI = new LuInverseDynamicsDerivatives(model), skF = new LuForwardDynamicsDerivatives(model);
  // before: full solves with the generic kernels; skip: the compiled solves over all n unknowns that skip zero columns (the previous default)
  (oldI as unknown as { sens: SystemSensitivity }).sens = new SystemSensitivity(oldI.dynamics.solver, { inputs, sparse: false });
  (oldF as unknown as { sens: SystemSensitivity }).sens = new SystemSensitivity(oldF.dynamics.solver, { inputs, sparse: false });
  (skI as unknown as { sens: SystemSensitivity }).sens = new SystemSensitivity(skI.dynamics.solver, { inputs, sparse: true });
  (skF as unknown as { sens: SystemSensitivity }).sens = new SystemSensitivity(skF.dynamics.solver, { inputs, sparse: true });
  const loadD = loadavg()[0];
  const d = alternate([
    { name: 'recI', fn: () => { recI.compute(s.q, s.v, s.a); } },
    { name: 'oldI', fn: () => { oldI.compute(s.q, s.v, s.a); } },
    { name: 'skI', fn: () => { skI.compute(s.q, s.v, s.a); } },
    { name: 'luI', fn: () => { luI.compute(s.q, s.v, s.a); } },
    { name: 'recF', fn: () => { recF.compute(s.q, s.v, s.tau); } },
    { name: 'oldF', fn: () => { oldF.compute(s.q, s.v, s.tau); } },
    { name: 'skF', fn: () => { skF.compute(s.q, s.v, s.tau); } },
    { name: 'luF', fn: () => { luF.compute(s.q, s.v, s.tau); } },
  ], 400);
  const fl = (x: { flops: { value: { total: number }; derivatives: { total: number } } }) => x.flops.value.total + x.flops.derivatives.total;
  const flR = (x: { flops: Record<string, { total: number }> }) => Object.values(x.flops).reduce((a, f) => a + f.total, 0);
  const v = (k: string) => fmt(d.us.get(k)!);
  const r1 = d.ratio('luI', 'recI'), r2 = d.ratio('luF', 'recF');
  derRows.push(`| ${name} | ${model.nv} | ${v('recI')} | ${v('oldI')} | ${v('skI')} | ${v('luI')} | ${fmt(d.ratio('oldI', 'recI'))} → ${fmt(d.ratio('skI', 'recI'))} → **${fmt(r1)}**${r1 <= 1.5 ? ' ✓' : ''} | ${fmt(fl(oldI) / 1000, 1)}k → ${fmt(fl(skI) / 1000, 1)}k → ${fmt(fl(luI) / 1000, 1)}k (rec. ${fmt(flR(recI) / 1000, 1)}k) | ${v('recF')} | ${v('oldF')} | ${v('skF')} | ${v('luF')} | ${fmt(d.ratio('oldF', 'recF'))} → ${fmt(d.ratio('skF', 'recF'))} → **${fmt(r2)}**${r2 <= 1.5 ? ' ✓' : ''} | ${fmt(fl(oldF) / 1000, 1)}k → ${fmt(fl(skF) / 1000, 1)}k → ${fmt(fl(luF) / 1000, 1)}k (rec. ${fmt(flR(recF) / 1000, 1)}k) | ${fmt(loadD, 1)} |`);
  process.stdout.write(`  derivatives: ID rec ${v('recI')} old ${v('oldI')} skip ${v('skI')} now ${v('luI')} | FD rec ${v('recF')} old ${v('oldF')} skip ${v('skF')} now ${v('luF')}\n`);
}

// ---- the estimator on the demo humanoid: the per-sample refactor + solve, generic vs compiled
const { problem, model: hmodel } = loadProblem('data/problems/humanoid-demo.json');
const es = buildEstimationSystem(hmodel, problem);
const est = new Estimator(es);
const hs = state(hmodel, 3);
const y = new Rng(4).array(es.sys.ny, -1, 1);
for (let k = 0; k < 20; k++) est.estimateUnchecked(hs.q, hs.v, y);
let estRow = '';
if (est.lu && est.K) {
  const lu = est.lu, K = est.K;
  const gen = new NumericLU(lu.symbolic, { checkTol: lu.checkTol, refine: lu.refine, compile: 'never' });
  const z = new Float64Array(K.n), rhs = Float64Array.from({ length: K.n }, (_, k) => Math.sin(k));
  const e = alternate([
    { name: 'gen', fn: () => { gen.refactor(K.Ax); gen.solve(z, rhs); } },
    { name: 'now', fn: () => { lu.refactor(K.Ax); lu.solve(z, rhs); } },
    { name: 'sample', fn: () => { est.estimateUnchecked(hs.q, hs.v, y); } },
  ]);
  estRow = `| humanoid-demo (${est.mode}, K of order ${K.n}) | ${fmt(e.us.get('gen')!)} | ${fmt(e.us.get('now')!)} | **${fmt(e.ratio('now', 'gen'))}** | ${fmt(e.us.get('sample')!)} | ${lu.compiled ? 'yes' : 'no'} | ${gen.factorMuls + gen.factorAdds + gen.factorDivs + gen.solveMuls + gen.solveAdds + gen.solveDivs} = ${lu.factorMuls + lu.factorAdds + lu.factorDivs + lu.solveMuls + lu.solveAdds + lu.solveDivs} |`;
  process.stdout.write(`estimator: ${estRow}\n`);
}

const md = `# Time per call of the sparse path

Generated by \`npx tsx scripts/bench-lu-time.ts${quick ? ' --quick' : ''}\` on ${new Date().toISOString().slice(0, 10)}
(${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores, Node ${process.version}). 1-minute load average
${fmt(loadStart, 1)} at the start, ${fmt(loadavg()[0], 1)} at the end (other sessions share the machine: the times move
with the load, the ratios much less). Peak RSS of the run: ${fmt(peakRssMiB(), 0)} MiB.

Method: in each row the solvers are warmed up (≥ 0.8 s each, 0.4 s for the derivatives, so that V8 has optimized the compiled code in the background: under load that takes a while), then ${ROUNDS}
rounds call them one after the other, a batch of at least ${MIN_BATCH} calls and ~1 ms each (with one call per batch, a solver of 1,000 bodies was only ever timed right after the others had used the caches), the first solver changing every round. µs per call are
the best round's (other processes only ever add time); a ratio divides two figures of the same row. "gen": the generic
scalar kernels (FactorOptions.compile 'never'; the fill as it is now); "now": the defaults, which switch at the 16th
refactor to WebAssembly: straight-line code (src/sparse/compiled.ts) when it has at most 25,000 statements (4,000 when
triangular: FactorOptions.compileLimit), loops over the layout's tables above (src/sparse/loops.ts); the dynamics
fill a source vector that the compiled code reads in place (SolverOptions.gather: each transform written once, no
scatter into D, no copy of D).
Both give the same factors, solutions and flop counts bit for bit (spec/sparse/compiled.spec.ts). Refinement is on, as
by default (one step in each diagonal block of size ≥ 2). Flops: exact counts of the kernels, kinematics included.

## Inverse dynamics by LU vs RNEA, forward dynamics by LU vs ABA

Targets: ID ≤ 1.2× RNEA, FD ≤ 1.5× ABA (✓: met in this run). "compiled": statements and WebAssembly bytes of the ID
and FD straight-line code, or "loops" and the loop module's size, and the time of the step that generated and compiled both.

| model | nv | RNEA µs | ID gen µs | ID now µs | ID / RNEA: gen → now | flops ID / RNEA | ABA µs | FD gen µs | FD now µs | FD / ABA: gen → now | flops FD / ABA | compiled | load |
|---|---|---|---|---|---|---|---|---|---|---|---|---|---|
${dynRows.join('\n')}

## Derivatives: factor reuse vs recursive

∂/∂q, ∂/∂q̇ and M (inverse dynamics) or M⁻¹ (forward dynamics), value included. "before": full solves with the
generic kernels; "skip": the compiled solves over all n unknowns that apply a column of the factors only when its
unknown is nonzero (NumericLU.solveManySparse, the previous default); "now": the default — each right-hand side
solved over the reach of its fixed pattern only (sparse/reach.ts, computed once per pattern), by a WebAssembly loop
over the reach's ops (sparse/reach-code.ts), two right-hand sides per op list (∂/∂q and ∂/∂q̇ of a direction,
neighbouring inputs) with SIMD. All three share this version's jacobians (velocity terms inlined, J_q and J_v in one
pass, transforms read from the gathered source). Factor reuse is kept for studies and is no longer a speed target (it costs
up to 7× the recursive flops, more as the robot grows: docs/lab/derivatives.md); ✓ marks the former target, ≤ 1.5× recursive. Flops: before → skip → now
(recursive).

| model | nv | ID rec. µs | ID LU before µs | ID LU skip µs | ID LU now µs | ID LU / rec.: before → skip → now | ID flops | FD rec. µs | FD LU before µs | FD LU skip µs | FD LU now µs | FD LU / rec.: before → skip → now | FD flops | load |
|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|
${derRows.join('\n')}

## Estimator: per-sample refactor + solve on the demo humanoid

The estimator's own NumericLU (compiled by default after 16 samples: loops above the straight-line limit) against a generic one on the same symbolic
factorization and options; "sample": a whole estimateUnchecked (fill, refactor, solve, residual). Target: the
per-sample solve halves.

| problem | refactor + solve, generic µs | compiled µs | ratio | whole sample µs | compiled | flops (generic = compiled) |
|---|---|---|---|---|---|---|
${estRow}
`;
mkdirSync('reports', { recursive: true });
writeFileSync('reports/bench-lu-time.md.tmp', md);
(await import('node:fs')).renameSync('reports/bench-lu-time.md.tmp', 'reports/bench-lu-time.md');
process.stdout.write('wrote reports/bench-lu-time.md\n');
