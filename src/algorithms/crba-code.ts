/**
 * CRBA as WebAssembly generated per model (`GeneratedCrba.create(model)`), as rnea-code.ts does
 * RNEA: the composite inertias (rigid: their masses are constants of the model, their first and
 * second moments computed), then each column of M carried up the tree, straight-line, the motion
 * subspaces and the constant parts of the transforms folded in (an entry of M for a DoF along a frame
 * axis is ±one entry of F, no product). Same equations as crba.ts (the JavaScript reference,
 * RBDA Table 6.2); M agrees with it to rounding (tested). Its code grows with the number of
 * (column, ancestor) pairs: made up to CRBA_CODE_PAIRS of them (a 96-link chain has 4,656: generated 1.04×
 * Pinocchio's time, the JavaScript 3.5×). Allocation free per call; the engine optimizes the code
 * after some calls.
 */
import type { Model } from '../model/model.ts';
import { assemble, canCompile } from '../sparse/compiled.ts';
import { Flops } from '../spatial/flops.ts';
import { ChunkedCode, inertiaMul, type Kind, kindsOf, rigidCongruence, transformOf, transposeApplyForce, type V6, type Val, writeTransforms } from './spatial-code.ts';
import { moduleTrig, type ModuleTrig, sinCosBody } from './trig-code.ts';

/** largest number of (DoF, ancestor joint) pairs of the model for which the code is made */
export const CRBA_CODE_PAIRS = 5000;

/** M(q) = CRBA(q) by code generated for one model (see the file's comment). @experimental */
export class GeneratedCrba {
  private readonly mem: Float64Array;
  private readonly runs: Record<'full' | 'lower', () => void>;
  private readonly M: Float64Array;
  private readonly scratch = new Float64Array(12);
  private readonly fl = new Flops();
  private readonly trig: ModuleTrig;

  private constructor(
    readonly model: Model, bytes: Uint8Array<ArrayBuffer>, pages: number, entries: { full: number; lower: number; trig: number },
    private readonly kinds: Kind[], private readonly o: { CS: number; XG: number; M: number; QA: number },
  ) {
    const memory = new WebAssembly.Memory({ initial: pages });
    const ex = new WebAssembly.Instance(new WebAssembly.Module(bytes), { e: { m: memory } }).exports as Record<string, () => void>;
    this.runs = { full: ex[`f${entries.full}`], lower: ex[`f${entries.lower}`] };
    this.trig = moduleTrig(model, kinds, o.QA, ex[`f${entries.trig}`]);
    this.mem = new Float64Array(memory.buffer);
    this.M = this.mem.subarray(o.M, o.M + model.nv * model.nv);
  }

