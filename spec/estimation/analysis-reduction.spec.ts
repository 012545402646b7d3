/**
 * The analysis's rank without a dense G (joint-sensor rows eliminated exactly, the rest by SVD)
 * against the rank of the dense [D; D_Y] at every configuration tried, on random trees with
 * partial joint sensing, a base IMU, F/T sensors and contacts; well posed, ill posed and the
 * redundancy verdicts checked by removing each sensor.
 */
import { describe, expect, it } from 'vitest';
import { denseRank } from './dense-rank.ts';
import { analyzeProblem } from '../../src/estimation/analysis.ts';
import { parseProblem } from '../../src/estimation/problem.ts';
import { buildEstimationSystem, type EstimationSystem } from '../../src/estimation/setup.ts';
import { modelForProblem } from '../../src/node/problem-file.ts';

function system(p: object): EstimationSystem {
  const problem = parseProblem(JSON.stringify(p), 'test problem');
  return buildEstimationSystem(modelForProblem(problem, '.'), problem);
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
