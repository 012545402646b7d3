/**
 * Well-posedness of a sensor layout (Nori 2017, §VI, eqs. 21–23 and Property 3), for every
 * configuration tried:
 *
 * 1. Structural: the rank of the pattern of [D; D_Y] (maximum matching) — generic over all
 *    configurations — and the structurally undetermined unknowns (coarse Dulmage–Mendelsohn).
 * 2. Numerical: given the joint accelerations q̈ and external wrenches f^x, the Newton–Euler rows
 *    determine every a_i, f_i, τ_i (they are the inverse-dynamics system, triangular by Property 1),
 *    so rank [D; D_Y] = (n − n_z) + rank G, where z = (q̈, the unknown f^x) and
 *        G = D_Y' ∂d/∂z,   ∂d/∂z_k = D_id⁻¹ e_k,
 *    D_Y' being every row beyond the Newton–Euler and known-wrench rows (sensors, constraints).
 *    G is never formed densely: a row of D_Y' that touches only z (a joint encoder) is a row of G
 *    as it stands; any other row costs one transposed sparse solve, G(r, :) = (D_id⁻ᵀ D_Y'(r, :)ᵀ)
 *    at the z rows. After row and column equilibration, the rows with one entry among the z left
 *    are eliminated exactly (each pins its z), and only the rest — the other sensors' rows × the z
 *    they leave (base and contact unknowns), whose size does not grow with the robot for joint
 *    sensors — goes to a dense SVD for its rank and null space. The null space gives the
 *    unobservable directions, named by variable (contact wrenches in their contact frames), and
 *    the unknowns they leave undetermined (one solve per direction).
 * 3. Verdict: well_posed (full rank at every configuration tried), generically_well_posed (full at
 *    random configurations, deficient at some special ones: joint values at multiples of π/2, Nori
 *    2017 §IV-D), ill_posed (deficient at random configurations). Redundant sensors: those whose
 *    removal keeps the verdict — per configuration, a leverage test from one QR of G (G without a
 *    sensor's rows keeps its rank iff the rows' block of Q has no singular value 1), and a rank
 *    test of G without the rows where that test is not clear-cut (`redundantSensors`).
 */
import { EigenvalueDecomposition, Matrix, SingularValueDecomposition } from 'ml-matrix';
import { inverseDynamicsProblem } from '../assembly/problems.ts';
import { SparseSolver } from '../assembly/solver.ts';
import { fillSystem, SymbolicSystem, SystemValues } from '../assembly/system.ts';
import type { Model } from '../model/model.ts';
import { Rng } from '../model/rng.ts';
import { dmperm } from '../sparse/dmperm.ts';
import { forceTransformMatrix } from './blocks.ts';
import { buildEstimationSystem, type EstimationSystem } from './setup.ts';

/**
 * The verdict of an analysis: full rank at every configuration tried, at random configurations only
 * (singular at some special ones), or rank deficient at random configurations.
 */
export type Verdict = 'well_posed' | 'generically_well_posed' | 'ill_posed';

/** The rank of the estimation system at one configuration tried. */
export interface ConfigurationResult {
  name: string;
  kind: 'random' | 'special';
  q: number[];
  /** numerical rank of [D; D_Y] at this configuration */
  rank: number;
  deficiency: number;
}

/** The result of `analyzeProblem` (also the JSON of `sparsedyn analyze --json`). */
export interface AnalysisReport {
  verdict: Verdict;
  unknowns: number;
  equations: number;
  structural_rank: number;
  /** smallest numerical rank over the configurations tried */
  numerical_rank: number;
  configurations: ConfigurationResult[];
  singular_configurations: ConfigurationResult[];
  /** unobservable directions as named combinations of unknowns */
  unobservable: string[];
  /** unknowns left undetermined by those directions (joint torques first) */
  undetermined: string[];
  /** unknowns structurally undetermined (whatever the values) */
  structurally_undetermined: string[];
  redundant_sensors: string[];
  notes: string[];
}

/**
 * The configurations a verdict is judged on, by `sparsedyn analyze` and by `estimate` (each sensor
 * layout and contact mode it meets) alike: random ones, and special ones (joint values at multiples
 * of π/2) besides the neutral one; 7 in all.
 */
export const ANALYSIS_CONFIGURATIONS: Readonly<{ random: number; special: number }> = { random: 3, special: 3 };

/** Options of `analyzeProblem`: how many configurations to try, the seed and the rank tolerance. */
export interface AnalysisOptions {
  /** random configurations (default ANALYSIS_CONFIGURATIONS.random, 3) */
  random?: number;
  /** special configurations besides the neutral one (default ANALYSIS_CONFIGURATIONS.special, 3) */
  special?: number;
  seed?: number;
  /** relative singular-value threshold after equilibration (default 1e-9) */
  tol?: number;
  /** skip the redundancy search (a leverage test per sensor and configuration, a rank test where it is not clear-cut) */
  redundancy?: boolean;
}

interface Reduction {
  /** free variables z: columns of d */
  zCols: number[];
  /** rows of G: rows of the estimation system beyond the Newton–Euler and known rows */
  gRows: number[];
  idSys: SymbolicSystem;
  /** for each z, its known row in the inverse-dynamics system */
  idKnownRow: Int32Array;
  /** column of d → its index in z, or −1 */
  zIndex: Int32Array;
  /** the rows of G by row (CSR over the columns of d): entry e of row k is column gCol[e], value Ax[gP[e]] */
  gStart: Int32Array;
  gCol: Int32Array;
  gP: Int32Array;
  /**
   * rows of G read directly: every column they touch is known in the inverse-dynamics system (a z,
   * or a variable pinned to a known value), so ∂d/∂z is the identity (or zero) there and
   * G(r, k) = D_Y'(r, zCols[k]) without a solve (joint encoders, for instance)
   */
  direct: Uint8Array;
}

