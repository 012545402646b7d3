/**
 * sensor_msgs/msg/JointState read with @foxglove/cdr's CdrReader, field by field in the order of
 * its message definition: what @foxglove/rosmsg2-serialization's MessageReader gives for it (header,
 * name, and position, velocity, effort as Float64Array), without decoding the joint names of every
 * message. A recorder sends the same name list in every message, and MessageReader decodes each name
 * (TextDecoder) — most of its cost on the joint topics, which carry some 30 names each. Here a name
 * whose bytes (CdrReader's view of them) equal those of the previous message's name at the same
 * place is that string again.
 *
 * The encoding (encapsulation, alignment, lengths, byte order) is CdrReader's. `read` returns null
 * for anything it does not expect (another encapsulation, a length beyond the data): the caller then
 * reads the message with MessageReader, which says what is wrong.
 */
import { CdrReader, EncapsulationKind } from '@foxglove/cdr';
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
    if (data.byteLength < 4) return null;
    try {
      const r = new CdrReader(data);
      if (r.kind !== EncapsulationKind.CDR_LE && r.kind !== EncapsulationKind.CDR_BE) return null;
      const sec = r.int32(), nanosec = r.uint32();
      const frame = r.string();
      const count = r.sequenceLength();
      if (count > r.byteLength) return null;
      const name = new Array<string>(count);
      for (let k = 0; k < count; k++) name[k] = this.name(k, r.uint8Array(r.uint32()));
      if (this.names.length > count) { this.names.length = count; this.bytes.length = count; }
      const position = r.float64Array(), velocity = r.float64Array(), effort = r.float64Array();
      if (r.offset > r.byteLength) return null;
      return { header: { stamp: { sec, nanosec }, frame_id: frame }, name, position, velocity, effort };
    } catch {
      return null; // a length beyond the data (CdrReader's bounds), an encapsulation CdrReader does not know
    }
  }

  /** the k-th name (its bytes with the terminating zero): the previous message's k-th when its bytes are the same, else decoded */
  private name(k: number, raw: Uint8Array): string {
    const len = raw.length - 1;
    if (len <= 0) { this.names[k] = ''; this.bytes[k] = EMPTY; return ''; }
    const prev = this.bytes[k];
    if (prev !== undefined && prev.length === len) {
      let same = true;
      for (let i = 0; i < len; i++) if (prev[i] !== raw[i]) { same = false; break; }
      if (same) return this.names[k];
    }
    const b = raw.slice(0, len);
    const s = this.decoder.decode(b);
    this.names[k] = s; this.bytes[k] = b;
    return s;
  }
}

const EMPTY = new Uint8Array(0);
