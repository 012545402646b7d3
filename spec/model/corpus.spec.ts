/**
 * Every file of the real-robot URDF corpus (../shared/urdf-corpus: public robot repositories),
 * with a fixed and with a floating base:
 * - the files urdfdom rejects fail with their named error; every other file loads, with exactly
 *   the warnings listed below (code × count; every warning names its element, file and line);
 * - a model whose M is singular (massless moving bodies) is named by its singular-articulated-
 *   inertia warning, and ABA and the sparse forward dynamics refuse it naming that body;
 * - every model with positive-definite M passes, at two random states with q̈ of order one:
 *   ABA(RNEA(q̈)) = q̈ and LU inverse dynamics = RNEA (1e-9 relative), CRBA's M exactly symmetric,
 *   and M q̈ + h = τ (1e-10 relative to the largest term). The models with singular M pass the
 *   inverse-dynamics checks too (inverse dynamics is defined for them).
 * The sparse forward dynamics against ABA to 1e-11 is checked by the accuracy work (verify).
 */
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect, it } from 'vitest';
import { aba, AbaWorkspace, SingularJointInertiaError } from '../../src/algorithms/aba.ts';
import { crba, CrbaWorkspace } from '../../src/algorithms/crba.ts';
import { rnea, RneaWorkspace } from '../../src/algorithms/rnea.ts';
import { LuForwardDynamics, LuInverseDynamics } from '../../src/assembly/dynamics.ts';
import type { Model } from '../../src/model/model.ts';
import { randomConfiguration } from '../../src/model/random.ts';
import { Rng } from '../../src/model/rng.ts';
import { UrdfError } from '../../src/model/urdf.ts';
import { loadUrdf } from '../../src/node/urdf-file.ts';
import { expectClose } from '../helpers.ts';
import { describeShared, HAS_SHARED, shared } from '../shared.ts';

const CORPUS = shared('urdf-corpus');

/** Files urdfdom rejects, with the error we give. */
const REJECTED: Record<string, RegExp> = {
  'bullet3/data/husky/husky.urdf': /husky\.urdf:97: joint "imu_joint": <origin xyz="\$\(optenv HUSKY_IMU_XYZ 0\.19 0 0\.149\)">: "\$\(optenv HUSKY_IMU_XYZ 0\.19 0 0\.149\)" is an unexpanded xacro\/roslaunch substitution/,
  'example-robot-data/robots/ur_description/urdf/ur3.urdf': /ur3\.urdf:6: <robot> is missing required attribute name \(urdfdom requires one\)/,
};

