/**
 * What every command shows a user: help that names no file they do not have (no ../shared paths,
 * no issue numbers, no "paper 00N"), and a model's warnings once on stderr and in its --json output.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli as run } from './run.ts';

const COMMANDS = ['estimate', 'analyze', 'verify', 'flops', 'spy', 'minv', 'iwim', 'derivatives', 'study', 'lu', 'urdf', 'model', 'synth'];
const FORBIDDEN = /\.\.\/shared|shared\/|papers?\/0\d\d|paper 0\d\d|issue \d/i;

describe('help', () => {
  it('names no file a user does not have, for the program and every command', async () => {
    const top = await run(['--help']);
    expect(top.out + top.err).toMatch(/-q, --quiet/);
    expect(top.out + top.err).not.toMatch(FORBIDDEN);
    for (const c of COMMANDS) {
      const r = await run([c, '--help']);
      expect(r.code, c).toBe(0);
      expect(r.out + r.err, c).not.toMatch(FORBIDDEN);
    }
    const est = await run(['estimate', '--help']);
    expect(est.out).toMatch(/Units and frames: t in s; tau in N m/);
    // commander wraps option texts to the width of the longest option: compare with whitespace folded
    expect(est.out.replace(/\s+/g, ' ')).toMatch(/"-" reads standard input/);
  });
});

describe('model warnings', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sparsedyn-warn-'));
  const urdf = join(dir, 'mimic.urdf');
  const link = (n: string) => `  <link name="${n}"><inertial><mass value="1"/><inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial></link>`;
  writeFileSync(urdf, [
    '<robot name="gripper">', link('base'), link('finger_a'), link('finger_b'),
    '  <joint name="a" type="revolute"><parent link="base"/><child link="finger_a"/><axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>',
    '  <joint name="b" type="revolute"><parent link="finger_a"/><child link="finger_b"/><axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/>',
    '    <mimic joint="a" multiplier="-1"/>',
    '  </joint>',
    '</robot>',
  ].join('\n'));

  it('are printed once on stderr by each command that loads a model, carried in --json, silenced by --quiet', async () => {
    const runs = [
      ['flops', '--model', urdf, '--json'],
      ['minv', '--model', urdf, '--random-state', '1', '--json'],
      ['derivatives', '--model', urdf, '--random-state', '1', '--problem', 'id', '--json'],
    ];
    for (const args of runs) {
      const r = await run(args);
      expect(r.code, args[0]).toBe(0);
      const lines = r.err.trim().split('\n');
      expect(lines, args[0]).toHaveLength(1);
      expect(lines[0]).toMatch(/^warning: .*mimic\.urdf:6: .*joint "b".*mimic/);
      const j = JSON.parse(r.out);
      expect(j.warnings).toEqual([{ code: 'mimic-ignored', element: expect.stringContaining('b'), file: urdf, line: 6, message: lines[0].slice('warning: '.length) }]);
      const q = await run([...args, '--quiet']);
      expect(q.err).toBe('');
      expect(JSON.parse(q.out).warnings).toHaveLength(1);
    }
    const text = await run(['flops', '--model', urdf]);
    expect(text.err).toMatch(/^warning: .*mimic/);
    expect(text.out).not.toMatch(/warning/);
  });

  it('estimate and analyze print them once and put them in the report', async () => {
    const problem = join(dir, 'p.json');
    writeFileSync(problem, JSON.stringify({ model: 'mimic.urdf', base: 'fixed', contacts: [], sensors: [{ name: 'qdd', type: 'joint_acceleration', joints: 'all' }, { name: 'tau', type: 'joint_torque', joints: 'all', variance: 0.1 }] }));
    const a = await run(['analyze', problem, '--json']);
    expect(a.err.match(/warning: /g)).toHaveLength(1);
    expect(JSON.parse(a.out).warnings[0].code).toBe('mimic-ignored');
    const log = join(dir, 'log.ndjson');
    writeFileSync(log, JSON.stringify({ t: 0, q: { a: 0.1, b: 0.2 }, v: { a: 0, b: 0 }, sensors: { qdd: [0, 0], tau: [0.1, 0.2] } }) + '\n');
    const e = await run(['estimate', problem, '--data', log, '--out', join(dir, 'est.ndjson')]);
    expect(e.code).toBe(0);
    expect(e.err.match(/warning: .*mimic/g)).toHaveLength(1);
    const { readFileSync } = await import('node:fs');
    expect(readFileSync(join(dir, 'est.ndjson.report.md'), 'utf8')).toMatch(/## Warnings\n\n- .*mimic/);
  });
});
