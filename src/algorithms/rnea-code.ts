/**
 * RNEA as WebAssembly generated per model (`GeneratedRnea.create(model)`): straight-line code, body
 * after body, with the model's constants folded in — the rigid inertias, the motion subspaces, the
 * tree transforms of fixed joints, and, for a revolute joint about a frame axis, the rows of its tree
 * transform that the rotation mixes (ⁱX_λ = (R_k(q)ᵀ, 0) X_tree: six entries computed from cos q and
 * sin q, three constant). Products by 0 and ±1 and sums with 0 are not emitted. The cosines and sines
 * are computed in the same module (trig-code.ts: WebAssembly has no trigonometric instruction;
 * fdlibm's algorithms, the engine's Math.cos and Math.sin bit for bit), the transforms of
 * free-flyers and spherical joints built from their quaternions in the code, and those of other
 * joints (prismatic along any axis, planar, helical, revolute about another axis) computed by
 * jcalc, as RNEA's own kinematics does; the recursions run in the generated code.
 * Code generation per model is what RobCoGen and Pinocchio's code generation do for C++.
 *
 * Same equations as rnea.ts (the JavaScript reference): a_i = ⁱX_λ a_λ + S_i q̈_i + v_i × S_i q̇_i,
 * f_i = I_i a_i + v_i ×* I_i v_i, τ_i = S_iᵀ f_i, f_λ += ⁱX_λᵀ f_i, gravity as a_0 = −a_g; the sums
 * may be taken in another order, so τ agrees to rounding (tested to 1e-12 relative). No external
 * wrenches, no flop counters (rnea counts them). Allocation free per call. The engine runs new
 * WebAssembly through its baseline compiler first and optimizes it after some calls (about a thousand
 * for a 96-link chain): the code pays for long runs.
 */
import type { Model } from '../model/model.ts';
import { assemble, canCompile } from '../sparse/compiled.ts';
import { Flops } from '../spatial/flops.ts';
import { add6, applyMotion, ChunkedCode, crossForce, crossMotion, inertiaMul, type Kind, kindsOf, transformOf, transposeApplyForce, type V6, writeTransforms } from './spatial-code.ts';
import { moduleTrig, type ModuleTrig, sinCosBody } from './trig-code.ts';

/** largest number of bodies the code is made for (its size grows linearly: about 2 kB per body) */
export const RNEA_CODE_LIMIT = 4000;

/** τ = RNEA(q, q̇, q̈) by code generated for one model (see the file's comment). @experimental */
export class GeneratedRnea {
  private readonly mem: Float64Array;
  private readonly run: () => void;
  private readonly tau: Float64Array;
  private readonly scratch = new Float64Array(12);
  private readonly fl = new Flops();
  private readonly trig: ModuleTrig;

  private constructor(
    readonly model: Model, bytes: Uint8Array<ArrayBuffer>, pages: number, entry: number,
    private readonly kinds: Kind[], private readonly o: { CS: number; XG: number; QD: number; QDD: number; TAU: number; QA: number },
  ) {
    const memory = new WebAssembly.Memory({ initial: pages });
    const ex = new WebAssembly.Instance(new WebAssembly.Module(bytes), { e: { m: memory } }).exports as Record<string, () => void>;
    this.run = ex[`f${entry}`];
    this.trig = moduleTrig(model, kinds, o.QA, ex[`f${entry + 1}`]);
    this.mem = new Float64Array(memory.buffer);
    this.tau = this.mem.subarray(o.TAU, o.TAU + model.nv);
  }

