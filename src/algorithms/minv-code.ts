/**
 * M⁻¹(q) by Carpentier's analytical inverse of the joint-space inertia matrix (Carpentier (2018),
 * Algorithm 1) as WebAssembly generated per model (`GeneratedMinv.create(model)`), in body
 * coordinates as minv-carpentier.ts's 'local' passes (the JavaScript reference): pass 2 from the
 * leaves, U_i = I^A_i S_i, D_i⁻¹, M⁻¹[i, subtree] = −D_i⁻¹ S_iᵀ F_i, F_λ = ⁱX_λᵀ (F_i + U_i M⁻¹[i, ·]),
 * I^A_λ += ⁱX_λᵀ I^a_i ⁱX_λ; pass 3 from the root, M⁻¹[i, j] −= (U_i D_i⁻¹)ᵀ ⁱX_λ P_λ[:, j],
 * P_i[:, j] = ⁱX_λ P_λ[:, j] + S_i M⁻¹[i, j]; the upper triangle, mirrored on request. Straight-line,
 * the motion subspaces, inertias and constant parts of the transforms folded in (spatial-code.ts);
 * free-flyers' and spherical joints' transforms from their quaternions in the code; cos q and sin q
 * and other joints' transforms from JavaScript (jcalc). M⁻¹ agrees with the reference
 * to rounding (tested). Its code grows with the (row, column) pairs of the passes: made up to
 * MINV_CODE_PAIRS of them. Allocation free per call; the engine optimizes the code after some calls.
 *
 * Where every joint below a root has one degree of freedom (a root's may have more: a floating
 * base), `GeneratedMinv` takes the other form (minv-columns-code.ts: Pinocchio's world-frame passes,
 * the column work as loops), measured faster (µs per call, best of 9 rounds, alternating, after
 * 3,000 calls; this form → that one). Fixed bases: chain:6 0.44 → 0.42, chain:24 6.8 → 3.8, chain:40
 * 16 → 7.2, a 30-body random tree 13.3 → 8.6, panda 1.26 → 0.85, ur5 0.46 → 0.44, talos_reduced 6.1 →
 * 4.6, simple_humanoid 4.6 → 3.6, kinova 0.66 → 0.63; go1 (four legs from the trunk, 12 joints)
 * 0.66 → 0.69. Floating bases (another run, the machine slower): chain:24 8.6 → 4.9, chain:40 21.9 →
 * 9.5, talos_reduced 10.8 → 6.4, simple_humanoid 7.9 → 5.0, panda 2.3 → 1.36, kinova 1.83 → 1.12,
 * go1 2.63 → 2.2, solo12 2.63 → 2.13; chain:6 0.74 → 0.80 and ur5 0.79 → 0.87 (the root's six rows
 * one after the other outweigh the rest). This one stays for multi-DoF joints below the root.
 */
import type { Model } from '../model/model.ts';
import { assemble, canCompile } from '../sparse/compiled.ts';
import { Flops } from '../spatial/flops.ts';
import { MinvColumnsCode } from './minv-columns-code.ts';
import { addCongruence, articulatedInertiaOf, articulatedLess, applyMotion, ChunkedCode, type Emitter, inertiaMatrix, jointInertia, type Kind, kindsOf, SYM, transformOf, transposeApplyForce, type V6, type Val, writeTransforms } from './spatial-code.ts';
import { moduleTrig, type ModuleTrig, sinCosBody } from './trig-code.ts';

/** largest number of (DoF, column) pairs of the passes for which the code is made */
export const MINV_CODE_PAIRS = 2500;

/**
 * M⁻¹(q) by code generated for one model: where every joint below a root has one degree of
 * freedom, the world-frame passes with their column work as loops (minv-columns-code.ts, measured
 * faster on all but the smallest floating models), otherwise the straight-line code of this file
 * (see its comment). @experimental
 */
export class GeneratedMinv {
  private constructor(readonly model: Model, private readonly code: MinvColumnsCode | StraightMinv, readonly form: 'columns' | 'straight') {}

  /**
   * The code for this model, or null (no WebAssembly; a body whose forward dynamics is not defined,
   * bodies not numbered depth first; a joint with several degrees of freedom below a root and more
   * than MINV_CODE_PAIRS pairs).
   */
  static create(model: Model): GeneratedMinv | null {
    const c = MinvColumnsCode.create(model);
    if (c !== null) return new GeneratedMinv(model, c, 'columns');
    const s = StraightMinv.create(model);
    return s === null ? null : new GeneratedMinv(model, s, 'straight');
  }

  /**
   * M⁻¹(q) (nv×nv row-major: both triangles, or with 'upper' the upper one), a view into the
   * module's memory valid until the next call. Inputs are not validated (minvCarpentier's entry
   * checks them).
   */
  compute(q: ArrayLike<number>, triangle: 'full' | 'upper' = 'full'): Float64Array {
    return this.code.compute(q, triangle);
  }
}

