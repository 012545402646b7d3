/**
 * Every fuzz target for a short fixed budget (FUZZ_SECONDS each, one after the other in a file),
 * from its corpus (seeds and the inputs kept for their coverage), with a fixed seed: no input may
 * break the invariant (a result or a named error, no engine words or class names in a message,
 * under 1 s and 256 MB). `npm run fuzz` runs them as long as asked and keeps what finds coverage.
 * The targets are split over two files (fuzz.spec.ts, fuzz-more.spec.ts), which the suite's two
 * workers run side by side.
 */
import { expect, it } from 'vitest';
import { fuzz, type FuzzTarget } from './engine.ts';
import { TARGETS } from './targets.ts';

const FUZZ_SECONDS = Number(process.env.SPARSEDYN_FUZZ_SECONDS ?? 6);

/** the targets of each file: the first half, the second */
export const HALVES: readonly (readonly FuzzTarget[])[] = [TARGETS.slice(0, Math.ceil(TARGETS.length / 2)), TARGETS.slice(Math.ceil(TARGETS.length / 2))];

/** one test per target: FUZZ_SECONDS of mutations find nothing */
export function fuzzTargets(targets: readonly FuzzTarget[]): void {
  for (const t of targets) {
    it(`${t.name}: ${FUZZ_SECONDS} s of mutations find nothing`, async () => {
      // 3 s per input here: this file shares two cores with the rest of the suite (npm run fuzz checks 1 s alone)
      const s = await fuzz(t, { seconds: FUZZ_SECONDS, seed: 20261128, timeLimitMs: 3000 });
      expect(s.findings.map((f) => `${f.kind}: ${f.detail}\ninput: ${JSON.stringify(f.input.toString('latin1').slice(0, 300))}`)).toEqual([]);
      expect(s.executions).toBeGreaterThan(20);
    }, (FUZZ_SECONDS + 60) * 1000);
  }
}
