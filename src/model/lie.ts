/**
 * The configuration manifold: q ⊕ δ (`integrate`) and q₁ ⊖ q₀ (`difference`), Pinocchio's
 * convention (`pinocchio::integrate`, `pinocchio::difference`; Saccon et al. (2017) §5 for the geometric
 * finite differences that perturb the base with the SE(3) exponential). The tangent δ lives in the
 * velocity space (length nv, velocity order) and every component is a body-frame (right) increment:
 *
 *   revolute, prismatic, helical:  q_i ⊕ δ_i = q_i + δ_i
 *   spherical (quaternion of R):   R ⊕ δ = R Exp(δ),            δ = ω in the body frame
 *   floating (p, quaternion of R): M ⊕ δ = M exp6(δ),  M = (R, p), δ = [δp; δθ] in the body frame
 *     exp6([v; ω]) = (Exp(ω), V(ω) v),  V(ω) = 1 + (1 − cos θ)/θ² ω× + (θ − sin θ)/θ³ ω×²
 *   planar (x, y, θ; SE(2)):        M ⊕ δ = M exp2(δ),  δ = [vx, vy, ω] in the body frame
 *     exp2([v; ω]) = (ω, V₂(ω) v),  V₂(ω) = [s −k; k s],  s = sin ω / ω,  k = (1 − cos ω)/ω,
 *     so θ' = θ + ω and (x', y') = (x, y) + R₂(θ) V₂(ω) v (Pinocchio's SpecialEuclidean<2>)
 *   difference(q₀, q₁) = δ with q₀ ⊕ δ = q₁:  log6(M₀⁻¹ M₁), Log(R₀ᵀ R₁), q₁ − q₀; for a planar
 *     joint ω = θ₁ − θ₀ (unwrapped, as a continuous joint's angle: the exact inverse of ⊕ for
 *     |ω| < 2π; Pinocchio wraps ω into (−π, π]) and v = V₂(ω)⁻¹ R₂(θ₀)ᵀ (p₁ − p₀).
 *
 * So a joint's perturbation moves its body by the twist S_i δ_i in body coordinates, and
 * ∂ⁱX_λ/∂δ_ik = −(S_ik ×) ⁱX_λ for every joint type (algorithms/jcalcderiv.ts).
 * Quaternions are stored (x, y, z, w); results are normalized, logarithms take the shortest arc.
 */
import { JT_FLOATING, JT_PLANAR, JT_SPHERICAL } from './joint.ts';
import type { Model } from './model.ts';

/** Module scratch (quaternions, 3-vectors): the functions below are not re-entrant, and allocate nothing. */
const qa = new Float64Array(4);
const qb = new Float64Array(4);
const w3 = new Float64Array(3);

function checkLength(name: string, x: ArrayLike<number>, n: number, what: string): void {
  if (!x || typeof x.length !== 'number') throw new TypeError(`${name} must be an array of numbers`);
  if (x.length !== n) throw new RangeError(`${name} has length ${x.length}, expected ${what} = ${n}`);
}

/** out = quaternion Exp(ω) = (sin(θ/2) ω/θ, cos(θ/2)), θ = |ω|; Taylor series below θ = 1e-4. */
export function quatExp(out: Float64Array, wx: number, wy: number, wz: number): Float64Array {
  const t2 = wx * wx + wy * wy + wz * wz;
  const t = Math.sqrt(t2);
  // s = sin(θ/2)/θ
  const s = t < 1e-4 ? 0.5 - t2 / 48 : Math.sin(0.5 * t) / t;
  out[0] = s * wx; out[1] = s * wy; out[2] = s * wz;
  out[3] = t < 1e-4 ? 1 - t2 / 8 : Math.cos(0.5 * t);
  return out;
}

/** ω = Log(quaternion) (rotation vector of the shortest arc, |ω| ≤ π), written at out[o..o+3). */
export function quatLog(out: Float64Array, o: number, x: number, y: number, z: number, w: number): Float64Array {
  if (w < 0) { x = -x; y = -y; z = -z; w = -w; }
  const n2 = x * x + y * y + z * z;
  const n = Math.sqrt(n2);
  // ω = (2 atan2(n, w) / n) (x, y, z); for n → 0: 2/w (1 − n²/(3 w²))
  const k = n < 1e-8 ? (2 / w) * (1 - n2 / (3 * w * w)) : (2 * Math.atan2(n, w)) / n;
  out[o] = k * x; out[o + 1] = k * y; out[o + 2] = k * z;
  return out;
}

/** out = a ⊗ b (Hamilton product, (x, y, z, w) storage). Safe when out aliases a or b. */
export function quatMul(out: Float64Array, ax: number, ay: number, az: number, aw: number, b: ArrayLike<number>, bo: number): Float64Array {
  const bx = b[bo], by = b[bo + 1], bz = b[bo + 2], bw = b[bo + 3];
  out[0] = aw * bx + ax * bw + ay * bz - az * by;
  out[1] = aw * by - ax * bz + ay * bw + az * bx;
  out[2] = aw * bz + ax * by - ay * bx + az * bw;
  out[3] = aw * bw - ax * bx - ay * by - az * bz;
  return out;
}

