/**
 * Property-based test (fast-check) of `estimate` on logs as robots record them (positions, IMU and
 * F/T readings, no velocities: the derivation path), with what real logs do to them: rows lost,
 * times repeated, going back or jumping, readings missing or not numbers, junk lines, extra
 * channels. For any such log: exit 0, 3 or 2 as documented; every output row is a row of the log,
 * in its order, once; every row not in the output is named with its line on standard error; nothing
 * written as NaN or null; no engine words in what is printed; the same bytes with two worker threads.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { cubicHumanoidLog, humanoidAsLogged } from '../../scripts/robot-log.ts';
import { runCli } from '../cli/run.ts';
import { FORBIDDEN } from './engine.ts';
import { ensureBuilt } from '../package/dist.ts';

const dir = mkdtempSync(join(tmpdir(), 'sparsedyn-derive-prop-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const { file: problem, es } = humanoidAsLogged();
const N = 40;
const base = cubicHumanoidLog(es, N).rows.map((r) => JSON.stringify(r));
const joints = es.model.movingJoints().filter((j) => j.type !== 'floating').map((j) => j.name);

type Edit =
  | { op: 'drop'; at: number }
  | { op: 'time'; at: number; t: number | string | null }
  | { op: 'value'; at: number; joint: number; v: string }
  | { op: 'unset'; at: number; key: 'sensors' | 'base' | 'q' }
  | { op: 'junk'; at: number; text: string }
  | { op: 'extra'; at: number };

const edit: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({ op: fc.constant('drop' as const), at: fc.nat(N - 1) }),
  fc.record({ op: fc.constant('time' as const), at: fc.nat(N - 1), t: fc.oneof(fc.double({ min: -1, max: 2, noNaN: true }), fc.constantFrom(0, 0.01, 1e9, -1e-9, '0.1', null)) }),
  fc.record({ op: fc.constant('value' as const), at: fc.nat(N - 1), joint: fc.nat(joints.length - 1), v: fc.constantFrom('1e308', '-1e308', '"x"', 'null', '[]', '{}', '1e-320', '3.5', '-0') }),
  fc.record({ op: fc.constant('unset' as const), at: fc.nat(N - 1), key: fc.constantFrom('sensors' as const, 'base' as const, 'q' as const) }),
  fc.record({ op: fc.constant('junk' as const), at: fc.nat(N - 1), text: fc.constantFrom('', 'not json', '{', '{"t": 0.5}', '[1,2]', '{"t":1e400}') }),
  fc.record({ op: fc.constant('extra' as const), at: fc.nat(N - 1) }),
);

/** The log's lines after the edits, and for each line whether it came from the generated log. */
function apply(edits: Edit[]): string[] {
  const lines = base.slice();
  for (const e of edits) {
    const at = e.at % lines.length;
    if (e.op === 'drop' && lines.length > 1) lines.splice(at, 1);
    else if (e.op === 'junk') lines.splice(at, 0, e.text);
    else {
      let o: Record<string, unknown>;
      try { o = JSON.parse(lines[at]) as Record<string, unknown>; } catch { continue; }
      if (typeof o !== 'object' || o === null || Array.isArray(o)) continue;
      if (e.op === 'time') o.t = e.t;
      else if (e.op === 'unset') delete o[e.key];
      else if (e.op === 'extra') o.hand_camera = { exposure: 0.01 };
      else if (e.op === 'value') {
        const q = o.q as Record<string, unknown> | undefined;
        if (q) lines[at] = JSON.stringify(o).replace(`"${joints[e.joint]}":${JSON.stringify(q[joints[e.joint]])}`, `"${joints[e.joint]}":${e.v}`);
        continue;
      }
      lines[at] = JSON.stringify(o);
    }
  }
  return lines;
}

describe('estimate on logs as robots record them, damaged as real logs are', () => {
  it('any such log: an exit code as documented, every row estimated once in order or named as skipped, nothing NaN', async () => {
    let k = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(edit, { maxLength: 8 }), async (edits) => {
        const lines = apply(edits);
        const data = join(dir, `log${k}.ndjson`), out = join(dir, `est${k++}.ndjson`);
        writeFileSync(data, lines.join('\n') + '\n');
        const r = await runCli(['estimate', problem, '--data', data, '--out', out, '--jobs', '1', '--no-html']);
        const hit = FORBIDDEN.exec(r.err);
        expect(hit?.[0] ?? null, r.err).toBeNull();
        expect([0, 2, 3], r.err).toContain(r.code);
        if (r.code === 2) {
          // refused as a whole: named, nothing written
          expect(r.err).toMatch(/^sparsedyn: /m);
          expect(existsSync(out)).toBe(false);
          return;
        }
        const text = readFileSync(out, 'utf8');
        expect(text).not.toMatch(/NaN|null|Infinity/);
        const est = text.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { line: number; tau: Record<string, number> });
        const got = est.map((e) => e.line);
        // in the log's order, each once, each a line of the log
        expect(got).toEqual([...new Set(got)].sort((a, b) => a - b));
        for (const l of got) expect(l >= 1 && l <= lines.length).toBe(true);
        // every non-empty line not estimated is named with its line on standard error or, past the
        // first 20, in the report
        const named = r.err + readFileSync(`${out}.report.md`, 'utf8');
        const estimated = new Set(got);
        for (let l = 1; l <= lines.length; l++) {
          if (estimated.has(l) || lines[l - 1].trim() === '') continue;
          expect(named, `line ${l} neither estimated nor named:\n${lines[l - 1].slice(0, 200)}`).toMatch(new RegExp(`\\.ndjson:${l}\\b|\\bline ${l}\\b`));
        }
        expect(r.code === 0).toBe(est.length === lines.filter((l) => l.trim() !== '').length);
        for (const e of est) for (const j of joints) expect(Number.isFinite(e.tau[j])).toBe(true);
      }),
      { seed: 20261128, numRuns: 30 },
    );
  }, 300_000);

  it('any such log: the same bytes and the same skipped rows with two worker threads as with one job', () => {
    ensureBuilt();
    const bin = resolve('bin/sparsedyn.mjs');
    let k = 0;
    fc.assert(
      fc.property(fc.array(edit, { minLength: 1, maxLength: 6 }), (edits) => {
        const data = join(dir, `jobs${k}.ndjson`);
        // long enough for the workers to take byte ranges of it
        writeFileSync(data, [...apply(edits), ...base.slice(0, 20)].join('\n') + '\n');
        const outs = ['1', '2'].map((jobs) => {
          const out = join(dir, `jobs${k}-${jobs}.ndjson`);
          const r = spawnSync(process.execPath, [bin, 'estimate', problem, '--data', data, '--out', out, '--jobs', jobs, '--no-html'], { encoding: 'utf8' });
          const skipped = r.stderr.split('\n').filter((l) => /: skipped: /.test(l));
          return { code: r.status, out: existsSync(out) ? readFileSync(out, 'utf8') : null, skipped, err: r.stderr };
        });
        k++;
        expect(outs[1].code, outs[1].err).toBe(outs[0].code);
        expect(outs[1].out).toBe(outs[0].out);
        expect(outs[1].skipped).toEqual(outs[0].skipped);
      }),
      { seed: 20261128, numRuns: 4 },
    );
  }, 300_000);
});
