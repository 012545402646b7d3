/**
 * `sparsedyn estimate` with ROS 2 recordings (MCAP) end to end through main(): the shipped demo
 * bag is the project's generator's output for the demo log; estimates from the bag, written as
 * MCAP and read back, equal the NDJSON run's on the same samples (1e-12 relative), stamped with the
 * input's stamps; a recording that does not fit the problem is refused before any output exists.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { compress as zstd, decompress as unzstd, isLoaded as zstdLoaded } from '@foxglove/wasm-zstd';
import { McapStreamReader, McapWriter } from '@mcap/core';
import { Ajv2020 } from 'ajv/dist/2020.js';
import lz4 from 'lz4js';
import { describe, expect, it } from 'vitest';
import { asciiText, MemoryWritable, readMcapEstimates } from '../../src/io/mcap-estimates.ts';
import { loadEstimationSystem } from '../../src/node/problem-file.ts';
import { demoBag, DEMO_EPOCH_NS } from '../../scripts/make-demo-bag.ts';
import { runCli as run } from './run.ts';

const dir = mkdtempSync(join(tmpdir(), 'sparsedyn-mcap-'));
const DEMO = 'data/problems/humanoid-demo.json';
const BAG = 'data/demo/humanoid.mcap';
const ndjson = readFileSync('data/demo/humanoid.ndjson', 'utf8');
const bagBytes = readFileSync(BAG);
const SAMPLES = 100;
const file = (name: string, text: string | Uint8Array): string => { const f = join(dir, name); writeFileSync(f, text); return f; };
const rel = (a: number, b: number) => Math.abs(a - b) / Math.max(1, Math.abs(b));

/** The same recording with its chunks compressed (as rosbag2's storage presets and `mcap compress` write them). */
async function recompressed(bytes: Uint8Array, compression: 'zstd' | 'lz4'): Promise<Uint8Array> {
  await zstdLoaded;
  const out = new MemoryWritable();
  const w = new McapWriter({
    writable: out,
    chunkSize: 64 * 1024,
    compressChunk: (data) => ({ compression, compressedData: compression === 'zstd' ? zstd(data, 3) : Uint8Array.from(lz4.compress(data)) }),
  });
  const r = new McapStreamReader({ validateCrcs: true });
  r.append(bytes);
  const schemaIds = new Map<number, number>(), channelIds = new Map<number, number>();
  for (let rec; (rec = r.nextRecord());) {
    if (rec.type === 'Header') await w.start({ profile: rec.profile, library: rec.library });
    else if (rec.type === 'Schema') schemaIds.set(rec.id, await w.registerSchema({ name: rec.name, encoding: rec.encoding, data: rec.data }));
    else if (rec.type === 'Channel') channelIds.set(rec.id, await w.registerChannel({ topic: rec.topic, schemaId: schemaIds.get(rec.schemaId)!, messageEncoding: rec.messageEncoding, metadata: rec.metadata }));
    else if (rec.type === 'Message') await w.addMessage({ ...rec, channelId: channelIds.get(rec.channelId)! });
  }
  await w.end();
  return out.bytes();
}

