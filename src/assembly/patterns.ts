/**
 * Worst-case sparsity patterns of the blocks of D (Nori (2017) §IV-D: an entry is structural when it
 * is nonzero for some configuration), derived from the joint type and the constant parts of the
 * model, never from a numerical sample:
 *   ⁱX_λ = [E 0; −E r× E],  E = E_J(q) E_tree,  r = r_tree + E_treeᵀ r_J(q)
 * - a rotation about a frame axis k mixes only the two other rows of E_tree (row k is kept);
 *   a general axis, a quaternion joint or a floating base mixes all rows; a planar joint turns
 *   about its plane normal (frame axis z, or a general axis);
 * - a prismatic/helical joint moves r along E_treeᵀ axis; a planar joint in the plane spanned by
 *   E_treeᵀ e1 and E_treeᵀ e2; a floating base moves r anywhere;
 * - −E r× is the boolean product of the patterns of E and r×.
 * Constant blocks (I_i, S_i, kept-fixed joints) use their exact nonzeros — except a rigid inertia
 * that is not positive definite (a massless body, a point mass on its joint, a rod): it takes the
 * pattern every rigid inertia can have, [full 3×3, h×; h×ᵀ, m 1], so that the system of a model
 * with massless bodies stays structurally nonsingular and its offline analysis (ordering, fill,
 * flop counts) exists even though its numeric factorization does not. A pattern is a
 * Uint8Array(36), row-major, 1 = structural.
 */
import { JT_FIXED, JT_FLOATING, JT_HELICAL, JT_PLANAR, JT_PRISMATIC, JT_REVOLUTE, JT_SPHERICAL } from '../model/joint.ts';
import type { Model } from '../model/model.ts';
import { inertiaToMatrix } from '../spatial/inertia.ts';

/** scratch of the pattern functions (they run once per body per system: no garbage per call) */
const ET = new Uint8Array(9), EJ = new Uint8Array(9), M36 = new Float64Array(36), L36 = new Float64Array(36);

/** boolean 3×3 product pattern C = A B (a new array) */
function boolMul3(A: Uint8Array, B: Uint8Array): Uint8Array {
  const C = new Uint8Array(9);
  for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) {
    let s = 0;
    for (let k = 0; k < 3; k++) s |= A[3 * i + k] & B[3 * k + j];
    C[3 * i + j] = s;
  }
  return C;
}

/** Pattern of E_i = E_J(q) E_tree over all q (3×3). */
export function rotationPattern(model: Model, i: number): Uint8Array {
  const Xt = model.Xtree[i];
  const Et = ET;
  for (let k = 0; k < 9; k++) Et[k] = Xt[k] !== 0 ? 1 : 0;
  const t = model.jtype[i];
  if (t === JT_PRISMATIC || t === JT_FIXED) return Et.slice();
  EJ.fill(0);
  const planarZ = t === JT_PLANAR && model.axis[3 * i + 2] === 1;
  if ((t === JT_REVOLUTE && model.axisKind[i] < 3) || planarZ) {
    const k = planarZ ? 2 : model.axisKind[i];
    const a = k === 0 ? 1 : k === 1 ? 2 : 0;
    const b = k === 0 ? 2 : k === 1 ? 0 : 1;
    EJ[3 * k + k] = 1;
    EJ[3 * a + a] = 1; EJ[3 * a + b] = 1; EJ[3 * b + a] = 1; EJ[3 * b + b] = 1;
  } else if (t === JT_REVOLUTE || t === JT_HELICAL || t === JT_SPHERICAL || t === JT_FLOATING || t === JT_PLANAR) {
    EJ.fill(1);
  }
  return boolMul3(EJ, Et);
}

/** Pattern of r_i = r_tree + E_treeᵀ r_J(q) over all q (3). */
export function translationPattern(model: Model, i: number): Uint8Array {
  const Xt = model.Xtree[i];
  const r = new Uint8Array(3);
  for (let k = 0; k < 3; k++) r[k] = Xt[9 + k] !== 0 ? 1 : 0;
  const t = model.jtype[i];
  if (t === JT_FLOATING) {
    r.fill(1);
  } else if (t === JT_PRISMATIC || t === JT_HELICAL) {
    const u = model.axis.subarray(3 * i, 3 * i + 3);
    if (t === JT_HELICAL && model.pitch[i] === 0) return r;
    // r_J = u q (constant direction): E_treeᵀ u is a constant vector
    for (let k = 0; k < 3; k++) {
      if (Xt[k] * u[0] + Xt[3 + k] * u[1] + Xt[6 + k] * u[2] !== 0) r[k] = 1;
    }
  } else if (t === JT_PLANAR) {
    // r_J = x e1 + y e2: E_treeᵀ e1 and E_treeᵀ e2 (e1, e2: linear parts of S's first two columns)
    const S = model.S[i];
    for (let c = 0; c < 2; c++) {
      const e0 = S[6 * c + 3], e1 = S[6 * c + 4], e2 = S[6 * c + 5];
      for (let k = 0; k < 3; k++) {
        if (Xt[k] * e0 + Xt[3 + k] * e1 + Xt[6 + k] * e2 !== 0) r[k] = 1;
      }
    }
  }
  return r;
}

