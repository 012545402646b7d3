/**
 * Inverse dynamics, operation by operation: the decomposition adds up to the three solvers'
 * measured totals (RNEA, the sparse LU, the paper's triangular solve) on chains, a random tree,
 * a floating base and a URDF robot; and the paper's permutation solves inverse dynamics.
 */
import { describe, expect, it } from 'vitest';
import { rnea, RneaWorkspace } from '../../src/algorithms/rnea.ts';
import { parseModelSpec } from '../../src/node/spec.ts';
import { modelCase, tauFromD } from '../../src/study/cases.ts';
import { inverseDynamicsGap } from '../../src/study/id-gap.ts';
import { PaperTriangularSolver } from '../../src/study/paper-triangular.ts';
import { expectClose } from '../helpers.ts';

describe('inverse-dynamics gap by operation', () => {
  for (const spec of ['chain:12', 'chain:7:axes=z', 'tree:15:3', 'chain:6+floating', 'models/humanoid.urdf']) {
    it(`${spec}: the rows add up to RNEA's, the LU's and lu:paper's measured totals; zero fill`, () => {
      const g = inverseDynamicsGap(parseModelSpec(spec), spec, 4);
      expect(g.closes).toBe(true);
      expect(g.fill).toBe(0);
      const sum = (k: 'rnea' | 'lu' | 'paper') => g.rows.reduce((s, r) => s + r[k], 0);
      expect(sum('rnea')).toBe(g.measured.rnea);
      expect(sum('lu')).toBe(g.measured.lu);
      expect(sum('paper')).toBe(g.measured.paper);
      // every pivot of D_id is ±1: the LU divides by each, lu:paper never
      const piv = g.rows.find((r) => r.operation.startsWith('pivots'))!;
      expect(piv.lu).toBe(g.blocks);
      expect(piv.paper).toBe(0);
      expect(g.rows.find((r) => r.operation.startsWith('velocity kinematics'))!.lu).toBe(g.rows[0].rnea);
    });
  }
});

describe('lu:paper (Property 1, eqs. 11–12)', () => {
  it('gives RNEA\'s τ with one forward substitution and no division', () => {
    const model = parseModelSpec('tree:12:5');
    const c = modelCase('inverse-dynamics', model, 'tree:12:5', 9);
    const ts = new PaperTriangularSolver(c.sys);
    const tau = tauFromD(c, ts.stepUnchecked(c.q, c.v, c.y));
    const ws = new RneaWorkspace(model);
    expectClose(tau, rnea(model, ws, c.q, c.v, c.qdd, c.fext), 1e-12, 'τ');
    expect(ts.flops.solve.div).toBe(0);
    expect(ts.flops.solve.add).toBe(ts.offDiagonal);
  });

  it('refuses a system the permutation does not triangularize, naming it', () => {
    const model = parseModelSpec('chain:3');
    const c = modelCase('forward-dynamics', model, 'chain:3', 1);
    expect(() => new PaperTriangularSolver(c.sys)).toThrow(/rneaPermutation: qdd of body "link1" is not a known variable/);
  });
});
