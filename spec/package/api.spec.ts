/**
 * The public API as a user meets it: the three entries (sparsedyn, sparsedyn/sparse,
 * sparsedyn/node) export what the README promises under the field's names, every exported symbol
 * has a TSDoc comment, and the stability marks (@experimental) are where the docs say.
 * Read with the TypeScript compiler (the declarations a user's editor shows), not by importing.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const ENTRIES = { sparsedyn: 'src/index.ts', 'sparsedyn/sparse': 'src/sparse/index.ts', 'sparsedyn/node': 'src/node/index.ts' } as const;
type Entry = keyof typeof ENTRIES;

interface Exported { name: string; documented: boolean; tags: string[] }
const exportsOf = {} as Record<Entry, Map<string, Exported>>;

/** The doc comment of a declaration: its own, or for a variable its statement's. */
function docOf(decl: ts.Declaration): { text: boolean; tags: string[] } {
  const node: ts.Node = ts.isVariableDeclaration(decl) ? decl.parent.parent : decl;
  const docs = ts.getJSDocCommentsAndTags(node).filter(ts.isJSDoc);
  const text = docs.some((d) => (typeof d.comment === 'string' ? d.comment : (d.comment ?? []).map((c) => c.text).join('')).trim() !== '');
  const tags = docs.flatMap((d) => (d.tags ?? []).map((t) => t.tagName.text));
  return { text, tags };
}

beforeAll(() => {
  const parsed = ts.getParsedCommandLineOfConfigFile(resolve(ROOT, 'tsconfig.build.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} })!;
  const program = ts.createProgram(Object.values(ENTRIES).map((f) => resolve(ROOT, f)), { ...parsed.options, noEmit: true, noLib: true, types: [] });
  const checker = program.getTypeChecker();
  for (const [entry, file] of Object.entries(ENTRIES) as [Entry, string][]) {
    const sf = program.getSourceFile(resolve(ROOT, file))!;
    const moduleSymbol = checker.getSymbolAtLocation(sf)!;
    const map = new Map<string, Exported>();
    for (const sym of checker.getExportsOfModule(moduleSymbol)) {
      const target = sym.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(sym) : sym;
      const decls = target.declarations ?? [];
      const docs = decls.map(docOf);
      map.set(sym.name, { name: sym.name, documented: docs.some((d) => d.text), tags: docs.flatMap((d) => d.tags) });
    }
    exportsOf[entry] = map;
  }
}, 120_000);

describe('public API', () => {
  it('the root entry has the jobs of the README under the field\'s names (Pinocchio, RigidBodyDynamics.jl)', () => {
    const root = exportsOf.sparsedyn;
    const wanted = [
      // models
      'Model', 'modelFromUrdf', 'parseUrdf', 'buildUrdf', 'buildModel', 'modelFromSpec', 'chain', 'randomTree', 'humanoid', 'urdfFromSpec',
      'neutral', 'randomConfiguration', 'integrate', 'difference',
      // gold standards and their workspaces
      'forwardKinematics', 'rnea', 'RneaWorkspace', 'aba', 'AbaWorkspace', 'crba', 'CrbaWorkspace',
      'computeMinverse', 'minvCarpentier', 'MinvCarpentierWorkspace', 'minvCholesky', 'MinvCholeskyWorkspace',
      // sparse solvers
      'LuInverseDynamics', 'LuForwardDynamics', 'MinvLu', 'IwimLu', 'InputMatrix', 'SparseSolver', 'SymbolicSystem', 'SymbolicLU', 'flopsReport',
      // problems
      'parseProblem', 'buildEstimationSystem', 'analyzeProblem', 'analyzePriors', 'Estimator', 'namedEstimate', 'inputsFromReadings', 'LogSchema', 'parseNdjsonLine',
      'EstimateSensitivity', 'LuInverseDynamicsDerivatives', 'LuForwardDynamicsDerivatives', 'RecursiveInverseDynamicsDerivatives', 'FiniteDifferenceDerivatives',
    ];
    expect(wanted.filter((n) => !root.has(n))).toEqual([]);
    const node = exportsOf['sparsedyn/node'];
    expect(['loadUrdf', 'readUrdf', 'parseModelSpec', 'loadProblem', 'readLog', 'readMatrix', 'writeMatrix'].filter((n) => !node.has(n))).toEqual([]);
    const sparse = exportsOf['sparsedyn/sparse'];
    expect(['csc', 'compress', 'analyze', 'factor', 'NumericLU', 'SymbolicLU', 'luSolve', 'btf', 'dmperm', 'parseMatrixMarket'].filter((n) => !sparse.has(n))).toEqual([]);
  });

  for (const entry of Object.keys(ENTRIES) as Entry[]) {
    it(`every export of ${entry} has a TSDoc comment`, () => {
      const missing = [...exportsOf[entry].values()].filter((e) => !e.documented).map((e) => e.name);
      expect(missing).toEqual([]);
    });
  }

  it('what is experimental is tagged @experimental, and nothing else is', () => {
    // the derivatives (their classes and layouts are new and may change) and the matrix form of the ABA (a reproduction of the paper)
    const EXPERIMENTAL = [
      'LuInverseDynamicsDerivatives', 'LuForwardDynamicsDerivatives', 'RecursiveInverseDynamicsDerivatives', 'RecursiveForwardDynamicsDerivatives',
      'FiniteDifferenceDerivatives', 'DynamicsDerivatives', 'LuDerivativesOptions', 'LuMode', 'DynamicsProblem', 'EstimateSensitivity',
      'MatrixAba', 'MatrixAbaFlops',
      // the recursive algorithms as WebAssembly generated per model
      'GeneratedRnea', 'GeneratedAba', 'GeneratedCrba', 'GeneratedMinv', 'GeneratedRneaDerivatives', 'GeneratedRneaDerivativesOptions', 'GeneratedAbaDerivatives',
    ];
    const tagged = [...exportsOf.sparsedyn.values()].filter((e) => e.tags.includes('experimental')).map((e) => e.name).sort();
    expect(tagged).toEqual([...EXPERIMENTAL].sort());
  });

  it('npm run docs: TypeDoc writes the API pages of the three entries with no warning (typedoc.json treats warnings as errors)', () => {
    const out = mkdtempSync(join(tmpdir(), 'sparsedyn-docs-'));
    try {
      const r = spawnSync(process.execPath, [resolve(ROOT, 'node_modules/typedoc/bin/typedoc'), '--out', out], { cwd: ROOT, encoding: 'utf8' });
      expect(`${r.stdout}${r.stderr}`.replace(/\x1b\[[0-9;]*m/g, '').split('\n').filter((l) => /warning|error/i.test(l))).toEqual([]);
      expect(r.status).toBe(0);
      // Markdown pages (typedoc-plugin-markdown) that the guide's site (VitePress) builds into HTML: spec/docs/site.spec.ts
      for (const page of ['index.md', 'sparsedyn.md', 'sparsedyn/sparse.md', 'sparsedyn/node.md']) expect(existsSync(join(out, page)), page).toBe(true);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 120_000);
});
