/**
 * Seeded random configurations on the configuration manifold (for scripts, studies and the CLI's
 * --random-state): a floating base at a position in [−1, 1]³ with a uniform unit quaternion,
 * spherical joints with uniform unit quaternions, a planar joint at (x, y) in [−1, 1]² turned by
 * θ in [−π, π), every other joint in [−π, π) — or all of these coordinates at `jointValue` when it
 * is given.
 */
import type { Model } from './model.ts';
import type { Rng } from './rng.ts';

/**
 * A seeded random configuration (Pinocchio's `randomConfiguration`): a floating base at a position
 * in [−1, 1]³ with a uniform unit quaternion, spherical joints uniform, other joints in [−π, π), or
 * all at `jointValue` when it is given.
 */
export function randomConfiguration(model: Model, rng: Rng, jointValue?: number): Float64Array {
  const q = new Float64Array(model.nq);
  for (const j of model.movingJoints()) {
    if (j.type === 'floating' || j.type === 'spherical') {
      const o = j.iq + (j.type === 'floating' ? 3 : 0);
      if (j.type === 'floating') for (let k = 0; k < 3; k++) q[j.iq + k] = rng.uniform(-1, 1);
      rng.quaternion(q.subarray(o, o + 4));
    } else if (j.type === 'planar' && jointValue === undefined) {
      q[j.iq] = rng.uniform(-1, 1); q[j.iq + 1] = rng.uniform(-1, 1);
      q[j.iq + 2] = rng.uniform(-Math.PI, Math.PI);
    } else {
      for (let k = 0; k < j.nq; k++) q[j.iq + k] = jointValue ?? rng.uniform(-Math.PI, Math.PI);
    }
  }
  return q;
}
