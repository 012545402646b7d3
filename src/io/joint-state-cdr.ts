/**
 * sensor_msgs/msg/JointState read straight from its CDR bytes (little-endian, XCDR1): what
 * @foxglove/rosmsg2-serialization's MessageReader gives for it (header, name, and position,
 * velocity, effort as Float64Array), without decoding the joint names of every message: a name
 * whose bytes equal those of the previous message's name at the same place is that string again (a
 * recorder sends the same list in every message), and MessageReader decodes each of them
 * (TextDecoder) — most of its cost on the joint topics, which carry some 30 names each.
 *
 * `read` returns null for anything it does not expect (another encapsulation, a length beyond the
 * data): the caller then reads the message with MessageReader, which says what is wrong.
 */
import { parse as parseMsgDefinition } from '@foxglove/rosmsg';
import { MSG_DEFINITIONS } from './mcap-estimates.ts';

/** the parsed definition of the standard JointState, as text (compared with a recording's) */
let standard: string | null = null;

/** Is this parsed message definition the standard JointState (header, name, position, velocity, effort)? */
export function isStandardJointState(definition: unknown): boolean {
  standard ??= JSON.stringify(parseMsgDefinition(MSG_DEFINITIONS['sensor_msgs/msg/JointState'], { ros2: true }));
  return JSON.stringify(definition) === standard;
}

export class JointStateReader {
  /** the names of the last message and their bytes, by place */
  private names: string[] = [];
  private bytes: Uint8Array[] = [];
  private readonly decoder = new TextDecoder();

  read(data: Uint8Array): Record<string, unknown> | null {
    const n = data.byteLength;
    if (n < 4 || data[0] !== 0 || data[1] !== 1) return null;
    const view = new DataView(data.buffer, data.byteOffset, n);
    let o = 4;
    const align = (size: number) => { const a = (o - 4) % size; if (a > 0) o += size - a; };
    const u32 = (): number => { align(4); if (o + 4 > n) throw RANGE; const x = view.getUint32(o, true); o += 4; return x; };
    try {
      align(4);
      if (o + 8 > n) return null;
      const sec = view.getInt32(o, true), nanosec = view.getUint32(o + 4, true);
      o += 8;
      const flen = u32();
      if (o + flen > n) return null;
      const frame = flen <= 1 ? '' : this.decoder.decode(data.subarray(o, o + flen - 1));
      o += flen;
      const count = u32();
      if (count > n) return null;
      const name = new Array<string>(count);
      for (let k = 0; k < count; k++) {
        const len = u32();
        if (o + len > n) return null;
        name[k] = this.name(k, data, o, len);
        o += len;
      }
      if (this.names.length > count) { this.names.length = count; this.bytes.length = count; }
      const f64 = (): Float64Array | null => {
        const c = u32();
        if (c === 0) return new Float64Array();
        align(8);
        if (o + 8 * c > n) return null;
        let a: Float64Array;
        if ((data.byteOffset + o) % 8 === 0) a = new Float64Array(data.buffer, data.byteOffset + o, c);
        else { a = new Float64Array(c); for (let k = 0; k < c; k++) a[k] = view.getFloat64(o + 8 * k, true); }
        o += 8 * c;
        return a;
      };
      const position = f64();
      if (position === null) return null;
      const velocity = f64();
      if (velocity === null) return null;
      const effort = f64();
      if (effort === null) return null;
      return { header: { stamp: { sec, nanosec }, frame_id: frame }, name, position, velocity, effort };
    } catch (e) {
      if (e === RANGE) return null;
      throw e;
    }
  }

  /** the k-th name: the previous message's k-th when its bytes are the same, else decoded */
  private name(k: number, data: Uint8Array, o: number, len: number): string {
    if (len <= 1) { this.names[k] = ''; this.bytes[k] = EMPTY; return ''; }
    const prev = this.bytes[k];
    if (prev !== undefined && prev.length === len - 1) {
      let same = true;
      for (let i = 0; i < len - 1; i++) if (prev[i] !== data[o + i]) { same = false; break; }
      if (same) return this.names[k];
    }
    const b = data.slice(o, o + len - 1);
    const s = this.decoder.decode(b);
    this.names[k] = s; this.bytes[k] = b;
    return s;
  }
}

const EMPTY = new Uint8Array(0);
/** thrown inside read() for data shorter than a length says (never escapes it) */
const RANGE = new Error('out of range');
