/**
 * A coverage-guided mutation fuzzer for the parsers a user's file reaches, in-process, on V8's own
 * block coverage. Why not Jazzer.js (libFuzzer for Node): its native addon (@jazzer.js/fuzzer 4.0)
 * ships prebuilt for glibc 2.38 and this Debian 12 has 2.36, and its older releases download their
 * binaries from outside the npm registry or build libFuzzer from sources fetched at install time;
 * neither installs here, on CI or on a developer's machine.
 *
 * How it works, as libFuzzer does: a corpus of inputs (seeded from the repository's own files);
 * each round picks one, mutates it (bytes flipped, inserted, deleted, repeated, spliced with another
 * input, a token of the target's dictionary or an interesting number put in), runs the target and
 * reads V8's precise block coverage since the previous run (Profiler.takePreciseCoverage resets the
 * counters: one input's coverage each time). A feature is a covered block of the project's code or
 * of the parsing libraries, with its hit count in powers of two; an input that shows a feature not
 * seen before joins the corpus (and, when asked, its folder).
 *
 * The invariant, for every input: the target returns (a result), or throws one of the project's
 * named errors; no message (thrown, or of a skipped row) quotes the engine ("Cannot read
 * properties", "Maximum call stack size exceeded", …) or a JavaScript class name; each input takes
 * under 1 s (an input over it is run again, and counts when over twice) and grows the peak memory
 * by under 256 MB. An input that breaks it is a finding.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';

/** What a target run gives back: messages to check (skipped rows, warnings), or nothing. */
export type TargetResult = { messages?: string[] } | void;

export interface FuzzTarget {
  name: string;
  /** the folder of its corpus (seeds and inputs kept for their coverage) */
  corpus: string;
  /** tokens the mutator inserts (keywords of the format, names, numbers) */
  dictionary: readonly string[];
  /** errors the target may throw: the project's named errors for this input */
  named: readonly (abstract new (...args: never[]) => Error)[];
  /** inputs larger than this are cut (100 kB: the invariant's size) */
  maxLength?: number;
  /** runs one input */
  run(data: Buffer): TargetResult | Promise<TargetResult>;
}