/**
 * For the bottom-left block −E r× of ⁱX_λ: which of the two terms of each entry are structural.
 * (E r×)_i0 = E_i1 r2 − E_i2 r1, (E r×)_i1 = E_i2 r0 − E_i0 r2, (E r×)_i2 = E_i0 r1 − E_i1 r0.
 * Returns 9 codes (row-major over the 3×3 block): bit 1 = first term, bit 2 = second term.
 */
export function skewTermsPattern(E: Uint8Array, r: Uint8Array): Uint8Array {
  const codes = new Uint8Array(9);
  for (let i = 0; i < 3; i++) {
    const e0 = E[3 * i], e1 = E[3 * i + 1], e2 = E[3 * i + 2];
    codes[3 * i] = (e1 & r[2]) | ((e2 & r[1]) << 1);
    codes[3 * i + 1] = (e2 & r[0]) | ((e0 & r[2]) << 1);
    codes[3 * i + 2] = (e0 & r[1]) | ((e1 & r[0]) << 1);
  }
  return codes;
}

/** Worst-case 6×6 pattern of the motion transform ⁱX_λ(i) and the term codes of its −E r× block. */
export function transformPattern(model: Model, i: number): { pattern: Uint8Array; skewTerms: Uint8Array } {
  const E = rotationPattern(model, i);
  const r = translationPattern(model, i);
  const skewTerms = skewTermsPattern(E, r);
  const P = new Uint8Array(36);
  for (let a = 0; a < 3; a++) for (let b = 0; b < 3; b++) {
    P[6 * a + b] = E[3 * a + b];
    P[6 * (a + 3) + b + 3] = E[3 * a + b];
    P[6 * (a + 3) + b] = skewTerms[3 * a + b] !== 0 ? 1 : 0;
  }
  return { pattern: P, skewTerms };
}

/** The pattern every rigid inertia can have: [full 3×3, h×; h×ᵀ, m 1]. */
export const RIGID_INERTIA_PATTERN: Uint8Array = (() => {
  const P = new Uint8Array(36);
  for (let r = 0; r < 6; r++) for (let c = 0; c < 6; c++) {
    P[6 * r + c] = r < 3 && c < 3 ? 1 : r >= 3 && c >= 3 ? (r === c ? 1 : 0) : (r % 3 !== c % 3 ? 1 : 0);
  }
  return P;
})();

/** Is a rigid inertia (10 numbers) positive definite as a 6×6 matrix? (Cholesky; load-time use.) */
export function rigidInertiaIsPositiveDefinite(I: ArrayLike<number>): boolean {
  return isPositiveDefinite6(inertiaToMatrix(M36, I));
}

function isPositiveDefinite6(M: Float64Array): boolean {
  const L = L36;
  for (let i = 0; i < 6; i++) {
    for (let j = 0; j <= i; j++) {
      let s = M[6 * i + j];
      for (let k = 0; k < j; k++) s -= L[6 * i + k] * L[6 * j + k];
      if (i === j) {
        if (!(s > 0)) return false;
        L[6 * i + i] = Math.sqrt(s);
      } else {
        L[6 * i + j] = s / L[6 * j + j];
      }
    }
  }
  return true;
}

/**
 * 6×6 pattern of the (constant) rigid inertia of body i: its exact nonzeros, or the pattern every
 * rigid inertia can have when it is not positive definite (file header).
 */
export function inertiaPattern(model: Model, i: number): Uint8Array {
  const M = inertiaToMatrix(M36, model.I[i]);
  if (!isPositiveDefinite6(M)) return RIGID_INERTIA_PATTERN.slice();
  const P = new Uint8Array(36);
  for (let k = 0; k < 36; k++) P[k] = M[k] !== 0 ? 1 : 0;
  return P;
}
