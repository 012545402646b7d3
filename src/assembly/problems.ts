/**
 * The two classical problems as measurement sets on Nori's system (Nori (2017)):
 * - inverse dynamics (§IV-B, eqs. 8–10): q̈ and f^x known, solve for a, f, τ;
 * - forward dynamics (§V-B, eq. 15): τ and f^x known, solve for a, f, q̈.
 * For a floating base, its six τ entries are the known base wrench in forward dynamics (zero for a
 * real robot) and an output of inverse dynamics (the wrench the base would need).
 * Inputs y are ordered: the joint vector (q̈ or τ, in velocity order), then f^x_i body by body.
 */
import type { Model } from '../model/model.ts';
import type { KnownScalar, ProblemSpec } from './system.ts';

function jointKnowns(model: Model, kind: 'qdd' | 'tau'): KnownScalar[] {
  const out: KnownScalar[] = [];
  for (let i = 0; i < model.nb; i++) for (let k = 0; k < model.nvi[i]; k++) out.push({ kind, body: i, offset: k });
  return out;
}

function externalKnowns(model: Model): KnownScalar[] {
  const out: KnownScalar[] = [];
  for (let i = 0; i < model.nb; i++) for (let k = 0; k < 6; k++) out.push({ kind: 'fx', body: i, offset: k });
  return out;
}

/** The inverse-dynamics problem of Nori's system: q̈ and every external wrench known, τ unknown. */
export function inverseDynamicsProblem(model: Model): ProblemSpec {
  return { name: 'inverse dynamics', known: [...jointKnowns(model, 'qdd'), ...externalKnowns(model)] };
}

/** The forward-dynamics problem of Nori's system: τ and every external wrench known, q̈ unknown. */
export function forwardDynamicsProblem(model: Model): ProblemSpec {
  return { name: 'forward dynamics', known: [...jointKnowns(model, 'tau'), ...externalKnowns(model)] };
}

/** y = [x (nv, velocity order); f^x_1 … f^x_N (6 each, body coordinates; zeros when omitted)] */
export function classicalInputs(out: Float64Array, model: Model, x: ArrayLike<number>, fext?: readonly ArrayLike<number>[]): Float64Array {
  for (let k = 0; k < model.nv; k++) out[k] = x[k];
  let o = model.nv;
  for (let i = 0; i < model.nb; i++) {
    const f = fext?.[i];
    for (let k = 0; k < 6; k++) out[o++] = f ? f[k] : 0;
  }
  return out;
}
