/**
 * Estimates written as Apache Parquet, one row per sample, through hyparquet-writer (a pure
 * JavaScript writer: no native code, the same in a browser). Columns are typed: DOUBLE for every
 * number of the CSV header (`t`, `tau.<joint>`, `contact.<link>.fx`, …), INT64 for `line`, BOOLEAN
 * for `flagged`, strings for the mode, the suspect and the near-singular direction, lists of strings
 * for the sensors used and what was implausible. A value the sample does not have (an empty CSV cell,
 * a field the NDJSON row lacks) is a Parquet null; nothing is written as NaN. Row groups are written
 * as they fill (`groupRows` samples each), so memory stays bounded whatever the log's length; the
 * bytes go to `out` as each group is written (the caller's sink, a temporary file renamed at the
 * end). Units and frames go to the file's key-value metadata.
 *
 * Chosen over parquet-wasm (through Apache Arrow's JavaScript tables) and Arrow's own writer by
 * measurement: 270 float64 columns, 20,000 rows in groups of 5,000, plain encoding without
 * statistics: 9–10 µs per row with hyparquet-writer, 27 µs with Arrow + parquet-wasm (its IPC copy
 * into WebAssembly), on this project's 2-core machine.
 */
import { ByteWriter, ParquetWriter } from 'hyparquet-writer';

/** a column of the file, in order */
export interface ParquetColumn {
  name: string;
  /**
   * DOUBLE and INT64 and BOOLEAN take their value from the row's numbers (NaN: null; BOOLEAN: 1 is
   * true); STRING and STRINGS (a list of strings) from its texts
   */
  type: 'DOUBLE' | 'INT64' | 'BOOLEAN' | 'STRING' | 'STRINGS';
  /** whether a row may lack the value (a Parquet null) */
  optional: boolean;
}

type SchemaElement = { name: string; type?: string; repetition_type?: string; converted_type?: string; num_children?: number };

/** the Parquet schema of the columns (a LIST of UTF8 strings in the three-level form the format specifies) */
function schemaOf(cols: ParquetColumn[]): SchemaElement[] {
  const s: SchemaElement[] = [{ name: 'root', num_children: cols.length }];
  for (const c of cols) {
    const rep = c.optional ? 'OPTIONAL' : 'REQUIRED';
    if (c.type === 'STRINGS') {
      s.push({ name: c.name, repetition_type: rep, converted_type: 'LIST', num_children: 1 });
      s.push({ name: 'list', repetition_type: 'REPEATED', num_children: 1 });
      s.push({ name: 'element', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'REQUIRED' });
    } else if (c.type === 'STRING') s.push({ name: c.name, type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: rep });
    else s.push({ name: c.name, type: c.type, repetition_type: rep });
  }
  return s;
}

/**
 * A streaming Parquet writer of estimate rows. A row is given as its numbers (the number columns'
 * values in their order, NaN where the row has none) and its texts (the text columns' values in their
 * order, undefined where the row has none).
 */
export class ParquetEstimateWriter {
  /** the number columns and the text columns, each in the file's order */
  private readonly numCols: number[] = [];
  private readonly textCols: number[] = [];
  /** the current group, column by column */
  private readonly nums: Float64Array[];
  private readonly texts: (string | string[] | undefined)[][];
  private rows = 0;
  private total = 0;
  private readonly writer: ParquetWriter;

  /**
   * `out`: where the file's bytes go, in order (each call's array is only valid during the call);
   * `kv`: the file's key-value metadata
   */
  constructor(readonly columns: ParquetColumn[], out: (bytes: Uint8Array) => void, kv: Record<string, string>, readonly groupRows = 8192) {
    columns.forEach((c, k) => (c.type === 'STRING' || c.type === 'STRINGS' ? this.textCols : this.numCols).push(k));
    this.nums = this.numCols.map(() => new Float64Array(groupRows));
    this.texts = this.textCols.map(() => new Array(groupRows));
    // the bytes leave as each row group is written: the buffer holds one group at most
    const bytes = new ByteWriter(1 << 20) as ByteWriter & { flush(): void };
    bytes.flush = () => { if (bytes.index > 0) { out(new Uint8Array(bytes.buffer, 0, bytes.index)); bytes.index = 0; } };
    bytes.finish = () => bytes.flush();
    // a double as ByteWriter writes it, its room checked in line (the call to `ensure` per value was a
    // fifth of the encoding's time)
    bytes.appendFloat64 = (v: number) => {
      if (bytes.index + 8 > bytes.buffer.byteLength) bytes.ensure(8);
      bytes.view.setFloat64(bytes.index, v, true);
      bytes.index += 8;
      bytes.offset += 8;
    };
    this.writer = new ParquetWriter({
      writer: bytes, schema: schemaOf(columns) as never, codec: 'SNAPPY', statistics: false,
      kvMetadata: Object.entries(kv).map(([key, value]) => ({ key, value })), createdBy: 'sparsedyn',
    });
  }

  /** the number of number columns (the length of a row's numbers) */
  get numberCount(): number { return this.numCols.length; }

  /** rows written so far */
  get rowCount(): number { return this.total + this.rows; }

  /** One row: `nums[at … at + numberCount)` and `texts` (one per text column, in order). */
  row(nums: ArrayLike<number>, at: number, texts: readonly (string | string[] | undefined)[]): void {
    const r = this.rows;
    for (let k = 0; k < this.nums.length; k++) this.nums[k][r] = nums[at + k];
    for (let k = 0; k < this.texts.length; k++) this.texts[k][r] = texts[k];
    if (++this.rows === this.groupRows) this.flushGroup();
  }

  /** The last row group, the file's metadata and footer. */
  end(): void {
    this.flushGroup();
    this.writer.finish();
  }

  private flushGroup(): void {
    const n = this.rows;
    if (n === 0) return;
    const columnData: { name: string; data: ArrayLike<unknown>; encoding?: string }[] = new Array(this.columns.length);
    this.numCols.forEach((ci, k) => {
      const c = this.columns[ci], v = this.nums[k].subarray(0, n);
      let missing = false;
      for (let i = 0; i < n; i++) if (!(v[i] - v[i] === 0)) { missing = true; break; }
      if (missing && !c.optional) throw new Error(`column ${c.name}: a row has no finite value`);
      if (c.type === 'DOUBLE') {
        // a group with missing values: nulls in a list; else the numbers as they are, plainly encoded
        columnData[ci] = { name: c.name, data: missing ? Array.from(v, (x) => (x - x === 0 ? x : null)) : v, encoding: 'PLAIN' };
      } else if (c.type === 'INT64') {
        columnData[ci] = { name: c.name, data: Array.from(v, (x) => (x - x === 0 ? BigInt(x) : null)) };
      } else {
        columnData[ci] = { name: c.name, data: Array.from(v, (x) => (x - x === 0 ? x === 1 : null)) };
      }
    });
    this.textCols.forEach((ci, k) => {
      const c = this.columns[ci], v = this.texts[k].slice(0, n);
      if (!c.optional && v.some((x) => x === undefined)) throw new Error(`column ${c.name}: a row has no value`);
      columnData[ci] = { name: c.name, data: v.map((x) => x ?? null) };
    });
    // one page per column chunk (pageSize 0: no page boundaries computed value by value)
    void this.writer.write({ columnData: columnData as never, rowGroupSize: n, pageSize: 0 });
    this.total += n;
    this.rows = 0;
    this.texts.forEach((t) => t.fill(undefined, 0, n));
  }
}
