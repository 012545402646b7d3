/**
 * URDF loader: every UrdfError case names the element (and the line), the real robots of the shared
 * folder load with the reference files' joint names, order, sizes and total mass (Pinocchio 3.7 values).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { JT_FLOATING } from '../../src/model/joint.ts';
import { loadUrdf, readUrdf } from '../../src/node/urdf-file.ts';
import { buildUrdf, modelFromUrdf, parseUrdf, UrdfError } from '../../src/model/urdf.ts';
import { rotFromRpy } from '../../src/spatial/vec3.ts';
import { describeShared, shared } from '../shared.ts';

const MODELS = shared('models');
const REFS = shared('reference');
const ROBOTS = ['panda', 'simple_humanoid', 'solo12', 'talos_reduced', 'ur5_robot'];

const inertial = (m = 1, extra = '') =>
  `<inertial>${extra}<mass value="${m}"/><inertia ixx="0.01" ixy="0" ixz="0" iyy="0.02" iyz="0" izz="0.03"/></inertial>`;
const link = (name: string, body = inertial()) => `  <link name="${name}">${body}</link>`;
// revolute and prismatic joints get the <limit> urdfdom requires (on the body's line), unless the body has one
const joint = (name: string, parent: string, child: string, type = 'revolute', body = '<axis xyz="0 0 1"/>') =>
  `  <joint name="${name}" type="${type}">\n    <parent link="${parent}"/>\n    <child link="${child}"/>\n    ${body}${(type === 'revolute' || type === 'prismatic') && !body.includes('<limit') ? '<limit effort="1" velocity="1"/>' : ''}\n  </joint>`;
const robot = (...lines: string[]) => `<?xml version="1.0"?>\n<robot name="t">\n${lines.join('\n')}\n</robot>\n`;

/** 1-based line of the first occurrence of `needle` in `text` (after `from`, if given). */
function lineOf(text: string, needle: string, from?: string): number {
  const start = from ? text.indexOf(from) : 0;
  const k = text.indexOf(needle, start);
  if (k < 0) throw new Error(`test bug: "${needle}" not in text`);
  return text.slice(0, k).split('\n').length;
}

/** The UrdfError thrown by `f`, checked to be one. */
function urdfError(f: () => unknown): UrdfError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(UrdfError);
    expect((e as Error).name).toBe('UrdfError');
    return e as UrdfError;
  }
  throw new Error('expected a UrdfError, nothing was thrown');
}

/** Parse + build `text` as file "t.urdf"; expect a UrdfError naming `element` at `line`. */
function expectUrdfError(text: string, element: string, line: number | undefined, detail: RegExp): UrdfError {
  const e = urdfError(() => modelFromUrdf(text, { file: 't.urdf' }));
  expect(e.message).toContain(element);
  expect(e.message).toMatch(detail);
  expect(e.file).toBe('t.urdf');
  if (line !== undefined) {
    expect(e.line).toBe(line);
    expect(e.message).toContain(`t.urdf:${line}: `);
  }
  return e;
}

