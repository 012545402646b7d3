/**
 * Straight-line f64 WebAssembly for the recursive algorithms generated per model (rnea-code.ts,
 * aba-code.ts): an emitter of operations on constants and locals that folds what it can (products by
 * 0 and ±1, sums with 0, operations on two constants), and the spatial operations written on its
 * values — the same formulas as the JavaScript kernels (spatial/), term by term.
 */
import { jcalc } from '../model/jcalc.ts';
import { cosSinInto, type ModuleTrig } from './trig-code.ts';
import { JT_FLOATING, JT_REVOLUTE, JT_SPHERICAL } from '../model/joint.ts';
import type { Model } from '../model/model.ts';
import { Bytes } from '../sparse/compiled.ts';
import { Body } from '../sparse/loops.ts';
import type { Flops } from '../spatial/flops.ts';

/** a value of the generated code: a constant, or an f64 local */
export type Val = number | { l: number };

const F64_ADD = 0xa0, F64_SUB = 0xa1, F64_MUL = 0xa2, F64_DIV = 0xa3, F64_NEG = 0x9a, F64_SQRT = 0x9f;

/** straight-line f64 code with constants folded: each operation on locals writes a new local (reused body after body) */
export class Emitter {
  readonly e = new Body();
  private n = 0;
  maxLocals = 0;
  /**
   * the i32 local whose value `load` and `store` add to their slot's byte address (code over a
   * table of records, aba-loops-code.ts); −1: slots are absolute
   */
  base = -1;
  /** @param firstLocal index of the first f64 local (the function's i32 locals come before) */
  constructor(readonly firstLocal = 0) {}
  /** the temporaries of the next body start again from the first local */
  reset(): void { this.n = 0; }
  /** the locals in use (for `release`) */
  mark(): number { return this.n; }
  /** the locals taken after `mark` are free again (the values made since then must not be used after) */
  release(mark: number): void { this.n = mark; }
  private fresh(): { l: number } {
    const l = this.firstLocal + this.n++;
    if (this.n > this.maxLocals) this.maxLocals = this.n;
    return { l };
  }
  /** local.get / local.set with the index in LEB128 (Body's get and set take indices below 128) */
  private get(l: number): void { this.e.c.byte(0x20); this.e.c.u32(l); }
  private set(l: number): void { this.e.c.byte(0x21); this.e.c.u32(l); }
  private push(v: Val): void {
    if (typeof v === 'number') this.e.f64(v); else this.get(v.l);
  }
  private op(code: number, a: Val, b: Val): Val {
    this.push(a); this.push(b); this.e.op(code);
    const t = this.fresh(); this.set(t.l); return t;
  }
  private address(): void { if (this.base < 0) this.e.i32(0); else this.get(this.base); }
  load(slot: number): Val { this.address(); this.e.ldf(8 * slot); const t = this.fresh(); this.set(t.l); return t; }
  store(slot: number, v: Val): void { this.address(); this.push(v); this.e.stf(8 * slot); }
  neg(a: Val): Val {
    if (typeof a === 'number') return -a;
    this.push(a); this.e.op(F64_NEG);
    const t = this.fresh(); this.set(t.l); return t;
  }
  add(a: Val, b: Val): Val {
    if (typeof a === 'number' && typeof b === 'number') return a + b;
    if (a === 0) return b;
    if (b === 0) return a;
    return this.op(F64_ADD, a, b);
  }
  sub(a: Val, b: Val): Val {
    if (typeof a === 'number' && typeof b === 'number') return a - b;
    if (b === 0) return a;
    if (a === 0) return this.neg(b);
    return this.op(F64_SUB, a, b);
  }
  mul(a: Val, b: Val): Val {
    if (typeof a === 'number' && typeof b === 'number') return a * b;
    if (a === 0 || b === 0) return 0;
    if (a === 1) return b;
    if (b === 1) return a;
    if (a === -1) return this.neg(b);
    if (b === -1) return this.neg(a);
    return this.op(F64_MUL, a, b);
  }
  div(a: Val, b: Val): Val {
    if (typeof a === 'number' && typeof b === 'number') return a / b;
    if (b === 1) return a;
    return this.op(F64_DIV, a, b);
  }
  sqrt(a: Val): Val {
    if (typeof a === 'number') return Math.sqrt(a);
    this.push(a); this.e.op(F64_SQRT);
    const t = this.fresh(); this.set(t.l); return t;
  }
  /** Σ a_k b_k, left to right */
  dot(a: Val[], b: Val[]): Val {
    let acc: Val = 0;
    for (let k = 0; k < a.length; k++) acc = this.add(acc, this.mul(a[k], b[k]));
    return acc;
  }
}

