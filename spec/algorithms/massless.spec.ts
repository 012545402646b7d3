/**
 * A model with massless moving bodies (a gripper whose fingers have no <inertial>): what depends
 * on the inertia values refuses it with an error naming the first singular body (ABA, the sparse
 * forward dynamics, M⁻¹ by Carpentier, by Cholesky and by the sparse LU, M⁻¹B); inverse dynamics
 * still works and agrees across methods (RNEA, the sparse LU), and CRBA's M is symmetric with
 * M a + h = τ. Work that depends on the structure only — flop counts, the offline ordering, spy —
 * succeeds, counted on a surrogate with the same patterns (flops-report.ts), and says what it
 * could not compute.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { aba, AbaWorkspace, SingularJointInertiaError } from '../../src/algorithms/aba.ts';
import { crba, CrbaWorkspace } from '../../src/algorithms/crba.ts';
import { InputMatrix } from '../../src/algorithms/iwim-inputs.ts';
import { iwimUnitForce, IwimUnitForceWorkspace } from '../../src/algorithms/iwim-unit-force.ts';
import { minvCholesky, MinvCholeskyWorkspace } from '../../src/algorithms/minv.ts';
import { minvCarpentier, MinvCarpentierWorkspace } from '../../src/algorithms/minv-carpentier.ts';
import { rnea, RneaWorkspace } from '../../src/algorithms/rnea.ts';
import { LuForwardDynamics, LuInverseDynamics } from '../../src/assembly/dynamics.ts';
import { flopsReport, structuralSurrogate } from '../../src/assembly/flops-report.ts';
import { MinvLu } from '../../src/assembly/minv-lu.ts';
import { forwardDynamicsProblem } from '../../src/assembly/problems.ts';
import { SymbolicSystem } from '../../src/assembly/system.ts';
import { buildModel, type ModelSpec } from '../../src/model/build.ts';
import { inertiaFromPrincipal } from '../../src/model/generators.ts';
import { randomConfiguration } from '../../src/model/random.ts';
import { Rng } from '../../src/model/rng.ts';
import { analyze } from '../../src/sparse/analyze.ts';
import { xFromRotTrans } from '../../src/spatial/transform.ts';
import { urdfFromSpec } from '../../src/model/urdf-writer.ts';
import { runCli } from '../cli/run.ts';
import { expectClose } from '../helpers.ts';

const I3 = [1, 0, 0, 0, 1, 0, 0, 0, 1];
const at = (x: number, y: number, z: number) => xFromRotTrans(new Float64Array(12), I3, [x, y, z]);
const I = (m: number) => inertiaFromPrincipal(m, [0.02, 0.01, 0.1], 0.01 * m, 0.012 * m, 0.008 * m);

/** A 3-joint arm with a 2-finger gripper whose fingers have no inertia (as in ROS-Industrial files). */
const gripper: ModelSpec = {
  name: 'gripper',
  links: [{ name: 'base', inertia: I(5) }, { name: 'l1', inertia: I(3) }, { name: 'l2', inertia: I(2) }, { name: 'hand', inertia: I(0.5) },
    { name: 'finger1', inertia: null }, { name: 'finger2', inertia: null }],
  joints: [
    { name: 'j1', type: 'revolute', parent: 'base', child: 'l1', origin: at(0, 0, 0.1), axis: [0, 0, 1] },
    { name: 'j2', type: 'revolute', parent: 'l1', child: 'l2', origin: at(0, 0, 0.3), axis: [0, 1, 0] },
    { name: 'j3', type: 'revolute', parent: 'l2', child: 'hand', origin: at(0.3, 0, 0), axis: [0, 1, 0] },
    { name: 'f1', type: 'prismatic', parent: 'hand', child: 'finger1', origin: at(0.05, 0.02, 0), axis: [0, 1, 0] },
    { name: 'f2', type: 'prismatic', parent: 'hand', child: 'finger2', origin: at(0.05, -0.02, 0), axis: [0, -1, 0] },
  ],
};

