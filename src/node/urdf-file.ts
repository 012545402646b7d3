/**
 * Read a URDF file from disk and parse or build it (urdf.ts does the parsing; this is the only
 * file of src/model that touches the file system). Source: the URDF XML specification.
 */
import { readFileSync } from 'node:fs';
import type { Model } from '../model/model.ts';
import { buildUrdf, parseUrdf, UrdfError, type UrdfBuildOptions, type UrdfParseOptions, type UrdfSpec } from '../model/urdf.ts';

/** Read and parse a URDF file; errors name `path` (unless opts.file overrides it). Throws UrdfError. */
export function readUrdf(path: string, opts: UrdfParseOptions = {}): UrdfSpec {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new UrdfError(`cannot read the file: ${(e as Error).message}`, { file: opts.file ?? path });
  }
  return parseUrdf(text, { ...opts, file: opts.file ?? path });
}

/** Read a URDF file and build its Model (optionally with a floating base, kept fixed joints, gravity). */
export function loadUrdf(path: string, opts: UrdfParseOptions & UrdfBuildOptions = {}): Model {
  return buildUrdf(readUrdf(path, opts), opts);
}
