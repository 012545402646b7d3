/**
 * Is a rigid-body inertia physically valid? The conditions of a real body (P. M. Wensing,
 * S. Kim, J.-J. E. Slotine, "Linear matrix inequalities for physically consistent inertial
 * parameter identification", 2017): mass m > 0, rotational inertia about the centre of mass I_c
 * positive definite, and its principal moments satisfying the triangle inequality
 * λ_i + λ_j ≥ λ_k (the second moment of the mass distribution, ½ tr(I_c) 1 − I_c, is positive
 * semidefinite). Used to warn, never to reject: inertia values are data, and the dynamics use them
 * as written (Pinocchio builds Inertia(m, c, I_c) from whatever the file says).
 *
 * Two idealisations pass: a massless body (m = 0 and no rotational inertia: a frame, judged later
 * by its articulated inertia, articulated-check.ts) and a point mass (m > 0, I_c = 0).
 */
import { symmetricEigen } from '../spatial/symmetric-eigen.ts';

/** What is wrong with a rigid inertia; the code is part of the warning codes (`link-…`, `body-…`). */
export interface InertiaProblem {
  /** `mass-negative`, `mass-zero` (mass 0 with a rotational inertia), `not-positive-definite`, `triangle-inequality` */
  readonly code: 'mass-negative' | 'mass-zero' | 'not-positive-definite' | 'triangle-inequality';
  /** a short phrase for messages, e.g. "rotational inertia about the centre of mass not positive definite (principal moments 0, 1.2e-4, 1.2e-4 kg m²)" */
  readonly detail: string;
}

/** Relative tolerance of the tests, on the largest principal moment (round-off of merging links and rotating tensors). */
export const INERTIA_RTOL = 1e-12;

function fmt(x: number): string {
  return x === 0 ? '0' : Math.abs(x) < 1e-3 || Math.abs(x) >= 1e6 ? x.toExponential(3).replace(/\.?0+e/, 'e') : Number(x.toPrecision(4)).toString();
}

/** Principal moments (ascending) of a symmetric 3×3 given by its six entries. */
export function principalMoments(xx: number, xy: number, xz: number, yy: number, yz: number, zz: number): [number, number, number] {
  // scaled by the largest |entry| (s) and back: entries beyond about 1e154 would overflow inside the decomposition
  const s = Math.max(Math.abs(xx), Math.abs(xy), Math.abs(xz), Math.abs(yy), Math.abs(yz), Math.abs(zz));
  if (s === 0) return [0, 0, 0];
  if (!Number.isFinite(s)) return [NaN, NaN, NaN];
  const e = symmetricEigen([[xx / s, xy / s, xz / s], [xy / s, yy / s, yz / s], [xz / s, yz / s, zz / s]]).values;
  e.sort((a, b) => a - b);
  return [e[0] * s, e[1] * s, e[2] * s];
}

/**
 * The rotational inertia about the centre of mass, I_c = Ī + m (c cᵀ − cᵀc 1) with c = h/m, of a
 * rigid inertia in the 10-number layout of spatial/inertia.ts (m, h, Ī about the frame origin);
 * for m = 0 it is Ī. Six entries xx, xy, xz, yy, yz, zz.
 */
export function inertiaAboutCom(I: ArrayLike<number>): [number, number, number, number, number, number] {
  const m = I[0];
  if (m === 0) return [I[4], I[5], I[6], I[7], I[8], I[9]];
  const cx = I[1] / m, cy = I[2] / m, cz = I[3] / m;
  return [
    I[4] - m * (cy * cy + cz * cz), I[5] + m * cx * cy, I[6] + m * cx * cz,
    I[7] - m * (cx * cx + cz * cz), I[8] + m * cy * cz, I[9] - m * (cx * cx + cy * cy),
  ];
}

/** The problem of a rigid inertia (10-number layout), or null when it is valid, massless or a point mass. */
export function rigidInertiaProblem(I: ArrayLike<number>): InertiaProblem | null {
  const m = I[0];
  if (m < 0) return { code: 'mass-negative', detail: `negative mass (${fmt(m)} kg)` };
  const Ic = inertiaAboutCom(I);
  const big = Math.max(...Ic.map(Math.abs));
  if (m === 0) {
    if (big === 0 && I[1] === 0 && I[2] === 0 && I[3] === 0) return null;
    return { code: 'mass-zero', detail: `mass 0 with a non-zero rotational inertia (${momentsText(Ic)})` };
  }
  // point mass: I_c zero up to the round-off of computing it from Ī (terms of size m|c|²)
  const c2 = (I[1] * I[1] + I[2] * I[2] + I[3] * I[3]) / (m * m);
  const roundoff = 1e-14 * (m * c2 + Math.max(Math.abs(I[4]), Math.abs(I[7]), Math.abs(I[9])));
  if (big <= roundoff) return null;
  const [l1, l2, l3] = principalMoments(...Ic);
  const tol = INERTIA_RTOL * Math.abs(l3) + roundoff;
  if (!(l1 > tol)) {
    return { code: 'not-positive-definite', detail: `rotational inertia about the centre of mass not positive definite (principal moments ${fmt(l1)}, ${fmt(l2)}, ${fmt(l3)} kg m²)` };
  }
  if (l1 + l2 < l3 - tol) {
    return { code: 'triangle-inequality', detail: `principal moments ${fmt(l1)}, ${fmt(l2)}, ${fmt(l3)} kg m² breaking the triangle inequality (${fmt(l1)} + ${fmt(l2)} < ${fmt(l3)}: no mass distribution has them)` };
  }
  return null;
}

function momentsText(Ic: readonly number[]): string {
  const [l1, l2, l3] = principalMoments(Ic[0], Ic[1], Ic[2], Ic[3], Ic[4], Ic[5]);
  return `principal moments ${fmt(l1)}, ${fmt(l2)}, ${fmt(l3)} kg m²`;
}
