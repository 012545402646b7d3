/**
 * What real URDF files do that the reference parsers (urdfdom, Pinocchio) accept, on small
 * synthetic files: each loads with its warning (stable code, element, file, line), and the
 * inertia values are kept exactly as Pinocchio builds them (Inertia(m, c, R I Rᵀ), computed here
 * independently); the structural faults urdfdom rejects stay errors that say what they are.
 */
import { describe, expect, it } from 'vitest';
import { modelFromUrdf, parseUrdf, UrdfError } from '../../src/model/urdf.ts';
import { rotFromRpy } from '../../src/spatial/vec3.ts';
import { expectClose } from '../helpers.ts';

const inertial = (m: string, t: string[], origin = '') =>
  `<inertial>${origin}<mass value="${m}"/><inertia ixx="${t[0]}" ixy="${t[1]}" ixz="${t[2]}" iyy="${t[3]}" iyz="${t[4]}" izz="${t[5]}"/></inertial>`;
const GOOD = ['0.01', '0', '0', '0.02', '0', '0.025'];
const link = (name: string, body = inertial('1', GOOD)) => `  <link name="${name}">${body}</link>`;
// revolute and prismatic joints get the <limit> urdfdom requires, unless the body has one
const joint = (name: string, parent: string, child: string, type = 'revolute', body = '<axis xyz="0 0 1"/>') =>
  `  <joint name="${name}" type="${type}"><parent link="${parent}"/><child link="${child}"/>${body}${(type === 'revolute' || type === 'prismatic') && !body.includes('<limit') ? '<limit effort="1" velocity="1"/>' : ''}</joint>`;
const robot = (...lines: string[]) => `<?xml version="1.0"?>\n<robot name="t">\n${lines.join('\n')}\n</robot>\n`;
const lineOf = (text: string, needle: string) => text.slice(0, text.indexOf(needle)).split('\n').length;
const codes = (text: string, floatingBase = false) => modelFromUrdf(text, { file: 'q.urdf', floatingBase }).warnings.map((w) => w.code);

function urdfError(f: () => unknown): UrdfError {
  try { f(); } catch (e) { expect(e).toBeInstanceOf(UrdfError); return e as UrdfError; }
  throw new Error('expected a UrdfError');
}

/** Pinocchio's Inertia(m, c, R I Rᵀ) as 10 numbers about the link origin: [m, m c, I_c + m (cᵀc 1 − c cᵀ)]. */
function pinocchioInertia(m: number, c: number[], rpy: number[], t: number[]): number[] {
  const R = rotFromRpy(new Float64Array(9), rpy[0], rpy[1], rpy[2]);
  const I = [[t[0], t[1], t[2]], [t[1], t[3], t[4]], [t[2], t[4], t[5]]];
  const RI = [0, 1, 2].map((i) => [0, 1, 2].map((j) => R[3 * i] * I[0][j] + R[3 * i + 1] * I[1][j] + R[3 * i + 2] * I[2][j]));
  const Ic = [0, 1, 2].map((i) => [0, 1, 2].map((j) => RI[i][0] * R[3 * j] + RI[i][1] * R[3 * j + 1] + RI[i][2] * R[3 * j + 2]));
  const cc = c[0] * c[0] + c[1] * c[1] + c[2] * c[2];
  const E = (i: number, j: number) => Ic[i][j] + m * ((i === j ? cc : 0) - c[i] * c[j]);
  return [m, m * c[0], m * c[1], m * c[2], E(0, 0), E(0, 1), E(0, 2), E(1, 1), E(1, 2), E(2, 2)];
}

