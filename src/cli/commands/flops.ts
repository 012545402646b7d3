/**
 * `sparsedyn flops --model SPEC [--json] [--seed S] [--save-symbolic DIR] [--symbolic DIR]`: the
 * flops of RNEA, ABA, the matrix form of the ABA and both sparse LU paths on one model, counted by
 * the kernels at a seeded random state (src/assembly/flops-report.ts; Nori (2017) Fig. 1–2).
 * The offline orderings (SymbolicLU JSON) can be saved to DIR and loaded back.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { flopsReport, type FlopFigure, type FlopsReport, type LuFigures } from '../../assembly/flops-report.ts';
import { MODEL_SPEC_HELP } from '../../model/spec.ts';
import { fullCollection } from '../../node/collect.ts';
import { parseModelSpec } from '../../node/spec.ts';
import { SymbolicLU, type SymbolicLUJSON } from '../../sparse/symbolic.ts';
import { jsonWithWarnings, printData, reportModelWarnings, writeFileAtomic } from '../output.ts';
import type { CliState } from '../state.ts';
import { parseJsonText } from '../../text/json-text.ts';

/** file names of the saved orderings inside DIR */
export const SYMBOLIC_FILES = { id: 'lu_id.symbolic.json', fd: 'lu_fd.symbolic.json' } as const;

export const FLOPS_CONVENTION = `Counting convention: every kernel adds the operations it performs to integer counters as it runs
(nothing is estimated). A multiply-add is two flops (one mul, one add); subtractions count as adds;
negations, copies and products with an exact 0 or ±1 that the code skips (joint axes along a frame
axis, identity blocks, the −1 blocks of D) are not counted; sqrt/sin/cos are left out; total = mul +
add + div. All paths solve the same problem at one random state (seed S): q, q̇, q̈ or τ, and an
external wrench on every body. RNEA and ABA include the velocity kinematics (ⁱX_λ, v_i, c_i), which
the sparse paths count apart as "kinematics"; "fill" writes the rest of D and b; "factor" is the
numeric LU on the offline ordering, "solve" the two triangular solves. The matrix ABA (F. Nori,
"Inverse, forward and other dynamic computations computationally optimized with sparse matrix
factorizations", 2017, Property 2) is split into the I^A recursion (left out of that paper's
count), forming W^L D W^R, and
W^L b + forward substitution + d = W^R d'.`;

function loadSymbolic(dir: string, which: 'id' | 'fd'): SymbolicLU {
  const file = join(dir, SYMBOLIC_FILES[which]);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new Error(`--symbolic: cannot read ${file}: ${(e as Error).message}`);
  }
  const json = parseJsonText(text, file) as SymbolicLUJSON;
  try {
    return SymbolicLU.fromJSON(json);
  } catch (e) {
    throw new Error(`--symbolic: ${file}: ${(e as Error).message}`);
  }
}

function num(x: number): string {
  return x.toLocaleString('en-US');
}

