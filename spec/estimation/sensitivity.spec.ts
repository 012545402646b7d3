/**
 * Derivatives of the estimate (issue 8, estimation problems) against central differences of the
 * estimator itself: square layout (chain with load cells) and redundant layout (humanoid with ankle
 * F/T sensors, noisy readings so that the least-squares residual is not zero).
 */
import { describe, expect, it } from 'vitest';
import { Estimator } from '../../src/estimation/estimator.ts';
import { parseProblem } from '../../src/estimation/problem.ts';
import { modelForProblem } from '../../src/node/problem-file.ts';
import { EstimateSensitivity } from '../../src/estimation/sensitivity.ts';
import { buildEstimationSystem, type EstimationSystem } from '../../src/estimation/setup.ts';
import { idealReadings, inputsFromReadings, synthesize } from '../../src/estimation/synthesize.ts';
import { integrate } from '../../src/model/lie.ts';
import { Rng } from '../../src/model/rng.ts';
import { randomState } from '../state.ts';

function system(p: object): EstimationSystem {
  const problem = parseProblem(JSON.stringify(p));
  return buildEstimationSystem(modelForProblem(problem, '.'), problem);
}

function check(es: EstimationSystem, contact: string, balance: string | null, noise: number, seed: number): void {
  const model = es.model, rng = new Rng(seed), est = new Estimator(es);
  const s = randomState(model, rng);
  const fext = Array.from({ length: model.nb }, () => new Float64Array(6));
  const cb = model.frame(contact).body;
  for (let k = 0; k < 6; k++) fext[cb][k] = rng.uniform(-20, 20);
  const truth = synthesize(model, s.q, s.v, s.a, fext, balance ? model.frame(balance).body : undefined);
  const readings = new Map([...idealReadings(es, truth)].map(([k, v]) => [k, v.map((x) => x + noise * rng.normal())]));
  const y = inputsFromReadings(es, readings);
  const d0 = Float64Array.from(est.estimate(s.q, s.v, y));
  const sens = new EstimateSensitivity(est).compute(s.q, s.v, y);
  // the estimate is quadratic in q̇ and affine in y (central differences exact up to round-off: large
  // steps); in q, 1e-5 balances truncation and round-off
  const n = es.sys.n;
  let h = 1e-5;
  const scale = Math.max(...Array.from(d0, Math.abs), 1);
  const compare = (analytic: Float64Array, col: number, plus: () => Float64Array, minus: () => Float64Array, what: string) => {
    const dp = Float64Array.from(plus()), dm = Float64Array.from(minus());
    let err = 0, mag = 0;
    for (let j = 0; j < n; j++) {
      const fd = (dp[j] - dm[j]) / (2 * h);
      err = Math.max(err, Math.abs(fd - analytic[col * n + j]));
      mag = Math.max(mag, Math.abs(fd));
    }
    expect(err / Math.max(mag, 1e-3 * scale), `${what}: error ${err} against ${mag}`).toBeLessThan(1e-6);
  };
  for (const k of [0, model.nv >> 1, model.nv - 1]) {
    h = 1e-5;
    const dq = new Float64Array(model.nv);
    dq[k] = h; const qp = integrate(model, s.q, dq);
    dq[k] = -h; const qm = integrate(model, s.q, dq);
    compare(sens.dd_dq, k, () => est.estimate(qp, s.v, y), () => est.estimate(qm, s.v, y), `∂d/∂q[${k}]`);
    h = 1e-3;
    const vp = Float64Array.from(s.v), vm = Float64Array.from(s.v);
    vp[k] += h; vm[k] -= h;
    compare(sens.dd_dv, k, () => est.estimate(s.q, vp, y), () => est.estimate(s.q, vm, y), `∂d/∂q̇[${k}]`);
  }
  h = 1e-2;
  for (const c of [es.sys.ny - 1, es.sys.ny - 7, es.sys.ny - 20]) {
    const yp = Float64Array.from(y), ym = Float64Array.from(y);
    yp[c] += h; ym[c] -= h;
    compare(sens.dd_dy, c, () => est.estimate(s.q, s.v, yp), () => est.estimate(s.q, s.v, ym), `∂d/∂y[${es.sys.inputNames[c]}]`);
  }
}

describe('derivatives of the estimate by factor reuse = central differences', () => {
  it('square layout: 3-D chain with load cells at both end links', () => {
    const comps = ['tx', 'ty', 'fx', 'fy', 'fz'];
    const es = system({
      model: 'chain:10', base: 'fixed', contacts: ['link10'],
      sensors: [
        { name: 'qdd', type: 'joint_acceleration', joints: Array.from({ length: 6 }, (_, k) => `joint${k + 3}`) },
        { name: 'cell1', type: 'force_torque', joint: 'joint1', components: comps },
        { name: 'cell2', type: 'external_wrench', link: 'link10', components: comps },
      ],
    });
    expect(new Estimator(es).mode).toBe('square');
    check(es, 'link10', null, 0, 3);
  });

  it('redundant layout (weighted least squares) with a nonzero residual: humanoid with ankle F/T sensors', () => {
    const es = system({
      model: 'models/humanoid.urdf', base: 'floating', contacts: ['l_sole', 'r_sole'],
      sensors: [
        { name: 'qdd', type: 'joint_acceleration', joints: 'all', variance: 0.01 },
        { name: 'ft_l', type: 'force_torque', joint: 'l_ankle_roll', variance: 2 },
        { name: 'ft_r', type: 'force_torque', joint: 'r_ankle_roll', variance: 2 },
      ],
    });
    expect(new Estimator(es).mode).toBe('wls');
    check(es, 'l_sole', 'r_sole', 0.5, 4);
  });
});
