/**
 * Parts of one call of the sparse path, timed alone (µs per call, best of rounds; load noted), on a
 * 24-link chain and the shipped humanoid: the dynamics step (LuInverseDynamics / LuForwardDynamics)
 * part by part, and the derivatives by factor reuse part by part. For profiling the per-call path
 * (node --cpu-prof) and for the figures of README "Time of the sparse path".
 * Run: npx tsx scripts/profile-lu.ts [model ...]   ([--no-derivatives] models: chain24, humanoid, talos, chainN, treeN and
 * treeNf (a random tree of N bodies, fixed or floating); default chain24 humanoid)
 */
import { loadavg } from 'node:os';
import { rnea, RneaWorkspace } from '../src/algorithms/rnea.ts';
import { aba, AbaWorkspace } from '../src/algorithms/aba.ts';
import { LuForwardDynamics, LuInverseDynamics } from '../src/assembly/dynamics.ts';
import type { FillCode } from '../src/assembly/fill-code.ts';
import { fillSource, fillSourceCompiled } from '../src/assembly/system.ts';
import { forwardKinematics } from '../src/algorithms/kinematics.ts';
import { checkDynamicsInputs } from '../src/algorithms/validate.ts';
import { LuForwardDynamicsDerivatives, LuInverseDynamicsDerivatives } from '../src/derivatives/dynamics.ts';
import { RecursiveForwardDynamicsDerivatives, RecursiveInverseDynamicsDerivatives } from '../src/derivatives/recursive.ts';
import { chain, randomTree } from '../src/model/generators.ts';
import type { Model } from '../src/model/model.ts';
import { randomConfiguration } from '../src/model/random.ts';
import { Rng } from '../src/model/rng.ts';
import { loadUrdf } from '../src/node/urdf-file.ts';
import { existsSync } from 'node:fs';

