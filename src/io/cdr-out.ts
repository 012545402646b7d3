/**
 * The CDR bytes (little-endian, XCDR1, as ROS 2 writes them) of the messages an estimates recording
 * holds, written field by field into one reused buffer: the same bytes as @foxglove/rosmsg2-
 * serialization's MessageWriter (which interprets the message definition and allocates per
 * message), at a fraction of the cost; a recording holds 34 of them per sample. Alignment is that of
 * @foxglove/cdr's CdrWriter: each primitive on a multiple of its size from the end of the 4-byte
 * encapsulation header, padding bytes zero; a string is its length + 1, its bytes (ASCII: the
 * callers give ASCII text), and a zero; a sequence its count, then its elements.
 *
 * The bytes returned are a view into the buffer, valid until the next message: McapWriter copies a
 * message's data into its chunk as it adds it.
 */
export class CdrOut {
  private buf = new Uint8Array(1024);
  private view = new DataView(this.buf.buffer);
  private offset = 4;

  /** start a message: the encapsulation header (CDR, little-endian) */
  begin(): this {
    this.buf[0] = 0; this.buf[1] = 1; this.buf[2] = 0; this.buf[3] = 0;
    this.offset = 4;
    return this;
  }

  /** the message so far (a view into the buffer) */
  data(): Uint8Array {
    return this.buf.subarray(0, this.offset);
  }

  private room(n: number): void {
    if (this.offset + n <= this.buf.length) return;
    const b = new Uint8Array(Math.max(2 * this.buf.length, this.offset + n));
    b.set(this.buf.subarray(0, this.offset));
    this.buf = b;
    this.view = new DataView(b.buffer);
  }

  /** zero padding to a multiple of `size` from the end of the header, then room for `bytes` */
  private align(size: number, bytes: number): void {
    const a = (this.offset - 4) % size, pad = a > 0 ? size - a : 0;
    this.room(pad + bytes);
    for (let k = 0; k < pad; k++) this.buf[this.offset + k] = 0;
    this.offset += pad;
  }

  uint8(x: number): this {
    this.room(1);
    this.buf[this.offset++] = x;
    return this;
  }

  int32(x: number): this {
    this.align(4, 4);
    this.view.setInt32(this.offset, x, true);
    this.offset += 4;
    return this;
  }

  uint32(x: number): this {
    this.align(4, 4);
    this.view.setUint32(this.offset, x, true);
    this.offset += 4;
    return this;
  }

  float64(x: number): this {
    this.align(8, 8);
    this.view.setFloat64(this.offset, x, true);
    this.offset += 8;
    return this;
  }

  /** a string of ASCII text (one byte per UTF-16 unit, as CdrWriter counts it) */
  string(s: string): this {
    const n = s.length;
    this.uint32(n + 1);
    this.room(n + 1);
    const b = this.buf, o = this.offset;
    for (let k = 0; k < n; k++) b[o + k] = s.charCodeAt(k);
    b[o + n] = 0;
    this.offset += n + 1;
    return this;
  }

  /** a sequence of float64: its count, then the values (`n` of them from `from`, default all) */
  float64s(xs: ArrayLike<number>, n = xs.length, from = 0): this {
    this.uint32(n);
    for (let k = 0; k < n; k++) this.float64(xs[from + k]);
    return this;
  }

  /** a sequence of strings */
  strings(xs: readonly string[]): this {
    this.uint32(xs.length);
    for (const s of xs) this.string(s);
    return this;
  }

  /** std_msgs/Header: stamp (int32 sec, uint32 nanosec), frame_id */
  header(sec: number, nanosec: number, frame: string): this {
    return this.int32(sec).uint32(nanosec).string(frame);
  }
}
