/**
 * `npm run fuzz [-- --seconds N] [--target T[,T…]] [--no-save] [--seed S]`: runs the fuzz targets
 * (spec/fuzz/targets.ts) for N seconds each (default 60), one after the other in this process.
 * Inputs that found new coverage are added to spec/fuzz/corpus/<target>/ (unless --no-save);
 * findings (an input, and a .txt with what broke) go to fuzz-findings/. Prints, per target, the
 * executions, the features and blocks of src/ covered, the corpus size and the findings; exits 1
 * when there is a finding. `npx tsx scripts/fuzz-minimise.ts` trims the corpora again afterwards.
 */
import { fuzz, type FuzzStats } from '../spec/fuzz/engine.ts';
import { TARGETS } from '../spec/fuzz/targets.ts';

const args = process.argv.slice(2);
const opt = (name: string): string | undefined => { const k = args.indexOf(name); return k >= 0 ? args[k + 1] : undefined; };
const seconds = Number(opt('--seconds') ?? 60);
if (!(seconds > 0)) { console.error(`--seconds must be a positive number, got "${opt('--seconds')}"`); process.exit(2); }
const names = (opt('--target') ?? TARGETS.map((t) => t.name).join(',')).split(',');
const unknown = names.filter((n) => !TARGETS.some((t) => t.name === n));
if (unknown.length) { console.error(`unknown target ${unknown.join(', ')}; targets: ${TARGETS.map((t) => t.name).join(', ')}`); process.exit(2); }
const seed = Number(opt('--seed') ?? Date.now() % 2 ** 31);

const all: FuzzStats[] = [];
for (const name of names) {
  const target = TARGETS.find((t) => t.name === name)!;
  const s = await fuzz(target, { seconds, save: !args.includes('--no-save'), seed, findingsDir: 'fuzz-findings' });
  all.push(s);
  console.log(`${s.target}: ${s.executions} executions in ${s.seconds.toFixed(0)} s (${s.cpuSeconds.toFixed(0)} CPU s, ${s.pausedSeconds.toFixed(0)} s stopped; ${(s.executions / s.seconds).toFixed(0)}/s), ${s.features} features, ${s.srcBlocks} blocks of src/, corpus ${s.corpus} (+${s.added}), findings ${s.findings.length}`);
  for (const f of s.findings) console.log(`  ${f.kind}: ${f.detail.split('\n').slice(0, 4).join('\n    ')}`);
}
console.log(`seed ${seed}`);
process.exit(all.some((s) => s.findings.length) ? 1 : 0);
