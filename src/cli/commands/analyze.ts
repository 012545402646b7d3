/**
 * `sparsedyn analyze PROBLEM.json [--json]`: is a sensor layout well posed? Structural rank,
 * numerical rank at random and special configurations, verdict, unobservable directions named by
 * variable, redundant sensors (src/estimation/analysis.ts).
 */
import type { Command } from 'commander';
import { analyzeProblem, type AnalysisReport } from '../../estimation/analysis.ts';
import { loadEstimationSystem } from '../../node/problem-file.ts';
import { jsonWithWarnings, printData, reportModelWarnings } from '../output.ts';
import type { CliState } from './index.ts';

export function formatAnalysis(r: AnalysisReport, title: string): string {
  const out: string[] = [];
  out.push(`${title}`);
  out.push(`  verdict            ${r.verdict}`);
  out.push(`  unknowns           ${r.unknowns}`);
  out.push(`  equations          ${r.equations}`);
  out.push(`  structural rank    ${r.structural_rank}${r.structural_rank < r.unknowns ? `  (deficient by ${r.unknowns - r.structural_rank})` : ''}`);
  out.push(`  numerical rank     ${r.numerical_rank} (smallest over ${r.configurations.length} configurations)`);
  for (const c of r.configurations) out.push(`    ${c.kind.padEnd(7)} ${c.name.padEnd(28)} rank ${c.rank}${c.deficiency ? `  deficient by ${c.deficiency}` : ''}`);
  if (r.structurally_undetermined.length) out.push(`  structurally undetermined: ${r.structurally_undetermined.slice(0, 20).join(', ')}${r.structurally_undetermined.length > 20 ? ', …' : ''}`);
  if (r.unobservable.length) {
    out.push('  unobservable directions:');
    for (const u of r.unobservable) out.push(`    ${u}`);
  }
  if (r.undetermined.length) out.push(`  undetermined unknowns (${r.undetermined.length}): ${r.undetermined.slice(0, 12).join(', ')}${r.undetermined.length > 12 ? ', …' : ''}`);
  out.push(`  redundant sensors  ${r.redundant_sensors.length ? r.redundant_sensors.join(', ') : 'none'}`);
  for (const n of r.notes) out.push(`  note: ${n}`);
  return out.join('\n') + '\n';
}

export function register(program: Command, state: CliState): void {
  program
    .command('analyze')
    .argument('<problem>', 'problem file (JSON, schemas/problem.schema.json)')
    .description('check whether a sensor layout determines every unknown, at random and special configurations')
    .option('--json', 'print one JSON object (verdict, unknowns, equations, structural_rank, numerical_rank, singular_configurations, unobservable, redundant_sensors, …, warnings)')
    .option('--random <n>', 'random configurations to try', '3')
    .option('--special <n>', 'special configurations (multiples of π/2) besides the neutral one', '3')
    .option('--seed <n>', 'seed of the configurations', '1')
    .action((file: string, opts: { json?: boolean; random: string; special: string; seed: string }) => {
      const { problem, model, es } = loadEstimationSystem(file);
      const warnings = reportModelWarnings(state, model);
      const r = analyzeProblem(es, { random: Number(opts.random), special: Number(opts.special), seed: Number(opts.seed) });
      printData(opts.json ? jsonWithWarnings(r, warnings) : formatAnalysis(r, `analyze: ${file} (model "${model.name}", ${problem.base} base)`));
      state.exitCode = r.verdict === 'ill_posed' ? 1 : 0;
    });
}
