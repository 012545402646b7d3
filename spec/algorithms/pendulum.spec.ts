/**
 * Closed-form planar double pendulum (Lagrange): M(θ), Coriolis and gravity terms, against RNEA,
 * CRBA and ABA. Revolute joints about z, gravity along −y, body i's centre of mass at (r_i, 0, 0)
 * in its frame with rotational inertia I_i about z through the centre of mass.
 */
import { describe, expect, it } from 'vitest';
import { aba, AbaWorkspace } from '../../src/algorithms/aba.ts';
import { crba, CrbaWorkspace } from '../../src/algorithms/crba.ts';
import { rnea, RneaWorkspace } from '../../src/algorithms/rnea.ts';
import { buildModel } from '../../src/model/build.ts';
import { inertiaFromMassComInertia } from '../../src/spatial/inertia.ts';
import { xCreate } from '../../src/spatial/transform.ts';
import { expectClose } from '../helpers.ts';

const m1 = 1.3, m2 = 0.7, l1 = 0.9, r1 = 0.45, r2 = 0.6, I1 = 0.05, I2 = 0.03, g = 9.81;

function model() {
  const X2 = xCreate();
  X2[9] = l1; // joint 2 at (l1, 0, 0) in link 1
  return buildModel({
    name: 'double-pendulum',
    gravity: [0, -g, 0],
    links: [
      { name: 'base', inertia: null },
      { name: 'link1', inertia: inertiaFromMassComInertia(new Float64Array(10), m1, [r1, 0, 0], 0.01, 0, 0, 0.01, 0, I1) },
      { name: 'link2', inertia: inertiaFromMassComInertia(new Float64Array(10), m2, [r2, 0, 0], 0.01, 0, 0, 0.01, 0, I2) },
    ],
    joints: [
      { name: 'j1', type: 'revolute', parent: 'base', child: 'link1', origin: xCreate(), axis: [0, 0, 1] },
      { name: 'j2', type: 'revolute', parent: 'link1', child: 'link2', origin: X2, axis: [0, 0, 1] },
    ],
  });
}

function closedForm(q: number[], qd: number[], qdd: number[]) {
  const c2 = Math.cos(q[1]), s2 = Math.sin(q[1]);
  const c1 = Math.cos(q[0]), c12 = Math.cos(q[0] + q[1]);
  const M11 = I1 + I2 + m1 * r1 * r1 + m2 * (l1 * l1 + r2 * r2 + 2 * l1 * r2 * c2);
  const M12 = I2 + m2 * (r2 * r2 + l1 * r2 * c2);
  const M22 = I2 + m2 * r2 * r2;
  const h = m2 * l1 * r2 * s2;
  const C1 = -h * (2 * qd[0] * qd[1] + qd[1] * qd[1]);
  const C2 = h * qd[0] * qd[0];
  const G1 = m1 * g * r1 * c1 + m2 * g * (l1 * c1 + r2 * c12);
  const G2 = m2 * g * r2 * c12;
  const tau = [M11 * qdd[0] + M12 * qdd[1] + C1 + G1, M12 * qdd[0] + M22 * qdd[1] + C2 + G2];
  return { M: [M11, M12, M12, M22], tau };
}

describe('double pendulum, closed form', () => {
  const mdl = model();
  const cases = [
    { q: [0.3, -0.7], qd: [1.1, -0.4], qdd: [0.5, 2.0] },
    { q: [Math.PI / 2, Math.PI], qd: [0, 3], qdd: [-1, 0] },
    { q: [-2.1, 0.05], qd: [-2, 2], qdd: [0, 0] },
  ];
  for (const [k, cs] of cases.entries()) {
    it(`case ${k}: RNEA, CRBA and ABA equal the Lagrangian`, () => {
      const ref = closedForm(cs.q, cs.qd, cs.qdd);
      const tau = rnea(mdl, new RneaWorkspace(mdl), cs.q, cs.qd, cs.qdd);
      expectClose(tau, ref.tau, 1e-13, 'tau');
      expectClose(crba(mdl, new CrbaWorkspace(mdl), cs.q), ref.M, 1e-14, 'M');
      const qdd = aba(mdl, new AbaWorkspace(mdl), cs.q, cs.qd, ref.tau);
      expectClose(qdd, cs.qdd, 1e-12, 'qdd');
    });
  }

  it('rejects bad input with a message naming the vector and the joint', () => {
    const ws = new RneaWorkspace(mdl);
    expect(() => rnea(mdl, ws, [0], [0, 0], [0, 0])).toThrow('q has length 1, expected model.nq = 2');
    expect(() => rnea(mdl, ws, [0, NaN], [0, 0], [0, 0])).toThrow(/q\[1\] is NaN \(joint "j2"\)/);
    expect(() => aba(mdl, new AbaWorkspace(mdl), [0, 0], [0, 0], [0, 0, 0])).toThrow('tau has length 3, expected model.nv = 2');
  });
});