describe('UrdfError cases', () => {
  it('malformed XML: the parser line, and the file', () => {
    const text = '<robot name="t">\n  <link name="a">\n</robot>\n';
    const e = urdfError(() => parseUrdf(text, { file: 'bad.urdf' }));
    expect(e.message).toMatch(/^bad\.urdf:3: malformed XML: .*link/);
    expect(e.line).toBe(3);
    const e2 = urdfError(() => parseUrdf('<robot name="t"><link name="a"></robot>'));
    expect(e2.message).toMatch(/^line 1: malformed XML/);
  });

  it('no <robot> element, a robot without name, a robot without links', () => {
    expect(urdfError(() => parseUrdf('<model name="x"/>')).message).toMatch(/no <robot> element/);
    expect(urdfError(() => parseUrdf('<robot>\n<link name="a"/></robot>')).message).toMatch(/<robot> is missing required attribute name/);
    expect(urdfError(() => parseUrdf('<robot name="r">\n</robot>')).message).toMatch(/robot "r" has no <link>/);
  });

  it('missing parent link and missing child link name the joint, its line and the link', () => {
    const t1 = robot(link('a'), link('b'), joint('knee', 'thigh', 'b'));
    expectUrdfError(t1, 'joint "knee"', lineOf(t1, '<joint name="knee"'), /parent link "thigh" does not exist/);
    const t2 = robot(link('a'), link('b'), joint('j0', 'a', 'b'), joint('ankle', 'b', 'foot'));
    expectUrdfError(t2, 'joint "ankle"', lineOf(t2, '<joint name="ankle"'), /child link "foot" does not exist/);
  });

  it('a cycle names a joint on it, with its line', () => {
    // the root "a" exists; b and c form a loop of their own
    const t = robot(link('a'), link('b'), link('c'), joint('jbc', 'b', 'c'), joint('jcb', 'c', 'b'));
    const e = urdfError(() => modelFromUrdf(t, { file: 't.urdf' }));
    expect(e.message).toMatch(/joint "(jbc|jcb)" closes a cycle/);
    const name = /joint "(\w+)"/.exec(e.message)![1];
    expect(e.line).toBe(lineOf(t, `<joint name="${name}"`));
    // every link has a parent: no root at all
    const t2 = robot(link('a'), link('b'), joint('jab', 'a', 'b'), joint('jba', 'b', 'a'));
    expectUrdfError(t2, 'joint "jab"', lineOf(t2, '<joint name="jab"'), /cycle/);
  });

  it('two roots name the second root link and its line', () => {
    const t = robot(link('a'), link('b'), link('stray'), joint('j', 'a', 'b'));
    expectUrdfError(t, 'link "stray"', lineOf(t, '<link name="stray"'), /more than one root link/);
  });

  it('a link with two parent joints (kinematic loop)', () => {
    const t = robot(link('a'), link('b'), link('c'), joint('j1', 'a', 'c'), joint('j2', 'b', 'c'), joint('j0', 'a', 'b'));
    expectUrdfError(t, 'link "c"', lineOf(t, '<joint name="j2"'), /child of two joints/);
  });

  it('duplicate link and joint names', () => {
    const t = robot(link('a'), link('b'), link('a', ''), joint('j', 'a', 'b'));
    expectUrdfError(t, 'link "a"', lineOf(t, '<link name="a"', '<link name="b"'), /defined twice/);
    const t2 = robot(link('a'), link('b'), link('c'), joint('j', 'a', 'b'), joint('j', 'b', 'c'));
    expectUrdfError(t2, 'joint "j"', lineOf(t2, '<joint name="j"', '<child link="b"'), /defined twice/);
  });

  it('unknown joint type names the joint (planar is supported: spec/model/planar.spec.ts)', () => {
    const t = robot(link('a'), link('b'), joint('hip', 'a', 'b', 'ball'));
    expectUrdfError(t, 'joint "hip"', lineOf(t, '<joint name="hip"'), /unknown joint type "ball"/);
  });

  it('mass 0 with a zero tensor is a massless placeholder; a zero tensor with mass is a point mass', () => {
    const zero = (m: number) => `<inertial><mass value="${m}"/><inertia ixx="0" ixy="0" ixz="0" iyy="0" iyz="0" izz="0"/></inertial>`;
    const t = robot(link('base'), link('tool', zero(0)), link('tip', zero(0.5)), joint('j', 'base', 'tool'), joint('k', 'tool', 'tip', 'fixed', '<origin xyz="0.1 0 0"/>'));
    const spec = parseUrdf(t);
    expect(Array.from(spec.links.find((l) => l.name === 'tool')!.inertia!)).toEqual(new Array(10).fill(0));
    const m = modelFromUrdf(t);
    expect(m.totalMass()).toBe(0.5);
    // a point mass off the joint axis: physically valid, no warning
    expect(m.warnings).toEqual([]);
  });

  it('tiny but valid inertias (1e-9) load', () => {
    const tiny = '<inertial><mass value="0.001"/><inertia ixx="1e-9" ixy="1e-12" ixz="0" iyy="2e-9" iyz="0" izz="2.5e-9"/></inertial>';
    const m = modelFromUrdf(robot(link('base'), link('screw', tiny), joint('j', 'base', 'screw')));
    expect(m.I[0][0]).toBe(0.001);
  });

  it('a zero axis names the joint and the <axis> line', () => {
    const t = robot(link('a'), link('b'), joint('wrist', 'a', 'b', 'revolute', '\n    <axis xyz="0 0 0"/>'));
    expectUrdfError(t, 'joint "wrist"', lineOf(t, '<axis xyz="0 0 0"'), /zero axis/);
  });

  it('missing required attributes and elements name the element', () => {
    const noType = robot(link('a'), link('b'), '  <joint name="j">\n<parent link="a"/><child link="b"/></joint>');
    expectUrdfError(noType, 'joint "j"', lineOf(noType, '<joint name="j"'), /missing required attribute type/);
    const noName = robot(link('a'), '  <link>\n  </link>');
    expectUrdfError(noName, '<link>', lineOf(noName, '<link>'), /missing required attribute name/);
    const noJointName = robot(link('a'), link('b'), '  <joint type="fixed"><parent link="a"/><child link="b"/></joint>');
    expectUrdfError(noJointName, '<joint>', lineOf(noJointName, '<joint type'), /missing required attribute name/);
    const noParent = robot(link('a'), link('b'), '  <joint name="j" type="fixed">\n    <child link="b"/>\n  </joint>');
    expectUrdfError(noParent, 'joint "j"', lineOf(noParent, '<joint name="j"'), /missing required <parent> element/);
    const noLinkAttr = robot(link('a'), link('b'), '  <joint name="j" type="fixed">\n    <parent name="a"/>\n    <child link="b"/>\n  </joint>');
    expectUrdfError(noLinkAttr, 'joint "j"', lineOf(noLinkAttr, '<parent name="a"'), /<parent> is missing required attribute link/);
    const noMassValue = robot('  <link name="a">\n<inertial>\n<mass kg="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>');
    expectUrdfError(noMassValue, 'link "a"', lineOf(noMassValue, '<mass kg'), /<mass> is missing required attribute value/);
    const noIzz = robot('  <link name="a">\n<inertial><mass value="1"/>\n<inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0"/></inertial></link>');
    expectUrdfError(noIzz, 'link "a"', lineOf(noIzz, '<inertia ixx'), /<inertia> is missing required attribute izz/);
    const noMass = robot('  <link name="a">\n<inertial><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>');
    expectUrdfError(noMass, 'link "a"', lineOf(noMass, '<link name="a"'), /missing required <mass> element/);
    const noAxisXyz = robot(link('a'), link('b'), joint('j', 'a', 'b', 'revolute', '\n    <axis/>'));
    expectUrdfError(noAxisXyz, 'joint "j"', lineOf(noAxisXyz, '<axis/>'), /<axis> is missing required attribute xyz/);
  });

  it('non-numeric values and wrong counts name the element, attribute and token', () => {
    const t = robot(link('a'), link('b'), joint('elbow', 'a', 'b', 'revolute', '\n    <origin xyz="0 abc 0.1"/>'));
    expectUrdfError(t, 'joint "elbow"', lineOf(t, '<origin xyz="0 abc'), /<origin xyz="0 abc 0.1">: "abc" is not a number/);
    const t2 = robot(link('a', '<inertial><mass value="heavy"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial>'));
    expectUrdfError(t2, 'link "a"', lineOf(t2, '<link name="a"'), /"heavy" is not a number/);
    const t3 = robot(link('a'), link('b'), joint('j', 'a', 'b', 'revolute', '<axis xyz="0 1"/>'));
    expectUrdfError(t3, 'joint "j"', lineOf(t3, '<axis xyz="0 1"'), /needs 3 numbers, got 2/);
    const t4 = robot(link('a'), link('b'), joint('j', 'a', 'b', 'revolute', '<axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="NaN" velocity="1"/>'));
    expectUrdfError(t4, 'joint "j"', lineOf(t4, '<limit'), /"NaN" is not a number/);
    const t5 = robot(link('a'), link('b'), joint('j', 'a', 'b', 'revolute', '<origin rpy="0 0 1e400"/>'));
    expectUrdfError(t5, 'joint "j"', lineOf(t5, '<origin rpy'), /<origin rpy="0 0 1e400">: "1e400" is not a number/);
  });

  it('ModelErrors from buildModel options are UrdfErrors too (keepFixed of an unknown joint)', () => {
    const t = robot(link('a'), link('b'), joint('j', 'a', 'b'));
    const e = urdfError(() => modelFromUrdf(t, { file: 't.urdf', keepFixed: ['nope'] }));
    expect(e.message).toBe('t.urdf: keepFixed: joint "nope" does not exist');
  });

  it('a floating base whose joint name is taken names that joint', () => {
    const t = robot(link('a'), link('b'), joint('root_joint', 'a', 'b'));
    const e = urdfError(() => modelFromUrdf(t, { file: 't.urdf', floatingBase: true }));
    expect(e.message).toMatch(new RegExp(`^t\\.urdf:${lineOf(t, '<joint name="root_joint"')}: joint "root_joint" already exists`));
    expect(modelFromUrdf(t, { floatingBase: true, rootJointName: 'base_free' }).jointNames).toEqual(['base_free', 'root_joint']);
  });

  it('an unreadable file names the file', () => {
    const e = urdfError(() => loadUrdf('/nonexistent/robot.urdf'));
    expect(e.message).toMatch(/^\/nonexistent\/robot\.urdf: cannot read the file/);
  });
});

