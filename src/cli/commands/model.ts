/**
 * `sparsedyn model FILE|SPEC [--json]`: what a model is once loaded: its joints in model order (the
 * order of state files, q and v) with types, limits and nq/nv offsets, its bodies with the links
 * merged into them, its frames, the sensors its URDF declares (or its problem file lists), its
 * total mass and warnings. FILE is a URDF file, a problem file (the model as estimation builds it:
 * a force/torque sensor in a fixed joint keeps that joint as a body of its own) or a model SPEC.
 *
 * Joint order: bodies are numbered depth first (build.ts). A URDF's joints are taken by name, as
 * urdfdom and Pinocchio take them; a generator's in the order it declares them. So the generated
 * humanoid (`humanoid`) and the same robot loaded from its URDF (`models/humanoid.urdf+floating`)
 * number their joints differently; the output says so for every generated model whose URDF order
 * differs. Logs, problem files and estimates name joints, so either loads the same data; vectors in
 * model order (state files of `minv`, `iwim`, `derivatives`) do not carry over between the two.
 */
import type { Command } from 'commander';
import { buildModel } from '../../model/build.ts';
import type { Model } from '../../model/model.ts';
import { resolveModelSpec } from '../../model/spec.ts';
import { rpyFromRot } from '../../model/urdf-writer.ts';
import type { SensorSpec } from '../../estimation/problem.ts';
import { sensorsFromUrdf } from '../../estimation/urdf-sensors.ts';
import { loadProblem } from '../../node/problem-file.ts';
import { parseModelSpec } from '../../node/spec.ts';
import { readUrdf } from '../../node/urdf-file.ts';
import { jsonWithWarnings, printData, reportModelWarnings } from '../output.ts';
import type { CliState } from '../state.ts';

/** One joint of the model report (model order). */
export interface ModelJoint {
  index: number;
  name: string;
  type: string;
  /** the body it moves (= its child link, fixed links merged in) and that body's parent ("world" for a root) */
  body: string;
  parent: string;
  /** offsets and sizes in q and in v (a, τ) */
  iq: number; nq: number; iv: number; nv: number;
  /** unit axis in the body frame (1-DoF joints) */
  axis?: number[];
  /** as the robot file states them */
  limits?: { lower?: number; upper?: number; effort?: number; velocity?: number };
}

/** The model report: everything `sparsedyn model` prints. */
export interface ModelReport {
  name: string;
  base: 'floating' | 'fixed';
  nq: number; nv: number;
  /** bodies and joints (joints with DoF and 0-DoF joints kept as bodies) */
  bodies: { index: number; name: string; parent: string; joint: string; mass: number; com: number[]; links: string[] }[];
  joints: ModelJoint[];
  /** every named frame not at its body's origin, or that is not the body's own link: body, xyz (m) and rpy (rad) of the frame in the body */
  frames: { name: string; body: string; xyz: number[]; rpy: number[] }[];
  total_mass: number;
  /** how the joints are ordered, in words */
  joint_order: string;
  /** generated models: the joint order the same model has when written as a URDF and loaded again, when it differs */
  urdf_joint_order?: string[];
  sensors: SensorSpec[];
  sensors_source: string;
  notes: string[];
}

const unitsOf = (type: string) => (type === 'prismatic' ? { q: 'm', f: 'N', v: 'm/s' } : { q: 'rad', f: 'N·m', v: 'rad/s' });