export type V6 = Val[];

/** ⁱX_λ m = (E w, E (v − r × w)) */
export function applyMotion(g: Emitter, E: Val[], r: Val[], m: V6): V6 {
  const [wx, wy, wz, vx, vy, vz] = m;
  const tx = g.sub(vx, g.sub(g.mul(r[1], wz), g.mul(r[2], wy)));
  const ty = g.sub(vy, g.sub(g.mul(r[2], wx), g.mul(r[0], wz)));
  const tz = g.sub(vz, g.sub(g.mul(r[0], wy), g.mul(r[1], wx)));
  const row = (k: number, x: Val, y: Val, z: Val) => g.add(g.add(g.mul(E[3 * k], x), g.mul(E[3 * k + 1], y)), g.mul(E[3 * k + 2], z));
  return [row(0, wx, wy, wz), row(1, wx, wy, wz), row(2, wx, wy, wz), row(0, tx, ty, tz), row(1, tx, ty, tz), row(2, tx, ty, tz)];
}

/** X⁻¹ m = (Eᵀ w, Eᵀ v + r × Eᵀ w), as transform.ts's xInvApplyMotion */
export function invApplyMotion(g: Emitter, E: Val[], r: Val[], m: V6): V6 {
  const col = (k: number, x: Val, y: Val, z: Val) => g.add(g.add(g.mul(E[k], x), g.mul(E[3 + k], y)), g.mul(E[6 + k], z));
  const [a0, a1, a2, b0, b1, b2] = m;
  const wx = col(0, a0, a1, a2), wy = col(1, a0, a1, a2), wz = col(2, a0, a1, a2);
  return [
    wx, wy, wz,
    g.add(col(0, b0, b1, b2), g.sub(g.mul(r[1], wz), g.mul(r[2], wy))),
    g.add(col(1, b0, b1, b2), g.sub(g.mul(r[2], wx), g.mul(r[0], wz))),
    g.add(col(2, b0, b1, b2), g.sub(g.mul(r[0], wy), g.mul(r[1], wx))),
  ];
}

/** ᶜX_a = ᶜX_b ᵇX_a for transforms (E, r) (transform.ts's xCompose): E = E_cb E_ba, r = r_ba + E_baᵀ r_cb */
export function compose(g: Emitter, E: Val[], r: Val[], Ep: Val[], rp: Val[]): { E: Val[]; r: Val[] } {
  const E0 = Array.from({ length: 9 }, (_, e) => {
    const row = Math.floor(e / 3), col = e % 3;
    return g.add(g.add(g.mul(E[3 * row], Ep[col]), g.mul(E[3 * row + 1], Ep[3 + col])), g.mul(E[3 * row + 2], Ep[6 + col]));
  });
  const r0 = [0, 1, 2].map((c) => g.add(g.add(g.add(rp[c], g.mul(Ep[c], r[0])), g.mul(Ep[3 + c], r[1])), g.mul(Ep[6 + c], r[2])));
  return { E: E0, r: r0 };
}

