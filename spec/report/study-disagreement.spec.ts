/** The study page's "where flops and time disagree" table: which points it lists, and its ratios. */
import { describe, expect, it } from 'vitest';
import { disagreementTable, whyTimeDiffers } from '../../src/report/study-page.ts';
import type { StudyPoint, StudyResult } from '../../src/study/runner.ts';

const point = (solver: string, nb: number, flops_ratio: number, time_ratio: number): StudyPoint => ({
  study: 's', family: 'chain', spec: `chain:${nb}`, model: `chain:${nb}`, N: nb, nb, nv: nb, problem: 'forward-dynamics', solver, baseline: 'aba',
  status: 'ok', notes: [], peak_rss_mib: 1, flops_ratio, time_ratio,
} as unknown as StudyPoint);

const result = (points: StudyPoint[]) => ({ points, config: {}, meta: {}, notes: [] } as unknown as StudyResult);

describe('disagreementTable', () => {
  it('lists a solver at an end of the sweep where time/flops leaves [1/1.5, 1.5], with its ratios and the reason', () => {
    const r = result([
      point('aba', 10, 1, 1), point('aba', 100, 1, 1), point('aba', 1000, 1, 1),
      point('lu:auto', 10, 1.2, 3.6), point('lu:auto', 100, 1.0, 9), point('lu:auto', 1000, 1.1, 1.3), // only N = 10: 3.0 (N = 100 is not an end)
      point('matrix-aba', 10, 2, 2.5), point('matrix-aba', 1000, 4, 2), // 1.25 and 0.5: only N = 1000
    ]);
    const t = disagreementTable(r, 'forward-dynamics')!;
    expect(t.rows.map((row) => [row[1], row[2], row[5]])).toEqual([['lu:auto', '10', '3.00'], ['matrix-aba', '1000', '0.50']]);
    expect(t.rows[0][6]).toBe(whyTimeDiffers('lu:auto', true));
    expect(t.rows[1][6]).toBe(whyTimeDiffers('matrix-aba', false));
  });

  it('has no table when every solver\'s time follows its flops', () => {
    const r = result([point('aba', 10, 1, 1), point('aba', 100, 1, 1), point('lu:auto', 10, 1, 1.4), point('lu:auto', 100, 2, 1.5)]);
    expect(disagreementTable(r, 'forward-dynamics')).toBeUndefined();
  });
});
