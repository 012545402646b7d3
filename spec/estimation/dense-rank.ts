/**
 * An independent reference for the analysis' numerical rank: the dense [D; D_Y] at a configuration
 * and its SVD (ml-matrix), with no reduction. For tests only (dense, size grows with the robot).
 */
import { Matrix, SingularValueDecomposition } from 'ml-matrix';
import { fillSystem, SystemValues } from '../../src/assembly/system.ts';
import type { EstimationSystem } from '../../src/estimation/setup.ts';

/** Independent rank of the dense [D; D_Y] at q (ml-matrix SVD, no reduction). */
export function denseRank(es: EstimationSystem, q: Float64Array): number {
  const vals = new SystemValues(es.sys);
  fillSystem(vals, q, null, new Float64Array(es.sys.ny));
  const D = Matrix.zeros(es.sys.m, es.sys.n);
  const A = es.sys.pattern;
  for (let j = 0; j < A.n; j++) for (let p = A.Ap[j]; p < A.Ap[j + 1]; p++) D.set(A.Ai[p], j, vals.Ax[p]);
  const sv = new SingularValueDecomposition(D, { computeLeftSingularVectors: false, computeRightSingularVectors: false, autoTranspose: true }).diagonal;
  const mx = Math.max(...sv);
  return sv.filter((s) => s > 1e-10 * mx).length;
}
