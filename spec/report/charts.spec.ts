/**
 * Line charts as SVG strings: well-formed, one <path class="series"> per drawn series, points a log
 * axis cannot show left out, names escaped; and the source inlined in the HTML page draws the same
 * SVG when evaluated on its own (what the browser does).
 */
import * as d3 from 'd3';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { chartSvg, drawLineChartSource, type ChartSpec } from '../../src/report/charts.ts';

const spec: ChartSpec = {
  id: 'demo', title: 'flops <vs> N_B & more', subtitle: 'sub', xLabel: 'N_B', yLabel: 'flops', xLog: true, yLog: true,
  series: [
    { name: 'aba', points: [[1, 160], [10, 7387], [100, 79657]] },
    { name: 'lu:auto', points: [[1, 188], [10, 7933], [100, 93468]], dashed: true },
    { name: 'with <zero>', points: [[1, 0], [10, -3], [100, 5]] },
    { name: 'empty', points: [] },
  ],
  notes: ['a note'],
};

function parse(svg: string): Record<string, unknown> {
  expect(XMLValidator.validate(svg)).toBe(true);
  return new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@_' }).parse(svg);
}

/** every element named `tag` anywhere under `node` */
function all(node: unknown, tag: string, out: Record<string, string>[] = []): Record<string, string>[] {
  if (Array.isArray(node)) { for (const n of node) all(n, tag, out); return out; }
  if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === tag) (Array.isArray(v) ? v : [v]).forEach((x) => out.push(x as Record<string, string>));
      all(v, tag, out);
    }
  }
  return out;
}

describe('drawLineChart', () => {
  const svg = chartSvg(spec);
  const doc = parse(svg);

  it('draws one series path per series with a drawable point, named', () => {
    const paths = all(doc, 'path').filter((p) => p['@_class'] === 'series');
    expect(paths.map((p) => p['@_data-series'])).toEqual(['aba', 'lu:auto', 'with <zero>']);
    expect(paths[1]['@_stroke-dasharray']).toBe('6 4');
    for (const p of paths) expect(p['@_d']).toMatch(/^M[\d.]+,[\d.]+/);
    // the log axes drop 0 and −3: one point left for "with <zero>"
    expect(paths[2]['@_d']).not.toContain('L');
  });

  it('lists every series in the legend, the empty one marked', () => {
    expect(svg).toContain('with &lt;zero&gt;');
    expect(svg).toContain('empty (no data)');
    expect(svg).toContain('flops &lt;vs&gt; N_B &amp; more');
  });

  it('puts log ticks at powers of ten', () => {
    const labels = all(doc, 'text').map((t) => String(t['#text'] ?? ''));
    for (const l of ['1', '10', '100', '1k', '10k', '100k']) expect(labels).toContain(l);
  });

  it('the inlined source draws the same SVG with the page\'s d3', () => {
    const make = new Function('d3', `${drawLineChartSource()}\nreturn drawLineChart;`) as (d: typeof d3) => (d: typeof d3, s: ChartSpec) => string;
    expect(make(d3)(d3, spec)).toBe(svg);
  });

  it('draws a linear chart including zero and negative values', () => {
    const lin = chartSvg({ ...spec, id: 'lin', xLog: false, yLog: false });
    const paths = all(parse(lin), 'path').filter((p) => p['@_class'] === 'series');
    expect(paths).toHaveLength(3);
    expect(paths[2]['@_d'].split('L')).toHaveLength(3);
  });
});
