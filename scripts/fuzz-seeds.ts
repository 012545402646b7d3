/**
 * Writes the seed inputs of the fuzz targets (spec/fuzz/corpus/<target>/seed-*) from the
 * repository's own files: the shipped URDFs, problem files and demo logs (the first rows, and a
 * recording of the first samples), small matrices, a reference file of models/chain6.urdf computed
 * by our own RNEA and CRBA, and saved symbolic analyses. Inputs the fuzzer kept for new coverage
 * (cov-*) are not touched.
 * Run: npx tsx scripts/fuzz-seeds.ts
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { demoBag } from './make-demo-bag.ts';
import { LogSchema } from '../src/io/log.ts';
import { loadEstimationSystem } from '../src/node/problem-file.ts';
import { loadUrdf } from '../src/node/urdf-file.ts';
import { rnea, RneaWorkspace } from '../src/algorithms/rnea.ts';
import { crba, CrbaWorkspace } from '../src/algorithms/crba.ts';
import { aba, AbaWorkspace } from '../src/algorithms/aba.ts';
import { compress } from '../src/sparse/compress.ts';
import { analyze } from '../src/sparse/analyze.ts';
import { formatMatrixMarket, formatTriplet } from '../src/sparse/io.ts';
import { Rng } from '../src/model/rng.ts';

const OUT = 'spec/fuzz/corpus';
const put = (target: string, name: string, data: string | Uint8Array): void => {
  mkdirSync(join(OUT, target), { recursive: true });
  writeFileSync(join(OUT, target, `seed-${name}`), data);
};

// URDF: the shipped models
put('urdf', 'chain6.urdf', readFileSync('models/chain6.urdf'));
put('urdf', 'humanoid.urdf', readFileSync('models/humanoid.urdf'));

// problem files, their URDF looked up in models/
for (const f of ['humanoid-demo', 'humanoid-ft', 'humanoid-walk']) {
  put('problem', `${f}.json`, readFileSync(`data/problems/${f}.json`, 'utf8').replace('../../models/humanoid.urdf', 'humanoid.urdf'));
}
put('problem', 'chain.json', JSON.stringify({ model: 'chain:4', base: 'fixed', sensors: [{ name: 'enc', type: 'joint_acceleration', joints: 'all' }, { name: 'acc', type: 'accelerometer', link: 'link4', origin: { xyz: [0, 0, 0.1] } }] }, null, 1));

// logs: the demo log's first rows, as NDJSON and as CSV
const rows = readFileSync('data/demo/humanoid.ndjson', 'utf8').split('\n').slice(0, 3);
put('ndjson', 'demo3.ndjson', rows.join('\n') + '\n');
put('ndjson', 'demo1.ndjson', rows[0] + '\n');
const { es } = loadEstimationSystem('data/problems/humanoid-demo.json');
const header = new LogSchema(es).csvHeader();
const cell = (o: Record<string, unknown>, path: string): string => {
  // "q.l_knee", "base.qw", "imu_acc.ax"… from the NDJSON row
  const [head, rest] = [path.slice(0, path.indexOf('.')), path.slice(path.indexOf('.') + 1)];
  if (path === 't') return String(o.t);
  if (head === 'q' || head === 'v') return String((o[head] as Record<string, number>)[rest] ?? '');
  if (head === 'base') {
    const b = o.base as Record<string, number[]>;
    const i = { x: 0, y: 1, z: 2, qx: 0, qy: 1, qz: 2, qw: 3 }[rest.replace(/^(v|w)/, '')] ?? 0;
    const key = /^q/.test(rest) ? 'quaternion' : /^v/.test(rest) ? 'linear_velocity' : /^w/.test(rest) ? 'angular_velocity' : 'position';
    return b[key] ? String(b[key][i]) : '';
  }
  const s = (o.sensors as Record<string, unknown>)[head];
  if (Array.isArray(s)) return '';
  return s && typeof s === 'object' ? String((s as Record<string, number>)[rest] ?? '') : '';
};
const csvRows = rows.map((r) => JSON.parse(r) as Record<string, unknown>).map((o) => header.map((h) => cell(o, h)).join(','));
put('csv', 'demo3.csv', [header.join(','), ...csvRows].join('\n') + '\n');

// a recording of the demo log's first samples
put('mcap', 'demo5.mcap', await demoBag(readFileSync('data/demo/humanoid.ndjson', 'utf8'), 'data/problems/humanoid-demo.json', 5));

// matrices
const rng = new Rng(7);
const Ti: number[] = [], Tj: number[] = [], Tx: number[] = [];
for (let i = 0; i < 12; i++) { Ti.push(i); Tj.push(i); Tx.push(4 + rng.next()); if (i + 1 < 12) { Ti.push(i + 1); Tj.push(i); Tx.push(-1); Ti.push(i); Tj.push(i + 1); Tx.push(rng.next() - 0.5); } }
const A = compress(12, 12, Ti, Tj, Tx).A;
put('matrix', 'band12.mtx', formatMatrixMarket(A));
put('matrix', 'band12.tri', formatTriplet(A));
put('matrix', 'sym.mtx', '%%MatrixMarket matrix coordinate real symmetric\n% c\n3 3 4\n1 1 4\n2 1 1\n2 2 3\n3 3 2\n');
put('matrix', 'pattern.mtx', '%%MatrixMarket matrix coordinate pattern general\n3 3 3\n1 1\n2 2\n3 3\n');

// a reference file of models/chain6.urdf: the values of our own RNEA, ABA and CRBA
const model = loadUrdf('models/chain6.urdf', {});
const nv = model.nv;
const cases = [0, 1].map((k) => {
  const q = Array.from({ length: nv }, (_, i) => Math.sin(1 + i + k)), v = Array.from({ length: nv }, (_, i) => Math.cos(i * k)), a = Array.from({ length: nv }, (_, i) => 0.1 * i - k);
  const zero = new Float64Array(nv);
  const tau = Array.from(rnea(model, new RneaWorkspace(model), q, v, a));
  const M = crba(model, new CrbaWorkspace(model), q);
  const rowsOf = (X: ArrayLike<number>): number[][] => Array.from({ length: nv }, (_, i) => Array.from({ length: nv }, (_, j) => X[i * nv + j]));
  // M⁻¹ column by column from ABA with zero velocity and gravity: q̈ = M⁻¹ τ
  const g0 = loadUrdf('models/chain6.urdf', { gravity: [0, 0, 0] });
  const Minv = new Float64Array(nv * nv);
  for (let j = 0; j < nv; j++) { const e = new Float64Array(nv); e[j] = 1; const x = aba(g0, new AbaWorkspace(g0), q, null, e); for (let i = 0; i < nv; i++) Minv[i * nv + j] = x[i]; }
  return {
    q, v, a, tau, rnea_tau: tau, aba_ddq: a,
    nle: Array.from(rnea(model, new RneaWorkspace(model), q, v, zero)),
    gravity_torque: Array.from(rnea(model, new RneaWorkspace(model), q, null, zero)),
    M: rowsOf(M), Minv: rowsOf(Minv),
  };
});
const joints = model.movingJoints().map((j) => ({ name: j.name, type: 'JointModelRevoluteUnaligned', idx_q: j.iq, nq: 1, idx_v: j.iv, nv: 1 }));
put('reference', 'chain6.fixed.json', JSON.stringify({ model_file: 'chain6.urdf', base: 'fixed', gravity: [0, 0, -9.81], nq: model.nq, nv, joints, cases }, null, 1));

// saved symbolic analyses: of the band matrix, and of a matrix with a larger block
put('symbolic', 'band12.json', JSON.stringify(analyze(A).toJSON()));
const B = compress(5, 5, [0, 1, 2, 3, 4, 0, 4, 2], [0, 1, 2, 3, 4, 4, 0, 1], [2, 3, 4, 5, 6, 1, 1, 1]).A;
put('symbolic', 'cycle5.json', JSON.stringify(analyze(B).toJSON()));
console.log('fuzz seeds written to', OUT);
