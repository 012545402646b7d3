/**
 * The guide's reference pages are what the code gives (scripts/docs-reference.ts writes them:
 * after changing the code behind one, run `npx tsx scripts/docs-reference.ts` and commit the pages),
 * the catalogues they are written from are complete (every warning code a loader gives, every exit
 * code the command line returns), the pages name every command, log column and estimate column
 * of an example robot, and what moved out of the README is in the guide.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { referencePages } from '../../scripts/docs-reference.ts';
import { EXIT_CODES } from '../../src/cli/exit-codes.ts';
import { createProgram } from '../../src/cli/main.ts';
import { MODEL_WARNINGS } from '../../src/model/warnings.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const read = (p: string) => readFileSync(resolve(ROOT, p), 'utf8');

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(resolve(ROOT, dir), { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...sources(p));
    else if (e.name.endsWith('.ts') || e.name.endsWith('.mjs')) out.push(p);
  }
  return out;
}

describe('the reference pages, generated from the code', () => {
  let pages: Map<string, string>;

  it('each generated page is what scripts/docs-reference.ts writes from the code now (else: npx tsx scripts/docs-reference.ts)', async () => {
    pages = await referencePages();
    expect([...pages.keys()].sort()).toEqual(['cli', 'estimates', 'exit-codes', 'log-formats', 'problem-file', 'warnings'].map((p) => `docs/reference/${p}.md`));
    const stale = [...pages].filter(([path, text]) => read(path) !== text).map(([path]) => path);
    expect(stale, 'stale reference pages: run npx tsx scripts/docs-reference.ts').toEqual([]);
  }, 60_000);

  it('the command reference has a section for every command and a row for every option', () => {
    const cli = read('docs/reference/cli.md');
    const program = createProgram({ exitCode: 0 });
    for (const c of program.commands.filter((x) => x.name() !== 'help')) {
      expect(cli).toContain(`## ${c.name()}\n`);
      for (const o of c.options) expect(cli, `${c.name()} ${o.flags}`).toContain(`\`${o.flags}\``);
    }
  });

  it('the log formats page lists every CSV column of its example, the base columns in order, and the wrench order', () => {
    const page = read('docs/reference/log-formats.md');
    for (const c of ['t', 'q.joint1', 'v.joint3', 'base.px', 'base.qw', 'base.wz', 'encoders.joint2', 'tq.joint1', 'ft.tx', 'ft.fz', 'cell.fz', 'imu_acc.az', 'imu_gyro.wx', 'contacts', 'truth.tau.<joint>']) {
      expect(page).toContain(`| \`${c}\` |`);
    }
    expect(page).toMatch(/base\.px,base\.py,base\.pz,base\.qx,base\.qy,base\.qz,base\.qw,base\.vx,base\.vy,base\.vz,base\.wx,base\.wy,base\.wz/);
    expect(page).toContain('**tx ty tz fx fy fz**');
    expect(page).toContain('quaternion **x y z w**');
    expect(page).toContain('"truth": {"tau"');
  });

  it('the estimates page names each column kind with its unit, and the MCAP topics', () => {
    const page = read('docs/reference/estimates.md');
    for (const c of ['`tau.<joint> [N m]`', '`qdd.<joint> [rad/s^2]`', '`contact.<link>.fz [N]`', '`wrench.<joint>.tx [N m]`', '`residual.<sensor>`', '`tau_std.<joint> [N m]`', '`/sparsedyn/joint_torques`', '`/sparsedyn/contact_wrench/<link>`', '`/sparsedyn/status`']) {
      expect(page).toContain(c);
    }
  });

  it('every warning code the model loaders give is in MODEL_WARNINGS, and every entry is given by some loader', () => {
    const given = new Set<string>();
    for (const f of sources('src/model')) {
      const text = read(f);
      for (const m of text.matchAll(/(?:\.warn|modelWarning)\(\s*'([a-z][a-z-]+)'/g)) given.add(m[1]);
    }
    // inertia problems become link-… and body-… codes (build.ts, inertiaCode): mass-… as they are, the others as inertia-…
    for (const m of read('src/model/inertia-check.ts').matchAll(/code: '([a-z-]+)'/g)) {
      const code = m[1].startsWith('mass') ? m[1] : `inertia-${m[1]}`;
      given.add(`link-${code}`);
      given.add(`body-${code}`);
    }
    expect([...given].filter((c) => !(c in MODEL_WARNINGS)).sort(), 'codes missing from MODEL_WARNINGS').toEqual([]);
    expect(Object.keys(MODEL_WARNINGS).filter((c) => !given.has(c)).sort(), 'MODEL_WARNINGS entries no loader gives').toEqual([]);
    for (const [c, w] of Object.entries(MODEL_WARNINGS)) expect([w.when, w.cost, w.fix].every((x) => x.length > 0), c).toBe(true);
  });

  it('every exit code the command line can return is in EXIT_CODES', () => {
    const returned = new Set<number>([0]);
    for (const f of [...sources('src/cli'), 'bin/sparsedyn.mjs']) {
      for (const line of read(f).split('\n')) {
        if (/^\s*(\*|\/\/)/.test(line)) continue;
        if (!/exitCode\s*=|process\.exit\(|return \d+;/.test(line) || /\bexitCode: number/.test(line)) continue;
        if (/process\.exit\(128 \+/.test(line)) { returned.add(130); returned.add(143); continue; }
        for (const m of line.matchAll(/(?:=|\?|:|exit\(|return)\s*(\d+)\b/g)) returned.add(Number(m[1]));
      }
    }
    const documented = new Set(EXIT_CODES.map((e) => e.code));
    expect([...returned].filter((c) => !documented.has(c)).sort(), 'exit codes missing from EXIT_CODES').toEqual([]);
    expect([...documented].filter((c) => !returned.has(c) && c !== 1).sort(), 'EXIT_CODES entries the command line never returns (1: commander\'s usage errors)').toEqual([]);
  });
});

/** Figures and sections of the README before the guide existed, each of which must be somewhere in the guide or the README. */
const MOVED = [
  // quick start and the build
  'npm ci && npx sparsedyn estimate data/problems/humanoid-demo.json --data data/demo/humanoid.ndjson --out out/humanoid-estimates.ndjson',
  'took 134 ms (mean of 40 runs, 107–161 ms)', 'skipped (needs the real robot files, reference values and benchmark matrices of other projects',
  // models and warnings
  'On the 57 files of a corpus of public robot repositories, 55 load', 'singular-articulated-inertia', 'JointModelPlanar',
  // estimation
  '`p.json:3:17: not valid JSON: trailing comma before "]"`', 'rank 604', 'w[l_sole].tz − w[r_sole].tz', 'a quarter-turn pose with one sole 0.18 m above the other',
  'median of 1.3 and a 99th percentile of 8.6', 'Hager and Higham', '--quaternion-tolerance', 'Above 2,000\nsamples the charts show every 2nd',
  // real experiments
  'w[l_sole].tx + 0.753·w[r_sole].tx', '"on": 80, "off": 40, "min_duration": 0.02', '(median ratio 0.92; the first row of a layout about 0.2–0.6 s)',
  'A 10σ bias on one of its channels is named in 99.9% of 800 noisy samples', 'false alarms on clean samples at confidence 0.99: 1.3%', 'Šidák',
  // ROS 2, scaling out, playground
  '`@foxglove/cdr` 3.5\'s writer counts a string\'s UTF-16 units', 'writes `data/demo/humanoid.mcap` (460 kB)', '| NDJSON → Parquet | 5,130 | 195 | 126 | 0.61 | 198 |',
  'shards of at least 100 × start-up × samples/s samples', 'took 75–144 ms', 'took 1.95 s with two workers and 1.56 s in one thread', '45,000\ndemo samples',
  'NDJSON: parsing 18 µs, the estimate pass 192 µs',
  // lab notebook
  '| 49 | 20,514 | 35,296 | 28,144 | 12,339 | 20,013 | 49,346 | 10,036 | 16,888 |', 'The paper\'s LU count is defective.', '0.87× RNEA\'s flops on chains',
  'factor reuse 1.0–5.6× the recursive time', 'Where the inverse-dynamics time went', 'Column templates', 'Measured and rejected: growth checks after the block',
  '~29\nbytes per statement', '| **one refinement step per block (`refine: 1`)** | **96 / 97**', 'RNEA 0.86 / 3.40 / 13.2 / 5.11 µs',
  '`flops` on the 5,000-body chain peaks at about 240 MiB', 'How flops are counted', 'Glossary', '`Xup[i]`', 'Pinocchio\'s LOCAL_WORLD_ALIGNED',
];

describe('what moved out of the README is in the guide', () => {
  it('every key figure and section of the former README is in the README or a page of docs/', () => {
    const all: string[] = [read('README.md')];
    const walk = (dir: string): void => {
      for (const e of readdirSync(resolve(ROOT, dir), { withFileTypes: true })) {
        const p = join(dir, e.name);
        if (e.isDirectory() && !e.name.startsWith('.') && p !== 'docs/api') walk(p);
        else if (e.name.endsWith('.md')) all.push(read(p));
      }
    };
    walk('docs');
    // line breaks of the README's paragraphs may fall elsewhere in the guide: compare with white space collapsed
    const text = all.join('\n').replace(/\s+/g, ' ');
    expect(MOVED.filter((m) => !text.includes(m.replace(/\s+/g, ' ')))).toEqual([]);
  });
});
