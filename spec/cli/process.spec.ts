/**
 * The real command line as a child process (`node bin/sparsedyn.mjs`): an interrupted or killed
 * run leaves the old outputs and no partial file under the final name; standard input and output
 * give the same estimates as files, row for row; a closed stdout (`… | head -c 10`) ends the run
 * quietly, for `estimate --out -` and for a `--json` command.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './run.ts';

const BIN = resolve('bin/sparsedyn.mjs');
const DEMO = resolve('data/problems/humanoid-demo.json');
const demo = readFileSync('data/demo/humanoid.ndjson', 'utf8').trim().split('\n');
const dir = mkdtempSync(join(tmpdir(), 'sparsedyn-proc-'));

function start(args: string[], opts: { cwd?: string; stdin?: string } = {}): ChildProcess {
  return spawn(process.execPath, [BIN, ...args], { cwd: opts.cwd ?? process.cwd(), stdio: [opts.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
}

function finished(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string; err: string }> {
  let out = '', err = '';
  child.stdout?.on('data', (b) => { out += b; });
  child.stderr?.on('data', (b) => { err += b; });
  return new Promise((res) => child.on('close', (code, signal) => res({ code, signal, out, err })));
}

/** a long log: the demo's rows over and over (t increasing) */
function longLog(rows: number): string {
  const f = join(dir, `long-${rows}.ndjson`);
  if (!existsSync(f)) {
    const parts: string[] = [];
    for (let k = 0; k < rows; k++) {
      const o = JSON.parse(demo[k % demo.length]);
      o.t = k * 0.005;
      parts.push(JSON.stringify(o));
    }
    writeFileSync(f, parts.join('\n') + '\n');
  }
  return f;
}