describe('document quirks load with a warning', () => {
  it('a blank line before the XML declaration (xml-declaration-not-first); element lines are kept', () => {
    const text = `\n${robot(link('a'), link('b'), joint('j', 'a', 'b'))}`;
    const spec = parseUrdf(text, { file: 'q.urdf' });
    expect(spec.warnings.map((w) => w.code)).toEqual(['xml-declaration-not-first']);
    expect(spec.warnings[0]).toMatchObject({ element: 'the XML declaration', file: 'q.urdf', line: 2 });
    expect(spec.warnings[0].message).toMatch(/^q\.urdf:2: white space .*before the XML declaration/);
    expect(spec.lines.joint.get('j')).toBe(lineOf(text, '<joint name="j"'));
    expect(spec.lines.link.get('b')).toBe(lineOf(text, '<link name="b"'));
    expect(modelFromUrdf(text).nv).toBe(1);
  });

  it('<robot name=""> (robot-name-empty): the model is named after the file', () => {
    const text = robot(link('a'), link('b'), joint('j', 'a', 'b')).replace('name="t"', 'name=""');
    const m = modelFromUrdf(text, { file: 'some/dir/pendulum.urdf' });
    expect(m.name).toBe('pendulum');
    expect(m.warnings).toHaveLength(1);
    expect(m.warnings[0]).toMatchObject({ code: 'robot-name-empty', element: '<robot>', file: 'some/dir/pendulum.urdf', line: 2 });
    expect(modelFromUrdf(text).name).toBe('unnamed');
  });

  it('a missing robot name stays an error (urdfdom rejects it)', () => {
    const e = urdfError(() => modelFromUrdf(robot(link('a')).replace(' name="t"', ''), { file: 'q.urdf' }));
    expect(e.message).toBe('q.urdf:2: <robot> is missing required attribute name (urdfdom requires one)');
  });

  it('a revolute or prismatic joint without <limit> (joint-limit-missing): loads, where urdfdom refuses it; the dynamics do not read limits', () => {
    const text = robot(link('a'), link('b'), link('c'),
      '  <joint name="j" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/></joint>',
      '  <joint name="p" type="prismatic"><parent link="b"/><child link="c"/><axis xyz="1 0 0"/></joint>');
    const m = modelFromUrdf(text, { file: 'q.urdf' });
    expect(m.nv).toBe(2);
    expect(m.warnings.map((w) => [w.code, w.element, w.line])).toEqual([['joint-limit-missing', 'joint "j"', 6], ['joint-limit-missing', 'joint "p"', 7]]);
    expect(m.warnings[0].message).toBe('q.urdf:6: revolute joint "j" has no <limit> (urdfdom, and so Pinocchio, refuses such a file; the dynamics do not use limits, so sparsedyn loads it)');
    expect(codes(robot(link('a'), link('b'), joint('j', 'a', 'b', 'continuous')))).toEqual([]);
  });

  it('a repeated <origin> (duplicate-element): the first is used, as urdfdom does', () => {
    const text = robot(link('a'), link('b'), joint('j', 'a', 'b', 'revolute', '<origin xyz="1 0 0"/>\n<origin xyz="2 0 0"/><axis xyz="0 0 1"/>'));
    const m = modelFromUrdf(text, { file: 'q.urdf' });
    expect(m.Xtree[0][9]).toBe(1);
    expect(m.warnings[0]).toMatchObject({ code: 'duplicate-element', element: 'joint "j"', line: lineOf(text, '<origin xyz="2 0 0"') });
  });

  it("Drake's <loop_joint> (loop-joint-ignored) names the loop joint, its links and line", () => {
    const text = robot(link('a'), link('b'), link('c'), joint('j1', 'a', 'b'), joint('j2', 'a', 'c'),
      '  <loop_joint name="close" type="continuous"><parent link="b" xyz="0 0 1"/><child link="c" xyz="0 0 1"/><axis xyz="0 1 0"/></loop_joint>');
    const m = modelFromUrdf(text, { file: 'q.urdf' });
    expect(m.nv).toBe(2);
    expect(m.warnings).toHaveLength(1);
    expect(m.warnings[0]).toMatchObject({ code: 'loop-joint-ignored', element: 'loop joint "close"', file: 'q.urdf', line: lineOf(text, '<loop_joint') });
    expect(m.warnings[0].message).toMatch(/between links "b" and "c".*closure constraint is not enforced/);
  });
});

