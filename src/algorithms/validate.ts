/**
 * Entry checks shared by the algorithms (Pinocchio style: sizes checked once at the entry, with a
 * message naming the vector and the expected size; never inside the loops). Non-finite entries
 * and non-unit quaternions are reported with the joint they belong to; a model whose forward
 * dynamics is undefined (massless moving bodies, Model.singularBodies) with its first such body.
 */
import { JT_FLOATING, JT_SPHERICAL } from '../model/joint.ts';
import type { Model } from '../model/model.ts';

/**
 * The articulated inertia D_i = S_iᵀ I^A_i S_i of a joint is singular (RBDA Table 7.1): some
 * motion of the joint moves no mass, so M is singular and forward dynamics is undefined.
 */
export class SingularJointInertiaError extends Error {
  override name = 'SingularJointInertiaError';
  /**
   * @param joint the joint, @param body its body (child link), @param what the algorithm that
   * refuses, @param others how many more bodies are singular
   */
  constructor(readonly joint: string, readonly body?: string, what = 'ABA', others = 0) {
    super(`${what}: the articulated inertia of ${body !== undefined ? `body "${body}" (joint "${joint}")` : `joint "${joint}"`} is singular `
      + '(S_iᵀ I^A_i S_i is not positive definite): some motion of the joint moves no mass (massless links: no <inertial>, or mass 0), '
      + `so M is singular and forward dynamics is undefined for this model${others > 0 ? ` (${others} more bod${others > 1 ? 'ies are' : 'y is'} singular: see the model's warnings)` : ''}`);
  }
}

/**
 * Throws SingularJointInertiaError, naming the first singular body, when the model's forward
 * dynamics is undefined (Model.singularBodies, found at build time). `what` names the caller.
 */
export function checkForwardDynamicsDefined(model: Model, what: string): void {
  const s = model.singularBodies;
  if (s.length === 0) return;
  throw new SingularJointInertiaError(model.jointNames[s[0]], model.bodyNames[s[0]], what, s.length - 1);
}

function jointOfIndex(model: Model, idx: number, useQ: boolean): string {
  for (let i = 0; i < model.nb; i++) {
    const start = useQ ? model.iq[i] : model.iv[i];
    const n = useQ ? model.nqi[i] : model.nvi[i];
    if (idx >= start && idx < start + n) return `joint "${model.jointNames[i]}"`;
  }
  return 'no joint';
}

/** Throws a RangeError unless x has length n and finite entries. */
export function checkVector(model: Model, name: string, x: ArrayLike<number>, useQ: boolean): void {
  const n = useQ ? model.nq : model.nv;
  const what = useQ ? 'model.nq' : 'model.nv';
  if (!x || typeof x.length !== 'number') throw new TypeError(`${name} must be an array of numbers`);
  if (x.length !== n) throw new RangeError(`${name} has length ${x.length}, expected ${what} = ${n}`);
  for (let k = 0; k < n; k++) {
    if (!Number.isFinite(x[k])) {
      throw new RangeError(`${name}[${k}] is ${x[k]} (${jointOfIndex(model, k, useQ)}): every entry must be a finite number`);
    }
  }
}

/** the bodies whose joint carries a quaternion (free-flyer, spherical), listed once per model (checkConfiguration runs once per call) */
const quaternionBodies = new WeakMap<Model, Int32Array>();
function quaternionBodiesOf(model: Model): Int32Array {
  let b = quaternionBodies.get(model);
  if (b === undefined) {
    const list: number[] = [];
    for (let i = 0; i < model.nb; i++) if (model.jtype[i] === JT_FLOATING || model.jtype[i] === JT_SPHERICAL) list.push(i);
    b = Int32Array.from(list);
    quaternionBodies.set(model, b);
  }
  return b;
}

/** Throws unless every quaternion block of q has unit norm (to 1e-6). */
export function checkConfiguration(model: Model, q: ArrayLike<number>): void {
  checkVector(model, 'q', q, true);
  const bodies = quaternionBodiesOf(model);
  for (let k = 0; k < bodies.length; k++) {
    const i = bodies[k], t = model.jtype[i];
    const o = model.iq[i] + (t === JT_FLOATING ? 3 : 0);
    const nrm = Math.sqrt(q[o] * q[o] + q[o + 1] * q[o + 1] + q[o + 2] * q[o + 2] + q[o + 3] * q[o + 3]);
    if (Math.abs(nrm - 1) > 1e-6) {
      throw new RangeError(`q: the quaternion of joint "${model.jointNames[i]}" (q[${o}..${o + 3}]) has norm ${nrm}, expected 1`);
    }
  }
}

/** Throws unless an optional list of external wrenches has one 6-vector per body. */
export function checkExternalWrenches(model: Model, fext: readonly Float64Array[] | undefined): void {
  if (!fext) return;
  if (fext.length !== model.nb) throw new RangeError(`fext has ${fext.length} wrenches, expected model.nb = ${model.nb}`);
  for (let i = 0; i < model.nb; i++) {
    const f = fext[i];
    if (f.length !== 6) throw new RangeError(`fext[${i}] (body "${model.bodyNames[i]}") has length ${f.length}, expected 6`);
    for (let k = 0; k < 6; k++) {
      if (!Number.isFinite(f[k])) throw new RangeError(`fext[${i}][${k}] (body "${model.bodyNames[i]}") is ${f[k]}: must be finite`);
    }
  }
}

/** The entry checks of a dynamics call: q on its manifold, q̇ (when given), the joint-space input `name`, f^x. */
export function checkDynamicsInputs(
  model: Model, q: ArrayLike<number>, qd: ArrayLike<number> | null, name: string, x: ArrayLike<number>, fext?: readonly Float64Array[],
): void {
  checkConfiguration(model, q);
  if (qd !== null) checkVector(model, 'v', qd, false);
  checkVector(model, name, x, false);
  checkExternalWrenches(model, fext);
}
