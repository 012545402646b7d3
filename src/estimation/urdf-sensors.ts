/**
 * Sensors declared in a URDF (iDynTree's `<sensor>` extension, and gazebo IMUs) as problem-file
 * sensors:
 *   <sensor type="force_torque"><parent joint="J"/><force_torque><frame>child|sensor</frame>
 *     <measure_direction>child_to_parent|parent_to_child</measure_direction></force_torque>
 *     <origin xyz rpy/></sensor>                         → force_torque in J (frame relative to J's child link)
 *   <sensor type="accelerometer"><parent link="L"/><origin/></sensor>   → accelerometer on L
 *   <sensor type="gyroscope"><parent link="L"/><origin/></sensor>       → gyroscope on L
 *   <gazebo reference="L"><sensor type="imu"><pose>x y z r p y</pose></sensor></gazebo>
 *                                                       → accelerometer "<name>_acc" + gyroscope "<name>_gyro" on L
 * Anything else (cameras, depth, lasers, F/T frames given in the parent) is left out with a note
 * naming it.
 */
import type { UrdfSensor } from '../model/urdf.ts';
import { ACCEL_COMPONENTS, GYRO_COMPONENTS, ProblemError, WRENCH_COMPONENTS, type Origin, type SensorSpec } from './problem.ts';

type Raw = Record<string, unknown>;

const attr = (n: unknown, a: string): string | undefined => {
  const v = (n as Raw | undefined)?.[`@_${a}`];
  return typeof v === 'string' ? v : undefined;
};

const text = (n: unknown): string | undefined => {
  if (typeof n === 'string') return n.trim();
  const t = (n as Raw | undefined)?.['#text'];
  return typeof t === 'string' ? t.trim() : typeof t === 'number' ? String(t) : undefined;
};

function numbers(s: string | undefined, count: number, what: string): number[] {
  if (s === undefined || s.trim() === '') return new Array(count).fill(0);
  const v = s.trim().split(/\s+/).map(Number);
  if (v.length !== count || v.some((x) => !Number.isFinite(x))) throw new ProblemError(`${what}: expected ${count} numbers, got "${s}"`);
  return v;
}

function originOf(raw: Raw, what: string): Origin {
  const o = raw.origin;
  if (o !== undefined) {
    const xyz = numbers(attr(o, 'xyz'), 3, `${what} <origin xyz>`), rpy = numbers(attr(o, 'rpy'), 3, `${what} <origin rpy>`);
    return { xyz: [xyz[0], xyz[1], xyz[2]], rpy: [rpy[0], rpy[1], rpy[2]] };
  }
  const pose = numbers(text(raw.pose), 6, `${what} <pose>`);
  return { xyz: [pose[0], pose[1], pose[2]], rpy: [pose[3], pose[4], pose[5]] };
}

/**
 * The sensors a URDF declares (iDynTree's force_torque, accelerometer, gyroscope; gazebo IMUs) as
 * problem-file sensors, all of them or those named; other kinds are left out with a note.
 */
export function sensorsFromUrdf(sensors: readonly UrdfSensor[], select: true | readonly string[]): { sensors: SensorSpec[]; notes: string[] } {
  const out: SensorSpec[] = [];
  const notes: string[] = [];
  const wanted = select === true ? null : new Set(select);
  for (const s of sensors) {
    const name = s.name ?? `sensor_line_${s.line ?? '?'}`;
    if (wanted && !wanted.has(name)) continue;
    wanted?.delete(name);
    const raw = s.raw as Raw;
    const what = `URDF sensor "${name}"${s.line ? ` (line ${s.line})` : ''}`;
    const base = { variance: 1, origin: originOf(raw, what) };
    switch (s.type) {
      case 'force_torque': {
        const joint = attr(raw.parent, 'joint');
        if (!joint) { notes.push(`${what}: a force_torque sensor needs <parent joint>; left out`); break; }
        const ft = raw.force_torque as Raw | undefined;
        const frame = text(ft?.frame) ?? 'child';
        if (frame === 'parent') { notes.push(`${what}: frame "parent" is not supported (give the sensor frame relative to the child link); left out`); break; }
        const dir = text(ft?.measure_direction) ?? 'child_to_parent';
        if (dir !== 'child_to_parent' && dir !== 'parent_to_child') throw new ProblemError(`${what}: unknown measure_direction "${dir}"`);
        out.push({ ...base, name, type: 'force_torque', joint, components: [...WRENCH_COMPONENTS], measure_direction: dir });
        break;
      }
      case 'accelerometer':
      case 'gyroscope': {
        const link = attr(raw.parent, 'link') ?? s.link;
        if (!link) { notes.push(`${what}: needs <parent link>; left out`); break; }
        out.push({ ...base, name, type: s.type, link, components: [...(s.type === 'accelerometer' ? ACCEL_COMPONENTS : GYRO_COMPONENTS)] });
        break;
      }
      case 'imu': {
        const link = attr(raw.parent, 'link') ?? s.link;
        if (!link) { notes.push(`${what}: an imu needs a link (<parent link> or <gazebo reference>); left out`); break; }
        out.push({ ...base, name: `${name}_acc`, type: 'accelerometer', link, components: [...ACCEL_COMPONENTS] });
        out.push({ ...base, name: `${name}_gyro`, type: 'gyroscope', link, components: [...GYRO_COMPONENTS] });
        break;
      }
      default:
        notes.push(`${what}: type "${s.type ?? '(none)'}" measures nothing of the dynamics; left out`);
    }
  }
  if (wanted && wanted.size > 0) throw new ProblemError(`urdf_sensors: no <sensor> named ${[...wanted].map((n) => `"${n}"`).join(', ')} in the URDF`);
  return { sensors: out, notes };
}
