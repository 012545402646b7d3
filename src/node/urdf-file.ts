/**
 * Read a URDF file from disk and parse or build it (urdf.ts does the parsing; this is the only
 * file of src/model that touches the file system). Source: the URDF XML specification.
 */
import { readFileSync } from 'node:fs';
import { notText } from '../io/file-kind.ts';
import type { Model } from '../model/model.ts';
import { buildUrdf, parseUrdf, UrdfError, type UrdfBuildOptions, type UrdfParseOptions, type UrdfSpec } from '../model/urdf.ts';

/** Read and parse a URDF file; errors name `path` (unless opts.file overrides it). Throws UrdfError. */
export function readUrdf(path: string, opts: UrdfParseOptions = {}): UrdfSpec {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new UrdfError(`cannot read the file: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a folder' : code === 'EACCES' ? 'permission denied' : (e as Error).message}`, { file: opts.file ?? path });
  }
  // a compressed file or binary data is said to be, rather than read as malformed XML
  const odd = notText(bytes, path);
  if (odd) throw new UrdfError(`${odd.what}, not a URDF (XML text): ${odd.hint}`, { file: opts.file ?? path });
  return parseUrdf(bytes.toString('utf8'), { ...opts, file: opts.file ?? path });
}

/** Read a URDF file and build its Model (optionally with a floating base, kept fixed joints, gravity). */
export function loadUrdf(path: string, opts: UrdfParseOptions & UrdfBuildOptions = {}): Model {
  return buildUrdf(readUrdf(path, opts), opts);
}
