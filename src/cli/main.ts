/**
 * The `sparsedyn` command line: one sub-command per file in `./commands/`, registered here.
 * `main(argv)` returns the process exit code instead of calling `process.exit`, so commands can
 * be driven from tests.
 */
import { Command, CommanderError } from 'commander';
import { registerCommands, type CliState } from './commands/index.ts';
import { guardStreams } from './output.ts';

export async function main(argv: string[]): Promise<number> {
  guardStreams();
  const program = new Command();
  program
    .name('sparsedyn')
    .description('Rigid-body dynamics as one sparse linear system D(q) d + b(q, q̇) = 0.\nData goes to standard output (or the files named), messages, warnings and progress to standard error.')
    .version('0.1.0')
    .option('-q, --quiet', 'no warnings, notes or progress on standard error (errors and summaries still print)')
    .exitOverride()
    .showHelpAfterError();
  const state: CliState = { exitCode: 0 };
  program.hook('preAction', () => { state.quiet = program.opts().quiet === true; });
  registerCommands(program, state);
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version end through here with exit code 0.
      return err.exitCode;
    }
    const message = err instanceof Error ? err.message : String(err);
    const name = err instanceof Error ? err.name : 'Error';
    process.stderr.write(`sparsedyn: ${name}: ${message}\n`);
    return 2;
  }
  return state.exitCode;
}