describe('URDF semantics', () => {
  it('origin xyz/rpy gives ᶜX_p with E = Rᵀ and r = xyz', () => {
    const t = robot(link('a'), link('b'), joint('j', 'a', 'b', 'revolute', '<origin xyz="0.1 -0.2 0.3" rpy="0.3 -0.5 1.1"/><axis xyz="0 1 0"/>'));
    const m = modelFromUrdf(t);
    const R = rotFromRpy(new Float64Array(9), 0.3, -0.5, 1.1);
    const X = m.Xtree[0];
    for (let i = 0; i < 3; i++) for (let k = 0; k < 3; k++) expect(X[3 * i + k]).toBeCloseTo(R[3 * k + i], 15);
    expect(Array.from(X.subarray(9))).toEqual([0.1, -0.2, 0.3]);
    expect(Array.from(m.axis.subarray(0, 3))).toEqual([0, 1, 0]);
  });

  it('defaults: origin 0, axis x', () => {
    const m = modelFromUrdf(robot(link('a'), link('b'), joint('j', 'a', 'b', 'revolute', '')));
    expect(Array.from(m.Xtree[0])).toEqual([1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0]);
    expect(Array.from(m.axis.subarray(0, 3))).toEqual([1, 0, 0]);
  });

  it('the inertial origin rpy rotates the tensor into link axes; xyz is the centre of mass', () => {
    const body = '<inertial><origin xyz="0.1 0 0" rpy="0 0 1.5707963267948966"/><mass value="2"/>'
      + '<inertia ixx="1" ixy="0" ixz="0" iyy="2" iyz="0" izz="3"/></inertial>';
    const m = modelFromUrdf(robot(link('a'), link('b', body), joint('j', 'a', 'b')));
    const I = m.I[0];
    // layout [m, hx, hy, hz, Ixx, Ixy, Ixz, Iyy, Iyz, Izz] about the origin: Ī = I_c + m (cᵀc 1 − c cᵀ)
    expect(I[0]).toBe(2);
    expect(I[1]).toBeCloseTo(0.2, 15);
    expect(I[4]).toBeCloseTo(2, 14); // rotated: the x axis now carries the former y moment
    expect(I[7]).toBeCloseTo(1 + 2 * 0.01, 14);
    expect(I[9]).toBeCloseTo(3 + 2 * 0.01, 14);
    expect(I[5]).toBeCloseTo(0, 14);
  });

  it('continuous → revolute (flagged), prismatic, floating; limits recorded', () => {
    const t = robot(link('a'), link('b'), link('c'), link('d'),
      joint('wheel', 'a', 'b', 'continuous', '<axis xyz="0 1 0"/><limit effort="5" velocity="3"/>'),
      joint('slide', 'b', 'c', 'prismatic', '<axis xyz="1 0 0"/><limit lower="-0.5" upper="0.25" effort="100" velocity="0.2"/>'),
      joint('free', 'c', 'd', 'floating', ''));
    const spec = parseUrdf(t);
    const info = new Map(spec.jointInfo.map((i) => [i.name, i]));
    expect(info.get('wheel')!.continuous).toBe(true);
    expect(info.get('wheel')!.limit).toEqual({ effort: 5, velocity: 3 });
    expect(info.get('slide')!.limit).toEqual({ lower: -0.5, upper: 0.25, effort: 100, velocity: 0.2 });
    const m = modelFromUrdf(t);
    expect(m.jointTypes).toEqual(['revolute', 'prismatic', 'floating']);
    expect(m.nq).toBe(9);
    expect(m.nv).toBe(8);
    expect(m.jtype[2]).toBe(JT_FLOATING);
  });

  it('<mimic> is ignored with a warning naming the joint and its line', () => {
    const t = robot(link('a'), link('b'), link('c'), joint('f1', 'a', 'b', 'prismatic'),
      joint('f2', 'a', 'c', 'prismatic', '<axis xyz="0 0 1"/><mimic joint="f1" multiplier="-1"/>'));
    const warnings: string[] = [];
    const spec = parseUrdf(t, { file: 'g.urdf', warn: (w) => warnings.push(w.message) });
    expect(warnings).toEqual([`g.urdf:${lineOf(t, '<joint name="f2"')}: joint "f2" mimics joint "f1": <mimic> is ignored, "f2" is modelled as an independent joint`]);
    expect(spec.warnings.map((w) => w.message)).toEqual(warnings);
    expect(spec.warnings[0]).toMatchObject({ code: 'mimic-ignored', element: 'joint "f2"', file: 'g.urdf', line: lineOf(t, '<joint name="f2"') });
    expect(buildUrdf(spec).warnings).toEqual(spec.warnings);
    expect(spec.jointInfo.find((j) => j.name === 'f2')!.mimic).toEqual({ joint: 'f1', multiplier: -1, offset: 0 });
    expect(modelFromUrdf(t).nv).toBe(2);
  });

  it('floatingBase, keepFixed and gravity options', () => {
    const t = robot(link('a'), link('b'), link('s', inertial(0.3)), joint('j', 'a', 'b'), joint('sensor', 'b', 's', 'fixed', '<origin xyz="0 0 0.1"/>'));
    const fixed = modelFromUrdf(t);
    expect(fixed.nb).toBe(1);
    expect(fixed.totalMass()).toBeCloseTo(1.3, 15);
    const kept = modelFromUrdf(t, { keepFixed: ['sensor'] });
    expect(kept.nb).toBe(2);
    expect(kept.nv).toBe(1);
    expect(kept.jointNames).toEqual(['j', 'sensor']);
    const floating = modelFromUrdf(t, { floatingBase: true, gravity: [0, -9.81, 0] });
    expect(floating.floatingBase).toBe(true);
    expect(floating.nq).toBe(8);
    expect(Array.from(floating.gravity)).toEqual([0, -9.81, 0]);
    expect(floating.totalMass()).toBeCloseTo(2.3, 15);
  });
});

