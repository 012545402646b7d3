/**
 * General symmetric 6×6 spatial inertias (articulated-body inertias, RBDA §7.2), dense row-major
 * Float64Array(36), with the products the ABA and CRBA need. Blocks: M = [A B; Bᵀ C], 3×3 each.
 */
import type { Flops } from './flops.ts';

/** out = M m (6×6 times 6-vector). 36 mul, 30 add. */
export function m6MulVec(out: Float64Array, M: Float64Array, m: Float64Array, fl: Flops): Float64Array {
  const a0 = m[0], a1 = m[1], a2 = m[2], a3 = m[3], a4 = m[4], a5 = m[5];
  for (let i = 0; i < 6; i++) {
    const o = 6 * i;
    out[i] = M[o] * a0 + M[o + 1] * a1 + M[o + 2] * a2 + M[o + 3] * a3 + M[o + 4] * a4 + M[o + 5] * a5;
  }
  fl.mul += 36; fl.add += 30;
  return out;
}

/** Scratch for m6CongruenceAdd (module-level, created once). */
const T = new Float64Array(36);
const Bp = new Float64Array(9);

/**
 * P += Xᵀ M X for a symmetric M given in B coordinates, X = ᴮX_A = (E, r) (RBDA eq. 7.41 uses
 * this to pass an articulated inertia to the parent). With X = diag(E,E)·[1 0; −r× 1]:
 *   M' = diag(E,E)ᵀ M diag(E,E) = [A' B'; B'ᵀ C'],
 *   Xᵀ M X = [A' + r×B'ᵀ − K r×, K; Kᵀ, C'],  K = B' + r× C'.
 * P must be symmetric; only its upper triangle is accumulated, then mirrored. 186 mul, 159 add.
 */