/** ⁱX_λᵀ f = (Eᵀ n + r × Eᵀ f, Eᵀ f) */
export function transposeApplyForce(g: Emitter, E: Val[], r: Val[], f: V6): V6 {
  const col = (k: number, x: Val, y: Val, z: Val) => g.add(g.add(g.mul(E[k], x), g.mul(E[3 + k], y)), g.mul(E[6 + k], z));
  const [a0, a1, a2, b0, b1, b2] = f;
  const fx = col(0, b0, b1, b2), fy = col(1, b0, b1, b2), fz = col(2, b0, b1, b2);
  return [
    g.add(col(0, a0, a1, a2), g.sub(g.mul(r[1], fz), g.mul(r[2], fy))),
    g.add(col(1, a0, a1, a2), g.sub(g.mul(r[2], fx), g.mul(r[0], fz))),
    g.add(col(2, a0, a1, a2), g.sub(g.mul(r[0], fy), g.mul(r[1], fx))),
    fx, fy, fz,
  ];
}

/** I m for a rigid inertia (m, h, Ī) as inertia.ts lays it out, constants or values: (Ī w + h × v, m v − h × w) */
export function inertiaMul(g: Emitter, I: ArrayLike<Val>, m6: V6): V6 {
  const [m, hx, hy, hz, Ixx, Ixy, Ixz, Iyy, Iyz, Izz] = Array.from(I);
  const [w0, w1, w2, v0, v1, v2] = m6;
  return [
    g.add(g.add(g.add(g.mul(Ixx, w0), g.mul(Ixy, w1)), g.mul(Ixz, w2)), g.sub(g.mul(hy, v2), g.mul(hz, v1))),
    g.add(g.add(g.add(g.mul(Ixy, w0), g.mul(Iyy, w1)), g.mul(Iyz, w2)), g.sub(g.mul(hz, v0), g.mul(hx, v2))),
    g.add(g.add(g.add(g.mul(Ixz, w0), g.mul(Iyz, w1)), g.mul(Izz, w2)), g.sub(g.mul(hx, v1), g.mul(hy, v0))),
    g.sub(g.mul(m, v0), g.sub(g.mul(hy, w2), g.mul(hz, w1))),
    g.sub(g.mul(m, v1), g.sub(g.mul(hz, w0), g.mul(hx, w2))),
    g.sub(g.mul(m, v2), g.sub(g.mul(hx, w1), g.mul(hy, w0))),
  ];
}

/** v × m (motion) */
export function crossMotion(g: Emitter, v: V6, m: V6): V6 {
  const [w0, w1, w2, u0, u1, u2] = v, [a0, a1, a2, b0, b1, b2] = m;
  return [
    g.sub(g.mul(w1, a2), g.mul(w2, a1)), g.sub(g.mul(w2, a0), g.mul(w0, a2)), g.sub(g.mul(w0, a1), g.mul(w1, a0)),
    g.add(g.sub(g.mul(w1, b2), g.mul(w2, b1)), g.sub(g.mul(u1, a2), g.mul(u2, a1))),
    g.add(g.sub(g.mul(w2, b0), g.mul(w0, b2)), g.sub(g.mul(u2, a0), g.mul(u0, a2))),
    g.add(g.sub(g.mul(w0, b1), g.mul(w1, b0)), g.sub(g.mul(u0, a1), g.mul(u1, a0))),
  ];
}

/** v ×* h (force) */
export function crossForce(g: Emitter, v: V6, h: V6): V6 {
  const [w0, w1, w2, u0, u1, u2] = v, [n0, n1, n2, f0, f1, f2] = h;
  return [
    g.add(g.sub(g.mul(w1, n2), g.mul(w2, n1)), g.sub(g.mul(u1, f2), g.mul(u2, f1))),
    g.add(g.sub(g.mul(w2, n0), g.mul(w0, n2)), g.sub(g.mul(u2, f0), g.mul(u0, f2))),
    g.add(g.sub(g.mul(w0, n1), g.mul(w1, n0)), g.sub(g.mul(u0, f1), g.mul(u1, f0))),
    g.sub(g.mul(w1, f2), g.mul(w2, f1)), g.sub(g.mul(w2, f0), g.mul(w0, f2)), g.sub(g.mul(w0, f1), g.mul(w1, f0)),
  ];
}

export const add6 = (g: Emitter, a: V6, b: V6): V6 => a.map((x, k) => g.add(x, b[k]));


