/**
 * for await (const row of readLog(path, schema)): the rows of a sensor log file on Node, streamed
 * line by line (NDJSON, or CSV when the name ends in .csv); the parsing is in src/io/log.ts.
 */
import { createReadStream } from 'node:fs';
import { extname } from 'node:path';
import { createInterface } from 'node:readline';
import { CsvRows, parseNdjsonLine, type LogError, type LogSchema, type Sample } from '../io/log.ts';

/**
 * The rows of a log file, in order: a {@link Sample} for each valid row, a {@link LogError}
 * (line number and message) for each malformed one, so that a caller can skip it and go on.
 * Blank lines are ignored; a CSV file's first non-blank line is its header (a header that does
 * not fit the schema throws a RangeError naming the column).
 */
export async function* readLog(path: string, schema: LogSchema): AsyncGenerator<Sample | LogError> {
  const csv = extname(path).toLowerCase() === '.csv';
  let reader: CsvRows | null = null;
  let line = 0;
  const lines = createInterface({ input: createReadStream(path), crlfDelay: Infinity });
  for await (const text of lines) {
    line++;
    if (text.trim() === '') continue;
    if (!csv) {
      yield parseNdjsonLine(schema, text, line);
    } else if (reader === null) {
      reader = new CsvRows(schema, text, line);
    } else {
      yield reader.parse(text, line);
    }
  }
}
