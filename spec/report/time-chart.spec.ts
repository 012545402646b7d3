/**
 * The estimate report's time chart, drawn without a DOM: on a log axis (the condition chart) the
 * decade ticks carry labels and no two labels overlap, however narrow the range.
 */
import * as d3 from 'd3';
import { describe, expect, it } from 'vitest';
import { drawTimeChart } from '../../src/report/time-chart.ts';

/** the y axis' labels: text and vertical position */
function yLabels(svg: string): { text: string; y: number }[] {
  const axis = /<g class="axis y">([\s\S]*?)<\/g>/.exec(svg)![1];
  return [...axis.matchAll(/<text x="-6" y="([-\d.]+)" text-anchor="end">([^<]*)<\/text>/g)].map((m) => ({ text: m[2], y: Number(m[1]) }));
}

describe('time chart', () => {
  it('a log axis labels its decades and keeps its labels at least 12 px apart', () => {
    for (const [lo, hi] of [[3.4, 4.1], [1, 10], [0.5, 40], [2, 1e4]]) {
      const t = [0, 1, 2];
      const svg = drawTimeChart(d3, { id: 'c', title: 'condition', xLabel: 't (s)', yLabel: 'condition', t, series: [{ name: 'condition', y: [lo, (lo + hi) / 2, hi] }], hline: { y: 10, label: 'limit 10' }, yLog: true });
      const labels = yLabels(svg);
      expect(labels.length, `${lo}…${hi}`).toBeGreaterThanOrEqual(2);
      const ys = labels.map((l) => l.y).sort((a, b) => a - b);
      for (let k = 1; k < ys.length; k++) expect(ys[k] - ys[k - 1], `${lo}…${hi}: ${labels.map((l) => l.text)}`).toBeGreaterThanOrEqual(12);
      for (const d of ['1', '10', '100', '1000', '10000']) {
        if (Number(d) >= lo && Number(d) <= Math.max(hi, 10)) expect(labels.map((l) => l.text), `${lo}…${hi}`).toContain(d);
      }
    }
  });

  it('a linear axis labels every tick', () => {
    const svg = drawTimeChart(d3, { id: 'c', title: 'τ', xLabel: 't (s)', yLabel: 'τ (N·m)', t: [0, 1], series: [{ name: 'τ', y: [-2, 3] }] });
    expect(yLabels(svg).map((l) => l.text)).toEqual(['−2', '−1', '0', '1', '2', '3']);
  });
});
