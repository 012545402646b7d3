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
import { buildEstimationSystem, type EstimationSystem } from '../estimation/setup.ts';
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
    // a force/torque sensor in a fixed joint: keep that joint (as a 0-DoF joint) so that its wrench is a variable
    try {
      model = parseModelSpec(spec, { ...opts, keepFixed: keep });
    } catch {
      const s = problem.sensors.find((x) => x.type === 'force_torque' && keep.includes(x.joint!))!;
      const known = model.movingJoints().map((m) => m.name);
      throw new ProblemError(`sensor "${s.name}": joint "${s.joint}" is not a joint of model "${model.name}" (its moving joints: ${known.slice(0, 12).join(', ')}${known.length > 12 ? ', …' : ''})`);
    }
  }
  return model;
}

/** The URDF file a problem's model is read from (absolute), or undefined for a generator spec. */
export function problemModelFile(problem: ProblemFile, baseDir: string): string | undefined {
  const spec = resolvedSpec(problem, baseDir).replace(/\+(floating|fixed)$/, '');
  return /\.urdf$/i.test(spec) ? resolve(baseDir, spec) : undefined;
}

/**
 * Read a problem file and build its model (a URDF path in it is relative to the file's folder).
 * Throws ProblemError naming the file and the offending item.
 */
export function loadProblem(path: string): { problem: ProblemFile; model: Model; modelFile?: string } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new ProblemError(`${path}: cannot read the problem file (${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a folder' : (e as Error).message})`);
  }
  if (text.trim() === '') throw new ProblemError(`${path}: the problem file is empty`);
  const problem = inFile(path, () => withUrdfSensors(parseProblem(text, path), dirname(path)));
  const model = inFile(path, () => modelForProblem(problem, dirname(path)));
  return { problem, model, modelFile: problemModelFile(problem, dirname(path)) };
}

/** loadProblem, then the estimation system; every problem error names the file. */
export function loadEstimationSystem(path: string): { problem: ProblemFile; model: Model; modelFile?: string; es: EstimationSystem } {
  const r = loadProblem(path);
  return { ...r, es: inFile(path, () => buildEstimationSystem(r.model, r.problem)) };
}

/** f(), with a ProblemError's message prefixed by the file when it does not name it yet */
function inFile<T>(path: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof ProblemError && !e.message.startsWith(path)) throw new ProblemError(`${path}: ${e.message}`);
    throw e;
  }
}