/** out = R(q) v for a unit quaternion q = (x, y, z, w) at q[o..]. Safe when out aliases v. */
function quatRotate(out: Float64Array, q: ArrayLike<number>, o: number, v0: number, v1: number, v2: number): void {
  const x = q[o], y = q[o + 1], z = q[o + 2], w = q[o + 3];
  // v' = v + 2w (u × v) + 2 u × (u × v), u = (x, y, z)
  const c0 = y * v2 - z * v1, c1 = z * v0 - x * v2, c2 = x * v1 - y * v0;
  out[0] = v0 + 2 * (w * c0 + y * c2 - z * c1);
  out[1] = v1 + 2 * (w * c1 + z * c0 - x * c2);
  out[2] = v2 + 2 * (w * c2 + x * c1 - y * c0);
}

/**
 * Coefficients of V(ω) = 1 + A ω× + B ω×² (SE(3) left Jacobian): A = (1 − cos θ)/θ², B = (θ − sin θ)/θ³,
 * written to w3[0], w3[1]; series below θ = 1e-2.
 */
function vCoefficients(t2: number): void {
  const t = Math.sqrt(t2);
  if (t < 1e-2) {
    w3[0] = 0.5 - t2 / 24 + (t2 * t2) / 720;
    w3[1] = 1 / 6 - t2 / 120 + (t2 * t2) / 5040 - (t2 * t2 * t2) / 362880;
  } else {
    const sh = Math.sin(0.5 * t);
    w3[0] = (2 * sh * sh) / t2;
    w3[1] = (t - Math.sin(t)) / (t2 * t);
  }
}

/** s = sin ω / ω and k = (1 − cos ω)/ω of V₂(ω) into w3[0], w3[1] (series below |ω| = 1e-3). */
function v2Coefficients(w: number): void {
  if (Math.abs(w) < 1e-3) {
    const w2 = w * w;
    w3[0] = 1 - w2 / 6 + (w2 * w2) / 120;
    w3[1] = w * (0.5 - w2 / 24 + (w2 * w2) / 720);
  } else {
    w3[0] = Math.sin(w) / w;
    const sh = Math.sin(0.5 * w);
    w3[1] = (2 * sh * sh) / w;
  }
}

/** out = (1 + A ω× + B ω×²) u */
function applyV(out: Float64Array, wx: number, wy: number, wz: number, A: number, B: number, u0: number, u1: number, u2: number): void {
  const c0 = wy * u2 - wz * u1, c1 = wz * u0 - wx * u2, c2 = wx * u1 - wy * u0;
  const d0 = wy * c2 - wz * c1, d1 = wz * c0 - wx * c2, d2 = wx * c1 - wy * c0;
  out[0] = u0 + A * c0 + B * d0;
  out[1] = u1 + A * c1 + B * d1;
  out[2] = u2 + A * c2 + B * d2;
}

/**
 * out = q ⊕ dq (length nq): joints additively, spherical joints and the floating base by the body-
 * frame exponential (file header). out may alias q. Allocation free when out is given.
 */
export function integrate(model: Model, q: ArrayLike<number>, dq: ArrayLike<number>, out: Float64Array = new Float64Array(model.nq)): Float64Array {
  checkLength('q', q, model.nq, 'model.nq');
  checkLength('dq', dq, model.nv, 'model.nv');
  checkLength('out', out, model.nq, 'model.nq');
  for (let i = 0; i < model.nb; i++) {
    const iq = model.iq[i], iv = model.iv[i], t = model.jtype[i];
    if (t === JT_FLOATING) {
      const v0 = dq[iv], v1 = dq[iv + 1], v2 = dq[iv + 2];
      const wx = dq[iv + 3], wy = dq[iv + 4], wz = dq[iv + 5];
      // p' = p + R V(ω) v
      vCoefficients(wx * wx + wy * wy + wz * wz);
      applyV(w3, wx, wy, wz, w3[0], w3[1], v0, v1, v2);
      quatRotate(w3, q, iq + 3, w3[0], w3[1], w3[2]);
      const p0 = q[iq] + w3[0], p1 = q[iq + 1] + w3[1], p2 = q[iq + 2] + w3[2];
      // R' = R Exp(ω)
      quatExp(qa, wx, wy, wz);
      quatMul(qb, q[iq + 3], q[iq + 4], q[iq + 5], q[iq + 6], qa, 0);
      const n = Math.hypot(qb[0], qb[1], qb[2], qb[3]);
      out[iq] = p0; out[iq + 1] = p1; out[iq + 2] = p2;
      out[iq + 3] = qb[0] / n; out[iq + 4] = qb[1] / n; out[iq + 5] = qb[2] / n; out[iq + 6] = qb[3] / n;
    } else if (t === JT_PLANAR) {
      const vx = dq[iv], vy = dq[iv + 1], w = dq[iv + 2], th = q[iq + 2];
      v2Coefficients(w);
      // u = V₂(ω) v, then (x, y) += R₂(θ) u
      const ux = w3[0] * vx - w3[1] * vy, uy = w3[1] * vx + w3[0] * vy;
      const c = Math.cos(th), s = Math.sin(th);
      out[iq] = q[iq] + c * ux - s * uy;
      out[iq + 1] = q[iq + 1] + s * ux + c * uy;
      out[iq + 2] = th + w;
    } else if (t === JT_SPHERICAL) {
      quatExp(qa, dq[iv], dq[iv + 1], dq[iv + 2]);
      quatMul(qb, q[iq], q[iq + 1], q[iq + 2], q[iq + 3], qa, 0);
      const n = Math.hypot(qb[0], qb[1], qb[2], qb[3]);
      out[iq] = qb[0] / n; out[iq + 1] = qb[1] / n; out[iq + 2] = qb[2] / n; out[iq + 3] = qb[3] / n;
    } else {
      for (let k = 0; k < model.nqi[i]; k++) out[iq + k] = q[iq + k] + dq[iv + k];
    }
  }
  return out;
}

