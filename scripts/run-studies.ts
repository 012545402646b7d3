/**
 * Run the shipped studies (studies/*.json: figure1, figure2, dynamics, and derivatives — factor
 * reuse against the recursive derivatives) and write their reports into reports/<name>/
 * (<name> from the configuration: derivatives.json writes reports/derivatives-study/), then
 * reports/REPRODUCTION.md (Nori (2017)'s Figures 1 and 2 next to ours, and the targets of the flop-count study).
 * What `npm run study` runs.
 *
 * The real robots of the dynamics and derivatives studies are read from ../shared beside the clone.
 * A study whose robot files are not there is skipped with one line saying so (its report is left as
 * it was), and the others still run; with nothing left to run the script exits 1.
 *
 *   npx tsx scripts/run-studies.ts [NAME …] [--no-timing] [--reuse] [--out-root DIR]
 *     NAME …      only these studies, by file name (default: every studies/*.json); e.g. `derivatives`
 *     --reuse     rebuild the reports from reports/<name>/points.json without running again
 *     --out-root  write into DIR/<name>/ instead of reports/<name>/
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { progressPrinter } from '../src/cli/commands/study.ts';
import { parseModelSpec } from '../src/node/spec.ts';
import { reproductionMarkdown } from '../src/report/reproduction-md.ts';
import { loadPaperTable, writeStudy } from '../src/report/write-study.ts';
import { parseStudyConfig, studyModelFiles } from '../src/study/config.ts';
import { inverseDynamicsGap } from '../src/study/id-gap.ts';
import { runStudy, type StudyPoint, type StudyResult } from '../src/study/runner.ts';

const argv = process.argv.slice(2);
const flag = (f: string) => argv.includes(f);
const outRoot = resolve(argv[argv.indexOf('--out-root') + 1] && flag('--out-root') ? argv[argv.indexOf('--out-root') + 1] : 'reports');
const names = argv.filter((a, k) => !a.startsWith('--') && argv[k - 1] !== '--out-root');
const root = process.cwd();
const available = readdirSync('studies').filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -5)).sort();
for (const n of names) if (!available.includes(n)) throw new Error(`run-studies: no studies/${n}.json (available: ${available.join(', ')})`);
const todo = names.length ? names : available;

const t0 = performance.now();
const results = new Map<string, StudyResult>();
const skipped: string[] = [];
for (const name of todo) {
  const file = join('studies', `${name}.json`);
  const text = readFileSync(file, 'utf8');
  const config = parseStudyConfig(text, file, resolve('studies'));
  if (flag('--no-timing')) config.timing.enabled = false;
  const dir = join(outRoot, config.name);
  const missing = studyModelFiles(config).filter((f) => !existsSync(f));
  if (missing.length > 0) {
    process.stderr.write(`run-studies: the robot files of the study ${name} are not here (${missing.join(', ')}); skipped the study, ${dir} left as it was\n`);
    skipped.push(name);
    continue;
  }
  let result: StudyResult;
  if (flag('--reuse')) {
    const json = join(dir, 'points.json');
    if (!existsSync(json)) throw new Error(`run-studies --reuse: ${json} does not exist`);
    const saved = JSON.parse(readFileSync(json, 'utf8')) as { meta: StudyResult['meta']; notes: string[]; points: StudyPoint[] };
    const specs = new Map(saved.points.map((p) => [p.spec, resolve(root, p.spec)]));
    const points = saved.points.map((p) => ({ ...p, spec: p.spec.includes('/') ? specs.get(p.spec)! : p.spec }));
    result = { ...runStudy({ ...config, models: [], problems: [] }), config, points, meta: saved.meta, notes: saved.notes.filter((n) => !n.startsWith('paper.csv')) };
  } else {
    process.stderr.write(`study ${name}\n`);
    result = runStudy(config, { onProgress: progressPrinter(process.stderr) });
  }
  const written = writeStudy(result, dir, { root, configText: text });
  results.set(name, result);
  process.stdout.write(`${name}: ${result.points.length} points, ${result.points.filter((p) => p.status === 'failed').length} failed, ${result.meta.seconds.toFixed(1)} s; ${written.files.length} files in ${dir}\n`);
}

const f1 = results.get('figure1'), f2 = results.get('figure2'), dyn = results.get('dynamics');
const paper1 = f1 && loadPaperTable(f1), paper2 = f2 && loadPaperTable(f2);
if (f1 && f2 && dyn && !(paper1 && paper2)) {
  process.stderr.write(`run-studies: the figure data of Nori's paper are not here (${[f1, f2].map((r) => r.config.paper?.csv).join(', ')}); ${join(outRoot, 'REPRODUCTION.md')} left as it was\n`);
} else if (f1 && f2 && dyn && paper1 && paper2) {
  // the dynamics study ran, so its robot files (panda among them) are there
  const panda = dyn.config.models.find((m) => m.spec.endsWith('/panda.urdf'))!.spec;
  const gaps = ['chain:10', 'chain:100', 'chain:1000', 'tree:100:1', panda, 'humanoid'].map((spec) => ({ spec, gap: inverseDynamicsGap(parseModelSpec(spec), spec) }));
  const md = reproductionMarkdown({ figure1: f1, figure2: f2, dynamics: dyn, paper1, paper2, gaps });
  writeFileSync(join(outRoot, 'REPRODUCTION.md'), md);
  process.stdout.write(`wrote ${join(outRoot, 'REPRODUCTION.md')}\n`);
} else if (['figure1', 'figure2', 'dynamics'].every((n) => todo.includes(n))) {
  process.stderr.write(`run-studies: ${join(outRoot, 'REPRODUCTION.md')} left as it was (it needs the figure1, figure2 and dynamics studies; skipped: ${skipped.join(', ')})\n`);
}
if (results.size === 0) {
  process.stderr.write('run-studies: nothing was run\n');
  process.exit(1);
}
process.stdout.write(`run-studies: ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
