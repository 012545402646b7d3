/**
 * Each body of a tree placed in the world, for the algorithms in world coordinates (crba-world.ts;
 * Pinocchio's WORLD convention): its transform from the world ⁱX_0, its rigid inertia about the
 * world's origin in world axes, and its joint's motion subspace in world coordinates, by the
 * spatial kernels (xCompose, inertiaTransformToParent, xInvApplyMotion). (An ABA in world
 * coordinates on these was measured and not kept: its motion subspaces are dense in the world, so
 * U = I^A S costs 36 products where the local ABA reads one column for a joint about a frame axis;
 * the same flops and 1.3× the local ABA's time on chains of 6 to 384 links.)
 */
import type { Model } from '../model/model.ts';
import { jcalc } from '../model/jcalc.ts';
import type { Flops } from '../spatial/flops.ts';
import { inertiaTransformToParent } from '../spatial/inertia.ts';
import { xCompose, xInvApplyMotion } from '../spatial/transform.ts';

/** Where placeInWorld writes, made once per model: views of flat arrays, one per body or DoF. */
export class WorldPlacement {
  /** ⁱX_λ(i) of the last call, 12 per body (views of Xflat) */
  readonly Xup: Float64Array[];
  readonly Xflat: Float64Array;
  /** ⁱX_0: each body's transform from the world (E = ⁰R_iᵀ row-major, then r = ⁰p_i), 12 per body (views of X0flat) */
  readonly X0: Float64Array[];
  readonly X0flat: Float64Array;
  /** each body's rigid inertia about the world origin in world axes (m, h, Ī: 10 per body; views of Iflat) */
  readonly I: Float64Array[];
  readonly Iflat: Float64Array;
  /** ⁰S: each DoF's motion subspace column in world coordinates (6 per DoF; views of Sflat) */
  readonly S: Float64Array[];
  readonly Sflat: Float64Array;
  /** each DoF's motion subspace column in its body's coordinates (views of the model's S) */
  private readonly local: Float64Array[];

  constructor(readonly model: Model) {
    const nb = model.nb, nv = model.nv;
    const views = (flat: Float64Array, k: number, n: number) => Array.from({ length: n }, (_, i) => flat.subarray(k * i, k * i + k));
    this.Xflat = new Float64Array(12 * nb);
    this.Xup = views(this.Xflat, 12, nb);
    this.X0flat = new Float64Array(12 * nb);
    this.X0 = views(this.X0flat, 12, nb);
    this.Iflat = new Float64Array(10 * nb);
    this.I = views(this.Iflat, 10, nb);
    this.Sflat = new Float64Array(6 * nv);
    this.S = views(this.Sflat, 6, nv);
    this.local = [];
    for (let i = 0; i < nb; i++) for (let k = 0; k < model.nvi[i]; k++) this.local.push(model.S[i].subarray(6 * k, 6 * k + 6));
  }

  /**
   * For every body (parents first): ⁱX_λ = jcalc, ⁱX_0 = ⁱX_λ ^λX_0, the inertia ⁱX_0ᵀ I_i ⁱX_0, and
   * each DoF's ⁰S = ⁱX_0⁻¹ S. Flops into fl (jcalc's included). Allocation free.
   */
  place(q: ArrayLike<number>, fl: Flops): void {
    const model = this.model, nb = model.nb, parents = model.parents, ivs = model.iv, nvis = model.nvi;
    for (let i = 0; i < nb; i++) {
      jcalc(this.Xup[i], model, i, q, fl);
      const lam = parents[i], X0 = this.X0[i];
      if (lam < 0) X0.set(this.Xup[i]);
      else xCompose(X0, this.Xup[i], this.X0[lam], fl);
      inertiaTransformToParent(this.I[i], X0, model.I[i], fl);
      for (let k = 0; k < nvis[i]; k++) xInvApplyMotion(this.S[ivs[i] + k], X0, this.local[ivs[i] + k], fl);
    }
  }
}
