/**
 * state = { exitCode, quiet, warned }: what one run of the command line carries between its parts.
 * The commands (commands/*.ts) set `state.exitCode` rather than exiting the process; main.ts returns
 * it. Its own file, below commands/index.ts and output.ts, so that the commands import it without
 * importing the list of commands that imports them.
 */

export interface CliState {
  /** Exit code the process returns once the command has finished. */
  exitCode: number;
  /** --quiet: no warnings, notes or progress on stderr (errors and summaries still print) */
  quiet?: boolean;
  /** warnings already printed in this run (each is printed once) */
  warned?: Set<string>;
}