describe('a model with massless fingers', () => {
  for (const floatingBase of [false, true]) {
    const model = buildModel(gripper, { floatingBase });
    const nv = model.nv;
    const rng = new Rng(floatingBase ? 2 : 1);
    const base = floatingBase ? 'floating' : 'fixed';

    it(`${base}: loads with one singular-articulated-inertia warning naming both fingers`, () => {
      expect(Array.from(model.singularBodies, (i) => model.bodyNames[i])).toEqual(['finger1', 'finger2']);
      expect(model.warnings.map((w) => w.code)).toEqual(['singular-articulated-inertia']);
      expect(model.warnings[0].message).toMatch(/"finger1" \(joint "f1"\), "finger2" \(joint "f2"\) is singular/);
    });

    it(`${base}: ABA, the sparse forward dynamics and every M⁻¹ refuse it, naming the first finger`, () => {
      const q = randomConfiguration(model, rng), v = rng.array(nv, -1, 1), tau = rng.array(nv, -1, 1);
      const named = /the articulated inertia of body "finger1" \(joint "f1"\) is singular.*\(1 more body is singular: see the model's warnings\)/;
      const expectRefusal = (f: () => unknown, who: string) => {
        let err: unknown;
        try { f(); } catch (e) { err = e; }
        expect(err, who).toBeInstanceOf(SingularJointInertiaError);
        expect((err as Error).message, who).toMatch(named);
        expect((err as Error).message.startsWith(who), who).toBe(true);
        expect((err as SingularJointInertiaError).body).toBe('finger1');
      };
      expectRefusal(() => aba(model, new AbaWorkspace(model), q, v, tau), 'ABA');
      expectRefusal(() => new LuForwardDynamics(model).solve(q, v, tau), 'forward dynamics (sparse LU)');
      expectRefusal(() => minvCarpentier(model, new MinvCarpentierWorkspace(model), q), 'M⁻¹ (Carpentier)');
      expectRefusal(() => minvCholesky(model, new MinvCholeskyWorkspace(model), q), 'M⁻¹ (Cholesky)');
      expectRefusal(() => new MinvLu(model).compute(q), 'M⁻¹ (sparse LU)');
      const inputs = new InputMatrix(model, { actuated: 'all' });
      expectRefusal(() => iwimUnitForce(model, new IwimUnitForceWorkspace(model, inputs), q, v), 'M⁻¹B (unit force method)');
    });

    it(`${base}: inverse dynamics works: LU = RNEA, M symmetric, M a + h = τ, M singular along the fingers`, () => {
      const rw = new RneaWorkspace(model), id = new LuInverseDynamics(model), cw = new CrbaWorkspace(model);
      for (let t = 0; t < 3; t++) {
        const q = randomConfiguration(model, rng), v = rng.array(nv, -2, 2), a = rng.array(nv, -2, 2);
        const tau = Float64Array.from(rnea(model, rw, q, v, a));
        expectClose(id.solve(q, v, a), tau, 1e-12, 'LU inverse dynamics');
        const M = Float64Array.from(crba(model, cw, q));
        const h = rnea(model, rw, q, v, new Float64Array(nv));
        const Ma = Float64Array.from({ length: nv }, (_, r) => h[r] + M.subarray(r * nv, r * nv + nv).reduce((s, x, c) => s + x * a[c], 0));
        expectClose(Ma, tau, 1e-12, 'M a + h');
        for (let r = 0; r < nv; r++) for (let c = 0; c < nv; c++) expect(M[r * nv + c]).toBe(M[c * nv + r]);
        // the fingers' rows of M are zero: no mass moves along their joints
        for (const f of ['f1', 'f2']) {
          const k = model.iv[model.joint(f)];
          for (let c = 0; c < nv; c++) expect(M[k * nv + c]).toBe(0);
        }
      }
    });

    it(`${base}: the offline analysis and the flop counts succeed and say what was not computed`, () => {
      const sys = new SymbolicSystem(model, forwardDynamicsProblem(model));
      const S = analyze(sys.pattern, { rowNames: sys.rowNames, colNames: sys.layout.names });
      expect(S.n).toBe(sys.n);
      const surrogate = structuralSurrogate(model);
      expect(surrogate.singularBodies.length).toBe(0);
      const surSys = new SymbolicSystem(surrogate, forwardDynamicsProblem(surrogate));
      expect(Array.from(surSys.pattern.Ap)).toEqual(Array.from(sys.pattern.Ap));
      expect(Array.from(surSys.pattern.Ai)).toEqual(Array.from(sys.pattern.Ai));
      const { report } = flopsReport(model);
      const ref = flopsReport(surrogate).report;
      for (const k of ['rnea', 'aba'] as const) expect(report[k]).toEqual(ref[k]);
      expect(report.lu_fd).toEqual(ref.lu_fd);
      expect(report.lu_id).toEqual(ref.lu_id);
      expect(report.aba_matrix).toEqual(ref.aba_matrix);
      expect(report.model).toBe('gripper');
      expect(report.agreement.lu_fd).toBeUndefined();
      expect(report.agreement.aba_matrix).toBeUndefined();
      expect(report.agreement.lu_id).toBeLessThan(1e-13);
      expect(report.singular?.bodies).toEqual(['finger1', 'finger2']);
      expect(report.singular?.note).toMatch(/not computed/);
      expect(ref.singular).toBeUndefined();
    });
  }
});

describe('the command line on a model with massless fingers', () => {
  it('`flops` and `spy` succeed; `flops` says what it could not compute', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sparsedyn-massless-'));
    try {
      const file = join(dir, 'gripper.urdf');
      writeFileSync(file, urdfFromSpec(gripper));
      const f = await runCli(['flops', '--model', file]);
      expect(f.code).toBe(0);
      expect(f.out).toMatch(/lu_fd and matrix ABA vs ABA: not computed/);
      expect(f.out).toMatch(/note: forward dynamics is undefined \(the articulated inertia of bodies "finger1", "finger2" is singular/);
      const j = JSON.parse((await runCli(['flops', '--model', file, '--json'])).out);
      expect(j.agreement.lu_fd).toBeUndefined();
      expect(j.singular.bodies).toEqual(['finger1', 'finger2']);
      const s = await runCli(['spy', '--model', `${file}+floating`, '--problem', 'fd', '--out', join(dir, 'fd.svg')]);
      expect(s.code).toBe(0);
      expect(s.out).toMatch(/wrote .*fd\.svg/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
