/** The `minv` and `iwim` commands end to end through main(): JSON fields, methods agreeing, errors named. */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli as run } from './run.ts';
import { loadUrdf } from '../../src/node/urdf-file.ts';
import { configurationFromReference, matrixToReference, parseReference, referenceLayout } from '../../src/verify/reference.ts';
import { expectClose } from '../helpers.ts';
import { describeShared, shared } from '../shared.ts';


const dir = mkdtempSync(join(tmpdir(), 'sparsedyn-minv-'));
const file = (name: string, content: unknown) => {
  const f = join(dir, name);
  writeFileSync(f, typeof content === 'string' ? content : JSON.stringify(content));
  return f;
};

describeShared('sparsedyn minv against the reference M⁻¹ of a real robot', () => {
  const talos = shared('models/talos_reduced.urdf');
  let ref: ReturnType<typeof parseReference>, layout: ReturnType<typeof referenceLayout>, stateFile: string;
  beforeAll(() => {
    ref = parseReference(readFileSync(shared('reference/talos_reduced.floating.json'), 'utf8'));
    const model = loadUrdf(talos, { floatingBase: true, gravity: ref.gravity });
    layout = referenceLayout(model, ref);
    const q = configurationFromReference(new Float64Array(model.nq), ref.cases[1].q, layout);
    stateFile = file('talos.json', { q: Array.from(q) });
  });

  for (const method of ['carpentier', 'carpentier-world', 'lu', 'cholesky']) {
    it(`--method ${method} --json matches the reference Minv of talos (floating)`, async () => {
      const r = await run(['minv', '--model', `${talos}+floating`, '--state', stateFile, '--method', method, '--json']);
      // the model's warnings (its mimic joints) on stderr, once each, and in the JSON
      const lines = r.err.trim().split('\n');
      expect(lines.length).toBeGreaterThan(0);
      expect(lines.every((l) => l.startsWith(`warning: ${talos}:`))).toBe(true);
      expect(new Set(lines).size).toBe(lines.length);
      expect(r.code).toBe(0);
      const j = JSON.parse(r.out);
      expect(j.warnings.map((w: { message: string }) => `warning: ${w.message}`)).toEqual(lines);
      // talos: twelve ignored <mimic> joints and two links whose CAD moments break the triangle inequality (harmless once merged)
      expect(j.warnings.map((w: { code: string }) => w.code).sort()).toEqual([...Array(2).fill('link-inertia-triangle-inequality'), ...Array(12).fill('mimic-ignored')]);
      expect(j.warnings.every((w: { file: string; line: number }) => w.file === talos && w.line > 0)).toBe(true);
      expect(j.nv).toBe(38);
      expect(j.method).toBe(method);
      expect(j.dofs[0]).toBe('root_joint[0]');
      expect(Number.isInteger(j.flops.total) && j.flops.total > 0).toBe(true);
      const out = matrixToReference(new Float64Array(38 * 38), Float64Array.from(j.Minv.flat()), layout.vToRef);
      expectClose(out, ref.cases[1].Minv.flat(), 1e-9, `${method} Minv`, 0);
      if (method === 'lu') expect(Object.keys(j.parts)).toEqual(['kinematics', 'fill', 'factor', 'solve']);
    });
  }
});