function reduction(es: EstimationSystem): Reduction {
  const model = es.model, sys = es.sys, L = sys.layout;
  const idSys = new SymbolicSystem(model, inverseDynamicsProblem(model));
  const pinned = new Set<number>();
  for (const z of sys.known) pinned.add(L.start(z.kind, z.body) + z.offset);
  const zCols: number[] = [];
  const idKnownRow: number[] = [];
  const idKnown = new Uint8Array(sys.n);
  idSys.known.forEach((z, k) => {
    const col = L.start(z.kind, z.body) + z.offset;
    idKnown[col] = 1;
    if (pinned.has(col)) return;
    zCols.push(col);
    idKnownRow.push(idSys.knownRow[k]);
  });
  const zIndex = new Int32Array(sys.n).fill(-1);
  zCols.forEach((col, k) => { zIndex[col] = k; });
  const firstBlockRow = sys.blockRow0.length ? sys.blockRow0[0] : sys.m;
  const gRows: number[] = [];
  for (let r = firstBlockRow; r < sys.m; r++) gRows.push(r);
  // CSR of the G rows of the pattern
  const A = sys.pattern;
  const rowIndex = new Int32Array(sys.m).fill(-1);
  gRows.forEach((r, k) => { rowIndex[r] = k; });
  const gStart = new Int32Array(gRows.length + 1);
  for (let p = 0; p < A.Ap[sys.n]; p++) { const k = rowIndex[A.Ai[p]]; if (k >= 0) gStart[k + 1]++; }
  for (let k = 0; k < gRows.length; k++) gStart[k + 1] += gStart[k];
  const next = gStart.slice(0, gRows.length);
  const gCol = new Int32Array(gStart[gRows.length]), gP = new Int32Array(gStart[gRows.length]);
  for (let j = 0; j < sys.n; j++) {
    for (let p = A.Ap[j]; p < A.Ap[j + 1]; p++) {
      const k = rowIndex[A.Ai[p]];
      if (k < 0) continue;
      gCol[next[k]] = j; gP[next[k]++] = p;
    }
  }
  const direct = new Uint8Array(gRows.length);
  for (let k = 0; k < gRows.length; k++) {
    let d = 1;
    for (let e = gStart[k]; e < gStart[k + 1]; e++) if (!idKnown[gCol[e]]) { d = 0; break; }
    direct[k] = d;
  }
  return { zCols, gRows, idSys, idKnownRow: Int32Array.from(idKnownRow), zIndex, gStart, gCol, gP, direct };
}

/**
 * One configuration tried: the values of the estimation system there, and the rows of G that need
 * a solve, computed once (one transposed solve each: G(r, :) = (D_idᵀ \ D_Y'(r, :)ᵀ) at the known rows).
 */
interface Trial {
  q: Float64Array;
  Ax: Float64Array;
  rows: Map<number, Float64Array> | null;
}

/** The configurations' values and the inverse-dynamics solver shared by them. */
class Reducer {
  private current: Trial | null = null;
  constructor(readonly es: EstimationSystem, readonly red: Reduction, readonly idSolver: SparseSolver, readonly vals: SystemValues) {}

  trial(q: Float64Array): Trial {
    fillSystem(this.vals, q, null, new Float64Array(this.es.sys.ny));
    return { q, Ax: this.vals.Ax.slice(), rows: null };
  }

  private factorAt(t: Trial): void {
    if (this.current !== t) { this.idSolver.stepUnchecked(t.q, null, new Float64Array(this.red.idSys.ny)); this.current = t; }
  }

  /** the rows of G that are not direct, over every z, at the trial's configuration (cached) */
  private indirectRows(t: Trial): Map<number, Float64Array> {
    if (t.rows) return t.rows;
    const red = this.red, n = this.es.sys.n, nzv = red.zCols.length;
    const rows = new Map<number, Float64Array>();
    const y = new Float64Array(n);
    for (let r = 0; r < red.gRows.length; r++) {
      if (red.direct[r]) continue;
      this.factorAt(t);
      y.fill(0);
      for (let e = red.gStart[r]; e < red.gStart[r + 1]; e++) y[red.gCol[e]] = t.Ax[red.gP[e]];
      this.idSolver.lu.solveTransposed(y, y);
      const g = new Float64Array(nzv);
      for (let k = 0; k < nzv; k++) g[k] = y[red.idKnownRow[k]];
      rows.set(r, g);
    }
    t.rows = rows;
    return rows;
  }

  /** Σ_k v_k ∂d/∂z_k at the trial's configuration: one solve */
  combination(t: Trial, v: number[]): Float64Array {
    this.factorAt(t);
    const x = new Float64Array(this.es.sys.n);
    v.forEach((c, k) => { x[this.red.idKnownRow[k]] = c; });
    return this.idSolver.lu.solve(x, x);
  }

