/**
 * The playground's Web Worker: analyses the layouts the page sends, newest first, so that the page
 * never waits. Messages in: AnalysisRequest. Messages out, per request: `first` (verdict, ranks,
 * directions), then `rest` (redundant sensors, flops, spy plots) unless a newer request came in;
 * a change of the sliders alone gives `at` (the directions at the new configuration).
 */
import { LayoutAnalysis, type AnalysisRequest } from './analysis.ts';

const post = (m: unknown) => (self as unknown as { postMessage(m: unknown): void }).postMessage(m);

let latest: AnalysisRequest | null = null;
let busy = false;
let layout: LayoutAnalysis | null = null;
let layoutKey = '';
let restDone = '';

function step(): void {
  const req = latest;
  if (!req) { busy = false; return; }
  latest = null;
  const t0 = performance.now();
  /** when the worker started on this request (ms since the epoch, comparable with the page's clock) */
  const startedAt = performance.timeOrigin + t0;
  try {
    const key = req.problem + '\u0000' + Object.keys(req.urdfs).join(',');
    if (!layout || key !== layoutKey) {
      layout = null;
      layoutKey = key;
      restDone = '';
      layout = new LayoutAnalysis(req.problem, req.urdfs);
      const report = layout.first();
      const current = layout.at(req.q);
      post({ id: req.id, step: 'first', report, current, removed: layout.removed, startedAt, ms: performance.now() - t0 });
    } else {
      post({ id: req.id, step: 'at', current: layout.at(req.q), final: restDone === key, startedAt, ms: performance.now() - t0 });
    }
    if (restDone !== key) {
      // let a newer request in before the slower part
      latest ??= req;
      setTimeout(() => {
        if (latest !== req) return step();
        latest = null;
        const t1 = performance.now();
        try {
          const { report, flops, spy } = layout!.rest(req.q);
          restDone = key;
          post({ id: req.id, step: 'rest', report, flops, spy, ms: performance.now() - t1 });
        } catch (e) {
          post({ id: req.id, step: 'rest', error: (e as Error).message, ms: performance.now() - t1 });
        }
        step();
      }, 0);
      return;
    }
  } catch (e) {
    layout = null;
    layoutKey = '';
    post({ id: req.id, step: 'first', error: (e as Error).message, ms: performance.now() - t0 });
  }
  setTimeout(step, 0);
}

self.onmessage = (ev: MessageEvent<AnalysisRequest>) => {
  latest = ev.data;
  if (!busy) { busy = true; setTimeout(step, 0); }
};
