/**
 * [τ, ∂τ/∂q, ∂τ/∂q̇, M] = rneaDerivatives(q, q̇, q̈) as WebAssembly generated per model
 * (`GeneratedRneaDerivatives.create(model)`): the world-frame RNEA derivatives of rnea-derivatives.ts
 * (after Carpentier & Mansard, "Analytical Derivatives of Rigid Body Dynamics Algorithms", RSS 2018;
 * its file comment derives every formula used here), as rnea-code.ts does RNEA. Generated as
 * straight-line code, body after body: the forward pass (⁰X_i, J_k = ⁰X_i S_k, v_i, a_i, the world
 * inertia Y_i, h_i, f_i; per column dVdq_k, dAdq_k, dAdv_k), and the backward pass of the composites
 * fused with the per-column pass (τ_k, P_k, Q_k, dFdq_k, dFdv_k as soon as a body's subtree sums are
 * complete) and the pairs of a joint's own columns; the model's constants folded in — the rigid
 * inertias, the motion subspaces, the constant parts of the joint transforms (spatial-code.ts),
 * gravity — and the values known at generation time carried as constants through the memory (a
 * root's dVdq = 0, the J of a fixed base's first joint, …). Products by 0 and ±1 and sums with 0 are
 * not emitted. cos q, sin q and the transforms of joints that are not revolute about a frame axis come
 * from JavaScript (jcalc; free-flyers and spherical joints: their quaternions, the transform built in
 * the code), so every joint type of the model code runs, a floating base included, with
 * the tangent directions of rnea-derivatives.ts (velocity order; a floating base's [δp; δθ] in its
 * own frame). The pairs of a column with the columns above its joint run as a loop over per-column
 * records (f64x2: the ∂q and ∂q̇ entries of a pair in the two lanes, as rnea-pairs-code.ts), for any
 * joint types, up to four consecutive columns at a time whose columns above are the same but for
 * the group's own (a chain's neighbours, a joint's DoFs, siblings: each record above is then read
 * once from the second-level cache for all, and their entries above the diagonal share cache lines;
 * measured on the 384-link chain, one process: 1703 µs one column at a time, 1407 two, 1061 four
 * against 1113 two); straight-line pairs (option `straightPairs`) were measured no faster
 * — the same or up to 1.3× slower on chains of 6–24 links, kinova and go1 floating, 3.6× slower on a
 * 96-link chain whose code (about 0.8 kB a pair) no longer fits the caches — so the loop is the
 * default.
 *
 * One departure from the JavaScript, exact in exact arithmetic: its linear map B_b (6×6, summed over
 * the subtrees into B^c) acts on the angular part of a motion only. With Y_b = (m, c, Ī) (c the
 * first moment), v_b = (ω, u) and h_b = Y_b v_b = (n, f), for x = (a, b):
 *
 *   B_b x = (Σ_b a + a × n,  2 a × f),   Σ_b = ω× Ī + (ω× Ī)ᵀ + 2 (u·c) 1 − c uᵀ − u cᵀ (symmetric)
 *
 * (the b-terms cancel by the Jacobi identity and f = m u + ω × c), so B^c is held as Σ^c (6 numbers)
 * and the subtree's momentum h^c (6), Q_c = (B^c)ᵀ J_c has a zero linear part, and a product by B^c
 * takes 21 multiplications instead of 36. The outputs agree with the JavaScript's to rounding (tested
 * to 1e-11 relative, and against central differences of RNEA). No flop counters. Allocation free per
 * call. The engine runs new WebAssembly through its baseline compiler first: the code pays after
 * some thousand calls.
 *
 * Measured (µs per call, median of 21 alternating rounds after 3,000 warm-up calls of each, one
 * process; 2 cores shared with other work, load average about 3: indicative, runs differ by up to
 * 10%), JavaScript workspace (RecursiveInverseDynamicsDerivatives) → this code, and this code ÷
 * Pinocchio 3.7's computeRNEADerivatives (its times measured on this machine kind): chain:6 6.2 → 0.75 (0.36),
 * chain:24 25.8 → 7.1 (0.72), chain:96 138 → 58 (0.96), chain:384 1802 → 1287 (1.74; 11 rounds),
 * panda floating 14.3 → 3.67 (0.89), kinova floating 10.5 → 2.62 (0.89), go1 floating 16.8 → 4.41
 * (0.88), talos_reduced floating 41.1 → 11.3 (0.85), simple_humanoid floating 38.2 → 9.58 (0.78).
 */