  /**
   * The rows of G (those of `keep`, all by default), sparse — z index and value, exact zeros left
   * out — and equilibrated: two passes of row then column scaling by the largest entry (as
   * `rankAndNull`); `colScale`: the column scales applied.
   */
  equilibratedRows(t: Trial, keep?: Uint8Array): { kept: number[]; rk: Int32Array[]; rv: Float64Array[]; colScale: Float64Array } {
    const red = this.red, nzv = red.zCols.length, nr = red.gRows.length;
    const { gStart, gCol, gP, zIndex, direct } = red, Ax = t.Ax;
    const ind = this.indirectRows(t);
    // G by rows, sparse: (z index, value)
    const rk: Int32Array[] = new Array(nr), rv: Float64Array[] = new Array(nr);
    const kept: number[] = [];
    for (let r = 0; r < nr; r++) {
      if (keep && !keep[r]) continue;
      kept.push(r);
      if (direct[r]) {
        const ks: number[] = [], vs: number[] = [];
        for (let e = gStart[r]; e < gStart[r + 1]; e++) {
          const k = zIndex[gCol[e]], a = Ax[gP[e]];
          if (k >= 0 && a !== 0) { ks.push(k); vs.push(a); }
        }
        rk[r] = Int32Array.from(ks); rv[r] = Float64Array.from(vs);
      } else {
        const g = ind.get(r)!;
        let c = 0;
        for (let k = 0; k < nzv; k++) if (g[k] !== 0) c++;
        const ks = new Int32Array(c), vs = new Float64Array(c);
        c = 0;
        for (let k = 0; k < nzv; k++) if (g[k] !== 0) { ks[c] = k; vs[c++] = g[k]; }
        rk[r] = ks; rv[r] = vs;
      }
    }
    const colScale = new Float64Array(nzv).fill(1), cmax = new Float64Array(nzv);
    for (let pass = 0; pass < 2; pass++) {
      for (const r of kept) {
        const vs = rv[r];
        let s = 0;
        for (let e = 0; e < vs.length; e++) s = Math.max(s, Math.abs(vs[e]));
        if (s > 0) for (let e = 0; e < vs.length; e++) vs[e] /= s;
      }
      cmax.fill(0);
      for (const r of kept) { const ks = rk[r], vs = rv[r]; for (let e = 0; e < ks.length; e++) cmax[ks[e]] = Math.max(cmax[ks[e]], Math.abs(vs[e])); }
      for (const r of kept) { const ks = rk[r], vs = rv[r]; for (let e = 0; e < ks.length; e++) if (cmax[ks[e]] > 0) vs[e] /= cmax[ks[e]]; }
      for (let k = 0; k < nzv; k++) if (cmax[k] > 0) colScale[k] *= cmax[k];
    }
    return { kept, rk, rv, colScale };
  }

  /**
   * rank of G (rows `keep`, all by default) and its null space, with no dense matrix of G's size:
   * G is formed sparse (direct rows read off D_Y', the others by one transposed solve each) and
   * equilibrated as `rankAndNull` does; then the direct rows are eliminated, a row with a single
   * entry above `tol` in the z not yet eliminated pinning that z (exact: rank G = 1 + rank of G
   * without that row and column, and every null vector is zero there). The rest — the rows left ×
   * the z left, a few per sensor that is not a joint sensor — goes to `rankAndNull`. With
   * `needFull`, stops as soon as the rank is known to fall short of |z|.
   */
  rank(t: Trial, tol: number, keep?: Uint8Array, needFull = false): { rank: number; nullVecs: number[][] } {
    const red = this.red, nzv = red.zCols.length, nr = red.gRows.length;
    const { direct } = red;
    const { kept, rk, rv, colScale } = this.equilibratedRows(t, keep);
    // elimination of the direct rows with a single entry above tol among the z left
    const active = new Uint8Array(nzv).fill(1);
    const used = new Uint8Array(nr);
    const count = new Int32Array(nr);
    const colRows: number[][] = Array.from({ length: nzv }, () => []);
    const queue: number[] = [];
    for (const r of kept) {
      if (!direct[r]) continue;
      const ks = rk[r], vs = rv[r];
      for (let e = 0; e < ks.length; e++) if (Math.abs(vs[e]) > tol) { count[r]++; colRows[ks[e]].push(r); }
      if (count[r] === 1) queue.push(r);
    }
    let pivots = 0, pmax = 0;
    while (queue.length) {
      const r = queue.pop()!;
      if (used[r] || count[r] !== 1) continue;
      const ks = rk[r], vs = rv[r];
      let piv = -1;
      for (let e = 0; e < ks.length; e++) if (active[ks[e]] && Math.abs(vs[e]) > tol) { piv = ks[e]; pmax = Math.max(pmax, Math.abs(vs[e])); break; }
      used[r] = 1; active[piv] = 0; pivots++;
      for (const r2 of colRows[piv]) if (!used[r2] && --count[r2] === 1) queue.push(r2);
    }
    const left: number[] = [];
    for (let k = 0; k < nzv; k++) if (active[k]) left.push(k);
    if (left.length === 0) return { rank: pivots, nullVecs: [] };
    const pos = new Int32Array(nzv).fill(-1);
    left.forEach((k, c) => { pos[k] = c; });
    // the rows left with an entry on the z left
    const rows: number[] = [];
    for (const r of kept) {
      if (used[r]) continue;
      const ks = rk[r];
      let any = false;
      for (let e = 0; e < ks.length && !any; e++) any = pos[ks[e]] >= 0;
      if (any) rows.push(r);
    }
    if (needFull && rows.length < left.length) return { rank: pivots + rows.length, nullVecs: [] };
    const G = Matrix.zeros(rows.length, left.length);
    rows.forEach((r, i) => {
      const ks = rk[r], vs = rv[r];
      for (let e = 0; e < ks.length; e++) { const c = pos[ks[e]]; if (c >= 0) G.set(i, c, vs[e]); }
    });
    const sub = rankAndNull(G, tol, undefined, 0, pmax, false);
    const nullVecs = sub.nullVecs.map((w) => {
      const v = new Array<number>(nzv).fill(0);
      w.forEach((x, c) => { v[left[c]] = x / colScale[left[c]]; });
      const nrm = Math.max(...v.map(Math.abs)) || 1;
      return v.map((x) => x / nrm);
    });
    return { rank: pivots + sub.rank, nullVecs };
  }
}

