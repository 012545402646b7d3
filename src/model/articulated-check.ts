/**
 * Which moving bodies have a singular articulated inertia along their joint? The ABA's
 * D_i = S_iᵀ I^A_i S_i (RBDA Table 7.1) must be positive definite for forward dynamics to exist;
 * M is positive definite exactly when every D_i is (the ABA factors M). A massless body fails when
 * nothing beyond it resists its joint's motion: a massless leaf, or a massless body whose only
 * child turns about the same axis (the child's own joint frees the inertia), while a massless body
 * carrying a massive child on a different joint is fine. So the test is the articulated inertia
 * itself, not the mass.
 *
 * At two seeded random configurations, the articulated inertias are formed as in the ABA, and D_i
 * is compared with the composite (rigid-subtree) inertia of the same joint, D^c_i = S_iᵀ I^c_i S_i
 * (CRBA's diagonal block M_ii, an upper bound of D_i): joint DoF k is singular when the scaled
 * D_i (D_ab / √(D^c_aa D^c_bb)) has an eigenvalue ≤ 1e-11, or D^c_kk = 0 (an exactly singular
 * D_i comes out of the sums at round-off, 1e-16 to 1e-14 of D^c; a light but real body — a 1e-6 kg
 * placeholder on a joint whose child turns about the same axis — sits near 1e-9). A singular
 * direction is left out of the projection I^a = I^A − U D⁺ Uᵀ (pseudo-inverse), so that the bodies above are
 * judged on what they really carry. A body is reported when it is singular at both configurations
 * (a singularity of special poses only is not structural). Load-time code: it allocates.
 */
import { m6CongruenceAdd } from '../spatial/articulated.ts';
import { Flops } from '../spatial/flops.ts';
import { symmetricEigen } from '../spatial/symmetric-eigen.ts';
import { inertiaToMatrix } from '../spatial/inertia.ts';
import { jcalc } from './jcalc.ts';
import type { Model } from './model.ts';
import { randomConfiguration } from './random.ts';
import { Rng } from './rng.ts';

/** Eigenvalue threshold of the scaled D_i (see the header). */
export const SINGULAR_RTOL = 1e-11;

/** Bodies whose D_i is singular at configuration q (ascending indices). */
export function singularBodiesAt(model: Model, q: ArrayLike<number>): number[] {
  const nb = model.nb;
  const fl = new Flops();
  const Xup = Array.from({ length: nb }, () => new Float64Array(12));
  const IA = Array.from({ length: nb }, (_, i) => inertiaToMatrix(new Float64Array(36), model.I[i]));
  const IC = Array.from({ length: nb }, (_, i) => inertiaToMatrix(new Float64Array(36), model.I[i]));
  for (let i = 0; i < nb; i++) jcalc(Xup[i], model, i, q, fl);
  const singular: number[] = [];
  const Ia = new Float64Array(36);
  for (let i = nb - 1; i >= 0; i--) {
    const nv = model.nvi[i], S = model.S[i], p = model.parents[i];
    Ia.set(IA[i]);
    if (nv > 0) {
      // U = I^A S (6×nv), D = Sᵀ U, D^c = Sᵀ I^c S
      const U = new Float64Array(6 * nv);
      for (let k = 0; k < nv; k++) for (let r = 0; r < 6; r++) {
        let acc = 0;
        for (let c = 0; c < 6; c++) acc += IA[i][6 * r + c] * S[6 * k + c];
        U[6 * k + r] = acc;
      }
      const D: number[][] = [], scale: number[] = [];
      for (let a = 0; a < nv; a++) {
        D.push([]);
        let dc = 0;
        for (let r = 0; r < 6; r++) for (let c = 0; c < 6; c++) dc += S[6 * a + r] * IC[i][6 * r + c] * S[6 * a + c];
        scale.push(dc > 0 ? 1 / Math.sqrt(dc) : 1);
        for (let b = 0; b < nv; b++) {
          let acc = 0;
          for (let r = 0; r < 6; r++) acc += S[6 * a + r] * U[6 * b + r];
          D[a].push(acc);
        }
      }
      const Ds = D.map((row, a) => row.map((x, b) => x * scale[a] * scale[b]));
      let lam: number[], V: { get(r: number, c: number): number };
      if (nv === 1 || !Ds.every((row) => row.every(Number.isFinite))) {
        // (a D that is not finite is not judged: the eigen decomposition would fail on it)
        lam = nv === 1 ? [Ds[0][0]] : Ds.map(() => NaN); V = { get: () => 1 };
      } else {
        const eig = symmetricEigen(Ds);
        lam = eig.values; V = { get: (r, c) => eig.vectors[r][c] };
      }
      if (Math.min(...lam) <= SINGULAR_RTOL) singular.push(i);
      // I^a = I^A − U D⁺ Uᵀ with D⁺ = W V Λ⁺ Vᵀ W, W = diag(scale), singular directions left out
      for (let e = 0; e < nv; e++) {
        if (!(lam[e] > SINGULAR_RTOL)) continue;
        // w = U W v_e, a 6-vector; I^a −= w wᵀ / λ_e
        const w = new Float64Array(6);
        for (let r = 0; r < 6; r++) {
          let acc = 0;
          for (let k = 0; k < nv; k++) acc += U[6 * k + r] * scale[k] * V.get(k, e);
          w[r] = acc;
        }
        for (let r = 0; r < 6; r++) for (let c = 0; c < 6; c++) Ia[6 * r + c] -= (w[r] * w[c]) / lam[e];
      }
    }
    if (p >= 0) {
      m6CongruenceAdd(IA[p], Xup[i], Ia, fl);
      m6CongruenceAdd(IC[p], Xup[i], IC[i], fl);
    }
  }
  return singular.sort((a, b) => a - b);
}

/**
 * Bodies whose articulated inertia is singular along their joint at two seeded random
 * configurations (see the header), in ascending order.
 */
export function singularBodies(model: Model): Int32Array {
  if (model.nv === 0) return new Int32Array(0);
  const rng = new Rng(20240611);
  const first = singularBodiesAt(model, randomConfiguration(model, rng));
  if (first.length === 0) return new Int32Array(0);
  const second = new Set(singularBodiesAt(model, randomConfiguration(model, rng)));
  return Int32Array.from(first.filter((i) => second.has(i)));
}
