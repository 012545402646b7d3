/**
 * `estimate --jobs N`: the estimates written with a pool of worker threads are the same, byte for
 * byte and in the same order, as with one job, for NDJSON, CSV and ROS 2 recordings (MCAP, sampled
 * in the main thread, estimated in the workers), written as NDJSON, CSV or MCAP, with skipped rows
 * among them; the summary and the report agree but for the timings. Run in this process (the workers load the
 * sources through tsx) and as the built command line (the workers run dist/cli/estimate-worker.cjs).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadEstimationSystem } from '../../src/node/problem-file.ts';
import { EstimationSession } from '../../src/estimation/session.ts';
import { LogSchema, parseNdjsonLine, type Sample } from '../../src/io/log.ts';
import { ensureBuilt } from '../package/dist.ts';
import { Rng } from '../../src/model/rng.ts';
import { runCli as run } from './run.ts';
import { slipperyProblem, syntheticRow, toCsv } from './synthetic.ts';
import { demoBag } from '../../scripts/make-demo-bag.ts';
import { asciiText, readMcapEstimates } from '../../src/io/mcap-estimates.ts';

const DEMO = 'data/problems/humanoid-demo.json';
const dir = mkdtempSync(join(tmpdir(), 'sparsedyn-jobs-'));
const demo = readFileSync('data/demo/humanoid.ndjson', 'utf8').trim().split('\n');

/** the demo's rows with a malformed row, a row whose values are out of range, and a blank line (300 rows: three batches) */
function rows(): string[] {
  const r = [...demo];
  r[40] = '{"t": 0.2, "q": [1, 2';
  const big = JSON.parse(r[170]);
  big.v.l_knee = 1e200;
  r[170] = JSON.stringify(big);
  r.splice(200, 0, '');
  return r;
}


/**
 * rows of the walking log where every tenth loses its left F/T reading (estimated from the others)
 * and every seventh both (in double support: ill posed, skipped; those rows still count among the
 * mode switches)
 */
function withMissingReadings(walk: string[]): string[] {
  return walk.map((l, k) => {
    if (k % 10 !== 5 && k % 7 !== 3) return l;
    const o = JSON.parse(l);
    delete o.sensors.ft_left;
    if (k % 7 === 3) delete o.sensors.ft_right;
    return JSON.stringify(o);
  });
}

/** the HTML report's charts (their data, from the page's script) */
const charts = (html: string) => { const k = html.indexOf('const CHARTS = '); return k < 0 ? '' : html.slice(k, html.indexOf('\n', k)); };
/** the report (or summary) without its timings (µs, ms) and the summary's line on threads */
const untimed = (s: string) => s.replace(/\n {2}threads: [^\n]*/g, '').replace(/[0-9.,]+ (µs|ms)/g, 'T').replace(/-[123]\.(ndjson|csv|report)/g, '-N.$1');

