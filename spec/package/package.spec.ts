/**
 * The package as users get it: `npm pack` of the build, installed into a fresh temporary project
 * (the npm registry through the local cache, `--prefer-offline`), and used there as a user would:
 * - the tarball holds dist/, bin/, the README, the licence, the changelog, the schemas, the shipped
 *   model, the examples and the API reference (TypeDoc's, docs/api/) only;
 * - a consumer's TypeScript, configured by `tsc --init` (TypeScript's defaults: module nodenext,
 *   strict, exactOptionalPropertyTypes, noUncheckedIndexedAccess, no @types/node; run with
 *   skipLibCheck off, so that the package's own .d.ts files are checked too), type-checks and
 *   compiles a program using the four entries, every ```ts block of the README and the programs
 *   of examples/, against the installed declarations;
 * - plain `node` runs them (imports resolved in the installed package, no TypeScript loader) and
 *   each prints what it computed; the consumer program checks RNEA against ABA and the LU;
 * - `npx sparsedyn --help` runs the installed command;
 * - the installed browser bundle loads in headless Chromium and computes RNEA as Node does.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import module, { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { humanoid } from '../../src/model/generators.ts';
import { neutral } from '../../src/model/neutral.ts';
import { rnea, RneaWorkspace } from '../../src/algorithms/rnea.ts';
import { buildProblem, launchChromium, NO_BROWSER, pageServing, ROOT, tempDir } from './dist.ts';

const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc');
/** the README and the guide's page of code examples (docs/guide/library.md), whose TypeScript a user copies */
const README = ['README.md', 'docs/guide/library.md'].map((f) => readFileSync(resolve(ROOT, f), 'utf8')).join('\n');
/** the ```ts blocks of the README and of the guide's library page, in order */
const README_BLOCKS = [...README.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
const EXAMPLES = readdirSync(resolve(ROOT, 'examples')).filter((f) => f.endsWith('.ts')).sort();
/** where TypeDoc writes the API reference (typedoc.json "out"), a folder of the package */
const API_DOCS = (JSON.parse(readFileSync(resolve(ROOT, 'typedoc.json'), 'utf8')) as { out: string }).out.replace(/^\.\//, '').replace(/\/$/, '');

/** The consumer's own program: every entry, with checks that throw. */
const CONSUMER = `
import { aba, AbaWorkspace, computeMinverse, crba, CrbaWorkspace, humanoid, LuForwardDynamics, LuInverseDynamics, MinvCarpentierWorkspace, modelFromSpec, neutral, randomConfiguration, rnea, RneaWorkspace, Rng, urdfFromSpec, humanoidSpec, modelFromUrdf } from 'sparsedyn';
import { luSolve, csc } from 'sparsedyn/sparse';
import { loadUrdf, parseModelSpec } from 'sparsedyn/node';
import * as bundle from 'sparsedyn/browser';

const check = (what: string, err: number, tol: number) => { if (!(err <= tol)) throw new Error(what + ': error ' + err + ' > ' + tol); return err; };
const maxAbs = (x: ArrayLike<number>) => Array.from(x).reduce((m, v) => Math.max(m, Math.abs(v)), 0);
const diff = (x: ArrayLike<number>, y: ArrayLike<number>) => maxAbs(Array.from(x, (v, k) => v - (y[k] ?? NaN)));

const fromFile = loadUrdf('node_modules/sparsedyn/models/humanoid.urdf', { floatingBase: true });
const fromText = modelFromUrdf(urdfFromSpec(humanoidSpec()), { floatingBase: true });
const generated = humanoid();
const spec = modelFromSpec('chain:5');
const specFile = parseModelSpec('node_modules/sparsedyn/models/humanoid.urdf+floating');
const model = fromFile;
const rng = new Rng(5);
const q = randomConfiguration(model, rng);
const v = Float64Array.from({ length: model.nv }, () => rng.uniform(-1, 1));
const a = Float64Array.from({ length: model.nv }, () => rng.uniform(-1, 1));
const tau = Float64Array.from(rnea(model, new RneaWorkspace(model), q, v, a));
const errAba = check('aba(rnea(a)) = a', diff(aba(model, new AbaWorkspace(model), q, v, tau), a), 1e-9);
const errLuFd = check('LU forward dynamics = a', diff(new LuForwardDynamics(model).solve(q, v, tau), a), 1e-9);
const errLuId = check('LU inverse dynamics = RNEA', diff(new LuInverseDynamics(model).solve(q, v, a), tau) / maxAbs(tau), 1e-12);
// M M⁻¹ = I with CRBA and Carpentier's M⁻¹
const n = model.nv;
const M = crba(model, new CrbaWorkspace(model), q);
const Minv = computeMinverse(model, new MinvCarpentierWorkspace(model), q);
let errMinv = 0;
for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) {
  let s = 0;
  for (let k = 0; k < n; k++) s += (M[i * n + k] ?? NaN) * (Minv[k * n + j] ?? NaN);
  errMinv = Math.max(errMinv, Math.abs(s - (i === j ? 1 : 0)));
}
check('M M⁻¹ = I', errMinv, 1e-9);
const x = luSolve(csc(2, 2, Int32Array.from([0, 2, 4]), Int32Array.from([0, 1, 0, 1]), Float64Array.from([2, 1, 1, 3])), [3, 4]);
check('sparse solve', diff(x, [1, 1]), 1e-15);
// the browser bundle has the root entry's exports and types (and runs in Node too)
const bm = bundle.humanoid();
check('bundle RNEA = RNEA', diff(bundle.rnea(bm, new bundle.RneaWorkspace(bm), neutral(bm), null, new Float64Array(bm.nv)), rnea(generated, new RneaWorkspace(generated), neutral(generated), null, new Float64Array(generated.nv))), 1e-12);
const same = (m: { nq: number; nv: number; nb: number }) => m.nq === model.nq && m.nv === model.nv && m.nb === model.nb;
if (!same(fromText) || !same(generated) || !same(specFile) || spec.nv !== 5) throw new Error('the models differ in size');
console.log(JSON.stringify({ nq: model.nq, nv: model.nv, neutral: Array.from(neutral(model).slice(0, 7)), errAba, errLuFd, errLuId, errMinv }));
`;

interface Packed { filename: string; size: number; unpackedSize: number; entryCount: number; files: { path: string }[] }

function run(cmd: string, args: string[], cwd: string, env: Record<string, string> = {}): { code: number | null; out: string; err: string } {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', timeout: 120_000, env: { ...process.env, NODE_OPTIONS: '', ...env } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('the packed package, installed in a fresh project', () => {
  let dir = '';
  let packed: Packed;
  let compiled: { code: number | null; out: string; err: string };

  beforeAll(() => {
    expect(buildProblem(), 'dist/ must be the build of these sources (npm run build)').toBe('');
    dir = tempDir('consumer');
    // the API reference the package ships (`prepack` writes it; the pack below runs no script)
    if (!existsSync(resolve(ROOT, API_DOCS))) execFileSync(process.execPath, [resolve(ROOT, 'node_modules/typedoc/bin/typedoc')], { cwd: ROOT, stdio: 'pipe' });
    // the build is the one under test: pack it without running `prepare` again
    const json = execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], { cwd: ROOT, encoding: 'utf8' });
    packed = (JSON.parse(json) as Packed[])[0];
    const project = join(dir, 'project');
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, type: 'module' }, null, 2));
    execFileSync('npm', ['install', join(dir, packed.filename), '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: project, stdio: 'pipe' });
    // TypeScript's own defaults for a new project
    execFileSync(process.execPath, [TSC, '--init'], { cwd: project, stdio: 'pipe' });
    writeFileSync(join(project, 'consumer.ts'), CONSUMER);
    README_BLOCKS.forEach((code, k) => writeFileSync(join(project, `readme-${k + 1}.ts`), code));
    mkdirSync(join(project, 'examples'));
    for (const f of EXAMPLES) copyFileSync(resolve(ROOT, 'examples', f), join(project, 'examples', f));
    // tsc --init's settings, and skipLibCheck off so that every .d.ts of the package (and of its
    // dependencies) is checked too: a stricter check than the defaults, what passes it passes them
    // (TypeScript's own lib files are left unchecked: skipDefaultLibCheck)
    compiled = run(process.execPath, [TSC, '-p', '.', '--skipLibCheck', 'false', '--skipDefaultLibCheck', 'true'], project);
  }, 300_000);

  it('the tarball holds dist/, bin/, README, LICENSE, CHANGELOG, the schemas, the shipped model, the examples and the API reference only', () => {
    const paths = packed.files.map((f) => f.path);
    const allowed = (p: string) => new RegExp(`^(dist|schemas|examples|${API_DOCS})/`).test(p) || ['bin/sparsedyn.mjs', 'models/humanoid.urdf', 'README.md', 'LICENSE', 'CHANGELOG.md', 'package.json'].includes(p);
    expect(paths.filter((p) => !allowed(p))).toEqual([]);
    for (const p of ['LICENSE', 'README.md', 'CHANGELOG.md', 'dist/index.js', 'dist/index.d.ts', 'dist/sparse/index.d.ts', 'dist/node/index.d.ts', 'dist/browser/sparsedyn.js', 'dist/cli/sparsedyn.cjs', 'models/humanoid.urdf', 'schemas/problem.schema.json', ...EXAMPLES.map((f) => `examples/${f}`)]) {
      expect(paths).toContain(p);
    }
    // the API reference (TypeDoc, written by `npm run docs` and by `prepack`), every entry's page in it
    const api = paths.filter((p) => p.startsWith(`${API_DOCS}/`));
    expect(api.length).toBeGreaterThan(0);
    expect(api.some((p) => /LuInverseDynamics|index|README/.test(p))).toBe(true);
    process.stdout.write(`npm pack: ${packed.filename}, ${(packed.size / 1e6).toFixed(2)} MB packed, ${(packed.unpackedSize / 1e6).toFixed(2)} MB unpacked, ${packed.entryCount} files\n`);
  });

  it('a consumer\'s tsc (tsc --init defaults) type-checks its program, the README\'s blocks and the examples against the declarations, and the declarations themselves', () => {
    expect(README_BLOCKS.length).toBeGreaterThanOrEqual(3);
    expect(EXAMPLES).toEqual(['check-sensor-layout.ts', 'estimate-torques.ts', 'flop-count.ts']);
    const config = readFileSync(join(dir, 'project/tsconfig.json'), 'utf8');
    expect(config).toMatch(/"module": "nodenext"/);
    expect(config).toMatch(/"types": \[\]/);
    expect(compiled.out + compiled.err).toBe('');
    expect(compiled.code).toBe(0);
  });

  it('a consumer on the older module resolution (node10, no package exports: typesVersions) type-checks its program', () => {
    const r = run(process.execPath, [TSC, '--noEmit', '--strict', '--module', 'esnext', '--moduleResolution', 'node10', '--target', 'es2022', '--skipLibCheck', 'consumer.ts'], join(dir, 'project'));
    expect(r.out + r.err).toBe('');
    expect(r.code).toBe(0);
  });

  it('plain node runs the consumer\'s program: imports from sparsedyn, sparsedyn/sparse and sparsedyn/node, RNEA = ABA⁻¹ = LU', () => {
    const r = run(process.execPath, ['consumer.js'], join(dir, 'project'));
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.out) as { nq: number; nv: number; neutral: number[]; errAba: number };
    expect(out).toMatchObject({ nq: 36, nv: 35, neutral: [0, 0, 0, 0, 0, 0, 1] });
  });

  it('plain node runs every ```ts block of the README', () => {
    for (let k = 1; k <= README_BLOCKS.length; k++) {
      const r = run(process.execPath, [`readme-${k}.js`], join(dir, 'project'));
      expect(r.err, `README block ${k}`).toBe('');
      expect(r.code, `README block ${k}`).toBe(0);
      expect(r.out, `README block ${k}`).not.toBe('');
      expect(r.out, `README block ${k}`).not.toMatch(/NaN|undefined/);
    }
  });

  it('plain node runs the examples (from the repository folder, where their data is)', () => {
    const out: Record<string, string> = {};
    for (const f of EXAMPLES) {
      const r = run(process.execPath, [join(dir, 'project/examples', f.replace(/\.ts$/, '.js'))], ROOT);
      expect(r.err, f).toBe('');
      expect(r.code, f).toBe(0);
      out[f] = r.out;
    }
    // the log's truth (RNEA with known contacts, plus sensor noise) is the reference
    expect(out['estimate-torques.ts']).toMatch(/^300 samples estimated by weighted least squares, 0 skipped$/m);
    const err = Number(/largest relative error against the log's truth (\S+)/.exec(out['estimate-torques.ts']!)?.[1]);
    expect(err).toBeGreaterThan(0);
    expect(err).toBeLessThan(1e-2);
    // the four layouts of the README's analysis
    expect(out['check-sensor-layout.ts']).toMatch(/^no force sensing: ill_posed, rank 604 of 610/m);
    expect(out['check-sensor-layout.ts']).toMatch(/^load cells under both feet: ill_posed/m);
    expect(out['check-sensor-layout.ts']).toMatch(/^load cells, slippery contacts: generically_well_posed[\s\S]*unobservable: w\[l_sole\]\.tz − w\[r_sole\]\.tz/m);
    expect(out['check-sensor-layout.ts']).toMatch(/^F\/T sensors in both ankles: well_posed, rank 610 of 610/m);
    // LU and recursive algorithms agree; counts are positive integers
    const agree = /\|τ_LU − τ_RNEA\| ≤ (\S+) N m, \|q̈_LU − q̈_ABA\| ≤ (\S+)/.exec(out['flop-count.ts']!);
    expect(Number(agree?.[1])).toBeLessThan(1e-9);
    expect(Number(agree?.[2])).toBeLessThan(1e-9);
    expect(out['flop-count.ts']).toMatch(/^inverse dynamics by LU +\d+ flops +\d\.\d\d×$/m);
  });

  it('npx sparsedyn --help runs the installed command; its compile cache is written, and a damaged one is ignored', () => {
    const cache = join(dir, 'cache');
    const env = { XDG_CACHE_HOME: cache };
    const r = run('npx', ['--no-install', 'sparsedyn', '--help'], join(dir, 'project'), env);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/^Usage: sparsedyn/);
    expect(r.out).toMatch(/estimate \[options\] <problem>/);
    // Node 20 keeps V8's code cache in $XDG_CACHE_HOME/sparsedyn (Node ≥ 22 uses its own)
    if (typeof (module as { enableCompileCache?: unknown }).enableCompileCache !== 'function') {
      const files = readdirSync(join(cache, 'sparsedyn'));
      expect(files).toHaveLength(1);
      expect(files[0]).toMatch(/^cli-v\d+\.\d+\.\d+-\w+-\d+-\d+\.v8cache$/);
      writeFileSync(join(cache, 'sparsedyn', files[0]), 'not a code cache');
    }
    const v = run('npx', ['--no-install', 'sparsedyn', '--version'], join(dir, 'project'), env);
    expect(v.err).not.toMatch(/sparsedyn|Error/); // (npx itself may warn about the machine's npm configuration)
    expect(v.code).toBe(0);
    expect(v.out.trim()).toBe('0.1.0');
    if (typeof (module as { enableCompileCache?: unknown }).enableCompileCache !== 'function') {
      const files = readdirSync(join(cache, 'sparsedyn'));
      expect(files).toHaveLength(1); // the damaged cache was replaced
      expect(readFileSync(join(cache, 'sparsedyn', files[0])).length).toBeGreaterThan(100_000);
    }
  });

  describe.skipIf(NO_BROWSER !== '')('in headless Chromium', () => {
    it('the installed browser bundle loads and computes RNEA as Node does', async () => {
      const bundle = join(dir, 'project/node_modules/sparsedyn/dist/browser/sparsedyn.js');
      expect(existsSync(bundle)).toBe(true);
      const browser = await launchChromium();
      try {
        const { page, problems } = await pageServing(browser, { '/sparsedyn.js': bundle });
        const tau = (await page.evaluate(`(async () => {
          const sd = await import('/sparsedyn.js');
          const model = sd.humanoid();
          const q = sd.neutral(model);
          return Array.from(sd.rnea(model, new sd.RneaWorkspace(model), q, null, new Float64Array(model.nv)));
        })()`)) as number[];
        expect(problems).toEqual([]);
        const model = humanoid();
        const node = rnea(model, new RneaWorkspace(model), neutral(model), null, new Float64Array(model.nv));
        expect(tau.length).toBe(model.nv);
        tau.forEach((t, k) => expect(Math.abs(t - node[k])).toBeLessThanOrEqual(1e-12 * Math.max(1, Math.abs(node[k]))));
      } finally {
        await browser.close();
      }
    });
  });

  afterAll(() => {
    if (dir && process.env.KEEP_CONSUMER !== '1') execFileSync('rm', ['-rf', dir]);
  });
});
