/**
 * Nori's hand-made RNEA permutations (Nori (2017), eqs. 11–12), which make the inverse-dynamics
 * matrix D_{p_id, q} lower triangular (Property 1):
 *   q    = [f^x_1, q̈_1, …, f^x_N, q̈_N, a_1, …, a_N, f_N, τ_N, …, f_1, τ_1]
 *   p_id = [c8f^x_1, c8q̈_1, …, c8f^x_N, c8q̈_N, c3a_1, …, c3a_N, c3f_N, c3τ_N, …, c3f_1, c3τ_1]
 * Returned as `rowPerm[k]` = row placed k-th and `colPerm[k]` = column placed k-th.
 */
import type { SymbolicSystem } from './system.ts';

export function rneaPermutation(sys: SymbolicSystem): { rowPerm: Int32Array; colPerm: Int32Array } {
  const model = sys.model, L = sys.layout, nb = model.nb;
  const knownRowOf = new Map<string, number>();
  sys.known.forEach((z, k) => knownRowOf.set(`${z.kind}:${z.body}:${z.offset}`, sys.knownRow[k]));
  const need = (kind: string, i: number, k: number): number => {
    const r = knownRowOf.get(`${kind}:${i}:${k}`);
    if (r === undefined) {
      throw new RangeError(`rneaPermutation: ${kind} of body "${model.bodyNames[i]}" is not a known variable (the permutation (12) is for inverse dynamics)`);
    }
    return r;
  };
  const rows: number[] = [], cols: number[] = [];
  for (let i = 0; i < nb; i++) {
    for (let k = 0; k < 6; k++) { cols.push(L.fx[i] + k); rows.push(need('fx', i, k)); }
    for (let k = 0; k < model.nvi[i]; k++) { cols.push(L.qdd[i] + k); rows.push(need('qdd', i, k)); }
  }
  for (let i = 0; i < nb; i++) for (let k = 0; k < 6; k++) { cols.push(L.a[i] + k); rows.push(sys.rowA[i] + k); }
  for (let i = nb - 1; i >= 0; i--) {
    for (let k = 0; k < 6; k++) { cols.push(L.f[i] + k); rows.push(sys.rowF[i] + k); }
    for (let k = 0; k < model.nvi[i]; k++) { cols.push(L.tau[i] + k); rows.push(sys.rowTau[i] + k); }
  }
  if (rows.length !== sys.m || cols.length !== sys.n) {
    throw new RangeError(`rneaPermutation: the system has ${sys.m} rows and ${sys.n} columns but the permutation covers ${rows.length} and ${cols.length} (extra measurement blocks?)`);
  }
  return { rowPerm: Int32Array.from(rows), colPerm: Int32Array.from(cols) };
}