function best(fn: () => void, rounds = 15): number {
  const t0 = performance.now();
  while (performance.now() - t0 < 300) fn();
  let r = 1;
  for (;;) { const t = performance.now(); for (let k = 0; k < r; k++) fn(); if (performance.now() - t >= 2) break; r *= 2; }
  let b = Infinity;
  for (let k = 0; k < rounds; k++) { const t = performance.now(); for (let i = 0; i < r; i++) fn(); b = Math.min(b, ((performance.now() - t) * 1000) / r); }
  return b;
}
const f = (x: number) => x.toFixed(2);
const argv = process.argv.slice(2);
const noDerivatives = argv.includes('--no-derivatives');
const args = argv.filter((x) => x !== '--no-derivatives');
const pick = args.length > 0 ? args : ['chain24', 'humanoid'];
const talos = '../shared/models/talos_reduced.urdf';
const all: Record<string, () => Model> = {
  chain24: () => chain(24),
  humanoid: () => loadUrdf('models/humanoid.urdf', { floatingBase: true }),
  talos: () => loadUrdf(talos, { floatingBase: true }),
};
for (const name of pick) {
  const sized = /^(chain|tree)(\d+)(f?)$/.exec(name);
  if (sized !== null) {
    const n = Number(sized[2]), floatingBase = sized[3] === 'f';
    all[name] = sized[1] === 'chain' ? () => chain(n, { floatingBase }) : () => randomTree(n, floatingBase ? 8 : 7, { floatingBase });
  }
  if (!(name in all)) throw new Error(`profile-lu: unknown model "${name}" (chain24, humanoid, talos, chainN, treeN, treeNf)`);
  if (name === 'talos' && !existsSync(talos)) {
    process.stderr.write(`profile-lu: talos skipped: TALOS's robot file (another project's) is not here (${talos})\n`);
    continue;
  }
  const model = all[name]();
  const rng = new Rng(1);
  const q = randomConfiguration(model, rng), v = rng.array(model.nv, -1, 1), a = rng.array(model.nv, -1, 1);
  const rw = new RneaWorkspace(model), aw = new AbaWorkspace(model);
  const idS = new LuInverseDynamics(model), fdS = new LuForwardDynamics(model);
  const out: string[] = [`${name} (nv ${model.nv}, n ID ${idS.solver.sys.n}, load ${loadavg()[0].toFixed(1)})`];
  // the solvers as shipped (the derivatives' forward dynamics is unrefined)
  for (let k = 0; k < 20; k++) { idS.solve(q, v, a); fdS.solve(q, v, a); }
  out.push(`  RNEA ${f(best(() => rnea(model, rw, q, v, a)))}  ID ${f(best(() => idS.solve(q, v, a)))}  ABA ${f(best(() => aba(model, aw, q, v, a)))}  FD ${f(best(() => fdS.solve(q, v, a)))}`);
  // the step part by part (each timed alone), and forward dynamics without its refinement step
  for (const D of [new LuInverseDynamics(model), new LuForwardDynamics(model)]) {
    for (let k = 0; k < 20; k++) D.solve(q, v, a);
    const S = D.solver, lu = S.lu, vals = S.valuesLagging, y = D.y;
    const tChk = best(() => checkDynamicsInputs(model, q, v, 'a', a, undefined));
    const tKin = best(() => forwardKinematics(vals.kin, q, v));
    // the step's own fill: generated beside compiled factors (a private field read for profiling), else JavaScript
    const fc = (S as unknown as { fillCode: FillCode | null }).fillCode;
    const tFill = fc !== null ? best(() => fillSourceCompiled(vals, lu.source, lu.rhsBuffer!, fc, q, v, y)) : best(() => fillSource(vals, lu.source, q, v, y));
    const tFac = best(() => lu.refactorSource());
    const tSol = fc !== null ? best(() => lu.solveBufferNegated(S.d)) : best(() => lu.solveNegated(S.d, vals.b));
    const tAll = best(() => D.solve(q, v, a));
    out.push(`  ${D instanceof LuInverseDynamics ? 'ID' : 'FD'} step: all ${f(tAll)} | checks ${f(tChk)} kinematics ${f(tKin)} rest of the fill (${fc !== null ? 'generated' : 'JavaScript'}) ${f(tFill - tKin)} refactor ${f(tFac)} solve ${f(tSol)}`);
  }
  const fd0 = new LuForwardDynamics(model, { refine: 0 });
  for (let k = 0; k < 20; k++) fd0.solve(q, v, a);
  out.push(`  FD unrefined ${f(best(() => fd0.solve(q, v, a)))} (refined ${f(best(() => fdS.solve(q, v, a)))}, ABA ${f(best(() => aba(model, aw, q, v, a)))})`);
  if (noDerivatives) { process.stdout.write(out.join('\n') + '\n'); continue; }
  const dI = new LuInverseDynamicsDerivatives(model), dF = new LuForwardDynamicsDerivatives(model);
  const rI = new RecursiveInverseDynamicsDerivatives(model), rF = new RecursiveForwardDynamicsDerivatives(model);
  for (let k = 0; k < 20; k++) { dI.compute(q, v, a); dF.compute(q, v, a); }
  for (const [lbl, D, R] of [['ID', dI, rI], ['FD', dF, rF]] as const) {
    const sens = D.sens!;
    const y = D.dynamics.y;
    const tAll = best(() => (D as LuInverseDynamicsDerivatives).compute(q, v, a));
    const tRec = best(() => (R as RecursiveInverseDynamicsDerivatives).compute(q, v, a));
    const tStep = best(() => (D.dynamics as { solve(q: unknown, v: unknown, a: unknown): void }).solve(q, v, a));
    const tJac = best(() => sens.fillJacobians(q, v, y));
    const tQ = best(() => { sens.fillJacobians(q, v, y); sens.solve({ q: true, v: false, y: false }); }) - tJac;
    const tV = best(() => { sens.fillJacobians(q, v, y); sens.solve({ q: false, v: true, y: false }); }) - tJac;
    const tY = best(() => { sens.solve({ q: false, v: false, y: true }); });
    out.push(`  ${lbl} derivatives: all ${f(tAll)} (rec ${f(tRec)}, ratio ${f(tAll / tRec)}) | step ${f(tStep)} jacobians ${f(tJac)} solve q ${f(tQ)} v ${f(tV)} y ${f(tY)}`);
  }
  process.stdout.write(out.join('\n') + '\n');
}
