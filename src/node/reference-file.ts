/**
 * Finding reference files and their models on disk: a reference's `model_file` is looked up
 * beside the reference, then in the `models/` and `urdf-corpus/` folders next to the reference's
 * folder (the layout of a folder of reference values kept beside the robot files they were
 * computed for).
 */
import { existsSync, readdirSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { ReferenceFormatError } from '../verify/reference.ts';

/**
 * The URDF file of a reference file's `model_file`: looked up beside the reference, then in the
 * `models/` and `urdf-corpus/` folders next to its folder, then in ./models.
 */
export function findModelFile(refPath: string, modelFile: string | undefined): string {
  if (typeof modelFile !== 'string' || modelFile.trim() === '') throw new ReferenceFormatError(`${refPath}: the reference names no "model_file": give the robot with --model`);
  const dir = dirname(refPath);
  const candidates = [
    resolve(dir, modelFile),
    resolve(dir, '../models', basename(modelFile)),
    resolve(dir, '../urdf-corpus', modelFile),
  ];
  const hit = candidates.find((c) => existsSync(c));
  if (!hit) throw new ReferenceFormatError(`${refPath}: the reference's model_file "${modelFile}" was not found (looked in ${candidates.join(', ')})`);
  return hit;
}

/**
 * Reference files whose names end in `suffix`, from each folder that exists, the later folders'
 * files replacing earlier ones of the same name.
 */
export function referenceFiles(folders: readonly string[], suffix: string): string[] {
  const byName = new Map<string, string>();
  for (const f of folders) {
    if (!existsSync(f)) continue;
    for (const name of readdirSync(f).sort()) if (name.endsWith(suffix)) byName.set(name, join(f, name));
  }
  return [...byName.values()];
}
