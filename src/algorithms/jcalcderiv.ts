/**
 * jcalcderiv: derivatives of the joint transforms and the kernels the derivative algorithms share
 * (Saccon et al. (2017), Table 6 line 2 "jcalcderiv", lines 3, 5, 7, 18, 20; RBDA §2.9 and eq. 2.72 for the
 * derivative of an inertia). For every joint here S_i is constant in body coordinates and a
 * tangent increment δ_ik moves body i by the twist S_ik δ_ik in its own frame (model/lie.ts), so
 *
 *   ∂ⁱX_λ/∂s_ik = −(S_ik ×) ⁱX_λ:    (∂ⁱX_λ/∂s_ik) m = (ⁱX_λ m) × S_ik,
 *                                      (∂ⁱX_λ/∂s_ik)ᵀ f = ⁱX_λᵀ (S_ik ×* f),
 *   ∂(ⁱX_λᵀ I ⁱX_λ)/∂s_ik = ⁱX_λᵀ (S_ik ×* I − I S_ik ×) ⁱX_λ.
 *
 * The derivative of a rigid inertia along a twist, Ṡ = s ×* I − I s×, keeps the 10-number layout
 * of spatial/inertia.ts with zero mass ("inertia rate": [0, h', Ī']):
 *   h' = m v + ω × h,   Ī' = ω×Ī − Ī ω× + 2 (v·h) 1 − (h vᵀ + v hᵀ)     for s = [ω; v].
 *
 * Products with a column S_ik skip its exact zeros and ±1 factors, as model/subspace.ts does: the
 * values are computed densely (adding an exact 0 or multiplying by ±1 is exact) and the flops are
 * the counts of the structural terms, fixed per column and precomputed by `JointColumns`.
 */
import type { Model } from '../model/model.ts';
import type { Flops } from '../spatial/flops.ts';
import { xApplyMotion, xTransposeApplyForce } from '../spatial/transform.ts';

interface Cost { mul: number; add: number }

/** Counts of Σ terms: `terms` coefficient list (0 = absent, ±1 = no multiplication). */
function sumCost(c: Cost, coefs: readonly number[], extraMul = 0): void {
  let n = 0;
  for (const x of coefs) {
    if (x === 0) continue;
    n++;
    if (x !== 1 && x !== -1) c.mul++;
  }
  c.mul += n > 0 ? extraMul : 0;
  if (n > 1) c.add += n - 1;
}

/**
 * The velocity columns of a model: body of each column, S_ik, and the flops of the S-products of
 * this file for that column. Built once per model (allocates).
 */
export class JointColumns {
  /** body (joint) of velocity column k */
  readonly body: Int32Array;
  /** S_k: 6 numbers per column, motion [ω; v] in body coordinates */
  readonly s: Float64Array;
  /** flops of m × S_k (crossMotionS), S_k ×* f (crossForceS), I S_k (inertiaMulS), S_k ×* I − I S_k× (inertiaRate) */
  readonly crossMotionMul: Int32Array;
  readonly crossMotionAdd: Int32Array;
  readonly crossForceMul: Int32Array;
  readonly crossForceAdd: Int32Array;
  readonly inertiaMul: Int32Array;
  readonly inertiaAdd: Int32Array;
  readonly rateMul: Int32Array;
  readonly rateAdd: Int32Array;

