/**
 * CRBA in world coordinates: the joint-space inertia matrix M(q) as `crba` computes it (RBDA Table
 * 6.2), with the composite inertias and the motion subspaces expressed in the world frame, as
 * Pinocchio's `crba(…, Convention::WORLD)` does:
 *
 *   ⁱX_0 = ⁱX_λ ^λX_0,  ⁰I_i = ⁱX_0ᵀ I_i ⁱX_0,  ⁰S_i = ⁱX_0⁻¹ S_i         (world-frame.ts)
 *   ⁰I^c_i = ⁰I_i;  for i = N_B..1: ⁰I^c_λ += ⁰I^c_i
 *   for i: F = ⁰I^c_i ⁰S_i;  M_ji = ⁰S_jᵀ F for j = i and each ancestor of i
 *
 * The local algorithm carries F up the tree, one spatial transform per (column, ancestor) pair (42
 * flops); here F stays where it is, and each pair is one 6-term dot product (11 flops): on long
 * chains, whose pairs grow as n², the world form does a quarter of the work (a 384-link chain: 3.1
 * million flops against 0.8 million in the pairs). The composite inertias are plain sums (no
 * congruence), each body's inertia taken to the world once.
 *
 * Same matrix as `crba` to rounding (the sums are taken in another order; tested against it and
 * against RNEA: M q̈ = RNEA(q, 0, q̈) − RNEA(q, 0, 0)). With `triangle = 'lower'` only the lower
 * triangle (row ≥ column) is written, as `crba` does, and the strictly upper one is left as it was
 * (also on branched trees). In world coordinates the inertias grow as m |p|² with the distance |p|
 * of a body from the world's origin: M loses digits as the robot moves away from it (the humanoid's
 * M, against the local CRBA's: 2e-16 relative at the origin, 3e-12 100 m away, 2e-10 at 1 km).
 * Allocation free.
 */
import type { Model } from '../model/model.ts';
import { Flops } from '../spatial/flops.ts';
import { inertiaAdd, inertiaMulMotion } from '../spatial/inertia.ts';
import { isBranched } from './crba.ts';
import { checkConfiguration } from './validate.ts';
import { WorldPlacement } from './world-frame.ts';

/** Everything one world-frame CRBA call computes: made once per model and reused; `crbaWorld` writes M(q) into `M`. */
export class CrbaWorldWorkspace {
  /** each body's transform from the world, inertia about the world origin and motion subspaces in world coordinates, of the last call @internal */
  readonly world: WorldPlacement;
  /** ⁰I^c_i: composite rigid inertia of the subtree rooted at body i, about the world origin in world axes (m, h, Ī: 10 per body) */
  readonly Ic: Float64Array;
  /** each body's ⁰I^c_i (views of Ic) */
  readonly IcV: Float64Array[];
  /** F = ⁰I^c_i ⁰S of the column being written */
  readonly F = new Float64Array(6);
  /**
   * the DoF before each DoF up the tree: the previous DoF of the same joint, else the last DoF of the
   * nearest ancestor joint that has DoFs, else −1 (a column's ancestors' DoFs are walked by it)
   */
  readonly up: Int32Array;
  /** whether some body has two children or the model two roots (M then has structural zeros, cleared at each call) */
  readonly branched: boolean;
  /** M(q): joint-space inertia, nv×nv row-major (output) */
  readonly M: Float64Array;
  /** flops of the last call (jcalc included) */
  readonly flops = new Flops();

  constructor(readonly model: Model) {
    const nb = model.nb;
    this.world = new WorldPlacement(model);
    this.Ic = new Float64Array(10 * nb);
    this.branched = isBranched(model);
    this.IcV = Array.from({ length: nb }, (_, i) => this.Ic.subarray(10 * i, 10 * i + 10));
    this.up = new Int32Array(model.nv);
    for (let i = 0; i < nb; i++) {
      let last = -1;
      for (let j = model.parents[i]; j >= 0 && last < 0; j = model.parents[j]) if (model.nvi[j] > 0) last = model.iv[j] + model.nvi[j] - 1;
      for (let k = 0; k < model.nvi[i]; k++) this.up[model.iv[i] + k] = k > 0 ? model.iv[i] + k - 1 : last;
    }
    this.M = new Float64Array(model.nv * model.nv);
  }
}

/** M(q) by the composite-rigid-body algorithm in world coordinates, written into and returned as ws.M (both triangles, or the lower one). Allocation free. */
export function crbaWorld(model: Model, ws: CrbaWorldWorkspace, q: ArrayLike<number>, triangle: 'full' | 'lower' = 'full'): Float64Array {
  if (ws.model !== model) throw new RangeError('crbaWorld: workspace was created for another model');
  checkConfiguration(model, q);
  const fl = ws.flops;
  fl.reset();
  const nb = model.nb, nv = model.nv, parents = model.parents, ivs = model.iv, nvis = model.nvi;
  const IC = ws.Ic, SW = ws.world.Sflat, M = ws.M, F = ws.F, up = ws.up, both = triangle === 'full';
  // structural zeros (entries of two DoFs neither of which is above the other): cleared, in the triangle written
  if (ws.branched) {
    if (both) M.fill(0);
    else for (let r = 0; r < nv; r++) M.fill(0, r * nv, r * nv + r + 1);
  }
  let mul = 0, add = 0;
  // each body's transform from the world, inertia in the world (the composite inertias' start), motion subspaces in the world
  ws.world.place(q, fl);
  IC.set(ws.world.Iflat);
  // composite inertias: plain sums, from the leaves
  for (let i = nb - 1; i >= 0; i--) {
    const lam = parents[i];
    if (lam >= 0) inertiaAdd(ws.IcV[lam], ws.IcV[lam], ws.IcV[i], fl);
  }
  // columns: F = ⁰I^c_i ⁰S_col, then M_r,col = ⁰S_rᵀ F for the DoFs r of joint i (r ≥ col) and of each ancestor
  for (let i = 0; i < nb; i++) {
    const ni = nvis[i], iv = ivs[i];
    for (let k = 0; k < ni; k++) {
      const col = iv + k;
      inertiaMulMotion(F, ws.IcV[i], ws.world.S[col], fl);
      const n0 = F[0], n1 = F[1], n2 = F[2], f0 = F[3], f1 = F[4], f2 = F[5];
      // this joint's block: rows col … iv + ni − 1
      for (let r = col; r < iv + ni; r++) {
        const s = 6 * r;
        const val = SW[s] * n0 + SW[s + 1] * n1 + SW[s + 2] * n2 + SW[s + 3] * f0 + SW[s + 4] * f1 + SW[s + 5] * f2;
        M[r * nv + col] = val;
        if (both) M[col * nv + r] = val;
        mul += 6; add += 5;
      }
      // the ancestors' DoFs r < col (walked up the tree): row col of the lower triangle
      const rowAt = col * nv;
      let pairs = 0;
      for (let r = up[iv]; r >= 0; r = up[r]) {
        const s = 6 * r;
        const val = SW[s] * n0 + SW[s + 1] * n1 + SW[s + 2] * n2 + SW[s + 3] * f0 + SW[s + 4] * f1 + SW[s + 5] * f2;
        M[rowAt + r] = val;
        if (both) M[r * nv + col] = val;
        pairs++;
      }
      mul += 6 * pairs; add += 5 * pairs;
    }
  }
  fl.mul += mul; fl.add += add;
  return M;
}