/** G = D_Y' ∂d/∂z at configuration q (dense, gRows × zCols), and the columns ∂d/∂z. */
function reducedMatrix(es: EstimationSystem, red: Reduction, idSolver: SparseSolver, vals: SystemValues, q: Float64Array): { G: Matrix; dz: Float64Array[] } {
  const sys = es.sys, n = sys.n;
  fillSystem(vals, q, null, new Float64Array(sys.ny));
  idSolver.stepUnchecked(q, null, new Float64Array(red.idSys.ny));
  const nz = red.zCols.length;
  const B = new Float64Array(n * nz);
  red.idKnownRow.forEach((row, k) => { B[k * n + row] = 1; });
  const X = new Float64Array(n * nz);
  idSolver.lu.solveMany(X, B, nz);
  const rowIndex = new Int32Array(sys.m).fill(-1);
  red.gRows.forEach((r, k) => { rowIndex[r] = k; });
  const G = Matrix.zeros(red.gRows.length, nz);
  const A = sys.pattern;
  for (let j = 0; j < n; j++) {
    for (let p = A.Ap[j]; p < A.Ap[j + 1]; p++) {
      const gi = rowIndex[A.Ai[p]];
      if (gi < 0) continue;
      const a = vals.Ax[p];
      for (let k = 0; k < nz; k++) {
        const x = X[k * n + j];
        if (x !== 0) G.set(gi, k, G.get(gi, k) + a * x);
      }
    }
  }
  const dz = Array.from({ length: nz }, (_, k) => X.subarray(k * n, (k + 1) * n));
  return { G, dz };
}

/**
 * rank and null space of G after row/column equilibration; null vectors in the original z units.
 * With `minimum`, at least that many directions (those of the smallest singular values) are returned.
 */
function rankAndNull(G: Matrix, tol: number, rowsKept?: boolean[], minimum = 0, scaleFloor = 0, equilibrate = true): { rank: number; nullVecs: number[][]; ratio: number } {
  let M = G;
  if (rowsKept) {
    const keep = rowsKept.map((k, i) => (k ? i : -1)).filter((i) => i >= 0);
    M = keep.length ? G.selection(keep, Array.from({ length: G.columns }, (_, j) => j)) : Matrix.zeros(0, G.columns);
  }
  const m = M.rows, n = M.columns;
  if (n === 0) return { rank: 0, nullVecs: [], ratio: 1 };
  if (m === 0) return { rank: 0, nullVecs: Array.from({ length: n }, (_, j) => Array.from({ length: n }, (_, k) => (k === j ? 1 : 0))), ratio: 0 };
  const S = M.clone();
  const colScale = new Float64Array(n).fill(1);
  for (let pass = 0; pass < (equilibrate ? 2 : 0); pass++) {
    for (let i = 0; i < m; i++) {
      let s = 0;
      for (let j = 0; j < n; j++) s = Math.max(s, Math.abs(S.get(i, j)));
      if (s > 0) for (let j = 0; j < n; j++) S.set(i, j, S.get(i, j) / s);
    }
    for (let j = 0; j < n; j++) {
      let s = 0;
      for (let i = 0; i < m; i++) s = Math.max(s, Math.abs(S.get(i, j)));
      if (s > 0) { for (let i = 0; i < m; i++) S.set(i, j, S.get(i, j) / s); colScale[j] *= s; }
    }
  }
  // pad to square with zero rows so that V is n×n and spans the null space too
  const T = m >= n ? S : Matrix.zeros(n, n).setSubMatrix(S, 0, 0);
  const svd = new SingularValueDecomposition(T, { computeLeftSingularVectors: false, computeRightSingularVectors: true, autoTranspose: false });
  const sv = svd.diagonal;
  const smax = Math.max(...sv, scaleFloor, 0);
  const thresh = tol * Math.max(smax, 1e-300);
  const rank = sv.filter((x) => x > thresh).length;
  const V = svd.rightSingularVectors;
  const nullVecs: number[][] = [];
  sv.forEach((x, k) => {
    if (x > thresh && k < sv.length - minimum) return;
    let w = V.getColumn(k);
    if (x > thresh) {
      // a least observable direction (not a null one): only its main terms, judged in the equilibrated units
      const big = Math.max(...w.map(Math.abs));
      w = w.map((e) => (Math.abs(e) >= 0.1 * big ? e : 0));
    }
    const v = w.map((e, j) => e / colScale[j]);
    const nrm = Math.max(...v.map(Math.abs)) || 1;
    nullVecs.push(v.map((e) => e / nrm));
  });
  return { rank, nullVecs, ratio: Math.min(...sv) / Math.max(smax, 1e-300) };
}

/** Random and special configurations: neutral, joint values at multiples of π/2. */
export function trialConfigurations(model: Model, random: number, special: number, seed: number): { name: string; kind: 'random' | 'special'; q: Float64Array }[] {
  const rng = new Rng(seed);
  const out: { name: string; kind: 'random' | 'special'; q: Float64Array }[] = [];
  const make = (angle: (j: { type: string }) => number, quat: () => number[]) => {
    const q = new Float64Array(model.nq);
    for (const j of model.movingJoints()) {
      if (j.type === 'floating') {
        const u = quat();
        for (let k = 0; k < 3; k++) q[j.iq + k] = 0;
        for (let k = 0; k < 4; k++) q[j.iq + 3 + k] = u[k];
      } else if (j.type === 'spherical') {
        const u = quat();
        for (let k = 0; k < 4; k++) q[j.iq + k] = u[k];
      } else q[j.iq] = angle(j);
    }
    return q;
  };
  const randQuat = () => { const u = Array.from(rng.quaternion()); return u; };
  for (let t = 0; t < random; t++) {
    out.push({ name: `random ${t + 1}`, kind: 'random', q: make(() => rng.uniform(-Math.PI, Math.PI), randQuat) });
  }
  out.push({ name: 'neutral (all joints at 0)', kind: 'special', q: make(() => 0, () => [0, 0, 0, 1]) });
  const s = Math.SQRT1_2;
  const quarterTurns = [[0, 0, 0, 1], [s, 0, 0, s], [0, s, 0, s], [0, 0, s, s], [1, 0, 0, 0]];
  for (let t = 0; t < special; t++) {
    const qt = quarterTurns[rng.int(quarterTurns.length)];
    out.push({ name: `multiples of π/2 #${t + 1}`, kind: 'special', q: make((j) => (j.type === 'prismatic' ? 0 : (Math.PI / 2) * (rng.int(4) - 1)), () => qt) });
  }
  return out;
}