/** Engine words and class names that a message must not carry. */
export const FORBIDDEN = /Cannot read propert|Cannot set propert|Maximum call stack|is not a function|is not iterable|is not a constructor|Invalid typed array length|Invalid array length|Array buffer allocation|undefined \(reading|\b(?:TypeError|RangeError|SyntaxError|ReferenceError|InternalError|AggregateError|UsageGraphError)\b|\b[A-Z][A-Za-z]*(?:Error|Exception)\b|\bat [\w.<>]+ \(.*:\d+:\d+\)/;

/** The invariant's limits for one input under 100 kB. */
export const TIME_LIMIT_MS = 1000;
/** an input that takes this long without being confirmed over its bound: the process was stopped */
const STOPPED_MS = 20_000;
export const MEMORY_LIMIT_MB = 256;

export interface Finding {
  target: string;
  kind: 'crash' | 'message' | 'time' | 'memory';
  detail: string;
  input: Buffer;
}

export interface FuzzStats {
  target: string;
  executions: number;
  /** fuzzing time, s: wall time less the time the process was stopped */
  seconds: number;
  /** wall time the process was stopped (SIGSTOP), s, not counted in `seconds` */
  pausedSeconds: number;
  /** user + system CPU time of the process during the run, s */
  cpuSeconds: number;
  /** features (covered blocks × hit-count buckets) seen */
  features: number;
  /** covered blocks of the project's own code (src/) */
  srcBlocks: number;
  corpus: number;
  added: number;
  findings: Finding[];
}

// ---------------------------------------------------------------- coverage

type Post = <T>(method: string, params?: object) => T;
let session: Session | null = null;
let post: Post;

interface ScriptCoverage { scriptId: string; url: string; functions: { ranges: { startOffset: number; endOffset: number; count: number }[] }[] }

const TRACKED = /\/src\/|node_modules\/(?:@mcap|@foxglove|fast-xml-parser|csv-parse|jsonc-parser)\//;
const SRC = /\/src\//;

function startCoverage(): void {
  if (session) return;
  session = new Session();
  session.connect();
  post = <T>(method: string, params?: object): T => {
    let out: T | undefined, err: Error | null = null;
    session!.post(method, params ?? {}, (e, r) => { err = e; out = r as T; });
    if (err) throw err;
    return out as T;
  };
  post('Profiler.enable');
  post('Profiler.startPreciseCoverage', { callCount: true, detailed: true });
}

const bucket = (c: number): number => (c <= 3 ? c : 32 - Math.clz32(c) + 2);

/** The features of the last run (and resets the counters). */
function takeFeatures(out: Set<string>, srcBlocks?: Set<string>): void {
  const { result } = post<{ result: ScriptCoverage[] }>('Profiler.takePreciseCoverage');
  for (const s of result) {
    if (!TRACKED.test(s.url)) continue;
    const inSrc = SRC.test(s.url) && !s.url.includes('node_modules');
    for (const f of s.functions) {
      for (const r of f.ranges) {
        if (r.count === 0) continue;
        const key = `${s.url}:${r.startOffset}:${r.endOffset}`;
        out.add(`${key}:${bucket(r.count)}`);
        if (inSrc && srcBlocks) srcBlocks.add(key);
      }
    }
  }
}

// ---------------------------------------------------------------- mutation

/** A small seeded generator (xorshift32), so that a run can be repeated. */
class Rand {
  constructor(private s: number) { if (this.s === 0) this.s = 1; }
  next(): number { let x = this.s; x ^= x << 13; x ^= x >>> 17; x ^= x << 5; this.s = x >>> 0; return this.s; }
  below(n: number): number { return n <= 0 ? 0 : this.next() % n; }
  pick<T>(a: readonly T[]): T { return a[this.below(a.length)]; }
}

const INTERESTING = ['0', '-0', '1', '-1', '2', '1e308', '-1e308', '1e200', '1e151', '1e-320', '4294967297', '2147483648', '9007199254740993', '1e999', 'NaN', 'Infinity', '0x10', '0b11', '0o7', '1.5', '-2e-3', '1e0', '100000000', '3e8', 'null', 'true', '""', '[]', '{}', '__proto__', 'constructor', 'toString', 'hasOwnProperty'];

function mutate(r: Rand, data: Buffer, others: readonly Buffer[], dict: readonly string[], maxLength: number): Buffer {
  let b = Buffer.from(data);
  const n = 1 + r.below(4);
  for (let k = 0; k < n; k++) {
    const at = r.below(b.length + 1);
    switch (r.below(11)) {
      case 0: if (b.length) b[r.below(b.length)] ^= 1 << r.below(8); break;
      case 1: if (b.length) b[r.below(b.length)] = r.below(256); break;
      case 2: b = Buffer.concat([b.subarray(0, at), Buffer.from([r.pick([0, 10, 13, 32, 34, 44, 45, 46, 48, 49, 57, 60, 62, 91, 93, 123, 125, 255])]), b.subarray(at)]); break;
      case 3: { const len = 1 + r.below(Math.min(64, Math.max(1, b.length - at))); b = Buffer.concat([b.subarray(0, at), b.subarray(at + len)]); break; }
      case 4: { const len = 1 + r.below(32); const piece = b.subarray(at, at + len); const times = r.pick([2, 3, 10, 100, 1000]); b = Buffer.concat([b.subarray(0, at), ...Array(times).fill(piece), b.subarray(at)]); break; }
      case 5: case 6: { const tok = r.below(3) === 0 ? r.pick(INTERESTING) : dict.length ? r.pick(dict) : r.pick(INTERESTING); b = Buffer.concat([b.subarray(0, at), Buffer.from(tok), b.subarray(at)]); break; }
      case 7: {
        // replace a number in the text by an interesting one
        const s = b.toString('latin1');
        const nums = [...s.matchAll(/-?\d+(?:\.\d+)?(?:e[+-]?\d+)?/gi)];
        if (nums.length) { const m = r.pick(nums); const tok = r.pick(INTERESTING.slice(0, 26)); b = Buffer.concat([b.subarray(0, m.index!), Buffer.from(tok), b.subarray(m.index! + m[0].length)]); }
        break;
      }
      case 8: if (others.length) { const o = r.pick(others); const from = r.below(o.length); const len = r.below(Math.min(256, o.length - from) + 1); b = Buffer.concat([b.subarray(0, at), o.subarray(from, from + len), b.subarray(at)]); } break;
      case 9: b = b.subarray(0, at); break;
      case 10: {
        // deep nesting: an opening bracket repeated
        const open = r.pick(['[', '{"a":', '<a>', '[[']);
        b = Buffer.concat([b.subarray(0, at), Buffer.from(open.repeat(r.pick([10, 500, 5000]))), b.subarray(at)]);
        break;
      }
    }
  }
  return b.length > maxLength ? b.subarray(0, maxLength) : b;
}

// ---------------------------------------------------------------- running

/** Runs one input and returns its finding, if any. */
export async function runOne(target: FuzzTarget, input: Buffer, timeLimitMs = TIME_LIMIT_MS): Promise<Omit<Finding, 'target' | 'input'> | null> {
  const rss0 = process.memoryUsage.rss(), peak0 = process.resourceUsage().maxRSS * 1024;
  const t0 = performance.now();
  let messages: string[] = [];
  try {
    const r = await target.run(input);
    if (r && r.messages) messages = r.messages;
  } catch (e) {
    const named = target.named.some((c) => e instanceof c);
    const msg = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    if (!named) return { kind: 'crash', detail: `${msg}\n${e instanceof Error ? (e.stack ?? '').split('\n').slice(1, 8).join('\n') : ''}` };
    messages = [(e as Error).message];
  }
  const ms = performance.now() - t0;
  for (const m of messages) {
    const hit = FORBIDDEN.exec(m);
    if (hit) return { kind: 'message', detail: `"${hit[0]}" in: ${m.slice(0, 400)}` };
    if (m.length > 5000) return { kind: 'message', detail: `a message of ${m.length} characters: ${m.slice(0, 200)}…` };
  }
  if (ms > timeLimitMs) return { kind: 'time', detail: `${ms.toFixed(0)} ms` };
  const peak = process.resourceUsage().maxRSS * 1024;
  // the process's peak grew during this input, to more than the limit above where it started
  if (peak > peak0 && peak - rss0 > MEMORY_LIMIT_MB * 2 ** 20) return { kind: 'memory', detail: `peak ${(peak / 2 ** 20).toFixed(0)} MB, ${((peak - rss0) / 2 ** 20).toFixed(0)} MB above the start` };
  return null;
}

function loadCorpus(dir: string): Buffer[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).sort().map((f) => readFileSync(join(dir, f)));
}