describe('structural faults stay errors that say what they are', () => {
  it('an unexpanded $(…) substitution is named and quoted', () => {
    const text = robot(link('a'), link('b'), joint('imu', 'a', 'b', 'fixed', '\n<origin rpy="0 0 0" xyz="$(optenv IMU_XYZ 0.19 0 0.149)"/>'));
    const e = urdfError(() => modelFromUrdf(text, { file: 'q.urdf' }));
    expect(e.message).toBe(`q.urdf:${lineOf(text, '<origin rpy')}: joint "imu": <origin xyz="$(optenv IMU_XYZ 0.19 0 0.149)">: `
      + '"$(optenv IMU_XYZ 0.19 0 0.149)" is an unexpanded xacro/roslaunch substitution, not a number; expand the file first (xacro FILE.urdf.xacro > FILE.urdf)');
    const e2 = urdfError(() => modelFromUrdf(robot(link('a', inertial('${mass}', GOOD))), { file: 'q.urdf' }));
    expect(e2.message).toMatch(/"\$\{mass\}" is an unexpanded xacro\/roslaunch substitution/);
  });

  it('a number that does not parse stays an error naming the token', () => {
    const e = urdfError(() => modelFromUrdf(robot(link('a', inertial('1', ['0.1', '0', '0', '0.1', '0', '0.1kg']))), { file: 'q.urdf' }));
    expect(e.message).toMatch(/"0\.1kg" is not a number/);
  });
});