/** resolves when a temporary output file beside `final` has data (the run is under way) */
async function whenWriting(folder: string, child: ChildProcess): Promise<void> {
  for (;;) {
    if (child.exitCode !== null) throw new Error('the run ended before it could be interrupted');
    const tmp = readdirSync(folder).find((n) => n.endsWith('.tmp'));
    if (tmp && statSync(join(folder, tmp)).size > 0) return;
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe.concurrent('an interrupted run', () => {
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGKILL'] as const) {
    it(`${signal} mid-log: the old output and report stay, nothing partial under the final names`, async () => {
      const sub = mkdtempSync(join(dir, `${signal}-`));
      const out = join(sub, 'est.ndjson'), report = join(sub, 'est.ndjson.report.md');
      writeFileSync(out, 'old estimates\n');
      writeFileSync(report, 'old report\n');
      const child = start(['estimate', DEMO, '--data', longLog(4000), '--out', out]);
      const done = finished(child);
      await whenWriting(sub, child);
      child.kill(signal);
      const r = await done;
      expect(readFileSync(out, 'utf8')).toBe('old estimates\n');
      expect(readFileSync(report, 'utf8')).toBe('old report\n');
      if (signal === 'SIGKILL') {
        expect(r.signal).toBe('SIGKILL'); // nothing can clean up after a kill: a temporary file may stay, never the final name
      } else {
        expect(r.code).toBe(signal === 'SIGINT' ? 130 : 143);
        expect(readdirSync(sub).sort()).toEqual(['est.ndjson', 'est.ndjson.report.md']);
        expect(r.err).not.toMatch(/\n\s+at /);
        // one line says so (a run ended by Ctrl-C used to exit silently)
        expect(r.err).toMatch(new RegExp(`(^|\n)sparsedyn: ${signal === 'SIGINT' ? 'interrupted \\(Ctrl-C\\)' : 'stopped \\(SIGTERM\\)'}: nothing was written \\(the output files are as they were\\)\n$`));
      }
    }, 120_000);
  }
});

describe('standard input and output', () => {
  it('--data - --out - gives the same estimates as files, row for row, and writes no file named "-"', async () => {
    const sub = mkdtempSync(join(dir, 'pipe-'));
    const log = join(sub, 'log.ndjson');
    writeFileSync(log, demo.slice(0, 40).join('\n') + '\n');
    const child = start(['estimate', DEMO, '--data', '-', '--out', '-'], { cwd: sub, stdin: '' });
    const done = finished(child);
    child.stdin!.end(readFileSync(log));
    const piped = await done;
    expect(piped.code).toBe(0);
    const fileRun = await runCli(['estimate', DEMO, '--data', log, '--out', join(sub, 'est.ndjson')]);
    expect(fileRun.code).toBe(0);
    const a = piped.out.trim().split('\n').map((l) => JSON.parse(l));
    const b = readFileSync(join(sub, 'est.ndjson'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(a).toHaveLength(40);
    expect(a).toEqual(b);
    expect(piped.err).toMatch(/log standard input \(ndjson\): samples estimated 40/);
    expect(readdirSync(sub).sort()).toEqual(['est.ndjson', 'est.ndjson.report.html', 'est.ndjson.report.md', 'log.ndjson']);
    // --out /dev/stdout: the estimates alone on stdout, the summary on stderr, no report beside it
    // (a file left there by something else is compared before and after, not required absent)
    const beside = ['/dev/stdout.report.md', '/dev/stdout.report.html'];
    const stamp = () => beside.map((f) => (existsSync(f) ? statSync(f).mtimeMs : -1));
    const before = stamp();
    const dev = await finished(start(['estimate', DEMO, '--data', log, '--out', '/dev/stdout', '--report', join(sub, 'dev.md')], { cwd: sub }));
    expect(dev.code).toBe(0);
    expect(dev.out.trim().split('\n').map((l) => JSON.parse(l))).toEqual(b);
    expect(dev.err).toMatch(/samples estimated 40/);
    expect(dev.err).toContain(`wrote /dev/stdout and ${join(sub, 'dev.md')}\n`);
    // another name of standard output (a pipe here): a stream, so no report or page is written beside it
    const fd1 = await finished(start(['estimate', DEMO, '--data', log, '--out', '/proc/self/fd/1'], { cwd: sub }));
    expect(fd1.code).toBe(0);
    expect(fd1.out.trim().split('\n').map((l) => JSON.parse(l))).toEqual(b);
    expect(fd1.err).toMatch(/wrote \/proc\/self\/fd\/1\n/);
    expect(stamp()).toEqual(before);
    expect(readdirSync(sub).sort()).toEqual(['dev.md', 'est.ndjson', 'est.ndjson.report.html', 'est.ndjson.report.md', 'log.ndjson']);
  }, 120_000);
});

describe('a closed stdout (… | head -c 10)', () => {
  it('a --json command ends quietly: exit 0, nothing on stderr', async () => {
    const child = start(['flops', '--model', 'humanoid', '--json']);
    child.stdout!.destroy();
    const r = await finished(child);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
  }, 120_000);

  it('estimate --out - stops at the closed pipe quietly and writes no report', async () => {
    const sub = mkdtempSync(join(dir, 'epipe-'));
    const child = start(['estimate', DEMO, '--data', longLog(4000), '--out', '-', '--report', join(sub, 'r.md')]);
    let err = '';
    child.stderr!.on('data', (b) => { err += b; });
    const code = await new Promise<number | null>((res) => {
      child.stdout!.once('data', () => child.stdout!.destroy()); // head -c 10: read a little, then close
      child.on('close', (c) => res(c));
    });
    expect(code).toBe(0);
    expect(err).not.toMatch(/EPIPE|Error|\n\s+at /);
    expect(readdirSync(sub)).toEqual([]);
  }, 120_000);
});

describe('the bundled command line reads JSON as the sources do', () => {
  // jsonc-parser locates the errors JSON.parse gives no position for; its UMD "main" does not bundle (scripts/build.mjs)
  it('a problem file and a state file with a syntax error: FILE:LINE:COLUMN on one line, exit 2', async () => {
    const problem = join(dir, 'token.json');
    writeFileSync(problem, '{\n  "base": floating\n}\n');
    const a = await finished(start(['analyze', problem]));
    expect(a.code).toBe(2);
    expect(a.err).toBe(`sparsedyn: ${problem}:2:11: not valid JSON: unexpected "floating"\n`);
    const state = join(dir, 'state-comma.json');
    writeFileSync(state, '{"q": [0, 0, 0, 0,]}');
    const b = await finished(start(['minv', '--model', 'chain:4', '--state', state]));
    expect(b.code).toBe(2);
    expect(b.err).toBe(`sparsedyn: ${state}:1:19: not valid JSON: trailing comma before "]"\n`);
  }, 120_000);
});
