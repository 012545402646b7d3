/**
 * Benchmark of the sparse engine on the robot matrices of ../shared/sparse-bench, beside the clone
 * (or the folder given as first argument; without it the script says so and exits 1):
 * our analysis, factor flops, refactor and solve times next to KLU's figures from that folder's
 * README, and mathjs `slu`/`lusolve` as the JavaScript peer on the same matrices.
 * Writes reports/bench-sparse.md. Run: npx tsx scripts/bench-sparse.ts [dir]
 *
 * Timing: inputs are prepared before the timer; each figure is the median of many runs (after a
 * warm-up) timed one by one with process.hrtime; an empty call's median is given as the baseline.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve, basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { create, all } from 'mathjs';
import { analyze, factor, relativeResidual, type CscMatrix, type NumericLU, type SymbolicLU } from '../src/sparse/index.ts';
import { readMatrix } from '../src/node/matrix-file.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const benchDir = resolve(root, process.argv[2] ?? process.env.SPARSE_BENCH_DIR ?? '../shared/sparse-bench');
const reportPath = join(root, 'reports', 'bench-sparse.md');
if (!existsSync(benchDir)) {
  process.stderr.write(`bench-sparse needs benchmark data that the repository does not ship: a folder of sparse matrices (.mtx or .tri) with a README.md giving KLU's figures for them. Give it as the first argument or in SPARSE_BENCH_DIR (looked for ${benchDir}).\n`);
  process.exit(2);
}

interface KluRow {
  n: number;
  nnz: number;
  blocks: number;
  largest: number;
  lu: number;
  off: number;
  flops: number;
  refactorUs: number;
  solveUs: number;
}

/** The KLU table of the bench README: | file | n | nnz | blocks / largest | L+U | off | factor flops | refactor | solve | */
function parseKlu(readme: string): Map<string, KluRow> {
  const rows = new Map<string, KluRow>();
  const num = (s: string): number => Number(s.replace(/[^0-9.]/g, ''));
  for (const line of readme.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    if (cells.length < 10 || !/^robot_/.test(cells[1])) continue;
    const [blocks, largest] = cells[4].split('/').map(num);
    rows.set(cells[1], {
      n: num(cells[2]),
      nnz: num(cells[3]),
      blocks,
      largest,
      lu: num(cells[5].split('(')[0]),
      off: num(cells[6]),
      flops: num(cells[7]),
      refactorUs: num(cells[8]),
      solveUs: num(cells[9]),
    });
  }
  return rows;
}

