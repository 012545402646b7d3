/** Property 1 (paper 004): the permutations (11)–(12) make the inverse-dynamics D lower triangular. */
import { describe, expect, it } from 'vitest';
import { forwardDynamicsProblem, inverseDynamicsProblem } from '../../src/assembly/problems.ts';
import { rneaPermutation } from '../../src/assembly/rnea-permutation.ts';
import { SymbolicSystem } from '../../src/assembly/system.ts';
import { humanoid, randomTree } from '../../src/model/generators.ts';
import { loadUrdf } from '../../src/node/urdf-file.ts';
import type { Model } from '../../src/model/model.ts';

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

describe('Property 1: RNEA permutation', () => {
  const models: [string, Model][] = [
    ['tree:200 fixed', randomTree(200, 5)],
    ['tree:50 floating', randomTree(50, 6, { floatingBase: true })],
    ['humanoid', humanoid()],
    ['talos fixed', loadUrdf('models/talos_reduced.urdf')],
  ];
  for (const [name, model] of models) {
    it(`${name}: D_{p_id,q} is lower triangular with a full diagonal`, () => {
      const sys = new SymbolicSystem(model, inverseDynamicsProblem(model));
      const { rowPerm, colPerm } = rneaPermutation(sys);
      expect(new Set(rowPerm).size).toBe(sys.m);
      expect(new Set(colPerm).size).toBe(sys.n);
      expect(upperEntries(sys, rowPerm, colPerm)).toBe(0);
    });
  }

  it('is refused for forward dynamics, naming the missing known variable', () => {
    const model = randomTree(5, 1);
    const sys = new SymbolicSystem(model, forwardDynamicsProblem(model));
    expect(() => rneaPermutation(sys)).toThrow(/qdd of body ".*" is not a known variable/);
  });
});