describe('estimate --jobs N', () => {
  const ndjson = join(dir, 'log.ndjson'), csv = join(dir, 'log.csv');
  beforeAll(() => {
    writeFileSync(ndjson, rows().join('\n') + '\n');
    writeFileSync(csv, toCsv(rows()));
  });

  for (const [fmt, log] of [['NDJSON', ndjson], ['CSV', csv]] as const) {
    it(`${fmt}: the same bytes in the same order with 1, 2 and 3 jobs, the same skipped rows, summary and report (but timings)`, async () => {
      const out: { text: string; report: string; html: string; err: string; code: number }[] = [];
      for (const jobs of [1, 2, 3]) {
        const o = join(dir, `${fmt}-${jobs}.${fmt.toLowerCase()}`);
        const r = await run(['estimate', DEMO, '--data', log, '--out', o, '--jobs', String(jobs), '--covariance']);
        out.push({ text: readFileSync(o, 'utf8'), report: readFileSync(`${o}.report.md`, 'utf8'), html: readFileSync(`${o}.report.html`, 'utf8'), err: r.err, code: r.code });
      }
      expect(out[0].code).toBe(3);
      expect(out[0].text.trim().split('\n').length).toBe(fmt === 'CSV' ? 1 + 298 : 298);
      expect(out[0].err).toMatch(fmt === 'CSV' ? /:42: skipped: / : /:41: skipped: not valid JSON/);
      expect(out[0].err).toMatch(fmt === 'CSV' ? /:172: skipped: .*not finite/ : /:171: skipped: .*not finite/);
      for (const o of out.slice(1)) {
        expect(o.code).toBe(out[0].code);
        expect(o.text === out[0].text).toBe(true);
        expect(untimed(o.report)).toBe(untimed(out[0].report));
        expect(untimed(o.err)).toBe(untimed(out[0].err));
        // the HTML report's charts: the same series, truth and ±2σ bands (from the workers' rows of report values)
        expect(untimed(charts(o.html))).toBe(untimed(charts(out[0].html)));
      }
      expect(charts(out[0].html)).toMatch(/"id":"tau-l_knee-Nm"/);
      expect(charts(out[0].html)).toMatch(/"band":\{"name":"±2σ[^"]*","lo":\[-?[0-9]/);
      if (fmt === 'NDJSON') expect(charts(out[0].html)).toMatch(/"name":"truth"/);
    });
  }

  it('flagged samples (near a singular configuration) across batches: the same bytes, each run of them named at its first sample', async () => {
    const pf = join(dir, 'slippery.json');
    writeFileSync(pf, JSON.stringify(slipperyProblem(`${process.cwd()}/models/humanoid.urdf`)));
    const { es } = loadEstimationSystem(pf);
    const rng = new Rng(5);
    const legs = ['hip_yaw', 'hip_roll', 'hip_pitch', 'knee', 'ankle_pitch', 'ankle_roll'];
    const wrenches = { l_sole: [4, -3, 2, 0, 0, 300], r_sole: [-2, 5, -1, 0, 0, 280] };
    // runs of samples near the singular neutral pose, broken now and then by a typical configuration
    const log = join(dir, 'slippery.ndjson');
    const lines: string[] = [];
    // (three ranges of the log, read by the workers: runs that cross from one to the next; where one
    // does, a configuration further from the pose in the same run whose direction is named otherwise,
    // so that the worker of the next range names the run otherwise than its first sample)
    const probe = new EstimationSession(es, { compareTruth: false }), schema = new LogSchema(es, {});
    const flagOf = (line: string) => {
      probe.breakRun();
      const o = probe.estimate(parseNdjsonLine(schema, line, 1) as Sample);
      return o.ok ? { key: o.record.flag_key, direction: o.record.near_singular } : {};
    };
    let first: { key?: string; direction?: string } = {};
    for (let k = 0; k < 1300; k++) {
      const w = k % 97 === 50 ? 0.6 : 0.01;
      for (let tries = 0; ; tries++) {
        const far = k % 512 === 0 && k > 0;
        const v = far ? 0.2 : w;
        const q = Object.fromEntries(legs.flatMap((j) => [[`l_${j}`, rng.uniform(-v, v)], [`r_${j}`, rng.uniform(-v, v)]]));
        const line = JSON.stringify(syntheticRow(es, { t: k * 0.01, q, wrenches }, rng));
        if (k === 0) first = flagOf(line);
        if (far) {
          expect(tries).toBeLessThan(2000);
          const f = flagOf(line);
          if (f.key !== first.key || f.direction === first.direction) continue;
        }
        lines.push(line);
        break;
      }
    }
    writeFileSync(log, lines.join('\n') + '\n');
    const texts: string[] = [], bags: Buffer[] = [];
    for (const jobs of [1, 2]) {
      const o = join(dir, `slip-${jobs}.ndjson`);
      const r = await run(['estimate', pf, '--data', log, '--out', o, '--jobs', String(jobs), '--no-html', '-q']);
      expect(r.code).toBe(0);
      texts.push(readFileSync(o, 'utf8'));
      // the same as MCAP: the status messages carry each run's direction as named at its first sample
      const m = join(dir, `slip-${jobs}.mcap`);
      expect((await run(['estimate', pf, '--data', log, '--out', m, '--jobs', String(jobs), '--no-html', '-q'])).code).toBe(0);
      bags.push(readFileSync(m));
    }
    const flagged = texts[0].trim().split('\n').filter((l) => l.includes('"near_singular"'));
    expect(flagged.length).toBeGreaterThan(1000);
    expect(texts[1] === texts[0]).toBe(true);
    expect(Buffer.compare(bags[1], bags[0])).toBe(0);
    const status = readMcapEstimates(bags[0]);
    const fromText = texts[0].trim().split('\n').map((l) => JSON.parse(l) as { line: number; near_singular?: string });
    expect(status.map((x) => [x.line, x.nearSingular])).toEqual(fromText.map((x) => [x.line, x.near_singular === undefined ? undefined : asciiText(x.near_singular)]));
  }, 180_000);

  it('a ROS 2 recording (MCAP) in, MCAP, NDJSON and CSV out, through the built command line: the same bytes, skipped samples, summary and report with 2 jobs as with 1', async () => {
    ensureBuilt();
    // 300 samples (three batches), a bad message and the tick it leaves without a value, and a sample whose inputs are out of range
    const bag = join(dir, 'log.mcap');
    writeFileSync(bag, await demoBag(demo.join('\n') + '\n', DEMO, Infinity, (topic, k, msg) => {
      const m = msg as { header: { frame_id: string }; wrench: { torque: { x: number } }; twist: { twist: { linear: { x: number } } } };
      if (topic === '/ft' && (k === 0 || k === 150) && m.header.frame_id === 'l_ankle_ft') m.wrench.torque.x = NaN;
      if (topic === '/odom' && k === 170) m.twist.twist.linear.x = 1e200;
    }));
    for (const fmt of ['mcap', 'ndjson', 'csv']) {
      const out = [1, 2].map((jobs) => {
        const o = join(dir, `bag-${jobs}.${fmt}`);
        const r = spawnSync(process.execPath, [resolve('bin/sparsedyn.mjs'), 'estimate', DEMO, '--data', bag, '--out', o, '--jobs', String(jobs), '--no-html'], { encoding: 'utf8' });
        return { code: r.status, err: r.stderr, bytes: readFileSync(o), report: readFileSync(`${o}.report.md`, 'utf8') };
      });
      expect(out[0].code, out[0].err).toBe(3);
      expect(out[0].err).toMatch(/sample 1 \(t = 1750000000\.000000000 s\): skipped: ft_left: no message at or before t/);
      expect(out[0].err).toMatch(/topic "\/ft", log time 1750000000\.750000000 s: skipped: ft_left: wrench\.torque\.x is NaN/);
      expect(out[0].err).toMatch(/sample 171 \(t = 1750000000\.850000000 s\): skipped: .*not finite/);
      expect(out[1].code).toBe(3);
      expect(Buffer.compare(out[1].bytes, out[0].bytes), fmt).toBe(0);
      expect(untimed(out[1].err).replace(/bag-2/g, 'bag-1')).toBe(untimed(out[0].err));
      expect(untimed(out[1].report).replace(/bag-2/g, 'bag-1')).toBe(untimed(out[0].report));
      if (fmt === 'mcap') expect(readMcapEstimates(out[0].bytes).length).toBe(298);
      else expect(out[0].bytes.toString('utf8').trim().split('\n').length).toBe(fmt === 'csv' ? 1 + 298 : 298);
    }
  }, 120_000);

  it('contact modes and missing readings (the walking log): each layout analysed once in the main thread; layouts met, offline analyses and mode switches as with one job, the same bytes', async () => {
    const WALK = 'data/problems/humanoid-walk.json';
    const walk = readFileSync('data/demo/humanoid-walk.ndjson', 'utf8').trim().split('\n');
    const missing = join(dir, 'walk-missing.ndjson');
    writeFileSync(missing, withMissingReadings(walk).join('\n') + '\n');
    const counts = /layouts met \d+ \(sensor subset x contact mode\), offline analyses \d+; mode switches \d+, of which to a layout seen before \d+, costing \d+ new analyses/;
    for (const [log, jobsList, want] of [
      ['data/demo/humanoid-walk.ndjson', [1, 2], 'layouts met 3 (sensor subset x contact mode), offline analyses 3; mode switches 7, of which to a layout seen before 5, costing 0 new analyses'],
      [missing, [1, 2, 3], 'layouts met 6 (sensor subset x contact mode), offline analyses 6; mode switches 144, of which to a layout seen before 139, costing 0 new analyses'],
    ] as const) {
      const out = [];
      for (const jobs of jobsList) {
        const o = join(dir, `walk-${jobs}.ndjson`);
        const r = await run(['estimate', WALK, '--data', log, '--out', o, '--jobs', String(jobs), '--no-html', '-q']);
        out.push({ code: r.code, text: readFileSync(o, 'utf8'), counts: counts.exec(r.err)?.[0], report: readFileSync(`${o}.report.md`, 'utf8') });
      }
      expect(out[0].counts, log).toBe(want);
      for (const o of out.slice(1)) {
        expect(o.code).toBe(out[0].code);
        expect(o.counts, log).toBe(out[0].counts);
        expect(o.text === out[0].text, log).toBe(true);
        expect(untimed(o.report)).toBe(untimed(out[0].report));
      }
    }
  }, 180_000);

  it('without --jobs, the worker threads start when the log is long enough: the rows before in this thread, the same bytes, counts and report as one job', async () => {
    // the walking log with missing readings (layout switches, ill-posed rows skipped), twice: 640 rows;
    // the worker threads told to start as soon as the pace is known (after two batches of 128 rows)
    const walk = readFileSync('data/demo/humanoid-walk.ndjson', 'utf8').trim().split('\n');
    const long = join(dir, 'walk-long.ndjson');
    writeFileSync(long, withMissingReadings([...walk, ...walk]).join('\n') + '\n');
    const counts = /layouts met \d+ \(sensor subset x contact mode\), offline analyses \d+; mode switches \d+, of which to a layout seen before \d+, costing \d+ new analyses/;
    const out = [];
    for (const auto of [false, true]) {
      const o = join(dir, `walk-long-${auto ? 'auto' : '1'}.ndjson`);
      const before = process.env.SPARSEDYN_POOL_MIN_SECONDS;
      if (auto) process.env.SPARSEDYN_POOL_MIN_SECONDS = '0';
      let r;
      try {
        r = await run(['estimate', 'data/problems/humanoid-walk.json', '--data', long, '--out', o, ...(auto ? [] : ['--jobs', '1']), '--no-html', '-q']);
      } finally {
        if (before === undefined) delete process.env.SPARSEDYN_POOL_MIN_SECONDS; else process.env.SPARSEDYN_POOL_MIN_SECONDS = before;
      }
      expect(r.err).toMatch(auto && availableParallelism() > 1 ? /\n {2}threads: \d+ worker threads (\(reading and parsing their own ranges of the log\) )?from row 257 on \(rows 1 to 256 in this one\)\n/ : /\n {2}threads: this one\n/);
      out.push({ code: r.code, text: readFileSync(o, 'utf8'), counts: counts.exec(r.err)?.[0], report: readFileSync(`${o}.report.md`, 'utf8') });
    }
    expect(out[0].counts).toMatch(/layouts met 6 .* mode switches \d+, of which to a layout seen before \d+, costing 0 new analyses/);
    expect(out[1].code).toBe(out[0].code);
    expect(out[1].counts).toBe(out[0].counts);
    expect(out[1].text === out[0].text).toBe(true);
    expect(untimed(out[1].report).replace(/walk-long-auto/g, 'walk-long-1')).toBe(untimed(out[0].report));
  }, 180_000);

  it('without --jobs, a short log runs in this thread (worker threads would cost more than they save), with the same bytes', async () => {
    const o = join(dir, 'short-default.ndjson'), o1 = join(dir, 'short-1.ndjson');
    const r = await run(['estimate', DEMO, '--data', ndjson, '--out', o, '--no-html', '-q']);
    const r1 = await run(['estimate', DEMO, '--data', ndjson, '--out', o1, '--jobs', '1', '--no-html', '-q']);
    expect(r.err).toMatch(availableParallelism() > 1 ? /\n {2}threads: this one \(a short log: about [0-9.]+ s of work; worker threads pay from about 2 s\)\n/ : /\n {2}threads: this one\n/);
    expect(r1.err).toMatch(/\n {2}threads: this one\n/);
    expect(readFileSync(o, 'utf8')).toBe(readFileSync(o1, 'utf8'));
  });

  it('--jobs must be a whole number from 1', async () => {
    for (const bad of ['0', 'two', '1.5', '-1']) {
      const r = await run(['estimate', DEMO, '--data', ndjson, '--out', join(dir, 'bad.ndjson'), '--jobs', bad]);
      expect(r.code).toBe(2);
      expect(r.err).toMatch(/--jobs must be a whole number/);
    }
  });

  it('the built command line (dist/cli/sparsedyn.cjs, workers from dist/cli/estimate-worker.cjs) writes the same bytes with 2 jobs as with 1', () => {
    ensureBuilt();
    const texts = [1, 2].map((jobs) => {
      const o = join(dir, `bin-${jobs}.ndjson`);
      const r = spawnSync(process.execPath, [resolve('bin/sparsedyn.mjs'), 'estimate', DEMO, '--data', ndjson, '--out', o, '--jobs', String(jobs), '-q'], { encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(3);
      return readFileSync(o, 'utf8');
    });
    expect(texts[1] === texts[0]).toBe(true);
    expect(texts[0].trim().split('\n').length).toBe(298);
  }, 60_000);
});
