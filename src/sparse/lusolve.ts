/**
 * x = luSolve(A, b): analyse, factorize and solve in one call — the allocating convenience beside
 * analyze / factor / NumericLU.solve, for one-off systems. Source: CSparse cs_lusol (Davis 2006).
 */
import type { CscMatrix } from './csc.ts';
import { analyze, type AnalyzeOptions } from './analyze.ts';
import { factor, type FactorOptions } from './numeric.ts';

/** x = luSolve(A, b): analyse, factorize and solve in one call (allocating; for one-off systems). */
export function luSolve(A: CscMatrix, b: ArrayLike<number>, options: AnalyzeOptions & FactorOptions = {}): Float64Array {
  const S = analyze(A, options);
  const lu = factor(A, S, options);
  const x = Float64Array.from(b);
  return lu.solve(x, x);
}
