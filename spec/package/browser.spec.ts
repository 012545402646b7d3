/**
 * The browser bundle (dist/browser/sparsedyn.js, built by esbuild from the root entry) in headless
 * Chromium: a page imports it, parses the humanoid's URDF from a string, runs RNEA, ABA, forward
 * dynamics by the sparse LU and a well-posedness analysis. The numbers must be Node's (the same
 * computation on the sources here: τ to 1e-14, the LU's q̈ to 1e-10 relative, flop counts and the
 * analysis exactly), and the LU's q̈ must match ABA's, an independent algorithm, in the page itself.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aba, AbaWorkspace } from '../../src/algorithms/aba.ts';
import { rnea, RneaWorkspace } from '../../src/algorithms/rnea.ts';
import { LuForwardDynamics } from '../../src/assembly/dynamics.ts';
import { analyzeProblem } from '../../src/estimation/analysis.ts';
import { parseProblem } from '../../src/estimation/problem.ts';
import { buildEstimationSystem } from '../../src/estimation/setup.ts';
import { randomConfiguration } from '../../src/model/random.ts';
import { Rng } from '../../src/model/rng.ts';
import { modelFromUrdf } from '../../src/model/urdf.ts';
import { buildProblem, launchChromium, NO_BROWSER, pageServing, ROOT } from './dist.ts';

if (NO_BROWSER) process.stdout.write(`browser bundle check skipped: ${NO_BROWSER}\n`);

const URDF = readFileSync(resolve(ROOT, 'models/humanoid.urdf'), 'utf8');
// load cells under both (slippery) soles: generically well posed, with one unobservable direction at the neutral pose
const PROBLEM = JSON.stringify({
  model: 'humanoid.urdf',
  base: 'floating',
  contacts: [{ link: 'l_sole', zero: ['fx', 'fy'] }, { link: 'r_sole', zero: ['fx', 'fy'] }],
  sensors: [
    { name: 'qdd', type: 'joint_acceleration', joints: 'all' },
    { name: 'cell_l', type: 'external_wrench', link: 'l_sole', components: ['fz', 'tx', 'ty'] },
    { name: 'cell_r', type: 'external_wrench', link: 'r_sole', components: ['fz', 'tx', 'ty'] },
  ],
});

interface Result {
  nq: number;
  tau: number[];
  qddLu: number[];
  qddAba: number[];
  flopsLu: number;
  verdict: string;
  structuralRank: number;
  numericalRank: number;
  ranks: number[];
  unobservable: string[];
}

/**
 * The computation, written once: run in the page on the bundle's exports, and here on the sources'.
 * It must be self-contained (it is serialised into the page).
 */
function compute(sd: any, urdf: string, problemText: string): Result {
  const model = sd.modelFromUrdf(urdf, { floatingBase: true });
  const rng = new sd.Rng(11);
  const q = sd.randomConfiguration(model, rng);
  const v = Float64Array.from({ length: model.nv }, () => rng.uniform(-1, 1));
  const a = Float64Array.from({ length: model.nv }, () => rng.uniform(-1, 1));
  const tau = Float64Array.from(sd.rnea(model, new sd.RneaWorkspace(model), q, v, a));
  const fd = new sd.LuForwardDynamics(model);
  const qddLu = Array.from(fd.solve(q, v, tau) as Float64Array);
  const qddAba = Array.from(sd.aba(model, new sd.AbaWorkspace(model), q, v, tau) as Float64Array);
  const problem = sd.parseProblem(problemText, 'problem');
  const report = sd.analyzeProblem(sd.buildEstimationSystem(model, problem), { redundancy: false });
  return {
    nq: model.nq, tau: Array.from(tau), qddLu, qddAba, flopsLu: fd.solver.totalFlops().total,
    verdict: report.verdict, structuralRank: report.structural_rank, numericalRank: report.numerical_rank,
    ranks: report.configurations.map((c: { rank: number }) => c.rank), unobservable: report.unobservable,
  };
}

const maxRelDiff = (x: number[], y: number[]) => {
  const scale = Math.max(...y.map(Math.abs));
  return Math.max(...x.map((xi, k) => Math.abs(xi - y[k]))) / scale;
};

describe.skipIf(NO_BROWSER !== '')('the browser bundle in headless Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    expect(buildProblem(), 'dist/ must be the build of these sources (npm run build)').toBe('');
    browser = await launchChromium();
  });
  afterAll(async () => { await browser?.close(); });

  it('parses a URDF string, runs RNEA, LU forward dynamics and an analysis, with Node\'s numbers', async () => {
    const { page, problems } = await pageServing(browser, { '/sparsedyn.js': resolve(ROOT, 'dist/browser/sparsedyn.js') });
    // a string, so that the test runner's transforms stay out of the page
    const inPage = (await page.evaluate(`(async () => {
      const sd = await import('/sparsedyn.js');
      const compute = ${compute.toString()};
      return { result: compute(sd, ${JSON.stringify(URDF)}, ${JSON.stringify(PROBLEM)}), nodeOnly: typeof globalThis.process };
    })()`)) as { result: Result; nodeOnly: string };
    await page.close();
    expect(problems).toEqual([]);
    expect(inPage.nodeOnly).toBe('undefined'); // a real browser context, not Node
    const b = inPage.result;
    const node = compute({ modelFromUrdf, Rng, randomConfiguration, rnea, RneaWorkspace, aba, AbaWorkspace, LuForwardDynamics, parseProblem, analyzeProblem, buildEstimationSystem }, URDF, PROBLEM);
    expect(b.nq).toBe(36);
    // Node's numbers: Chromium's V8 rounds a few elementary functions differently from Node's
    // (RNEA differs by an ulp here), which the LU solve then amplifies by the system's conditioning
    expect(maxRelDiff(b.tau, node.tau)).toBeLessThanOrEqual(1e-14);
    expect(maxRelDiff(b.qddAba, node.qddAba)).toBeLessThanOrEqual(1e-12);
    expect(maxRelDiff(b.qddLu, node.qddLu)).toBeLessThanOrEqual(1e-10);
    expect(b.flopsLu).toBe(node.flopsLu);
    expect({ verdict: b.verdict, s: b.structuralRank, n: b.numericalRank, r: b.ranks, u: b.unobservable })
      .toEqual({ verdict: node.verdict, s: node.structuralRank, n: node.numericalRank, r: node.ranks, u: node.unobservable });
    // and right: the LU's q̈ is ABA's, and the analysis finds what the physics says
    expect(maxRelDiff(b.qddLu, b.qddAba)).toBeLessThanOrEqual(1e-10);
    expect(b.verdict).toBe('generically_well_posed');
    expect(b.unobservable).toEqual(['w[l_sole].tz − w[r_sole].tz']);
  });
});
