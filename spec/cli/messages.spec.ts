/**
 * What a user reads when something is wrong, over every error path of the commands we know: the
 * message names the file, the option or the joint, in words, and never a JavaScript class name
 * (RangeError, SingularJointInertiaError, FileError, …) or a stack; a bug says that it is one, in
 * words. And the outputs: folders made for them are said to be (and removed when the run fails);
 * a read-only file is not replaced, a replaced file keeps its mode, as a careful Unix tool does; reports of two runs
 * with different --out formats do not overwrite each other; relative errors say what they are
 * relative to, and where there is none (the truth is 0 throughout).
 */
import { chmodSync, existsSync, mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { errorMessage } from '../../src/cli/main.ts';
import { runCli as run } from './run.ts';

const dir = mkdtempSync(join(tmpdir(), 'sparsedyn-messages-'));
const DEMO = 'data/problems/humanoid-demo.json';
const demoLog = readFileSync('data/demo/humanoid.ndjson', 'utf8').trim().split('\n');
const urdf = readFileSync('models/humanoid.urdf', 'utf8');
const file = (name: string, content: string | Uint8Array): string => { const p = join(dir, name); writeFileSync(p, content); return p; };

/** a JavaScript class name as a message would show it ("RangeError:", "FileError", "Error:") */
const CLASS_NAME = /\b[A-Z][A-Za-z]*Error\b|(^|\s)Error:|\bat [\w.<>]+ \(|\n\s+at /;

const massless = file('massless.urdf', '<robot name="m">\n<link name="base"><inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>\n'
  + '<link name="tip"/>\n<joint name="j" type="revolute"><parent link="base"/><child link="tip"/><axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>\n</robot>\n');
const truncated = file('truncated.urdf', urdf.slice(0, 2000));
const problemOf = (name: string, model: string, extra: object = {}) => file(name, JSON.stringify({ model, base: 'floating', contacts: [], sensors: [{ name: 'enc', type: 'joint_acceleration', joints: 'all' }], ...extra }));
const binary = new Uint8Array(600).map((_, k) => (k * 37) % 256);

/** [what, arguments, expected words]: each must fail with those words, no class name, no stack */
const CASES: [string, string[], RegExp][] = [
  ['a truncated URDF', ['flops', '-m', truncated], /truncated\.urdf:57: malformed XML: the file ends inside a tag \(<inertia, line 57\).*cut short/],
  ['a gzip URDF', ['flops', '-m', file('zipped.urdf', gzipSync(urdf))], /zipped\.urdf: a gzip file, not a URDF \(XML text\): decompress it first/],
  ['a missing URDF', ['flops', '-m', join(dir, 'nope.urdf')], /nope\.urdf: cannot read the file: no such file/],
  ['a bad model spec', ['minv', '-m', 'chain:0', '--random-state', '1'], /model spec "chain:0": chain:N must be a positive integer/],
  ['a bad tree option', ['urdf', '--model', 'tree:5:1:joints=x'], /joints must be all or urdf/],
  ['a spherical joint written as URDF', ['urdf', '--model', 'tree:5:1'], /URDF has no helical or spherical joint/],
  ['a massless link, forward dynamics', ['derivatives', '-m', massless, '--random-state', '1', '--problem', 'fd'], /articulated inertia of body "tip" \(joint "j"\) is singular/],
  ['a massless link, M⁻¹', ['minv', '-m', massless, '--random-state', '1'], /articulated inertia of body "tip" \(joint "j"\) is singular/],
  ['a state file with a trailing comma', ['minv', '-m', 'chain:3', '--state', file('state.json', '{"q": [0.1,], "v": []}')], /state\.json:1:12: not valid JSON: trailing comma/],
  ['a bad --seed', ['flops', '-m', 'chain:3', '--seed', 'x'], /--seed must be an integer, got "x"/],
  ['a bad --delta', ['derivatives', '-m', 'chain:3', '--random-state', '1', '--problem', 'fd', '--delta', 'x'], /--delta must be a positive number/],
  ['a bad --problem', ['spy', '-m', 'chain:3', '-p', 'xx', '-o', join(dir, 'x.svg')], /--problem must be id or fd/],
  ['a bad --port', ['playground', '--port', '99999', '--no-open'], /--port must be an integer in 0…65535/],
  ['a matrix file that is not one', ['lu', file('bad.tri', 'hello\n')], /bad\.tri line 1: indices must be integers/],
  ['a reference file that is not JSON', ['verify', '-r', file('ref.json', '{"nq": 1,')], /ref\.json:1:10: not valid JSON/],
  ['a study configuration that is not JSON', ['study', file('study.json', '{')], /study\.json:1:2: not valid JSON/],
  ['a problem file that is not JSON', ['analyze', file('bad.json', '{"base": floating}')], /bad\.json:1:10: not valid JSON: unexpected "floating"/],
  ['a problem whose model is missing', ['analyze', problemOf('nomodel.json', 'absent.urdf')], /absent\.urdf/],
  ['a problem file that is missing', ['estimate', join(dir, 'none.json'), '--data', 'data/demo/humanoid.ndjson', '--out', join(dir, 'o.ndjson')], /problem file .*none\.json: no such file/],
  ['a gzip log', ['estimate', DEMO, '--data', file('log.ndjson.gz', gzipSync(demoLog.slice(0, 20).join('\n'))), '--out', join(dir, 'o.ndjson')], /log\.ndjson\.gz is a gzip file, not a log .*decompress it first \(zcat .*log\.ndjson\.gz > .*log\.ndjson\), or read it from standard input/],
  ['a binary log', ['estimate', DEMO, '--data', file('log.bin', binary), '--out', join(dir, 'o.ndjson')], /log\.bin is binary data \(it holds NUL bytes\), not a log/],
  ['an empty log', ['estimate', DEMO, '--data', file('empty.ndjson', ''), '--out', join(dir, 'o.ndjson')], /empty\.ndjson is empty/],
  ['a folder as the log', ['estimate', DEMO, '--data', dir, '--out', join(dir, 'o.ndjson')], /is a folder/],
  ['a bad --jobs', ['estimate', DEMO, '--data', 'data/demo/humanoid.ndjson', '--out', join(dir, 'o.ndjson'), '--jobs', '0'], /--jobs must be a whole number/],
  ['a bad --condition-limit', ['estimate', DEMO, '--data', 'data/demo/humanoid.ndjson', '--out', join(dir, 'o.ndjson'), '--condition-limit', 'x'], /--condition-limit must be a positive decimal number/],
  ['an output beside a file, as if in a folder', ['urdf', '--model', 'chain:2', '--out', join(dir, 'state.json', 'c.urdf')], /cannot write .*state\.json\/c\.urdf: .*state\.json is not a folder/],
  ['an unknown option', ['flops', '-m', 'chain:2', '--bogus'], /unknown option '--bogus'/],
];

describe('error messages in the user\'s words', () => {
  for (const [what, args, words] of CASES) {
    it(`${what}: ${args[0]} fails naming it, with no class name or stack`, async () => {
      const r = await run(args);
      expect(r.code, r.err).not.toBe(0);
      expect(r.err).toMatch(words);
      expect(r.err).not.toMatch(CLASS_NAME);
    });
  }

  it('errorMessage: a thrown error as its message; a file system error with its path in words; a bug as one', () => {
    expect(errorMessage(new RangeError('--seed must be an integer, got "x"'))).toBe('--seed must be an integer, got "x"');
    class SingularJointInertiaError extends Error { override name = 'SingularJointInertiaError'; }
    expect(errorMessage(new SingularJointInertiaError('the articulated inertia of body "tip" is singular'))).toBe('the articulated inertia of body "tip" is singular');
    const enoent = Object.assign(new Error('ENOENT: no such file or directory, open \'x.json\''), { code: 'ENOENT', syscall: 'open', path: 'x.json' });
    expect(errorMessage(enoent)).toBe('x.json: no such file or folder');
    expect(errorMessage(new TypeError('Cannot read properties of undefined (reading \'q\')'))).toBe('internal error (a bug in sparsedyn; please report it with the command that caused it): Cannot read properties of undefined (reading \'q\')');
    expect(errorMessage(new Error('internal: the layout x was not given its offline work'))).toMatch(/^internal error \(a bug in sparsedyn.*\): the layout x was not given/);
    expect(errorMessage(new RangeError('Array buffer allocation failed'))).toMatch(/^out of memory/);
    expect(errorMessage('a string')).toMatch(/^internal error/);
    for (const m of [errorMessage(new TypeError('x')), errorMessage(new RangeError('Maximum call stack size exceeded'))]) expect(m).not.toMatch(CLASS_NAME);
  });
});

describe('outputs, as a careful Unix tool writes them', () => {
  it('a read-only existing output is refused and left as it was; a writable one is replaced keeping its mode', async () => {
    const out = file('ro.urdf', 'old\n');
    chmodSync(out, 0o444);
    const r = await run(['urdf', '--model', 'chain:2', '--out', out]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/ro\.urdf is read-only \(mode 0444\): refusing to replace it; make it writable \(chmod u\+w .*ro\.urdf\) or write another file/);
    expect(r.err).not.toMatch(CLASS_NAME);
    expect(readFileSync(out, 'utf8')).toBe('old\n');
    expect(statSync(out).mode & 0o777).toBe(0o444);
    const kept = file('kept.urdf', 'old\n');
    chmodSync(kept, 0o640);
    expect((await run(['urdf', '--model', 'chain:2', '--out', kept])).code).toBe(0);
    expect(readFileSync(kept, 'utf8')).toMatch(/<robot name="chain:2">/);
    expect(statSync(kept).mode & 0o777).toBe(0o640);
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('--out nodir/x: the folders made are named in a note; a run that fails removes them again', async () => {
    const r = await run(['urdf', '--model', 'chain:2', '--out', join(dir, 'new', 'deeper', 'c.urdf')]);
    expect(r.code).toBe(0);
    expect(r.err).toBe(`note: made the folder ${join(dir, 'new')}/ for ${join(dir, 'new', 'deeper', 'c.urdf')}\nwrote ${join(dir, 'new', 'deeper', 'c.urdf')}: model "chain:2", 3 links, 2 joints\n`);
    expect(existsSync(join(dir, 'new', 'deeper', 'c.urdf'))).toBe(true);
    // every row unusable: nothing is written, and the folders made for it are gone
    const bad = await run(['estimate', DEMO, '--data', file('garbage.ndjson', '{"t": 0}\n{"t": 1}\n'), '--out', join(dir, 'gone', 'sub', 'o.ndjson'), '-q']);
    expect(bad.code).toBe(2);
    expect(bad.err).not.toMatch(/made the folder/);
    expect(existsSync(join(dir, 'gone'))).toBe(false);
  });

  it('--out x.ndjson and --out x.csv write reports of their own (<out>.report.md), neither replaces the other\'s', async () => {
    const log = file('short.ndjson', demoLog.slice(0, 30).join('\n') + '\n');
    for (const ext of ['ndjson', 'csv']) expect((await run(['estimate', DEMO, '--data', log, '--out', join(dir, `x.${ext}`), '--format', ext, '-q'])).code).toBe(0);
    expect(readFileSync(join(dir, 'x.ndjson.report.md'), 'utf8')).toMatch(/estimates written as NDJSON/);
    expect(readFileSync(join(dir, 'x.csv.report.md'), 'utf8')).toMatch(/estimates written as CSV/);
    expect(existsSync(join(dir, 'x.ndjson.report.html')) && existsSync(join(dir, 'x.csv.report.html'))).toBe(true);
    expect(existsSync(join(dir, 'x.report.md'))).toBe(false);
  });

  it('a relative error says what it is relative to; where the truth is 0 throughout there is none (its error is absolute)', async () => {
    // the demo's first rows, the truth of torso_yaw set to 0
    const rows = demoLog.slice(0, 30).map((l) => { const o = JSON.parse(l); o.truth.tau.torso_yaw = 0; return JSON.stringify(o); });
    const r = await run(['estimate', DEMO, '--data', file('zero-truth.ndjson', rows.join('\n') + '\n'), '--out', join(dir, 'zero.ndjson')]);
    expect(r.code, r.err).toBe(0);
    const line = /joint torques \(29\): .*/.exec(r.err)![0];
    expect(line).toMatch(/max rel\. error \d\.\d\de[-+]\d+ \(\w+: [\d.e-]+ of at most [\d.e+-]+ N m\); truth 0 throughout for torso_yaw \(max error [\d.e-]+ N m\), no relative error/);
    expect(line).not.toMatch(/max rel\. error [^;]*torso_yaw/);
    const md = readFileSync(join(dir, 'zero.ndjson.report.md'), 'utf8');
    expect(md).toMatch(/\| torso_yaw \| N m \| 30 \| [\d.e-]+ \| [\d.e-]+ \| 0 \| — \(truth 0\) \|/);
    const html = readFileSync(join(dir, 'zero.ndjson.report.html'), 'utf8');
    expect(html).toMatch(/<td>torso_yaw<\/td>.*?<td class="num">— \(truth 0\)<\/td>/);
  });
});