import { type Emitter, ChunkedCode, compose, crossForce, crossMotion, inertiaMul, invApplyMotion, type Kind, kindsOf, rigidCongruence, transformOf, type V6, type Val, writeTransforms } from '../algorithms/spatial-code.ts';
import { moduleTrig, type ModuleTrig, sinCosBody } from '../algorithms/trig-code.ts';
import type { Model } from '../model/model.ts';
import { assemble, canCompile } from '../sparse/compiled.ts';
import { SimdBody, V } from '../sparse/wasm-simd.ts';
import { Flops } from '../spatial/flops.ts';

/**
 * largest number of bodies (and of DoFs) for which the code is made: it grows by about 10 kB a body
 * and its memory by three nv×nv matrices; measured, generated ÷ JavaScript after warm-up, chains of
 * 96 links 0.31, 192: 0.69, 256: 0.80, 384: 0.88, 512: 0.89 (the pairs' loop, quadratic, dominates)
 */
export const RNEA_DERIVATIVES_CODE_LIMIT = 512;

/**
 * largest number of pairs for which the pairs with the columns above are straight-line code by
 * default; past it they run as a loop over the columns' records. 0: always the loop (measured no
 * slower on every model tried, see the file's comment)
 */
export const RNEA_DERIVATIVES_STRAIGHT_PAIRS = 0;

/** f64 slots of a column's record */
const REC = 48;

/** number of (column, ancestor-or-own column) pairs of a model */
export function rneaDerivativePairs(model: Model): number {
  let n = 0;
  for (let i = 0; i < model.nb; i++) {
    let above = 0;
    for (let a = i; a >= 0; a = model.parents[a]) above += model.nvi[a];
    n += model.nvi[i] * above;
  }
  return n;
}

/** memory offsets (f64 slots) that compute reads and writes */
interface Offsets { CS: number; XG: number; QD: number; QDD: number; TAU: number; DQ: number; DV: number; MM: number; QA: number }

/** Options of GeneratedRneaDerivatives.create. @experimental */
export interface GeneratedRneaDerivativesOptions {
  /** compute M (default true; false: M stays 0, as forward dynamics' derivatives need) */
  withM?: boolean;
  /** the largest number of pairs for which the pairs with the columns above are straight-line code (default RNEA_DERIVATIVES_STRAIGHT_PAIRS; for comparisons) */
  straightPairs?: number;
}

/**
 * τ, ∂τ/∂q, ∂τ/∂q̇ and M by code generated for one model (see the file's comment), in the layout of
 * RneaDerivativesWorkspace (nv×nv row-major, entry [r, k] = ∂τ_r/∂x_k). @experimental
 */
export class GeneratedRneaDerivatives {
  /** τ (nv) and ∂τ/∂q, ∂τ/∂q̇, M (nv×nv row-major) of the last call: views into the module's memory (read only; entries that are not pairs stay 0) */
  readonly tau: Float64Array;
  readonly dq: Float64Array;
  readonly dv: Float64Array;
  readonly M: Float64Array;
  /** whether M is computed (create's option) */
  readonly withM: boolean;
  /** whether the pairs with the columns above run as a loop (more than RNEA_DERIVATIVES_STRAIGHT_PAIRS pairs) rather than straight-line code */
  readonly loop: boolean;
  private readonly mem: Float64Array;
  private readonly run: () => void;
  private readonly scratch = new Float64Array(12);
  private readonly fl = new Flops();
  private readonly trig: ModuleTrig;

  private constructor(
    readonly model: Model, bytes: Uint8Array<ArrayBuffer>, pages: number, entry: number, loopEntry: number,
    private readonly kinds: Kind[], private readonly o: Offsets, withM: boolean,
    consts: [number, number][], tables: number, start: Int32Array, up: Int32Array, itemsAt: number, items: Int32Array,
  ) {
    const memory = new WebAssembly.Memory({ initial: pages });
    const ex = new WebAssembly.Instance(new WebAssembly.Module(bytes), { e: { m: memory } }).exports as Record<string, () => void>;
    const main = ex[`f${entry}`];
    if (loopEntry >= 0) { const pairs = ex[`f${loopEntry}`]; this.run = () => { main(); pairs(); }; } else this.run = main;
    this.trig = moduleTrig(model, kinds, o.QA, ex[`f${Math.max(entry, loopEntry) + 1}`]);
    this.loop = loopEntry >= 0;
    const mem = this.mem = new Float64Array(memory.buffer);
    // the values the code knows as constants (it does not store them), for the loop that reads them
    for (const [s, x] of consts) mem[s] = x;
    const i32 = new Int32Array(memory.buffer);
    i32.set(start, tables); i32.set(up, tables + model.nv); i32.set(items, itemsAt);
    const nv = model.nv;
    this.tau = mem.subarray(o.TAU, o.TAU + nv);
    this.dq = mem.subarray(o.DQ, o.DQ + nv * nv);
    this.dv = mem.subarray(o.DV, o.DV + nv * nv);
    this.M = mem.subarray(o.MM, o.MM + nv * nv);
    this.withM = withM;
  }

