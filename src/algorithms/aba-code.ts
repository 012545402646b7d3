/**
 * ABA as WebAssembly generated per model (`GeneratedAba.create(model)`), as rnea-code.ts does RNEA:
 * straight-line code, body after body, the rigid inertias, motion subspaces and constant parts of
 * the transforms folded in (spatial-code.ts), the transforms of free-flyers and spherical joints
 * built from their quaternions in the code, cos q and sin q and the transforms of other joints that
 * are not revolute about a frame axis taken in JavaScript (jcalc). The passes of aba.ts (the JavaScript
 * reference): pass 1 v_i, c_i = v_i × S_i q̇_i, p^A_i = v_i ×* I_i v_i, I^A_i = I_i; pass 2 U_i =
 * I^A_i S_i, D_i⁻¹ (1/D for one DoF, the reference's Cholesky inverse for more), u_i = τ_i − S_iᵀ p^A_i,
 * I^a_i = I^A_i − U_i D_i⁻¹ U_iᵀ, p^a_i = p^A_i + I^a_i c_i + U_i D_i⁻¹ u_i, I^A_λ += ⁱX_λᵀ I^a_i ⁱX_λ,
 * p^A_λ += ⁱX_λᵀ p^a_i; pass 3 a_i = ⁱX_λ a_λ + c_i, q̈_i = D_i⁻¹ (u_i − U_iᵀ a_i), a_i += S_i q̈_i.
 * The congruence ⁱX_λᵀ I^a_i ⁱX_λ is taken as Xᵀ (I^a X) with X's 6×6 entries, not the reference's
 * blocks, so q̈ agrees to rounding (tested). A joint inertia that is not positive definite gives no
 * finite q̈: the reference then runs and names the joint. No external wrenches, no flop counters.
 * Allocation free per call. The engine runs new WebAssembly through its baseline compiler first and
 * optimizes it after some calls (measured: about a thousand calls, or 0.1 s, for a 96-link chain;
 * until then a call takes several times the JavaScript's): the code pays for long runs.
 *
 * From ABA_LOOPS_FROM bodies on, where every joint is revolute, prismatic or helical, the code is
 * the loops' form instead (aba-loops-code.ts: the same passes as loops over a table of bodies, no
 * constant folded, a few kB of code whatever the model), which straight-line code, past the
 * processor's caches, no longer beats.
 */
import { JT_HELICAL } from '../model/joint.ts';
import type { Model } from '../model/model.ts';
import { assemble, canCompile } from '../sparse/compiled.ts';
import { Flops } from '../spatial/flops.ts';
import { abaLoopsModule } from './aba-loops-code.ts';
import { abaUnchecked, AbaWorkspace } from './aba.ts';
import { add6, addCongruence, articulatedInertiaOf, articulatedLess, applyMotion, ChunkedCode, crossForce, crossMotion, inertiaMatrix, inertiaMul, jointInertia, type Kind, kindsOf, SYM, transformOf, transposeApplyForce, type V6, type Val, writeTransforms } from './spatial-code.ts';
import { moduleTrig, type ModuleTrig, sinCosBody } from './trig-code.ts';

/**
 * largest number of bodies the straight-line code is made for: its machine code grows by about 10 kB
 * a body, and past this size instruction fetches outweigh what folding saves (measured, generated ÷
 * JavaScript, chains after warm-up: 64 links 0.5, 128: 0.55, 192: 0.66, 256: 0.8, 384: 1.6)
 */
export const ABA_CODE_LIMIT = 256;

/**
 * from this number of bodies on, the loops' form (aba-loops-code.ts) where the model allows it:
 * measured (µs per call, best of 15 rounds after 3,000 warm-up calls, chains; straight-line /
 * loops / JavaScript), 24 links 3.44 / 4.09 / 7.35, 96: 15.3 / 17.1 / 29.0, 160: 26.5 / 28.7 /
 * 48.6, 192: 35.4 / 34.7 / 59.8, 256: 73.5 / 46.0 / 79.4, 384: — / 70.4 / 116
 */
export const ABA_LOOPS_FROM = 192;