  /** The code for this model, or null (no WebAssembly, more than RNEA_CODE_LIMIT bodies). */
  static create(model: Model): GeneratedRnea | null {
    const nb = model.nb, nv = model.nv;
    if (!canCompile() || nb === 0 || nb > RNEA_CODE_LIMIT) return null;
    const kinds = kindsOf(model);
    // memory, in f64 slots: cos/sin, jcalc's transforms, q̇, q̈, τ, then v, a, f and the computed transform entries per body
    const CS = 0, XG = CS + 2 * nb, QD = XG + 12 * nb, QDD = QD + nv, TAU = QDD + nv, VS = TAU + nv, AS = VS + 6 * nb, FS = AS + 6 * nb, XS = FS + 6 * nb;
    const QA = XS + 12 * nb, slots = QA + nb;
    const pages = Math.max(1, Math.ceil((8 * slots) / 65536));
    const code = new ChunkedCode();
    let g = code.g;
    const split = () => { code.split(); g = code.g; };
    const hasKids = new Uint8Array(nb);
    for (let i = 0; i < nb; i++) if (model.parents[i] >= 0) hasKids[model.parents[i]] = 1;
    const a0: V6 = [0, 0, 0, -model.gravity[0], -model.gravity[1], -model.gravity[2]];
    /** body i's transform (E, r): constants, loads, or (forward pass) computed and stored */
    const transform = (i: number, first: boolean) => transformOf(g, model, kinds, { CS, XG, XS }, i, first);
    /** S_i x for the joint's DoFs x (loaded from `base`) */
    const sTimes = (i: number, base: number): V6 => {
      const S = model.S[i], ni = model.nvi[i];
      const x = Array.from({ length: ni }, (_, k) => g.load(base + model.iv[i] + k));
      return Array.from({ length: 6 }, (_, r) => g.dot(x.map((_, k) => S[6 * k + r]), x));
    };
    // forward pass
    for (let i = 0; i < nb; i++) {
      split();
      g.reset();
      const p = model.parents[i];
      const { E, r } = transform(i, true);
      const vJ = model.nvi[i] > 0 ? sTimes(i, QD) : [0, 0, 0, 0, 0, 0];
      let v: V6, c: V6;
      if (p < 0) { v = vJ; c = [0, 0, 0, 0, 0, 0]; } else {
        const vp = Array.from({ length: 6 }, (_, k) => g.load(VS + 6 * p + k));
        v = add6(g, applyMotion(g, E, r, vp), vJ);
        c = model.nvi[i] > 0 ? crossMotion(g, v, vJ) : [0, 0, 0, 0, 0, 0];
      }
      const ap = p < 0 ? a0 : Array.from({ length: 6 }, (_, k) => g.load(AS + 6 * p + k));
      let a = applyMotion(g, E, r, ap);
      if (model.nvi[i] > 0) a = add6(g, a, sTimes(i, QDD));
      a = add6(g, a, c);
      const I = model.I[i];
      const f = add6(g, inertiaMul(g, I, a), crossForce(g, v, inertiaMul(g, I, v)));
      if (hasKids[i]) for (let k = 0; k < 6; k++) { g.store(VS + 6 * i + k, v[k]); g.store(AS + 6 * i + k, a[k]); }
      for (let k = 0; k < 6; k++) g.store(FS + 6 * i + k, f[k]);
    }
    // backward pass
    for (let i = nb - 1; i >= 0; i--) {
      split();
      g.reset();
      const f = Array.from({ length: 6 }, (_, k) => g.load(FS + 6 * i + k));
      const S = model.S[i];
      for (let k = 0; k < model.nvi[i]; k++) g.store(TAU + model.iv[i] + k, g.dot(Array.from(S.subarray(6 * k, 6 * k + 6)), f));
      const p = model.parents[i];
      if (p < 0) continue;
      const { E, r } = transform(i, false);
      const up = transposeApplyForce(g, E, r, f);
      for (let k = 0; k < 6; k++) g.store(FS + 6 * p + k, g.add(g.load(FS + 6 * p + k), up[k]));
    }
    try {
      const bodies = code.finish();
      const bytes = assemble([{ bodies: [...bodies, sinCosBody(QA, CS, nb)], type: 1 }], pages);
      if (!WebAssembly.validate(bytes)) return null;
      return new GeneratedRnea(model, bytes, pages, bodies.length - 1, kinds, { CS, XG, QD, QDD, TAU, QA });
    } catch {
      return null;
    }
  }

  /**
   * τ = RNEA(q, q̇, q̈) (q̇ null: zero), as a view into the module's memory, valid until the next call.
   * Inputs are not validated (rnea's entry checks them).
   */
  compute(q: ArrayLike<number>, qd: ArrayLike<number> | null, qdd: ArrayLike<number>): Float64Array {
    const model = this.model, mem = this.mem, o = this.o;
    writeTransforms(model, this.kinds, mem, o, q, this.scratch, this.fl, this.trig);
    const nv = model.nv;
    if (qd === null) mem.fill(0, o.QD, o.QD + nv); else for (let k = 0; k < nv; k++) mem[o.QD + k] = qd[k];
    for (let k = 0; k < nv; k++) mem[o.QDD + k] = qdd[k];
    this.run();
    return this.tau;
  }
}
