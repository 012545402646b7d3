/** Property 1 (paper 004): the permutations (11)–(12) make the inverse-dynamics D lower triangular. */
import { describe, expect, it } from 'vitest';
import { forwardDynamicsProblem, inverseDynamicsProblem } from '../../src/assembly/problems.ts';
import { rneaPermutation } from '../../src/assembly/rnea-permutation.ts';
import { SymbolicSystem } from '../../src/assembly/system.ts';
import { humanoid, randomTree } from '../../src/model/generators.ts';
import { loadUrdf } from '../../src/node/urdf-file.ts';
import type { Model } from '../../src/model/model.ts';
import { describeShared, shared } from '../shared.ts';

function upperEntries(sys: SymbolicSystem, rowPerm: Int32Array, colPerm: Int32Array): number {
  const rpos = new Int32Array(sys.m), cpos = new Int32Array(sys.n);
  rowPerm.forEach((r, k) => { rpos[r] = k; });
  colPerm.forEach((c, k) => { cpos[c] = k; });
  const A = sys.pattern;
  let upper = 0, diag = 0;
  for (let j = 0; j < sys.n; j++) for (let p = A.Ap[j]; p < A.Ap[j + 1]; p++) {
    if (rpos[A.Ai[p]] < cpos[j]) upper++;
    if (rpos[A.Ai[p]] === cpos[j]) diag++;
  }
  expect(diag).toBe(sys.n); // full diagonal
  return upper;
}

function lowerTriangular(name: string, make: () => Model): void {
  it(`${name}: D_{p_id,q} is lower triangular with a full diagonal`, () => {
    const model = make();
    const sys = new SymbolicSystem(model, inverseDynamicsProblem(model));
    const { rowPerm, colPerm } = rneaPermutation(sys);
    expect(new Set(rowPerm).size).toBe(sys.m);
    expect(new Set(colPerm).size).toBe(sys.n);
    expect(upperEntries(sys, rowPerm, colPerm)).toBe(0);
  });
}

describeShared('Property 1: RNEA permutation on a real robot', () => {
  lowerTriangular('talos fixed', () => loadUrdf(shared('models/talos_reduced.urdf')));
});

describe('Property 1: RNEA permutation', () => {
  const models: [string, () => Model][] = [
    ['tree:200 fixed', () => randomTree(200, 5)],
    ['tree:50 floating', () => randomTree(50, 6, { floatingBase: true })],
    ['humanoid', () => humanoid()],
    ['humanoid URDF fixed, sole and hand joints kept as 0-DoF', () => loadUrdf('models/humanoid.urdf', { keepFixed: ['l_sole_joint', 'r_sole_joint', 'l_hand_joint', 'r_hand_joint'] })],
  ];
  for (const [name, make] of models) lowerTriangular(name, make);

  it('is refused for forward dynamics, naming the missing known variable', () => {
    const model = randomTree(5, 1);
    const sys = new SymbolicSystem(model, forwardDynamicsProblem(model));
    expect(() => rneaPermutation(sys)).toThrow(/qdd of body ".*" is not a known variable/);
  });
});