/** a coefficient as printed: 3 significant digits, integers without decimals */
const fmtCoef = (c: number) => { const r = Number(c.toPrecision(3)); return Number.isInteger(r) ? String(r) : c.toPrecision(3); };

/** Name the unobservable directions (contact wrenches in their contact frames) and the undetermined unknowns. */
function nameDirections(es: EstimationSystem, red: Reduction, nullVecs: number[][], combine: (v: number[]) => Float64Array): { unobservable: string[]; undetermined: string[] } {
  const L = es.sys.layout;
  const contactOf = new Map(es.contacts.map((c) => [c.body, c]));
  const undet = new Map<string, number>();
  const named: Map<string, number>[] = [];
  for (const v of nullVecs) {
    // express contact f^x blocks in the contact frame: w_c = ᶜX*_i f^x_i
    const terms = new Map<string, number>();
    const byBody = new Map<number, Float64Array>();
    red.zCols.forEach((col, k) => {
      const loc = L.locate(col);
      if (loc.kind === 'fx' && contactOf.has(loc.body)) {
        const w = byBody.get(loc.body) ?? new Float64Array(6);
        w[loc.offset] = v[k];
        byBody.set(loc.body, w);
      } else if (v[k] !== 0) terms.set(L.names[col], v[k]);
    });
    for (const [body, fx] of byBody) {
      const c = contactOf.get(body)!;
      const F = forceTransformMatrix(c.X);
      const comps = ['tx', 'ty', 'tz', 'fx', 'fy', 'fz'];
      for (let r = 0; r < 6; r++) {
        let s = 0;
        for (let j = 0; j < 6; j++) s += F[6 * r + j] * fx[j];
        if (s !== 0) terms.set(`w[${c.link}].${comps[r]}`, s);
      }
    }
    named.push(terms);
    // undetermined unknowns: components of Σ_k v_k ∂d/∂z_k
    const n = L.n;
    const dd = combine(v);
    let big = 0;
    for (let j = 0; j < n; j++) big = Math.max(big, Math.abs(dd[j]));
    for (let j = 0; j < n; j++) if (Math.abs(dd[j]) > 1e-8 * big) undet.set(L.names[j], 1);
  }
  const unobservable = reducedEchelon(named).map((row) => {
    const entries = [...row.entries()];
    return entries
      .map(([nm, c], k) => {
        const sign = c < 0 ? '− ' : k === 0 ? '' : '+ ';
        const mag = Math.abs(c);
        return `${sign}${fmtCoef(mag) === '1' ? '' : `${fmtCoef(mag)}·`}${nm}`;
      })
      .join(' ');
  });
  const names = [...undet.keys()];
  const rank = (s: string) => (s.startsWith('tau[') ? 0 : s.startsWith('fx[') ? 1 : s.startsWith('f[') ? 2 : 3);
  names.sort((a, b) => rank(a) - rank(b));
  return { unobservable, undetermined: names };
}

/**
 * A canonical basis of the span of the directions (reduced row echelon form, pivots on the
 * largest entries, contact wrenches preferred): each direction then reads "pivot + others".
 */
function reducedEchelon(rows: Map<string, number>[]): Map<string, number>[] {
  const names = [...new Set(rows.flatMap((r) => [...r.keys()]))];
  names.sort((a, b) => (a.startsWith('w[') ? 0 : 1) - (b.startsWith('w[') ? 0 : 1));
  const M = rows.map((r) => names.map((nm) => r.get(nm) ?? 0));
  const out: number[][] = [];
  const used = new Array(M.length).fill(false);
  for (let c = 0; c < names.length && out.length < M.length; c++) {
    let best = -1, bv = 1e-9;
    for (let r = 0; r < M.length; r++) if (!used[r] && Math.abs(M[r][c]) > bv) { bv = Math.abs(M[r][c]); best = r; }
    if (best < 0) continue;
    used[best] = true;
    const piv = M[best][c];
    const prow = M[best].map((x) => x / piv);
    for (let r = 0; r < M.length; r++) {
      if (r === best) continue;
      const f = M[r][c];
      if (f !== 0) M[r] = M[r].map((x, j) => x - f * prow[j]);
    }
    for (const o of out) { const f = o[c]; if (f !== 0) o.forEach((x, j) => { o[j] = x - f * prow[j]; }); }
    M[best] = prow;
    out.push(prow);
  }
  return out.map((row) => {
    const mx = Math.max(...row.map(Math.abs));
    const m = new Map<string, number>();
    row.forEach((x, j) => { if (Math.abs(x) > 1e-7 * mx) m.set(names[j], x); });
    return m;
  });
}

/**
 * Is the sensor layout well posed? The structural rank, the numerical rank at random and special
 * configurations, the verdict, the unobservable directions named by variable and the redundant
 * sensors (what `sparsedyn analyze` prints).
 */
export function analyzeProblem(es: EstimationSystem, opts: AnalysisOptions = {}): AnalysisReport {
  return analyze(es, opts, 'leverage');
}

/**
 * `analyzeProblem` with the redundancy of every sensor decided by a rank test of G without its rows
 * at each configuration (no leverage test first): the reference the leverage test is checked
 * against (spec/estimation/redundancy.spec.ts). Not part of the package's API.
 */
export function analyzeProblemByRank(es: EstimationSystem, opts: AnalysisOptions = {}): AnalysisReport {
  return analyze(es, opts, 'rank');
}