  /**
   * The code for this model, or null (no WebAssembly, no DoF, more than RNEA_DERIVATIVES_CODE_LIMIT
   * bodies or DoFs). `withM` false: M is not computed (forward dynamics' use; M stays 0).
   */
  static create(model: Model, options: GeneratedRneaDerivativesOptions = {}): GeneratedRneaDerivatives | null {
    const nb = model.nb, nv = model.nv, withM = options.withM ?? true;
    if (!canCompile() || nb === 0 || nv === 0 || nb > RNEA_DERIVATIVES_CODE_LIMIT || nv > RNEA_DERIVATIVES_CODE_LIMIT) return null;
    const pairs = rneaDerivativePairs(model), straightLimit = options.straightPairs ?? RNEA_DERIVATIVES_STRAIGHT_PAIRS;
    const kinds = kindsOf(model);
    const parents = model.parents, nvi = model.nvi, ivs = model.iv;
    const hasKids = new Uint8Array(nb);
    for (let i = 0; i < nb; i++) if (parents[i] >= 0) hasKids[parents[i]] = 1;
    // memory, in f64 slots: inputs and outputs, then per body ⁰X_i, the transform's computed entries,
    // v, a, Y^c (10), Σ^c (6), h^c, F; per column a record of REC slots (the pairs' operands, pairs
    // of a ∂q and a ∂q̇ operand side by side for the loop's f64x2): (dAdq, dAdv) × 6, (dVdq, J) × 6,
    // (dFdq, dFdv) × 6, P (6), Q (3, its linear part being zero, and 3 unused)
    let slot = 0;
    const take = (n: number) => { const s = slot; slot += n; return s; };
    const CS = take(2 * nb), XG = take(12 * nb), QD = take(nv), QDD = take(nv), TAU = take(nv);
    const DQ = take(nv * nv), DV = take(nv * nv), MM = take(nv * nv);
    const X0 = take(12 * nb), XS = take(12 * nb), VS = take(6 * nb), AS = take(6 * nb);
    const YC = take(10 * nb), SG = take(6 * nb), HC = take(6 * nb), FS = take(6 * nb);
    take(slot & 1);
    const RB = take(REC * nv);
    const AQ = (k: number) => RB + REC * k, AV = (k: number) => RB + REC * k + 1;
    const VQ = (k: number) => RB + REC * k + 12, JJ = (k: number) => RB + REC * k + 13;
    const FQ = (k: number) => RB + REC * k + 24, FV = (k: number) => RB + REC * k + 25;
    const PP = (k: number) => RB + REC * k + 36, QQ = (k: number) => RB + REC * k + 42;
    // the loop's tables (i32): per column k the first column above its joint, per column the next one above (−1: none)
    const TB = take(nv);
    const loop = pairs > straightLimit;
    // the loop's items (GROUP + 1 i32 each, at most nv items)
    const IB = take(loop ? Math.ceil(((GROUP + 1) * nv) / 2) : 0);
    const code = new ChunkedCode();
    let g: Emitter = code.g;
    /** a new function once the current one is full: true if it began (the locals are then gone) */
    const split = (): boolean => { code.split(); if (code.g === g) return false; g = code.g; return true; };
    // what the generated code knows of its memory: a slot written with a constant holds it (not stored)
    const isKnown = new Uint8Array(slot), known = new Float64Array(slot);
    const put = (s: number, v: Val) => {
      if (typeof v === 'number') { isKnown[s] = 1; known[s] = v; } else { isKnown[s] = 0; g.store(s, v); }
    };
    const get = (s: number): Val => (isKnown[s] ? known[s] : g.load(s));
    const gets = (s: number, n: number, step = 1): Val[] => Array.from({ length: n }, (_, k) => get(s + step * k));
    const puts = (s: number, v: Val[], step = 1) => { for (let k = 0; k < v.length; k++) put(s + step * k, v[k]); };
    const Z6: V6 = [0, 0, 0, 0, 0, 0];
    const a0: V6 = [0, 0, 0, -model.gravity[0], -model.gravity[1], -model.gravity[2]];
    const cross3 = (a: Val[], b: Val[]): Val[] => [
      g.sub(g.mul(a[1], b[2]), g.mul(a[2], b[1])), g.sub(g.mul(a[2], b[0]), g.mul(a[0], b[2])), g.sub(g.mul(a[0], b[1]), g.mul(a[1], b[0])),
    ];
    /** Σ x for the symmetric 3×3 Σ stored as (00, 01, 02, 11, 12, 22) */
    const symMul = (S: Val[], x: Val[]): Val[] => [
      g.add(g.add(g.mul(S[0], x[0]), g.mul(S[1], x[1])), g.mul(S[2], x[2])),
      g.add(g.add(g.mul(S[1], x[0]), g.mul(S[3], x[1])), g.mul(S[4], x[2])),
      g.add(g.add(g.mul(S[2], x[0]), g.mul(S[4], x[1])), g.mul(S[5], x[2])),
    ];

    // forward pass: kinematics, the world inertia, h, f, Σ; per column J, dVdq, dAdq, dAdv
    for (let i = 0; i < nb; i++) {
      split();
      g.reset();
      const p = parents[i], ni = nvi[i];
      const { E, r } = transformOf(g, model, kinds, { CS, XG, XS }, i, true);
      // ⁰X_i = ⁱX_λ ⁰X_λ (transform.ts's xCompose)
      let E0: Val[] = E, r0: Val[] = r;
      if (p >= 0) ({ E: E0, r: r0 } = compose(g, E, r, gets(X0 + 12 * p, 9), gets(X0 + 12 * p + 9, 3)));
      if (hasKids[i]) { puts(X0 + 12 * i, E0); puts(X0 + 12 * i + 9, r0); }
      const vp = p >= 0 ? gets(VS + 6 * p, 6) : Z6, ap = p >= 0 ? gets(AS + 6 * p, 6) : a0;
      let v: V6 = vp, a: V6 = ap;
      const Jc: V6[] = [];
      if (ni > 0) {
        let vJ: V6 = Z6, aJ: V6 = Z6;
        for (let c = 0; c < ni; c++) {
          const J = invApplyMotion(g, E0, r0, Array.from(model.S[i].subarray(6 * c, 6 * c + 6)));
          Jc.push(J);
          puts(JJ(ivs[i] + c), J, 2);
          const qd = g.load(QD + ivs[i] + c), qdd = g.load(QDD + ivs[i] + c);
          vJ = vJ.map((x, k) => g.add(x, g.mul(J[k], qd)));
          aJ = aJ.map((x, k) => g.add(x, g.mul(J[k], qdd)));
        }
        v = p >= 0 ? vp.map((x, k) => g.add(x, vJ[k])) : vJ;
        // a_i = a_λ + J_i q̈_i + v_i × J_i q̇_i (zero at a root: v × v)
        a = ap.map((x, k) => g.add(x, aJ[k]));
        if (p >= 0) { const t = crossMotion(g, v, vJ); a = a.map((x, k) => g.add(x, t[k])); }
      }
      if (hasKids[i]) { puts(VS + 6 * i, v); puts(AS + 6 * i, a); }
      // per column: dVdq = v_λ × J, dAdq = a_λ × J + v_λ × dVdq, dAdv = v_i × J + dVdq
      for (let c = 0; c < ni; c++) {
        const J = Jc[c], k = ivs[i] + c;
        const dVdq = crossMotion(g, vp, J);
        const vq = crossMotion(g, vp, dVdq);
        const dAdq = crossMotion(g, ap, J).map((x, e) => g.add(x, vq[e]));
        const dAdv = crossMotion(g, v, J).map((x, e) => g.add(x, dVdq[e]));
        puts(VQ(k), dVdq, 2); puts(AQ(k), dAdq, 2); puts(AV(k), dAdv, 2);
      }
      // Y_i = ⁰X_iᵀ I_i ⁰X_i (inertia.ts's inertiaTransformToParent), h = Y v, f = Y a + v ×* h
      const Y = rigidCongruence(g, E0, r0, model.I[i], model.I[i][0]);
      const h = inertiaMul(g, Y, v);
      const Ya = inertiaMul(g, Y, a), vh = crossForce(g, v, h);
      const f = Ya.map((x, e) => g.add(x, vh[e]));
      // Σ = ω× Ī + (ω× Ī)ᵀ + 2 (u·c) 1 − c uᵀ − u cᵀ
      const w = v.slice(0, 3), u = v.slice(3, 6), cm = Y.slice(1, 4);
      const Ib = [[Y[4], Y[5], Y[6]], [Y[5], Y[7], Y[8]], [Y[6], Y[8], Y[9]]];
      const T = [0, 1, 2].map((row) => [0, 1, 2].map((col) => {
        // row `row` of ω× = [[0,−w2,w1],[w2,0,−w0],[−w1,w0,0]] times column `col` of Ī
        const i1 = (row + 1) % 3, i2 = (row + 2) % 3;
        return g.sub(g.mul(w[i1], Ib[i2][col]), g.mul(w[i2], Ib[i1][col]));
      }));
      const uc2 = g.mul(2, g.dot(u, cm));
      const Sg: Val[] = [];
      for (const [rr, cc] of [[0, 0], [0, 1], [0, 2], [1, 1], [1, 2], [2, 2]]) {
        let s = g.sub(g.add(T[rr][cc], T[cc][rr]), g.add(g.mul(cm[rr], u[cc]), g.mul(u[rr], cm[cc])));
        if (rr === cc) s = g.add(s, uc2);
        Sg.push(s);
      }
      puts(YC + 10 * i, Y); puts(SG + 6 * i, Sg); puts(HC + 6 * i, h); puts(FS + 6 * i, f);
    }

    // backward pass: per body (its subtree's sums complete) the columns, the own pairs, the sums into
    // the parent, then the pairs with the columns above
    for (let j = nb - 1; j >= 0; j--) {
      split();
      g.reset();
      const p = parents[j], nj = nvi[j], iv = ivs[j];
      const Y = gets(YC + 10 * j, 10), Sg = gets(SG + 6 * j, 6), hc = gets(HC + 6 * j, 6), F = gets(FS + 6 * j, 6);
      if (nj > 0) {
        const n = hc.slice(0, 3), f2 = hc.slice(3, 6).map((x) => g.mul(2, x));
        /** B^c x = (Σ a + a × n, 2 a × f) for x's angular part a */
        const B = (x: Val[]): V6 => {
          const a = x.slice(0, 3), s = symMul(Sg, a), an = cross3(a, n);
          return [g.add(s[0], an[0]), g.add(s[1], an[1]), g.add(s[2], an[2]), ...cross3(a, f2)];
        };
        const cols = Array.from({ length: nj }, (_, c) => {
          const k = iv + c;
          const J = gets(JJ(k), 6, 2), dVdq = gets(VQ(k), 6, 2), dAdq = gets(AQ(k), 6, 2), dAdv = gets(AV(k), 6, 2);
          g.store(TAU + k, g.dot(J, F));
          const P = inertiaMul(g, Y, J);
          // Q = (B^c)ᵀ J = (Σ J_ω + n × J_ω + 2 f × J_v, 0)
          const Jw = J.slice(0, 3), s = symMul(Sg, Jw), nJ = cross3(n, Jw), fJ = cross3(f2, J.slice(3, 6));
          const Q = [0, 1, 2].map((e) => g.add(g.add(s[e], nJ[e]), fJ[e]));
          // dFdq = Y^c dAdq + B^c dVdq + J ×* F, dFdv = Y^c dAdv + B^c J
          const bq = B(dVdq), jf = crossForce(g, J, F);
          const dFdq = inertiaMul(g, Y, dAdq).map((x, e) => g.add(g.add(x, bq[e]), jf[e]));
          const bv = B(J);
          const dFdv = inertiaMul(g, Y, dAdv).map((x, e) => g.add(x, bv[e]));
          return { k, J, dVdq, dAdq, dAdv, P, Q, dFdq, dFdv };
        });
        // own pairs (columns c, k of this joint): P_c · dAdq_k + Q_c · dVdq_k, P_c · dAdv_k + Q_c · J_k, J_c · P_k
        for (const ck of cols) {
          for (const cc of cols) {
            const e = cc.k * nv + ck.k;
            g.store(DQ + e, g.add(g.dot(cc.P, ck.dAdq), g.dot(cc.Q, ck.dVdq.slice(0, 3))));
            g.store(DV + e, g.add(g.dot(cc.P, ck.dAdv), g.dot(cc.Q, ck.J.slice(0, 3))));
            if (withM) g.store(MM + e, g.dot(cc.J, ck.P));
          }
        }
        for (const ck of cols) { puts(PP(ck.k), ck.P); puts(QQ(ck.k), ck.Q); puts(FQ(ck.k), ck.dFdq, 2); puts(FV(ck.k), ck.dFdv, 2); }
      }
      if (p >= 0) {
        const sum = (base: number, x: Val[]) => { for (let e = 0; e < x.length; e++) put(base + e, g.add(get(base + e), x[e])); };
        sum(YC + 10 * p, Y); sum(SG + 6 * p, Sg); sum(HC + 6 * p, hc); sum(FS + 6 * p, F);
      }
      // pairs with the columns c above: J_c · dFdq_k, J_c · dFdv_k, dAdq_c · P_k + dVdq_c · Q_k, dAdv_c · P_k + J_c · Q_k, J_c · P_k
      for (let c0 = 0; c0 < (loop ? 0 : nj); c0++) {
        const k = iv + c0;
        let kv: { P: Val[]; Q: Val[]; dFdq: Val[]; dFdv: Val[] } | null = null, mark = 0;
        for (let i = p; i >= 0; i = parents[i]) {
          for (let c = ivs[i]; c < ivs[i] + nvi[i]; c++) {
            if (split()) kv = null;
            if (kv === null) {
              kv = { P: gets(PP(k), 6), Q: gets(QQ(k), 3), dFdq: gets(FQ(k), 6, 2), dFdv: gets(FV(k), 6, 2) };
              mark = g.mark();
            }
            const J = gets(JJ(c), 6, 2), dAdq = gets(AQ(c), 6, 2), dVdq = gets(VQ(c), 3, 2), dAdv = gets(AV(c), 6, 2);
            const below = c * nv + k, own = k * nv + c;
            g.store(DQ + below, g.dot(J, kv.dFdq));
            g.store(DV + below, g.dot(J, kv.dFdv));
            g.store(DQ + own, g.add(g.dot(dAdq, kv.P), g.dot(dVdq, kv.Q)));
            g.store(DV + own, g.add(g.dot(dAdv, kv.P), g.dot(J.slice(0, 3), kv.Q)));
            if (withM) { const m = g.dot(J, kv.P); g.store(MM + below, m); g.store(MM + own, m); }
            g.release(mark);
          }
        }
      }
    }
    // the loop's tables: the nearest column above a body (the last of the nearest ancestor with DoFs)
    const above = (i: number) => {
      let a = parents[i];
      while (a >= 0 && nvi[a] === 0) a = parents[a];
      return a >= 0 ? ivs[a] + nvi[a] - 1 : -1;
    };
    const start = new Int32Array(nv), up = new Int32Array(nv);
    for (let i = 0; i < nb; i++) {
      for (let c = 0; c < nvi[i]; c++) { start[ivs[i] + c] = above(i); up[ivs[i] + c] = c > 0 ? ivs[i] + c - 1 : above(i); }
    }
    // the tables as i32 in TB's slots: START at byte 8·TB, UP after it (nv slots hold 2 nv i32); the items at 8·IB
    const items = loop ? loopItems(nv, start, up) : new Int32Array(0);
    const QA = take(nb);
    const pagesAll = Math.max(1, Math.ceil((8 * slot) / 65536));
    try {
      const bodies = code.finish();
      const groups = [{ bodies, type: 1 as const }];
      if (loop) {
        groups.push({ bodies: [pairsLoop(nv, items.length / (GROUP + 1), withM, 8 * RB, 8 * IB, 8 * TB, 8 * TB + 4 * nv, 8 * DQ, 8 * DV, 8 * MM)], type: 1 });
      }
      groups.push({ bodies: [sinCosBody(QA, CS, nb)], type: 1 });
      const bytes = assemble(groups, pagesAll);
      if (!WebAssembly.validate(bytes)) return null;
      const consts: [number, number][] = [];
      for (let s = 0; s < slot; s++) if (isKnown[s]) consts.push([s, known[s]]);
      return new GeneratedRneaDerivatives(model, bytes, pagesAll, bodies.length - 1, loop ? bodies.length : -1, kinds, { CS, XG, QD, QDD, TAU, DQ, DV, MM, QA }, withM, consts, 2 * TB, start, up, 2 * IB, items);
    } catch {
      return null;
    }
  }

