/**
 * The data behind Nori (2017)'s Figures 1 and 2 (studies/paper-004/*.csv, from the author's MATLAB
 * code run under Octave; see studies/paper-004/README.md): a numeric CSV with a header row, read
 * into columns by name. The text is parsed here; the caller reads the file.
 */

export interface PaperTable {
  columns: string[];
  rows: Record<string, number>[];
}

export function parsePaperCsv(text: string, file: string): PaperTable {
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '');
  if (lines.length < 2) throw new RangeError(`${file}: expected a header and at least one row`);
  const columns = lines[0].split(',').map((s) => s.trim());
  if (columns[0] !== 'NB') throw new RangeError(`${file}: the first column must be NB, got "${columns[0]}"`);
  const rows = lines.slice(1).map((l, k) => {
    const cells = l.split(',');
    if (cells.length !== columns.length) throw new RangeError(`${file}: line ${k + 2} has ${cells.length} cells, expected ${columns.length}`);
    const row: Record<string, number> = {};
    cells.forEach((c, j) => {
      const x = Number(c);
      if (c.trim() === '' || !Number.isFinite(x)) throw new RangeError(`${file}: line ${k + 2}, column ${columns[j]}: "${c}" is not a number`);
      row[columns[j]] = x;
    });
    return row;
  });
  return { columns, rows };
}

/** A column's value at N_B (undefined when the table has no such row or column). */
export function paperValue(t: PaperTable, nb: number, column: string): number | undefined {
  return t.rows.find((r) => r.NB === nb)?.[column];
}

/** adds + mults of a column pair named `<prefix>_adds…` and `<prefix>_mults…` (suffix optional). */
export function paperSum(row: Record<string, number>, prefix: string, suffix = ''): number | undefined {
  const a = row[`${prefix}_adds${suffix}`], m = row[`${prefix}_mults${suffix}`];
  return a === undefined || m === undefined ? undefined : a + m;
}
