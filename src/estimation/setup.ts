/**
 * From a problem file and its model to the assembled estimation system [D; D_Y] d + [b; b_Y] = 0
 * (Nori (2017) eq. 17): the Newton–Euler rows, a zero external wrench on every body without a
 * contact (known f^x rows), exact constraints (unactuated joints: τ = 0; contact components known
 * to be zero), and one measurement block per sensor. A gyroscope measures angular velocity, which
 * is kinematics (it enters through q̇), not an unknown of d: it adds no row, and is reported.
 */
import type { KnownScalar, MeasurementBlock } from '../assembly/system.ts';
import { SymbolicSystem } from '../assembly/system.ts';
import { VariableLayout } from '../assembly/variables.ts';
import type { Model } from '../model/model.ts';
import { Flops } from '../spatial/flops.ts';
import { xCompose, xFromRotTrans } from '../spatial/transform.ts';
import { mat3Transpose, rotFromRpy } from '../spatial/vec3.ts';
import { forceTransformMatrix, LinearBlock, LinkAccelerationBlock } from './blocks.ts';
import { ProblemError, SPATIAL_ACCEL_COMPONENTS, WRENCH_COMPONENTS, type Origin, type PriorSpec, type ProblemFile, type SensorSpec } from './problem.ts';

/** A contact of an estimation system: its link, its body and the link frame relative to the body. */
export interface ContactInfo {
  link: string;
  body: number;
  /** ᴸX_i: contact link frame relative to its body */
  X: Float64Array;
}

/**
 * A sensor of an estimation system: its specification, its measurement block and the names of its
 * readings among the system's inputs.
 */
export interface SensorInfo {
  spec: SensorSpec;
  /** the block's index in sys.blocks, or −1 for a gyroscope */
  block: number;
  /** input names of its readings, in order */
  inputs: string[];
}

/**
 * An estimation problem assembled on a model: the system [D; D_Y] d + [b; b_Y] = 0 with its
 * contacts, sensors and notes.
 */
export interface EstimationSystem {
  model: Model;
  problem: ProblemFile;
  sys: SymbolicSystem;
  contacts: ContactInfo[];
  sensors: SensorInfo[];
  /** messages about the problem (e.g. gyroscopes) */
  notes: string[];
  /** Gaussian priors on unknowns: extra rows `coef·d − mean` with the prior's variance */
  priors: PriorInfo[];
}

/** A prior of an estimation system: its block, the names of its rows and their means. */
export interface PriorInfo {
  spec: PriorSpec;
  /** the block's index in sys.blocks */
  block: number;
  /** what each row is a prior on (tau[joint], qdd[joint], w[link].tx …) */
  names: string[];
  /** the mean of each row (the block's inputs) */
  mean: Float64Array;
}

/** ˢX_L from an origin (URDF convention: R = rpy rotation maps sensor to link coordinates). */
export function originTransform(o: Origin): Float64Array {
  const R = rotFromRpy(new Float64Array(9), o.rpy[0], o.rpy[1], o.rpy[2]);
  return xFromRotTrans(new Float64Array(12), mat3Transpose(new Float64Array(9), R), o.xyz);
}

/** The joints a joint sensor reads: a list, "all" (every joint with DoF) or "actuated" (all but a floating base). */
export function sensorJoints(model: Model, s: SensorSpec): number[] {
  const moving = model.movingJoints();
  if (s.joints === 'all') return moving.map((j) => j.body);
  if (s.joints === 'actuated') return moving.filter((j) => j.type !== 'floating').map((j) => j.body);
  return (s.joints ?? []).map((name) => {
    if (!model.hasJoint(name)) throw new ProblemError(`sensor "${s.name}": joint "${name}" is not a joint of model "${model.name}"`);
    const i = model.joint(name);
    if (model.nvi[i] === 0) throw new ProblemError(`sensor "${s.name}": joint "${name}" is fixed (no DoF to measure)`);
    return i;
  });
}

function linkFrame(model: Model, link: string, what: string): { body: number; X: Float64Array } {
  if (!model.hasFrame(link)) throw new ProblemError(`${what}: link "${link}" is not a link of model "${model.name}"`);
  const f = model.frame(link);
  if (f.body < 0) throw new ProblemError(`${what}: link "${link}" is welded to the fixed world (it has no unknowns)`);
  return { body: f.body, X: f.X };
}

const jointDofName = (model: Model, i: number, k: number) =>
  model.nvi[i] === 1 ? model.jointNames[i] : `${model.jointNames[i]}[${k}]`;

/**
 * Assemble a problem on its model: the Newton–Euler rows, the known zero wrenches, the constraints
 * (unactuated joints, slippery contact components) and one measurement block per sensor. Throws
 * ProblemError naming a sensor, joint or link that does not fit the model.
 */
