/**
 * The finite-difference checker and its chart: the δ grid, the sweep's V shape (truncation then
 * round-off, paper 003 Figure 5), errors named, and the SVG drawn without a DOM.
 */
import { describe, expect, it } from 'vitest';
import { LuInverseDynamicsDerivatives } from '../../src/derivatives/dynamics.ts';
import { bestOfSweep, deltaRange, fdSweep, FiniteDifferenceDerivatives, relativeErrors } from '../../src/derivatives/finite-differences.ts';
import { randomTree } from '../../src/model/generators.ts';
import { Rng } from '../../src/model/rng.ts';
import { sweepChartSvg } from '../../src/report/derivatives-chart.ts';
import { randomState } from '../state.ts';

describe('geometric finite differences', () => {
  it('deltaRange gives clean log-spaced steps', () => {
    expect(deltaRange(-1, -3, 2)).toEqual([1e-1, 10 ** -1.5, 1e-2, 10 ** -2.5, 1e-3].map((x) => Number(x.toPrecision(15))));
    expect(deltaRange(-5, -5, 2)).toEqual([1e-5]);
  });

  it('the error of ∂τ/∂q falls as δ² then rises as ε/δ (the V of paper 003 Figure 5)', () => {
    const model = randomTree(8, 81, { floatingBase: true });
    const { q, v, a } = randomState(model, new Rng(1));
    const lu = new LuInverseDynamicsDerivatives(model).compute(q, v, a);
    const pts = fdSweep(model, 'id', q, v, a, lu, deltaRange(-1, -12, 1)).filter((p) => p.quantity === 'dq');
    const err = (d: number) => pts.find((p) => Math.abs(p.delta / d - 1) < 1e-9)!.maxError;
    // truncation: a decade of δ is two decades of error
    expect(err(1e-2) / err(1e-3)).toBeGreaterThan(50);
    expect(err(1e-2) / err(1e-3)).toBeLessThan(200);
    // round-off: a decade of δ down is a decade of error up (within a factor of 5)
    expect(err(1e-11) / err(1e-10)).toBeGreaterThan(2);
    const best = bestOfSweep(pts);
    expect(best.dq.delta).toBeGreaterThanOrEqual(1e-7);
    expect(best.dq.delta).toBeLessThanOrEqual(1e-4);
    for (const p of pts) expect(p.meanError).toBeLessThanOrEqual(p.maxError);
  });

  it('relativeErrors scales by the largest exact entry', () => {
    expect(relativeErrors([1, 2.5], [1, 2])).toEqual({ max: 0.25, mean: 0.125 });
  });

  it('names bad arguments', () => {
    const model = randomTree(3, 82);
    expect(() => new FiniteDifferenceDerivatives(model, 'id', 0)).toThrow('delta is 0, expected a positive number');
    expect(() => new FiniteDifferenceDerivatives(model, 'xd' as never)).toThrow('problem is "xd", expected id or fd');
    const fd = new FiniteDifferenceDerivatives(model, 'fd');
    const { q } = randomState(model, new Rng(2));
    expect(() => fd.compute(q, null, new Float64Array(1))).toThrow(`tau has length 1, expected model.nv = ${model.nv}`);
    expect(() => bestOfSweep([])).toThrow('the sweep has no points');
  });
});

describe('sweep chart', () => {
  it('draws one path per series, the guides and the legend, leaving out non-positive points', () => {
    const svg = sweepChartSvg({
      title: 'T <&>',
      series: [
        { name: 'max', points: [[1e-1, 1e-3], [1e-3, 1e-7], [1e-5, 1e-11], [1e-7, 1e-9], [1e-9, 0]] },
        { name: 'mean', dashed: true, points: [[1e-1, 1e-4], [1e-3, 1e-8]] },
      ],
    });
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg).toContain('T &lt;&amp;&gt;');
    expect(svg.match(/<path class="series"/g)).toHaveLength(2);
    expect(svg.match(/<path class="guide"/g)).toHaveLength(2);
    expect(svg.match(/<circle/g)).toHaveLength(6);
    expect(svg).toContain('stroke-dasharray="6 4"');
    expect(() => sweepChartSvg({ title: 'empty', series: [{ name: 'x', points: [[0, 1]] }] })).toThrow('"empty" has no point');
  });
});