  /** The code for this model, or null (no WebAssembly, more than CRBA_CODE_PAIRS pairs). */
  static create(model: Model): GeneratedCrba | null {
    const nb = model.nb, nv = model.nv;
    if (!canCompile() || nb === 0) return null;
    let pairs = 0;
    for (let i = 0; i < nb; i++) for (let j = model.parents[i]; j >= 0; j = model.parents[j]) pairs += model.nvi[i];
    if (pairs > CRBA_CODE_PAIRS) return null;
    const kinds = kindsOf(model);
    const hasKids = new Uint8Array(nb);
    for (let i = 0; i < nb; i++) if (model.parents[i] >= 0) hasKids[model.parents[i]] = 1;
    // composite masses: constants of the model
    const mass = new Float64Array(nb);
    for (let i = 0; i < nb; i++) mass[i] = model.I[i][0];
    for (let i = nb - 1; i >= 0; i--) if (model.parents[i] >= 0) mass[model.parents[i]] += mass[i];
    let slot = 0;
    const take = (n: number) => { const s = slot; slot += n; return s; };
    const CS = take(2 * nb), XG = take(12 * nb), XS = take(12 * nb), IC = take(10 * nb), MO = take(nv * nv), QA = take(nb);
    const pages = Math.max(1, Math.ceil((8 * slot) / 65536));
    const bodies: { full: number; lower: number } = { full: 0, lower: 0 };
    const allBodies: Uint8Array[] = [];
    for (const triangle of ['full', 'lower'] as const) {
      const code = new ChunkedCode();
      let g = code.g;
      const next = () => { code.split(); g = code.g; g.reset(); };
      const transform = (i: number, first: boolean) => transformOf(g, model, kinds, { CS, XG, XS }, i, first);
      // the transforms of revolute joints about frame axes, kept for the passes below
      for (let i = 0; i < nb; i++) if ((kinds[i].t === 'axis' || kinds[i].t === 'quat') && model.parents[i] >= 0) { next(); transform(i, true); }
      // composite inertias, leaves up: I^c_λ += ⁱX_λᵀ I^c_i ⁱX_λ (inertiaTransformToParent's formulas; m a constant)
      const icOf = (i: number): Val[] => (hasKids[i] ? Array.from({ length: 10 }, (_, k) => g.load(IC + 10 * i + k)) : Array.from(model.I[i]));
      const started = new Uint8Array(nb);
      for (let i = nb - 1; i >= 0; i--) {
        const p = model.parents[i];
        if (p < 0) continue;
        next();
        const I = icOf(i);
        const { E, r } = transform(i, false);
        const t = rigidCongruence(g, E, r, I, mass[i]);
        for (let k = 0; k < 10; k++) {
          const s = IC + 10 * p + k;
          g.store(s, g.add(started[p] ? g.load(s) : model.I[p][k], t[k]));
        }
        started[p] = 1;
      }
      // the columns: F = I^c_i S_i[:, k] carried up the tree, M[col, r] = S_jᵀ F
      for (let i = 0; i < nb; i++) {
        const ni = model.nvi[i];
        for (let k = 0; k < ni; k++) {
          next();
          const col = model.iv[i] + k;
          const I = icOf(i), S = model.S[i];
          const s: V6 = Array.from({ length: 6 }, (_, rr) => S[6 * k + rr]);
          let F = inertiaMul(g, I, s);
          for (let k2 = k; k2 < ni; k2++) {
            const d = model.iv[i] + k2, x = g.dot(Array.from(S.subarray(6 * k2, 6 * k2 + 6)), F);
            g.store(MO + d * nv + col, x);
            if (triangle === 'full' && d !== col) g.store(MO + col * nv + d, x);
          }
          for (let j = i; model.parents[j] >= 0;) {
            const { E, r } = transform(j, false);
            F = transposeApplyForce(g, E, r, F);
            j = model.parents[j];
            const Sj = model.S[j];
            for (let k2 = 0; k2 < model.nvi[j]; k2++) {
              const rr = model.iv[j] + k2, x = g.dot(Array.from(Sj.subarray(6 * k2, 6 * k2 + 6)), F);
              g.store(MO + col * nv + rr, x);
              if (triangle === 'full') g.store(MO + rr * nv + col, x);
            }
          }
        }
      }
      const b = code.finish(allBodies.length);
      allBodies.push(...b);
      bodies[triangle] = allBodies.length - 1;
    }
    try {
      const bytes = assemble([{ bodies: [...allBodies, sinCosBody(QA, CS, nb)], type: 1 }], pages);
      if (!WebAssembly.validate(bytes)) return null;
      return new GeneratedCrba(model, bytes, pages, { ...bodies, trig: allBodies.length }, kinds, { CS, XG, M: MO, QA });
    } catch {
      return null;
    }
  }

  /**
   * M(q) (nv×nv row-major: both triangles, or with 'lower' the lower one, the entries the model's
   * tree leaves at zero at zero), a view into the module's memory valid until the next call. Inputs
   * are not validated (crba's entry checks them).
   */
  compute(q: ArrayLike<number>, triangle: 'full' | 'lower' = 'full'): Float64Array {
    const model = this.model, mem = this.mem, o = this.o;
    writeTransforms(model, this.kinds, mem, o, q, this.scratch, this.fl, this.trig);
    this.runs[triangle]();
    return this.M;
  }
}
