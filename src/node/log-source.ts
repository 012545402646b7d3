/**
 * A log opened for reading (a file, or standard input for "-"), its first bytes looked at: a ROS 2
 * recording (MCAP, by its magic bytes) is read as bytes, anything else as UTF-8 text (NDJSON or
 * CSV, told apart by src/io/log-reader.ts). Nothing is read past the first chunk until the caller
 * iterates.
 */
import { createReadStream } from 'node:fs';
import { notText, type NotText } from '../io/file-kind.ts';
import { sniffBytes } from '../io/log-reader.ts';
import { isParquet } from '../io/parquet-log.ts';

/** An opened log: its kind by the first bytes, and its content as byte chunks or text chunks. */
export interface LogSource {
  mcap: boolean;
  /** an Apache Parquet file (by its magic bytes): read by random access, not as a stream */
  parquet: boolean;
  bytes: AsyncIterable<Uint8Array>;
  text: AsyncIterable<string>;
  /** bytes read from the log so far (through `bytes` or `text`) */
  readBytes(): number;
  /** what the log is when it is neither text nor a recording (a gzip file, binary data), from its first chunk; null otherwise */
  notText: NotText | null;
}

/** Open a log ("-": standard input) and look at its first bytes. */
export async function openLogSource(path: string): Promise<LogSource> {
  const stream: NodeJS.ReadableStream = path === '-' ? process.stdin : createReadStream(path);
  const it = (stream as AsyncIterable<Buffer | string>)[Symbol.asyncIterator]();
  const head: Buffer[] = [];
  let size = 0, done = false;
  while (size < 8) {
    const r = await it.next();
    if (r.done) { done = true; break; }
    const b = typeof r.value === 'string' ? Buffer.from(r.value) : r.value;
    head.push(b);
    size += b.length;
  }
  const first = Buffer.concat(head);
  let read = first.length;
  async function* bytes(): AsyncGenerator<Uint8Array> {
    if (first.length) yield first;
    if (done) return;
    for (let r = await it.next(); !r.done; r = await it.next()) {
      const b = typeof r.value === 'string' ? Buffer.from(r.value) : r.value;
      read += b.length;
      yield b;
    }
  }
  async function* text(): AsyncGenerator<string> {
    const dec = new TextDecoder('utf-8');
    for await (const b of bytes()) { const s = dec.decode(b, { stream: true }); if (s) yield s; }
    const tail = dec.decode();
    if (tail) yield tail;
  }
  const mcap = sniffBytes(first) === 'mcap';
  const parquet = !mcap && isParquet(first);
  return { mcap, parquet, bytes: bytes(), text: text(), readBytes: () => read, notText: mcap || parquet ? null : notText(first, path === '-' ? 'FILE' : path) };
}