/** the emitted code as one function body: its f64 locals declared, closed */
export function functionBody(g: Emitter): Uint8Array {
  g.e.c.byte(0x0b);
  const fn = new Bytes();
  fn.u32(1); fn.u32(Math.max(1, g.maxLocals)); fn.byte(0x7c);
  fn.bytes(g.e.c.view());
  return fn.view().slice();
}

/**
 * The code in several functions of at most CHUNK_BYTES each, called in order by a last one: V8
 * optimizes a large WebAssembly function poorly (measured: the ABA of a 384-link chain as one
 * function of 1.3 MB ran 13× slower than in pieces).
 */
export const CHUNK_BYTES = 1 << 16;

export class ChunkedCode {
  g = new Emitter();
  private readonly bodies: Uint8Array[] = [];
  /** a new function once the current one holds CHUNK_BYTES (between bodies of the model) */
  split(): void {
    if (this.g.e.c.len < CHUNK_BYTES) return;
    this.bodies.push(functionBody(this.g));
    this.g = new Emitter();
  }
  /**
   * every function, the last one calling the others in order (export `f${first + bodies.length - 1}`);
   * `first`: the module's index of the first of them
   */
  finish(first = 0): Uint8Array[] {
    if (this.g.e.c.len > 0) this.bodies.push(functionBody(this.g));
    const driver = new Body();
    for (let k = 0; k < this.bodies.length; k++) { driver.c.byte(0x10); driver.c.u32(first + k); }
    driver.c.byte(0x0b);
    const fn = new Bytes();
    fn.u32(0);
    fn.bytes(driver.c.view());
    return [...this.bodies, fn.view().slice()];
  }
}

/** the slot of entry (r, c) of a symmetric 6×6 matrix stored as its upper triangle (21 slots) */
export const SYM = (() => {
  const m = new Int32Array(36);
  let n = 0;
  for (let r = 0; r < 6; r++) for (let c = r; c < 6; c++) { m[6 * r + c] = n; m[6 * c + r] = n; n++; }
  return m;
})();

/** a rigid inertia (inertia.ts layout) as its 6×6 matrix, as aba.ts writes it */
export function inertiaMatrix(I: Float64Array): number[] {
  const [m, hx, hy, hz, Ixx, Ixy, Ixz, Iyy, Iyz, Izz] = I;
  return [
    Ixx, Ixy, Ixz, 0, -hz, hy,
    Ixy, Iyy, Iyz, hz, 0, -hx,
    Ixz, Iyz, Izz, -hy, hx, 0,
    0, hz, -hy, m, 0, 0,
    -hz, 0, hx, 0, m, 0,
    hy, -hx, 0, 0, 0, m,
  ];
}

/** X as a 6×6 matrix (row-major): [[E, 0], [−E r×, E]] */
export function motionMatrix(g: Emitter, E: Val[], r: Val[]): Val[] {
  const X: Val[] = new Array(36).fill(0);
  const rx: Val[] = [0, g.neg(r[2]), r[1], r[2], 0, g.neg(r[0]), g.neg(r[1]), r[0], 0];
  for (let a = 0; a < 3; a++) {
    for (let b = 0; b < 3; b++) {
      X[6 * a + b] = E[3 * a + b];
      X[6 * (3 + a) + 3 + b] = E[3 * a + b];
      X[6 * (3 + a) + b] = g.neg(g.dot([E[3 * a], E[3 * a + 1], E[3 * a + 2]], [rx[b], rx[3 + b], rx[6 + b]]));
    }
  }
  return X;
}