/** The report of a loaded model (sensors and notes from where it was loaded). */
export function modelReport(model: Model, extra: { joint_order: string; urdf_joint_order?: string[]; sensors?: SensorSpec[]; sensors_source?: string; notes?: string[] }): ModelReport {
  const nameOf = (b: number) => (b < 0 ? 'world' : model.bodyNames[b]);
  const joints: ModelJoint[] = [];
  for (let i = 0; i < model.nb; i++) {
    const j: ModelJoint = { index: i, name: model.jointNames[i], type: model.jointTypes[i], body: model.bodyNames[i], parent: nameOf(model.parents[i]), iq: model.iq[i], nq: model.nqi[i], iv: model.iv[i], nv: model.nvi[i] };
    if (model.nvi[i] === 1) j.axis = Array.from(model.axis.subarray(3 * i, 3 * i + 3));
    const lim = model.limits[i];
    if (lim) j.limits = { ...lim };
    joints.push(j);
  }
  const bodies = model.bodyNames.map((name, i) => {
    const I = model.I[i], m = I[0];
    return {
      index: i, name, parent: nameOf(model.parents[i]), joint: model.jointNames[i], mass: m,
      com: m > 0 ? [I[1] / m, I[2] / m, I[3] / m] : [0, 0, 0],
      links: model.frames.filter((f) => f.body === i).map((f) => f.name),
    };
  });
  const frames = model.frames.filter((f) => f.name !== nameOf(f.body) || Array.from(f.X).some((x, k) => x !== (k === 0 || k === 4 || k === 8 ? 1 : 0))).map((f) => {
    const X = f.X, R = [X[0], X[3], X[6], X[1], X[4], X[7], X[2], X[5], X[8]];
    return { name: f.name, body: nameOf(f.body), xyz: [X[9], X[10], X[11]], rpy: rpyFromRot(R) };
  });
  return {
    name: model.name, base: model.floatingBase ? 'floating' : 'fixed', nq: model.nq, nv: model.nv, bodies, joints, frames, total_mass: model.totalMass(),
    joint_order: extra.joint_order, ...(extra.urdf_joint_order ? { urdf_joint_order: extra.urdf_joint_order } : {}),
    sensors: extra.sensors ?? [], sensors_source: extra.sensors_source ?? 'none', notes: extra.notes ?? [],
  };
}

const num = (x: number) => (Number.isInteger(x) ? String(x) : Number(x.toPrecision(6)).toString());

/** The report as text: the joints table first (model order), then bodies, frames, sensors. */
export function formatModelReport(r: ModelReport, title: string, warnings: readonly { code: string }[]): string {
  const out: string[] = [title];
  const moving = r.joints.filter((j) => j.nv > 0 && j.type !== 'floating').length;
  out.push(`  ${moving} joints with DoF${r.base === 'floating' ? ' on a floating base' : ''}, ${r.bodies.length} bodies; nq ${r.nq}, nv ${r.nv}; total mass ${num(r.total_mass)} kg`);
  out.push(`  joint order: ${r.joint_order}`);
  if (r.urdf_joint_order) out.push(`  note: written as a URDF (sparsedyn urdf) and loaded again, this model numbers its joints by name, in another order: ${r.urdf_joint_order.join(' ')}. Logs and problem files name joints and read the same either way; vectors in model order (state files) do not carry over`);
  out.push('joints in model order (q, v, a and τ; the order of state files):');
  const w = Math.max(5, ...r.joints.map((j) => j.name.length)), wb = Math.max(11, ...r.joints.map((j) => j.parent.length));
  out.push(`  ${'#'.padStart(3)}  ${'joint'.padEnd(w)}  ${'type'.padEnd(9)}  ${'parent body'.padEnd(wb)}  ${'iq'.padStart(3)} ${'nq'.padStart(2)}  ${'iv'.padStart(3)} ${'nv'.padStart(2)}  limits`);
  for (const j of r.joints) {
    const u = unitsOf(j.type), l = j.limits;
    const lim = !l ? '' : [
      l.lower !== undefined || l.upper !== undefined ? `[${l.lower === undefined ? '−∞' : num(l.lower)}, ${l.upper === undefined ? '∞' : num(l.upper)}] ${u.q}` : 'no position limits',
      l.effort !== undefined ? `|τ| ≤ ${num(l.effort)} ${u.f}` : '', l.velocity !== undefined ? `|q̇| ≤ ${num(l.velocity)} ${u.v}` : '',
    ].filter(Boolean).join(', ');
    out.push(`  ${String(j.index).padStart(3)}  ${j.name.padEnd(w)}  ${j.type.padEnd(9)}  ${j.parent.padEnd(wb)}  ${String(j.iq).padStart(3)} ${String(j.nq).padStart(2)}  ${String(j.iv).padStart(3)} ${String(j.nv).padStart(2)}  ${lim}`);
  }
  out.push('bodies (mass, centre of mass in the body frame, the links merged into each):');
  const wn = Math.max(4, ...r.bodies.map((b) => b.name.length));
  for (const b of r.bodies) out.push(`  ${String(b.index).padStart(3)}  ${b.name.padEnd(wn)}  ${num(b.mass).padStart(8)} kg  com [${b.com.map(num).join(', ')}]  links: ${b.links.join(', ')}`);
  out.push(`frames of merged links and sensors (xyz m, rpy rad in the body frame):${r.frames.length ? '' : ' none'}`);
  for (const f of r.frames) out.push(`  ${f.name} on ${f.body}: xyz [${f.xyz.map(num).join(', ')}] rpy [${f.rpy.map(num).join(', ')}]`);
  out.push(`sensors (${r.sensors_source}):${r.sensors.length ? '' : ' none'}`);
  for (const s of r.sensors) {
    const at = s.joint !== undefined ? `joint ${s.joint}` : s.link !== undefined ? `link ${s.link}` : `joints ${Array.isArray(s.joints) ? s.joints.join(' ') : s.joints}`;
    const o = s.origin.xyz.some((x) => x !== 0) || s.origin.rpy.some((x) => x !== 0) ? ` origin xyz [${s.origin.xyz.map(num).join(', ')}] rpy [${s.origin.rpy.map(num).join(', ')}]` : '';
    out.push(`  ${s.name}: ${s.type} on ${at}${o}${s.components.length ? ` (${s.components.join(' ')})` : ''}`);
  }
  for (const n of r.notes) out.push(`  note: ${n}`);
  out.push(`warnings: ${warnings.length ? `${warnings.length} (${[...new Set(warnings.map((x) => x.code))].join(', ')}), printed on standard error` : 'none'}`);
  return out.join('\n') + '\n';
}

