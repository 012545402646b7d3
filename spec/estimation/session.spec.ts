/**
 * EstimationSession (browser-safe per-row estimation): a parsed row in, an estimate record out,
 * identical to the Estimator's own solve on the same inputs; bad rows come back as reasons, never
 * as exceptions; an ill-posed layout gets no estimator.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Estimator } from '../../src/estimation/estimator.ts';
import { ByteOutput } from '../../src/text/byte-output.ts';
import { EstimationSession } from '../../src/estimation/session.ts';
import { inputsFromReadings } from '../../src/estimation/synthesize.ts';
import { LogSchema, parseNdjsonLine, type Sample } from '../../src/io/log.ts';
import { loadEstimationSystem } from '../../src/node/problem-file.ts';

const DEMO = 'data/problems/humanoid-demo.json';
const LOG = 'data/demo/humanoid.ndjson';

describe('EstimationSession', () => {
  const { es } = loadEstimationSystem(DEMO);
  const schema = new LogSchema(es);
  const rows = readFileSync(LOG, 'utf8').split('\n').slice(0, 5).map((l, k) => parseNdjsonLine(schema, l, k + 1) as Sample);

  it('turns a parsed row into the record of the estimator\'s own solve, with stats and truth', () => {
    const session = new EstimationSession(es, { condition: true });
    const est = new Estimator(es);
    const y = new Float64Array(es.sys.ny);
    for (const s of rows) {
      const out = session.estimate(s);
      expect(out.ok).toBe(true);
      if (!out.ok) continue;
      const d = est.estimate(s.q, s.v, inputsFromReadings(es, s.readings, y));
      const tau = out.record.estimate.tau.l_knee as number;
      expect(tau).toBe(d[es.sys.layout.tau[es.model.joint('l_knee')]]);
      expect(out.record.line).toBe(s.line);
      expect(out.record.condition).toBeGreaterThan(0);
      const json = session.toJson(out.record);
      expect(Object.keys(json).slice(0, 3)).toEqual(['t', 'line', 'condition']);
      expect(session.toColumns(out.record).get('tau.l_knee')).toBe(tau);
    }
    expect(session.stats.samples).toBe(rows.length);
    expect(session.stats.times.length).toBe(rows.length);
    expect(session.truth.samples).toBe(rows.length);
  });

  it('a row whose readings are not finite is returned as a reason naming the input', () => {
    const session = new EstimationSession(es, { condition: false });
    const s = rows[0];
    const bad: Sample = { ...s, readings: new Map(s.readings) };
    bad.readings.set('ft_left', Float64Array.from([0, 0, 0, 0, 0, 1e308 * 10]));
    const out = session.estimate(bad);
    expect(out.ok).toBe(false);
    if (!out.ok) expect(out.message).toMatch(/ft_left.*not finite|not finite/);
    expect(session.stats.samples).toBe(0);
  });
});

describe('EstimationSession.cells', () => {
  it('the CSV cells read straight from a record equal those looked up by column name, the CSV line equals the cells quoted and joined, and the NDJSON text written part by part equals JSON.stringify of the object (full and partial rows, tau_std, bad data, condition)', () => {
    const { es } = loadEstimationSystem(DEMO);
    for (const opts of [{ covariance: true }, { condition: false, confidence: 0 }]) {
      const session = new EstimationSession(es, opts);
      const schema = new LogSchema(es);
      const lines = readFileSync(LOG, 'utf8').trim().split('\n').slice(0, 6).map((l) => JSON.parse(l));
      delete lines[2].sensors.ft_left; // a partial row
      let n = 0;
      lines.forEach((o, k) => {
        const s = parseNdjsonLine(schema, JSON.stringify(o), k + 1) as Sample;
        const out = session.estimate(s);
        if (!out.ok) return;
        n++;
        const cells = session.cells(out.record);
        expect(cells.length).toBe(session.columns().length);
        expect(cells).toEqual(session.cellsByName(out.record));
        expect(session.toJsonText(out.record)).toBe(JSON.stringify(session.toJson(out.record)));
        expect(session.toJsonText({ ...out.record, near_singular: 'w[l_sole].tz "quoted"', condition: 12.5 })).toBe(JSON.stringify(session.toJson({ ...out.record, near_singular: 'w[l_sole].tz "quoted"', condition: 12.5 })));
        // the CSV line (numbers through one JSON text) equals the cells quoted and joined, also with text that needs quotes and a value that is not finite
        const quote = (x: string) => (/[",\n]/.test(x) ? `"${x.replace(/"/g, '""')}"` : x);
        for (const r of [out.record, { ...out.record, mode: 'a,"b"', sensors: ['x', 'y,z'], t: -0 }, { ...out.record, condition: Number.NaN, line: 1e21 }]) {
          expect(session.csvLine(r)).toBe(session.cells(r).map(quote).join(','));
        }
        const broken = { ...out.record, estimate: { ...out.record.estimate, residuals: { ...out.record.estimate.residuals, [Object.keys(out.record.estimate.residuals)[0]]: Number.POSITIVE_INFINITY } } };
        expect(session.csvLine(broken)).toBe(session.cells(broken).map(quote).join(','));
        // the same lines written as UTF-8 bytes, one after the other (a mode and sensor names beyond ASCII included)
        const bytes = new ByteOutput(16), want: string[] = [];
        for (const r of [out.record, { ...out.record, mode: 'pied gauche · ü', sensors: ['capteur é', 'y,z'], near_singular: 'w[l_sole].tz "ß"' }, broken]) {
          session.writeJson(r, bytes); session.writeCsv(r, bytes);
          want.push(session.toJsonText(r), session.csvLine(r));
        }
        expect(new TextDecoder().decode(bytes.take())).toBe(want.join(''));
        expect(want[2]).toContain('"pied gauche · ü"');
      });
      expect(n).toBeGreaterThanOrEqual(5);
    }
  });
});
