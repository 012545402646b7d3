/**
 * Derivatives of inverse and forward dynamics on trees with planar joints: the sparse-LU factor
 * reuse and the recursive algorithms agree to 1e-10, and both agree with geometric central
 * differences (q ⊕ δ on SE(2) for the planar joints) to 1e-7 at the best δ of a sweep.
 */
import { describe, expect, it } from 'vitest';
import { LuForwardDynamicsDerivatives, LuInverseDynamicsDerivatives, type DynamicsDerivatives } from '../../src/derivatives/dynamics.ts';
import { bestOfSweep, deltaRange, fdSweep, relativeErrors } from '../../src/derivatives/finite-differences.ts';
import { RecursiveForwardDynamicsDerivatives, RecursiveInverseDynamicsDerivatives } from '../../src/derivatives/recursive.ts';
import { randomTree } from '../../src/model/generators.ts';
import { Rng } from '../../src/model/rng.ts';
import { randomState } from '../state.ts';

const DELTAS = deltaRange(-3, -8, 2);

function expectAgree(a: DynamicsDerivatives, b: DynamicsDerivatives, tol: number, what: string): void {
  for (const k of ['value', 'dq', 'dv', 'du'] as const) {
    const e = relativeErrors(a[k], b[k]).max;
    expect(e, `${what}: ${k} relative error ${e.toExponential(2)}`).toBeLessThanOrEqual(tol);
  }
}

describe('derivatives with planar joints: LU factor reuse, recursive and central differences agree', () => {
  for (const floatingBase of [false, true]) {
    it(`random tree 14 with planar joints, ${floatingBase ? 'floating' : 'fixed'} base`, () => {
      const model = randomTree(14, floatingBase ? 92 : 91, { floatingBase, mix: { planar: 4 } });
      expect(model.jointTypes.filter((t) => t === 'planar').length).toBeGreaterThanOrEqual(2);
      const { q, v, a, tau } = randomState(model, new Rng(17));
      const luId = new LuInverseDynamicsDerivatives(model).compute(q, v, a);
      const recId = new RecursiveInverseDynamicsDerivatives(model).compute(q, v, a);
      expectAgree(luId, recId, 1e-10, 'inverse dynamics, LU vs recursive');
      const bi = bestOfSweep(fdSweep(model, 'id', q, v, a, recId, DELTAS));
      for (const k of ['dq', 'dv', 'du'] as const) expect(bi[k].maxError, `∂τ/${k}: best FD error`).toBeLessThanOrEqual(1e-7);
      const luFd = new LuForwardDynamicsDerivatives(model).compute(q, v, tau);
      const recFd = new RecursiveForwardDynamicsDerivatives(model).compute(q, v, tau);
      expectAgree(luFd, recFd, 1e-10, 'forward dynamics, LU vs recursive');
      const bf = bestOfSweep(fdSweep(model, 'fd', q, v, tau, luFd, DELTAS));
      for (const k of ['dq', 'dv', 'du'] as const) expect(bf[k].maxError, `∂q̈/${k}: best FD error`).toBeLessThanOrEqual(1e-7);
    });
  }
});
