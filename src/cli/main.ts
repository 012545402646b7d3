/**
 * The `sparsedyn` command line: one sub-command per file in `./commands/`, registered here.
 * `main(argv)` returns the process exit code instead of calling `process.exit`, so commands can
 * be driven from tests.
 */
import { Command, CommanderError } from 'commander';
import { registerCommands } from './commands/index.ts';
import type { CliState } from './state.ts';
import { armSignals, guardStreams, releaseSignals } from './output.ts';

/**
 * The command line's definition: the program, its global options and every command registered
 * (nothing parsed, nothing run). `main` runs it; the guide's command reference is generated from it.
 */
export function createProgram(state: CliState): Command {
  const program = new Command();
  program
    .name('sparsedyn')
    .description('Rigid-body dynamics as one sparse linear system D(q) d + b(q, q̇) = 0.\nData goes to standard output (or the files named), messages, warnings and progress to standard error.')
    .version('0.1.0')
    .option('-q, --quiet', 'no warnings, notes or progress on standard error (errors and summaries still print)')
    .exitOverride()
    .showHelpAfterError();
  program.hook('preAction', () => { state.quiet = program.opts().quiet === true; });
  registerCommands(program, state);
  return program;
}

export async function main(argv: string[]): Promise<number> {
  guardStreams();
  // Ctrl-C or SIGTERM during the run: its temporary files removed, one line saying that it was interrupted
  armSignals();
  const state: CliState = { exitCode: 0 };
  const program = createProgram(state);
  try {
    await program.parseAsync(argv);
  } catch (err) {
    releaseSignals();
    if (err instanceof CommanderError) {
      // --help and --version end through here with exit code 0.
      return err.exitCode;
    }
    process.stderr.write(`sparsedyn: ${errorMessage(err)}\n`);
    return 2;
  }
  releaseSignals();
  return state.exitCode;
}

/** V8's own RangeErrors, never a value the user gave: memory that could not be had, and a runaway recursion (a bug) */
const OUT_OF_MEMORY = /^(Array buffer allocation failed|Invalid (typed )?array length|Invalid string length)/;
const RECURSION = /^Maximum call stack size exceeded/;

/** Words for the file system's error codes. */
const SYSTEM_WORDS: Record<string, string> = {
  ENOENT: 'no such file or folder', EACCES: 'permission denied', EPERM: 'operation not permitted', EISDIR: 'is a folder',
  ENOTDIR: 'a part of the path is not a folder', EROFS: 'read-only file system', ENOSPC: 'no space left on the device', EEXIST: 'already exists',
};

/**
 * The line a failed run prints after `sparsedyn: `: the error's message in the user's words, never a
 * JavaScript class name or a stack. The errors sparsedyn throws on purpose carry their message as
 * it is; a file system error says which file and what happened; an error that only a bug can cause
 * (TypeError, ReferenceError, an engine limit, a message marked "internal") says so, in words.
 */
export function errorMessage(err: unknown): string {
  if (!(err instanceof Error)) return `internal error (a bug in sparsedyn; please report it with the command that caused it): ${String(err)}`;
  const sys = err as NodeJS.ErrnoException;
  if (typeof sys.code === 'string' && typeof sys.syscall === 'string') {
    const words = SYSTEM_WORDS[sys.code] ?? sys.code;
    return sys.path !== undefined ? `${sys.path}: ${words}` : `${sys.syscall}: ${words}`;
  }
  if (err instanceof RangeError && OUT_OF_MEMORY.test(err.message)) {
    return `out of memory (${err.message}): the model or the input is too large for this machine`;
  }
  const bug = err instanceof TypeError || err instanceof ReferenceError || err instanceof SyntaxError || err instanceof EvalError
    || (err instanceof RangeError && RECURSION.test(err.message)) || /^internal( error)?:/.test(err.message);
  if (bug) return `internal error (a bug in sparsedyn; please report it with the command that caused it): ${err.message.replace(/^internal( error)?:\s*/, '')}`;
  return err.message;
}
