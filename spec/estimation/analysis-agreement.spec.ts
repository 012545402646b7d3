/**
 * `estimate` and `analyze` judge a sensor layout on the same configurations (ANALYSIS_CONFIGURATIONS:
 * the neutral one, 3 special, 3 random), so that they give one verdict: the session's analysis of the
 * full layout and of a layout met later (a contact mode) are analyzeProblem's with its defaults.
 */
import { describe, expect, it } from 'vitest';
import { ANALYSIS_CONFIGURATIONS, analyzeProblem } from '../../src/estimation/analysis.ts';
import { EstimationSession } from '../../src/estimation/session.ts';
import { loadEstimationSystem } from '../../src/node/problem-file.ts';

describe('estimate judges well-posedness as analyze does', () => {
  it('on the 7 configurations of analyze, with the same verdict, for the full layout and a contact mode met later', () => {
    expect(ANALYSIS_CONFIGURATIONS).toEqual({ random: 3, special: 3 });
    const { es } = loadEstimationSystem('data/problems/humanoid-walk.json');
    const session = new EstimationSession(es, { condition: false });
    const analyze = analyzeProblem(es);
    expect(session.analysis.configurations.map((c) => c.name)).toEqual(analyze.configurations.map((c) => c.name));
    expect(session.analysis.configurations).toHaveLength(1 + ANALYSIS_CONFIGURATIONS.special + ANALYSIS_CONFIGURATIONS.random);
    expect(session.analysis.verdict).toBe(analyze.verdict);
    // a contact mode (one sole on the ground): its own analysis, on the same configurations
    const sensors = es.sensors.filter((s) => s.block >= 0).map((s) => s.spec.name);
    const one = session.layouts.get(sensors, [es.contacts[0].link]);
    expect(one.analysis.configurations.map((c) => c.name)).toEqual(analyzeProblem(one.es).configurations.map((c) => c.name));
    expect(one.analysis.verdict).toBe(analyzeProblem(one.es).verdict);
  });
});
