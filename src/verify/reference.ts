/**
 * Reference dynamics files (the format of the reference files of an independent implementation, described in its README): parsing, validation, and
 * the index maps between the reference's vector layout and a model's. The reference lists its
 * moving joints with idx_q/idx_v; joints are matched by name, and a FreeFlyer joint is matched to
 * the model's floating base whatever its name. Both use Pinocchio's free-flyer layout
 * (q = [p, quaternion xyzw], v = [v_lin, ω], τ = [force, torque]).
 */
import { clipMessage } from '../model/warnings.ts';
import type { Model } from '../model/model.ts';
import { JsonTextError, parseJsonText } from '../text/json-text.ts';

/** A moving joint of a reference file, with its place in the reference's q and v. */
export interface ReferenceJoint {
  name: string;
  type: string;
  idx_q: number;
  nq: number;
  idx_v: number;
  nv: number;
}

/** One case of a reference file: a state and the reference quantities at it (τ, q̈, M, M⁻¹, …). */
export interface ReferenceCase {
  q: number[];
  v: number[];
  a: number[];
  tau: number[];
  rnea_tau: number[];
  aba_ddq: number[];
  nle: number[];
  gravity_torque: number[];
  M: number[][];
  Minv: number[][];
}

/** A reference dynamics file (values computed by another library, e.g. Pinocchio), validated. */
export interface ReferenceFile {
  model_file: string;
  base: 'fixed' | 'floating';
  gravity: [number, number, number];
  nq: number;
  nv: number;
  joints: ReferenceJoint[];
  cases: ReferenceCase[];
}

/** A reference file that does not have the documented shape; names the field. */
export class ReferenceFormatError extends Error {
  override name = 'ReferenceFormatError';
  constructor(message: string) { super(clipMessage(message)); }
}

function need(cond: boolean, msg: string): void {
  if (!cond) throw new ReferenceFormatError(msg);
}

const isNumArray = (x: unknown, n: number): boolean =>
  Array.isArray(x) && x.length === n && x.every((e) => typeof e === 'number' && Number.isFinite(e));

/** Parse and validate a reference file's JSON text. `file` is used in messages. */
export function parseReference(text: string, file = 'reference'): ReferenceFile {
  let d: unknown;
  try {
    d = parseJsonText(text, file);
  } catch (e) {
    throw e instanceof JsonTextError ? new ReferenceFormatError(e.message) : e;
  }
  const r = d as ReferenceFile;
  need(typeof r === 'object' && r !== null, `${file}: expected a JSON object`);
  need(r.base === 'fixed' || r.base === 'floating', `${file}: "base" must be "fixed" or "floating"`);
  need(isNumArray(r.gravity, 3), `${file}: "gravity" must be 3 numbers`);
  need(r.model_file === undefined || (typeof r.model_file === 'string' && r.model_file.trim() !== ''), `${file}: "model_file" must be the name of a URDF file`);
  need(Number.isInteger(r.nq) && Number.isInteger(r.nv) && r.nq >= 1 && r.nv >= 1, `${file}: "nq" and "nv" must be whole numbers of at least 1`);
  need(Array.isArray(r.joints) && r.joints.length > 0, `${file}: "joints" must be a non-empty list`);
  const whole = (x: unknown): x is number => Number.isInteger(x) && (x as number) >= 0;
  for (const [k, j] of r.joints.entries()) {
    need(typeof j === 'object' && j !== null && !Array.isArray(j), `${file}: joints[${k}] must be an object {name, type, idx_q, nq, idx_v, nv}`);
    need(typeof j.name === 'string' && whole(j.idx_q) && whole(j.idx_v) && whole(j.nq) && whole(j.nv),
      `${file}: joints[${k}] needs name, idx_q, nq, idx_v, nv (whole numbers from 0)`);
    need(j.type === undefined || typeof j.type === 'string', `${file}: joints[${k}] ("${j.name}"): "type" must be a string`);
    need(j.idx_q + j.nq <= r.nq && j.idx_v + j.nv <= r.nv,
      `${file}: joints[${k}] ("${j.name}") takes q[${j.idx_q}..${j.idx_q + j.nq}) and v[${j.idx_v}..${j.idx_v + j.nv}), beyond nq = ${r.nq}, nv = ${r.nv}`);
  }
  need(Array.isArray(r.cases) && r.cases.length > 0, `${file}: "cases" must be a non-empty list`);
  const { nq, nv } = r;
  for (const [k, c] of r.cases.entries()) {
    const where = `${file}: cases[${k}]`;
    need(typeof c === 'object' && c !== null && !Array.isArray(c), `${where} must be an object {q, v, a, tau, rnea_tau, …}`);
    need(isNumArray(c.q, nq), `${where}.q must be ${nq} finite numbers`);
    for (const f of ['v', 'a', 'tau', 'rnea_tau', 'aba_ddq', 'nle', 'gravity_torque'] as const) {
      need(isNumArray(c[f], nv), `${where}.${f} must be ${nv} finite numbers`);
    }
    for (const f of ['M', 'Minv'] as const) {
      need(Array.isArray(c[f]) && c[f].length === nv && c[f].every((row) => isNumArray(row, nv)), `${where}.${f} must be ${nv}×${nv} finite numbers`);
    }
  }
  return r;
}

