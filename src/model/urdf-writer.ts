/**
 * ModelSpec → URDF text: the project's generators (chain, random tree, humanoid) written out as
 * robot files that any URDF reader loads (urdfdom, Pinocchio, this project's loader), so that the
 * shipped models are the project's own. Source: the URDF XML specification (ROS wiki "urdf/XML").
 *
 * Each link's inertia (10 numbers about the link origin, spatial/inertia.ts) is written as mass,
 * centre of mass c = h/m and the rotational inertia about c in link axes,
 * I_c = Ī − m (cᵀc 1 − c cᵀ) (parallel-axis theorem). A joint placement ᶜX_p = (E, r) is written
 * as `<origin xyz="r" rpy>` with R = Eᵀ = Rz(y) Ry(p) Rx(r). Numbers are written in the shortest
 * form that reads back to the same double, so the dynamics after a round trip agree to round-off.
 */
import type { JointSpec, LinkSpec, ModelSpec } from './build.ts';
import type { UrdfJointInfo, UrdfSpec } from './urdf.ts';

/** A generator description that URDF cannot express (e.g. a spherical or helical joint). */
export class UrdfWriteError extends Error {
  override name = 'UrdfWriteError';
}

/** Options of `urdfFromSpec`. */
export interface UrdfWriteOptions {
  /** a comment placed after the XML declaration (e.g. how the file was made) */
  comment?: string;
  /**
   * joint limits written for revolute and prismatic joints, which URDF requires (the generators
   * define none; the dynamics never read them). Default ±π rad or ±1 m, effort 1000, velocity 100.
   */
  limit?: { lower: number; upper: number; effort: number; velocity: number };
}

/** Shortest decimal that reads back to the same double (JavaScript's Number → String), never "-0". */
function num(x: number): string {
  if (!Number.isFinite(x)) throw new UrdfWriteError(`cannot write the non-finite number ${x}`);
  return Object.is(x, -0) ? '0' : String(x);
}

const vec = (v: ArrayLike<number>): string => `${num(v[0])} ${num(v[1])} ${num(v[2])}`;

function escapeXml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** roll, pitch, yaw of R = Rz(yaw) Ry(pitch) Rx(roll) (row-major R). */
export function rpyFromRot(R: ArrayLike<number>): [number, number, number] {
  const r20 = Math.max(-1, Math.min(1, R[6]));
  const pitch = Math.asin(-r20);
  if (Math.abs(r20) < 1 - 1e-12) {
    return [Math.atan2(R[7], R[8]), pitch, Math.atan2(R[3], R[0])];
  }
  // gimbal lock (pitch = ±π/2): only roll ∓ yaw is defined; take yaw = 0
  return [Math.atan2(-R[5], R[4]), pitch, 0];
}

/** `<origin>` of a placement X = (E, r): R = Eᵀ. Omitted when it is the identity. */
function originXml(X: ArrayLike<number>, indent: string): string {
  // R = Eᵀ, row-major: R[3i + j] = E[3j + i]
  const R = [X[0], X[3], X[6], X[1], X[4], X[7], X[2], X[5], X[8]];
  const rpy = rpyFromRot(R);
  const xyz = [X[9], X[10], X[11]];
  if (rpy.every((a) => a === 0) && xyz.every((a) => a === 0)) return '';
  return `${indent}<origin xyz="${vec(xyz)}" rpy="${vec(rpy)}"/>\n`;
}