describe('inertia values are data: kept as Pinocchio keeps them, judged with warnings', () => {
  const placeholder = ['0.000001', '0.000001', '0.000001', '0.000001', '0.000001', '0.000001'];

  it('a placeholder tensor on the welded root (all six entries 1e-6): link-inertia-not-positive-definite, harmless', () => {
    const text = robot(link('base', inertial('0.000001', placeholder)), link('trunk'), link('leg'),
      joint('floating_base', 'base', 'trunk', 'fixed', ''), joint('hip', 'trunk', 'leg'));
    const fixed = modelFromUrdf(text, { file: 'q.urdf' });
    expect(fixed.warnings.map((w) => w.code)).toEqual(['link-inertia-not-positive-definite']);
    expect(fixed.warnings[0]).toMatchObject({ element: 'link "base"', file: 'q.urdf', line: lineOf(text, '<link name="base"') });
    expect(fixed.warnings[0].message).toMatch(/ixx 0\.000001.*principal moments 0, 0, 3e-6.*root link, welded to the world/);
    // floating: the base moves, merged with the trunk: still harmless
    const floating = modelFromUrdf(text, { file: 'q.urdf', floatingBase: true });
    expect(floating.warnings.map((w) => w.code)).toEqual(['link-inertia-not-positive-definite']);
    expect(floating.warnings[0].message).toMatch(/with the fixed link "trunk" merged in, moving body "base" has a physically valid inertia/);
  });

  it('a single non-zero moment (a rod) on a moving body: body-inertia-not-positive-definite, values kept', () => {
    const rod = ['0.00012', '0', '0', '0.00012', '0', '0'];
    const text = robot(link('a'), link('rod', inertial('0.1', rod, '<origin xyz="0 0 0.08" rpy="0.3 0 0"/>')), joint('j', 'a', 'rod', 'revolute', '<axis xyz="1 0 0"/>'));
    const m = modelFromUrdf(text, { file: 'q.urdf' });
    expect(m.warnings.map((w) => w.code)).toEqual(['body-inertia-not-positive-definite']);
    expect(m.warnings[0]).toMatchObject({ element: 'link "rod"', line: lineOf(text, '<link name="rod"') });
    expectClose(m.I[0], pinocchioInertia(0.1, [0, 0, 0.08], [0.3, 0, 0], rod.map(Number)), 1e-15, 'inertia as Pinocchio builds it');
  });

  it('CAD values breaking the triangle inequality: body-inertia-triangle-inequality, values kept', () => {
    const cad = ['0.002471', '0.001809', '-0.001202', '0.006132', '-0.000494', '0.006704'];
    const text = robot(link('a'), link('arm', inertial('1.563428', cad, '<origin xyz="0.1 0.02 -0.03"/>')), joint('j', 'a', 'arm'));
    const m = modelFromUrdf(text, { file: 'q.urdf' });
    expect(m.warnings.map((w) => w.code)).toEqual(['body-inertia-triangle-inequality']);
    expect(m.warnings[0].message).toMatch(/breaking the triangle inequality \(0\.001557 \+ 0\.005976 < 0\.007774/);
    expectClose(m.I[0], pinocchioInertia(1.563428, [0.1, 0.02, -0.03], [0, 0, 0], cad.map(Number)), 1e-15, 'inertia');
  });

  it("mass 0 with a non-zero tensor (pybullet's static base): link-mass-zero on a fixed base, body-mass-zero and singular when it floats", () => {
    const text = robot(link('slideBar', inertial('0', ['1', '0', '0', '1', '0', '1'])), link('cart'),
      joint('slider', 'slideBar', 'cart', 'prismatic', '<axis xyz="1 0 0"/>'));
    const fixed = modelFromUrdf(text, { file: 'q.urdf' });
    expect(fixed.warnings.map((w) => w.code)).toEqual(['link-mass-zero']);
    expect(fixed.warnings[0].message).toMatch(/pybullet's way of marking a static base/);
    const floating = modelFromUrdf(text, { file: 'q.urdf', floatingBase: true });
    expect(floating.warnings.map((w) => w.code)).toEqual(['body-mass-zero', 'singular-articulated-inertia']);
    expect(Array.from(floating.I[0])).toEqual(pinocchioInertia(0, [0, 0, 0], [0, 0, 0], [1, 0, 0, 1, 0, 1]));
    expect(Array.from(floating.singularBodies)).toEqual([0]);
  });

  it('1e-35 noise on a massless link merged into a real body: link-mass-zero, harmless; the noise is kept', () => {
    const noise = ['1e-35', '0', '0', '1e-35', '0', '1e-35'];
    const text = robot(link('a'), link('b'), link('tip', inertial('0', noise)), joint('j', 'a', 'b'), joint('tipj', 'b', 'tip', 'fixed', '<origin xyz="0.1 0 0"/>'));
    const m = modelFromUrdf(text, { file: 'q.urdf' });
    expect(m.warnings.map((w) => w.code)).toEqual(['link-mass-zero']);
    expect(m.warnings[0].message).toMatch(/merged into moving body "b", whose total inertia is physically valid/);
    expect(m.I[0][4]).toBe(0.01 + 1e-35);
  });

  it('a negative mass on a moving body: body-mass-negative', () => {
    const m = modelFromUrdf(robot(link('a'), link('b', inertial('-2', GOOD)), joint('j', 'a', 'b')), { file: 'q.urdf' });
    expect(m.warnings.map((w) => w.code)).toEqual(['body-mass-negative']);
    expect(m.I[0][0]).toBe(-2);
  });

  it('a body made valid by merging reports the odd link once; an invalid merged body names the odd links', () => {
    const bad = ['0.0001', '0', '0', '0.0001', '0', '0.0005'];
    const text = robot(link('a'), link('b', inertial('0.5', bad)), link('c', inertial('0.001', ['1e-7', '0', '0', '1e-7', '0', '1e-7'])), joint('j', 'a', 'b'), joint('f', 'b', 'c', 'fixed', ''));
    const m = modelFromUrdf(text, { file: 'q.urdf' });
    expect(m.warnings.map((w) => w.code)).toEqual(['body-inertia-triangle-inequality']);
    expect(m.warnings[0].message).toMatch(/with the fixed link "c" merged in, is not physically valid.*from the <inertial> of link "b"/);
    expect(codes(robot(link('a'), link('b', inertial('0.5', bad)), link('c', inertial('3', ['0.1', '0', '0', '0.1', '0', '0.1'])), joint('j', 'a', 'b'),
      joint('f', 'b', 'c', 'fixed', '')))).toEqual(['link-inertia-triangle-inequality']);
  });
});
