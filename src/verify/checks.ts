/**
 * The quantities `verify` checks, each computed by one of our algorithms from a reference case's
 * inputs and returned in the reference's vector order. Add a check here to extend `verify`.
 */
import { aba, AbaWorkspace } from '../algorithms/aba.ts';
import { crba, CrbaWorkspace } from '../algorithms/crba.ts';
import { minvCholesky, MinvCholeskyWorkspace } from '../algorithms/minv.ts';
import { minvCarpentier, MinvCarpentierWorkspace } from '../algorithms/minv-carpentier.ts';
import { rnea, RneaWorkspace } from '../algorithms/rnea.ts';
import { LuForwardDynamics, LuInverseDynamics } from '../assembly/dynamics.ts';
import { MinvLu } from '../assembly/minv-lu.ts';
import type { Model } from '../model/model.ts';
import { matrixToReference, toReference, type ReferenceCase, type ReferenceLayout } from './reference.ts';

export interface VerifyContext {
  model: Model;
  layout: ReferenceLayout;
  /** the case's inputs in model order */
  q: Float64Array;
  v: Float64Array;
  a: Float64Array;
  tau: Float64Array;
  /** per-check workspaces, created on first use */
  state: Map<string, unknown>;
}

export interface VerifyCheck {
  name: string;
  /** tolerance 1e-10 + 1e-14·cond₂(M) (true) or 1e-10 (false) */
  conditioned: boolean;
  /** our value, in reference order (flattened row-major for matrices) */
  compute(ctx: VerifyContext): ArrayLike<number>;
  expected(cs: ReferenceCase): ArrayLike<number>;
}

function ws<T>(ctx: VerifyContext, key: string, make: () => T): T {
  let w = ctx.state.get(key) as T | undefined;
  if (w === undefined) { w = make(); ctx.state.set(key, w); }
  return w;
}

const vecOut = (ctx: VerifyContext, x: Float64Array) => toReference(new Float64Array(ctx.model.nv), x, ctx.layout.vToRef);
const matOut = (ctx: VerifyContext, A: Float64Array) => matrixToReference(new Float64Array(ctx.model.nv * ctx.model.nv), A, ctx.layout.vToRef);
const zeros = (ctx: VerifyContext) => ws(ctx, 'zeros', () => new Float64Array(ctx.model.nv));

export const CHECKS: VerifyCheck[] = [
  {
    name: 'rnea_tau', conditioned: false,
    compute: (ctx) => vecOut(ctx, rnea(ctx.model, ws(ctx, 'rnea', () => new RneaWorkspace(ctx.model)), ctx.q, ctx.v, ctx.a)),
    expected: (cs) => cs.rnea_tau,
  },
  {
    name: 'aba_ddq', conditioned: true,
    compute: (ctx) => vecOut(ctx, aba(ctx.model, ws(ctx, 'aba', () => new AbaWorkspace(ctx.model)), ctx.q, ctx.v, ctx.tau)),
    expected: (cs) => cs.aba_ddq,
  },
  {
    name: 'M', conditioned: false,
    compute: (ctx) => matOut(ctx, crba(ctx.model, ws(ctx, 'crba', () => new CrbaWorkspace(ctx.model)), ctx.q)),
    expected: (cs) => cs.M.flat(),
  },
  {
    name: 'Minv', conditioned: true,
    compute: (ctx) => matOut(ctx, minvCholesky(ctx.model, ws(ctx, 'minv', () => new MinvCholeskyWorkspace(ctx.model)), ctx.q)),
    expected: (cs) => cs.Minv.flat(),
  },
  {
    name: 'nle', conditioned: false,
    compute: (ctx) => vecOut(ctx, rnea(ctx.model, ws(ctx, 'rnea', () => new RneaWorkspace(ctx.model)), ctx.q, ctx.v, zeros(ctx))),
    expected: (cs) => cs.nle,
  },
  {
    name: 'gravity_torque', conditioned: false,
    compute: (ctx) => vecOut(ctx, rnea(ctx.model, ws(ctx, 'rnea', () => new RneaWorkspace(ctx.model)), ctx.q, null, zeros(ctx))),
    expected: (cs) => cs.gravity_torque,
  },
  {
    // τ from the inverse-dynamics solve of Nori's system (Nori (2017) §IV-D)
    name: 'lu_id', conditioned: false,
    compute: (ctx) => vecOut(ctx, ws(ctx, 'lu_id', () => new LuInverseDynamics(ctx.model)).solve(ctx.q, ctx.v, ctx.a)),
    expected: (cs) => cs.rnea_tau,
  },
  {
    // q̈ from the forward-dynamics solve of Nori's system (Nori (2017) §V-D)
    name: 'lu_fd', conditioned: true,
    compute: (ctx) => vecOut(ctx, ws(ctx, 'lu_fd', () => new LuForwardDynamics(ctx.model)).solve(ctx.q, ctx.v, ctx.tau)),
    expected: (cs) => cs.aba_ddq,
  },
  {
    // M⁻¹ by Carpentier's analytical algorithm (Carpentier (2018), Algorithm 1; Saccon et al. (2017), Table 9)
    name: 'minv', conditioned: true,
    compute: (ctx) => matOut(ctx, minvCarpentier(ctx.model, ws(ctx, 'minv_carpentier', () => new MinvCarpentierWorkspace(ctx.model)), ctx.q)),
    expected: (cs) => cs.Minv.flat(),
  },
  {
    // M⁻¹ by one factorization of Nori's forward-dynamics system and nv right-hand sides
    name: 'minv_lu', conditioned: true,
    compute: (ctx) => matOut(ctx, ws(ctx, 'minv_lu', () => new MinvLu(ctx.model)).compute(ctx.q)),
    expected: (cs) => cs.Minv.flat(),
  },
];
