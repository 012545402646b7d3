/**
 * The import graph of src/ (house style, "Which way imports run"): no cycles, and every import runs
 * downward, from a folder to the folders below it. Every relative module reference of every file
 * counts — `import`, `import type`, `export … from`, `import('…')` types and dynamic imports — read
 * with the TypeScript parser (a type-only cycle costs nothing at run time, but it ties two files
 * together as much for a reader, and it is how runtime cycles start). What each public entry
 * reaches (no Node built-ins in the browser entries, …) is spec/package/imports.spec.ts.
 */
import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../src', import.meta.url));

/**
 * The folders of src/ from the bottom up; a file may import its own folder and the folders of lower
 * rows only (folders on one row import nothing of each other). `index.ts` is the public entry: it
 * sits below `node/` (nothing Node-only behind it), `report/` and `cli/`.
 */
const LAYERS: readonly (readonly string[])[] = [
  ['text'],
  ['spatial', 'sparse'],
  ['model'],
  ['algorithms'],
  ['assembly'],
  ['derivatives'],
  ['estimation'],
  ['io'],
  ['verify'],
  ['index.ts'],
  ['node'],
  ['study'],
  ['report'],
  ['cli'],
];

/**
 * Imports known to run up, to be removed (the list may only shrink: an entry that no longer occurs
 * fails the test until it is deleted here). JSON text with positions and the "did you mean" name
 * hints are text utilities living in io/ that problem files read too; they belong below estimation/.
 */