describe('sparsedyn minv', () => {

  it('prints flops and the labelled matrix as text, with a random state', async () => {
    const r = await run(['minv', '--model', 'chain:4', '--random-state', '3']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^minv: model "chain:4" \(4 bodies, nv = 4\), method carpentier, random state, seed 3/);
    expect(r.out).toMatch(/flops: [\d,]+ \(mul/);
    expect(r.out).toMatch(/\njoint4 /);
  });

  it('errors: state source, bad state file, bad method', async () => {
    let r = await run(['minv', '--model', 'chain:4']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/give exactly one of --state FILE and --random-state SEED/);
    r = await run(['minv', '--model', 'chain:4', '--state', file('short.json', { q: [0, 1] })]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/short.json: "q" has 2 entries, expected model.nq = 4 \(joint order: joint1, joint2, joint3, joint4\)/);
    r = await run(['minv', '--model', 'chain:2+floating', '--state', file('quat.json', { q: [0, 0, 0, 0, 0, 0, 2, 0, 0] })]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/quat.json: q: the quaternion of joint "root_joint"/);
    r = await run(['minv', '--model', 'chain:4', '--state', file('bad.json', '{')]);
    expect(r.err).toMatch(/bad.json:1:2: not valid JSON: "}" expected, found the end of the file\n$/);
    r = await run(['minv', '--model', 'chain:4', '--state', file('token.json', '{\n  "q": [0, 0, .5, 0]\n}')]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/token.json:2:15: not valid JSON: unexpected "\.5"\n$/);
    r = await run(['derivatives', '--model', 'chain:4', '--problem', 'id', '--state', file('comma.json', '{"q": [0, 0, 0, 0], "a": [1, 2, 3, 4,]}')]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/comma.json:1:38: not valid JSON: trailing comma before "\]"\n$/);
    r = await run(['minv', '--model', 'chain:4', '--random-state', '1', '--method', 'qr']);
    expect(r.code).not.toBe(0);
    expect(r.err).toMatch(/Allowed choices are carpentier, carpentier-world, lu, cholesky/);
  });
});

describe('sparsedyn iwim', () => {
  const inputs = file('inputs.json', {
    actuated: 'all',
    contacts: [
      { link: 'l_sole', offset: [0.1, 0.065, 0], type: 'force' },
      { link: 'r_sole', offset: [-0.1, -0.065, 0], type: 'wrench', frame: 'local' },
    ],
  });

  it('an inputs file with a JSON syntax error is named with its line and column', async () => {
    const r = await run(['iwim', '--model', 'chain:4', '--random-state', '1', '--inputs', file('inputs-bad.json', '{\n  "actuated": all\n}')]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/inputs-bad.json:2:15: not valid JSON: unexpected "all"\n$/);
  });

  it('the three methods agree (JSON), with 29 torques + 9 contact components', async () => {
    const res: Record<string, { Bhat: number[][]; qdd0: number[]; inputs: string[]; m: number; flops: { total: number } }> = {};
    for (const method of ['unit-force', 'iim', 'lu']) {
      // --quiet (before or after the command) is accepted; the humanoid has no warnings to print or carry
      const args = ['iwim', '--model', 'models/humanoid.urdf+floating', '--inputs', inputs, '--random-state', '5', '--method', method, '--json'];
      const r = await run(method === 'lu' ? ['--quiet', ...args] : [...args, '-q']);
      expect(r.err).toBe('');
      expect(r.code).toBe(0);
      res[method] = JSON.parse(r.out);
      expect(res[method]).toHaveProperty('warnings', []);
    }
    expect(res.iim.m).toBe(38);
    expect(res.iim.inputs.slice(29, 32)).toEqual(['l_sole.fx', 'l_sole.fy', 'l_sole.fz']);
    expectClose(res['unit-force'].Bhat.flat(), res.iim.Bhat.flat(), 1e-9, 'eUFM vs IIM', 0);
    expectClose(res.lu.Bhat.flat(), res.iim.Bhat.flat(), 1e-9, 'LU vs IIM', 0);
    expectClose(res.lu.qdd0, res.iim.qdd0, 1e-9, 'q̈_0', 0);
    expect(res['unit-force'].flops.total).toBeGreaterThan(res.iim.flops.total);
  });

  it('names an unknown joint, an unknown link and a contact on the fixed world', async () => {
    let r = await run(['iwim', '--model', 'models/chain6.urdf', '--inputs', file('j.json', { actuated: ['elbow', 'joint1'] }), '--random-state', '1']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^sparsedyn: inputs: actuated joint "elbow" is not a joint of model "chain:6"/);
    r = await run(['iwim', '--model', 'models/chain6.urdf', '--inputs', file('l.json', { actuated: [], contacts: [{ link: 'gripper', type: 'force' }] }), '--random-state', '1']);
    expect(r.err).toMatch(/contact link "gripper" is not a link of model "chain:6"/);
    r = await run(['iwim', '--model', 'models/chain6.urdf', '--inputs', file('w.json', { actuated: [], contacts: [{ link: 'base', type: 'force' }] }), '--random-state', '1']);
    expect(r.err).toMatch(/contact link "base" is welded to the fixed world/);
    r = await run(['iwim', '--model', 'chain:3', '--inputs', file('x.json', { actuated: 'all', extra: 1 }), '--random-state', '1']);
    expect(r.err).toMatch(/x.json: unknown field "extra"/);
  });
});
