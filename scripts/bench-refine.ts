/**
 * The refinement's backward-error test in the forward dynamics by the sparse LU: µs per
 * LuForwardDynamics.solve with the test (refineWhen 'needed') and with the step in every block
 * (refineWhen 'always', the default), alternating in the same process (64
 * prepared random states cycled, 3,000 warm-up calls each, interleaved rounds, order rotated, CPU
 * time of the process, median);
 * how often the test failed on those states; and the flops of both cases against ABA's
 * (flopsReport). Prints a Markdown table.
 * Run: npx tsx scripts/bench-refine.ts [MODEL-SPEC …]  (default chain:24 chain:96 chain:384 and the
 * floating humanoids of the shared models folder)
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { LuForwardDynamics } from '../src/assembly/dynamics.ts';
import { flopsReport, randomDynamicsState } from '../src/assembly/flops-report.ts';
import type { Model } from '../src/model/model.ts';
import { Rng } from '../src/model/rng.ts';
import { parseModelSpec } from '../src/node/spec.ts';
import { loadUrdf } from '../src/node/urdf-file.ts';
import { fmt, SHARED_DIR, timeInterleaved } from './bench-lib.ts';

const STATES = 64, ROUNDS = 21;

const specs = process.argv.slice(2);
const models: [string, () => Model][] = [];
for (const s of specs.length > 0 ? specs : ['chain:24', 'chain:96', 'chain:384']) models.push([s, () => parseModelSpec(s)]);
if (specs.length === 0) {
  for (const name of ['talos_reduced', 'simple_humanoid']) {
    const file = resolve(SHARED_DIR, 'models', `${name}.urdf`);
    if (existsSync(file)) models.push([`${name} floating`, () => loadUrdf(file, { floatingBase: true })]);
  }
}
const out: string[] = [];
out.push(`| model | nv | µs default (always) | µs with the test | ratio | states refined / ${STATES} | flops ÷ ABA: test passed | test failed (refined) | default (always) |`, '|---|---|---|---|---|---|---|---|---|');
for (const [name, make] of models) {
  const model = make();
  const rng = new Rng(11);
  const states = Array.from({ length: STATES }, () => randomDynamicsState(model, rng));
  const tested = new LuForwardDynamics(model, { refineWhen: 'needed' });
  const always = new LuForwardDynamics(model, { symbolic: tested.solver.symbolic });
  let refined = 0;
  for (const st of states) {
    tested.solve(st.q, st.v, st.tau, st.fext);
    if (tested.solver.lu.refineFailed > 0) refined++;
  }
  let a = 0, b = 0;
  const [ua, ut] = timeInterleaved([
    () => { const st = states[a]; always.solve(st.q, st.v, st.tau, st.fext); a = a + 1 === STATES ? 0 : a + 1; },
    () => { const st = states[b]; tested.solve(st.q, st.v, st.tau, st.fext); b = b + 1 === STATES ? 0 : b + 1; },
  ], ROUNDS, 4, 3000);
  const { report } = flopsReport(model);
  const rf = report.lu_fd_refinement;
  const alwaysFlops = (() => { const fd = new LuForwardDynamics(model, { symbolic: tested.solver.symbolic, refineWhen: 'always' }); const st = randomDynamicsState(model, new Rng(1)); fd.solve(st.q, st.v, st.tau, st.fext); return fd.solver.totalFlops().total; })();
  out.push(`| ${name} | ${model.nv} | ${fmt(ua)} | ${fmt(ut)} | ${fmt(ut / ua)} | ${refined} | ${fmt(rf.passed_over_aba)} | ${fmt(rf.failed_over_aba)} | ${fmt(alwaysFlops / report.aba.total)} |`);
  process.stderr.write(`${out[out.length - 1]}\n`);
}
process.stdout.write(`${out.join('\n')}\n`);