/** D⁻¹ for a symmetric positive definite n×n D (row-major), as spdInvertInPlace computes it */
export function spdInverse(g: Emitter, A: Val[], n: number): Val[] {
  if (n === 1) return [g.div(1, A[0])];
  const w: Val[] = new Array(n * n).fill(0);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let s = A[n * i + j];
      for (let k = 0; k < j; k++) s = g.sub(s, g.mul(w[n * i + k], w[n * j + k]));
      w[n * i + j] = i === j ? g.sqrt(s) : g.div(s, w[n * j + j]);
    }
  }
  for (let i = 0; i < n; i++) {
    w[n * i + i] = g.div(1, w[n * i + i]);
    for (let j = 0; j < i; j++) {
      let s: Val = 0;
      for (let k = j; k < i; k++) s = g.add(s, g.mul(w[n * i + k], w[n * k + j]));
      w[n * i + j] = g.mul(g.neg(s), w[n * i + i]);
    }
  }
  const out: Val[] = new Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let s: Val = 0;
      for (let k = i; k < n; k++) s = g.add(s, g.mul(w[n * k + i], w[n * k + j]));
      out[n * i + j] = s; out[n * j + i] = s;
    }
  }
  return out;
}

/**
 * how body i's transform is made in the generated code: from cos q and sin q (a revolute joint
 * about frame axis k), from the joint's unit quaternion (and position: a free-flyer, `trans`; a
 * spherical joint without), constant (no DoF), or by jcalc in JavaScript
 */
export type Kind = { t: 'axis'; k: number; sign: number } | { t: 'quat'; trans: boolean } | { t: 'fixed' } | { t: 'jcalc' };

/** the kind of each body's transform */
export function kindsOf(model: Model): Kind[] {
  const kinds: Kind[] = [];
  for (let i = 0; i < model.nb; i++) {
    if (model.nvi[i] === 0) kinds.push({ t: 'fixed' });
    else if (model.jtype[i] === JT_REVOLUTE && model.axisKind[i] < 3) kinds.push({ t: 'axis', k: model.axisKind[i], sign: model.axis[3 * i + model.axisKind[i]] });
    else if (model.jtype[i] === JT_FLOATING || model.jtype[i] === JT_SPHERICAL) kinds.push({ t: 'quat', trans: model.jtype[i] === JT_FLOATING });
    else kinds.push({ t: 'jcalc' });
  }
  return kinds;
}

/**
 * Body i's transform (E, r) as values of the generated code: constants (no DoF), loads of what
 * jcalc wrote at XG, for a revolute joint about frame axis k the rows R_k(q)ᵀ mixes, computed from
 * cos q and sin q at CS (`first`: computed and stored at XS) or loaded from XS, the other entries
 * constants of the tree transform (rotateAboutFrameAxis's formulas); for a quaternion joint
 * computed from the joint's q at XG (`first`: stored at XS, which may be XG itself) or loaded from
 * XS (rotationFromQuaternion's and composeRotation's formulas, the tree transform's entries folded).
 */
