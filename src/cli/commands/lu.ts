/**
 * `sparsedyn lu FILE(.tri|.mtx) [--ordering auto|amd|colamd|natural|…] [--json]`: analyse,
 * factorize, refactorize and solve A x = b with b_i = 1 + (i mod 7); report sizes, fill, flops,
 * timings (refactor and solve: median of many runs) and the relative residual ‖Ax − b‖/‖b‖.
 * Exit code 0 on success, 1 when the matrix is singular (message on stderr), 2 when the file or an
 * option is unusable (the message names the file), as every command.
 */
import type { Command } from 'commander';
import { readMatrix } from '../../node/matrix-file.ts';
import { analyze, ConditionEstimator, factor, MatrixFormatError, ORDERINGS, relativeResidual, isOrderingName, SingularPivotError, StructurallySingularError, type OrderingName } from '../../sparse/index.ts';
import { printData } from '../output.ts';
import type { CliState } from '../state.ts';

export interface LuReport {
  n: number;
  nnz: number;
  blocks: number;
  max_block: number;
  lu_nnz: number;
  off_nnz: number;
  factor_flops: number;
  solve_flops: number;
  analyze_ms: number;
  refactor_us: number;
  solve_us: number;
  residual: number;
  /** 1-norm condition number estimate from the factors (as KLU's condest) */
  condest: number;
}

function median(a: number[]): number {
  const s = a.slice().sort((x, y) => x - y);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Runs f repeatedly (at least 11 times, up to `runs` or about `budgetMs`) and returns the median time in µs. */
function medianMicros(f: () => void, runs: number, budgetMs: number): number {
  const times: number[] = [];
  const start = performance.now();
  while (times.length < runs && (times.length < 11 || performance.now() - start < budgetMs)) {
    const t0 = performance.now();
    f();
    times.push((performance.now() - t0) * 1000);
  }
  return median(times);
}

export function luReport(file: string, ordering: OrderingName | 'auto', runs = 201): { report: LuReport; detail: string[] } {
  const A = readMatrix(file);
  if (A.m !== A.n) throw new MatrixFormatError(`${file}: the matrix is ${A.m}×${A.n}; lu needs a square matrix`);
  const t0 = performance.now();
  const S = analyze(A, { ordering });
  const analyzeMs = performance.now() - t0;
  const lu = factor(A, S);
  const n = A.n;
  const b = new Float64Array(n);
  for (let i = 0; i < n; i++) b[i] = 1 + (i % 7);
  const x = new Float64Array(n);
  const refactorUs = medianMicros(() => lu.refactor(A.Ax), runs, 2000);
  const solveUs = medianMicros(() => lu.solve(x, b), runs, 2000);
  const Sf = lu.symbolic;
  const report: LuReport = {
    n,
    nnz: Sf.nnz,
    blocks: Sf.nblocks,
    max_block: Sf.maxBlock,
    lu_nnz: Sf.luNnz,
    off_nnz: Sf.offNnz,
    factor_flops: lu.factorMuls + lu.factorAdds + lu.factorDivs,
    solve_flops: lu.solveMuls + lu.solveAdds + lu.solveDivs,
    analyze_ms: analyzeMs,
    refactor_us: refactorUs,
    solve_us: solveUs,
    residual: relativeResidual(A, x, b),
    condest: new ConditionEstimator(n).estimate(lu, A),
  };
  const detail: string[] = [];
  for (const o of Sf.orderings) {
    if (o.size < 2) continue;
    const alts = o.scores.map((s) => `${s.ordering} ${s.exact ? '' : '>'}${s.flops}`).join(', ');
    detail.push(`block ${o.block} (size ${o.size}): ${o.chosen}, ${o.flops} flops [${alts}]`);
  }
  if (lu.repivots > 0) detail.push(`numeric pivoting changed the row order of ${lu.repivotedBlocks} block(s); figures are for the pivoted factors`);
  return { report, detail };
}

export function formatLuReport(file: string, r: LuReport, detail: string[]): string {
  const lines = [
    `lu ${file}`,
    `  n ${r.n}, nnz ${r.nnz}`,
    `  blocks ${r.blocks}, largest ${r.max_block}`,
    `  nnz(L)+nnz(U)-n ${r.lu_nnz}, off-diagonal ${r.off_nnz}`,
    `  factor flops ${r.factor_flops}, solve flops ${r.solve_flops}`,
    `  analyse ${r.analyze_ms.toFixed(1)} ms, refactor ${r.refactor_us.toFixed(1)} µs, solve ${r.solve_us.toFixed(1)} µs (medians)`,
    `  residual ‖Ax−b‖/‖b‖ ${r.residual.toExponential(2)}`,
    `  condition number estimate (1-norm, from the factors) ${r.condest.toExponential(2)}`,
  ];
  const shown = detail.slice(0, 10);
  for (const d of shown) lines.push(`  ${d}`);
  if (detail.length > shown.length) lines.push(`  … ${detail.length - shown.length} more blocks`);
  return lines.join('\n') + '\n';
}

export function register(program: Command, state: CliState): void {
  program
    .command('lu')
    .description('analyse, factorize, refactorize and solve a sparse matrix (b_i = 1 + (i mod 7)); report fill, flops and timings')
    .argument('<file>', 'matrix file: .tri (1-based "row col value" lines) or .mtx (Matrix Market coordinate)')
    .option('-o, --ordering <name>', `ordering inside each block: auto (try all, keep the cheapest) or one of ${ORDERINGS.join(', ')}`, 'auto')
    .option('--runs <count>', 'timed runs for the refactor and solve medians', '201')
    .option('--json', 'print one JSON object: {n, nnz, blocks, max_block, lu_nnz, off_nnz, factor_flops, solve_flops, analyze_ms, refactor_us, solve_us, residual, condest}')
    .action((file: string, opts: { ordering: string; runs: string; json?: boolean }) => {
      // unusable input (the file, an option): exit 2 with the file named; a singular matrix: exit 1
      const refuse = (message: string): void => { process.stderr.write(`sparsedyn lu: ${message}\n`); state.exitCode = 2; };
      if (opts.ordering !== 'auto' && !isOrderingName(opts.ordering)) return refuse(`unknown ordering "${opts.ordering}"; expected auto or one of ${ORDERINGS.join(', ')}`);
      const runs = Number(opts.runs);
      if (!Number.isInteger(runs) || runs < 1) return refuse(`--runs must be a positive integer, got "${opts.runs}"`);
      try {
        const { report, detail } = luReport(file, opts.ordering as OrderingName | 'auto', runs);
        printData(opts.json ? JSON.stringify(report) + '\n' : formatLuReport(file, report, detail));
      } catch (err) {
        if (err instanceof MatrixFormatError) return refuse(err.message);
        if (!(err instanceof SingularPivotError || err instanceof StructurallySingularError)) throw err;
        process.stderr.write(`sparsedyn lu: ${file}: ${err.message}\n`);
        state.exitCode = 1;
      }
    });
}