  constructor(readonly model: Model) {
    const nv = model.nv;
    this.body = new Int32Array(nv);
    this.s = new Float64Array(6 * nv);
    const mk = () => new Int32Array(nv);
    this.crossMotionMul = mk(); this.crossMotionAdd = mk();
    this.crossForceMul = mk(); this.crossForceAdd = mk();
    this.inertiaMul = mk(); this.inertiaAdd = mk();
    this.rateMul = mk(); this.rateAdd = mk();
    for (let i = 0; i < model.nb; i++) {
      for (let c = 0; c < model.nvi[i]; c++) {
        const k = model.iv[i] + c;
        this.body[k] = i;
        for (let r = 0; r < 6; r++) this.s[6 * k + r] = model.S[i][6 * c + r];
        const s = Array.from(this.s.subarray(6 * k, 6 * k + 6));
        const [w0, w1, w2, u0, u1, u2] = s;
        let c1: Cost = { mul: 0, add: 0 };
        // m × s = [m_ω × s_ω; m_ω × s_v + m_v × s_ω]
        sumCost(c1, [w2, -w1]); sumCost(c1, [w0, -w2]); sumCost(c1, [w1, -w0]);
        sumCost(c1, [u2, -u1, w2, -w1]); sumCost(c1, [u0, -u2, w0, -w2]); sumCost(c1, [u1, -u0, w1, -w0]);
        this.crossMotionMul[k] = c1.mul; this.crossMotionAdd[k] = c1.add;
        // s ×* f = [s_ω × n + s_v × f; s_ω × f]
        c1 = { mul: 0, add: 0 };
        sumCost(c1, [w1, -w2, u1, -u2]); sumCost(c1, [w2, -w0, u2, -u0]); sumCost(c1, [w0, -w1, u0, -u1]);
        sumCost(c1, [w1, -w2]); sumCost(c1, [w2, -w0]); sumCost(c1, [w0, -w1]);
        this.crossForceMul[k] = c1.mul; this.crossForceAdd[k] = c1.add;
        // I s: n = Ī ω + h × v, f = m v − h × ω (every entry of I dense)
        c1 = { mul: 0, add: 0 };
        for (let a = 0; a < 3; a++) {
          const b = (a + 1) % 3, d = (a + 2) % 3;
          sumCost(c1, [w0, w1, w2, s[3 + d], s[3 + b]]);
          sumCost(c1, [s[3 + a], s[d], s[b]]);
        }
        this.inertiaMul[k] = c1.mul; this.inertiaAdd[k] = c1.add;
        // rate: h'_a = m v_a + ω_b h_d − ω_d h_b;  T = ω×Ī (9 entries);  Ī'_ab = T_ab + T_ba + δ_ab 2(v·h) − h_a v_b − v_a h_b
        c1 = { mul: 0, add: 0 };
        for (let a = 0; a < 3; a++) {
          const b = (a + 1) % 3, d = (a + 2) % 3;
          sumCost(c1, [s[3 + a], s[b], s[d]]);
        }
        // T_ab = ω_{a+1} Ī_{a+2,b} − ω_{a+2} Ī_{a+1,b}
        for (let a = 0; a < 3; a++) for (let b = 0; b < 3; b++) sumCost(c1, [s[(a + 1) % 3], -s[(a + 2) % 3]]);
        const vh = [u0, u1, u2];
        sumCost(c1, vh, 1); // 2 (v·h)
        const hasVh = vh.some((x) => x !== 0);
        for (let a = 0; a < 3; a++) {
          for (let b = a; b < 3; b++) {
            const Ta = [s[(a + 1) % 3], s[(a + 2) % 3]].some((x) => x !== 0);
            const Tb = [s[(b + 1) % 3], s[(b + 2) % 3]].some((x) => x !== 0);
            const parts = [Ta ? 1 : 0, Tb ? 1 : 0, a === b && hasVh ? 1 : 0, s[3 + b], s[3 + a]];
            sumCost(c1, parts);
          }
        }
        this.rateMul[k] = c1.mul; this.rateAdd[k] = c1.add;
      }
    }
  }
}