export function transformOf(g: Emitter, model: Model, kinds: Kind[], slots: { CS: number; XG: number; XS: number }, i: number, first: boolean): { E: Val[]; r: Val[] } {
  const kd = kinds[i], Xt = model.Xtree[i];
  if (kd.t === 'fixed') return { E: Array.from(Xt.subarray(0, 9)), r: Array.from(Xt.subarray(9, 12)) };
  if (kd.t === 'jcalc' || (kd.t === 'quat' && !first)) {
    const X = Array.from({ length: 12 }, (_, k) => g.load((kd.t === 'jcalc' ? slots.XG : slots.XS) + 12 * i + k));
    return { E: X.slice(0, 9), r: X.slice(9, 12) };
  }
  if (kd.t === 'quat') {
    // the joint's q as quaternionInputs wrote it: [p, (x, y, z, w)] or [(x, y, z, w)]
    const o = slots.XG + 12 * i;
    const p = kd.trans ? [g.load(o), g.load(o + 1), g.load(o + 2)] : null;
    const qo = kd.trans ? o + 3 : o;
    const x = g.load(qo), y = g.load(qo + 1), z = g.load(qo + 2), w = g.load(qo + 3);
    const two = (v: Val) => g.mul(2, v);
    const R: Val[] = [
      g.sub(1, two(g.add(g.mul(y, y), g.mul(z, z)))), two(g.sub(g.mul(x, y), g.mul(z, w))), two(g.add(g.mul(x, z), g.mul(y, w))),
      two(g.add(g.mul(x, y), g.mul(z, w))), g.sub(1, two(g.add(g.mul(x, x), g.mul(z, z)))), two(g.sub(g.mul(y, z), g.mul(x, w))),
      two(g.sub(g.mul(x, z), g.mul(y, w))), two(g.add(g.mul(y, z), g.mul(x, w))), g.sub(1, two(g.add(g.mul(x, x), g.mul(y, y)))),
    ];
    // (Rᵀ, p) ∘ X_tree: E = Rᵀ E_tree, r = r_tree + E_treeᵀ p
    const Rt = [0, 3, 6, 1, 4, 7, 2, 5, 8].map((k) => R[k]);
    const { E, r } = compose(g, Rt, p ?? [0, 0, 0], Array.from(Xt.subarray(0, 9)), Array.from(Xt.subarray(9, 12)));
    const XS = slots.XS + 12 * i;
    for (let k = 0; k < 9; k++) g.store(XS + k, E[k]);
    for (let k = 0; k < 3; k++) g.store(XS + 9 + k, r[k]);
    return { E, r };
  }
  const k = kd.k, a = k === 0 ? 1 : k === 1 ? 2 : 0, b = k === 0 ? 2 : k === 1 ? 0 : 1;
  const E: Val[] = new Array(9);
  for (let j = 0; j < 3; j++) E[3 * k + j] = Xt[3 * k + j];
  const XS = slots.XS + 12 * i;
  if (first) {
    const c = g.load(slots.CS + 2 * i), s0 = g.load(slots.CS + 2 * i + 1);
    const s = kd.sign === 1 ? s0 : g.mul(kd.sign, s0);
    for (let j = 0; j < 3; j++) {
      E[3 * a + j] = g.add(g.mul(c, Xt[3 * a + j]), g.mul(s, Xt[3 * b + j]));
      E[3 * b + j] = g.sub(g.mul(c, Xt[3 * b + j]), g.mul(s, Xt[3 * a + j]));
    }
    for (let j = 0; j < 3; j++) { g.store(XS + 3 * a + j, E[3 * a + j]); g.store(XS + 3 * b + j, E[3 * b + j]); }
  } else {
    for (let j = 0; j < 3; j++) { E[3 * a + j] = g.load(XS + 3 * a + j); E[3 * b + j] = g.load(XS + 3 * b + j); }
  }
  return { E, r: [Xt[9], Xt[10], Xt[11]] };
}

/**
 * The generated code's inputs for q: cos q and sin q at CS, jcalc's transforms (or a quaternion
 * joint's q) at XG (no allocation). With `trig` (the module's own cosines and sines, trig-code.ts) the angles go to its
 * slots and its function writes CS, unless an angle is beyond its range.
 */
export function writeTransforms(model: Model, kinds: Kind[], mem: Float64Array, slots: { CS: number; XG: number }, q: ArrayLike<number>, scratch: Float64Array, fl: Flops, trig: ModuleTrig | null = null): void {
  if (trig !== null) cosSinInto(mem, slots.CS, trig, q);
  for (let i = 0; i < kinds.length; i++) {
    const kd = kinds[i];
    if (kd.t === 'axis') {
      if (trig !== null) continue;
      const x = q[model.iq[i]];
      mem[slots.CS + 2 * i] = Math.cos(x); mem[slots.CS + 2 * i + 1] = Math.sin(x);
    } else if (kd.t === 'jcalc') {
      jcalc(scratch, model, i, q, fl);
      mem.set(scratch, slots.XG + 12 * i);
    } else if (kd.t === 'quat') quaternionInputs(model, i, kd.trans, mem, slots.XG + 12 * i, q, fl);
  }
}

/**
 * A quaternion joint's q (a free-flyer's position and quaternion, or a spherical joint's
 * quaternion) into mem[at …], for transformOf's code, and jcalc's counts for its transform (27 + 27
 * multiplications and 12 + 18 additions, 9 and 9 more where the free-flyer's position is not zero)
 */
