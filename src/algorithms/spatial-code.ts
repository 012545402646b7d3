/**
 * Straight-line f64 WebAssembly for the recursive algorithms generated per model (rnea-code.ts,
 * aba-code.ts): an emitter of operations on constants and locals that folds what it can (products by
 * 0 and ±1, sums with 0, operations on two constants), and the spatial operations written on its
 * values — the same formulas as the JavaScript kernels (spatial/), term by term.
 */
import { Bytes } from '../sparse/compiled.ts';
import { Body } from '../sparse/loops.ts';

/** a value of the generated code: a constant, or an f64 local */
export type Val = number | { l: number };

const F64_ADD = 0xa0, F64_SUB = 0xa1, F64_MUL = 0xa2, F64_DIV = 0xa3, F64_NEG = 0x9a, F64_SQRT = 0x9f;

/** straight-line f64 code with constants folded: each operation on locals writes a new local (reused body after body) */
export class Emitter {
  readonly e = new Body();
  private n = 0;
  maxLocals = 0;
  /** the temporaries of the next body start again from the first local */
  reset(): void { this.n = 0; }
  private fresh(): { l: number } {
    const l = this.n++;
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
  load(slot: number): Val { this.e.i32(0).ldf(8 * slot); const t = this.fresh(); this.set(t.l); return t; }
  store(slot: number, v: Val): void { this.e.i32(0); this.push(v); this.e.stf(8 * slot); }
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

/** I m for a rigid inertia (m, h, Ī) as inertia.ts lays it out: (Ī w + h × v, m v − h × w) */
export function inertiaMul(g: Emitter, I: Float64Array, m6: V6): V6 {
  const [m, hx, hy, hz, Ixx, Ixy, Ixz, Iyy, Iyz, Izz] = I;
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
