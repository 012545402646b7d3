/**
 * The CDR bytes (little-endian, as ROS 2 writes them) of the messages an estimates recording holds,
 * written field by field with @foxglove/cdr's CdrWriter into one reused buffer. The bytes are those
 * of @foxglove/rosmsg2-serialization's MessageWriter (which walks the message definition for every
 * message and allocates its own buffer each time) at a fraction of the cost: a recording holds 34
 * messages per sample. The field order is the message definition's; the encoding (encapsulation
 * header, alignment, lengths, terminators) is CdrWriter's.
 *
 * The bytes returned are a view into the buffer, valid until the next message: McapWriter copies a
 * message's data into its chunk as it adds it.
 */
import { CdrWriter } from '@foxglove/cdr';

export class CdrOut {
  private buffer = new ArrayBuffer(1024);
  private w = new CdrWriter({ buffer: this.buffer });

  /** start a message (CdrWriter writes the encapsulation header: CDR, little-endian) */
  begin(): this {
    // the writer grew its buffer for the last message: keep the larger one
    if (this.w.size > this.buffer.byteLength) this.buffer = this.w.data.buffer as ArrayBuffer;
    this.w = new CdrWriter({ buffer: this.buffer });
    return this;
  }

  /** the size of the message so far (bytes) */
  get size(): number {
    return this.w.size;
  }

  /** the message so far (a view into the buffer) */
  data(): Uint8Array {
    return this.w.data;
  }

  uint8(x: number): this { this.w.uint8(x); return this; }
  int32(x: number): this { this.w.int32(x); return this; }
  uint32(x: number): this { this.w.uint32(x); return this; }
  float64(x: number): this { this.w.float64(x); return this; }
  string(s: string): this { this.w.string(s); return this; }

  /** the count of a sequence whose elements follow */
  count(n: number): this { this.w.sequenceLength(n); return this; }

  /** a sequence of float64: its count, then the values (`n` of them from `from`, default all) */
  float64s(xs: ArrayLike<number>, n = xs.length, from = 0): this {
    this.w.sequenceLength(n);
    for (let k = 0; k < n; k++) this.w.float64(xs[from + k]);
    return this;
  }

  /** a sequence of strings */
  strings(xs: readonly string[]): this {
    this.w.sequenceLength(xs.length);
    for (const s of xs) this.w.string(s);
    return this;
  }

  /** std_msgs/Header: stamp (int32 sec, uint32 nanosec), frame_id */
  header(sec: number, nanosec: number, frame: string): this {
    return this.int32(sec).uint32(nanosec).string(frame);
  }
}