export function quaternionInputs(model: Model, i: number, trans: boolean, mem: Float64Array, at: number, q: ArrayLike<number>, fl: Flops): void {
  const iq = model.iq[i], n = trans ? 7 : 4;
  for (let k = 0; k < n; k++) mem[at + k] = q[iq + k];
  fl.mul += 54; fl.add += 30;
  if (trans && (q[iq] !== 0 || q[iq + 1] !== 0 || q[iq + 2] !== 0)) { fl.mul += 9; fl.add += 9; }
}

/**
 * U = I^A S (6×ni, column-major) and D⁻¹ = (Sᵀ U)⁻¹ for body i's joint (S its motion subspace,
 * `ni` columns), I^A given as its 36 values (ABA's and Carpentier's M⁻¹'s pass 2)
 */
export function jointInertia(g: Emitter, IA: Val[], S: Float64Array, ni: number): { U: Val[]; Dinv: Val[] } {
  const R = [0, 1, 2, 3, 4, 5];
  const U: Val[] = new Array(6 * ni);
  for (let k = 0; k < ni; k++) for (let r = 0; r < 6; r++) U[6 * k + r] = g.dot(R.map((c) => IA[6 * r + c]), R.map((c) => S[6 * k + c]));
  const D: Val[] = new Array(ni * ni);
  for (let a = 0; a < ni; a++) for (let b = 0; b < ni; b++) D[ni * a + b] = g.dot(R.map((r) => S[6 * a + r]), R.map((r) => U[6 * b + r]));
  return { U, Dinv: spdInverse(g, D, ni) };
}

/**
 * I^A_i as its 36 values: a body with children (which add theirs) loads its 21 slots at `slot`,
 * another is its rigid inertia (constants)
 */
export function articulatedInertiaOf(g: Emitter, model: Model, i: number, hasKids: boolean, slot: number): Val[] {
  if (!hasKids) return inertiaMatrix(model.I[i]);
  const L = Array.from({ length: 21 }, (_, k) => g.load(slot + k));
  return Array.from({ length: 36 }, (_, k) => L[SYM[k]]);
}

/** I^a = I^A − (U D⁻¹) Uᵀ for the 6×ni column-major U and U D⁻¹ (its upper triangle computed, mirrored) */
export function articulatedLess(g: Emitter, M: Val[], UD: Val[], U: Val[], ni: number): Val[] {
  const Ia = M.slice();
  for (let r = 0; r < 6; r++) {
    for (let c = r; c < 6; c++) {
      const x = g.sub(M[6 * r + c], g.dot(Array.from({ length: ni }, (_, k) => UD[6 * k + r]), Array.from({ length: ni }, (_, k) => U[6 * k + c])));
      Ia[6 * r + c] = x; Ia[6 * c + r] = x;
    }
  }
  return Ia;
}

/**
 * The articulated inertia passed to the parent, added into its 21 slots at `slot` (the upper
 * triangle, SYM): I^A_λ += Xᵀ I^a X with X's 6×6 entries ([[E, 0], [−E r×, E]])
 */
export function addCongruence(g: Emitter, E: Val[], r: Val[], Ia: Val[], slot: number): void {
  const R = [0, 1, 2, 3, 4, 5];
  const X = motionMatrix(g, E, r);
  const T: Val[] = new Array(36);
  for (let a = 0; a < 6; a++) for (let c = 0; c < 6; c++) T[6 * a + c] = g.dot(R.map((k) => Ia[6 * a + k]), R.map((k) => X[6 * k + c]));
  for (let a = 0; a < 6; a++) {
    for (let c = a; c < 6; c++) {
      const x = g.dot(R.map((k) => X[6 * k + a]), R.map((k) => T[6 * k + c]));
      const s = slot + SYM[6 * a + c];
      g.store(s, g.add(g.load(s), x));
    }
  }
}

