/**
 * The URDF writer: the generators written out and loaded back give the same model and the same
 * dynamics (RNEA, CRBA) to round-off; rpy extraction inverts URDF's Rz Ry Rx, gimbal lock included;
 * joints URDF cannot express are refused by name.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { crba, CrbaWorkspace } from '../../src/algorithms/crba.ts';
import { rnea, RneaWorkspace } from '../../src/algorithms/rnea.ts';
import { buildModel, type ModelSpec } from '../../src/model/build.ts';
import { chainSpec, humanoidSpec, randomTreeSpec } from '../../src/model/generators.ts';
import type { Model } from '../../src/model/model.ts';
import { randomConfiguration } from '../../src/model/random.ts';
import { Rng } from '../../src/model/rng.ts';
import { modelFromUrdf } from '../../src/model/urdf.ts';
import { rpyFromRot, urdfFromSpec, UrdfWriteError } from '../../src/model/urdf-writer.ts';
import { rotFromRpy } from '../../src/spatial/vec3.ts';
import { modelFromSpec } from '../../src/model/spec.ts';
import { runCli } from '../cli/run.ts';
import { expectClose } from '../helpers.ts';

function dynamics(model: Model, seed: number): { tau: Float64Array; M: Float64Array } {
  const rng = new Rng(seed);
  const q = randomConfiguration(model, rng);
  const v = Float64Array.from({ length: model.nv }, () => rng.uniform(-1, 1));
  const a = Float64Array.from({ length: model.nv }, () => rng.uniform(-1, 1));
  const tau = rnea(model, new RneaWorkspace(model), q, v, a).slice();
  const M = crba(model, new CrbaWorkspace(model), q).slice();
  return { tau, M };
}

const cases: [string, ModelSpec, boolean][] = [
  ['humanoid, floating', humanoidSpec(), true],
  ['chain of 12, random axes', chainSpec(12, { axes: 'random', seed: 3 }), false],
  ['prismatic chain of 5', chainSpec(5, { jointType: 'prismatic' }), true],
  ['random tree of revolute and prismatic joints', randomTreeSpec(30, 4, { mix: { revolute: 1, revoluteGeneral: 1, prismatic: 1, helical: 0, spherical: 0 } }), true],
];

describe('URDF writer round trip', () => {
  for (const [label, spec, floating] of cases) {
    it(`${label}: same bodies, joints and dynamics after writing and loading`, () => {
      // a URDF reader orders the joints by name (urdfdom's map), so compare with that order
      const byName = [...spec.joints].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      const original = buildModel({ ...spec, joints: byName }, { floatingBase: floating });
      const again = modelFromUrdf(urdfFromSpec(spec), { floatingBase: floating });
      expect(again.bodyNames).toEqual(original.bodyNames);
      expect(again.jointNames).toEqual(original.jointNames);
      expect(again.jointTypes).toEqual(original.jointTypes);
      expect(Array.from(again.parents)).toEqual(Array.from(original.parents));
      expect(again.frames.map((f) => f.name).sort()).toEqual(original.frames.map((f) => f.name).sort());
      for (let i = 0; i < original.nb; i++) {
        expectClose(again.Xtree[i], original.Xtree[i], 1e-15, `Xtree[${i}]`);
        expectClose(again.I[i], original.I[i], 1e-14, `I[${i}]`);
      }
      for (const seed of [1, 2]) {
        const a = dynamics(original, seed), b = dynamics(again, seed);
        expectClose(b.tau, a.tau, 1e-13, 'RNEA τ');
        expectClose(b.M, a.M, 1e-13, 'CRBA M');
      }
    });
  }

  it('writes numbers that read back to the same doubles', () => {
    const spec = chainSpec(3, { axes: 'random', seed: 9 });
    const text = urdfFromSpec(spec);
    const axis = /<axis xyz="([^"]+)"/.exec(text)![1].split(' ').map(Number);
    expect(axis).toEqual(Array.from(spec.joints[0].axis!));
    expect(text).not.toMatch(/NaN|Infinity|"-0"/);
  });

  it('refuses joints that URDF cannot express, naming them', () => {
    const spec = randomTreeSpec(10, 1, { mix: { revolute: 0, revoluteGeneral: 0, prismatic: 0, helical: 0, spherical: 1 } });
    expect(() => urdfFromSpec(spec)).toThrow(UrdfWriteError);
    expect(() => urdfFromSpec(spec)).toThrow(/joint "j1" is spherical: URDF has no spherical joint/);
  });
});

describe('rpyFromRot', () => {
  it('inverts R = Rz(y) Ry(p) Rx(r), including at gimbal lock', () => {
    const rng = new Rng(5);
    const R = new Float64Array(9), R2 = new Float64Array(9);
    const angles: number[][] = [[0.3, Math.PI / 2, -1.1], [0.3, -Math.PI / 2, 0.4], [0, 0, 0]];
    for (let k = 0; k < 50; k++) angles.push([rng.uniform(-3, 3), rng.uniform(-1.5, 1.5), rng.uniform(-3, 3)]);
    for (const [r, p, y] of angles) {
      rotFromRpy(R, r, p, y);
      const [r2, p2, y2] = rpyFromRot(R);
      rotFromRpy(R2, r2, p2, y2);
      expectClose(R2, R, 1e-14, `rotation of rpy (${r}, ${p}, ${y})`);
    }
  });
});

describe('sparsedyn urdf', () => {
  it('writes the humanoid to standard output', async () => {
    const { code, out } = await runCli(['urdf', '--model', 'humanoid']);
    expect(code).toBe(0);
    expect(out).toMatch(/^<\?xml version="1.0"\?>\n<!-- written by sparsedyn urdf from the model humanoid -->\n<robot name="humanoid">/);
    expect(modelFromUrdf(out, { floatingBase: true }).nv).toBe(35);
  });

  it('a URDF file normalised: its warnings on stderr (once; --quiet silences them), its continuous joints, limits and <mimic> kept', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sparsedyn-urdfw-'));
    const file = join(dir, 'm.urdf');
    const inertial = '<inertial><mass value="1"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial>';
    writeFileSync(file, `<?xml version="1.0"?>\n<robot name="m">\n<link name="base">${inertial}</link>\n<link name="a">${inertial}</link>\n<link name="b">${inertial}</link>\n`
      + '<joint name="j" type="revolute"><parent link="base"/><child link="a"/><axis xyz="0 0 1"/><limit lower="-1.5" upper="2" effort="30" velocity="4"/></joint>\n'
      + '<joint name="k" type="continuous"><parent link="a"/><child link="b"/><origin xyz="0 0 0.3"/><axis xyz="0 1 0"/><mimic joint="j" multiplier="2" offset="0.1"/></joint>\n</robot>\n');
    const r = await runCli(['urdf', '--model', file]);
    expect(r.code).toBe(0);
    expect(r.err).toBe(`warning: ${file}:7: joint "k" mimics joint "j": <mimic> is ignored, "k" is modelled as an independent joint\n`);
    expect(r.out).toContain('<limit lower="-1.5" upper="2" effort="30" velocity="4"/>');
    expect(r.out).toContain('<joint name="k" type="continuous">');
    expect(r.out).toContain('<mimic joint="j" multiplier="2" offset="0.1"/>');
    const again = modelFromUrdf(r.out, { file: 'again.urdf' });
    expect(again.warnings.map((w) => w.code)).toEqual(['mimic-ignored']);
    expect((await runCli(['urdf', '--model', file, '--quiet'])).err).toBe('');
  });

  it('refuses a random tree with spherical joints with exit code 2, the joints named and the spec that URDF can hold', async () => {
    const { code, err } = await runCli(['urdf', '--model', 'tree:10:1']);
    expect(code).toBe(2);
    expect(err).toMatch(/^sparsedyn: tree:10:1: URDF has no helical or spherical joint, and this model has \d+ \("j\d+" (spherical|helical)/);
    expect(err).toContain('tree:10:1:joints=urdf is a random tree of revolute and prismatic joints only');
    expect(err).not.toMatch(/Error\b/);
  });

  it('tree:5:SEED:joints=urdf, for seeds 1 to 8: written, and loaded back as the same dynamics', async () => {
    for (let seed = 1; seed <= 8; seed++) {
      const spec = `tree:5:${seed}:joints=urdf`;
      const r = await runCli(['urdf', '--model', spec]);
      expect(r.code, r.err).toBe(0);
      const generated = modelFromSpec(spec);
      expect(generated.jointTypes.every((t) => t === 'revolute' || t === 'prismatic' || t === 'fixed')).toBe(true);
      expect(generated.name).toBe(spec);
      const back = modelFromUrdf(r.out, { file: `${seed}.urdf` });
      expect(back.nv).toBe(generated.nv);
      const q = new Float64Array(back.nq).fill(0.3), v = new Float64Array(back.nv).fill(-0.2), a = new Float64Array(back.nv).fill(0.5);
      const t1 = Float64Array.from(rnea(generated, new RneaWorkspace(generated), q, v, a));
      const t2 = Float64Array.from(rnea(back, new RneaWorkspace(back), q, v, a));
      for (let k = 0; k < t1.length; k++) expect(Math.abs(t1[k] - t2[k])).toBeLessThan(1e-9 * (1 + Math.abs(t1[k])));
    }
  });
});