function analyze(es: EstimationSystem, opts: AnalysisOptions, method: 'leverage' | 'rank'): AnalysisReport {
  const sys = es.sys, model = es.model;
  const tol = opts.tol ?? 1e-9;
  const dm = dmperm(sys.pattern);
  const red = reduction(es);
  const reducer = new Reducer(es, red, new SparseSolver(red.idSys), new SystemValues(sys));
  const configs = trialConfigurations(model, opts.random ?? ANALYSIS_CONFIGURATIONS.random, opts.special ?? ANALYSIS_CONFIGURATIONS.special, opts.seed ?? 1);
  const nFixed = sys.n - red.zCols.length;
  const results: ConfigurationResult[] = [];
  const trials: { t: Trial; kind: string }[] = [];
  let firstNull: { vecs: number[][]; t: Trial } | null = null;
  for (const c of configs) {
    const t = reducer.trial(c.q);
    const { rank, nullVecs } = reducer.rank(t, tol);
    const full = nFixed + rank;
    results.push({ name: c.name, kind: c.kind, q: Array.from(c.q), rank: full, deficiency: sys.n - full });
    trials.push({ t, kind: c.kind });
    if (nullVecs.length && (firstNull === null || (c.kind === 'random' && results.filter((r) => r.kind === 'random' && r.deficiency > 0).length === 1))) {
      firstNull = { vecs: nullVecs, t };
    }
  }
  const randomDeficient = results.some((r) => r.kind === 'random' && r.deficiency > 0);
  const specialDeficient = results.some((r) => r.kind === 'special' && r.deficiency > 0);
  let verdict: Verdict = 'well_posed';
  if (dm.rank < sys.n || randomDeficient) verdict = 'ill_posed';
  else if (specialDeficient) verdict = 'generically_well_posed';
  const fn = firstNull;
  const { unobservable, undetermined } = fn && verdict !== 'well_posed' ? nameDirections(es, red, fn.vecs, (v) => reducer.combination(fn.t, v)) : { unobservable: [], undetermined: [] };
  // redundancy: drop one sensor's rows and keep the verdict
  const redundant = opts.redundancy !== false && verdict !== 'ill_posed' ? redundantSensors(es, red, reducer, trials, verdict, tol, method) : [];
  const L = sys.layout;
  return {
    verdict,
    unknowns: sys.n,
    equations: sys.m,
    structural_rank: dm.rank,
    numerical_rank: Math.min(...results.map((r) => r.rank)),
    configurations: results,
    singular_configurations: results.filter((r) => r.deficiency > 0),
    unobservable,
    undetermined,
    structurally_undetermined: Array.from(dm.colsUnder, (j) => L.names[j]),
    redundant_sensors: redundant,
    notes: es.notes,
  };
}

/**
 * How the redundancy tests of the analyses run so far were decided, per sensor and configuration
 * (tests and benchmarks read it): by the leverage test, by a z only the sensor sees, or by a rank
 * test of G without the sensor's rows.
 */
export const redundancyTally = { leverage: 0, alone: 0, rank: 0 };

/**
 * The leverage test says "still full rank without the sensor" only when the smallest singular value
 * of the equilibrated G without its rows is certainly above LEVERAGE_MARGIN × the largest — six
 * orders of magnitude above the rank test's 1e-9, room for the rank test's own equilibration of the
 * rows left — and when every z keeps, in the other rows, an entry of at least COLUMN_KEEP × its
 * largest (so that equilibrating without the sensor's rows scales no column by more than that).
 * Anything else goes to the rank test: the verdicts are those of the rank test.
 */
const LEVERAGE_MARGIN = 1e-3, COLUMN_KEEP = 0.1;

/** One configuration's G, equilibrated, with what the leverage test needs. */
interface LeverageFactor {
  rk: Int32Array[];
  rv: Float64Array[];
  /** R of G = QR (n × n, row-major, upper triangular) */
  R: Float64Array;
  /** σ_min(G) / σ_max(G) (of R) */
  cond: number;
  /** per z: the largest |entry|, the sensor whose row holds it (−1: a constraint row), the largest in rows of anything else */
  best: Float64Array;
  owner: Int32Array;
  other: Float64Array;
}

/** R of the thin QR of the m × n column-major matrix A (Householder reflections; A is overwritten). */
function qrR(A: Float64Array, m: number, n: number): Float64Array {
  const R = new Float64Array(n * n);
  for (let j = 0; j < n; j++) {
    const cj = j * m;
    let ss = 0;
    for (let i = j; i < m; i++) ss += A[cj + i] * A[cj + i];
    const norm = Math.sqrt(ss);
    if (norm === 0) continue;
    const alpha = A[cj + j] > 0 ? -norm : norm;
    const x0 = A[cj + j];
    A[cj + j] = x0 - alpha;
    const vv = ss - x0 * x0 + A[cj + j] * A[cj + j];
    R[j * n + j] = alpha;
    for (let k = j + 1; k < n; k++) {
      const ck = k * m;
      let d = 0;
      for (let i = j; i < m; i++) d += A[cj + i] * A[ck + i];
      const f = (2 * d) / vv;
      for (let i = j; i < m; i++) A[ck + i] -= f * A[cj + i];
      R[j * n + k] = A[ck + j];
    }
  }
  return R;
}

