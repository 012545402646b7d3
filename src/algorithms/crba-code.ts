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
import { ChunkedCode, inertiaMul, type Kind, kindsOf, transformOf, transposeApplyForce, type V6, type Val, writeTransforms } from './spatial-code.ts';

/** largest number of (DoF, ancestor joint) pairs of the model for which the code is made */
export const CRBA_CODE_PAIRS = 5000;

/** M(q) = CRBA(q) by code generated for one model (see the file's comment). @experimental */
export class GeneratedCrba {
  private readonly mem: Float64Array;
  private readonly runs: Record<'full' | 'lower', () => void>;
  private readonly M: Float64Array;
  private readonly scratch = new Float64Array(12);
  private readonly fl = new Flops();

  private constructor(
    readonly model: Model, bytes: Uint8Array<ArrayBuffer>, pages: number, entries: { full: number; lower: number },
    private readonly kinds: Kind[], private readonly o: { CS: number; XG: number; M: number },
  ) {
    const memory = new WebAssembly.Memory({ initial: pages });
    const ex = new WebAssembly.Instance(new WebAssembly.Module(bytes), { e: { m: memory } }).exports as Record<string, () => void>;
    this.runs = { full: ex[`f${entries.full}`], lower: ex[`f${entries.lower}`] };
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
    const CS = take(2 * nb), XG = take(12 * nb), XS = take(12 * nb), IC = take(10 * nb), MO = take(nv * nv);
    const pages = Math.max(1, Math.ceil((8 * slot) / 65536));
    const bodies: { full: number; lower: number } = { full: 0, lower: 0 };
    const allBodies: Uint8Array[] = [];
    for (const triangle of ['full', 'lower'] as const) {
      const code = new ChunkedCode();
      let g = code.g;
      const next = () => { code.split(); g = code.g; g.reset(); };
      const transform = (i: number, first: boolean) => transformOf(g, model, kinds, { CS, XG, XS }, i, first);
      // the transforms of revolute joints about frame axes, kept for the passes below
      for (let i = 0; i < nb; i++) if (kinds[i].t === 'axis' && model.parents[i] >= 0) { next(); transform(i, true); }
      // composite inertias, leaves up: I^c_λ += ⁱX_λᵀ I^c_i ⁱX_λ (inertiaTransformToParent's formulas; m a constant)
      const icOf = (i: number): Val[] => (hasKids[i] ? Array.from({ length: 10 }, (_, k) => g.load(IC + 10 * i + k)) : Array.from(model.I[i]));
      const started = new Uint8Array(nb);
      for (let i = nb - 1; i >= 0; i--) {
        const p = model.parents[i];
        if (p < 0) continue;
        next();
        const I = icOf(i);
        const { E, r } = transform(i, false);
        const t = rigidToParent(g, E, r, I, mass[i]);
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
      const bytes = assemble([{ bodies: allBodies, type: 1 }], pages);
      if (!WebAssembly.validate(bytes)) return null;
      return new GeneratedCrba(model, bytes, pages, bodies, kinds, { CS, XG, M: MO });
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
    writeTransforms(model, this.kinds, mem, o, q, this.scratch, this.fl);
    this.runs[triangle]();
    return this.M;
  }
}

/** the rigid inertia ⁱX_λᵀ I ⁱX_λ in the parent's coordinates (inertia.ts's inertiaTransformToParent; m constant, nonzero) */
function rigidToParent(g: ChunkedCode['g'], E: Val[], r: Val[], I: Val[], m: number): Val[] {
  const [e0, e1, e2, e3, e4, e5, e6, e7, e8] = E, [r0, r1, r2] = r;
  const [, h0, h1, h2, s0, s1, s2, s3, s4, s5] = I;
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
