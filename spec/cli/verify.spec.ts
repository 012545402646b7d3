/** The `verify` command end to end (exit codes, JSON fields), through main(). */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { runCli as run } from './run.ts';
import { describeShared, shared } from '../shared.ts';


describeShared('sparsedyn verify on real robots and their reference files', () => {
  it('--json prints the documented fields and exits 0', async () => {
    const r = await run(['verify', '--model', shared('models/solo12.urdf'), '--reference', shared('reference/solo12.floating.json'), '--json']);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    expect(j.cases).toBe(4);
    for (const k of ['rnea_tau', 'aba_ddq', 'M', 'Minv', 'nle', 'gravity_torque']) expect(j.max_rel_error[k]).toBeLessThan(1e-10);
  });

  it('exits 1 and names the worst case when a value is off', async () => {
    const d = JSON.parse(readFileSync(shared('reference/ur5_robot.fixed.json'), 'utf8'));
    d.cases[2].aba_ddq[0] *= 1.001;
    const dir = mkdtempSync(join(tmpdir(), 'sparsedyn-'));
    const f = join(dir, 'bad.json');
    writeFileSync(f, JSON.stringify(d));
    const r = await run(['verify', '--model', shared('models/ur5_robot.urdf'), '--reference', f]);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/FAIL aba_ddq/);
    expect(r.out).toMatch(/aba_ddq: case 2 has relative error/);
  });

  it('finds the model from the reference\'s model_file when --model is omitted', async () => {
    const r = await run(['verify', '--reference', shared('reference/panda.fixed.json')]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/all quantities within tolerance/);
  });

  it('reports a bad URDF path clearly', async () => {
    const r = await run(['verify', '--model', 'models/nope.urdf', '--reference', shared('reference/panda.fixed.json')]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^sparsedyn: .*models\/nope.urdf/);
  });
});
