/**
 * B̂ = M⁻¹B by the extended unit force method (eUFM): Krög et al. (2024) §4, eqs. (14)–(15). The O(n)
 * forward dynamics (our ABA) runs m + 1 times: once without inputs,
 *   q̈_[0] = ABA(q, q̇, τ = 0, f^x = 0) = −M⁻¹h   (the free acceleration),
 * then once per input column c with u = e_c (a unit generalized force on an actuated DoF, or the
 * unit contact wrench on its body), and B̂[:, c] = q̈_[c] − q̈_[0]. Each run is a complete ABA
 * (kinematics included), as in the paper; the flops are the sum over the m + 1 runs plus the
 * contact wrenches and the differences.
 */
import { Flops } from '../spatial/flops.ts';
import type { Model } from '../model/model.ts';
import { abaUnchecked, AbaWorkspace } from './aba.ts';
import { contactWrenches, ContactWorkspace, type InputMatrix } from './iwim-inputs.ts';
import { checkConfiguration, checkForwardDynamicsDefined, checkVector } from './validate.ts';

/**
 * Workspace of `iwimUnitForce` (M⁻¹B by the extended unit force method, m + 1 ABA runs): made once
 * per model and input matrix, reused.
 */
export class IwimUnitForceWorkspace {
  readonly aba: AbaWorkspace;
  readonly contact: ContactWorkspace;
  /** q̈_[0]: the free acceleration −M⁻¹h (output, nv) */
  readonly qdd0: Float64Array;
  /** B̂ = M⁻¹B (output, nv×m row-major) */
  readonly Bhat: Float64Array;
  /** flops of the last call: m + 1 ABA runs, contact wrenches, differences */
  readonly flops = new Flops();
  /** inputs of one run: τ (nv) and f^x (one 6-vector per body), zero except for the unit input */
  readonly tau: Float64Array;
  readonly fext: Float64Array[];
  /** contact wrenches, 6 per column (body coordinates) */
  readonly W: Float64Array;

  constructor(readonly model: Model, readonly inputs: InputMatrix) {
    if (inputs.model !== model) throw new RangeError('IwimUnitForceWorkspace: the input matrix was compiled for another model');
    this.aba = new AbaWorkspace(model);
    this.contact = new ContactWorkspace(model);
    this.qdd0 = new Float64Array(model.nv);
    this.Bhat = new Float64Array(model.nv * inputs.m);
    this.tau = new Float64Array(model.nv);
    this.fext = Array.from({ length: model.nb }, () => new Float64Array(6));
    this.W = new Float64Array(6 * inputs.m);
  }
}

/** B̂ = M⁻¹B by m + 1 ABA runs, written into ws.Bhat (and q̈_[0] into ws.qdd0). Pass qd = null for q̇ = 0. */
export function iwimUnitForce(model: Model, ws: IwimUnitForceWorkspace, q: ArrayLike<number>, qd: ArrayLike<number> | null): Float64Array {
  if (ws.model !== model) throw new RangeError('iwimUnitForce: workspace was created for another model');
  checkConfiguration(model, q);
  if (qd !== null) checkVector(model, 'v', qd, false);
  checkForwardDynamicsDefined(model, 'M⁻¹B (unit force method)');
  const fl = ws.flops;
  fl.reset();
  const B = ws.inputs, nv = model.nv, m = B.m;
  const { tau, fext, Bhat, qdd0, W } = ws;
  const aw = ws.aba;
  // q̈_[0] (14)
  qdd0.set(abaUnchecked(model, aw, q, qd, tau, fext));
  fl.accumulate(aw.kin.flops).accumulate(aw.flops);
  if (B.nc > 0) contactWrenches(B, aw.kin.Xup, ws.contact, W, fl);
  for (let c = 0; c < m; c++) {
    // u = e_c
    const joint = c < B.nJoint;
    const b = B.body[c];
    if (joint) tau[B.dof[c]] = 1;
    else for (let k = 0; k < 6; k++) fext[b][k] = W[6 * c + k];
    const qdd = abaUnchecked(model, aw, q, qd, tau, fext);
    fl.accumulate(aw.kin.flops).accumulate(aw.flops);
    if (joint) tau[B.dof[c]] = 0;
    else fext[b].fill(0);
    // B̂[:, c] = q̈_[c] − q̈_[0]   (15)
    for (let r = 0; r < nv; r++) Bhat[r * m + c] = qdd[r] - qdd0[r];
    fl.add += nv;
  }
  return Bhat;
}
