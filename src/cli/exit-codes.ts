/**
 * The exit codes of the `sparsedyn` command line, with their causes and fixes: the guide's page of
 * exit codes is generated from this list (scripts/docs-reference.ts), and a test checks that every
 * code the command line can return is in it (spec/docs/reference.spec.ts).
 */

/** One exit code: what it means, which commands return it, why, and what the user does about it. */
export interface ExitCode {
  code: number;
  meaning: string;
  commands: string;
  cause: string;
  fix: string;
}

/** Every exit code of the command line, in increasing order. */
export const EXIT_CODES: readonly ExitCode[] = [
  {
    code: 0,
    meaning: 'done',
    commands: 'all',
    cause: 'the command did what it was asked; `estimate` estimated every row; `analyze` found the layout well posed or generically well posed (or estimable with its priors); `--help`, `--version`; a reader that closed the pipe early (`… | head`)',
    fix: '—',
  },
  {
    code: 1,
    meaning: 'a negative answer, or a usage error',
    commands: 'analyze, estimate, verify, derivatives --check, lu, study; any command for a usage error',
    cause: '`analyze`: the layout is `ill_posed`; `estimate`: the problem is ill posed and no row names a contact mode of its own (the analysis is printed); `verify`: a case beyond its tolerance; `derivatives --check`: the methods disagree; `lu`: the matrix is singular; `study`: a run failed; an unknown command or option, a missing argument, a value not among an option\'s choices (the help follows the message); an error writing standard output',
    fix: 'read the analysis: add the sensor, contact constraint or prior it names (see the unobservable directions), or give each row its contact mode; for a usage error, `sparsedyn <command> --help`',
  },
  {
    code: 2,
    meaning: 'unusable input or output: nothing was written',
    commands: 'all',
    cause: 'a file that cannot be read (missing, a folder, empty, no permission); a problem file that is not valid JSON or does not follow the schema (the message names the field); a robot file that does not load (file, line, element); a log of which no row can be used, or whose format cannot be told; an output that is one of the inputs; a `ros` section that does not fit the recording; a value of an option out of range; a model the command cannot use (a singular mass matrix for forward dynamics)',
    fix: 'fix what the one-line message names: the file and line, the field of the problem file, the column of the log; the existing outputs are left as they were',
  },
  {
    code: 3,
    meaning: 'estimated, with rows skipped',
    commands: 'estimate',
    cause: 'some rows could not be estimated: not finite, malformed, a quaternion far from unit norm, a time going back, readings missing from a layout that is then ill posed, an ill-posed contact mode, an exactly singular configuration; each is named with its line on standard error and in the report',
    fix: 'read the skipped rows in the report; a pipeline that accepts skipped rows treats 3 as success (`[ $s -eq 0 ] || [ $s -eq 3 ]`)',
  },
  {
    code: 130,
    meaning: 'interrupted (Ctrl-C, SIGINT)',
    commands: 'all',
    cause: 'the run was interrupted; outputs are written beside their final name and renamed at the end, so the old files stay',
    fix: 'run again',
  },
  {
    code: 143,
    meaning: 'terminated (SIGTERM)',
    commands: 'all',
    cause: 'the process was asked to stop (a scheduler\'s time limit, `kill`); as for Ctrl-C, the old outputs stay',
    fix: 'run again, with more time or `--jobs` for a long log',
  },
];