/**
 * Xᵀ I X for a rigid inertia I = (m, h, Ī) (10 values, I[0] unused: the mass m is a constant) and
 * X = (E, r): the inertia in the coordinates X maps from (the parent's for ⁱX_λ, the world's for
 * ⁰X_i), as inertia.ts's inertiaTransformToParent: h' = Eᵀ h, Ī' = Eᵀ Ī E, h_A = h' + m r,
 * Ī_A = Ī' + 2 (r·h') 1 − (h' rᵀ + r h'ᵀ) + m (r·r 1 − r rᵀ)
 */
export function rigidCongruence(g: Emitter, E: Val[], r: Val[], I: ArrayLike<Val>, m: number): Val[] {
  const [e0, e1, e2, e3, e4, e5, e6, e7, e8] = E, [r0, r1, r2] = r;
  const [, h0, h1, h2, s0, s1, s2, s3, s4, s5] = Array.from(I);
  const d3 = (a: Val, b: Val, c: Val, x: Val, y: Val, z: Val) => g.add(g.add(g.mul(a, x), g.mul(b, y)), g.mul(c, z));
  const g0 = d3(e0, e3, e6, h0, h1, h2), g1 = d3(e1, e4, e7, h0, h1, h2), g2 = d3(e2, e5, e8, h0, h1, h2);
  const t00 = d3(s0, s1, s2, e0, e3, e6), t01 = d3(s0, s1, s2, e1, e4, e7), t02 = d3(s0, s1, s2, e2, e5, e8);
  const t10 = d3(s1, s3, s4, e0, e3, e6), t11 = d3(s1, s3, s4, e1, e4, e7), t12 = d3(s1, s3, s4, e2, e5, e8);
  const t20 = d3(s2, s4, s5, e0, e3, e6), t21 = d3(s2, s4, s5, e1, e4, e7), t22 = d3(s2, s4, s5, e2, e5, e8);
  const j00 = d3(e0, e3, e6, t00, t10, t20), j01 = d3(e0, e3, e6, t01, t11, t21), j02 = d3(e0, e3, e6, t02, t12, t22);
  const j11 = d3(e1, e4, e7, t01, t11, t21), j12 = d3(e1, e4, e7, t02, t12, t22), j22 = d3(e2, e5, e8, t02, t12, t22);
  const rh = d3(r0, r1, r2, g0, g1, g2);
  if (m === 0) {
    const d0 = g.mul(2, rh);
    return [0, g0, g1, g2,
      g.sub(g.add(j00, d0), g.mul(g.mul(2, g0), r0)), g.sub(j01, g.add(g.mul(g0, r1), g.mul(r0, g1))), g.sub(j02, g.add(g.mul(g0, r2), g.mul(r0, g2))),
      g.sub(g.add(j11, d0), g.mul(g.mul(2, g1), r1)), g.sub(j12, g.add(g.mul(g1, r2), g.mul(r1, g2))), g.sub(g.add(j22, d0), g.mul(g.mul(2, g2), r2))];
  }
  const mr0 = g.mul(m, r0), mr1 = g.mul(m, r1), mr2 = g.mul(m, r2);
  const rr = d3(r0, r1, r2, r0, r1, r2);
  const d = g.add(g.mul(2, rh), g.mul(m, rr));
  return [m, g.add(g0, mr0), g.add(g1, mr1), g.add(g2, mr2),
    g.sub(g.sub(g.add(j00, d), g.mul(g.mul(2, g0), r0)), g.mul(mr0, r0)),
    g.sub(g.sub(j01, g.add(g.mul(g0, r1), g.mul(r0, g1))), g.mul(mr0, r1)),
    g.sub(g.sub(j02, g.add(g.mul(g0, r2), g.mul(r0, g2))), g.mul(mr0, r2)),
    g.sub(g.sub(g.add(j11, d), g.mul(g.mul(2, g1), r1)), g.mul(mr1, r1)),
    g.sub(g.sub(j12, g.add(g.mul(g1, r2), g.mul(r1, g2))), g.mul(mr1, r2)),
    g.sub(g.sub(g.add(j22, d), g.mul(g.mul(2, g2), r2)), g.mul(mr2, r2))];
}