  /**
   * τ, ∂τ/∂q, ∂τ/∂q̇ and M at (q, q̇, q̈) (q̇ null: zero) into tau, dq, dv, M. Inputs are not
   * validated (RecursiveInverseDynamicsDerivatives' entry checks them). Allocation free.
   */
  compute(q: ArrayLike<number>, qd: ArrayLike<number> | null, qdd: ArrayLike<number>): this {
    const model = this.model, mem = this.mem, o = this.o, nv = model.nv;
    writeTransforms(model, this.kinds, mem, o, q, this.scratch, this.fl, this.trig);
    if (qd === null) mem.fill(0, o.QD, o.QD + nv); else for (let k = 0; k < nv; k++) mem[o.QD + k] = qd[k];
    for (let k = 0; k < nv; k++) mem[o.QDD + k] = qdd[k];
    this.run();
    return this;
  }
}

const I32_ADD = 0x6a, I32_MUL = 0x6c, I32_SHL = 0x74, I32_GE_S = 0x4e;
const BLOCK = 0x02, LOOP = 0x03, END = 0x0b, BR = 0x0c, BR_IF = 0x0d, VOID = 0x40;

/** columns taken together by the pairs' loop */
const GROUP = 4;

/**
 * The items of the pairs' loop: up to GROUP consecutive columns g_0 < g_1 < … whose columns above
 * are, each, some of the item's earlier columns followed by the columns above g_0 (a chain's
 * neighbours, a joint's DoFs, siblings), so that each record above g_0 is read once from the
 * caches for all of them. Flat: GROUP + 1 i32 per item, the count then the columns (−1 beyond).
 */
