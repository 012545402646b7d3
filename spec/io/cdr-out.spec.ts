/** CdrOut writes the bytes of @foxglove/rosmsg2-serialization's MessageWriter for the messages of an estimates recording. */
import { describe, expect, it } from 'vitest';
import { parse as parseMsgDefinition } from '@foxglove/rosmsg';
import { MessageWriter } from '@foxglove/rosmsg2-serialization';
import { CdrOut, JointStateTemplate, WrenchStampedTemplate } from '../../src/io/cdr-out.ts';
import { MSG_DEFINITIONS } from '../../src/io/mcap-estimates.ts';

const writer = (type: keyof typeof MSG_DEFINITIONS) => new MessageWriter(parseMsgDefinition(MSG_DEFINITIONS[type], { ros2: true }));

describe('CdrOut', () => {
  let seed = 7;
  const rnd = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648; };
  const text = () => 'abcdefgh_[]. '.slice(0, Math.floor(rnd() * 13)); // lengths 0 to 12: every alignment after a string
  const nums = (n: number) => Array.from({ length: n }, () => (rnd() - 0.5) * 10 ** Math.floor(rnd() * 8 - 3));

  it('WrenchStamped, JointState and EstimateStatus: the same bytes as MessageWriter (frames and names of every length, empty and full sequences)', () => {
    const wrench = writer('geometry_msgs/msg/WrenchStamped'), joints = writer('sensor_msgs/msg/JointState'), status = writer('sparsedyn_msgs/msg/EstimateStatus');
    const c = new CdrOut();
    for (let trial = 0; trial < 200; trial++) {
      const sec = Math.floor(rnd() * 2 ** 31) - (trial % 7 === 0 ? 2 ** 31 : 0), nanosec = Math.floor(rnd() * 1e9), frame = text();
      const [f, t] = [nums(3), nums(3)];
      c.begin().header(sec, nanosec, frame).float64(f[0]).float64(f[1]).float64(f[2]).float64(t[0]).float64(t[1]).float64(t[2]);
      expect(c.data()).toEqual(wrench.writeMessage({ header: { stamp: { sec, nanosec }, frame_id: frame }, wrench: { force: { x: f[0], y: f[1], z: f[2] }, torque: { x: t[0], y: t[1], z: t[2] } } }));
      const names = Array.from({ length: Math.floor(rnd() * 5) }, text), effort = nums(names.length);
      c.begin().header(sec, nanosec, frame).strings(names).float64s([]).float64s([]).float64s(effort);
      expect(c.data()).toEqual(joints.writeMessage({ header: { stamp: { sec, nanosec }, frame_id: frame }, name: names, position: [], velocity: [], effort }));
      const cond = trial % 2 ? [rnd() * 20] : [], near = trial % 3 === 0, sensors = Array.from({ length: Math.floor(rnd() * 4) }, text), channels = trial % 4 ? [] : [text(), text()];
      const residuals = nums(sensors.length), staleness = nums(channels.length), std = nums(trial % 5 ? 0 : 7), line = Math.floor(rnd() * 1e6), poor = near ? text() : '';
      c.begin().header(sec, nanosec, '').uint32(line);
      if (cond.length) c.uint32(1).float64(cond[0]); else c.uint32(0);
      c.uint8(near ? 1 : 0).string(poor).strings(sensors).float64s(residuals).strings(channels).float64s(staleness).float64s(std);
      expect(c.data()).toEqual(status.writeMessage({ header: { stamp: { sec, nanosec }, frame_id: '' }, sample: line, condition: cond, near_singular: near, poorly_observed: poor, sensors, residuals, channels, staleness, tau_std: std }));
    }
  });

  it('WrenchStampedTemplate: a frame\'s message patched with a stamp and a wrench is MessageWriter\'s, at any offset of a longer buffer', () => {
    const wrench = writer('geometry_msgs/msg/WrenchStamped');
    const out = new Uint8Array(4096), view = new DataView(out.buffer);
    for (let trial = 0; trial < 200; trial++) {
      const frame = text(), tpl = new WrenchStampedTemplate(frame);
      const sec = Math.floor(rnd() * 2 ** 31) - (trial % 7 === 0 ? 2 ** 31 : 0), nanosec = Math.floor(rnd() * 1e9);
      const [f, t] = [nums(3), nums(3)], at = Math.floor(rnd() * 1000);
      tpl.write(out, view, at, sec, nanosec, f, t);
      const ref = wrench.writeMessage({ header: { stamp: { sec, nanosec }, frame_id: frame }, wrench: { force: { x: f[0], y: f[1], z: f[2] }, torque: { x: t[0], y: t[1], z: t[2] } } });
      expect(out.subarray(at, at + tpl.bytes.length)).toEqual(ref);
    }
  });

  it('JointStateTemplate: fixed names (none to several, of every length) patched with a stamp and efforts are MessageWriter\'s, at any offset', () => {
    const joints = writer('sensor_msgs/msg/JointState');
    const out = new Uint8Array(8192), view = new DataView(out.buffer);
    for (let trial = 0; trial < 200; trial++) {
      const names = Array.from({ length: Math.floor(rnd() * 8) }, text), tpl = new JointStateTemplate(names);
      for (let again = 0; again < 2; again++) {
        const sec = Math.floor(rnd() * 2 ** 31) - (trial % 7 === 0 ? 2 ** 31 : 0), nanosec = Math.floor(rnd() * 1e9);
        const effort = nums(names.length), at = Math.floor(rnd() * 1000);
        tpl.write(out, view, at, sec, nanosec, effort);
        const ref = joints.writeMessage({ header: { stamp: { sec, nanosec }, frame_id: '' }, name: names, position: [], velocity: [], effort });
        expect(out.subarray(at, at + tpl.bytes.length)).toEqual(ref);
      }
    }
  });

  it('grows past its first buffer and keeps what it wrote', () => {
    const joints = writer('sensor_msgs/msg/JointState');
    const names = Array.from({ length: 300 }, (_, k) => `joint_${k}`), effort = nums(300);
    const c = new CdrOut().begin().header(1, 2, 'base').strings(names).float64s([]).float64s([]).float64s(effort);
    expect(c.data()).toEqual(joints.writeMessage({ header: { stamp: { sec: 1, nanosec: 2 }, frame_id: 'base' }, name: names, position: [], velocity: [], effort }));
  });
});