describeShared('URDF loader on a real robot file', () => {
  it('links and joints get the line of their element (parser metadata agrees with a text scan)', () => {
    const text = readFileSync(join(MODELS, 'talos_reduced.urdf'), 'utf8');
    const spec = parseUrdf(text);
    expect(spec.lines.joint.size).toBe(spec.joints.length);
    for (const [name, line] of spec.lines.joint) {
      expect(text.split('\n')[line - 1]).toMatch(new RegExp(`<joint\\s+name="${name}"`));
    }
    for (const [name, line] of spec.lines.link) {
      expect(text.split('\n')[line - 1]).toMatch(new RegExp(`<link\\s+name="${name}"`));
    }
  });

  it('<sensor> elements are kept raw with their link', () => {
    const spec = readUrdf(join(MODELS, 'talos_reduced.urdf'));
    const imu = spec.sensors.find((s) => s.type === 'imu');
    expect(imu).toBeDefined();
    expect(imu!.name).toBe('imu_sensor');
    expect(typeof imu!.link).toBe('string');
    expect(imu!.line).toBeGreaterThan(1);
  });
});

interface RefJoint { name: string; type: string; nq: number; nv: number; idx_q: number; idx_v: number }
interface Ref { nq: number; nv: number; total_mass: number; joints: RefJoint[] }