/** inputs a run adds to a corpus folder at most (the corpora stay small) */
const MAX_SAVED = 150;

export interface FuzzOptions {
  seconds: number;
  /** keep the inputs that found new coverage in the corpus folder */
  save?: boolean;
  seed?: number;
  /** stop at the first finding */
  stopAtFinding?: boolean;
  /** the time bound of one input (default TIME_LIMIT_MS; the test suite, sharing the cores with other files, allows more) */
  timeLimitMs?: number;
  /** where findings are written (one file per finding) */
  findingsDir?: string;
}

/** Fuzz one target for `seconds`: the corpus first (each input once), then mutations. */
export async function fuzz(target: FuzzTarget, opts: FuzzOptions): Promise<FuzzStats> {
  startCoverage();
  const maxLength = target.maxLength ?? 100_000;
  const corpus = loadCorpus(target.corpus);
  if (corpus.length === 0) throw new Error(`fuzz target ${target.name}: no seeds in ${target.corpus}`);
  const seen = new Set<string>(), srcBlocks = new Set<string>();
  const findings: Finding[] = [];
  const kinds = new Set<string>();
  const r = new Rand(opts.seed ?? 12345);
  const start = performance.now(), cpu0 = process.cpuUsage();
  let executions = 0, added = 0, saved = 0;
  const record = (f: Omit<Finding, 'target' | 'input'>, input: Buffer): void => {
    // one finding per kind and first line of detail
    const key = `${f.kind}:${f.detail.split('\n')[0].replace(/\d+/g, 'N').slice(0, 120)}`;
    if (kinds.has(key)) return;
    kinds.add(key);
    findings.push({ target: target.name, ...f, input });
    if (opts.findingsDir) {
      mkdirSync(opts.findingsDir, { recursive: true });
      const h = createHash('sha1').update(input).digest('hex').slice(0, 12);
      writeFileSync(join(opts.findingsDir, `${target.name}-${f.kind}-${h}`), input);
      writeFileSync(join(opts.findingsDir, `${target.name}-${f.kind}-${h}.txt`), f.detail + '\n');
    }
  };
  takeFeatures(new Set()); // the counters from before
  /**
   * An input over the time bound is run once more, and a finding only when it is over again: the
   * first input of a target pays one-time costs (the demo session the log targets share, code
   * compiled on first use: 1.7 s at nice 19 beside other work), and a loaded machine can stall any one.
   */
  const confirm = async (f: Omit<Finding, 'target' | 'input'> | null, input: Buffer): Promise<Omit<Finding, 'target' | 'input'> | null> => {
    if (f?.kind !== 'time') return f;
    const again = await runOne(target, input, opts.timeLimitMs);
    takeFeatures(new Set());
    return again?.kind === 'time' ? { kind: 'time', detail: `${f.detail}, then ${again.detail}` } : null;
  };
  for (const input of corpus) {
    const f0 = await runOne(target, input, opts.timeLimitMs);
    executions++;
    takeFeatures(seen, srcBlocks);
    const f = await confirm(f0, input);
    if (f) record(f, input);
  }
  let deadline = start + opts.seconds * 1000, paused = 0;
  while (performance.now() < deadline && !(opts.stopAtFinding && findings.length)) {
    const t = performance.now();
    const base = corpus[r.below(corpus.length)];
    const input = mutate(r, base, corpus, target.dictionary, maxLength);
    const f0 = await runOne(target, input, opts.timeLimitMs);
    executions++;
    const before = seen.size;
    takeFeatures(seen, srcBlocks);
    const f = await confirm(f0, input);
    // an input that took ~20 times its bound and was not confirmed: the process was stopped
    // (SIGSTOP while a benchmark ran); that time is not fuzzing and the deadline moves by it
    const took = performance.now() - t;
    if (!f && took > STOPPED_MS) { paused += took; deadline += took; }
    if (f) { record(f, input); continue; }
    if (seen.size > before) {
      corpus.push(input);
      added++;
      // kept in the repository: small inputs only, at most MAX_SAVED per run and target
      if (opts.save && input.length <= 4096 && saved < MAX_SAVED) {
        saved++;
        mkdirSync(target.corpus, { recursive: true });
        writeFileSync(join(target.corpus, `cov-${createHash('sha1').update(input).digest('hex').slice(0, 16)}`), input);
      }
    }
  }
  const cpu = process.cpuUsage(cpu0);
  return { target: target.name, executions, seconds: (performance.now() - start - paused) / 1000, pausedSeconds: paused / 1000, cpuSeconds: (cpu.user + cpu.system) / 1e6, features: seen.size, srcBlocks: srcBlocks.size, corpus: corpus.length, added, findings };
}