/**
 * out = q1 ⊖ q0 (length nv): the tangent δ with q0 ⊕ δ = q1 (Pinocchio's `difference(q0, q1)`).
 * Quaternions need not be normalized exactly (they are normalized here). Allocation free when out is given.
 */
export function difference(model: Model, q0: ArrayLike<number>, q1: ArrayLike<number>, out: Float64Array = new Float64Array(model.nv)): Float64Array {
  checkLength('q0', q0, model.nq, 'model.nq');
  checkLength('q1', q1, model.nq, 'model.nq');
  checkLength('out', out, model.nv, 'model.nv');
  for (let i = 0; i < model.nb; i++) {
    const iq = model.iq[i], iv = model.iv[i], t = model.jtype[i];
    if (t === JT_FLOATING || t === JT_SPHERICAL) {
      const o = t === JT_FLOATING ? iq + 3 : iq;
      const n0 = Math.hypot(q0[o], q0[o + 1], q0[o + 2], q0[o + 3]);
      const n1 = Math.hypot(q1[o], q1[o + 1], q1[o + 2], q1[o + 3]);
      qa[0] = q1[o] / n1; qa[1] = q1[o + 1] / n1; qa[2] = q1[o + 2] / n1; qa[3] = q1[o + 3] / n1;
      // R₀ᵀ R₁ = conj(q₀) ⊗ q₁
      quatMul(qb, -q0[o] / n0, -q0[o + 1] / n0, -q0[o + 2] / n0, q0[o + 3] / n0, qa, 0);
      const ow = t === JT_FLOATING ? iv + 3 : iv;
      quatLog(out, ow, qb[0], qb[1], qb[2], qb[3]);
      if (t === JT_FLOATING) {
        // v = V(ω)⁻¹ R₀ᵀ (p₁ − p₀),  V⁻¹ = 1 − ½ ω× + C ω×²,  C = (1 − (θ/2) cot(θ/2)) / θ²
        const wx = out[ow], wy = out[ow + 1], wz = out[ow + 2];
        // R₀ᵀ u = R(conj q₀) u
        qa[0] = -q0[o] / n0; qa[1] = -q0[o + 1] / n0; qa[2] = -q0[o + 2] / n0; qa[3] = q0[o + 3] / n0;
        quatRotate(w3, qa, 0, q1[iq] - q0[iq], q1[iq + 1] - q0[iq + 1], q1[iq + 2] - q0[iq + 2]);
        const t2 = wx * wx + wy * wy + wz * wz;
        const th = Math.sqrt(t2);
        const C = th < 1e-2
          ? 1 / 12 + t2 / 720 + (t2 * t2) / 30240
          : (1 - (0.5 * th) / Math.tan(0.5 * th)) / t2;
        applyV(w3, wx, wy, wz, -0.5, C, w3[0], w3[1], w3[2]);
        out[iv] = w3[0]; out[iv + 1] = w3[1]; out[iv + 2] = w3[2];
      }
    } else if (t === JT_PLANAR) {
      const w = q1[iq + 2] - q0[iq + 2], th = q0[iq + 2];
      const c = Math.cos(th), s = Math.sin(th);
      const dx = q1[iq] - q0[iq], dy = q1[iq + 1] - q0[iq + 1];
      // u = R₂(θ₀)ᵀ (p₁ − p₀), v = V₂(ω)⁻¹ u,  V₂⁻¹ = [s k; −k s] / (s² + k²)
      const ux = c * dx + s * dy, uy = -s * dx + c * dy;
      v2Coefficients(w);
      const a = w3[0], b = w3[1], det = a * a + b * b;
      out[iv] = (a * ux + b * uy) / det;
      out[iv + 1] = (-b * ux + a * uy) / det;
      out[iv + 2] = w;
    } else {
      for (let k = 0; k < model.nqi[i]; k++) out[iv + k] = q1[iq + k] - q0[iq + k];
    }
  }
  return out;
}