/** out = m × S_k (motion cross product with a joint column). Safe when out aliases m. */
export function crossMotionS(out: Float64Array, m: Float64Array, cols: JointColumns, k: number, fl: Flops): Float64Array {
  const s = cols.s, o = 6 * k;
  const w0 = s[o], w1 = s[o + 1], w2 = s[o + 2], u0 = s[o + 3], u1 = s[o + 4], u2 = s[o + 5];
  const a0 = m[0], a1 = m[1], a2 = m[2], b0 = m[3], b1 = m[4], b2 = m[5];
  out[0] = a1 * w2 - a2 * w1;
  out[1] = a2 * w0 - a0 * w2;
  out[2] = a0 * w1 - a1 * w0;
  out[3] = a1 * u2 - a2 * u1 + (b1 * w2 - b2 * w1);
  out[4] = a2 * u0 - a0 * u2 + (b2 * w0 - b0 * w2);
  out[5] = a0 * u1 - a1 * u0 + (b0 * w1 - b1 * w0);
  fl.mul += cols.crossMotionMul[k]; fl.add += cols.crossMotionAdd[k];
  return out;
}

/** out = S_k ×* f. Safe when out aliases f. */
export function crossForceS(out: Float64Array, cols: JointColumns, k: number, f: Float64Array, fl: Flops): Float64Array {
  const s = cols.s, o = 6 * k;
  const w0 = s[o], w1 = s[o + 1], w2 = s[o + 2], u0 = s[o + 3], u1 = s[o + 4], u2 = s[o + 5];
  const n0 = f[0], n1 = f[1], n2 = f[2], f0 = f[3], f1 = f[4], f2 = f[5];
  out[0] = w1 * n2 - w2 * n1 + (u1 * f2 - u2 * f1);
  out[1] = w2 * n0 - w0 * n2 + (u2 * f0 - u0 * f2);
  out[2] = w0 * n1 - w1 * n0 + (u0 * f1 - u1 * f0);
  out[3] = w1 * f2 - w2 * f1;
  out[4] = w2 * f0 - w0 * f2;
  out[5] = w0 * f1 - w1 * f0;
  fl.mul += cols.crossForceMul[k]; fl.add += cols.crossForceAdd[k];
  return out;
}

/** out = I S_k for a rigid inertia I (10 numbers). */
export function inertiaMulS(out: Float64Array, I: Float64Array, cols: JointColumns, k: number, fl: Flops): Float64Array {
  const s = cols.s, o = 6 * k;
  const w0 = s[o], w1 = s[o + 1], w2 = s[o + 2], v0 = s[o + 3], v1 = s[o + 4], v2 = s[o + 5];
  const m = I[0], hx = I[1], hy = I[2], hz = I[3];
  out[0] = I[4] * w0 + I[5] * w1 + I[6] * w2 + (hy * v2 - hz * v1);
  out[1] = I[5] * w0 + I[7] * w1 + I[8] * w2 + (hz * v0 - hx * v2);
  out[2] = I[6] * w0 + I[8] * w1 + I[9] * w2 + (hx * v1 - hy * v0);
  out[3] = m * v0 - (hy * w2 - hz * w1);
  out[4] = m * v1 - (hz * w0 - hx * w2);
  out[5] = m * v2 - (hx * w1 - hy * w0);
  fl.mul += cols.inertiaMul[k]; fl.add += cols.inertiaAdd[k];
  return out;
}