/** Warnings of the quirky files, [fixed base, floating base] (every other file loads without any). */
const WARNINGS: Record<string, [string, string]> = {
  'bullet3/data/cartpole.urdf': ['link-mass-zero×1', 'body-mass-zero×1 singular-articulated-inertia×1'],
  'bullet3/data/differential/diff_ring.urdf': ['xml-declaration-not-first×1', 'singular-articulated-inertia×1 xml-declaration-not-first×1'],
  'bullet3/data/humanoid.urdf': ['robot-name-empty×1', 'robot-name-empty×1'],
  'bullet3/data/kuka_iiwa/model.urdf': ['link-mass-zero×1', 'body-mass-zero×1'],
  'bullet3/data/kuka_lwr/kuka.urdf': ['link-mass-zero×1', 'body-mass-zero×1'],
  'bullet3/data/plane.urdf': ['', 'singular-articulated-inertia×1'],
  'bullet3/data/sphere_small_zeroinertia.urdf': ['', 'singular-articulated-inertia×1'],
  'example-robot-data/robots/allegro_hand_description/urdf/allegro_left_hand.urdf': ['body-inertia-triangle-inequality×9 link-inertia-triangle-inequality×4', 'body-inertia-triangle-inequality×9 link-inertia-triangle-inequality×4'],
  'example-robot-data/robots/anymal_b_simple_description/robots/anymal-kinova.urdf': ['link-inertia-not-positive-definite×1', 'link-inertia-not-positive-definite×1'],
  'example-robot-data/robots/b1_description/urdf/b1-z1.urdf': ['link-inertia-not-positive-definite×1', 'link-inertia-not-positive-definite×1'],
  'example-robot-data/robots/baxter_description/urdf/baxter.urdf': ['mimic-ignored×2', 'mimic-ignored×2'],
  'example-robot-data/robots/bluevolta_description/urdf/bluevolta_bravo7_gripper.urdf': ['singular-articulated-inertia×1', 'singular-articulated-inertia×1'],
  'example-robot-data/robots/bolt_description/robots/bolt.urdf': ['link-mass-zero×2', 'link-mass-zero×2'],
  'example-robot-data/robots/falcon_description/urdf/falcon_bravo7_gripper.urdf': ['singular-articulated-inertia×1', 'singular-articulated-inertia×1'],
  'example-robot-data/robots/finger_edu_description/robots/finger_edu.urdf': ['link-inertia-not-positive-definite×1', 'link-inertia-not-positive-definite×1'],
  'example-robot-data/robots/go1_description/urdf/go1.urdf': ['link-inertia-not-positive-definite×1', 'link-inertia-not-positive-definite×1'],
  'example-robot-data/robots/hyq_description/robots/hyq_no_sensors.urdf': ['link-inertia-not-positive-definite×5', 'link-inertia-not-positive-definite×5'],
  'example-robot-data/robots/pr2_description/urdf/pr2.urdf': ['link-inertia-triangle-inequality×2 mimic-ignored×10', 'link-inertia-triangle-inequality×2 mimic-ignored×10'],
  'example-robot-data/robots/romeo_description/urdf/romeo.urdf': ['body-inertia-triangle-inequality×2 mimic-ignored×22 singular-articulated-inertia×1', 'body-inertia-triangle-inequality×2 mimic-ignored×22 singular-articulated-inertia×1'],
  'example-robot-data/robots/tiago_description/robots/tiago_dual.urdf': ['body-inertia-triangle-inequality×2 link-inertia-not-positive-definite×2', 'body-inertia-triangle-inequality×2 link-inertia-not-positive-definite×2'],
  'example-robot-data/robots/tiago_pro_description/robots/tiago_pro.urdf': ['mimic-ignored×10', 'mimic-ignored×10'],
  'unitree_ros/robots/g1_description/inspire_hand/FTP_left_hand.urdf': ['mimic-ignored×6', 'mimic-ignored×6'],
  'unitree_ros/robots/h1_2_description/h1_2.urdf': ['mimic-ignored×12', 'mimic-ignored×12'],
};

/** Bodies whose articulated inertia is singular, [fixed, floating] (the models whose M is singular). */
const SINGULAR: Record<string, [string[], string[]]> = {
  'bullet3/data/cartpole.urdf': [[], ['slideBar']],
  'bullet3/data/differential/diff_ring.urdf': [[], ['world']],
  'bullet3/data/plane.urdf': [[], ['planeLink']],
  'bullet3/data/sphere_small_zeroinertia.urdf': [[], ['base_link']],
  'example-robot-data/robots/bluevolta_description/urdf/bluevolta_bravo7_gripper.urdf': [['bravo_finger1_link', 'bravo_finger2_link'], ['bravo_finger1_link', 'bravo_finger2_link']],
  'example-robot-data/robots/falcon_description/urdf/falcon_bravo7_gripper.urdf': [['bravo_finger1_link', 'bravo_finger2_link'], ['bravo_finger1_link', 'bravo_finger2_link']],
  'example-robot-data/robots/romeo_description/urdf/romeo.urdf': Array(2).fill(['L', 'R'].flatMap((s) => [
    `${s}Finger21Link`, `${s}Finger22Link`, `${s}Finger23Link`, `${s}Finger31Link`, `${s}Finger32Link`, `${s}Finger33Link`,
    `${s}Finger11Link`, `${s}Finger12Link`, `${s}Finger13Link`, `${s}Thumb1Link`, `${s}Thumb2Link`, `${s}Thumb3Link`])) as [string[], string[]],
};

function urdfFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? urdfFiles(p) : name.endsWith('.urdf') ? [p] : [];
  }).sort();
}

function codeCounts(model: Model): string {
  const n = new Map<string, number>();
  for (const w of model.warnings) n.set(w.code, (n.get(w.code) ?? 0) + 1);
  return [...n.keys()].sort().map((c) => `${c}×${n.get(c)}`).join(' ');
}