function leverageFactor(reducer: Reducer, t: Trial, rowSensor: Int32Array): LeverageFactor | null {
  const { kept, rk, rv } = reducer.equilibratedRows(t);
  const n = reducer.red.zCols.length, m = kept.length;
  if (n === 0 || m < n) return null;
  const best = new Float64Array(n), owner = new Int32Array(n).fill(-2), other = new Float64Array(n);
  for (const r of kept) {
    const ks = rk[r], vs = rv[r];
    for (let e = 0; e < ks.length; e++) if (Math.abs(vs[e]) > best[ks[e]]) { best[ks[e]] = Math.abs(vs[e]); owner[ks[e]] = rowSensor[r]; }
  }
  for (const r of kept) {
    const ks = rk[r], vs = rv[r], o = rowSensor[r];
    for (let e = 0; e < ks.length; e++) if (o !== owner[ks[e]] || o === -1) other[ks[e]] = Math.max(other[ks[e]], Math.abs(vs[e]));
  }
  const A = new Float64Array(m * n);
  kept.forEach((r, i) => { const ks = rk[r], vs = rv[r]; for (let e = 0; e < ks.length; e++) A[ks[e] * m + i] = vs[e]; });
  const R = qrR(A, m, n);
  // values beyond double range (NaN, ∞): no leverage test, the rank test decides
  for (let i = 0; i < R.length; i++) if (!Number.isFinite(R[i])) return null;
  const sv = new SingularValueDecomposition(new Matrix(Array.from({ length: n }, (_, i) => Array.from(R.subarray(i * n, (i + 1) * n)))), { computeLeftSingularVectors: false, computeRightSingularVectors: false }).diagonal;
  const smax = Math.max(...sv), smin = Math.min(...sv);
  return { rk, rv, R, cond: smax > 0 ? smin / smax : 0, best, owner, other };
}

/**
 * Is G still of full rank without the rows `rows` of sensor `s`? From the one QR of G (G = QR,
 * full rank): the rows' block of Q is Q_s = G_s R⁻¹, and the smallest singular value of Q without
 * those rows is c = √(1 − σ_max(Q_s)²) — zero exactly when the rank drops — so that σ_min(G
 * without them) ≥ c · σ_min(G). "deficient" when a z is seen by no other row (a zero column),
 * "full" when c · σ_min/σ_max clears LEVERAGE_MARGIN, else "unsure" (the rank test decides).
 */
function leverageTest(f: LeverageFactor, rows: number[], s: number): 'full' | 'deficient' | 'unsure' {
  const n = f.best.length;
  let unsure = !(f.cond >= LEVERAGE_MARGIN);
  for (let k = 0; k < n; k++) {
    if (f.owner[k] !== s) continue;
    if (f.other[k] === 0) return 'deficient';
    if (f.other[k] < COLUMN_KEEP * f.best[k]) unsure = true;
  }
  if (unsure) return 'unsure';
  // X = G_s R⁻¹, row by row (x R = g: forward substitution over the columns of R)
  const X: Float64Array[] = rows.map((r) => {
    const x = new Float64Array(n);
    const ks = f.rk[r], vs = f.rv[r];
    for (let e = 0; e < ks.length; e++) x[ks[e]] = vs[e];
    for (let j = 0; j < n; j++) {
      let v = x[j];
      for (let i = 0; i < j; i++) v -= x[i] * f.R[i * n + j];
      x[j] = v / f.R[j * n + j];
    }
    return x;
  });
  const k = X.length;
  if (k === 0) return 'full';
  const gram = Array.from({ length: k }, (_, a) => Array.from({ length: k }, (_, b) => { let d = 0; for (let j = 0; j < n; j++) d += X[a][j] * X[b][j]; return d; }));
  const lmax = Math.max(...new EigenvalueDecomposition(new Matrix(gram), { assumeSymmetric: true }).realEigenvalues);
  const c = Math.sqrt(Math.max(0, 1 - lmax));
  return c * f.cond >= LEVERAGE_MARGIN ? 'full' : 'unsure';
}

/**
 * The sensors whose rows can go with the verdict kept (full rank at every configuration that
 * counts: the random ones, and the special ones too when the layout is well posed). A sensor with
 * a twin (same type, joints or link, origin, components) is redundant without a test: its twin's
 * rows stay (1,500 identical sensors: 70 s → 0.5 s). The others: per configuration, the leverage
 * test from one QR of G (`leverageTest`), and a rank test of G without the sensor's rows where it
 * is unsure (with `method` "rank", the rank test always: the reference).
 */
function redundantSensors(es: EstimationSystem, red: Reduction, reducer: Reducer, trials: { t: Trial; kind: string }[], verdict: Verdict, tol: number, method: 'leverage' | 'rank'): string[] {
  const sys = es.sys;
  const nFixed = sys.n - red.zCols.length;
  const rowIndex = new Map(red.gRows.map((r, k) => [r, k]));
  const what = (x: (typeof es.sensors)[number]): string => { const o = x.spec; return JSON.stringify([o.type, o.joints, o.joint, o.link, o.origin, o.components, o.measure_direction]); };
  const twins = new Map<string, number>();
  for (const s of es.sensors) if (s.block >= 0) twins.set(what(s), (twins.get(what(s)) ?? 0) + 1);
  const rowSensor = new Int32Array(red.gRows.length).fill(-1);
  const sensorRows = es.sensors.map((s, i) => {
    if (s.block < 0) return [];
    const r0 = sys.blockRow0[s.block], nr = sys.blocks[s.block].rowNames.length;
    const rows: number[] = [];
    for (let r = r0; r < r0 + nr; r++) { const k = rowIndex.get(r)!; rows.push(k); rowSensor[k] = i; }
    return rows;
  });
  const counted = trials.filter((g) => !(verdict === 'generically_well_posed' && g.kind === 'special'));
  const factors = new Map<Trial, LeverageFactor | null>();
  const factor = (t: Trial): LeverageFactor | null => {
    if (!factors.has(t)) factors.set(t, leverageFactor(reducer, t, rowSensor));
    return factors.get(t)!;
  };
  const redundant: string[] = [];
  es.sensors.forEach((s, i) => {
    if (s.block < 0) return;
    if (twins.get(what(s))! > 1) { redundant.push(s.spec.name); return; }
    let keep: Uint8Array | null = null;
    for (const g of counted) {
      const f = method === 'leverage' ? factor(g.t) : null;
      const v = f ? leverageTest(f, sensorRows[i], i) : 'unsure';
      if (v === 'deficient') { redundancyTally.alone++; return; }
      if (v === 'full') { redundancyTally.leverage++; continue; }
      redundancyTally.rank++;
      if (!keep) { keep = new Uint8Array(red.gRows.length).fill(1); for (const k of sensorRows[i]) keep[k] = 0; }
      if (nFixed + reducer.rank(g.t, tol, keep, true).rank < sys.n) return;
    }
    redundant.push(s.spec.name);
  });
  return redundant;
}

