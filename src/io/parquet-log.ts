/**
 * A sensor log stored as Apache Parquet (a data pipeline's columnar file): flat columns named as a
 * CSV log's (`t`, `q.<joint>`, `v.<joint>`, `base.px` … `base.wz`, `<sensor>.<component>`,
 * `contacts`, `truth.…`), one sample per row, read row group by row group through hyparquet (memory
 * bounded by one group). Each row becomes the cells of a CSV row and goes through the CSV log's
 * checks, so that a Parquet log and the CSV log of the same numbers give the same estimates: a number
 * becomes its shortest decimal (which reads back as the same double), a null an empty cell (a
 * reading the row lacks). Rows are numbered from 1 (the "line" of messages and estimates is the row
 * number), the column names are row 0. Nothing here touches the file system: the caller gives the
 * file as an AsyncBuffer (random access: the index of a Parquet file is at its end).
 */
import { parquetMetadataAsync, parquetRead, type AsyncBuffer } from 'hyparquet';
import type { RawRow } from './log-reader.ts';

/** the magic bytes that begin (and end) a Parquet file */
export function isParquet(head: Uint8Array): boolean {
  return head.length >= 4 && head[0] === 0x50 && head[1] === 0x41 && head[2] === 0x52 && head[3] === 0x31;
}

/** A Parquet log that cannot be read as one: what is wrong, in the user's words. */
export class ParquetLogError extends Error {}

/** a cell of a row: the value as a CSV log would hold it */
function cell(v: unknown, column: string, row: number): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  if (typeof v === 'string') return v;
  if (v instanceof Date) return String(v.getTime() / 1000);
  if (typeof v === 'boolean') return String(v);
  throw new ParquetLogError(`row ${row}, column "${column}": a ${Array.isArray(v) ? 'list' : 'structure'}, where a log holds numbers (one value per column: "${column}.x", …)`);
}

/**
 * The log's rows in groups (one per row group): first its column names as a header row (row 0), then
 * each row's cells. Refused (ParquetLogError) when a column is not flat.
 */
export async function* parquetRows(file: AsyncBuffer): AsyncGenerator<RawRow[]> {
  let metadata;
  try {
    metadata = await parquetMetadataAsync(file);
  } catch (e) {
    throw new ParquetLogError(`not a readable Parquet file (${(e as Error).message})`);
  }
  const top = metadata.schema[0];
  const names: string[] = [];
  // the top-level columns; a nested one (a group of fields, a list) is refused by name
  for (let k = 1, n = 0; n < (top.num_children ?? 0) && k < metadata.schema.length; n++) {
    const el = metadata.schema[k];
    if (el.num_children) throw new ParquetLogError(`column "${el.name}" is nested (a list or a structure); a log's columns are flat, one number each, named as a CSV log's`);
    names.push(el.name);
    k++;
  }
  yield [{ kind: 'csv', line: 0, cells: names }];
  let start = 0;
  for (const g of metadata.row_groups) {
    const end = start + Number(g.num_rows);
    const rows = await new Promise<unknown[][]>((resolve, reject) => {
      parquetRead({ file, metadata, rowStart: start, rowEnd: end, onComplete: (r) => resolve(r as unknown[][]) }).catch(reject);
    });
    const out: RawRow[] = new Array(rows.length);
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i], line = start + i + 1;
      try {
        out[i] = { kind: 'csv', line, cells: names.map((c, j) => cell(r[j], c, line)) };
      } catch (e) {
        if (!(e instanceof ParquetLogError)) throw e;
        out[i] = { kind: 'error', line, message: e.message.replace(/^row \d+, /, '') };
      }
    }
    start = end;
    if (out.length) yield out;
  }
}