/** q̈ = ABA(q, q̇, τ) by code generated for one model (see the file's comment). @experimental */
export class GeneratedAba {
  /** 'straight': straight-line code, body after body; 'loops': the passes as loops over a table of bodies (aba-loops-code.ts, past ABA_CODE_LIMIT bodies) */
  readonly form: 'straight' | 'loops';
  private readonly mem: Float64Array;
  private readonly run: () => void;
  private readonly qdd: Float64Array;
  private readonly scratch = new Float64Array(12);
  private readonly fl = new Flops();
  private fallback: AbaWorkspace | null = null;
  private readonly trig: ModuleTrig;

  private constructor(
    readonly model: Model, bytes: Uint8Array<ArrayBuffer>, pages: number, entry: number,
    private readonly kinds: Kind[], private readonly o: { CS: number; XG: number; QD: number; TAU: number; QDD: number; QA: number; DQ?: number },
    /** the loops' form: the bodies whose transform takes d (prismatic: q, helical: pitch·q), and the table's values */
    private readonly linear: Int32Array | null = null, init: ((mem: Float64Array) => void) | null = null,
  ) {
    this.form = linear === null ? 'straight' : 'loops';
    const memory = new WebAssembly.Memory({ initial: pages });
    const ex = new WebAssembly.Instance(new WebAssembly.Module(bytes), { e: { m: memory } }).exports as Record<string, () => void>;
    this.run = ex[`f${entry}`];
    this.trig = moduleTrig(model, kinds, o.QA, ex[`f${entry + 1}`]);
    this.mem = new Float64Array(memory.buffer);
    this.qdd = this.mem.subarray(o.QDD, o.QDD + model.nv);
    init?.(this.mem);
  }

