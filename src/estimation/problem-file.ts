/**
 * Read a problem file and build its model (the only file of src/estimation that does I/O). A URDF
 * path in the file is relative to the file's folder; a force/torque sensor in a URDF fixed joint
 * keeps that joint as a 0-DoF joint so that its transmitted wrench is a variable.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import type { Model } from '../model/model.ts';
import { parseModelSpec } from '../model/spec.ts';
import { ProblemError, parseProblem, type ProblemFile } from './problem.ts';

export function modelForProblem(problem: ProblemFile, baseDir: string): Model {
  let spec = problem.model.trim();
  if (/\.urdf$/i.test(spec) && !isAbsolute(spec)) {
    const p = resolve(baseDir, spec);
    if (!existsSync(p)) throw new ProblemError(`model "${problem.model}" not found (looked for ${p})`);
    spec = p;
  }
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

export function loadProblem(path: string): { problem: ProblemFile; model: Model } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new ProblemError(`${path}: cannot read the problem file (${(e as Error).message})`);
  }
  const problem = parseProblem(text, path);
  return { problem, model: modelForProblem(problem, dirname(path)) };
}
