/**
 * The analysis's rank without a dense G (joint-sensor rows eliminated exactly, the rest by SVD)
 * against the rank of the dense [D; D_Y] at every configuration tried, on random trees with
 * partial joint sensing, a base IMU, F/T sensors and contacts; well posed, ill posed and the
 * redundancy verdicts checked by removing each sensor.
 */
import { Matrix, SingularValueDecomposition } from 'ml-matrix';
import { describe, expect, it } from 'vitest';
import { fillSystem, SystemValues } from '../../src/assembly/system.ts';
import { analyzeProblem } from '../../src/estimation/analysis.ts';
import { parseProblem } from '../../src/estimation/problem.ts';
import { buildEstimationSystem, type EstimationSystem } from '../../src/estimation/setup.ts';
import { modelForProblem } from '../../src/node/problem-file.ts';

function system(p: object): EstimationSystem {
  const problem = parseProblem(JSON.stringify(p), 'test problem');
  return buildEstimationSystem(modelForProblem(problem, '.'), problem);
}

/** Independent rank of the dense [D; D_Y] at q (ml-matrix SVD, no reduction). */
function denseRank(es: EstimationSystem, q: Float64Array): number {
  const vals = new SystemValues(es.sys);
  fillSystem(vals, q, null, new Float64Array(es.sys.ny));
  const D = Matrix.zeros(es.sys.m, es.sys.n);
  const A = es.sys.pattern;
  for (let j = 0; j < A.n; j++) for (let p = A.Ap[j]; p < A.Ap[j + 1]; p++) D.set(A.Ai[p], j, vals.Ax[p]);
  const sv = new SingularValueDecomposition(D, { computeLeftSingularVectors: false, computeRightSingularVectors: false, autoTranspose: true }).diagonal;
  const mx = Math.max(...sv);
  return sv.filter((s) => s > 1e-10 * mx).length;
}

const joints = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, k) => `j${from + k}`);

const layouts: [string, object, string][] = [
  ['every joint sensed, IMU, two F/T sensors, two contacts', {
    model: 'tree:14:3', base: 'floating', contacts: [{ link: 'b14' }, { link: 'b7' }],
    sensors: [
      { name: 'enc', type: 'joint_acceleration', joints: 'all' },
      { name: 'imu', type: 'spatial_acceleration', link: 'base' },
      { name: 'ft14', type: 'force_torque', joint: 'j14' },
      { name: 'ft7', type: 'force_torque', joint: 'j7' },
    ],
  }, 'well_posed'],
  ['half the joints sensed, IMU, one F/T sensor, one contact', {
    model: 'tree:12:5', base: 'floating', contacts: [{ link: 'b12' }],
    sensors: [
      { name: 'enc', type: 'joint_acceleration', joints: joints(1, 6) },
      { name: 'imu', type: 'spatial_acceleration', link: 'base' },
      { name: 'ft12', type: 'force_torque', joint: 'j12' },
    ],
  }, 'ill_posed'],
  ['torque sensing only on a fixed base with a contact', {
    model: 'tree:10:2', base: 'fixed', contacts: [{ link: 'b10' }],
    sensors: [
      { name: 'enc', type: 'joint_acceleration', joints: 'all' },
      { name: 'ft10', type: 'force_torque', joint: 'j10' },
      { name: 'ft9', type: 'force_torque', joint: 'j9' },
    ],
  }, ''],
];

describe('analysis rank without a dense G, against the dense [D; D_Y]', () => {
  for (const [name, p, verdict] of layouts) {
    it(name, () => {
      const es = system(p);
      const r = analyzeProblem(es);
      if (verdict) expect(r.verdict).toBe(verdict);
      expect(r.configurations.length).toBe(7);
      for (const c of r.configurations) expect(c.rank, c.name).toBe(denseRank(es, Float64Array.from(c.q)));
      if (r.verdict === 'ill_posed') expect(r.unobservable.length).toBeGreaterThan(0);
      // a sensor is redundant exactly when the layout without it keeps the rank at the random configurations
      const sensors = (p as { sensors: { name: string }[] }).sensors;
      if (r.verdict !== 'ill_posed') {
        for (const s of sensors) {
          const without = system({ ...p, sensors: sensors.filter((x) => x !== s) });
          const keeps = r.configurations.filter((c) => c.kind === 'random' || r.verdict === 'well_posed')
            .every((c) => denseRank(without, Float64Array.from(c.q)) === without.sys.n);
          expect(r.redundant_sensors.includes(s.name), s.name).toBe(keeps);
        }
      }
    });
  }
});
