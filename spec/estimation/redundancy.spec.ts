/**
 * The redundant sensors of `analyze`: the leverage test from one QR of G per configuration (with a
 * rank test where it is unsure) gives the verdicts of the rank test of G without each sensor's rows
 * at each configuration (`analyzeProblemByRank`, the reference), on the shipped problems, on random
 * layouts (random trees, bases, contacts, joint, F/T, torque and link sensors, near-coincident and
 * identical sensors) and on a problem of 100 distinct accelerometers.
 */
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { analyzeProblem, analyzeProblemByRank, redundancyTally } from '../../src/estimation/analysis.ts';
import { parseProblem } from '../../src/estimation/problem.ts';
import { buildEstimationSystem, type EstimationSystem } from '../../src/estimation/setup.ts';
import { Rng } from '../../src/model/rng.ts';
import { loadEstimationSystem, modelForProblem } from '../../src/node/problem-file.ts';
import { manyAccelerometers } from '../../scripts/bench-analyze-sensors.ts';

function system(p: object): EstimationSystem {
  const problem = parseProblem(JSON.stringify(p), 'test problem');
  return buildEstimationSystem(modelForProblem(problem, '.'), problem);
}

const tally = () => ({ ...redundancyTally });
const since = (a: typeof redundancyTally) => ({ leverage: redundancyTally.leverage - a.leverage, alone: redundancyTally.alone - a.alone, rank: redundancyTally.rank - a.rank });

/** A random layout on a random tree of n bodies (b1…bn, joints j1…jn, base link "base"). */
function randomLayout(rng: Rng): object {
  const n = 3 + rng.int(8), branch = 1 + rng.int(3);
  const body = () => (rng.int(n + 1) === 0 ? 'base' : `b${1 + rng.int(n)}`);
  const joint = () => `j${1 + rng.int(n)}`;
  const xyz = () => [0, 0, 0].map(() => Math.round(rng.uniform(-0.3, 0.3) * 1000) / 1000);
  const floating = rng.int(3) > 0;
  const contacts = [...new Set(Array.from({ length: rng.int(3) }, () => `b${1 + rng.int(n)}`))].map((link) => ({ link }));
  const sensors: object[] = [];
  let k = 0;
  const add = (s: object) => sensors.push({ name: `s${k++}`, ...s });
  if (rng.int(4) > 0) add({ type: 'joint_acceleration', joints: 'all' });
  else add({ type: 'joint_acceleration', joints: [...new Set(Array.from({ length: 1 + rng.int(n) }, joint))] });
  if (floating && rng.int(3) > 0) add({ type: 'spatial_acceleration', link: 'base' });
  if (rng.int(2)) add({ type: 'gyroscope', link: body() });
  for (let i = rng.int(4); i > 0; i--) add({ type: 'force_torque', joint: joint() });
  for (let i = rng.int(3); i > 0; i--) add({ type: 'joint_torque', joint: joint() });
  for (let i = rng.int(6); i > 0; i--) {
    const link = body(), o = xyz();
    add({ type: 'accelerometer', link, origin: { xyz: o } });
    // a near-coincident one now and then (origins 1e-7 or 1e-3 apart) and an identical one (a twin)
    const r = rng.int(6);
    if (r === 0) add({ type: 'accelerometer', link, origin: { xyz: [o[0] + 1e-7, o[1], o[2]] } });
    if (r === 1) add({ type: 'accelerometer', link, origin: { xyz: [o[0], o[1] + 1e-3, o[2]] } });
    if (r === 2) add({ type: 'accelerometer', link, origin: { xyz: o } });
  }
  return { model: `tree:${n}:${branch}`, base: floating ? 'floating' : 'fixed', contacts, sensors };
}

describe('redundant sensors: the leverage test against a rank test per sensor', () => {
  it('the shipped problems: the same report', () => {
    for (const f of readdirSync('data/problems').filter((x) => x.endsWith('.json'))) {
      const { es } = loadEstimationSystem(`data/problems/${f}`);
      expect(analyzeProblem(es), f).toEqual(analyzeProblemByRank(es));
    }
  });

  it('200 random layouts: the same report, most tests decided by the leverage test', () => {
    const rng = new Rng(20261128);
    const d = { leverage: 0, alone: 0, rank: 0 };
    let tested = 0;
    for (let c = 0; c < 200; c++) {
      const p = randomLayout(rng);
      let es: EstimationSystem;
      try { es = system(p); } catch { continue; } // a layout the problem file refuses (a contact on a sensor's joint, …)
      const t0 = tally();
      const fast = analyzeProblem(es);
      const dc = since(t0);
      d.leverage += dc.leverage; d.alone += dc.alone; d.rank += dc.rank;
      expect(fast, JSON.stringify(p)).toEqual(analyzeProblemByRank(es));
      if (fast.verdict !== 'ill_posed') tested++;
    }
    expect(tested).toBeGreaterThan(50);
    expect(d.leverage + d.alone).toBeGreaterThan(d.rank);
  });

  it('100 distinct accelerometers on the humanoid: the same report, the rank test only for the sensors that are not redundant', () => {
    const text = manyAccelerometers(100);
    const es = buildEstimationSystem(modelForProblem(parseProblem(text, 'many.json'), '.'), parseProblem(text, 'many.json'));
    const t0 = tally();
    const fast = analyzeProblem(es);
    const d = since(t0);
    expect(fast).toEqual(analyzeProblemByRank(es));
    expect(fast.redundant_sensors).toHaveLength(103);
    // (its time, and that of 800, are in reports/fuzz.md: a test states no time)
    expect(d.leverage).toBeGreaterThanOrEqual(100 * 7);
    expect(d.rank).toBeLessThanOrEqual(2 * 7 + 1);
  });
});