describe('estimate with ROS 2 recordings (MCAP)', () => {
  it('the shipped demo bag is what scripts/make-demo-bag.ts makes of the demo log\'s first 100 samples', async () => {
    const made = await demoBag(ndjson, DEMO, SAMPLES);
    expect(Buffer.from(made).equals(bagBytes)).toBe(true);
  });

  it('round trip: estimates from the bag, written as MCAP and read back, equal the NDJSON run\'s (same samples, the input\'s stamps)', async () => {
    const lines = ndjson.trim().split('\n').slice(0, SAMPLES);
    const log = file('demo100.ndjson', lines.join('\n') + '\n');
    const a = await run(['estimate', DEMO, '--data', log, '--out', join(dir, 'ref.ndjson'), '--covariance', '--condition-limit', '3.5']);
    expect(a.code, a.err).toBe(0);
    const b = await run(['estimate', DEMO, '--data', BAG, '--out', join(dir, 'est.mcap'), '--covariance', '--condition-limit', '3.5']);
    expect(b.code, b.err).toBe(0);
    expect(b.err).toMatch(/log data\/demo\/humanoid\.mcap \(mcap\): samples estimated 100, rows skipped 0/);
    // the truth the bag carries (/truth/joint_torques, /truth/contact_wrench) gives the NDJSON run's accuracy figures
    const accuracy = (err: string) => /accuracy against the log's truth \(100 samples\):\n(?: {4}.*\n)+/.exec(err)?.[0];
    expect(accuracy(b.err)).toBeDefined();
    expect(accuracy(b.err)).toBe(accuracy(a.err));
    const ref = readFileSync(join(dir, 'ref.ndjson'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const got = readMcapEstimates(readFileSync(join(dir, 'est.mcap')));
    expect(got.length).toBe(ref.length);
    let worst = 0, flagged = 0;
    got.forEach((g, k) => {
      const r = ref[k];
      expect(g.line).toBe(k + 1);
      expect(g.stamp).toBe(DEMO_EPOCH_NS + BigInt(Math.round(r.t * 1e9)));
      expect([...g.tau.keys()]).toEqual(Object.entries(r.tau).flatMap(([n, x]) => (Array.isArray(x) ? x.map((_, i) => `${n}[${i}]`) : [n])));
      const rt = Object.values(r.tau).flat() as number[];
      [...g.tau.values()].forEach((x, i) => { worst = Math.max(worst, rel(x, rt[i])); });
      expect([...g.contact_wrenches.keys()]).toEqual(Object.keys(r.contact_wrenches));
      for (const [link, w] of g.contact_wrenches) {
        expect(w.frame).toBe(link);
        const rw = r.contact_wrenches[link];
        [...w.torque, ...w.force].forEach((x, i) => { worst = Math.max(worst, rel(x, [...rw.torque, ...rw.force][i])); });
      }
      expect(g.joint_wrenches.size).toBe(Object.keys(r.joint_wrenches).length);
      for (const [joint, rw] of Object.entries(r.joint_wrenches) as [string, { torque: number[]; force: number[] }][]) {
        const w = g.joint_wrenches.get(joint.replace(/[^A-Za-z0-9_]/g, '_'))!;
        [...w.torque, ...w.force].forEach((x, i) => { worst = Math.max(worst, rel(x, [...rw.torque, ...rw.force][i])); });
      }
      for (const [s, x] of g.residuals) worst = Math.max(worst, rel(x, r.residuals[s]));
      expect([...g.residuals.keys()]).toEqual(Object.keys(r.residuals));
      worst = Math.max(worst, rel(g.condition!, r.condition));
      const rs = Object.values(r.tau_std).flat() as number[];
      g.tau_std.forEach((x, i) => { worst = Math.max(worst, rel(x, rs[i])); });
      expect(g.nearSingular).toBe(r.near_singular === undefined ? undefined : asciiText(r.near_singular));
      if (g.nearSingular) flagged++;
      expect([...g.staleness!.values()].every((x) => x === 0)).toBe(true);
    });
    expect(worst).toBeLessThanOrEqual(1e-12);
    expect(flagged).toBeGreaterThan(0); // the limit 3.5 flags some samples: the flag and its direction went through
    // the joint wrench of a joint is in its child link's frame
    const { model } = loadEstimationSystem(DEMO);
    for (const j of ['l_knee', 'r_ankle_roll']) expect(got[0].joint_wrenches.get(j)!.frame).toBe(model.bodyNames[model.joint(j)]);
  });

  it('NDJSON and CSV out of a bag carry the stamps and each channel\'s staleness (NDJSON rows follow the estimates schema)', async () => {
    const r = await run(['estimate', DEMO, '--data', BAG, '--out', join(dir, 'bag.ndjson')]);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toMatch(/ROS 2 recording: samples at the stamps of \/joint_states, latest values, header stamps\n/);
    expect(r.err).toMatch(/largest staleness per channel: joints \/joint_states 0 s, base pose 0 s, base twist 0 s, encoders 0 s, imu_acc 0 s, ft_left 0 s, ft_right 0 s\n/);
    expect(readFileSync(join(dir, 'bag.ndjson.report.md'), 'utf8')).toMatch(/- largest staleness per channel: joints \/joint_states 0 s/);
    const rows = readFileSync(join(dir, 'bag.ndjson'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const validate = new Ajv2020({ strict: false }).compile(JSON.parse(readFileSync('schemas/estimates.schema.json', 'utf8')));
    for (const row of rows) expect(validate(row), JSON.stringify(validate.errors)).toBe(true);
    expect(rows[1].t).toBe(Number(DEMO_EPOCH_NS + 5_000_000n) / 1e9);
    expect(Object.keys(rows[0].staleness)).toEqual(['joints /joint_states', 'base pose', 'base twist', 'encoders', 'imu_acc', 'ft_left', 'ft_right']);
    const c = await run(['estimate', DEMO, '--data', BAG, '--out', join(dir, 'bag.csv')]);
    expect(c.code, c.err).toBe(0);
    const header = readFileSync(join(dir, 'bag.csv'), 'utf8').split('\n')[0];
    expect(header).toMatch(/,staleness\.ft_left \[s\]/);
  });

  it('bad messages are reported with topic and log time and skipped (exit 3); no NaN is written', async () => {
    // the generator's bag with the first left F/T message's torque.x a NaN
    const bad = await demoBag(ndjson, DEMO, SAMPLES, (topic, k, msg) => {
      const m = msg as { header: { frame_id: string }; wrench: { torque: { x: number } } };
      if (topic === '/ft' && k === 0 && m.header.frame_id === 'l_ankle_ft') m.wrench.torque.x = NaN;
    });
    const r = await run(['estimate', DEMO, '--data', file('nan.mcap', bad), '--out', join(dir, 'nan.ndjson')]);
    expect(r.code, r.err).toBe(3);
    expect(r.err).toMatch(/nan\.mcap: topic "\/ft", log time 1750000000\.000000000 s: skipped: ft_left: wrench\.torque\.x is NaN/);
    const out = readFileSync(join(dir, 'nan.ndjson'), 'utf8');
    expect(out).not.toMatch(/NaN|null/);
    // the first tick lacks ft_left (its only message before it was bad): skipped with the reason
    expect(r.err).toMatch(/sample 1 \(t = 1750000000\.000000000 s\): skipped: ft_left: no message at or before t/);
    expect(out.trim().split('\n').length).toBe(SAMPLES - 1);
    const report = readFileSync(join(dir, 'nan.ndjson.report.md'), 'utf8');
    expect(report).toMatch(/- topic "\/ft", log time 1750000000\.000000000 s: ft_left: wrench\.torque\.x is NaN/);
  });

  it('a sensor that drops out is left out of its samples with stale_sensors "leave_out": the estimates equal the NDJSON run\'s on rows without it', async () => {
    const lines = ndjson.trim().split('\n').slice(0, SAMPLES);
    const gap = (k: number) => k >= 10 && k < 20;
    const bag = await demoBag(ndjson, DEMO, SAMPLES, (topic, k, msg) => !(topic === '/ft' && gap(k) && (msg as { header: { frame_id: string } }).header.frame_id === 'l_ankle_ft'));
    const problem = JSON.parse(readFileSync(DEMO, 'utf8'));
    problem.model = resolve('models/humanoid.urdf');
    problem.ros.max_staleness = 0.001;
    problem.ros.stale_sensors = 'leave_out';
    const pf = file('leave-out.json', JSON.stringify(problem));
    const b = await run(['estimate', pf, '--data', file('gap.mcap', bag), '--out', join(dir, 'gap.ndjson'), '--no-condition']);
    expect(b.code, b.err).toBe(0);
    const ref = lines.map((l, k) => { const o = JSON.parse(l); if (gap(k)) delete o.sensors.ft_left; return JSON.stringify(o); });
    const a = await run(['estimate', pf, '--data', file('gap-log.ndjson', ref.join('\n') + '\n'), '--out', join(dir, 'gap-ref.ndjson'), '--no-condition']);
    expect(a.code, a.err).toBe(0);
    const got = readFileSync(join(dir, 'gap.ndjson'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const want = readFileSync(join(dir, 'gap-ref.ndjson'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(got.length).toBe(SAMPLES);
    let worst = 0;
    got.forEach((g, k) => {
      expect(g.sensors).toEqual(want[k].sensors);
      expect(g.sensors.includes('ft_left')).toBe(!gap(k));
      if (gap(k)) expect(g.staleness.ft_left).toBeGreaterThan(0.001);
      const flat = (o: unknown): number[] => (typeof o === 'number' ? [o] : Array.isArray(o) ? o.flatMap(flat) : typeof o === 'object' && o !== null ? Object.values(o).flatMap(flat) : []);
      const x = flat([g.tau, g.contact_wrenches, g.joint_wrenches, g.residuals]), y = flat([want[k].tau, want[k].contact_wrenches, want[k].joint_wrenches, want[k].residuals]);
      expect(x.length).toBe(y.length);
      x.forEach((v, i) => { worst = Math.max(worst, rel(v, y[i])); });
    });
    expect(worst).toBeLessThanOrEqual(1e-12);
  });

  it('recordings with zstd or lz4 chunks (rosbag2\'s compression presets) give the same estimates, byte for byte', async () => {
    const plain = await run(['estimate', DEMO, '--data', BAG, '--out', join(dir, 'plain.ndjson'), '--no-html']);
    expect(plain.code, plain.err).toBe(0);
    for (const c of ['zstd', 'lz4'] as const) {
      const bag = await recompressed(bagBytes, c);
      const kinds = new Set<string>();
      const packed = new McapStreamReader({ validateCrcs: true, includeChunks: true, decompressHandlers: { zstd: (d, size) => unzstd(d, Number(size)), lz4: (d) => Uint8Array.from(lz4.decompress(d)) } });
      packed.append(bag);
      for (let rec; (rec = packed.nextRecord());) if (rec.type === 'Chunk') kinds.add(rec.compression);
      expect([...kinds], c).toEqual([c]); // every chunk really is compressed
      expect(bag.length, c).toBeLessThan(bagBytes.length);
      const got = await run(['estimate', DEMO, '--data', file(`demo-${c}.mcap`, bag), '--out', join(dir, `${c}.ndjson`), '--no-html']);
      expect(got.code, got.err).toBe(0);
      expect(readFileSync(join(dir, `${c}.ndjson`), 'utf8'), c).toBe(readFileSync(join(dir, 'plain.ndjson'), 'utf8'));
    }
  });

  it('a recording that does not fit the problem is refused before any output exists (exit 2)', async () => {
    const noRos = JSON.parse(readFileSync(DEMO, 'utf8'));
    delete noRos.ros;
    noRos.model = resolve('models/humanoid.urdf');
    const p1 = file('noros.json', JSON.stringify(noRos));
    const out = join(dir, 'refused.ndjson');
    const a = await run(['estimate', p1, '--data', BAG, '--out', out]);
    expect(a.code).toBe(2);
    expect(a.err).toMatch(/humanoid\.mcap is a ROS 2 recording \(MCAP\): .*noros\.json needs a "ros" section/);
    const wrong = { ...noRos, ros: { ...JSON.parse(readFileSync(DEMO, 'utf8')).ros } };
    wrong.ros.sensors = { ...wrong.ros.sensors, ft_left: { topic: '/imu' } };
    const b = await run(['estimate', file('wrong.json', JSON.stringify(wrong)), '--data', BAG, '--out', out]);
    expect(b.code).toBe(2);
    expect(b.err).toMatch(/topic "\/imu" carries sensor_msgs\/msg\/Imu, which cannot give sensor "ft_left" \(force_torque\): expected geometry_msgs\/msg\/WrenchStamped/);
    const missing = { ...wrong, ros: { ...wrong.ros, sensors: { ...wrong.ros.sensors, ft_left: { topic: '/ft_left' } } } };
    const c = await run(['estimate', file('missing.json', JSON.stringify(missing)), '--data', BAG, '--out', out]);
    expect(c.code).toBe(2);
    expect(c.err).toMatch(/topic "\/ft_left" \(ft_left\) is not in the recording/);
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(dir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    expect(readFileSync(BAG).equals(bagBytes)).toBe(true);
  });

  it('standard input to standard output (the real command line): MCAP bytes in, MCAP bytes out, the same estimates as from files', async () => {
    const child = spawn(process.execPath, [resolve('bin/sparsedyn.mjs'), 'estimate', resolve(DEMO), '--data', '-', '--out', '-', '--no-condition'], { stdio: ['pipe', 'pipe', 'pipe'] });
    const parts: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (b: Buffer) => parts.push(b));
    child.stderr.on('data', (b) => { err += b; });
    child.stdin.end(bagBytes);
    const code = await new Promise<number | null>((res) => child.on('close', res));
    expect(code, err).toBe(0);
    const piped = readMcapEstimates(Buffer.concat(parts));
    const f = await run(['estimate', DEMO, '--data', BAG, '--out', join(dir, 'files.mcap'), '--no-condition']);
    expect(f.code, f.err).toBe(0);
    const files = readMcapEstimates(readFileSync(join(dir, 'files.mcap')));
    expect(piped.length).toBe(SAMPLES);
    expect(piped).toEqual(files);
    expect(piped[0].condition).toBeUndefined();
  });
});