const mulAdd = (M: Float64Array, a: ArrayLike<number>, h: ArrayLike<number>, n: number) =>
  Float64Array.from({ length: n }, (_, r) => { let s = h[r]; for (let c = 0; c < n; c++) s += M[r * n + c] * a[c]; return s; });

/** Inverse-dynamics checks (defined for every model) and, when M is positive definite, ABA(RNEA(a)) = a. */
function checkDynamics(model: Model, seed: number, positiveDefinite: boolean): void {
  const nv = model.nv;
  const rng = new Rng(seed);
  const rw = new RneaWorkspace(model), aw = new AbaWorkspace(model), cw = new CrbaWorkspace(model);
  const id = new LuInverseDynamics(model);
  for (let t = 0; t < 2; t++) {
    const q = randomConfiguration(model, rng);
    const v = rng.array(nv, -1, 1), a = rng.array(nv, -1, 1);
    const tau = Float64Array.from(rnea(model, rw, q, v, a));
    if (positiveDefinite) expectClose(aba(model, aw, q, v, tau), a, 1e-9, 'ABA(RNEA(a))');
    expectClose(id.solve(q, v, a), tau, 1e-9, 'LU inverse dynamics vs RNEA');
    const M = Float64Array.from(crba(model, cw, q));
    for (let r = 0; r < nv; r++) for (let c = r + 1; c < nv; c++) if (M[r * nv + c] !== M[c * nv + r]) expect.fail(`M not symmetric at (${r}, ${c})`);
    const h = Float64Array.from(rnea(model, rw, q, v, new Float64Array(nv)));
    const Ma = mulAdd(M, a, h, nv);
    // relative to the largest term of M a + h (τ can be a small difference of large terms)
    let scale = 1;
    for (let r = 0; r < nv; r++) { let s = Math.abs(h[r]); for (let c = 0; c < nv; c++) s += Math.abs(M[r * nv + c] * a[c]); scale = Math.max(scale, s); }
    expectClose(Ma, tau, 1e-10, 'M a + h vs RNEA', scale);
  }
}

describeShared('the URDF corpus: every file urdfdom accepts loads, and its dynamics agree', () => {
  const files = HAS_SHARED ? urdfFiles(CORPUS) : [];

  it('the corpus holds the 57 files these expectations were written for', () => {
    expect(files.length).toBe(57);
    for (const f of [...Object.keys(REJECTED), ...Object.keys(WARNINGS)]) expect(files.map((p) => relative(CORPUS, p))).toContain(f);
  });

  for (const path of files) {
    const file = relative(CORPUS, path);
    for (const floatingBase of [false, true]) {
      const base = floatingBase ? 'floating' : 'fixed';
      it(`${file} (${base} base)`, () => {
        const rejected = REJECTED[file];
        if (rejected) {
          let err: unknown;
          try { loadUrdf(path, { floatingBase, file }); } catch (e) { err = e; }
          expect(err).toBeInstanceOf(UrdfError);
          expect((err as Error).message).toMatch(rejected);
          return;
        }
        const model = loadUrdf(path, { floatingBase, file });
        expect(codeCounts(model)).toBe(WARNINGS[file]?.[floatingBase ? 1 : 0] ?? '');
        for (const w of model.warnings) {
          expect(w.file).toBe(file);
          expect(w.line, w.message).toBeGreaterThan(0);
          expect(w.element, w.message).toBeTruthy();
          expect(w.message.startsWith(`${file}:${w.line}: `), w.message).toBe(true);
        }
        const singular = SINGULAR[file]?.[floatingBase ? 1 : 0] ?? [];
        expect(Array.from(model.singularBodies, (i) => model.bodyNames[i])).toEqual(singular);
        if (model.nv === 0) return;
        if (singular.length > 0) {
          const q = randomConfiguration(model, new Rng(1));
          const z = new Float64Array(model.nv);
          const first = new RegExp(`body "${singular[0]}" \\(joint "[^"]+"\\) is singular`);
          expect(() => aba(model, new AbaWorkspace(model), q, z, z)).toThrow(SingularJointInertiaError);
          expect(() => aba(model, new AbaWorkspace(model), q, z, z)).toThrow(first);
          expect(() => new LuForwardDynamics(model).solve(q, z, z)).toThrow(first);
        }
        checkDynamics(model, file.length + (floatingBase ? 1000 : 0), singular.length === 0);
      });
    }
  }
});
