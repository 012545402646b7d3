/**
 * What every command shares for its output: data on stdout and nothing else (messages, warnings,
 * progress on stderr); a closed pipe (`… | head`) ends the run quietly; files are written to a
 * temporary file beside the final one and renamed at the end, never over one of the run's inputs,
 * and a failed or interrupted run (SIGINT, SIGTERM) leaves no partial file under the final name;
 * a model's warnings printed once on stderr (unless --quiet) and carried in JSON output.
 */
import { accessSync, closeSync, constants, existsSync, fchmodSync, fchownSync, fstatSync, mkdirSync, openSync, realpathSync, renameSync, rmdirSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import type { Model } from '../model/model.ts';
import type { ModelWarning } from '../model/warnings.ts';
import type { CliState } from './state.ts';

// ---------------------------------------------------------------- stdout, stderr, closed pipes

let streamsGuarded = false;

/**
 * Once per process: an error on stdout (EPIPE when the reader closed the pipe, as `head` does)
 * ends the run quietly, removing the temporary files of unfinished outputs; errors on stderr are
 * ignored (there is nowhere left to report them).
 */
export function guardStreams(): void {
  if (streamsGuarded) return;
  streamsGuarded = true;
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    removePending();
    process.exit(e.code === 'EPIPE' ? 0 : 1);
  });
  process.stderr.on('error', () => { /* nothing left to report to */ });
}

/** whether this run has written data on stdout (an interrupted run says that it stops there) */
let wroteData = false;

/** Data for stdout (the only thing a command writes there). */
export function printData(text: string): void {
  wroteData = true;
  process.stdout.write(text);
}

/** A message for the user on stderr. */
export function printMessage(text: string): void {
  process.stderr.write(text.endsWith('\n') ? text : `${text}\n`);
}

/** A warning or note, silenced by --quiet. */
export function printNote(state: CliState, text: string): void {
  if (!state.quiet) printMessage(text);
}

/** The model's warnings on stderr, once per run and message (unless --quiet); returns them for JSON output. */
export function reportModelWarnings(state: CliState, model: Model): ModelWarning[] {
  const ws = model.warnings ?? [];
  state.warned ??= new Set();
  for (const w of ws) {
    if (state.warned.has(w.message)) continue;
    state.warned.add(w.message);
    printNote(state, `warning: ${w.message}`);
  }
  return ws.map((w) => ({ code: w.code, ...(w.element !== undefined ? { element: w.element } : {}), ...(w.file !== undefined ? { file: w.file } : {}), ...(w.line !== undefined ? { line: w.line } : {}), message: w.message }));
}

/** JSON text of a command's result with the model's warnings as a top-level "warnings" list. */
export function jsonWithWarnings(result: object, warnings: readonly ModelWarning[]): string {
  return JSON.stringify({ ...result, warnings }) + '\n';
}

// ---------------------------------------------------------------- files

/** An error about the run's files, in the user's words (exit code 2 through main). */
export class FileError extends Error {
  override name = 'FileError';
}

/** The file an output path writes to: the target of a symbolic link, or the absolute path. */
function finalTarget(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    // not there yet: resolve its folder (which may itself be a link)
    const dir = dirname(resolve(path));
    let real = dir;
    try { real = realpathSync(dir); } catch { /* created later */ }
    return join(real, basename(path));
  }
}

/** Whether two paths name the same file (same path after links, or the same inode: a hard link). */
export function sameFile(a: string, b: string): boolean {
  if (finalTarget(a) === finalTarget(b)) return true;
  try {
    const sa = statSync(a), sb = statSync(b);
    return sa.dev === sb.dev && sa.ino === sb.ino;
  } catch {
    return false;
  }
}

/**
 * Refuses outputs that are one of the inputs, or each other. `inputs` and `outputs` are
 * [what, path] pairs; "-" (stdin, stdout) is skipped.
 */
export function refuseOverwritingInputs(outputs: readonly [string, string | undefined][], inputs: readonly [string, string | undefined][]): void {
  const outs = outputs.filter((o): o is [string, string] => o[1] !== undefined && o[1] !== '-');
  for (const [ow, op] of outs) {
    for (const [iw, ip] of inputs) {
      if (ip === undefined || ip === '-') continue;
      if (sameFile(op, ip)) throw new FileError(`${ow} ${op} is the ${iw} (${ip}); refusing to overwrite an input`);
    }
  }
  for (let a = 0; a < outs.length; a++) {
    for (let b = a + 1; b < outs.length; b++) {
      if (sameFile(outs[a][1], outs[b][1])) throw new FileError(`${outs[a][0]} and ${outs[b][0]} are the same file (${outs[a][1]})`);
    }
  }
}

