/**
 * q = neutral(model): the neutral configuration (Pinocchio's `neutral`, RigidBodyDynamics.jl's
 * `zero_configuration!`): every joint at zero, a floating base at the origin with the identity
 * quaternion [0, 0, 0, 1], spherical joints at the identity quaternion.
 */
import { jointNeutral } from './joint.ts';
import type { Model } from './model.ts';

/**
 * The neutral configuration of `model` (length model.nq), written into `out` when it is given.
 * @param out - optional output vector of length model.nq
 */
export function neutral(model: Model, out: Float64Array = new Float64Array(model.nq)): Float64Array {
  if (out.length !== model.nq) throw new RangeError(`neutral: out has length ${out.length}, expected model.nq = ${model.nq}`);
  for (let i = 0; i < model.nb; i++) jointNeutral(model.jointTypes[i], out, model.iq[i]);
  return out;
}
