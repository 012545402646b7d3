/**
 * Read a problem file and build its model (the only file of src/estimation that does I/O). A URDF
 * path in the file is relative to the file's folder; a force/torque sensor in a URDF fixed joint
 * keeps that joint as a 0-DoF joint so that its transmitted wrench is a variable.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import type { Model } from '../model/model.ts';
import { parseModelSpec } from './spec.ts';
import { readUrdf } from './urdf-file.ts';
import { ProblemError, parseProblem, type ProblemFile } from '../estimation/problem.ts';
import { sensorsFromUrdf } from '../estimation/urdf-sensors.ts';

/** The model spec with a relative URDF path resolved against baseDir. */
function resolvedSpec(problem: ProblemFile, baseDir: string): string {
  const spec = problem.model.trim();
  if (/\.urdf$/i.test(spec) && !isAbsolute(spec)) {
    const p = resolve(baseDir, spec);
    if (!existsSync(p)) throw new ProblemError(`model "${problem.model}" not found (looked for ${p})`);
    return p;
  }
  return spec;
}

/**
 * Add the URDF's <sensor> elements to the problem when it asks for them (`urdf_sensors`); names
 * must not collide with the sensors listed in the file.
 */
export function withUrdfSensors(problem: ProblemFile, baseDir: string): ProblemFile {
  if (!problem.urdf_sensors) return problem;
  const spec = resolvedSpec(problem, baseDir).replace(/\+(floating|fixed)$/, '');
  if (!/\.urdf$/i.test(spec)) throw new ProblemError(`urdf_sensors: model "${problem.model}" is not a URDF file`);
  const { sensors, notes } = sensorsFromUrdf(readUrdf(spec).sensors, problem.urdf_sensors);
  const taken = new Set(problem.sensors.map((s) => s.name));
  for (const s of sensors) if (taken.has(s.name)) throw new ProblemError(`urdf_sensors: sensor "${s.name}" of the URDF has the name of a sensor of the problem file`);
  return { ...problem, sensors: [...problem.sensors, ...sensors], notes: [...(problem.notes ?? []), ...notes] };
}

/**
 * The model of a problem (a URDF path relative to `baseDir`, or a generator SPEC), with the base
 * and gravity of the problem; URDF fixed joints that carry a force/torque sensor are kept as 0-DoF
 * joints.
 */
export function modelForProblem(problem: ProblemFile, baseDir: string): Model {
  let spec = resolvedSpec(problem, baseDir);
  const opts = { floatingBase: problem.base === 'floating', gravity: problem.gravity };
  let model = parseModelSpec(spec, opts);
  const keep = [...new Set(problem.sensors.filter((s) => s.type === 'force_torque' && !model.hasJoint(s.joint!)).map((s) => s.joint!))];
  if (keep.length > 0) {
    try {
      model = parseModelSpec(spec, { ...opts, keepFixed: keep });
    } catch (e) {
      const s = problem.sensors.find((x) => x.type === 'force_torque' && keep.includes(x.joint!));
      throw new ProblemError(`sensor "${s?.name}": joint "${s?.joint}" is neither a moving nor a fixed joint of model "${model.name}" (${(e as Error).message})`);
    }
  }
  return model;
}

/**
 * Read a problem file and build its model (a URDF path in it is relative to the file's folder).
 * Throws ProblemError naming the file and the offending item.
 */
export function loadProblem(path: string): { problem: ProblemFile; model: Model } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new ProblemError(`${path}: cannot read the problem file (${(e as Error).message})`);
  }
  const problem = withUrdfSensors(parseProblem(text, path), dirname(path));
  return { problem, model: modelForProblem(problem, dirname(path)) };
}
