/**
 * Entry checks shared by the algorithms (Pinocchio style: sizes checked once at the entry, with a
 * message naming the vector and the expected size; never inside the loops). Non-finite entries
 * and non-unit quaternions are reported with the joint they belong to.
 */
import { JT_FLOATING, JT_SPHERICAL } from '../model/joint.ts';
import type { Model } from '../model/model.ts';

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

/** Throws unless every quaternion block of q has unit norm (to 1e-6). */
export function checkConfiguration(model: Model, q: ArrayLike<number>): void {
  checkVector(model, 'q', q, true);
  for (let i = 0; i < model.nb; i++) {
    const t = model.jtype[i];
    if (t !== JT_FLOATING && t !== JT_SPHERICAL) continue;
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