/**
 * Minimise a target's corpus folder as libFuzzer's merge does: every input run once, alone, for its
 * features; the seeds (`seed-*`) stay, then the inputs kept for coverage (`cov-*`), smallest first,
 * stay only if they show a feature the ones kept so far do not. The others are deleted (unless
 * `dryRun`). Returns the files and bytes before and after.
 */
export async function minimise(target: FuzzTarget, opts: { dryRun?: boolean } = {}): Promise<{ before: number; after: number; bytesBefore: number; bytesAfter: number; features: number }> {
  startCoverage();
  const names = readdirSync(target.corpus).sort();
  const files = names.map((name) => ({ name, data: readFileSync(join(target.corpus, name)) }));
  const seeds = files.filter((f) => f.name.startsWith('seed-'));
  const others = files.filter((f) => !f.name.startsWith('seed-')).sort((a, b) => a.data.length - b.data.length || (a.name < b.name ? -1 : 1));
  const covered = new Set<string>();
  takeFeatures(new Set());
  // a first run of every seed pays the target's one-time costs (and their coverage) before any counts
  for (const f of seeds) await runOne(target, f.data, 60_000);
  takeFeatures(new Set());
  const keep: typeof files = [];
  for (const f of [...seeds, ...others]) {
    await runOne(target, f.data, 60_000);
    const mine = new Set<string>();
    takeFeatures(mine);
    let fresh = false;
    for (const x of mine) if (!covered.has(x)) { fresh = true; covered.add(x); }
    if (fresh || f.name.startsWith('seed-')) keep.push(f);
  }
  const kept = new Set(keep.map((f) => f.name));
  if (!opts.dryRun) for (const f of files) if (!kept.has(f.name)) unlinkSync(join(target.corpus, f.name));
  const bytes = (l: typeof files) => l.reduce((s, f) => s + f.data.length, 0);
  return { before: files.length, after: keep.length, bytesBefore: bytes(files), bytesAfter: bytes(keep), features: covered.size };
}