export function m6CongruenceAdd(P: Float64Array, X: Float64Array, M: Float64Array, fl: Flops): Float64Array {
  const e0 = X[0], e1 = X[1], e2 = X[2], e3 = X[3], e4 = X[4], e5 = X[5], e6 = X[6], e7 = X[7], e8 = X[8];
  const r0 = X[9], r1 = X[10], r2 = X[11];
  // T = M · diag(E, E): each row of the blocks A, B and C times E (the block Bᵀ is not needed).
  // 81 mul, 54 add
  // rows 0..2 (both column blocks: A E, B E), then rows 3..5 of the second column block (C E)
  { const m0 = M[0], m1 = M[1], m2 = M[2]; T[0] = m0 * e0 + m1 * e3 + m2 * e6; T[1] = m0 * e1 + m1 * e4 + m2 * e7; T[2] = m0 * e2 + m1 * e5 + m2 * e8; }
  { const m0 = M[3], m1 = M[4], m2 = M[5]; T[3] = m0 * e0 + m1 * e3 + m2 * e6; T[4] = m0 * e1 + m1 * e4 + m2 * e7; T[5] = m0 * e2 + m1 * e5 + m2 * e8; }
  { const m0 = M[6], m1 = M[7], m2 = M[8]; T[6] = m0 * e0 + m1 * e3 + m2 * e6; T[7] = m0 * e1 + m1 * e4 + m2 * e7; T[8] = m0 * e2 + m1 * e5 + m2 * e8; }
  { const m0 = M[9], m1 = M[10], m2 = M[11]; T[9] = m0 * e0 + m1 * e3 + m2 * e6; T[10] = m0 * e1 + m1 * e4 + m2 * e7; T[11] = m0 * e2 + m1 * e5 + m2 * e8; }
  { const m0 = M[12], m1 = M[13], m2 = M[14]; T[12] = m0 * e0 + m1 * e3 + m2 * e6; T[13] = m0 * e1 + m1 * e4 + m2 * e7; T[14] = m0 * e2 + m1 * e5 + m2 * e8; }
  { const m0 = M[15], m1 = M[16], m2 = M[17]; T[15] = m0 * e0 + m1 * e3 + m2 * e6; T[16] = m0 * e1 + m1 * e4 + m2 * e7; T[17] = m0 * e2 + m1 * e5 + m2 * e8; }
  { const m0 = M[21], m1 = M[22], m2 = M[23]; T[21] = m0 * e0 + m1 * e3 + m2 * e6; T[22] = m0 * e1 + m1 * e4 + m2 * e7; T[23] = m0 * e2 + m1 * e5 + m2 * e8; }
  { const m0 = M[27], m1 = M[28], m2 = M[29]; T[27] = m0 * e0 + m1 * e3 + m2 * e6; T[28] = m0 * e1 + m1 * e4 + m2 * e7; T[29] = m0 * e2 + m1 * e5 + m2 * e8; }
  { const m0 = M[33], m1 = M[34], m2 = M[35]; T[33] = m0 * e0 + m1 * e3 + m2 * e6; T[34] = m0 * e1 + m1 * e4 + m2 * e7; T[35] = m0 * e2 + m1 * e5 + m2 * e8; }
  // M' = diag(E,E)ᵀ T: A' and C' upper triangles (36 mul, 24 add), B' full (27 mul, 18 add).
  // (Eᵀ Y)_ij = e_0i y_0j + e_1i y_1j + e_2i y_2j with Y a 3×3 block of T.
  const a00 = e0 * T[0] + e3 * T[6] + e6 * T[12];
  const a01 = e0 * T[1] + e3 * T[7] + e6 * T[13];
  const a02 = e0 * T[2] + e3 * T[8] + e6 * T[14];
  const a11 = e1 * T[1] + e4 * T[7] + e7 * T[13];
  const a12 = e1 * T[2] + e4 * T[8] + e7 * T[14];
  const a22 = e2 * T[2] + e5 * T[8] + e8 * T[14];
  const c00 = e0 * T[21] + e3 * T[27] + e6 * T[33];
  const c01 = e0 * T[22] + e3 * T[28] + e6 * T[34];
  const c02 = e0 * T[23] + e3 * T[29] + e6 * T[35];
  const c11 = e1 * T[22] + e4 * T[28] + e7 * T[34];
  const c12 = e1 * T[23] + e4 * T[29] + e7 * T[35];
  const c22 = e2 * T[23] + e5 * T[29] + e8 * T[35];
  for (let i = 0; i < 3; i++) {
    const ei0 = X[i], ei1 = X[3 + i], ei2 = X[6 + i];
    Bp[3 * i] = ei0 * T[3] + ei1 * T[9] + ei2 * T[15];
    Bp[3 * i + 1] = ei0 * T[4] + ei1 * T[10] + ei2 * T[16];
    Bp[3 * i + 2] = ei0 * T[5] + ei1 * T[11] + ei2 * T[17];
  }
  const b00 = Bp[0], b01 = Bp[1], b02 = Bp[2], b10 = Bp[3], b11 = Bp[4], b12 = Bp[5], b20 = Bp[6], b21 = Bp[7], b22 = Bp[8];
  // K = B' + r× C', r× = [[0,−r2,r1],[r2,0,−r0],[−r1,r0,0]].   18 mul, 18 add
  const k00 = b00 + (r1 * c02 - r2 * c01), k01 = b01 + (r1 * c12 - r2 * c11), k02 = b02 + (r1 * c22 - r2 * c12);
  const k10 = b10 + (r2 * c00 - r0 * c02), k11 = b11 + (r2 * c01 - r0 * c12), k12 = b12 + (r2 * c02 - r0 * c22);
  const k20 = b20 + (r0 * c01 - r1 * c00), k21 = b21 + (r0 * c11 - r1 * c01), k22 = b22 + (r0 * c12 - r1 * c02);
  // top-left upper triangle: A' + r× B'ᵀ − K r×.   (r×B'ᵀ)_ij = (r×)_i · (row j of B'),
  // (K r×)_ij = (row i of K) · (column j of r×).   24 mul, 24 add
  const t00 = a00 + (r1 * b02 - r2 * b01) - (k01 * r2 - k02 * r1);
  const t01 = a01 + (r1 * b12 - r2 * b11) - (k02 * r0 - k00 * r2);
  const t02 = a02 + (r1 * b22 - r2 * b21) - (k00 * r1 - k01 * r0);
  const t11 = a11 + (r2 * b10 - r0 * b12) - (k12 * r0 - k10 * r2);
  const t12 = a12 + (r2 * b20 - r0 * b22) - (k10 * r1 - k11 * r0);
  const t22 = a22 + (r0 * b21 - r1 * b20) - (k20 * r1 - k21 * r0);
  // accumulate the 21 upper entries (21 add), then mirror (copies)
  P[0] += t00; P[1] += t01; P[2] += t02; P[7] += t11; P[8] += t12; P[14] += t22;
  P[3] += k00; P[4] += k01; P[5] += k02; P[9] += k10; P[10] += k11; P[11] += k12; P[15] += k20; P[16] += k21; P[17] += k22;
  P[21] += c00; P[22] += c01; P[23] += c02; P[28] += c11; P[29] += c12; P[35] += c22;
  P[6] = P[1];
  P[12] = P[2]; P[13] = P[8];
  P[18] = P[3]; P[19] = P[9]; P[20] = P[15];
  P[24] = P[4]; P[25] = P[10]; P[26] = P[16]; P[27] = P[22];
  P[30] = P[5]; P[31] = P[11]; P[32] = P[17]; P[33] = P[23]; P[34] = P[29];
  fl.mul += 81 + 36 + 27 + 18 + 24;
  fl.add += 54 + 24 + 18 + 18 + 24 + 21;
  return P;
}
