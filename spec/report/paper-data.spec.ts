/** The tables of Nori's Figures 1 and 2 (read from ../shared, never committed) parse, and malformed ones are refused by line and column. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { paperSum, paperValue, parsePaperCsv } from '../../src/report/paper-data.ts';
import { describeShared, shared } from '../shared.ts';

describeShared('the figure data of Nori 2017 (author\'s code under Octave)', () => {
  it('reads Figure 1: ABA by the book formula, every column numeric', () => {
    const t = parsePaperCsv(readFileSync(shared('papers/004-figures/figure1_forward_dynamics_chain.csv'), 'utf8'), 'figure1.csv');
    expect(t.columns).toContain('lu_pq_mults_standard');
    const row = t.rows.find((r) => r.NB === 10)!;
    expect(paperSum(row, 'aba')).toBe(205 * 10 - 248 + 224 * 10 - 259);
    expect(paperSum(row, 'lu_pq', '_standard')).toBe(row.lu_pq_adds_standard + row.lu_pq_mults_standard);
  });

  it('reads Figure 2: 26 unknowns per body, rank = rows', () => {
    const t = parsePaperCsv(readFileSync(shared('papers/004-figures/figure2_estimation_chain_load_cells.csv'), 'utf8'), 'figure2.csv');
    for (const r of t.rows) { expect(r.rows).toBe(26 * r.NB); expect(r.rank).toBe(r.rows); }
    expect(paperValue(t, 4, 'nnz_D')).toBe(332);
    expect(paperValue(t, 3, 'nnz_D')).toBeUndefined();
  });

});

describe('paper figure tables', () => {
  it('names a malformed cell and a short line', () => {
    expect(() => parsePaperCsv('NB,a\n1,2\n2,x\n', 'f.csv')).toThrow(/f\.csv: line 3, column a: "x" is not a number/);
    expect(() => parsePaperCsv('NB,a\n1\n', 'f.csv')).toThrow(/f\.csv: line 2 has 1 cells, expected 2/);
    expect(() => parsePaperCsv('N,a\n1,2\n', 'f.csv')).toThrow(/first column must be NB/);
  });
});