/** the straight-line code (see the file's comment) */
class StraightMinv {
  private readonly mem: Float64Array;
  private readonly runs: Record<'full' | 'upper', () => void>;
  private readonly Minv: Float64Array;
  private readonly scratch = new Float64Array(12);
  private readonly fl = new Flops();
  private readonly trig: ModuleTrig;

  private constructor(
    readonly model: Model, bytes: Uint8Array<ArrayBuffer>, pages: number, entries: { full: number; upper: number; trig: number },
    private readonly kinds: Kind[], private readonly o: { CS: number; XG: number; MI: number; QA: number },
  ) {
    const memory = new WebAssembly.Memory({ initial: pages });
    const ex = new WebAssembly.Instance(new WebAssembly.Module(bytes), { e: { m: memory } }).exports as Record<string, () => void>;
    this.runs = { full: ex[`f${entries.full}`], upper: ex[`f${entries.upper}`] };
    this.trig = moduleTrig(model, kinds, o.QA, ex[`f${entries.trig}`]);
    this.mem = new Float64Array(memory.buffer);
    this.Minv = this.mem.subarray(o.MI, o.MI + model.nv * model.nv);
  }

  /**
   * The code for this model, or null (no WebAssembly, more than MINV_CODE_PAIRS pairs, bodies not
   * numbered depth first, a body whose forward dynamics is not defined).
   */
  static create(model: Model): StraightMinv | null {
    const nb = model.nb, nv = model.nv;
    if (!canCompile() || nb === 0 || model.singularBodies.length > 0) return null;
    // subtrees as contiguous column ranges (depth-first numbering), root trees' ends
    const last = Int32Array.from({ length: nb }, (_, i) => i);
    for (let i = nb - 1; i >= 0; i--) { const p = model.parents[i]; if (p >= 0 && last[i] > last[p]) last[p] = last[i]; }
    const size = new Int32Array(nb).fill(1);
    for (let i = nb - 1; i >= 0; i--) if (model.parents[i] >= 0) size[model.parents[i]] += size[i];
    const ivEnd = new Int32Array(nb), rootEnd = new Int32Array(nb);
    for (let i = 0; i < nb; i++) {
      if (last[i] - i + 1 !== size[i]) return null;
      const e = last[i] + 1;
      ivEnd[i] = e < nb ? model.iv[e] : nv;
      const p = model.parents[i];
      rootEnd[i] = p < 0 ? ivEnd[i] : rootEnd[p];
    }
    let pairs = 0;
    for (let i = 0; i < nb; i++) pairs += model.nvi[i] * ((ivEnd[i] - model.iv[i]) + (rootEnd[i] - model.iv[i]));
    if (pairs > MINV_CODE_PAIRS) return null;
    const kinds = kindsOf(model);
    const hasKids = new Uint8Array(nb);
    for (let i = 0; i < nb; i++) if (model.parents[i] >= 0) hasKids[model.parents[i]] = 1;
    let slot = 0;
    const take = (n: number) => { const s = slot; slot += n; return s; };
    const CS = take(2 * nb), XG = take(12 * nb), XS = take(12 * nb), IA = take(21 * nb), FF = take(6 * nv), MI = take(nv * nv);
    const UD = new Int32Array(nb), PP = new Int32Array(nb);
    for (let i = 0; i < nb; i++) { UD[i] = take(6 * model.nvi[i]); PP[i] = take(hasKids[i] ? 6 * (rootEnd[i] - model.iv[i]) : 0); }
    const QA = take(nb);
    const pages = Math.max(1, Math.ceil((8 * slot) / 65536));
    const entries = { full: 0, upper: 0 };
    const all: Uint8Array[] = [];
    for (const triangle of ['upper', 'full'] as const) {
      const code = new ChunkedCode();
      let g: Emitter = code.g;
      const next = () => { code.split(); g = code.g; g.reset(); };
      const transform = (i: number, first: boolean) => transformOf(g, model, kinds, { CS, XG, XS }, i, first);
      const S = (i: number, r: number, k: number) => model.S[i][6 * k + r];
      const loads = (base: number, n: number) => Array.from({ length: n }, (_, k) => g.load(base + k));
      for (let i = 0; i < nb; i++) if ((kinds[i].t === 'axis' || kinds[i].t === 'quat') && model.parents[i] >= 0) { next(); transform(i, true); }
      // I^A of a body with children starts as its rigid inertia
      next();
      for (let i = 0; i < nb; i++) if (hasKids[i]) { const M = inertiaMatrix(model.I[i]); for (let r = 0; r < 6; r++) for (let c = r; c < 6; c++) g.store(IA + 21 * i + SYM[6 * r + c], M[6 * r + c]); }
      // pass 2
      for (let i = nb - 1; i >= 0; i--) {
        next();
        const ni = model.nvi[i], iv = model.iv[i], e = ivEnd[i], p = model.parents[i];
        const M = articulatedInertiaOf(g, model, i, hasKids[i] === 1, IA + 21 * i);
        let U: Val[] = [], Dinv: Val[] = [], UDv: Val[] = [];
        if (ni > 0) {
          ({ U, Dinv } = jointInertia(g, M, model.S[i], ni));
          for (let a = 0; a < ni; a++) for (let b = 0; b < ni; b++) g.store(MI + (iv + a) * nv + iv + b, Dinv[ni * a + b]);
          // M⁻¹[i, j] = −D⁻¹ Sᵀ F_j on the strict subtree
          for (let j = iv + ni; j < e; j++) {
            const F = loads(FF + 6 * j, 6);
            const t = Array.from({ length: ni }, (_, k) => g.dot([0, 1, 2, 3, 4, 5].map((r) => S(i, r, k)), F));
            for (let a = 0; a < ni; a++) g.store(MI + (iv + a) * nv + j, g.neg(g.dot(Dinv.slice(ni * a, ni * a + ni), t)));
          }
          UDv = new Array(6 * ni);
          for (let b = 0; b < ni; b++) for (let r = 0; r < 6; r++) UDv[6 * b + r] = g.dot(Array.from({ length: ni }, (_, c) => U[6 * c + r]), Array.from({ length: ni }, (_, c) => Dinv[ni * c + b]));
          if (p >= 0) for (let k = 0; k < 6 * ni; k++) g.store(UD[i] + k, UDv[k]);
        }
        if (p < 0) continue;
        // F_λ[:, j] = ⁱX_λᵀ (F_i[:, j] + U_i M⁻¹[i, j]) on the subtree (F_i = 0 on i's own columns)
        const { E, r } = transform(i, false);
        for (let j = iv; j < e; j++) {
          const own = j < iv + ni;
          let f: V6 = own ? [0, 0, 0, 0, 0, 0] : loads(FF + 6 * j, 6);
          if (ni > 0) {
            const m = loads(MI + iv * nv + j, 1);
            for (let a = 1; a < ni; a++) m.push(g.load(MI + (iv + a) * nv + j));
            f = f.map((x, rr) => g.add(x, g.dot(Array.from({ length: ni }, (_, a) => U[6 * a + rr]), m)));
          }
          const up = transposeApplyForce(g, E, r, f);
          for (let k = 0; k < 6; k++) g.store(FF + 6 * j + k, up[k]);
        }
        // I^a = I^A − U D⁻¹ Uᵀ,  I^A_λ += Xᵀ I^a X
        const Ia = ni > 0 ? articulatedLess(g, M, UDv, U, ni) : M.slice();
        addCongruence(g, E, r, Ia, IA + 21 * p);
      }
      // pass 3
      for (let i = 0; i < nb; i++) {
        const ni = model.nvi[i], iv = model.iv[i], end = rootEnd[i], p = model.parents[i];
        if (ni === 0 && !hasKids[i]) continue;
        next();
        const E_r = p >= 0 ? transform(i, false) : null;
        const UDv = p >= 0 && ni > 0 ? loads(UD[i], 6 * ni) : [];
        for (let j = iv; j < end; j++) {
          let t: V6 = [0, 0, 0, 0, 0, 0];
          const m: Val[] = [];
          // outside i's subtree the passes start M⁻¹[i, j] at zero (pass 2 writes the subtree's)
          for (let a = 0; a < ni; a++) m.push(j >= ivEnd[i] ? 0 : g.load(MI + (iv + a) * nv + j));
          if (p >= 0) {
            t = applyMotion(g, E_r!.E, E_r!.r, loads(PP[p] + 6 * (j - model.iv[p]), 6));
            for (let a = 0; a < ni; a++) {
              m[a] = g.sub(m[a], g.dot(UDv.slice(6 * a, 6 * a + 6), t));
              g.store(MI + (iv + a) * nv + j, m[a]);
            }
          }
          if (!hasKids[i]) continue;
          for (let rr = 0; rr < 6; rr++) g.store(PP[i] + 6 * (j - iv) + rr, g.add(t[rr], g.dot(Array.from({ length: ni }, (_, a) => S(i, rr, a)), m)));
        }
      }
      if (triangle === 'full') {
        for (let r = 0; r < nv; r++) {
          if (r % 16 === 0) next();
          for (let c = r + 1; c < nv; c++) g.store(MI + c * nv + r, g.load(MI + r * nv + c));
        }
      }
      const b = code.finish(all.length);
      all.push(...b);
      entries[triangle] = all.length - 1;
    }
    try {
      const bytes = assemble([{ bodies: [...all, sinCosBody(QA, CS, nb)], type: 1 }], pages);
      if (!WebAssembly.validate(bytes)) return null;
      return new StraightMinv(model, bytes, pages, { ...entries, trig: all.length }, kinds, { CS, XG, MI, QA });
    } catch {
      return null;
    }
  }

  /**
   * M⁻¹(q) (nv×nv row-major: both triangles, or with 'upper' the upper one), a view into the
   * module's memory valid until the next call. Inputs are not validated (minvCarpentier's entry
   * checks them).
   */
  compute(q: ArrayLike<number>, triangle: 'full' | 'upper' = 'full'): Float64Array {
    const model = this.model, mem = this.mem, o = this.o;
    writeTransforms(model, this.kinds, mem, o, q, this.scratch, this.fl, this.trig);
    this.runs[triangle]();
    return this.Minv;
  }
}
