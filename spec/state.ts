/** Seeded random states (q on the manifold: unit quaternions) for tests. */
import type { Model } from '../src/model/model.ts';
import { Rng } from '../src/model/rng.ts';

export function randomState(model: Model, rng: Rng): { q: Float64Array; v: Float64Array; a: Float64Array; tau: Float64Array } {
  const q = new Float64Array(model.nq);
  for (const j of model.movingJoints()) {
    if (j.type === 'floating' || j.type === 'spherical') {
      const o = j.iq + (j.type === 'floating' ? 3 : 0);
      if (j.type === 'floating') for (let k = 0; k < 3; k++) q[j.iq + k] = rng.uniform(-1, 1);
      let n = 0;
      for (let k = 0; k < 4; k++) { q[o + k] = rng.normal(); n += q[o + k] * q[o + k]; }
      n = Math.sqrt(n);
      for (let k = 0; k < 4; k++) q[o + k] /= n;
    } else if (j.type === 'planar') {
      q[j.iq] = rng.uniform(-1, 1); q[j.iq + 1] = rng.uniform(-1, 1); q[j.iq + 2] = rng.uniform(-Math.PI, Math.PI);
    } else {
      q[j.iq] = rng.uniform(-Math.PI, Math.PI);
    }
  }
  const vec = () => Float64Array.from({ length: model.nv }, () => rng.uniform(-2, 2));
  return { q, v: vec(), a: vec(), tau: vec() };
}
