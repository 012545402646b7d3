/**
 * `sparsedyn spy --model SPEC --problem id|fd --out FILE.svg`: draw the pattern of D as assembled,
 * after the offline permutations (with the BTF blocks), and of L+U with the fill (src/report/spy.ts).
 */
import type { Command } from 'commander';
import { forwardDynamicsProblem, inverseDynamicsProblem } from '../../assembly/problems.ts';
import { SymbolicSystem } from '../../assembly/system.ts';
import { MODEL_SPEC_HELP } from '../../model/spec.ts';
import { parseModelSpec } from '../../node/spec.ts';
import { spyPanels, spySvg } from '../../report/spy.ts';
import { analyze } from '../../sparse/index.ts';
import { printData, refuseOverwritingInputs, reportModelWarnings, writeFileAtomic } from '../output.ts';
import type { CliState } from '../state.ts';

interface SpyCliOptions {
  model: string;
  problem: string;
  out: string;
  size: string;
  aggregateAbove: string;
}

function positiveInt(name: string, s: string): number {
  const x = Number(s);
  if (!Number.isInteger(x) || x < 1) throw new RangeError(`${name} must be a positive integer, got "${s}"`);
  return x;
}

export function register(program: Command, state: CliState): void {
  program
    .command('spy')
    .description('SVG spy plot of D (as assembled, after the offline permutations with its BTF blocks) and of L+U with the fill')
    .requiredOption('-m, --model <spec>', 'model SPEC (URDF path, chain:N, tree:N:SEED, humanoid; +floating / +fixed)')
    .requiredOption('-p, --problem <id|fd>', 'inverse (id) or forward (fd) dynamics')
    .requiredOption('-o, --out <file.svg>', 'SVG file to write')
    .option('--size <px>', 'side of each panel in px', '420')
    .option('--aggregate-above <n>', 'above this many rows, draw one cell per pixel instead of one rect per entry', '3000')
    .addHelpText('after', `\n${MODEL_SPEC_HELP}\n`)
    .action((opts: SpyCliOptions) => {
      if (opts.problem !== 'id' && opts.problem !== 'fd') throw new RangeError(`--problem must be id or fd, got "${opts.problem}"`);
      const size = positiveInt('--size', opts.size);
      const aggregateAbove = positiveInt('--aggregate-above', opts.aggregateAbove);
      refuseOverwritingInputs([['--out', opts.out]], [['model', opts.model.replace(/\+(floating|fixed)$/, '')]]);
      const model = parseModelSpec(opts.model);
      reportModelWarnings(state, model);
      const sys = new SymbolicSystem(model, opts.problem === 'id' ? inverseDynamicsProblem(model) : forwardDynamicsProblem(model));
      const S = analyze(sys.pattern, { rowNames: sys.rowNames, colNames: sys.layout.names });
      const panels = spyPanels(sys, S);
      const caption = `${model.name}, ${sys.problem.name}: D is ${sys.m}×${sys.n} with ${sys.nnz} nonzeros; L+U ${S.luNnz} + ${S.offNnz} off-diagonal-block entries`;
      writeFileAtomic(opts.out, spySvg(panels, { panelSize: size, aggregateAbove, caption }));
      printData(`wrote ${opts.out}: ${caption}\n`);
      state.exitCode = 0;
    });
}