describeShared('real robots agree with the reference files', () => {
  for (const robotName of ROBOTS) {
    for (const base of ['fixed', 'floating'] as const) {
      it(`${robotName} (${base} base): joint names and order, nq, nv, total mass`, () => {
        const ref = JSON.parse(readFileSync(join(REFS, `${robotName}.${base}.json`), 'utf8')) as Ref;
        const m = loadUrdf(join(MODELS, `${robotName}.urdf`), { floatingBase: base === 'floating' });
        const moving = m.movingJoints();
        expect(moving.map((j) => j.name)).toEqual(ref.joints.map((j) => j.name));
        expect(m.nq).toBe(ref.nq);
        expect(m.nv).toBe(ref.nv);
        expect(Math.abs(m.totalMass() - ref.total_mass)).toBeLessThan(1e-12 * ref.total_mass);
        moving.forEach((j, k) => {
          const r = ref.joints[k];
          expect([j.iq, j.iv, j.nq, j.nv]).toEqual([r.idx_q, r.idx_v, r.nq, r.nv]);
          const kind = /^JointModel(R|P)([XYZ])$/.exec(r.type);
          if (r.type === 'JointModelFreeFlyer') expect(j.type).toBe('floating');
          else if (kind) {
            expect(j.type).toBe(kind[1] === 'R' ? 'revolute' : 'prismatic');
            const c = 'XYZ'.indexOf(kind[2]);
            expect(m.axis[3 * j.body + c]).toBe(1);
          } else expect(j.type).toBe(/Prismatic/.test(r.type) ? 'prismatic' : 'revolute');
        });
        for (let i = 0; i < m.nb; i++) expect(m.parents[i]).toBeLessThan(i);
      });
    }
  }
});
