/**
 * Errors of the sparse engine: a numerically singular pivot and a structurally singular pattern.
 * Source: house style (STYLE.md, "Errors"); KLU's status codes KLU_SINGULAR made into exceptions.
 *
 * Both accept optional row and column names (e.g. `tau[knee]`) so that callers who assembled the
 * matrix from named variables and equations get messages in their own words.
 */

/** Optional names of the rows (equations) and columns (unknowns) of A, used in error messages. */
export interface MatrixNames {
  readonly rowNames?: readonly string[];
  readonly colNames?: readonly string[];
}

/** `col 7 (tau[knee])` or `col 7` when no name is known. */
export function labelOf(kind: 'row' | 'col', index: number, names?: readonly string[]): string {
  const name = names?.[index];
  return name === undefined ? `${kind} ${index}` : `${kind} ${index} (${name})`;
}

/** A candidate pivot: a row of the original matrix and its value in the column being factorized. */
export interface PivotCandidate {
  readonly row: number;
  readonly value: number;
}

/**
 * Raised when no acceptable pivot exists for a column: every candidate is zero (the matrix is
 * numerically singular), or a value is not finite.
 */
export class SingularPivotError extends Error {
  override readonly name = 'SingularPivotError';
  /** column of the original matrix A whose pivot failed */
  readonly column: number;
  /** its name, when the caller gave column names */
  readonly columnName: string | undefined;
  /** rows of A still available as pivots for that column, with their values at that step */
  readonly candidates: readonly PivotCandidate[];

  constructor(column: number, candidates: readonly PivotCandidate[], names: MatrixNames = {}, reason = 'all candidate pivots are zero') {
    const shown = candidates.slice(0, 8).map((c) => `${labelOf('row', c.row, names.rowNames)} = ${c.value}`);
    const more = candidates.length > 8 ? `, … (${candidates.length} in all)` : '';
    const list = candidates.length === 0 ? 'no candidate rows' : `candidates ${shown.join(', ')}${more}`;
    super(`matrix is numerically singular at ${labelOf('col', column, names.colNames)}: ${reason}; ${list}`);
    this.column = column;
    this.columnName = names.colNames?.[column];
    this.candidates = candidates;
  }
}

/** Raised when the pattern of a square matrix has no perfect matching (structural rank < n). */
export class StructurallySingularError extends Error {
  override readonly name = 'StructurallySingularError';
  /** structural rank found by the maximum transversal */
  readonly rank: number;
  /** rows of A left unmatched by the maximum transversal */
  readonly unmatchedRows: Int32Array;
  /** columns of A left unmatched by the maximum transversal */
  readonly unmatchedCols: Int32Array;
  readonly unmatchedRowNames: readonly string[] | undefined;
  readonly unmatchedColNames: readonly string[] | undefined;

  constructor(n: number, rank: number, unmatchedRows: Int32Array, unmatchedCols: Int32Array, names: MatrixNames = {}) {
    const show = (kind: 'row' | 'col', idx: Int32Array, nm?: readonly string[]): string => {
      const parts = Array.from(idx.subarray(0, 10), (i) => labelOf(kind, i, nm));
      return parts.join(', ') + (idx.length > 10 ? `, … (${idx.length} in all)` : '');
    };
    super(
      `matrix is structurally singular: structural rank ${rank} < n = ${n}; ` +
        `unmatched ${show('row', unmatchedRows, names.rowNames)}; unmatched ${show('col', unmatchedCols, names.colNames)}`,
    );
    this.rank = rank;
    this.unmatchedRows = unmatchedRows;
    this.unmatchedCols = unmatchedCols;
    this.unmatchedRowNames = names.rowNames ? Array.from(unmatchedRows, (i) => names.rowNames![i] ?? `row ${i}`) : undefined;
    this.unmatchedColNames = names.colNames ? Array.from(unmatchedCols, (j) => names.colNames![j] ?? `col ${j}`) : undefined;
  }
}

/** Throws the RangeError used for every entry point that needs a square matrix. */
export function assertSquare(m: number, n: number, what = 'A'): void {
  if (m !== n) throw new RangeError(`${what} is ${m}×${n}; LU needs a square matrix (use maxtrans/structuralRank for rectangular patterns)`);
}
