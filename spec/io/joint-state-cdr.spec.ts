/** JointStateReader reads what MessageReader reads from a JointState's CDR bytes (names kept from message to message). */
import { describe, expect, it } from 'vitest';
import { parse as parseMsgDefinition } from '@foxglove/rosmsg';
import { MessageReader, MessageWriter } from '@foxglove/rosmsg2-serialization';
import { CdrWriter, EncapsulationKind } from '@foxglove/cdr';
import { isStandardJointState, JointStateReader } from '../../src/io/joint-state-cdr.ts';
import { MSG_DEFINITIONS } from '../../src/io/mcap-estimates.ts';

describe('JointStateReader', () => {
  const def = parseMsgDefinition(MSG_DEFINITIONS['sensor_msgs/msg/JointState'], { ros2: true });
  const writer = new MessageWriter(def), reader = new MessageReader(def);
  let seed = 11;
  const rnd = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648; };
  const text = () => ['', 'a', 'knee', 'l_hip_yaw', 'wrist_roll_1', 'épaule'][Math.floor(rnd() * 6)];

  it('gives what MessageReader gives, message after message (same names, changed names, empty and full arrays, every alignment)', () => {
    const fast = new JointStateReader();
    let names = Array.from({ length: 5 }, text);
    for (let trial = 0; trial < 300; trial++) {
      if (rnd() < 0.3) names = Array.from({ length: Math.floor(rnd() * 8) }, text);
      else if (rnd() < 0.2 && names.length) names = names.map((n, k) => (k === 0 ? `${n}x` : n));
      const arr = () => (rnd() < 0.3 ? [] : Array.from({ length: names.length }, () => (rnd() - 0.5) * 100));
      const msg = { header: { stamp: { sec: Math.floor(rnd() * 2e9) - 1e9, nanosec: Math.floor(rnd() * 1e9) }, frame_id: text() }, name: names, position: arr(), velocity: arr(), effort: arr() };
      const data = writer.writeMessage(msg);
      // also at an odd place in a larger buffer (the data of an MCAP record usually is)
      const shifted = new Uint8Array(data.length + 3);
      shifted.set(data, 3);
      for (const d of [data, shifted.subarray(3)]) {
        const got = fast.read(d), want = reader.readMessage<Record<string, unknown>>(d);
        expect(got).not.toBeNull();
        const plain = (m: Record<string, unknown>) => ({ ...m, position: Array.from(m.position as Float64Array), velocity: Array.from(m.velocity as Float64Array), effort: Array.from(m.effort as Float64Array) });
        expect(plain(got!)).toEqual(plain(want));
      }
    }
  });

  it('declines what it does not expect (cut data, another encapsulation), so that MessageReader reports it; reads big-endian CDR as MessageReader does', () => {
    const fast = new JointStateReader();
    const data = writer.writeMessage({ header: { stamp: { sec: 1, nanosec: 2 }, frame_id: 'f' }, name: ['a', 'b'], position: [1, 2], velocity: [], effort: [3, 4] });
    for (let cut = 0; cut < data.length; cut++) expect(fast.read(data.subarray(0, cut))).toBeNull();
    const other = data.slice(); other[1] = 2; // PL_CDR_BE: a parameter list, not plain CDR
    expect(fast.read(other)).toBeNull();
    const bytes = new CdrWriter({ kind: EncapsulationKind.CDR_BE }).int32(1).uint32(2).string('f')
      .sequenceLength(2).string('a').string('b').float64Array([1, 2], true).sequenceLength(0).float64Array([3, 4], true).data;
    const got = fast.read(bytes)!;
    expect(got.name).toEqual(['a', 'b']);
    expect(Array.from(got.position as Float64Array)).toEqual([1, 2]);
    expect(Array.from(got.effort as Float64Array)).toEqual([3, 4]);
    expect(got.header).toEqual(reader.readMessage<Record<string, unknown>>(bytes).header);
  });

  it('knows the standard definition only', () => {
    expect(isStandardJointState(def)).toBe(true);
    expect(isStandardJointState(parseMsgDefinition(MSG_DEFINITIONS['geometry_msgs/msg/WrenchStamped'], { ros2: true }))).toBe(false);
    expect(isStandardJointState(parseMsgDefinition('std_msgs/Header header\nstring[] name\nfloat64[] position\n================================================================================\nMSG: std_msgs/Header\nbuiltin_interfaces/Time stamp\nstring frame_id\n================================================================================\nMSG: builtin_interfaces/Time\nint32 sec\nuint32 nanosec\n', { ros2: true }))).toBe(false);
  });
});