function linkXml(l: LinkSpec): string {
  const name = escapeXml(l.name);
  const I = l.inertia;
  if (!I || I.every((x) => x === 0)) return `  <link name="${name}"/>\n`;
  const m = I[0];
  // mass 0 with a rotational inertia (kept as data by the loader): c = 0, I_c = Ī
  const c = m === 0 ? [0, 0, 0] : [I[1] / m, I[2] / m, I[3] / m];
  // I_c = Ī − m (cᵀc 1 − c cᵀ)
  const ixx = I[4] - m * (c[1] * c[1] + c[2] * c[2]);
  const ixy = I[5] + m * c[0] * c[1];
  const ixz = I[6] + m * c[0] * c[2];
  const iyy = I[7] - m * (c[0] * c[0] + c[2] * c[2]);
  const iyz = I[8] + m * c[1] * c[2];
  const izz = I[9] - m * (c[0] * c[0] + c[1] * c[1]);
  return `  <link name="${name}">\n    <inertial>\n      <origin xyz="${vec(c)}" rpy="0 0 0"/>\n`
    + `      <mass value="${num(m)}"/>\n`
    + `      <inertia ixx="${num(ixx)}" ixy="${num(ixy)}" ixz="${num(ixz)}" iyy="${num(iyy)}" iyz="${num(iyz)}" izz="${num(izz)}"/>\n`
    + `    </inertial>\n  </link>\n`;
}

function jointXml(j: JointSpec, limit: NonNullable<UrdfWriteOptions['limit']>, info?: UrdfJointInfo): string {
  let type: string;
  switch (j.type) {
    case 'revolute': type = info?.continuous ? 'continuous' : 'revolute'; break;
    case 'prismatic': case 'fixed': case 'floating': case 'planar': type = j.type; break;
    default: throw new UrdfWriteError(`joint "${j.name}" is ${j.type}: URDF has no ${j.type} joint (write a model with revolute, prismatic, planar, fixed or floating joints only)`);
  }
  let out = `  <joint name="${escapeXml(j.name)}" type="${type}">\n`;
  out += originXml(j.origin, '    ');
  out += `    <parent link="${escapeXml(j.parent)}"/>\n    <child link="${escapeXml(j.child)}"/>\n`;
  if (type === 'revolute' || type === 'prismatic' || type === 'continuous') {
    const a = j.axis ?? [1, 0, 0];
    out += `    <axis xyz="${vec(a)}"/>\n`;
    const s = type === 'prismatic' ? 1 / Math.PI : 1;
    const own = info?.limit;
    if (own) {
      // a URDF file's own limits, as written (effort and velocity, which urdfdom requires, defaulted when absent)
      const attrs = [
        own.lower !== undefined ? `lower="${num(own.lower)}"` : '', own.upper !== undefined ? `upper="${num(own.upper)}"` : '',
        `effort="${num(own.effort ?? limit.effort)}"`, `velocity="${num(own.velocity ?? limit.velocity)}"`,
      ].filter((x) => x !== '');
      out += `    <limit ${attrs.join(' ')}/>\n`;
    } else if (type !== 'continuous') {
      out += `    <limit lower="${num(limit.lower * s)}" upper="${num(limit.upper * s)}" effort="${num(limit.effort)}" velocity="${num(limit.velocity)}"/>\n`;
    }
    if (info?.mimic) out += `    <mimic joint="${escapeXml(info.mimic.joint)}" multiplier="${num(info.mimic.multiplier)}" offset="${num(info.mimic.offset)}"/>\n`;
  } else if (type === 'planar') {
    // the plane normal (default z)
    out += `    <axis xyz="${vec(j.axis ?? [0, 0, 1])}"/>\n`;
  }
  return out + '  </joint>\n';
}

/** URDF text of a model description (links in the given order, then joints). Throws UrdfWriteError. */
export function urdfFromSpec(spec: ModelSpec, opts: UrdfWriteOptions = {}): string {
  const limit = opts.limit ?? { lower: -Math.PI, upper: Math.PI, effort: 1000, velocity: 100 };
  // a URDF file read back (UrdfSpec): each joint's type as written (continuous), limits and <mimic> are kept
  const info = new Map(((spec as Partial<UrdfSpec>).jointInfo ?? []).map((i) => [i.name, i]));
  let out = '<?xml version="1.0"?>\n';
  if (opts.comment) out += `<!-- ${opts.comment.replace(/--/g, '- -')} -->\n`;
  out += `<robot name="${escapeXml(spec.name)}">\n`;
  for (const l of spec.links) out += linkXml(l);
  for (const j of spec.joints) out += jointXml(j, limit, info.get(j.name));
  return out + '</robot>\n';
}
