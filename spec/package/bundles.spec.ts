/**
 * The package as a bundler sees it (dist/, through its package.json, as `node_modules/sparsedyn`):
 * - a browser bundle of a program that parses a URDF and runs RNEA, made by esbuild with its
 *   defaults (minified ES module), holds only what those need: no ml-matrix, no d3, no estimation
 *   or sparse code, and weighs at most URDF_RNEA_BYTES (it weighed 245 kB when the root entry
 *   pulled ml-matrix and graphology into every bundle);
 * - a plain `esbuild --bundle --platform=node` of a program importing 'sparsedyn' runs: it parses a
 *   URDF, runs RNEA and names a JSON syntax error (the JSON error locator once came from
 *   jsonc-parser, whose "main" is a UMD build esbuild cannot follow: the bundle failed at run time).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { ROOT, tempDir } from './dist.ts';

/** upper bound of the URDF + RNEA browser bundle (bytes, minified, not compressed); measured 112,470 */
const URDF_RNEA_BYTES = 125_000;

const URDF = '<robot name="r"><link name="a"><inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>'
  + '<link name="b"><inertial><origin xyz="0 0 0.5"/><mass value="2"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial></link>'
  + '<joint name="j" type="revolute"><parent link="a"/><child link="b"/><axis xyz="1 0 0"/></joint></robot>';

const PROGRAM = `import { modelFromUrdf, parseProblem, rnea, RneaWorkspace } from 'sparsedyn';
const m = modelFromUrdf(${JSON.stringify(URDF)});
const tau = rnea(m, new RneaWorkspace(m), new Float64Array([0.5]), new Float64Array([0]), new Float64Array([0]));
let msg = '';
try { parseProblem('{\\n  "model": "r.urdf",\\n  "base": fixed\\n}', 'p.json'); } catch (e) { msg = e.message; }
console.log(JSON.stringify({ tau: Array.from(tau), msg }));
`;

/** a project folder with the package installed as a link to this repository's build */
function project(name: string): string {
  const dir = tempDir(name);
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(ROOT, join(dir, 'node_modules', 'sparsedyn'), 'dir');
  return dir;
}

describe('bundling a program that imports sparsedyn', () => {
  it(`for browsers: URDF + RNEA alone weighs at most ${URDF_RNEA_BYTES.toLocaleString('en-US')} bytes minified, with no ml-matrix, d3 or estimation code`, async () => {
    const dir = project('bundle-browser');
    writeFileSync(join(dir, 'entry.mjs'), `import { modelFromUrdf, rnea, RneaWorkspace } from 'sparsedyn';
const m = modelFromUrdf(globalThis.URDF);
console.log(rnea(m, new RneaWorkspace(m), new Float64Array(m.nq), new Float64Array(m.nv), new Float64Array(m.nv)));
`);
    const r = await build({ absWorkingDir: dir, entryPoints: ['entry.mjs'], bundle: true, minify: true, format: 'esm', platform: 'browser', write: false, metafile: true, logLevel: 'silent' });
    const bytes = r.outputFiles[0].contents.length;
    // the modules with code in the bundle (esbuild reads more, and leaves out what is not used)
    const inputs = Object.entries(Object.values(r.metafile.outputs)[0].inputs).filter(([, x]) => x.bytesInOutput > 0).map(([f]) => f);
    process.stdout.write(`URDF + RNEA browser bundle: ${bytes.toLocaleString('en-US')} bytes minified (${inputs.length} modules)\n`);
    expect(inputs.filter((f) => /node_modules\/(ml-matrix|graphology|d3|jsonc-parser|@mcap|csv-parse)/.test(f))).toEqual([]);
    expect(inputs.filter((f) => /dist\/(estimation|sparse|assembly|io|derivatives)\//.test(f))).toEqual([]);
    expect(bytes).toBeLessThanOrEqual(URDF_RNEA_BYTES);
  });

  it('for Node: a plain esbuild --bundle --platform=node runs (URDF, RNEA, a JSON syntax error named)', async () => {
    const dir = project('bundle-node');
    writeFileSync(join(dir, 'program.mjs'), PROGRAM);
    await build({ absWorkingDir: dir, entryPoints: ['program.mjs'], bundle: true, platform: 'node', outfile: join(dir, 'program.cjs'), logLevel: 'silent' });
    const out = JSON.parse(execFileSync(process.execPath, [join(dir, 'program.cjs')], { encoding: 'utf8' }));
    // τ = m g d sin q about the x axis: 2 kg · 9.81 · 0.5 m · sin 0.5, the sign of gravity's moment
    expect(Math.abs(out.tau[0])).toBeCloseTo(2 * 9.81 * 0.5 * Math.sin(0.5), 10);
    expect(out.msg).toBe('p.json:3:11: not valid JSON: unexpected "fixed"');
  });
});
