/**
 * for await (const row of readLog(path, schema)): the rows of a sensor log file on Node, streamed
 * (NDJSON or RFC 4180 CSV, told apart by the content; a BOM is dropped; or a ROS 2 recording, MCAP,
 * told by its magic bytes). The reading of the text is src/io/log-reader.ts, the parsing of a row
 * src/io/log.ts, the sampling of a recording src/io/mcap-log.ts.
 */
import { createReadStream } from 'node:fs';
import * as zlib from 'node:zlib';
import type { RosMapping } from '../estimation/ros-mapping.ts';
import { CsvRows, parseNdjsonLine, type LogError, type LogSchema, type Sample } from '../io/log.ts';
import { logRows, type LogFormat } from '../io/log-reader.ts';
import { McapSampler, mcapSamples, type Crc32 } from '../io/mcap-log.ts';
import { openLogSource } from './log-source.ts';

/**
 * Node's CRC-32 (zlib.crc32: native, from Node 20.15 and 22.2), with which a recording's chunks are
 * checked (McapSampler); undefined on an older Node, where the MCAP reader's own runs
 */
export const nodeCrc32: Crc32 | undefined = typeof (zlib as { crc32?: unknown }).crc32 === 'function'
  ? (zlib as unknown as { crc32: Crc32 }).crc32
  : undefined;

/**
 * The rows of a log file, in order: a {@link Sample} for each valid row, a {@link LogError}
 * (line number and message) for each malformed one, so that a caller can skip it and go on.
 * Blank lines are ignored; a CSV file's first record is its header (a header that does not fit
 * the schema throws a RangeError naming the column). `format` overrides the detection. A ROS 2
 * recording is sampled as the problem's `ros` section says (`opts.ros`; an McapLogError without it).
 */
export async function* readLog(path: string, schema: LogSchema, opts: { format?: LogFormat; ros?: RosMapping } = {}): AsyncGenerator<Sample | LogError> {
  if (!opts.format) {
    const src = await openLogSource(path);
    if (src.mcap) { yield* mcapSamples(src.bytes, schema, opts.ros, opts.ros && new McapSampler(schema, opts.ros, undefined, nodeCrc32)); return; }
    yield* textRows(src.text, schema, opts);
    return;
  }
  const chunks = createReadStream(path, { encoding: 'utf8' }) as AsyncIterable<string>;
  yield* textRows(chunks, schema, opts);
}

async function* textRows(chunks: AsyncIterable<string>, schema: LogSchema, opts: { format?: LogFormat }): AsyncGenerator<Sample | LogError> {
  let reader: CsvRows | null = null;
  for await (const raw of logRows(chunks, opts)) {
    if (raw.kind === 'error') yield { line: raw.line, message: raw.message };
    else if (raw.kind === 'ndjson') yield parseNdjsonLine(schema, raw.text, raw.line);
    else if (reader === null) reader = new CsvRows(schema, raw.cells, raw.line);
    else yield reader.parse(raw.cells, raw.line);
  }
}
