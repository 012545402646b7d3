/**
 * A small seeded pseudo-random generator for generators, tests and studies: mulberry32 (Tommy
 * Ettinger's 32-bit generator, public domain), two outputs per double so that `next()` has the full
 * 53-bit resolution. Same seed, same sequence, on every platform.
 */

/** One step of mulberry32 on a 32-bit state; returns [0, 2³²) as an unsigned integer. */
export function mulberry32Step(state: Uint32Array): number {
  state[0] = (state[0] + 0x6d2b79f5) >>> 0;
  let t = state[0];
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return (t ^ (t >>> 14)) >>> 0;
}

/** Deterministic random numbers from an integer seed (any finite number; it is reduced mod 2³²). */
export class Rng {
  private readonly state = new Uint32Array(1);
  private spare = NaN;

  constructor(readonly seed: number) {
    if (!Number.isFinite(seed)) throw new RangeError(`Rng seed must be a finite number, got ${seed}`);
    // splitmix-style scramble so that nearby seeds give unrelated streams
    let s = Math.floor(seed) >>> 0;
    s = Math.imul(s ^ (s >>> 16), 0x85ebca6b) >>> 0;
    s = Math.imul(s ^ (s >>> 13), 0xc2b2ae35) >>> 0;
    this.state[0] = (s ^ (s >>> 16)) >>> 0;
  }

  /** Uniform in [0, 1) with 53 random bits. */
  next(): number {
    const hi = mulberry32Step(this.state) >>> 5; // 27 bits
    const lo = mulberry32Step(this.state) >>> 6; // 26 bits
    return (hi * 67108864 + lo) / 9007199254740992;
  }

  /** Uniform in [a, b). */
  uniform(a: number, b: number): number {
    return a + (b - a) * this.next();
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    if (!(n >= 1) || !Number.isInteger(n)) throw new RangeError(`Rng.int: n must be a positive integer, got ${n}`);
    return Math.floor(this.next() * n);
  }

  /** Standard normal (Marsaglia polar method). */
  normal(): number {
    if (!Number.isNaN(this.spare)) {
      const z = this.spare;
      this.spare = NaN;
      return z;
    }
    let u = 0, v = 0, s = 0;
    do {
      u = 2 * this.next() - 1;
      v = 2 * this.next() - 1;
      s = u * u + v * v;
    } while (s >= 1 || s === 0);
    const f = Math.sqrt((-2 * Math.log(s)) / s);
    this.spare = v * f;
    return u * f;
  }

  /** out = a uniformly distributed unit 3-vector. */
  unitVector(out: Float64Array = new Float64Array(3)): Float64Array {
    let n = 0;
    do {
      out[0] = this.normal(); out[1] = this.normal(); out[2] = this.normal();
      n = Math.hypot(out[0], out[1], out[2]);
    } while (n < 1e-6);
    out[0] /= n; out[1] /= n; out[2] /= n;
    return out;
  }

  /** out = a uniformly distributed unit quaternion (x, y, z, w), i.e. a uniform random rotation. */
  quaternion(out: Float64Array = new Float64Array(4)): Float64Array {
    let n = 0;
    do {
      for (let k = 0; k < 4; k++) out[k] = this.normal();
      n = Math.hypot(out[0], out[1], out[2], out[3]);
    } while (n < 1e-6);
    for (let k = 0; k < 4; k++) out[k] /= n;
    return out;
  }

  /** A uniformly chosen element of a non-empty array. */
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }

  /** Index drawn with probability proportional to the non-negative weights. */
  weighted(weights: readonly number[]): number {
    let total = 0;
    for (const w of weights) total += w;
    if (!(total > 0)) throw new RangeError('Rng.weighted: the weights must have a positive sum');
    let x = this.next() * total;
    for (let k = 0; k < weights.length; k++) {
      x -= weights[k];
      if (x < 0 && weights[k] > 0) return k;
    }
    let last = weights.length - 1;
    while (weights[last] <= 0) last--;
    return last;
  }

  /** Fisher–Yates shuffle in place; returns the array. */
  shuffle<T>(items: T[]): T[] {
    for (let k = items.length - 1; k > 0; k--) {
      const j = this.int(k + 1);
      const t = items[k];
      items[k] = items[j];
      items[j] = t;
    }
    return items;
  }

  /** Array of n uniform numbers in [a, b). */
  array(n: number, a = -1, b = 1): Float64Array {
    const out = new Float64Array(n);
    for (let k = 0; k < n; k++) out[k] = this.uniform(a, b);
    return out;
  }
}