export function buildEstimationSystem(model: Model, problem: ProblemFile): EstimationSystem {
  const L = new VariableLayout(model);
  const fl = new Flops();
  const notes: string[] = [...(problem.notes ?? [])];
  // contacts
  const contactOfBody = new Map<number, string>();
  const contacts: ContactInfo[] = problem.contacts.map((c) => {
    const { body, X } = linkFrame(model, c.link, `contact "${c.link}"`);
    const other = contactOfBody.get(body);
    if (other !== undefined) {
      throw new ProblemError(`contacts "${other}" and "${c.link}" are on the same body "${model.bodyNames[body]}": one unknown wrench per body; list one of them`);
    }
    contactOfBody.set(body, c.link);
    return { link: c.link, body, X };
  });
  const known: KnownScalar[] = [];
  for (let i = 0; i < model.nb; i++) {
    if (!contactOfBody.has(i)) for (let k = 0; k < 6; k++) known.push({ kind: 'fx', body: i, offset: k });
  }
  const blocks: MeasurementBlock[] = [];
  // exact constraints: unactuated joints
  const unactuated = problem.unactuated ?? (model.floatingBase ? [model.jointNames[0]] : []);
  for (const name of unactuated) {
    if (!model.hasJoint(name)) throw new ProblemError(`unactuated: joint "${name}" is not a joint of model "${model.name}"`);
    const i = model.joint(name);
    const rows: string[] = [];
    const entries = [];
    for (let k = 0; k < model.nvi[i]; k++) {
      rows.push(`unactuated[${jointDofName(model, i, k)}]`);
      entries.push({ row: k, col: L.tau[i] + k, val: 1 });
    }
    if (rows.length) blocks.push(new LinearBlock(`unactuated[${name}]`, rows, [], entries, problem.unactuated_variance));
  }
  // exact constraints: contact components known to be zero (in the contact link frame)
  for (const [k, c] of problem.contacts.entries()) {
    if (c.zero.length === 0) continue;
    const info = contacts[k];
    const F = forceTransformMatrix(info.X);
    const entries = [];
    for (const [r, comp] of c.zero.entries()) {
      const row = WRENCH_COMPONENTS.indexOf(comp as never);
      for (let j = 0; j < 6; j++) entries.push({ row: r, col: L.fx[info.body] + j, val: F[6 * row + j] });
    }
    blocks.push(new LinearBlock(`contact[${c.link}].zero`, c.zero.map((z) => `zero[${c.link}].${z}`), [], entries, c.zero_variance));
  }
  // sensors
  const sensors: SensorInfo[] = [];
  for (const s of problem.sensors) {
    const where = `sensor "${s.name}"`;
    if (s.type === 'gyroscope') {
      linkFrame(model, s.link!, where);
      notes.push(`${where} (gyroscope) measures angular velocity: kinematics, which enters through q̇, not an unknown of d; it adds no equation (its readings can supply the base's angular velocity in a log)`);
      sensors.push({ spec: s, block: -1, inputs: s.components.map((c) => `${s.name}.${c}`) });
      continue;
    }
    let block: MeasurementBlock;
    let inputs: string[];
    if (s.type === 'joint_acceleration' || s.type === 'joint_torque') {
      const kind = s.type === 'joint_acceleration' ? L.qdd : L.tau;
      const entries = [];
      inputs = [];
      for (const i of sensorJoints(model, s)) {
        for (let k = 0; k < model.nvi[i]; k++) {
          entries.push({ row: inputs.length, col: kind[i] + k, val: 1 });
          inputs.push(`${s.name}.${jointDofName(model, i, k)}`);
        }
      }
      if (inputs.length === 0) throw new ProblemError(`${where} reads no joint`);
      block = new LinearBlock(s.name, inputs.map((n) => `y[${n}]`), inputs, entries, s.variance);
    } else if (s.type === 'force_torque' || s.type === 'external_wrench') {
      let body: number, Xl: Float64Array, col: number;
      if (s.type === 'force_torque') {
        if (!model.hasJoint(s.joint!)) throw new ProblemError(`${where}: joint "${s.joint}" is not a joint of model "${model.name}" (a sensor in a URDF fixed joint keeps that joint: load the model through the problem file)`);
        body = model.joint(s.joint!);
        Xl = new Float64Array(12); Xl[0] = 1; Xl[4] = 1; Xl[8] = 1;
        col = L.f[body];
      } else {
        const lf = linkFrame(model, s.link!, where);
        body = lf.body; Xl = lf.X;
        if (!contactOfBody.has(body)) {
          notes.push(`${where} measures the external wrench on link "${s.link}", which has no contact: its readings should be zero`);
        }
        col = L.fx[body];
      }
      const Xs = xCompose(new Float64Array(12), originTransform(s.origin), Xl, fl);
      const F = forceTransformMatrix(Xs);
      // a sensor reporting the child's wrench on the parent reads −f_j
      const sign = s.measure_direction === 'child_to_parent' ? -1 : 1;
      const entries = [];
      for (const [r, comp] of s.components.entries()) {
        const row = WRENCH_COMPONENTS.indexOf(comp as never);
        for (let j = 0; j < 6; j++) entries.push({ row: r, col: col + j, val: sign * F[6 * row + j] });
      }
      inputs = s.components.map((c) => `${s.name}.${c}`);
      block = new LinearBlock(s.name, inputs.map((n) => `y[${n}]`), inputs, entries, s.variance);
    } else {
      const lf = linkFrame(model, s.link!, where);
      const Xs = xCompose(new Float64Array(12), originTransform(s.origin), lf.X, fl);
      const comps = s.components.map((c) => (s.type === 'accelerometer' ? 3 : 0) + (s.type === 'accelerometer' ? ['ax', 'ay', 'az'].indexOf(c) : SPATIAL_ACCEL_COMPONENTS.indexOf(c as never)));
      inputs = s.components.map((c) => `${s.name}.${c}`);
      block = new LinkAccelerationBlock(s.name, inputs.map((n) => `y[${n}]`), inputs, lf.body, Xs, comps, L.a[lf.body], s.variance);
    }
    sensors.push({ spec: s, block: blocks.length, inputs });
    blocks.push(block);
  }
  // priors: rows coef·d − mean, variance of the prior
  const priors: PriorInfo[] = [];
  const unactSet = new Set(unactuated);
  (problem.priors ?? []).forEach((p, k) => {
    const rows: { name: string; entries: { col: number; val: number }[] }[] = [];
    const joints = (kind: 'torque' | 'acceleration', only?: string) => {
      for (const j of model.movingJoints()) {
        if (only !== undefined && j.name !== only) continue;
        if (kind === 'torque' && only === undefined && unactSet.has(j.name)) continue;
        for (let c = 0; c < j.nv; c++) {
          const col = (kind === 'torque' ? L.tau : L.qdd)[j.body] + c;
          rows.push({ name: `${kind === 'torque' ? 'tau' : 'qdd'}[${jointDofName(model, j.body, c)}]`, entries: [{ col, val: 1 }] });
        }
      }
      if (only !== undefined && rows.length === 0) throw new ProblemError(`priors[${k}]: joint "${only}" is not a joint with DoF of model "${model.name}"`);
    };
    const wrench = (info: ContactInfo) => {
      const F = forceTransformMatrix(info.X);
      WRENCH_COMPONENTS.forEach((comp, r) => {
        const entries = [];
        for (let j = 0; j < 6; j++) if (F[6 * r + j] !== 0) entries.push({ col: L.fx[info.body] + j, val: F[6 * r + j] });
        rows.push({ name: `w[${info.link}].${comp}`, entries });
      });
    };
    if (p.on === 'torques') joints('torque');
    else if (p.on === 'accelerations') joints('acceleration');
    else if (p.on.startsWith('torque:')) joints('torque', p.on.slice(7));
    else if (p.on.startsWith('acceleration:')) joints('acceleration', p.on.slice(13));
    else if (p.on === 'contact_wrenches') contacts.forEach(wrench);
    else {
      const info = contacts.find((c) => c.link === p.on.slice(8));
      if (!info) return; // a contact not active in this mode: its wrench is zero, no prior
      wrench(info);
    }
    if (rows.length === 0) return;
    if (Array.isArray(p.mean) && p.mean.length !== rows.length) throw new ProblemError(`priors[${k}] on "${p.on}": "mean" has ${p.mean.length} numbers for ${rows.length} unknowns (${rows.map((r) => r.name).slice(0, 8).join(', ')}${rows.length > 8 ? ', …' : ''})`);
    const mean = Float64Array.from(rows, (_r, t) => (Array.isArray(p.mean) ? p.mean[t] : p.mean));
    const inputs = rows.map((r) => `prior[${k}].${r.name}`);
    const entries = rows.flatMap((r, t) => r.entries.map((e) => ({ row: t, ...e })));
    priors.push({ spec: p, block: blocks.length, names: rows.map((r) => r.name), mean });
    blocks.push(new LinearBlock(`prior[${p.on}]`, inputs.map((n) => `y[${n}]`), inputs, entries, p.variance));
  });
  const sys = new SymbolicSystem(model, { name: 'estimation', known, blocks });
  return { model, problem, sys, contacts, sensors, notes, priors };
}
