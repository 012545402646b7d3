/**
 * Every reference file of the shared folder (computed by an independent C++ implementation) through
 * verify's code path: our RNEA, ABA, CRBA and M⁻¹ must agree to round-off.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { expect, it } from 'vitest';
import { loadUrdf } from '../../src/node/urdf-file.ts';
import { modelFromUrdf } from '../../src/model/urdf.ts';
import { parseReference, ReferenceFormatError } from '../../src/verify/reference.ts';
import { findModelFile, referenceFiles } from '../../src/node/reference-file.ts';
import { verifyReference } from '../../src/verify/verify.ts';
import { describeShared, shared } from '../shared.ts';

const fixture = (f: string) => shared('reference', f);
// every reference file of ../shared/reference (none when it is not there: the group is skipped)
const FOLDERS = [shared('reference')];
const FILES = [...referenceFiles(FOLDERS, '.fixed.json'), ...referenceFiles(FOLDERS, '.floating.json')];

describeShared('verify against the reference files', () => {
  it('finds the reference files of the five robots', () => {
    const names = FILES.map((f) => basename(f));
    for (const robot of ['ur5_robot', 'panda', 'solo12', 'simple_humanoid', 'talos_reduced']) {
      for (const base of ['fixed', 'floating']) expect(names).toContain(`${robot}.${base}.json`);
    }
  });

  for (const file of FILES) {
    it(basename(file), () => {
      const ref = parseReference(readFileSync(file, 'utf8'), file);
      const model = loadUrdf(findModelFile(file, ref.model_file), { floatingBase: ref.base === 'floating', gravity: ref.gravity });
      const r = verifyReference(model, ref, { file });
      const conditioned = new Set(['Minv', 'aba_ddq', 'lu_fd', 'minv', 'minv_lu']);
      for (const q of r.quantities) {
        expect(q.pass, `${q.name}: ${q.maxRelError} > ${q.tolerance}`).toBe(true);
        // far inside the tolerance: these are round-off agreements
        expect(q.maxRelError, q.name).toBeLessThan(conditioned.has(q.name) ? 1e-11 : 1e-13);
      }
      expect(r.quantities.map((q) => q.name)).toEqual(['rnea_tau', 'aba_ddq', 'M', 'Minv', 'nle', 'gravity_torque', 'lu_id', 'lu_fd', 'minv', 'minv_lu']);
    });
  }

  it('fails, naming the case, when the reference disagrees', () => {
    const ref = parseReference(readFileSync(fixture('ur5_robot.fixed.json'), 'utf8'));
    ref.cases[3].rnea_tau[2] += 1e-6;
    const model = loadUrdf(shared('models/ur5_robot.urdf'), { gravity: ref.gravity });
    const r = verifyReference(model, ref);
    expect(r.pass).toBe(false);
    const q = r.quantities.find((x) => x.name === 'rnea_tau')!;
    expect(q.pass).toBe(false);
    expect(q.firstFailure?.case).toBe(3);
    expect(r.quantities.filter((x) => !x.pass).map((x) => x.name)).toEqual(['rnea_tau', 'lu_id']);
  });

  it('maps Pinocchio unbounded (continuous) joints stored as (cos θ, sin θ)', () => {
    const ref = parseReference(readFileSync(fixture('ur5_robot.fixed.json'), 'utf8'));
    // make the elbow continuous: URDF type and reference layout (nq 2, q = [cos, sin])
    const urdf = readFileSync(shared('models/ur5_robot.urdf'), 'utf8').replace(/(<joint name="elbow_joint" type=")revolute/, '$1continuous');
    const k = ref.joints.findIndex((j) => j.name === 'elbow_joint');
    const iq = ref.joints[k].idx_q;
    ref.joints[k] = { ...ref.joints[k], type: 'JointModelRUBY', nq: 2 };
    for (const j of ref.joints.slice(k + 1)) j.idx_q += 1;
    ref.nq += 1;
    for (const c of ref.cases) c.q.splice(iq, 1, Math.cos(c.q[iq]), Math.sin(c.q[iq]));
    const model = modelFromUrdf(urdf, { gravity: ref.gravity });
    const r = verifyReference(model, ref);
    expect(r.pass).toBe(true);
  });

  it('rejects a malformed reference, naming the field', () => {
    const text = readFileSync(fixture('panda.fixed.json'), 'utf8');
    const d = JSON.parse(text);
    d.cases[2].M = d.cases[2].M.slice(1);
    expect(() => parseReference(JSON.stringify(d), 'x.json')).toThrow(ReferenceFormatError);
    expect(() => parseReference(JSON.stringify(d), 'x.json')).toThrow('x.json: cases[2].M must be 9×9 finite numbers');
    expect(() => parseReference('{', 'y.json')).toThrow(/y.json:1:2: not valid JSON/);
    expect(() => parseReference('{\n  "nq": 1,\n  "nv": 1,\n  "gravity": [0, 0, -9.81,]\n}', 'z.json')).toThrow('z.json:4:27: not valid JSON: trailing comma before "]"');
  });

  it('names a joint missing from the model', () => {
    const ref = parseReference(readFileSync(fixture('ur5_robot.fixed.json'), 'utf8'));
    ref.joints[1].name = 'no_such_joint';
    const model = loadUrdf(shared('models/ur5_robot.urdf'));
    expect(() => verifyReference(model, ref, { file: 'r.json' })).toThrow('r.json: joint "no_such_joint" is not a joint of model "ur5"');
  });
});