  /**
   * The code for this model, or null (no WebAssembly, a body whose forward dynamics is not defined;
   * in the loops' form, a joint that is not revolute, prismatic or helical with one DoF; in the
   * straight-line form, more than ABA_CODE_LIMIT bodies). The form: from ABA_LOOPS_FROM bodies on
   * the loops where the model allows them, otherwise straight-line code, unless `opts.form` says.
   */
  static create(model: Model, opts: { form?: 'straight' | 'loops' } = {}): GeneratedAba | null {
    const nb = model.nb, nv = model.nv;
    if (!canCompile() || nb === 0 || model.singularBodies.length > 0) return null;
    if (opts.form === 'loops') return GeneratedAba.loops(model);
    if (opts.form === undefined && nb >= ABA_LOOPS_FROM) {
      const loops = GeneratedAba.loops(model);
      if (loops !== null) return loops;
    }
    if (nb > ABA_CODE_LIMIT) return null;
    const kinds = kindsOf(model);
    const hasKids = new Uint8Array(nb);
    for (let i = 0; i < nb; i++) if (model.parents[i] >= 0) hasKids[model.parents[i]] = 1;
    // memory, in f64 slots: inputs and output, then per body v, c, p^A, I^A (21), the transform's computed entries, U, D⁻¹, u, a
    let slot = 0;
    const take = (n: number) => { const s = slot; slot += n; return s; };
    const CS = take(2 * nb), XG = take(12 * nb), QD = take(nv), TAU = take(nv), QDD = take(nv);
    const VS = take(6 * nb), CC = take(6 * nb), PA = take(6 * nb), IA = take(21 * nb), XS = take(12 * nb), AS = take(6 * nb);
    const US = new Int32Array(nb), DS = new Int32Array(nb), UU = new Int32Array(nb);
    for (let i = 0; i < nb; i++) { const ni = model.nvi[i]; US[i] = take(6 * ni); DS[i] = take(ni * ni); UU[i] = take(ni); }
    const QA = take(nb);
    const pages = Math.max(1, Math.ceil((8 * slot) / 65536));
    const code = new ChunkedCode();
    let g = code.g;
    const split = () => { code.split(); g = code.g; };
    const a0: V6 = [0, 0, 0, -model.gravity[0], -model.gravity[1], -model.gravity[2]];
    const transform = (i: number, first: boolean) => transformOf(g, model, kinds, { CS, XG, XS }, i, first);
    const S = (i: number, r: number, k: number) => model.S[i][6 * k + r];
    const loads = (base: number, n: number) => Array.from({ length: n }, (_, k) => g.load(base + k));
    /** whether c_i is structurally zero (a root, or a joint without DoF) */
    const cZero = (i: number) => model.parents[i] < 0 || model.nvi[i] === 0;

    // pass 1
    for (let i = 0; i < nb; i++) {
      split();
      g.reset();
      const p = model.parents[i], ni = model.nvi[i];
      const { E, r } = transform(i, true);
      const qd = loads(QD + model.iv[i], ni);
      const vJ: V6 = Array.from({ length: 6 }, (_, row) => g.dot(qd.map((_, k) => S(i, row, k)), qd));
      let v: V6;
      if (p < 0) v = vJ; else {
        v = add6(g, applyMotion(g, E, r, loads(VS + 6 * p, 6)), vJ);
        if (ni > 0) { const c = crossMotion(g, v, vJ); for (let k = 0; k < 6; k++) g.store(CC + 6 * i + k, c[k]); }
      }
      if (hasKids[i]) for (let k = 0; k < 6; k++) g.store(VS + 6 * i + k, v[k]);
      const pA = crossForce(g, v, inertiaMul(g, model.I[i], v));
      for (let k = 0; k < 6; k++) g.store(PA + 6 * i + k, pA[k]);
      // I^A of a body with children starts as its rigid inertia; the children add theirs
      if (hasKids[i]) { const M = inertiaMatrix(model.I[i]); for (let rr = 0; rr < 6; rr++) for (let cc = rr; cc < 6; cc++) g.store(IA + 21 * i + SYM[6 * rr + cc], M[6 * rr + cc]); }
    }
    // pass 2
    for (let i = nb - 1; i >= 0; i--) {
      split();
      g.reset();
      const p = model.parents[i], ni = model.nvi[i];
      const M = articulatedInertiaOf(g, model, i, hasKids[i] === 1, IA + 21 * i);
      const pA = loads(PA + 6 * i, 6);
      let U: Val[] = [], Dinv: Val[] = [], u: Val[] = [];
      if (ni > 0) {
        // U = I^A S (6×ni, column-major), D⁻¹ = (Sᵀ U)⁻¹, u = τ − Sᵀ p^A
        ({ U, Dinv } = jointInertia(g, M, model.S[i], ni));
        const tau = loads(TAU + model.iv[i], ni);
        u = Array.from({ length: ni }, (_, k) => g.sub(tau[k], g.dot([0, 1, 2, 3, 4, 5].map((rr) => S(i, rr, k)), pA)));
        for (let k = 0; k < 6 * ni; k++) g.store(US[i] + k, U[k]);
        for (let k = 0; k < ni * ni; k++) g.store(DS[i] + k, Dinv[k]);
        for (let k = 0; k < ni; k++) g.store(UU[i] + k, u[k]);
      }
      if (p < 0) continue;
      // I^a = I^A − U D⁻¹ Uᵀ,  p^a = p^A + I^a c + U D⁻¹ u
      let Ia: Val[] = M;
      let pa: V6 = pA.slice();
      if (ni > 0) {
        const UD: Val[] = new Array(6 * ni);
        for (let b = 0; b < ni; b++) for (let rr = 0; rr < 6; rr++) UD[6 * b + rr] = g.dot(Array.from({ length: ni }, (_, c) => U[6 * c + rr]), Array.from({ length: ni }, (_, c) => Dinv[ni * c + b]));
        Ia = articulatedLess(g, M, UD, U, ni);
        if (!cZero(i)) {
          const c = loads(CC + 6 * i, 6);
          pa = add6(g, pa, Array.from({ length: 6 }, (_, rr) => g.dot([0, 1, 2, 3, 4, 5].map((k) => Ia[6 * rr + k]), c)));
        }
        pa = add6(g, pa, Array.from({ length: 6 }, (_, rr) => g.dot(Array.from({ length: ni }, (_, k) => UD[6 * k + rr]), u)));
      }
      // I^A_λ += Xᵀ I^a X,  p^A_λ += Xᵀ p^a
      const { E, r } = transform(i, false);
      addCongruence(g, E, r, Ia, IA + 21 * p);
      const up = transposeApplyForce(g, E, r, pa);
      for (let k = 0; k < 6; k++) g.store(PA + 6 * p + k, g.add(g.load(PA + 6 * p + k), up[k]));
    }
    // pass 3
    for (let i = 0; i < nb; i++) {
      split();
      g.reset();
      const p = model.parents[i], ni = model.nvi[i];
      const { E, r } = transform(i, false);
      let a = applyMotion(g, E, r, p < 0 ? a0 : loads(AS + 6 * p, 6));
      if (!cZero(i)) a = add6(g, a, loads(CC + 6 * i, 6));
      if (ni > 0) {
        const U = loads(US[i], 6 * ni), Dinv = loads(DS[i], ni * ni), u = loads(UU[i], ni);
        const t = Array.from({ length: ni }, (_, k) => g.sub(u[k], g.dot(U.slice(6 * k, 6 * k + 6), a)));
        const qdd = Array.from({ length: ni }, (_, k) => g.dot(Dinv.slice(ni * k, ni * k + ni), t));
        for (let k = 0; k < ni; k++) g.store(QDD + model.iv[i] + k, qdd[k]);
        a = add6(g, a, Array.from({ length: 6 }, (_, rr) => g.dot(qdd.map((_, k) => S(i, rr, k)), qdd)));
      }
      if (hasKids[i]) for (let k = 0; k < 6; k++) g.store(AS + 6 * i + k, a[k]);
    }
    try {
      const bodies = code.finish();
      const bytes = assemble([{ bodies: [...bodies, sinCosBody(QA, CS, nb)], type: 1 }], pages);
      if (!WebAssembly.validate(bytes)) return null;
      return new GeneratedAba(model, bytes, pages, bodies.length - 1, kinds, { CS, XG, QD, TAU, QDD, QA });
    } catch {
      return null;
    }
  }