/**
 * Index maps: model coordinate index → reference coordinate index, for q and for v. Pinocchio's
 * unbounded revolute joints (URDF `continuous`: JointModelRUBX/Y/Z, RevoluteUnboundedUnaligned)
 * store q as (cos θ, sin θ), and its planar joint (JointModelPlanar) as (x, y, cos θ, sin θ); our
 * joints store θ, listed in `unbounded` as [model q index of θ, reference q index of cos θ].
 */
export interface ReferenceLayout {
  qToRef: Int32Array;
  vToRef: Int32Array;
  unbounded: [number, number][];
}

export function referenceLayout(model: Model, ref: ReferenceFile, file = 'reference'): ReferenceLayout {
  const nUnbounded = ref.joints.filter((j) => (j.nq === 2 && j.nv === 1) || (j.nq === 4 && j.nv === 3 && j.type === 'JointModelPlanar')).length;
  if (model.nq + nUnbounded !== ref.nq || model.nv !== ref.nv) {
    throw new ReferenceFormatError(`${file}: the reference has nq = ${ref.nq}, nv = ${ref.nv} but model "${model.name}" has nq = ${model.nq}, nv = ${model.nv} (base: reference ${ref.base}, model ${model.floatingBase ? 'floating' : 'fixed'})`);
  }
  const qToRef = new Int32Array(model.nq).fill(-1);
  const vToRef = new Int32Array(model.nv).fill(-1);
  const unbounded: [number, number][] = [];
  for (const j of ref.joints) {
    let i: number;
    if (j.type === 'JointModelFreeFlyer') {
      if (!model.floatingBase) throw new ReferenceFormatError(`${file}: joint "${j.name}" is a free flyer but model "${model.name}" has a fixed base`);
      i = 0;
    } else {
      if (!model.hasJoint(j.name)) throw new ReferenceFormatError(`${file}: joint "${j.name}" is not a joint of model "${model.name}"`);
      i = model.joint(j.name);
    }
    if (j.nq === 2 && j.nv === 1 && model.nqi[i] === 1 && model.nvi[i] === 1) {
      unbounded.push([model.iq[i], j.idx_q]);
      qToRef[model.iq[i]] = j.idx_q;
      vToRef[model.iv[i]] = j.idx_v;
      continue;
    }
    if (j.type === 'JointModelPlanar' && j.nq === 4 && j.nv === 3 && model.jointTypes[i] === 'planar') {
      // (x, y, cos θ, sin θ) → (x, y, θ); v = (vx, vy, ω) in both
      qToRef[model.iq[i]] = j.idx_q;
      qToRef[model.iq[i] + 1] = j.idx_q + 1;
      qToRef[model.iq[i] + 2] = j.idx_q + 2;
      unbounded.push([model.iq[i] + 2, j.idx_q + 2]);
      for (let k = 0; k < 3; k++) vToRef[model.iv[i] + k] = j.idx_v + k;
      continue;
    }
    if (model.nqi[i] !== j.nq || model.nvi[i] !== j.nv) {
      throw new ReferenceFormatError(`${file}: joint "${j.name}" has nq = ${j.nq}, nv = ${j.nv} in the reference but ${model.nqi[i]}, ${model.nvi[i]} in the model (${model.jointTypes[i]})`);
    }
    for (let k = 0; k < j.nq; k++) qToRef[model.iq[i] + k] = j.idx_q + k;
    for (let k = 0; k < j.nv; k++) vToRef[model.iv[i] + k] = j.idx_v + k;
  }
  const missing = model.movingJoints().find((mj) => vToRef[mj.iv] < 0);
  if (missing) throw new ReferenceFormatError(`${file}: model joint "${missing.name}" is not in the reference's joint list`);
  return { qToRef, vToRef, unbounded };
}

/** Model configuration from a reference configuration (θ = atan2(sin, cos) for unbounded joints). */
export function configurationFromReference(out: Float64Array, qRef: ArrayLike<number>, layout: ReferenceLayout): Float64Array {
  fromReference(out, qRef, layout.qToRef);
  for (const [iq, ir] of layout.unbounded) out[iq] = Math.atan2(qRef[ir + 1], qRef[ir]);
  return out;
}

/** x_model[k] = x_ref[map[k]] */
export function fromReference(out: Float64Array, xRef: ArrayLike<number>, map: Int32Array): Float64Array {
  for (let k = 0; k < map.length; k++) out[k] = xRef[map[k]];
  return out;
}

/** x_ref[map[k]] = x_model[k] */
export function toReference(out: Float64Array, x: ArrayLike<number>, map: Int32Array): Float64Array {
  for (let k = 0; k < map.length; k++) out[map[k]] = x[k];
  return out;
}

/** Dense n×n model-ordered matrix (row-major) → reference order (row-major). */
export function matrixToReference(out: Float64Array, A: ArrayLike<number>, map: Int32Array): Float64Array {
  const n = map.length;
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) out[map[i] * n + map[j]] = A[i * n + j];
  return out;
}
