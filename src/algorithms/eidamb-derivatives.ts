/**
 * [∂τ̄/∂q, ∂τ̄/∂v] = eidambDerivatives(model, ws, dws): the derivatives of the extended inverse
 * dynamics, Saccon et al. (2017) Tables 5–8 (each table in its own file: eidamb-d1.ts ∂̃/∂H,
 * eidamb-d2.ts ∂/∂s, eidamb-d3.ts ∂/∂v, eidamb-d4.ts ∂/∂r), computed from "all outputs and
 * intermediate variables of EIDAmb". The workspace, its column sets and buffers, is in
 * eidamb-derivatives-workspace.ts (re-exported here).
 */
import type { Model } from '../model/model.ts';
import { eidambD1, type BaseVelocity } from './eidamb-d1.ts';
import { eidambD2 } from './eidamb-d2.ts';
import { eidambD3 } from './eidamb-d3.ts';
import { eidambD4 } from './eidamb-d4.ts';
import type { EidambDerivativesWorkspace } from './eidamb-derivatives-workspace.ts';
import type { EidambWorkspace } from './eidamb.ts';

export { EidambDerivativesWorkspace } from './eidamb-derivatives-workspace.ts';

export interface EidambDerivativesOptions {
  /** the base-twist convention of the state: 'body' (default, sparsedyn's) or 'world' (the paper's ᴬv_A,0) */
  baseVelocity?: BaseVelocity;
}

/**
 * [∂τ̄/∂q, ∂τ̄/∂v] at the state of the last `eidamb` call (Tables 5–8 in turn), into dws.dtau_dq and
 * dws.dtau_dv. Allocation free.
 */
export function eidambDerivatives(model: Model, ws: EidambWorkspace, dws: EidambDerivativesWorkspace, opts: EidambDerivativesOptions = {}): void {
  if (ws.model !== model || dws.model !== model) throw new RangeError('eidambDerivatives: workspaces were created for another model');
  dws.dtau_dq.fill(0);
  dws.dtau_dv.fill(0);
  if (ws.floating) eidambD1(model, ws, dws, opts.baseVelocity ?? 'body');
  else dws.flopsD1.reset();
  eidambD2(model, ws, dws);
  if (ws.floating) eidambD3(model, ws, dws);
  else dws.flopsD3.reset();
  eidambD4(model, ws, dws);
}
