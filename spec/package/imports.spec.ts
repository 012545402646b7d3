/**
 * What each public entry pulls in, by walking its import graph through the sources (static and
 * dynamic imports, re-exports, type-only imports included):
 * - sparsedyn (src/index.ts) and sparsedyn/sparse run in browsers: no Node built-in module, nothing
 *   of src/node, src/cli, src/report, src/study, no d3 or commander;
 * - sparsedyn/sparse knows nothing of robots: only files of src/sparse;
 * - every package the library's entries import is a runtime dependency in package.json (a
 *   devDependency would be missing where users install it).
 * The walker is checked on the node entry, where it must find node:fs.
 */
import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const pkg = JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };

interface Graph {
  /** source files reached, relative to the repository */
  files: Set<string>;
  /** bare specifiers imported, with the file that imports each */
  packages: Map<string, string>;
}

function walk(entry: string): Graph {
  const files = new Set<string>();
  const packages = new Map<string, string>();
  const todo = [resolve(ROOT, entry)];
  while (todo.length) {
    const file = todo.pop()!;
    const rel = relative(ROOT, file);
    if (files.has(rel)) continue;
    files.add(rel);
    const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    for (const { fileName: spec } of info.importedFiles) {
      if (spec.startsWith('.')) todo.push(resolve(dirname(file), spec));
      else if (!packages.has(spec)) packages.set(spec, rel);
    }
  }
  return { files, packages };
}

const isNodeBuiltin = (spec: string) => spec.startsWith('node:') || builtinModules.includes(spec.split('/')[0]);
const packageName = (spec: string) => (spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]);
const FORBIDDEN_DIRS = ['src/node/', 'src/cli/', 'src/report/', 'src/study/'];
const FORBIDDEN_PACKAGES = ['d3', 'commander'];

describe('import graphs of the public entries', () => {
  for (const entry of ['src/index.ts', 'src/sparse/index.ts']) {
    it(`${entry} reaches no Node built-in, no Node-only or report/CLI module, no d3`, () => {
      const g = walk(entry);
      expect(g.files.size).toBeGreaterThan(entry === 'src/index.ts' ? 50 : 15);
      const builtins = [...g.packages].filter(([spec]) => isNodeBuiltin(spec)).map(([spec, from]) => `${from} imports ${spec}`);
      expect(builtins).toEqual([]);
      expect([...g.files].filter((f) => FORBIDDEN_DIRS.some((d) => f.startsWith(d)))).toEqual([]);
      const bad = [...g.packages].filter(([spec]) => FORBIDDEN_PACKAGES.includes(packageName(spec)) || packageName(spec).startsWith('d3-'));
      expect(bad.map(([spec, from]) => `${from} imports ${spec}`)).toEqual([]);
    });
  }

  it('sparsedyn/sparse stays inside src/sparse (it knows nothing of robots)', () => {
    expect([...walk('src/sparse/index.ts').files].filter((f) => !f.startsWith('src/sparse/'))).toEqual([]);
  });

  it('sparsedyn/node reaches Node built-ins (the walker sees them) but no CLI, report or study module', () => {
    const g = walk('src/node/index.ts');
    expect(g.packages.has('node:fs')).toBe(true);
    expect([...g.files].filter((f) => ['src/cli/', 'src/report/', 'src/study/'].some((d) => f.startsWith(d)))).toEqual([]);
  });

  it('every package the entries import is a runtime dependency', () => {
    const used = new Set<string>();
    for (const entry of ['src/index.ts', 'src/sparse/index.ts', 'src/node/index.ts']) {
      for (const spec of walk(entry).packages.keys()) if (!isNodeBuiltin(spec)) used.add(packageName(spec));
    }
    expect([...used].sort()).toEqual(['@foxglove/cdr', '@foxglove/rosmsg', '@foxglove/rosmsg2-serialization', '@mcap/core', 'csv-parse', 'fast-xml-parser', 'hyparquet', 'ml-matrix']);
    expect([...used].filter((p) => !(p in pkg.dependencies))).toEqual([]);
  });
});
