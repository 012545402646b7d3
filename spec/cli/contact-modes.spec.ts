/**
 * `sparsedyn estimate` on a walking log of a robot without force sensing (encoders and a base IMU)
 * whose rows name their contacts: each contact mode judged on its own — single support well posed
 * and estimated, double support ill posed and skipped, naming the mode — rather than the whole run
 * refused because the layout with every contact is ill posed; the summary and the report list the
 * modes with their verdicts and rows, the same with worker threads. A problem that is ill posed
 * with no mode named anywhere is still refused (exit 1, its analysis).
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli as run } from './run.ts';

const dir = mkdtempSync(join(tmpdir(), 'sparsedyn-modes-'));
const file = (name: string, text: string): string => { const f = join(dir, name); writeFileSync(f, text); return f; };

/** the walking problem without its force/torque sensors (and so without contact detection), with `extra` fields */
function problem(name: string, extra: object = {}): string {
  const p = JSON.parse(readFileSync('data/problems/humanoid-walk.json', 'utf8'));
  delete p.$schema; delete p.contact_detection;
  p.model = `${process.cwd()}/models/humanoid.urdf`;
  p.sensors = p.sensors.filter((s: { type: string }) => s.type !== 'force_torque');
  return file(name, JSON.stringify({ ...p, ...extra }));
}
/** the walking log (320 rows: 160 in double support, 80 on each foot) without force readings; `contacts`: each row names its own */
function log(name: string, contacts: boolean): string {
  const rows = readFileSync('data/demo/humanoid-walk.ndjson', 'utf8').trim().split('\n').map((l) => {
    const o = JSON.parse(l);
    delete o.sensors.ft_left; delete o.sensors.ft_right;
    if (contacts) o.contacts = o.truth.contacts;
    return JSON.stringify(o);
  });
  return file(name, rows.join('\n') + '\n');
}
/** the summary or report without timings and the threads line */
const untimed = (s: string) => s.replace(/\n {2}threads: [^\n]*/g, '').replace(/[0-9.,]+ (µs|ms)/g, 'T').replace(/-[12]\.(ndjson|report)/g, '-N.$1');

describe('sparsedyn estimate: contact modes judged one by one', () => {
  const named = log('named.ndjson', true);

  it('rows naming their contacts are not refused up front: single support estimated, double support skipped naming the mode (exit 3); the summary and report list each mode, its verdict and rows, the same for 1 and 2 jobs', async () => {
    const p = problem('no-force.json');
    const out = [];
    for (const jobs of [1, 2]) {
      const o = join(dir, `named-${jobs}.ndjson`);
      const r = await run(['estimate', p, '--data', named, '--out', o, '--jobs', String(jobs), '--no-html']);
      out.push({ ...r, text: readFileSync(o, 'utf8'), report: readFileSync(`${o}.report.md`, 'utf8') });
    }
    const [one, two] = out;
    expect(one.code).toBe(3);
    expect(two.err).toMatch(/\n {2}threads: 2 worker threads( \(reading and parsing their own ranges of the log\))?\n/);
    const rows = one.text.trim().split('\n').map((l) => JSON.parse(l));
    expect(rows).toHaveLength(160);
    const lines = readFileSync(named, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    for (const x of rows) expect(x.mode).toBe(lines[x.line - 1].contacts.join('+'));
    expect(new Set(rows.map((x) => x.mode))).toEqual(new Set(['l_sole', 'r_sole']));
    expect(one.err).toMatch(/named\.ndjson:1: skipped: its sensors in contact mode l_sole\+r_sole do not determine every unknown: w\[l_sole\]\.tx \+ [^\n]*w\[r_sole\]/);
    const modes = 'contact modes: l_sole+r_sole (ill posed: w[l_sole].tx + 0.753·w[r_sole].tx + 0.658·w[r_sole].ty + 0.0129·w[r_sole].tz, and 5 more directions) 160 rows skipped; l_sole (well posed) 80 rows estimated; r_sole (well posed) 80 rows estimated';
    expect(one.err).toContain(`\n  ${modes}\n`);
    expect(one.report).toContain(`\n- ${modes}\n`);
    expect(one.err).toMatch(/samples estimated 160, rows skipped 160/);
    expect(two.code).toBe(3);
    expect(two.text === one.text).toBe(true);
    expect(untimed(two.err)).toBe(untimed(one.err));
    expect(untimed(two.report)).toBe(untimed(one.report));
  }, 120_000);

  it('with a prior on a contact wrench, double support is estimated too (exit 0), its mode well posed with the priors', async () => {
    const p = problem('no-force-prior.json', { priors: [{ on: 'contact:l_sole', mean: [0, 0, 0, 0, 0, 300], variance: 100 }] });
    const r = await run(['estimate', p, '--data', named, '--out', '-', '--no-condition']);
    expect(r.code).toBe(0);
    expect(r.out.trim().split('\n')).toHaveLength(320);
    expect(r.err).toContain('\n  contact modes: l_sole+r_sole (well posed with the priors) 160 rows estimated; l_sole (well posed) 80 rows estimated; r_sole (well posed) 80 rows estimated\n');
  }, 60_000);

  it('rows that name no contacts, no schedule, no thresholds: the ill-posed problem is refused with its analysis (exit 1), nothing written', async () => {
    const p = problem('ill.json');
    const o = join(dir, 'ill.ndjson');
    const r = await run(['estimate', p, '--data', log('none.ndjson', false), '--out', o, '-q']);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^estimate: .*ill\.json is ill posed; refusing to estimate \(no row names its contacts\)\n {2}verdict\s+ill_posed\n/);
    expect(r.err).toMatch(/unobservable directions:\n\s+w\[l_sole\]/);
    expect(existsSync(o)).toBe(false);
    expect(existsSync(join(dir, 'ill.ndjson.report.md'))).toBe(false);
  }, 60_000);
});
