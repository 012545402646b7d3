/**
 * One study case: a model, a problem on it and a seeded random state with its inputs — everything
 * the solvers of that problem share. The problems (Nori 2017, §IV–VI):
 *   inverse-dynamics  τ from q, q̇, q̈, f^x                         (RNEA; LU of D_id, eq. 10)
 *   forward-dynamics  q̈ from q, q̇, τ, f^x                         (ABA; LU of D_fd, eq. 16)
 *   minv              M⁻¹(q)                                        (Carpentier; LU with nv right-hand sides)
 *   iwim              B̂ = M⁻¹B, every joint but a floating base actuated (IIM; LU with m + 1 right-hand sides)
 *   load-cells        Nori (2017) Figure 2: a fixed-base serial chain with load cells at both end links,
 *                     five of six components each (all but tz: the "slippery" variant, eq. 24), q̈ known
 *                     for joints 3..N−2, the last link's wrench unknown (eq. 17)
 *   estimation        a problem file (src/estimation), its own model
 *   id-derivatives    ∂τ/∂q, ∂τ/∂q̇, M at q, q̇, q̈        (Saccon et al. (2017) Tables 4–8 + CRBA; factor reuse on D_id)
 *   fd-derivatives    ∂q̈/∂q, ∂q̈/∂q̇, M⁻¹ at q, q̇, τ      (ABA, Tables 4–8, CRBA + Cholesky; factor reuse on D_fd)
 * Estimation states are synthesized (RNEA with known contact wrenches, ideal sensor readings). The
 * derivative problems have no external wrench (f^x = 0): the recursive algorithms of Saccon et al. (2017) take none.
 */
import { randomDynamicsState } from '../assembly/flops-report.ts';
import { forwardDynamicsProblem, inverseDynamicsProblem, classicalInputs } from '../assembly/problems.ts';
import { SymbolicSystem } from '../assembly/system.ts';
import { parseProblem, type ProblemFile } from '../estimation/problem.ts';
import { loadProblem } from '../node/problem-file.ts';
import { buildEstimationSystem, type EstimationSystem } from '../estimation/setup.ts';
import { idealReadings, inputsFromReadings, synthesize } from '../estimation/synthesize.ts';
import type { Model } from '../model/model.ts';
import { Rng } from '../model/rng.ts';
import { isDerivativeProblem, type ProblemKind } from './config.ts';

export interface StudyCase {
  kind: ProblemKind;
  model: Model;
  /** the model SPEC (or the problem file for estimation) */
  modelSpec: string;
  q: Float64Array;
  v: Float64Array;
  /** q̈ (inverse dynamics, estimation truth) */
  qdd: Float64Array;
  /** τ (forward dynamics) */
  tau: Float64Array;
  /** external wrenches per body (body coordinates) */
  fext: Float64Array[];
  /** the sparse system the LU solvers factorize: D_id (also for id-derivatives), D_fd (also for minv, iwim, fd-derivatives), or [D; D_Y] */
  sys: SymbolicSystem;
  /** its inputs y at this state (id, fd, load-cells, estimation) */
  y: Float64Array;
  es?: EstimationSystem;
  /** τ from RNEA with the true contact wrenches (estimation problems) */
  truthTau?: Float64Array;
}

/** The Figure 2 problem on a fixed-base serial chain (throws naming the model if it is not one). */
export function loadCellsProblem(model: Model, spec: string): ProblemFile {
  const nb = model.nb;
  if (model.floatingBase) throw new RangeError(`load-cells: model "${spec}" has a floating base; the chain of Figure 2 of Nori's 2017 paper is fixed`);
  if (nb < 4) throw new RangeError(`load-cells: model "${spec}" has ${nb} bodies; the Figure 2 layout needs at least 4`);
  for (let i = 0; i < nb; i++) {
    if (model.parents[i] !== i - 1 || model.nvi[i] !== 1) throw new RangeError(`load-cells: model "${spec}" is not a serial chain of 1-DoF joints (body "${model.bodyNames[i]}")`);
  }
  const comps = ['tx', 'ty', 'fx', 'fy', 'fz'];
  const last = model.bodyNames[nb - 1];
  const known = model.jointNames.slice(2, nb - 2);
  const sensors: object[] = [];
  if (known.length > 0) sensors.push({ name: 'qdd', type: 'joint_acceleration', joints: known });
  sensors.push({ name: 'cell1', type: 'force_torque', joint: model.jointNames[0], components: comps });
  sensors.push({ name: 'cell2', type: 'external_wrench', link: last, components: comps });
  return parseProblem(JSON.stringify({ model: spec, base: 'fixed', contacts: [last], sensors }), 'load-cells problem');
}