/**
 * The unobservable directions of the layout at one configuration q, named as in the report; when
 * there are none, the least observable one (smallest singular value of the equilibrated G).
 * `ratio` is that smallest singular value over the largest. For the samples a run flags.
 */
export function directionsAt(es: EstimationSystem, q: Float64Array, opts: { tol?: number } = {}): { deficiency: number; ratio: number; directions: string[] } {
  let c = cache.get(es);
  if (!c) {
    const red = reduction(es);
    c = { red, idSolver: new SparseSolver(red.idSys), vals: new SystemValues(es.sys) };
    cache.set(es, c);
  }
  const { G, dz } = reducedMatrix(es, c.red, c.idSolver, c.vals, q);
  const { rank, nullVecs, ratio } = rankAndNull(G, opts.tol ?? 1e-9, undefined, 1);
  const deficiency = c.red.zCols.length - rank;
  const combine = (v: number[]) => { const x = new Float64Array(es.sys.n); v.forEach((a, k) => { if (a !== 0) for (let j = 0; j < x.length; j++) x[j] += a * dz[k][j]; }); return x; };
  const { unobservable } = nameDirections(es, c.red, deficiency > 0 ? nullVecs.slice(-deficiency) : nullVecs.slice(-1), combine);
  return { deficiency, ratio, directions: unobservable };
}

const cache = new WeakMap<EstimationSystem, { red: Reduction; idSolver: SparseSolver; vals: SystemValues }>();

/**
 * The same problem without its priors: what the data determine — the sensors and the constraints,
 * soft ones (`unactuated_variance`, `zero_variance`) counted as equations like their exact forms.
 * Its unobservable directions are those only the priors determine (when the priors make the layout
 * estimable). `estimate` names them per layout (layouts.ts), `analyze` for the problem.
 */
export function analyzeDataAlone(es: EstimationSystem, opts: AnalysisOptions = {}): AnalysisReport {
  return analyzeProblem(buildEstimationSystem(es.model, { ...es.problem, priors: [] }), opts);
}

/** What the priors and soft constraints of a problem change in its analysis (see `analyzePriors`). */
export interface PriorAnalysis {
  /** what each prior is on (`contact:l_sole`, `torques`, …), in problem order */
  priors: string[];
  /** the soft constraints (`unactuated[joint]`, `contact[link].zero`) with their variance: equations of the data, as their exact forms */
  soft_constraints: { constraint: string; variance: number }[];
  /** the analysis of the data alone (the problem without its priors) */
  data_alone: {
    verdict: Verdict;
    structural_rank: number;
    numerical_rank: number;
    /** names of the configurations tried where the data alone are rank deficient */
    singular_configurations: string[];
    unobservable: string[];
    undetermined: string[];
  };
  /** the priors make every unknown determined (the verdict with them is not ill_posed) */
  estimable: boolean;
  /**
   * the directions the data leave unobservable and only the priors determine, named as unobservable
   * ones are (at every configuration when the data alone are ill_posed, at their singular
   * configurations when generically_well_posed); empty when the data determine every unknown;
   * null when the priors do not make the problem estimable (compare `data_alone.unobservable`
   * with the analysis' `unobservable`, what stays unobservable with the priors)
   */
  prior_only: string[] | null;
  /** the unknowns those directions leave undetermined by the data (joint torques first); null as prior_only */
  prior_only_unknowns: string[] | null;
}

/**
 * For a problem with priors or soft constraints (null otherwise): the verdict of the data alone,
 * whether the priors make it estimable, and the directions only the priors determine. `withPriors`
 * is the analysis of `es` itself; `opts` those it was made with (the redundancy search is skipped).
 */
export function analyzePriors(es: EstimationSystem, withPriors: AnalysisReport, opts: AnalysisOptions = {}): PriorAnalysis | null {
  const p = es.problem;
  const soft: { constraint: string; variance: number }[] = [];
  const unactuated = p.unactuated ?? (es.model.floatingBase ? [es.model.jointNames[0]] : []);
  if (p.unactuated_variance !== undefined) for (const j of unactuated) if (es.model.nvi[es.model.joint(j)] > 0) soft.push({ constraint: `unactuated[${j}]`, variance: p.unactuated_variance });
  for (const c of p.contacts) if (c.zero_variance !== undefined && c.zero.length > 0) soft.push({ constraint: `contact[${c.link}].zero`, variance: c.zero_variance });
  if (es.priors.length === 0 && soft.length === 0) return null;
  const data = es.priors.length ? analyzeDataAlone(es, { ...opts, redundancy: false }) : withPriors;
  const estimable = withPriors.verdict !== 'ill_posed';
  return {
    priors: es.priors.map((x) => x.spec.on),
    soft_constraints: soft,
    data_alone: {
      verdict: data.verdict,
      structural_rank: data.structural_rank,
      numerical_rank: data.numerical_rank,
      singular_configurations: data.singular_configurations.map((c) => c.name),
      unobservable: data.unobservable,
      undetermined: data.undetermined,
    },
    estimable,
    prior_only: estimable ? (es.priors.length ? data.unobservable : []) : null,
    prior_only_unknowns: estimable ? (es.priors.length ? data.undetermined : []) : null,
  };
}