function loopItems(nv: number, start: Int32Array, up: Int32Array): Int32Array {
  const chainOf = (k: number) => { const c: number[] = []; for (let x = start[k]; x >= 0; x = up[x]) c.push(x); return c; };
  const items: number[] = [];
  for (let k = 0; k < nv;) {
    const base = chainOf(k), members = [k];
    while (members.length < GROUP && k + members.length < nv) {
      const kb = k + members.length, ch = chainOf(kb), pre = ch.length - base.length;
      if (pre < 0 || !ch.slice(pre).every((x, i) => x === base[i]) || !ch.slice(0, pre).every((x) => members.includes(x))) break;
      members.push(kb);
    }
    items.push(members.length, ...members, ...new Array(GROUP - members.length).fill(-1));
    k += members.length;
  }
  return Int32Array.from(items);
}

const IF = 0x04, I32_EQ = 0x46, I32_GT_S = 0x4a;

/**
 * The pairs (c above k) as a loop over the items of loopItems and the columns c above (the tables
 * START and UP), as rnea-pairs-code.ts's: per pair (J_c · dFdq_k, J_c · dFdv_k) in the two lanes of
 * one sum, (dAdq_c · P_k + dVdq_c · Q_k, dAdv_c · P_k + J_c · Q_k) in another, M's J_c · P_k the
 * second lane of (dVdq_c, J_c) · P_k. An item's later columns first take their pairs with its earlier
 * ones, then the columns above g_0 for all: each record from the second-level cache once, the
 * item's entries above the diagonal in the same cache lines. Byte addresses: the records at rb, the
 * tables, the matrices.
 */
