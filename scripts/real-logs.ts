/**
 * The two real recordings (a KUKA LWR4+ arm with joint torque sensors, an iCub standing
 * on both feet), read from the shared folder beside the repository (never copied into it): their
 * conversion by the examples in examples/real-logs/, `sparsedyn estimate` on the converted logs,
 * and the figures compared with what the robots measured. Used by scripts/real-logs-report.ts and
 * spec/estimation/real-logs.spec.ts.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { forwardKinematics, KinematicsWorkspace } from '../src/algorithms/kinematics.ts';
import { main } from '../src/cli/main.ts';
import { loadProblem } from '../src/node/problem-file.ts';
import { Flops } from '../src/spatial/flops.ts';
import { xCompose } from '../src/spatial/transform.ts';

export const ROOT = resolve(import.meta.dirname, '..');
/** the recordings (SOURCES.md there says where they come from) */
export const REAL_LOGS = resolve(ROOT, '../shared/real-logs');
export const KUKA_DIR = join(REAL_LOGS, 'kuka-lwr4');
export const ICUB_DIR = join(REAL_LOGS, 'icub-genova04');
export const KUKA_RUN = (run: 1 | 2): string => join(KUKA_DIR, `measurements_${run}.csv`);
export const ICUB_LOG = join(ICUB_DIR, 'com-sinusoid.csv');
export const EXAMPLES = join(ROOT, 'examples/real-logs');

/** the KUKA's joints; the first four carry the large torques the targets are about */
export const KUKA_JOINTS = [0, 1, 2, 3, 4, 5, 6].map((k) => `lwr_${k}_joint`);
export const KUKA_LARGE = KUKA_JOINTS.slice(0, 4);