function estimationState(es: EstimationSystem, rng: Rng): Pick<StudyCase, 'q' | 'v' | 'qdd' | 'tau' | 'fext' | 'y' | 'truthTau'> {
  const model = es.model;
  const s = randomDynamicsState(model, rng);
  const contactBodies = es.contacts.map((c) => c.body);
  const fext = s.fext.map((f, i) => (contactBodies.includes(i) ? f : new Float64Array(6)));
  const balance = model.floatingBase && contactBodies.length > 0 ? contactBodies[contactBodies.length - 1] : undefined;
  const truth = synthesize(model, s.q, s.v, s.a, fext, balance);
  const y = inputsFromReadings(es, idealReadings(es, truth));
  return { q: s.q, v: s.v, qdd: s.a, tau: truth.tau, fext: truth.fext, y, truthTau: truth.tau };
}

/** Build the case of problem `kind` on `model` (not for 'estimation': see estimationCase). */
export function modelCase(kind: Exclude<ProblemKind, 'estimation'>, model: Model, modelSpec: string, seed: number): StudyCase {
  const rng = new Rng(seed);
  if (kind === 'load-cells') {
    const es = buildEstimationSystem(model, loadCellsProblem(model, modelSpec));
    return { kind, model, modelSpec, sys: es.sys, es, ...estimationState(es, rng) };
  }
  const s = randomDynamicsState(model, rng);
  const inverse = kind === 'inverse-dynamics' || kind === 'id-derivatives';
  const sys = new SymbolicSystem(model, inverse ? inverseDynamicsProblem(model) : forwardDynamicsProblem(model));
  const fext = isDerivativeProblem(kind) ? s.fext.map(() => new Float64Array(6)) : s.fext;
  const y = new Float64Array(sys.ny);
  if (inverse) classicalInputs(y, model, s.a, fext);
  else if (kind !== 'minv' && kind !== 'iwim') classicalInputs(y, model, s.tau, fext);
  return { kind, model, modelSpec, q: s.q, v: s.v, qdd: s.a, tau: s.tau, fext, sys, y };
}

/** The case of an estimation problem file (its model is the file's). */
export function estimationCase(file: string, seed: number): StudyCase {
  const { problem, model } = loadProblem(file);
  const es = buildEstimationSystem(model, problem);
  return { kind: 'estimation', model, modelSpec: file, sys: es.sys, es, ...estimationState(es, new Rng(seed)) };
}

/** τ (velocity order) from a solution d of an estimation or inverse-dynamics system. */
export function tauFromD(c: StudyCase, d: ArrayLike<number>, out = new Float64Array(c.model.nv)): Float64Array {
  const L = c.sys.layout, model = c.model;
  for (let i = 0; i < model.nb; i++) for (let k = 0; k < model.nvi[i]; k++) out[model.iv[i] + k] = d[L.tau[i] + k];
  return out;
}

/** q̈ (velocity order) from a solution d. */
export function qddFromD(c: StudyCase, d: ArrayLike<number>, out = new Float64Array(c.model.nv)): Float64Array {
  const L = c.sys.layout, model = c.model;
  for (let i = 0; i < model.nb; i++) for (let k = 0; k < model.nvi[i]; k++) out[model.iv[i] + k] = d[L.qdd[i] + k];
  return out;
}
