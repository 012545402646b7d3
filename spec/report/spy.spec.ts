/**
 * Spy plots: the SVG is well-formed XML with the three panels, and the drawn entries are exactly
 * the nonzeros of D (as assembled and permuted) and the entries of L+U (fill counted apart), one
 * rect each, or aggregated cells whose counts add up to the same numbers.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { forwardDynamicsProblem, inverseDynamicsProblem } from '../../src/assembly/problems.ts';
import { SymbolicSystem } from '../../src/assembly/system.ts';
import { chain, randomTree } from '../../src/model/generators.ts';
import { spyPanels, spySvg, SPY_FILL } from '../../src/report/spy.ts';
import { analyze } from '../../src/sparse/index.ts';

type Node = Record<string, unknown>;
const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@_', isArray: (name) => ['g', 'rect', 'path', 'text'].includes(name) });

function panelsOf(svg: string): Node[] {
  expect(XMLValidator.validate(svg)).toBe(true);
  const doc = parser.parse(svg) as { svg: { g: Node[] } };
  return doc.svg.g.filter((g) => g['@_class'] === 'panel');
}

/** rects (or summed data-count of aggregated cells) in the panel's group of class `cls` */
function drawn(panel: Node, cls: 'nz' | 'fill'): number {
  const g = ((panel.g as Node[] | undefined) ?? []).find((x) => x['@_class'] === cls);
  if (!g) return 0;
  const rects = g.rect as Node[];
  return rects.reduce((s, r) => s + (r['@_data-count'] === undefined ? 1 : Number(r['@_data-count'])), 0);
}

function blockSquares(panel: Node): number {
  const g = ((panel.g as Node[] | undefined) ?? []).find((x) => x['@_class'] === 'blocks');
  return g ? ((g.rect as Node[] | undefined)?.length ?? 0) : 0;
}

describe('spy SVG', () => {
  const cases: [string, SymbolicSystem][] = [
    ['chain:6 fd', new SymbolicSystem(chain(6), forwardDynamicsProblem(chain(6)))],
    ['tree:8 floating fd', (() => { const m = randomTree(8, 3, { floatingBase: true }); return new SymbolicSystem(m, forwardDynamicsProblem(m)); })()],
    ['tree:8 floating id', (() => { const m = randomTree(8, 3, { floatingBase: true }); return new SymbolicSystem(m, inverseDynamicsProblem(m)); })()],
  ];
  for (const [name, sys] of cases) {
    it(`${name}: three panels, one rect per nonzero, fill = entries of L+U not in P D Q`, () => {
      const S = analyze(sys.pattern);
      const svg = spySvg(spyPanels(sys, S), { caption: `${name} <&>` });
      const panels = panelsOf(svg);
      expect(panels.map((p) => p['@_id'])).toEqual(['panel-assembled', 'panel-permuted', 'panel-factors']);
      const nnz = sys.nnz;
      expect(drawn(panels[0], 'nz')).toBe(nnz);
      expect(drawn(panels[0], 'fill')).toBe(0);
      expect(drawn(panels[1], 'nz')).toBe(nnz);
      expect(drawn(panels[2], 'nz') + drawn(panels[2], 'fill')).toBe(S.luNnz + S.offNnz);
      expect(drawn(panels[2], 'fill')).toBe(S.luNnz + S.offNnz - nnz);
      const big = Array.from({ length: S.nblocks }, (_, b) => S.r[b + 1] - S.r[b]).filter((s) => s >= 2).length;
      expect(blockSquares(panels[1])).toBe(big);
      if (name.endsWith('id')) {
        // triangular: no block of size ≥ 2 and no fill
        expect(big).toBe(0);
        expect(drawn(panels[2], 'fill')).toBe(0);
      } else {
        expect(drawn(panels[2], 'fill')).toBeGreaterThan(0);
      }
      // the body-block boundaries of the assembled panel
      const breaks = (panels[0].path as Node[]).find((p) => p['@_class'] === 'breaks');
      expect(String(breaks?.['@_d']).match(/M/g)?.length).toBe(2 * (sys.model.nb - 1) + 1);
    });
  }

  it('entries sit where the pattern has them (permuted panel: row pinv[i], column qinv[j])', () => {
    const sys = new SymbolicSystem(chain(3), forwardDynamicsProblem(chain(3)));
    const S = analyze(sys.pattern);
    const [a, p] = spyPanels(sys, S);
    const qinv = new Int32Array(sys.n);
    S.q.forEach((j, k) => { qinv[j] = k; });
    const key = (r: number, c: number) => r * sys.n + c;
    const want = new Set<number>(), got = new Set<number>(), gotA = new Set<number>(), wantA = new Set<number>();
    const A = sys.pattern;
    for (let j = 0; j < sys.n; j++) for (let t = A.Ap[j]; t < A.Ap[j + 1]; t++) { want.add(key(S.pinv[A.Ai[t]], qinv[j])); wantA.add(key(A.Ai[t], j)); }
    for (let t = 0; t < p.rows.length; t++) { got.add(key(p.rows[t], p.cols[t])); gotA.add(key(a.rows[t], a.cols[t])); }
    expect(got).toEqual(want);
    expect(gotA).toEqual(wantA);
    expect(p.cls.every((c) => c !== SPY_FILL)).toBe(true);
  });

  it('aggregates into pixel cells above the threshold, keeping the counts', () => {
    const m = randomTree(30, 5, { floatingBase: true });
    const sys = new SymbolicSystem(m, forwardDynamicsProblem(m));
    const S = analyze(sys.pattern);
    const size = 100;
    const svg = spySvg(spyPanels(sys, S), { panelSize: size, aggregateAbove: 200 });
    const panels = panelsOf(svg);
    expect(drawn(panels[0], 'nz')).toBe(sys.nnz);
    expect(drawn(panels[2], 'nz') + drawn(panels[2], 'fill')).toBe(S.luNnz + S.offNnz);
    for (const p of panels) {
      const cells = ((p.g as Node[]).filter((g) => g['@_class'] === 'nz' || g['@_class'] === 'fill')).reduce((s, g) => s + (g.rect as Node[]).length, 0);
      expect(cells).toBeLessThanOrEqual(2 * size * size);
      expect(cells).toBeLessThan(sys.nnz);
    }
  });

  it('refuses a SymbolicLU of another system, naming both sizes', () => {
    const a = new SymbolicSystem(chain(3), forwardDynamicsProblem(chain(3)));
    const b = new SymbolicSystem(chain(4), forwardDynamicsProblem(chain(4)));
    expect(() => spyPanels(a, analyze(b.pattern))).toThrow(/SymbolicLU \(n = 80, nnz = \d+\) does not belong to the system "forward dynamics" \(n = 60/);
  });
});
