/** Test helpers: tolerance checks with explicit tolerances and informative messages. */
import { expect } from 'vitest';

/** max |a_k − b_k| / max(‖b‖∞, floor) ≤ tol */
export function expectClose(actual: ArrayLike<number>, expected: ArrayLike<number>, tol: number, what = 'value', floor = 1): void {
  expect(actual.length, `${what}: length`).toBe(expected.length);
  let scale = floor;
  for (let k = 0; k < expected.length; k++) scale = Math.max(scale, Math.abs(expected[k]));
  let worst = 0, at = -1;
  for (let k = 0; k < expected.length; k++) {
    const e = Math.abs(actual[k] - expected[k]);
    if (!(e <= worst)) { worst = e; at = k; }
  }
  const rel = worst / scale;
  if (!(rel <= tol)) {
    throw new Error(`${what}: relative error ${rel.toExponential(3)} > ${tol} at [${at}] (actual ${actual[at]}, expected ${expected[at]})`);
  }
}

export function maxAbs(x: ArrayLike<number>): number {
  let m = 0;
  for (let k = 0; k < x.length; k++) m = Math.max(m, Math.abs(x[k]));
  return m;
}
