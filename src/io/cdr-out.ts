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

/**
 * A message that starts with a std_msgs/Header, as CdrWriter writes it with stamp zero and fixed
 * fields after it, and where its stamp lies: a message is these bytes with the stamp and the
 * numbers of the subclass patched in (the fixed fields, so every alignment, stay the same).
 */
abstract class StampedTemplate {
  /** the message with stamp 0 and its numbers 0 */
  readonly bytes: Uint8Array;
  /** byte offsets of header.stamp.sec (int32) and header.stamp.nanosec (uint32) */
  readonly secAt: number;
  readonly nanosecAt: number;

  /** `body` writes what follows the header (its numbers as 0) and returns the offset of the first number */
  protected constructor(frame: string, size: number, body: (w: CdrWriter) => number) {
    const w = new CdrWriter({ size: 64 + 3 * frame.length + size });
    w.int32(0);
    this.secAt = w.size - 4;
    w.uint32(0);
    this.nanosecAt = w.size - 4;
    w.string(frame);
    this.numbersAt = body(w);
    this.bytes = w.data.slice();
  }

  /** byte offset of the first patched number */
  protected readonly numbersAt: number;

  /** the template stamped (sec, nanosec) at `at` in `out` (`view`: a DataView over out's bytes); the numbers are the subclass's to write */
  protected stamp(out: Uint8Array, view: DataView, at: number, sec: number, nanosec: number): number {
    out.set(this.bytes, at);
    view.setInt32(at + this.secAt, sec, true);
    view.setUint32(at + this.nanosecAt, nanosec, true);
    return at + this.numbersAt;
  }
}

/**
 * One frame's geometry_msgs/msg/WrenchStamped as CdrWriter writes it (stamp and wrench zero), and
 * where its stamp and six numbers lie: a message of that frame is these bytes with those patched
 * (the frame's string, so every alignment after it, is the same from message to message). An
 * estimates recording holds one such message per contact and per joint in every sample; patching
 * saves a CdrWriter and a string encoding per message. The encoding stays CdrWriter's.
 */
export class WrenchStampedTemplate extends StampedTemplate {
  constructor(frame: string) {
    super(frame, 48, (w) => {
      w.float64(0);
      const at = w.size - 8;
      for (let k = 0; k < 5; k++) w.float64(0);
      if (w.size !== at + 48) throw new Error('internal error: the six numbers of a WrenchStamped are not contiguous');
      return at;
    });
  }

  /** byte offset of wrench.force.x (then y, z, torque x, y, z: float64) */
  get forceAt(): number {
    return this.numbersAt;
  }

  /** the message stamped (sec, nanosec) with force f and torque t, written at `at` in `out` (`view` over out's bytes); CDR little-endian */
  write(out: Uint8Array, view: DataView, at: number, sec: number, nanosec: number, f: ArrayLike<number>, t: ArrayLike<number>): void {
    const o = this.stamp(out, view, at, sec, nanosec);
    view.setFloat64(o, f[0], true);
    view.setFloat64(o + 8, f[1], true);
    view.setFloat64(o + 16, f[2], true);
    view.setFloat64(o + 24, t[0], true);
    view.setFloat64(o + 32, t[1], true);
    view.setFloat64(o + 40, t[2], true);
  }
}

/**
 * A sensor_msgs/msg/JointState with fixed joint names, empty positions and velocities, as CdrWriter
 * writes it (stamp zero, efforts zero), and where its stamp and efforts lie: the estimates'
 * torques of a sample are these bytes with those patched (the names, so every alignment, are the
 * same from sample to sample while the joints are).
 */
export class JointStateTemplate extends StampedTemplate {
  constructor(readonly names: readonly string[]) {
    let size = 8 * names.length + 16;
    for (const s of names) size += 8 + 3 * s.length;
    super('', size, (w) => {
      w.sequenceLength(names.length);
      for (const s of names) w.string(s);
      w.sequenceLength(0);
      w.sequenceLength(0);
      w.sequenceLength(names.length);
      let at = w.size;
      for (let k = 0; k < names.length; k++) {
        w.float64(0);
        if (k === 0) at = w.size - 8;
      }
      if (w.size !== at + 8 * names.length) throw new Error('internal error: the efforts of a JointState are not contiguous');
      return at;
    });
  }

  /** byte offset of effort[0] (the efforts follow, 8 bytes each) */
  get effortAt(): number {
    return this.numbersAt;
  }

  /** the message stamped (sec, nanosec) with efforts e[0 … names.length), written at `at` in `out` (`view` over out's bytes) */
  write(out: Uint8Array, view: DataView, at: number, sec: number, nanosec: number, e: ArrayLike<number>): void {
    const o = this.stamp(out, view, at, sec, nanosec);
    for (let k = 0; k < this.names.length; k++) view.setFloat64(o + 8 * k, e[k], true);
  }
}
