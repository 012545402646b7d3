/**
 * Badly conditioned synthetic robots for the accuracy tests and benchmark, worse than the real
 * robots seen so far (real humanoids have fingers of a few grams and intermediate links of a few
 * grams between heavy bodies):
 * - `handedHumanoid`: the project's humanoid with a 40 kg trunk, two-gram shells with 1e-7 kg m²
 *   inertias between the hip, shoulder and wrist joints, and five three-phalanx fingers of 2–5 g
 *   with 1e-7 … 4e-8 kg m² inertias on each palm;
 * - `massSpreadChain`: a serial chain with random joint axes whose link masses are spread
 *   log-uniformly over 1e-3 … 1e2 kg in a seeded random order (light links between heavy ones).
 * Inertias are physical (positive definite, triangle inequality) so ABA is well defined.
 */
import { boxInertia, chainSpec, humanoidSpec, inertiaFromPrincipal } from '../../src/model/generators.ts';
import { buildModel, type JointSpec, type ModelSpec } from '../../src/model/build.ts';
import type { Model } from '../../src/model/model.ts';
import { Rng } from '../../src/model/rng.ts';
import { xFromRotTrans } from '../../src/spatial/transform.ts';

const at = (p: number[]) => xFromRotTrans(new Float64Array(12), Float64Array.of(1, 0, 0, 0, 1, 0, 0, 0, 1), p);

/** ModelSpec of the humanoid with a heavy trunk, light shells and gram fingers (see the file header). */
export function handedHumanoidSpec(shells = { mass: 0.002, inertia: 1e-7 }): ModelSpec {
  const spec = humanoidSpec();
  const links = spec.links.map((l) => ({ ...l }));
  const joints: JointSpec[] = spec.joints.map((j) => ({ ...j }));
  const link = (name: string) => links.find((l) => l.name === name)!;
  link('torso').inertia = boxInertia(40, 0.2, 0.3, 0.4, [0, 0, 0.2]);
  // intermediate shells between intersecting joint axes: 2 g, 1e-7 kg m²
  for (const s of ['l', 'r']) {
    for (const shell of [`${s}_hip1`, `${s}_hip2`, `${s}_shoulder1`, `${s}_shoulder2`, `${s}_wrist1`, `${s}_wrist2`]) {
      link(shell).inertia = inertiaFromPrincipal(shells.mass, [0, 0, 0], shells.inertia, shells.inertia, shells.inertia);
    }
    // five fingers of three phalanges on each palm (flexion about y), 2 cm phalanges
    for (let f = 0; f < 5; f++) {
      let parent = `${s}_palm`;
      let origin = [0, (f - 2) * 0.018, -0.12];
      for (let k = 0; k < 3; k++) {
        const name = `${s}_finger${f}_${k}`;
        const m = [0.005, 0.003, 0.002][k];
        const J = [1e-7, 6e-8, 4e-8][k];
        links.push({ name, inertia: inertiaFromPrincipal(m, [0, 0, -0.01], J, J, J / 2) });
        joints.push({ name: `${name}_joint`, type: 'revolute', parent, child: name, origin: at(origin), axis: [0, 1, 0] });
        parent = name;
        origin = [0, 0, -0.02];
      }
    }
  }
  return { name: 'handed-humanoid', links, joints };
}

export function handedHumanoid(floatingBase: boolean, shells?: { mass: number; inertia: number }): Model {
  return buildModel(handedHumanoidSpec(shells), { floatingBase });
}

/** ModelSpec of the mass-spread chain: n links, masses log-uniform in [1e-3, 1e2] kg, seeded. */
export function massSpreadChainSpec(n: number, seed: number): ModelSpec {
  const spec = chainSpec(n, { axes: 'random', seed });
  const rng = new Rng(seed + 1000);
  const links = spec.links.map((l, k) => {
    if (k === 0) return l;
    const m = 10 ** rng.uniform(-3, 2);
    // the chain's cylinder, mass scaled: same shape, inertia proportional to the mass
    const I = Float64Array.from(l.inertia!, (x) => x * m);
    return { name: l.name, inertia: I };
  });
  return { name: `mass-spread-chain:${n}:${seed}`, links, joints: spec.joints };
}

export function massSpreadChain(n: number, seed: number, floatingBase: boolean): Model {
  return buildModel(massSpreadChainSpec(n, seed), { floatingBase });
}
