/**
 * A worker thread's batch (RowProcessor.run with its figures, as estimate-worker.ts runs it) parses
 * and estimates its rows pass by pass; a pass that meets a layout the worker was not given stops the
 * batch, which comes back naming every layout it lacks, and the session is put back as it was
 * (EstimationSession.checkpoint). Given those layouts, the batch is estimated exactly as by a worker
 * that had them from the start: the same results, texts, report values and figures (but timings), and
 * the same figures for the next batch.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { RESTART_ROWS, RowProcessor, type BatchResult, type InputRow, type RowSetup } from '../../src/cli/estimate-rows.ts';
import { EstimationSession } from '../../src/estimation/session.ts';
import { loadEstimationSystem } from '../../src/node/problem-file.ts';

const { es } = loadEstimationSystem('data/problems/humanoid-demo.json');
const demo = readFileSync('data/demo/humanoid.ndjson', 'utf8').trim().split('\n');

/** up to 200 rows of the demo log from row from + 1: a knee beyond its limits at the batch's 11th, no left F/T reading at its 71st–75th and none of either at its 140th */
function batch(from: number): InputRow[] {
  return demo.slice(from, from + 200).map((text, k) => {
    const o = JSON.parse(text);
    if (k === 10) o.q.l_knee = 40;
    if (k >= 70 && k < 75) delete o.sensors.ft_left;
    if (k === 139) { delete o.sensors.ft_left; delete o.sensors.ft_right; }
    return { kind: 'ndjson', line: from + k + 1, text: JSON.stringify(o) };
  });
}

/** a batch's result without its timings */
const untimed = (b: BatchResult) => ({ ...b, stats: { ...b.stats, times: b.stats.times.length, condTimes: b.stats.condTimes.length, badTimes: b.stats.badTimes.length } });

describe('a worker\'s batch that meets a layout it lacks', () => {
  const main = new EstimationSession(es, { compareTruth: false });
  const offline = main.offline();

  for (const outFormat of ['ndjson', 'parquet'] as const) {
    it(`${outFormat}: comes back naming every layout it lacks, then is estimated as by a worker that had them`, () => {
      const setup: RowSetup = { outFormat, schema: {}, withEstimates: true };
      const lacking = new RowProcessor(new EstimationSession(es, { offline, givenOnly: true, compareTruth: false }), setup);
      const first = lacking.run(batch(0), true, RESTART_ROWS);
      expect(first.results).toEqual([]);
      const need = first.need!;
      expect(need.length).toBe(2);
      for (const l of need) expect(l.sensors).not.toContain('ft_left');
      const layouts = need.map((l) => main.layouts.offlineOf(l));
      // the session was put back: nothing of the abandoned attempt remains in its figures
      expect(lacking.session.stats.samples).toBe(0);
      expect([...lacking.session.layouts.seen.values()].map((v) => v.samples)).toEqual([0]);
      lacking.session.layouts.give(layouts);

      const given = new RowProcessor(new EstimationSession(es, { offline: [...offline, ...layouts], givenOnly: true, compareTruth: false }), setup);
      for (const from of [0, 200]) {
        const a = lacking.run(batch(from), true, RESTART_ROWS), b = given.run(batch(from), true, RESTART_ROWS);
        expect(a.need).toBeUndefined();
        expect(a.results.filter((r) => r.kind === 'ok').length).toBeGreaterThan(0.9 * a.results.length);
        expect(a.stats.implausibleFirst.map(([k]) => k), `rows from ${from + 1}`).toEqual(from === 0 ? ['q.l_knee'] : []);
        expect(a.stats.layouts.length).toBe(from === 0 ? 3 : 2);
        expect(untimed(a)).toEqual(untimed(b));
      }
    });
  }
});
