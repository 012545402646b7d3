/**
 * `npx tsx scripts/fuzz-replay.ts TARGET FILE [RUNS]`: runs one input through a fuzz target
 * (spec/fuzz/targets.ts) RUNS times (default 4), outside the fuzzer, and prints the time of each run
 * and the first message: a time finding of `npm run fuzz` is judged here, without the coverage the
 * fuzzer collects after every input (which slows a run several times). The first run pays the
 * target's one-time costs (the demo session of the log targets, code compiled on first use).
 */
import { readFileSync } from 'node:fs';
import { TARGETS } from '../spec/fuzz/targets.ts';

const [name, file, runs = '4'] = process.argv.slice(2);
const target = TARGETS.find((t) => t.name === name);
if (!target || !file) {
  console.error(`usage: npx tsx scripts/fuzz-replay.ts TARGET FILE [RUNS]; targets: ${TARGETS.map((t) => t.name).join(', ')}`);
  process.exit(2);
}
const data = readFileSync(file);
for (let k = 0; k < Number(runs); k++) {
  const t0 = performance.now();
  let messages: string[];
  try {
    const r = await target.run(data);
    messages = (r as { messages?: string[] } | undefined)?.messages ?? [];
  } catch (e) {
    // a named error is a result too (the fuzzer checks its class and words)
    messages = [`${(e as Error).name}: ${(e as Error).message}`];
  }
  const ms = performance.now() - t0;
  const first = messages.find((m) => m) ?? '';
  console.log(`${name} run ${k + 1}: ${ms.toFixed(0)} ms, ${messages.length} messages${first ? `; first: ${first.slice(0, 160)}` : ''}`);
}