/** Run a converter of examples/real-logs/ (as a user does: npx tsx …); throws with its stderr on failure. */
export function convert(converter: 'kuka-to-log.ts' | 'icub-to-log.ts', args: string[]): string {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(EXAMPLES, converter), ...args], { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${converter} ${args.join(' ')} exited with ${r.status}: ${r.stderr}`);
  return r.stdout.trim();
}

/**
 * A problem file of examples/real-logs/ written into `dir` with its "model" turned into the given
 * URDF's absolute path (a problem file's model is relative to the file; `estimate` has no option to
 * name another), and `extra` fields merged in. Returns its path.
 */
export function problemIn(dir: string, name: string, urdf: string, extra: Record<string, unknown> = {}, as = name): string {
  const problem = { ...JSON.parse(readFileSync(join(EXAMPLES, `${name}.json`), 'utf8')), ...extra, model: urdf };
  delete problem.$schema;
  const path = join(dir, `${as}.json`);
  writeFileSync(path, `${JSON.stringify(problem, null, 2)}\n`);
  return path;
}

/** `sparsedyn estimate` from the sources, in this process; its standard error is passed on and returned. */
export async function estimate(args: string[], echo = true): Promise<{ code: number; err: string }> {
  let err = '';
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((s: string | Uint8Array, ...rest: unknown[]) => {
    err += String(s);
    return echo ? write(s as string, ...(rest as [])) : true;
  }) as typeof process.stderr.write;
  try {
    const code = await main(['node', 'sparsedyn', 'estimate', ...args]);
    return { code, err };
  } finally {
    process.stderr.write = write;
  }
}

/** A CSV file of numbers: the columns by name (an estimates file's "<name> [<unit>]" by <name>). */
export class Table {
  readonly columns = new Map<string, number>();
  readonly rows: number[][];
  constructor(readonly path: string) {
    const lines = readFileSync(path, 'utf8').split(/\r?\n/).filter((l) => l !== '');
    lines[0].split(',').forEach((h, k) => this.columns.set(h.replace(/ \[.*\]$/, '').trim(), k));
    this.rows = lines.slice(1).map((l) => l.split(',').map(Number));
  }
  has(name: string): boolean {
    return this.columns.has(name);
  }
  col(name: string): number[] {
    const k = this.columns.get(name);
    if (k === undefined) throw new Error(`${basename(this.path)}: no column "${name}"`);
    return this.rows.map((r) => r[k]);
  }
}

export interface Fit { n: number; rmse: number; corr: number; bias: number; spread: number }

/** RMSE, correlation and mean error of estimates against measurements (spread: the measurements' standard deviation). */
export function fit(est: number[], meas: number[]): Fit {
  const n = est.length;
  let se = 0, me = 0, mm = 0;
  for (let k = 0; k < n; k++) { se += (est[k] - meas[k]) ** 2; me += est[k]; mm += meas[k]; }
  me /= n; mm /= n;
  let see = 0, smm = 0, sem = 0;
  for (let k = 0; k < n; k++) { see += (est[k] - me) ** 2; smm += (meas[k] - mm) ** 2; sem += (est[k] - me) * (meas[k] - mm); }
  return { n, rmse: Math.sqrt(se / n), corr: sem / Math.sqrt(see * smm), bias: me - mm, spread: Math.sqrt(smm / n) };
}

/**
 * The estimated torques of a run against the measured ones (the full log's truth.tau.<joint>
 * columns), matched by the log line each estimate names (both logs hold the recording's rows in
 * order, header on line 1).
 */
export function torqueFits(estimates: string, fullLog: string): { joints: Map<string, Fit>; t: number[]; est: Map<string, number[]>; meas: Map<string, number[]>; rows: number; estimated: number } {
  const e = new Table(estimates), log = new Table(fullLog);
  const at = e.col('line').map((l) => l - 2);
  const t = at.map((k) => log.rows[k][log.columns.get('t')!]);
  const joints = new Map<string, Fit>(), est = new Map<string, number[]>(), meas = new Map<string, number[]>();
  for (const j of KUKA_JOINTS) {
    const m = log.col(`truth.tau.${j}`), x = e.col(`tau.${j}`);
    const mm = at.map((k) => m[k]);
    joints.set(j, fit(x, mm));
    est.set(j, x); meas.set(j, mm);
  }
  return { joints, t, est, meas, rows: log.rows.length, estimated: e.rows.length };
}

/**
 * The total contact force along world z of an iCub run, against the feet's logged normal forces
 * (the converted log's l_sole_load.fz + r_sole_load.fz): each contact's estimated force (in its
 * link's frame) turned into world coordinates by the kinematics at the row's q (base pose from
 * the log), per estimated row.
 */
export function verticalForces(problem: string, log: string, estimates: string): { t: number[]; total: number[]; logged: number[]; feet: Map<string, { est: number[]; logged: number[] }>; mass: number; g: number; rows: number } {
  const { model } = loadProblem(problem);
  const L = new Table(log), E = new Table(estimates);
  const ws = new KinematicsWorkspace(model), fl = new Flops();
  const q = new Float64Array(model.nq);
  const cols: { iq: number; col: number }[] = [];
  for (const j of model.movingJoints()) {
    if (j.type === 'floating') ['px', 'py', 'pz', 'qx', 'qy', 'qz', 'qw'].forEach((c, k) => cols.push({ iq: j.iq + k, col: L.columns.get(`base.${c}`)! }));
    else cols.push({ iq: j.iq, col: L.columns.get(`q.${j.name}`)! });
  }
  if (cols.some((c) => c.col === undefined)) throw new Error(`${log}: a joint or base column is missing`);
  const world = Array.from({ length: model.nb }, () => new Float64Array(12));
  const Xf = new Float64Array(12);
  const feet = new Map<string, { est: number[]; logged: number[] }>();
  const links = ['l_sole', 'r_sole'];
  for (const l of links) feet.set(l, { est: [], logged: [] });
  const t: number[] = [], total: number[] = [], logged: number[] = [];
  const lines = E.col('line');
  const force = links.map((l) => ['fx', 'fy', 'fz'].map((c) => E.col(`contact.${l}.${c}`)));
  const cells = links.map((l) => L.col(`${l}_load.fz`));
  lines.forEach((line, r) => {
    const row = L.rows[line - 2];
    for (const c of cols) q[c.iq] = row[c.col];
    const n = Math.hypot(q[3], q[4], q[5], q[6]);
    for (let k = 3; k < 7; k++) q[k] /= n;
    forwardKinematics(ws, q, null);
    // ⁱX_0 = ⁱX_λ ᵡX_0, body after body (parents first)
    for (let i = 0; i < model.nb; i++) {
      const p = model.parents[i];
      if (p < 0) world[i].set(ws.Xup[i]); else xCompose(world[i], ws.Xup[i], world[p], fl);
    }
    let sum = 0, sumLogged = 0;
    links.forEach((l, k) => {
      const f = model.frame(l);
      xCompose(Xf, f.X, world[f.body], fl);
      // E rotates world coordinates into the link's: the world z of f is (Eᵀ f)_z = E₂ f₀ + E₅ f₁ + E₈ f₂
      const fz = Xf[2] * force[k][0][r] + Xf[5] * force[k][1][r] + Xf[8] * force[k][2][r];
      feet.get(l)!.est.push(fz);
      feet.get(l)!.logged.push(cells[k][line - 2]);
      sum += fz; sumLogged += cells[k][line - 2];
    });
    t.push(row[L.columns.get('t')!]);
    total.push(sum); logged.push(sumLogged);
  });
  const g = model.gravity;
  return { t, total, logged, feet, mass: model.totalMass(), g: Math.hypot(g[0], g[1], g[2]), rows: L.rows.length };
}

/** mean of |a − b| / b, and (mean a − mean b) / mean b */
export function relativeDifference(a: number[], b: number[]): { meanAbs: number; ofMeans: number } {
  let s = 0, sa = 0, sb = 0;
  for (let k = 0; k < a.length; k++) { s += Math.abs(a[k] - b[k]) / Math.abs(b[k]); sa += a[k]; sb += b[k]; }
  return { meanAbs: s / a.length, ofMeans: (sa - sb) / sb };
}

/** whether the recordings are there */
export const HAS_REAL_LOGS = existsSync(KUKA_RUN(1)) && existsSync(KUKA_RUN(2)) && existsSync(ICUB_LOG);
