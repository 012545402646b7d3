/**
 * `sparsedyn analyze PROBLEM.json [--json]`: is a sensor layout well posed? Structural rank,
 * numerical rank at random and special configurations, verdict, unobservable directions named by
 * variable, redundant sensors (src/estimation/analysis.ts). With priors or soft constraints: the
 * verdict of the data alone, whether the priors make the problem estimable, and the directions only
 * the priors determine.
 */
import type { Command } from 'commander';
import { ANALYSIS_CONFIGURATIONS, analyzePriors, analyzeProblem, type AnalysisReport, type PriorAnalysis } from '../../estimation/analysis.ts';
import { loadEstimationSystem } from '../../node/problem-file.ts';
import { jsonWithWarnings, printData, reportModelWarnings } from '../output.ts';
import type { CliState } from '../state.ts';

const list = (xs: string[], n: number): string => `${xs.slice(0, n).join(', ')}${xs.length > n ? ', …' : ''}`;

/** The lines of an analysis with priors or soft constraints: the data alone, the priors' share. */
function formatPriors(r: AnalysisReport, p: PriorAnalysis): string[] {
  const out: string[] = [];
  const d = p.data_alone;
  if (p.priors.length) out.push(`  priors             ${p.priors.join(', ')}`);
  if (p.soft_constraints.length) out.push(`  soft constraints   ${p.soft_constraints.map((c) => `${c.constraint} (variance ${c.variance})`).join(', ')}: equations of the data, as their exact forms`);
  if (!p.priors.length) return out;
  const at = d.singular_configurations.length === r.configurations.length ? 'every configuration tried' : list(d.singular_configurations, 4);
  out.push(`  data alone         ${d.verdict}: numerical rank ${d.numerical_rank}, structural rank ${d.structural_rank} of ${r.unknowns} unknowns${d.singular_configurations.length ? `; deficient at ${at}` : ''}`);
  if (d.verdict === 'well_posed') {
    out.push('  the data determine every unknown: the priors only add information');
    return out;
  }
  const where = d.verdict === 'generically_well_posed' ? ' at the data\'s singular configurations' : '';
  if (p.prior_only) {
    out.push(`  with the priors    estimable (${r.verdict}); only the priors determine${where}:`);
    for (const u of p.prior_only) out.push(`    ${u}`);
    if (p.prior_only_unknowns?.length) out.push(`  undetermined by the data alone (${p.prior_only_unknowns.length}): ${list(p.prior_only_unknowns, 12)}`);
  } else {
    const same = d.unobservable.length === r.unobservable.length && d.unobservable.every((u, k) => u === r.unobservable[k]);
    if (same) out.push('  with the priors    not estimable (ill_posed): the priors determine none of the directions the data alone leave unobservable (the "unobservable directions" above)');
    else {
      out.push(`  with the priors    not estimable (ill_posed): the "unobservable directions" above stay unobservable with the priors; the data alone leave unobservable${where}:`);
      for (const u of d.unobservable) out.push(`    ${u}`);
    }
  }
  return out;
}

export function formatAnalysis(r: AnalysisReport, title: string, priors?: PriorAnalysis | null): string {
  const out: string[] = [];
  out.push(`${title}`);
  const withPriors = priors && priors.priors.length ? ` with the priors (the data alone: ${priors.data_alone.verdict})` : '';
  out.push(`  verdict            ${r.verdict}${withPriors}`);
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
  if (priors) out.push(...formatPriors(r, priors));
  for (const n of r.notes) out.push(`  note: ${n}`);
  return out.join('\n') + '\n';
}

export function register(program: Command, state: CliState): void {
  program
    .command('analyze')
    .argument('<problem>', 'problem file (JSON, schemas/problem.schema.json)')
    .description('check whether a sensor layout determines every unknown, at random and special configurations')
    .option('--json', 'print one JSON object (verdict, unknowns, equations, structural_rank, numerical_rank, singular_configurations, unobservable, redundant_sensors, …, warnings; with priors or soft constraints also priors, soft_constraints, data_alone, estimable, prior_only, prior_only_unknowns)')
    .option('--random <n>', 'random configurations to try (estimate judges each layout on the defaults)', String(ANALYSIS_CONFIGURATIONS.random))
    .option('--special <n>', 'special configurations (multiples of π/2) besides the neutral one', String(ANALYSIS_CONFIGURATIONS.special))
    .option('--seed <n>', 'seed of the configurations', '1')
    .action((file: string, opts: { json?: boolean; random: string; special: string; seed: string }) => {
      const { problem, model, es } = loadEstimationSystem(file);
      const warnings = reportModelWarnings(state, model);
      const aopts = { random: Number(opts.random), special: Number(opts.special), seed: Number(opts.seed) };
      const r = analyzeProblem(es, aopts);
      const priors = analyzePriors(es, r, aopts);
      printData(opts.json ? jsonWithWarnings(priors ? { ...r, ...priors } : r, warnings) : formatAnalysis(r, `analyze: ${file} (model "${model.name}", ${problem.base} base)`, priors));
      state.exitCode = r.verdict === 'ill_posed' ? 1 : 0;
    });
}