const URDF_ORDER = 'depth first from the root, each body\'s child joints by name (as urdfdom and Pinocchio order a URDF\'s joints)';

export function register(program: Command, state: CliState): void {
  program
    .command('model')
    .argument('<model>', 'a URDF file, a problem file (.json: the model as estimation builds it), or a model SPEC (chain:N, tree:N:SEED, humanoid; +floating / +fixed)')
    .description('show a model as loaded: joints in model order with types, limits and nq/nv offsets, bodies with their merged links, frames, declared sensors, total mass, warnings')
    .option('--json', 'print one JSON object (name, base, nq, nv, joints, bodies, frames, total_mass, joint_order, urdf_joint_order, sensors, sensors_source, notes, warnings)')
    .addHelpText('after', `
The joint order is the order of q, v, a and τ (state files). A URDF's joints are numbered depth
first with each body's children by name (as Pinocchio numbers them); a generated model's in the
order its generator declares them. So "humanoid" and "models/humanoid.urdf+floating" (the same robot)
order their joints differently: logs, problem files and estimates name joints and are read the same
way by both; state vectors in model order are not.
`)
    .action((spec: string, opts: { json?: boolean }) => {
      let model: Model, report: ModelReport;
      if (/\.json$/i.test(spec)) {
        const p = loadProblem(spec);
        model = p.model;
        report = modelReport(model, {
          joint_order: p.modelFile ? URDF_ORDER : 'depth first from the root, each body\'s child joints in the order the generator declares them',
          sensors: p.problem.sensors, sensors_source: `the problem file${p.problem.urdf_sensors ? ', with the URDF\'s <sensor> elements' : ''}`, notes: p.problem.notes,
        });
      } else {
        const r = resolveModelSpec(spec);
        model = parseModelSpec(spec);
        if (r.kind === 'urdf') {
          const { sensors, notes } = sensorsFromUrdf(readUrdf(r.path).sensors, true);
          report = modelReport(model, { joint_order: URDF_ORDER, sensors, sensors_source: 'declared in the URDF: <sensor> elements', notes });
        } else {
          // the order the same model gets from its URDF: joints by name (urdf.ts)
          const byName = { ...r.spec, joints: [...r.spec.joints].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)) };
          const urdfOrder = buildModel(byName, r.build).jointNames;
          const differs = urdfOrder.some((n, k) => n !== model.jointNames[k]);
          report = modelReport(model, {
            joint_order: 'depth first from the root, each body\'s child joints in the order the generator declares them',
            urdf_joint_order: differs ? [...urdfOrder] : undefined, sensors_source: 'a generated model declares none',
          });
        }
      }
      const warnings = reportModelWarnings(state, model);
      printData(opts.json ? jsonWithWarnings(report, warnings) : formatModelReport(report, `model: ${spec} ("${model.name}", ${model.floatingBase ? 'floating' : 'fixed'} base)`, warnings));
      state.exitCode = 0;
    });
}