  /** the loops' form (aba-loops-code.ts), or null where it is not made */
  private static loops(model: Model): GeneratedAba | null {
    const m = abaLoopsModule(model);
    if (m === null) return null;
    try {
      const pages = Math.max(1, Math.ceil((8 * m.slots) / 65536));
      const bytes = assemble([{ bodies: [m.body, sinCosBody(m.o.QA, m.o.CS, model.nb)], type: 1 }], pages);
      if (!WebAssembly.validate(bytes)) return null;
      return new GeneratedAba(model, bytes, pages, 0, m.kinds, m.o, m.linear, m.init);
    } catch {
      return null;
    }
  }

  /**
   * q̈ = ABA(q, q̇, τ) (q̇ null: zero), as a view into the module's memory, valid until the next call.
   * Inputs are not validated (aba's entry checks them); a joint inertia that is not positive
   * definite at q throws as aba does (SingularJointInertiaError, naming the joint).
   */
  compute(q: ArrayLike<number>, qd: ArrayLike<number> | null, tau: ArrayLike<number>): Float64Array {
    const model = this.model, mem = this.mem, o = this.o;
    writeTransforms(model, this.kinds, mem, o, q, this.scratch, this.fl, this.trig);
    const lin = this.linear;
    if (lin !== null) {
      for (let k = 0; k < lin.length; k++) {
        const i = lin[k], x = q[model.iq[i]];
        mem[o.DQ! + i] = model.jtype[i] === JT_HELICAL ? model.pitch[i] * x : x;
      }
    }
    const nv = model.nv;
    if (qd === null) mem.fill(0, o.QD, o.QD + nv); else for (let k = 0; k < nv; k++) mem[o.QD + k] = qd[k];
    for (let k = 0; k < nv; k++) mem[o.TAU + k] = tau[k];
    this.run();
    const qdd = this.qdd;
    for (let k = 0; k < nv; k++) {
      if (!(qdd[k] - qdd[k] === 0)) {
        // not finite: the reference names the joint whose inertia is not positive definite (or gives the same)
        this.fallback ??= new AbaWorkspace(model);
        qdd.set(abaUnchecked(model, this.fallback, q, qd, tau));
        break;
      }
    }
    return qdd;
  }
}
