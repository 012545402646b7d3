/**
 * The allocation measure of the hot-path tests (house style: hot paths allocate nothing per call):
 * heap growth per call of a kernel after warm-up. Doubles passed to non-inlined helpers are boxed by
 * V8, so a regression shows up as ~16 bytes per boxed value per call.
 */
import v8 from 'node:v8';
import vm from 'node:vm';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

/**
 * Heap growth per call once the code is optimized: rounds of n calls until the median of the last
 * five rounds is below the threshold, or 30 rounds have run (unoptimized tiers box doubles, and
 * on a loaded machine the optimizing compiler may take a while to deliver). Returns that median.
 */
export function bytesPerCall(f: () => void, threshold: number, n = 2000): number {
  // calls costing more than ~0.1 ms get fewer repetitions (the test stays short)
  const t0 = performance.now();
  for (let k = 0; k < 50; k++) f();
  const per = (performance.now() - t0) / 50;
  if (per > 0.1) n = Math.max(50, Math.round(100 / per));
  for (let k = 0; k < Math.min(5000, 5 * n); k++) f();
  const rounds: number[] = [];
  let med = Infinity;
  for (let r = 0; r < 30; r++) {
    gc();
    const h0 = process.memoryUsage().heapUsed;
    for (let k = 0; k < n; k++) f();
    rounds.push((process.memoryUsage().heapUsed - h0) / n);
    if (rounds.length >= 5) {
      const last = rounds.slice(-5).sort((a, b) => a - b);
      med = last[2];
      if (med < threshold) break;
    }
  }
  return med;
}