const KNOWN_UPWARD: readonly string[] = [];

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir)) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) sourceFiles(p, out);
    else if (/\.(ts|mts|cts)$/.test(e) && !e.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

/** Every module specifier of a file's text: static, type-only, re-exports, `import('…')` types and calls. */
function moduleSpecifiers(file: string, text: string): string[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      out.push(node.moduleSpecifier.text);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference) && ts.isStringLiteral(node.moduleReference.expression)) {
      out.push(node.moduleReference.expression.text);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      out.push(node.argument.literal.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments.length > 0 && ts.isStringLiteralLike(node.arguments[0])) {
      out.push(node.arguments[0].text);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/** The file a relative specifier names (`.ts` written out; `.js` for `.ts`, or a folder's index.ts), or null. */
function resolveRelative(from: string, spec: string): string | null {
  const base = resolve(dirname(from), spec);
  for (const c of [base, base.replace(/\.js$/, '.ts'), join(base, 'index.ts')]) {
    if (existsSync(c) && statSync(c).isFile()) return c;
  }
  return null;
}

interface Graph {
  /** file (relative to src/) → the src/ files it imports (relative to src/) */
  edges: Map<string, string[]>;
  /** relative specifiers that name no file */
  unresolved: string[];
}

function importGraph(): Graph {
  const edges = new Map<string, string[]>();
  const unresolved: string[] = [];
  for (const file of sourceFiles(SRC)) {
    const from = relative(SRC, file);
    const targets: string[] = [];
    for (const spec of moduleSpecifiers(file, readFileSync(file, 'utf8'))) {
      if (!spec.startsWith('.')) continue; // packages and node: builtins
      const target = resolveRelative(file, spec);
      if (target === null) unresolved.push(`${from}: '${spec}'`);
      else if (!relative(SRC, target).startsWith('..')) targets.push(relative(SRC, target));
    }
    edges.set(from, [...new Set(targets)]);
  }
  return { edges, unresolved };
}

/** Strongly connected components of more than one file, or a file importing itself (Tarjan, iterative). */
function cycles(edges: Map<string, string[]>): string[][] {
  const index = new Map<string, number>(), low = new Map<string, number>(), onStack = new Set<string>();
  const stack: string[] = [], out: string[][] = [];
  let next = 0;
  for (const root of edges.keys()) {
    if (index.has(root)) continue;
    const work: [string, number][] = [[root, 0]];
    index.set(root, next); low.set(root, next); next++;
    stack.push(root); onStack.add(root);
    while (work.length > 0) {
      const top = work[work.length - 1];
      const [v, i] = top;
      const succ = edges.get(v) ?? [];
      if (i < succ.length) {
        top[1]++;
        const w = succ[i];
        if (!edges.has(w)) continue;
        if (!index.has(w)) {
          index.set(w, next); low.set(w, next); next++;
          stack.push(w); onStack.add(w);
          work.push([w, 0]);
        } else if (onStack.has(w)) {
          low.set(v, Math.min(low.get(v)!, index.get(w)!));
        }
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const u = work[work.length - 1][0];
        low.set(u, Math.min(low.get(u)!, low.get(v)!));
      }
      if (low.get(v) === index.get(v)) {
        const comp: string[] = [];
        let w: string;
        do {
          w = stack.pop()!;
          onStack.delete(w);
          comp.push(w);
        } while (w !== v);
        if (comp.length > 1 || succ.includes(v)) out.push(comp.sort());
      }
    }
  }
  return out;
}

/** A file's folder under src/ (its first path segment; `index.ts` for the entry itself). */
const folderOf = (file: string): string => file.split('/')[0];
const rankOf = (folder: string): number => LAYERS.findIndex((row) => row.includes(folder));

const graph = importGraph();
/** every import between two folders, as `from -> to` */
const crossings = [...graph.edges].flatMap(([from, tos]) => tos.filter((to) => folderOf(to) !== folderOf(from)).map((to) => ({ from, to })));

describe('the import graph of src/', () => {
  it('names only files that exist', () => {
    expect(graph.edges.size).toBeGreaterThan(150);
    expect(graph.unresolved).toEqual([]);
  });

  it('has no import cycle, type-only imports included', () => {
    expect(cycles(graph.edges).map((c) => c.join(' ↔ '))).toEqual([]);
  });

  it('places every folder of src/ in a layer', () => {
    const folders = [...new Set([...graph.edges.keys()].map(folderOf))].sort();
    expect(folders.filter((f) => rankOf(f) < 0)).toEqual([]);
  });

  it('spatial/ and sparse/ import nothing outside themselves (sparse/ knows nothing of robots)', () => {
    const out = crossings.filter(({ from }) => folderOf(from) === 'spatial' || folderOf(from) === 'sparse');
    expect(out.map(({ from, to }) => `${from} -> ${to}`)).toEqual([]);
  });

  it('cli/ is imported by nothing in src/ but itself', () => {
    const into = crossings.filter(({ to }) => folderOf(to) === 'cli');
    expect(into.map(({ from, to }) => `${from} -> ${to}`)).toEqual([]);
  });

  it('runs downward: each folder imports only the folders below it (known exceptions listed, and only shrinking)', () => {
    const upward = crossings
      .filter(({ from, to }) => !(rankOf(folderOf(to)) < rankOf(folderOf(from))))
      .map(({ from, to }) => `${from} -> ${to}`)
      .sort();
    expect(upward.filter((e) => !KNOWN_UPWARD.includes(e))).toEqual([]);
    expect(KNOWN_UPWARD.filter((e) => !upward.includes(e))).toEqual([]);
  });

  it('the checks see what they claim to: a cycle and an upward import in a made-up graph are found', () => {
    const g = new Map([['a.ts', ['b.ts']], ['b.ts', ['c.ts']], ['c.ts', ['a.ts']], ['d.ts', ['d.ts']], ['e.ts', []]]);
    expect(cycles(g)).toEqual([['a.ts', 'b.ts', 'c.ts'], ['d.ts']]);
    expect(rankOf('cli') > rankOf('sparse') && rankOf('estimation') < rankOf('io')).toBe(true);
    const text = "import type { A } from './a.ts';\nexport type { B } from './b.ts';\ntype C = import('./c.ts').C;\nconst d = () => import('./d.ts');\nimport './e.ts';";
    expect(moduleSpecifiers('x.ts', text)).toEqual(['./a.ts', './b.ts', './c.ts', './d.ts', './e.ts']);
  });
});