/** Checks that an input file can be read and is not empty (before any output is touched). */
export function checkInputFile(what: string, path: string): void {
  let st;
  try {
    st = statSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new FileError(`${what} ${path}: ${code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (e as Error).message}`);
  }
  if (st.isDirectory()) throw new FileError(`${what} ${path} is a folder, not a file`);
  if (st.isFile() && st.size === 0) throw new FileError(`${what} ${path} is empty`);
  try {
    closeSync(openSync(path, 'r'));
  } catch (e) {
    throw new FileError(`${what} ${path}: cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
}

/** temporary files of unfinished outputs, removed on failure, on SIGINT/SIGTERM and on a closed stdout */
const pending = new Set<string>();

/**
 * An interrupted run (Ctrl-C: SIGINT, or SIGTERM): the temporary files removed, one line saying
 * so and what was (not) written, exit code 128 + the signal's number (130, 143).
 */
const onSignal = (signal: NodeJS.Signals): void => {
  const files = pending.size > 0;
  removePending();
  const what = signal === 'SIGINT' ? 'interrupted (Ctrl-C)' : `stopped (${signal})`;
  const written = wroteData ? 'the data on standard output stops where the run did; no file was written' : `nothing was written${files ? ' (the output files are as they were)' : ''}`;
  process.stderr.write(`sparsedyn: ${what}: ${written}\n`);
  process.exit(128 + (signal === 'SIGINT' ? 2 : 15));
};

/**
 * For the length of a run (main): SIGINT and SIGTERM end it through `onSignal`. A command that
 * stops on them by design (the playground's server) calls `releaseSignals()`.
 */
export function armSignals(): void {
  wroteData = false;
  releaseSignals();
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}

/** SIGINT and SIGTERM left to the command (or to Node's default) again. */
export function releaseSignals(): void {
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
}

function removePending(): void {
  for (const p of pending) {
    try { unlinkSync(p); } catch { /* already gone */ }
  }
  pending.clear();
  for (const [outer, inner] of madeFolders) removeMadeFolders(outer, inner);
}

/** folders made for outputs not yet written (removed with their temporary files): the outermost made → the output's folder */
const madeFolders = new Map<string, string>();

/** Remove the folders made, from the output's folder `inner` up to `outer`, those left empty only. */
function removeMadeFolders(outer: string, inner: string): void {
  madeFolders.delete(outer);
  const chain: string[] = [];
  for (let d = inner; d.length >= outer.length; d = dirname(d)) { chain.push(d); if (d === outer || dirname(d) === d) break; }
  for (const d of chain) {
    try { rmdirSync(d); } catch { return; /* not empty (another output is in it) or gone */ }
  }
}

/** A path as the user would write it: relative to the working folder when inside it. */
function relativeName(p: string): string {
  const r = relative(process.cwd(), p);
  return r !== '' && !r.startsWith('..') && !isAbsolute(r) ? `${r}/` : `${p}/`;
}

function track(tmp: string): void {
  pending.add(tmp);
}

function untrack(tmp: string): void {
  pending.delete(tmp);
}

let counter = 0;

/**
 * A file written under a temporary name beside its final one (`.NAME.<pid>.<n>.tmp`), renamed
 * over the final name by `commit()`; `abort()` removes it. A symbolic link at the final name is
 * followed: its target is replaced, the link stays. Folders of the path that do not exist are made
 * and, once the file is there, named in a note on stderr (`note: made the folder out/ for
 * out/est.ndjson`); a failed run removes them again. As a careful Unix tool does, an existing file
 * that is read-only is refused, never replaced, and an existing file replaced keeps its mode, and its
 * owner where the system allows (else a note says whose the new file is).
 */
export class AtomicFile {
  readonly target: string;
  readonly tmp: string;
  private fd: number;
  private buf: string[] = [];
  private size = 0;
  private done = false;

  /** the mode and owner of the file the final name holds now, kept by the new one */
  private readonly keep: { mode: number; uid: number; gid: number } | null = null;
  /** the outermost folder this file made (said at commit, removed at abort), or null */
  private readonly made: string | null = null;

  constructor(readonly path: string) {
    this.target = finalTarget(path);
    const dir = dirname(this.target);
    if (existsSync(dir) && !statSync(dir).isDirectory()) throw new FileError(`cannot write ${path}: ${dirname(path)} is not a folder`);
    try {
      this.made = mkdirSync(dir, { recursive: true }) ?? null;
    } catch (e) {
      throw new FileError(`cannot make the folder ${dirname(path)} for ${path} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
    }
    if (this.made !== null) madeFolders.set(this.made, dir);
    const old = existsSync(this.target) ? statSync(this.target) : null;
    if (old?.isDirectory()) throw new FileError(`${path} is a folder`);
    if (old?.isFile()) {
      // read-only (no write permission for anyone, or none for this user): left alone, as cp and shell redirections leave it
      let writable = (old.mode & 0o222) !== 0;
      if (writable) { try { accessSync(this.target, constants.W_OK); } catch { writable = false; } }
      if (!writable) throw new FileError(`${path} is read-only (mode ${(old.mode & 0o777).toString(8).padStart(4, '0')}): refusing to replace it; make it writable (chmod u+w ${path}) or write another file`);
      this.keep = { mode: old.mode & 0o7777, uid: old.uid, gid: old.gid };
    }
    this.tmp = join(dir, `.${basename(this.target)}.${process.pid}.${++counter}.tmp`);
    try {
      this.fd = openSync(this.tmp, 'wx');
    } catch (e) {
      throw new FileError(`cannot write beside ${path} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
    }
    track(this.tmp);
  }

  /** text (buffered) or bytes (written at once, after the text before them) */
  write(text: string | Uint8Array): void {
    if (typeof text !== 'string') {
      this.flush();
      writeSync(this.fd, text);
      return;
    }
    this.buf.push(text);
    this.size += text.length;
    if (this.size >= 1 << 16) this.flush();
  }

  private flush(): void {
    if (this.buf.length === 0) return;
    writeSync(this.fd, this.buf.join(''));
    this.buf = [];
    this.size = 0;
  }

  /** Everything written: rename over the final name (keeping the mode and owner of the file it replaces). */
  commit(): void {
    if (this.done) return;
    this.flush();
    if (this.keep !== null) {
      fchmodSync(this.fd, this.keep.mode);
      const st = fstatSync(this.fd);
      if (st.uid !== this.keep.uid || st.gid !== this.keep.gid) {
        try {
          fchownSync(this.fd, this.keep.uid, this.keep.gid);
        } catch {
          printMessage(`note: ${this.path} was owned by user ${this.keep.uid} (group ${this.keep.gid}); the new file is owned by user ${st.uid}, who wrote it (only the system administrator can give a file away)`);
        }
      }
    }
    closeSync(this.fd);
    renameSync(this.tmp, this.target);
    this.done = true;
    untrack(this.tmp);
    if (this.made !== null) {
      madeFolders.delete(this.made);
      printMessage(`note: made the folder ${relativeName(this.made)} for ${this.path}`);
    }
  }

  /** The run failed: remove the temporary file, leave the final name as it was. */
  abort(): void {
    if (this.done) return;
    this.done = true;
    try { closeSync(this.fd); } catch { /* closed */ }
    try { unlinkSync(this.tmp); } catch { /* gone */ }
    untrack(this.tmp);
    if (this.made !== null) removeMadeFolders(this.made, dirname(this.target));
  }
}

/** A whole file written atomically (temporary file, then rename). */
export function writeFileAtomic(path: string, text: string): void {
  const f = new AtomicFile(path);
  try {
    f.write(text);
    f.commit();
  } catch (e) {
    f.abort();
    throw e;
  }
}

/** Where a data stream goes: stdout ("-") or a file written atomically. */
export interface DataSink {
  readonly name: string;
  /** text, or bytes (a binary format: MCAP) */
  write(data: string | Uint8Array): void;
  commit(): void;
  abort(): void;
}

/**
 * Whether an output path is a stream rather than a file: "-" (standard output), or an existing
 * device, pipe or socket (/dev/stdout, /proc/self/fd/1, a named pipe), which nothing is renamed over
 * and beside which no other file is written.
 */
export function isStreamPath(path: string): boolean {
  if (path === '-') return true;
  try {
    const st = statSync(path);
    return !st.isFile() && !st.isDirectory();
  } catch {
    return false;
  }
}

export function openDataSink(path: string): DataSink {
  let st;
  try { st = statSync(path); } catch { st = null; }
  let own = false;
  if (st && !st.isFile() && !st.isDirectory()) {
    // /dev/stdout (or another name of our standard output, which may be a socket that cannot be opened again)
    try { const o = fstatSync(1); own = o.dev === st.dev && o.ino === st.ino; } catch { own = false; }
  }
  if (path === '-' || own) {
    let buf: string[] = [], size = 0;
    const flush = () => { if (buf.length) { printData(buf.join('')); buf = []; size = 0; } };
    return {
      name: path === '-' ? 'standard output' : path,
      write: (t) => {
        if (typeof t !== 'string') { flush(); wroteData = true; process.stdout.write(Buffer.from(t)); return; }
        buf.push(t); size += t.length; if (size >= 1 << 14) flush();
      },
      commit: flush,
      abort: () => { buf = []; size = 0; },
    };
  }
  if (st && !st.isFile() && !st.isDirectory()) {
    // a device or a named pipe: written as it comes, there is nothing to rename
    const fd = openSync(path, 'w');
    return {
      name: path,
      write: (t) => { if (typeof t === 'string') writeSync(fd, t); else writeSync(fd, t); },
      commit: () => { try { closeSync(fd); } catch { /* closed */ } },
      abort: () => { try { closeSync(fd); } catch { /* closed */ } },
    };
  }
  const f = new AtomicFile(path);
  return { name: path, write: (t) => f.write(t), commit: () => f.commit(), abort: () => f.abort() };
}