export function formatFlops(r: FlopsReport): string {
  const rows: [string, FlopFigure | null][] = [];
  const lu = (f: LuFigures) => {
    rows.push(['  sparse LU: kinematics', f.kinematics], ['             fill D, b', f.fill], ['             factor', f.factor], ['             solve', f.solve], ['             total', f.total]);
  };
  rows.push(['inverse dynamics', null], ['  RNEA', r.rnea]);
  lu(r.lu_id);
  const m = r.aba_matrix;
  rows.push(['forward dynamics', null], ['  ABA', r.aba]);
  rows.push(
    ['  matrix ABA: kinematics', m.kinematics], ['              fill D, b', m.fill], ['              (a) I^A recursion', m.inertias],
    ['              (b) W^L D W^R', m.product], ['              (c) W^L b, subst., W^R d\'', m.solve],
    ['              total', m.total], ['              total without (a)', m.without_inertias],
  );
  lu(r.lu_fd);
  const rf = r.lu_fd_refinement;
  rows.push(['  sparse LU with the backward-error test: passed', rf.passed.total], ['                                    failed (refined)', rf.failed.total]);
  const w = Math.max(...rows.map(([s]) => s.length));
  const cols = ['mul', 'add', 'div', 'total'] as const;
  const out = [`flops: model "${r.model}" (${r.nb} bodies, nv = ${r.nv}), random state seed ${r.seed}`];
  out.push(`${''.padEnd(w)}  ${cols.map((c) => c.padStart(10)).join('')}`);
  for (const [label, f] of rows) out.push(f ? `${label.padEnd(w)}  ${cols.map((c) => num(f[c]).padStart(10)).join('')}` : label);
  const sys = (name: string, f: LuFigures) => `${name}: n = ${num(f.n)}, nnz = ${num(f.nnz)}, ${num(f.blocks)} BTF blocks (largest ${num(f.max_block)}), L+U ${num(f.lu_nnz)} + ${num(f.off_nnz)} off-diagonal-block entries`
    + (f.repivoted > 0 ? ` (numeric pivoting re-ordered ${f.repivoted} block(s) at this state; figures for those factors)` : '');
  out.push(sys('inverse-dynamics D', r.lu_id), sys('forward-dynamics D', r.lu_fd));
  out.push(`W^L D W^R: n = ${num(m.n)}, nnz = ${num(m.nnz)}`);
  out.push(`forward-dynamics LU ÷ ABA flops: ${(r.lu_fd.total.total / r.aba.total).toFixed(2)} (default: one refinement step in every block); with the refinement's backward-error test (refineWhen 'needed'), ${(rf.passed_over_aba).toFixed(2)} when every block passes it (no step), ${(rf.failed_over_aba).toFixed(2)} when every block fails it (refined); at this state ${rf.refined} of ${rf.tested} block(s) failed it`);
  const a = r.agreement;
  if (a.lu_fd !== undefined && a.aba_matrix !== undefined) {
    out.push(`agreement with RNEA/ABA (max rel. difference): lu_id ${a.lu_id.toExponential(1)}, lu_fd ${a.lu_fd.toExponential(1)}, matrix ABA ${a.aba_matrix.toExponential(1)}`);
  } else {
    out.push(`agreement with RNEA (max rel. difference): lu_id ${a.lu_id.toExponential(1)}; lu_fd and matrix ABA vs ABA: not computed`);
  }
  if (r.singular) out.push(`note: ${r.singular.note}`);
  return out.join('\n') + '\n';
}

interface FlopsOptions {
  model: string;
  json?: boolean;
  seed: string;
  saveSymbolic?: string;
  symbolic?: string;
}

export function register(program: Command, state: CliState): void {
  program
    .command('flops')
    .description('flops of RNEA, ABA, matrix ABA and the sparse LU paths (inverse and forward dynamics) on one model')
    .requiredOption('-m, --model <spec>', 'model SPEC (URDF path, chain:N, tree:N:SEED, humanoid; +floating / +fixed)')
    .option('--json', 'print one JSON object: {rnea, aba, aba_matrix, lu_id, lu_fd, n, nnz, …}, each flop figure {mul, add, div, total}; warnings: the model\'s')
    .option('--seed <s>', 'seed of the random state', '1')
    .option('--save-symbolic <dir>', `write the offline orderings (SymbolicLU JSON) of both problems to DIR/${SYMBOLIC_FILES.id} and DIR/${SYMBOLIC_FILES.fd}`)
    .option('--symbolic <dir>', 'load the offline orderings from DIR instead of computing them')
    .addHelpText('after', `\n${FLOPS_CONVENTION}\n\n${MODEL_SPEC_HELP}\n`)
    .action((opts: FlopsOptions) => {
      const seed = Number(opts.seed);
      if (!Number.isInteger(seed)) throw new RangeError(`--seed must be an integer, got "${opts.seed}"`);
      const model = parseModelSpec(opts.model);
      const warnings = reportModelWarnings(state, model);
      const symbolicId = opts.symbolic ? loadSymbolic(opts.symbolic, 'id') : undefined;
      const symbolicFd = opts.symbolic ? loadSymbolic(opts.symbolic, 'fd') : undefined;
      let result: ReturnType<typeof flopsReport>;
      try {
        result = flopsReport(model, { seed, symbolicId, symbolicFd, collect: fullCollection() });
      } catch (e) {
        if (opts.symbolic && e instanceof RangeError && /SymbolicLU/.test(e.message)) {
          throw new RangeError(`--symbolic ${opts.symbolic}: ${e.message} (were the files saved for another model?)`);
        }
        throw e;
      }
      const { report, symbolicId: sid, symbolicFd: sfd } = result;
      if (opts.saveSymbolic) {
        writeFileAtomic(join(opts.saveSymbolic, SYMBOLIC_FILES.id), JSON.stringify(sid.toJSON()));
        writeFileAtomic(join(opts.saveSymbolic, SYMBOLIC_FILES.fd), JSON.stringify(sfd.toJSON()));
      }
      printData(opts.json ? jsonWithWarnings(report, warnings) : formatFlops(report));
      state.exitCode = 0;
    });
}