/** out = S_k ×* I − I S_k× (inertia rate, 10 numbers with out[0] = 0). out must not alias I. */
export function inertiaRate(out: Float64Array, cols: JointColumns, k: number, I: Float64Array, fl: Flops): Float64Array {
  const s = cols.s, o = 6 * k;
  const w0 = s[o], w1 = s[o + 1], w2 = s[o + 2], u0 = s[o + 3], u1 = s[o + 4], u2 = s[o + 5];
  const m = I[0], h0 = I[1], h1 = I[2], h2 = I[3];
  const J00 = I[4], J01 = I[5], J02 = I[6], J11 = I[7], J12 = I[8], J22 = I[9];
  out[0] = 0;
  // h' = m v + ω × h
  out[1] = m * u0 + (w1 * h2 - w2 * h1);
  out[2] = m * u1 + (w2 * h0 - w0 * h2);
  out[3] = m * u2 + (w0 * h1 - w1 * h0);
  // T = ω× Ī: row 0 = ω1 Ī_2· − ω2 Ī_1·, row 1 = ω2 Ī_0· − ω0 Ī_2·, row 2 = ω0 Ī_1· − ω1 Ī_0·
  const T00 = w1 * J02 - w2 * J01, T01 = w1 * J12 - w2 * J11, T02 = w1 * J22 - w2 * J12;
  const T10 = w2 * J00 - w0 * J02, T11 = w2 * J01 - w0 * J12, T12 = w2 * J02 - w0 * J22;
  const T20 = w0 * J01 - w1 * J00, T21 = w0 * J11 - w1 * J01, T22 = w0 * J12 - w1 * J02;
  const d = 2 * (u0 * h0 + u1 * h1 + u2 * h2);
  // Ī' = T + Tᵀ + 2 (v·h) 1 − (h vᵀ + v hᵀ)
  out[4] = T00 + T00 + d - (h0 * u0 + u0 * h0);
  out[5] = T01 + T10 - (h0 * u1 + u0 * h1);
  out[6] = T02 + T20 - (h0 * u2 + u0 * h2);
  out[7] = T11 + T11 + d - (h1 * u1 + u1 * h1);
  out[8] = T12 + T21 - (h1 * u2 + u1 * h2);
  out[9] = T22 + T22 + d - (h2 * u2 + u2 * h2);
  fl.mul += cols.rateMul[k]; fl.add += cols.rateAdd[k];
  return out;
}

/** out = (∂ⁱX_λ/∂s_k) m = (X m) × S_k (motion). t6 is scratch. 24 + cross mul, 18 + cross add. */
export function jcalcderivMotion(out: Float64Array, X: Float64Array, m: Float64Array, cols: JointColumns, k: number, t6: Float64Array, fl: Flops): Float64Array {
  xApplyMotion(t6, X, m, fl);
  return crossMotionS(out, t6, cols, k, fl);
}

/** out = (∂ⁱX_λ/∂s_k)ᵀ f = Xᵀ (S_k ×* f) (a child's wrench carried to the parent). t6 is scratch. */
export function jcalcderivForceT(out: Float64Array, X: Float64Array, f: Float64Array, cols: JointColumns, k: number, t6: Float64Array, fl: Flops): Float64Array {
  crossForceS(t6, cols, k, f, fl);
  return xTransposeApplyForce(out, X, t6, fl);
}

/** out = R m for an inertia rate R (zero mass): n = Ī ω + h × v, f = −h × ω. 21 mul, 15 add. */
export function rateMulMotion(out: Float64Array, R: Float64Array, m: Float64Array, fl: Flops): Float64Array {
  const hx = R[1], hy = R[2], hz = R[3];
  const w0 = m[0], w1 = m[1], w2 = m[2], v0 = m[3], v1 = m[4], v2 = m[5];
  out[0] = R[4] * w0 + R[5] * w1 + R[6] * w2 + (hy * v2 - hz * v1);
  out[1] = R[5] * w0 + R[7] * w1 + R[8] * w2 + (hz * v0 - hx * v2);
  out[2] = R[6] * w0 + R[8] * w1 + R[9] * w2 + (hx * v1 - hy * v0);
  out[3] = -(hy * w2 - hz * w1);
  out[4] = -(hz * w0 - hx * w2);
  out[5] = -(hx * w1 - hy * w0);
  fl.mul += 21; fl.add += 15;
  return out;
}

/** out += R (inertia rates, the zero mass skipped). 9 add. */
export function rateAddInPlace(out: Float64Array, R: Float64Array, fl: Flops): Float64Array {
  for (let k = 1; k < 10; k++) out[k] += R[k];
  fl.add += 9;
  return out;
}
