/**
 * Model SPEC strings on Node: `modelFromSpec` (src/model/spec.ts) with URDF paths read from disk.
 */
import type { Model } from '../model/model.ts';
import { modelFromSpec, type ModelSpecOptions } from '../model/spec.ts';
import { loadUrdf } from './urdf-file.ts';

/**
 * Resolve a model SPEC (a URDF path, chain:N, tree:N:SEED, humanoid; +floating / +fixed) into a
 * Model, reading URDF files from disk. Throws ModelSpecError, or UrdfError for files.
 */
export function parseModelSpec(spec: string, opts: ModelSpecOptions = {}): Model {
  return modelFromSpec(spec, { loadUrdf, ...opts });
}