function median(a: number[]): number {
  const s = a.slice().sort((x, y) => x - y);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Median time of f in µs: `warm` untimed runs, then up to `runs` timed ones within about `budgetMs`. */
function timeMedian(f: () => void, runs: number, budgetMs: number, warm = 10): { us: number; runs: number } {
  for (let i = 0; i < warm; i++) f();
  const t: number[] = [];
  const start = performance.now();
  while (t.length < runs && (t.length < 5 || performance.now() - start < budgetMs)) {
    const t0 = process.hrtime.bigint();
    f();
    t.push(Number(process.hrtime.bigint() - t0) / 1000);
  }
  return { us: median(t), runs: t.length };
}

/** Bytes held in typed arrays by an object (own fields, one level deep). */
function typedBytes(...objs: object[]): number {
  let b = 0;
  for (const o of objs) for (const v of Object.values(o)) if (ArrayBuffer.isView(v)) b += v.byteLength;
  return b;
}

const fmt = (x: number): string => Math.round(x).toLocaleString('en-US');
const f1 = (x: number): string => x.toFixed(1);
const MB = (b: number): string => (b / 1048576).toFixed(1);

interface Ours {
  file: string;
  A: CscMatrix;
  S: SymbolicLU;
  lu: NumericLU;
  analyzeColdMs: number;
  analyzeWarmMs: number;
  /** medians in a process of its own (`sparsedyn lu`) */
  refactorUs: number;
  solveUs: number;
  /** medians in this process, after the other files */
  refactorSharedUs: number;
  solveSharedUs: number;
  runs: number;
  residual: number;
  bytes: number;
}

/**
 * `sparsedyn lu FILE --json` in a fresh process: the analysis with nothing compiled yet, and the
 * refactor and solve medians of a process that handles this one matrix (as an application does).
 */
function freshRun(path: string): { analyze_ms: number; refactor_us: number; solve_us: number } {
  const r = spawnSync(process.execPath, [join(root, 'bin', 'sparsedyn.mjs'), 'lu', path, '--json', '--runs', '501'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`sparsedyn lu ${path} failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as { analyze_ms: number; refactor_us: number; solve_us: number };
}

interface KluHere { refactor_us: number; solve_us: number; factor_flops: number }

/**
 * KLU run side by side on this machine, when a C compiler and Debian's libsuitesparse-dev are
 * there: scripts/peers/klu-peer.c (it calls the library; no KLU code is in sparsedyn).
 */
function kluHere(files: string[]): Map<string, KluHere> {
  const out = new Map<string, KluHere>();
  if (!existsSync('/usr/include/suitesparse/klu.h')) return out;
  const exe = join(tmpdir(), `klu-peer-${process.pid}`);
  const cc = spawnSync('cc', ['-O2', join(root, 'scripts', 'peers', 'klu-peer.c'), '-I/usr/include/suitesparse', '-lklu', '-o', exe], { encoding: 'utf8' });
  if (cc.status !== 0) return out;
  for (const f of files) {
    const r = spawnSync(exe, [join(benchDir, f), '501'], { encoding: 'utf8' });
    if (r.status === 0) out.set(f, JSON.parse(r.stdout) as KluHere);
  }
  return out;
}

function benchOurs(file: string): Ours {
  const A = readMatrix(join(benchDir, file));
  const fresh = freshRun(join(benchDir, file));
  const S = analyze(A);
  analyze(A);
  const warm: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t1 = performance.now();
    analyze(A);
    warm.push(performance.now() - t1);
  }
  const lu = factor(A, S);
  const n = A.n;
  const b = new Float64Array(n);
  for (let i = 0; i < n; i++) b[i] = 1 + (i % 7);
  const x = new Float64Array(n);
  const Ax = A.Ax;
  const rf = timeMedian(() => lu.refactor(Ax), 501, 4000, 50);
  const sv = timeMedian(() => lu.solve(x, b), 501, 4000, 50);
  lu.solve(x, b);
  return {
    file,
    A,
    S,
    lu,
    analyzeColdMs: fresh.analyze_ms,
    analyzeWarmMs: median(warm),
    refactorUs: fresh.refactor_us,
    solveUs: fresh.solve_us,
    refactorSharedUs: rf.us,
    solveSharedUs: sv.us,
    runs: Math.min(rf.runs, sv.runs),
    residual: relativeResidual(A, x, b),
    bytes: typedBytes(lu.symbolic, lu),
  };
}

interface Peer {
  order: number;
  luNnz: number;
  factorMs: number;
  solveMs: number;
  runs: number;
  residual: number;
}

function benchMathjs(A: CscMatrix): Peer {
  const math = create(all, {}) as any;
  const M = new math.SparseMatrix({ values: Array.from(A.Ax), index: Array.from(A.Ai), ptr: Array.from(A.Ap), size: [A.m, A.n] });
  const n = A.n;
  // Orders 1..3 (AMD on A+Aᵀ, on AᵀA without dense rows, on AᵀA); keep the least fill. Order 0
  // (natural) fills millions of entries on the forward-dynamics matrices.
  let best = { order: 1, luNnz: Infinity };
  for (const order of [1, 2, 3]) {
    const d = math.slu(M, order, 0.001);
    const luNnz = d.L._ptr[n] + d.U._ptr[n] - n;
    if (luNnz < best.luNnz) best = { order, luNnz };
  }
  const b = Array.from({ length: n }, (_, i) => [1 + (i % 7)]);
  let d: any;
  const fa = timeMedian(() => {
    d = math.slu(M, best.order, 0.001);
  }, 25, 6000, 1);
  let xs: any;
  const so = timeMedian(() => {
    xs = math.lusolve(d, b);
  }, 51, 4000, 2);
  const x = Float64Array.from((xs.toArray ? xs.toArray() : xs) as number[][], (r) => r[0]);
  const bb = Float64Array.from(b, (r) => r[0]);
  return { order: best.order, luNnz: best.luNnz, factorMs: fa.us / 1000, solveMs: so.us / 1000, runs: Math.min(fa.runs, so.runs), residual: relativeResidual(A, x, bb) };
}

function main(): void {
  if (!existsSync(benchDir)) {
    process.stderr.write(`bench-sparse: the benchmark matrices are not here (${benchDir}); nothing was run. Give their folder as the first argument.\n`);
    process.exit(1);
  }
  const files = readdirSync(benchDir)
    .filter((f) => f.endsWith('.tri') || f.endsWith('.mtx'))
    .sort((a, b) => {
      const key = (f: string): [string, number] => [f.replace(/\d+/g, ''), Number((f.match(/\d+/) ?? ['0'])[0])];
      const [ka, na] = key(a);
      const [kb, nb] = key(b);
      return ka === kb ? na - nb : ka < kb ? -1 : 1;
    });
  const readmePath = join(benchDir, 'README.md');
  const klu = existsSync(readmePath) ? parseKlu(readFileSync(readmePath, 'utf8')) : new Map<string, KluRow>();
  const loadStart = loadavg()[0];
  const baseline = timeMedian(() => {}, 2001, 500, 100).us;
  const ours: Ours[] = [];
  for (const f of files) {
    process.stderr.write(`ours: ${f}\n`);
    ours.push(benchOurs(f));
  }
  const rssOurs = process.resourceUsage().maxRSS * 1024;
  const heapOurs = process.memoryUsage().heapUsed;
  const peers = new Map<string, Peer>();
  for (const o of ours) {
    process.stderr.write(`mathjs: ${o.file}\n`);
    peers.set(o.file, benchMathjs(o.A));
  }
  const rssAll = process.resourceUsage().maxRSS * 1024;
  const loadEnd = loadavg()[0];

  const L: string[] = [];
  L.push('# Sparse LU benchmark');
  L.push('');
  L.push(`Written by \`scripts/bench-sparse.ts\` on ${new Date().toISOString().slice(0, 10)}: ${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}, Node ${process.version}.`);
  L.push(`Matrices: \`${basename(benchDir)}/\` (${files.length} files). KLU figures: that folder's README (same machine, one run).`);
  L.push(`Times are medians of up to 501 runs each timed alone (after 50 warm-up runs), inputs prepared before the timer; an empty call measures ${baseline.toFixed(2)} µs (not subtracted).`);
  L.push('Flops count multiplications, additions/subtractions and divisions inside the numeric factorization (1×1 blocks cost nothing), measured by the kernels\' own counters and equal to the symbolic prediction.');
  L.push(`Other sessions may share this 2-core machine (1-minute load average ${loadStart.toFixed(1)} at the start, ${loadEnd.toFixed(1)} at the end): times are indicative, flops are exact.`);
  L.push('');
  L.push('## Structure and flops');
  L.push('');
  L.push('| file | n | nnz | blocks / largest (KLU) | L+U ours (KLU) | off | factor flops ours | KLU | ours/KLU | solve flops | re-pivoted blocks |');
  L.push('|---|---|---|---|---|---|---|---|---|---|---|');
  for (const o of ours) {
    const k = klu.get(o.file.replace(/\.(tri|mtx)$/, ''));
    const S = o.lu.symbolic;
    const flops = o.lu.factorMuls + o.lu.factorAdds + o.lu.factorDivs;
    const ratio = k && k.flops > 0 ? (flops / k.flops).toFixed(3) : k ? (flops === 0 ? '0 = 0' : '—') : '—';
    L.push(
      `| ${o.file} | ${fmt(o.A.n)} | ${fmt(S.nnz)} | ${fmt(S.nblocks)} / ${fmt(S.maxBlock)} (${k ? `${fmt(k.blocks)} / ${fmt(k.largest)}` : '—'}) | ${fmt(S.luNnz)} (${k ? fmt(k.lu) : '—'}) | ${fmt(S.offNnz)} | ${fmt(flops)} | ${k ? fmt(k.flops) : '—'} | ${ratio} | ${fmt(o.lu.solveMuls + o.lu.solveAdds + o.lu.solveDivs)} | ${o.lu.repivotedBlocks} |`,
    );
  }
  L.push('');
  L.push('UMFPACK (column ordering, no BTF), from the README: 91,372 factor flops on robot_FD_100, 1,063,192 on robot_FD_1000.');
  L.push('');
  L.push('## Times');
  L.push('');
  const here = kluHere(ours.map((o) => o.file));
  L.push(here.size ? 'KLU "here": run side by side in this benchmark (scripts/peers/klu-peer.c against Debian\'s libklu, default options, medians of 501 runs); KLU "README": the figures of the sparse-bench README.' : 'KLU: the figures of the sparse-bench README (no C compiler or libsuitesparse-dev here to run it side by side).');
  L.push('');
  L.push('| file | analyse ms (fresh process / warm median) | refactor µs ours: own process (shared) | KLU here (README) | solve µs ours: own process (shared) | KLU here (README) | (refactor+solve) ours / KLU here | residual ‖Ax−b‖/‖b‖ |');
  L.push('|---|---|---|---|---|---|---|---|');
  for (const o of ours) {
    const k = klu.get(o.file.replace(/\.(tri|mtx)$/, ''));
    const h = here.get(o.file);
    const ref = h ? { r: h.refactor_us, s: h.solve_us } : k ? { r: k.refactorUs, s: k.solveUs } : null;
    const ratio = ref ? ((o.refactorUs + o.solveUs) / (ref.r + ref.s)).toFixed(2) : '—';
    L.push(
      `| ${o.file} | ${f1(o.analyzeColdMs)} / ${f1(o.analyzeWarmMs)} | ${f1(o.refactorUs)} (${f1(o.refactorSharedUs)}) | ${h ? f1(h.refactor_us) : '—'} (${k ? fmt(k.refactorUs) : '—'}) | ${f1(o.solveUs)} (${f1(o.solveSharedUs)}) | ${h ? f1(h.solve_us) : '—'} (${k ? fmt(k.solveUs) : '—'}) | ${ratio} | ${o.residual.toExponential(1)} |`,
    );
  }
  L.push('');
  L.push('"Own process": `sparsedyn lu FILE --json --runs 501` started anew for each file — the analysis with nothing compiled yet (the cost a one-off command pays), then the refactor and solve medians of a process that handles that one matrix, as an application does. "Shared": medians measured in this benchmark process after the other files (the kernels have then been compiled for several matrices, which costs V8 up to a third). "Warm": median of 5 analyses after 2 untimed ones.');
  L.push('');
  L.push('## JavaScript peer: mathjs `slu` + `lusolve`');
  L.push('');
  L.push('mathjs has no refactorization: `slu` (threshold 0.001, best of its orderings 1–3 by fill) is a full symbolic + numeric factorization each time.');
  L.push('');
  L.push('| file | mathjs order | L+U mathjs (ours) | slu ms | lusolve ms | residual | ours: refactor / slu | ours: solve / lusolve |');
  L.push('|---|---|---|---|---|---|---|---|');
  for (const o of ours) {
    const p = peers.get(o.file)!;
    L.push(
      `| ${o.file} | ${p.order} | ${fmt(p.luNnz)} (${fmt(o.lu.symbolic.luNnz)}) | ${f1(p.factorMs)} | ${f1(p.solveMs)} | ${p.residual.toExponential(1)} | 1/${fmt((p.factorMs * 1000) / o.refactorUs)} | 1/${fmt((p.solveMs * 1000) / o.solveUs)} |`,
    );
  }
  L.push('');
  L.push('## Orderings chosen (blocks larger than 100)');
  L.push('');
  for (const o of ours) {
    for (const b of o.S.orderings) {
      if (b.size <= 100) continue;
      const alts = b.scores.map((s) => `${s.ordering} ${s.exact ? '' : '>'}${fmt(s.flops)}`).join(', ');
      L.push(`- ${o.file}, block ${b.block} (size ${fmt(b.size)}): **${b.chosen}** ${fmt(b.flops)} flops — ${alts}`);
    }
  }
  L.push('');
  L.push('## Memory');
  L.push('');
  L.push('| file | typed arrays of SymbolicLU + NumericLU (MB) |');
  L.push('|---|---|');
  for (const o of ours) L.push(`| ${o.file} | ${MB(o.bytes)} |`);
  L.push('');
  L.push(`Peak resident set of this process: ${MB(rssOurs)} MB after our runs (heap in use ${MB(heapOurs)} MB), ${MB(rssAll)} MB after the mathjs runs.`);
  L.push('');
  mkdirSync(dirname(reportPath), { recursive: true });
  writeFileSync(reportPath, L.join('\n'));
  process.stderr.write(`wrote ${reportPath}\n`);
}

main();