function pairsLoop(nv: number, nItems: number, withM: boolean, rb: number, itemsB: number, startB: number, upB: number, qb: number, vb: number, mb: number): Uint8Array {
  // i32: the item's count and columns, c, addresses, the item's offset, c's end for a prefix
  const N = 0, KS = 1, LI = KS + GROUP, BK = LI + 1, BC = BK + 1, AD = BC + 1, IT = AD + 1, END_C = IT + 1, NI32 = END_C + 1;
  // v128: per column of the item FQ (6), PK (6), QK (3); the sums
  const FQ = (j: number) => 15 * j, PK = (j: number) => 15 * j + 6, QK = (j: number) => 15 * j + 12;
  const A1 = 15 * GROUP, A2 = A1 + 1, NV128 = A2 + 1, MF = NV128;
  const v = (l: number) => NI32 + l;
  const RB = 8 * REC, AQV = 0, VJ = 96, FQV = 192, PPo = 288, QQo = 336;
  const e = new SimdBody();
  const sum = (n: number, term: (r: number) => void) => { for (let r = 0; r < n; r++) { term(r); if (r > 0) e.v(V.add); } };
  const loadK = (j: number) => {
    e.get(KS + j).i32(RB).op(I32_MUL).set(BK);
    for (let r = 0; r < 6; r++) {
      e.get(BK).ldv(rb + FQV + 16 * r).set(v(FQ(j) + r));
      e.get(BK).ldf(rb + PPo + 8 * r).v(V.splat).set(v(PK(j) + r));
      if (r < 3) e.get(BK).ldf(rb + QQo + 8 * r).v(V.splat).set(v(QK(j) + r));
    }
  };
  /** the pair (c, k): c's index in LI (its record at BC), k the item's column j */
  const pair = (j: number) => {
    const kl = KS + j;
    // (∂τ_c/∂q_k, ∂τ_c/∂q̇_k) = J_c · (dFdq_k, dFdv_k)
    sum(6, (r) => { e.get(BC).ldf(rb + VJ + 16 * r + 8).v(V.splat).get(v(FQ(j) + r)).v(V.mul); });
    e.set(v(A1));
    e.get(LI).i32(nv).op(I32_MUL).get(kl).op(I32_ADD).i32(3).op(I32_SHL).tee(AD);
    e.get(v(A1)).lane(0).stf(qb);
    e.get(AD).get(v(A1)).lane(1).stf(vb);
    // (∂τ_k/∂q_c, ∂τ_k/∂q̇_c) = (dAdq_c, dAdv_c) · P_k + (dVdq_c, J_c) · Q_k (Q's angular part)
    sum(6, (r) => { e.get(BC).ldv(rb + AQV + 16 * r).get(v(PK(j) + r)).v(V.mul); });
    sum(3, (r) => { e.get(BC).ldv(rb + VJ + 16 * r).get(v(QK(j) + r)).v(V.mul); });
    e.v(V.add).set(v(A2));
    e.get(kl).i32(nv).op(I32_MUL).get(LI).op(I32_ADD).i32(3).op(I32_SHL).tee(BK);
    e.get(v(A2)).lane(0).stf(qb);
    e.get(BK).get(v(A2)).lane(1).stf(vb);
    if (withM) {
      sum(6, (r) => { e.get(BC).ldv(rb + VJ + 16 * r).get(v(PK(j) + r)).v(V.mul); });
      e.lane(1).set(v(MF));
      e.get(AD).get(v(MF)).stf(mb);
      e.get(BK).get(v(MF)).stf(mb);
    }
  };
  /** while (LI ≠ end) { body; LI = UP[LI] } with end in END_C */
  const walk = (body: () => void) => {
    e.op(BLOCK, VOID, LOOP, VOID);
    e.get(LI).get(END_C).op(I32_EQ, BR_IF, 1);
    e.get(LI).i32(RB).op(I32_MUL).set(BC);
    body();
    e.get(LI).i32(2).op(I32_SHL).ldi(upB).set(LI);
    e.op(BR, 0, END, END);
  };
  e.i32(0).set(IT);
  e.op(BLOCK, VOID, LOOP, VOID);
  e.get(IT).i32(nItems).op(I32_GE_S, BR_IF, 1);
  e.get(IT).i32(4 * (GROUP + 1)).op(I32_MUL).tee(AD).ldi(itemsB).set(N);
  for (let j = 0; j < GROUP; j++) e.get(AD).ldi(itemsB + 4 + 4 * j).set(KS + j);
  loadK(0);
  // the columns above g_0: where every walk ends
  e.get(KS).i32(2).op(I32_SHL).ldi(startB).set(END_C);
  for (let j = 1; j < GROUP; j++) {
    e.get(N).i32(j).op(I32_GT_S, IF, VOID);
    loadK(j);
    // its pairs with the item's earlier columns
    e.get(KS + j).i32(2).op(I32_SHL).ldi(startB).set(LI);
    walk(() => pair(j));
    e.op(END);
  }
  e.get(END_C).set(LI);
  e.i32(-1).set(END_C);
  walk(() => {
    pair(0);
    for (let j = 1; j < GROUP; j++) { e.get(N).i32(j).op(I32_GT_S, IF, VOID); pair(j); e.op(END); }
  });
  e.get(IT).i32(1).op(I32_ADD).set(IT);
  e.op(BR, 0, END, END);
  return e.finishWith([[NI32, 0x7f], [NV128, 0x7b], [1, 0x7c]]);
}
