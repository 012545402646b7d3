/**
 * The real-robot URDF corpus of ../shared (spec/shared.ts) as models: every file that loads, with a
 * fixed and with a floating base, for the groups that compare kernels on all of them.
 */
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Model } from '../src/model/model.ts';
import { loadUrdf } from '../src/node/urdf-file.ts';
import { HAS_SHARED, shared } from './shared.ts';

const CORPUS = shared('urdf-corpus');

function urdfFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? urdfFiles(p) : name.endsWith('.urdf') ? [p] : [];
  }).sort();
}

/**
 * fn(model) for every corpus file that loads, fixed base then floating, in file order (an error
 * thrown by fn is thrown again naming the file and the base); returns the number of files (0
 * without ../shared).
 */
export function forEachCorpusModel(fn: (model: Model) => void): number {
  const files = HAS_SHARED ? urdfFiles(CORPUS) : [];
  for (const path of files) {
    const file = relative(CORPUS, path);
    for (const floatingBase of [false, true]) {
      let model: Model;
      try { model = loadUrdf(path, { floatingBase, file }); } catch { continue; }
      try {
        fn(model);
      } catch (e) {
        throw new Error(`${file} (${floatingBase ? 'floating' : 'fixed'} base): ${(e as Error).message}`);
      }
    }
  }
  return files.length;
}
