/**
 * `npx tsx scripts/fuzz-minimise.ts [--target T[,T…]] [--dry-run]`: minimises the fuzz corpora
 * (spec/fuzz/corpus/<target>/) as libFuzzer's merge does — the seeds stay; of the inputs kept for
 * coverage, smallest first, only those that add a feature to what is kept so far (see `minimise`
 * in spec/fuzz/engine.ts). Prints, per target, the files and bytes before and after.
 */
import { minimise } from '../spec/fuzz/engine.ts';
import { TARGETS } from '../spec/fuzz/targets.ts';

const args = process.argv.slice(2);
const k = args.indexOf('--target');
const names = (k >= 0 ? args[k + 1] : TARGETS.map((t) => t.name).join(',')).split(',');
const unknown = names.filter((n) => !TARGETS.some((t) => t.name === n));
if (unknown.length) { console.error(`unknown target ${unknown.join(', ')}; targets: ${TARGETS.map((t) => t.name).join(', ')}`); process.exit(2); }
for (const name of names) {
  const r = await minimise(TARGETS.find((t) => t.name === name)!, { dryRun: args.includes('--dry-run') });
  console.log(`${name}: ${r.before} files (${(r.bytesBefore / 1000).toFixed(0)} kB) → ${r.after} (${(r.bytesAfter / 1000).toFixed(0)} kB), ${r.features} features`);
}
