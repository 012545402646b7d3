/**
 * The flops of every dynamics path on one model, counted by the kernels as they run at one seeded
 * random state (behind `sparsedyn flops`): RNEA and the inverse-dynamics LU (Nori (2017) §IV-A,
 * §IV-D), ABA, the matrix form of the ABA and the forward-dynamics LU (§V-A, §V-C, §V-D), with the
 * sizes of both sparse systems. Source: Nori (2017) Fig. 1 and 2 (the comparison it draws).
 * Every path solves the same problem: q, q̇, q̈ or τ, and an external wrench on every body.
 *
 * Flop counts depend on the structure only (joint types, tree, the patterns of D), not on the
 * inertia values. On a model whose forward dynamics is undefined (massless moving bodies,
 * Model.singularBodies) the forward-dynamics paths cannot run, so every path is counted on the
 * same structure with a generic rigid inertia on the bodies whose inertia is not positive definite
 * (structuralSurrogate: its patterns, hence its orderings and counts, are the model's); the
 * agreement of lu_fd and the matrix ABA with ABA is then not computed, and the report says why.
 */
import { randomConfiguration } from '../model/random.ts';
import { aba, AbaWorkspace } from '../algorithms/aba.ts';
import { rnea, RneaWorkspace } from '../algorithms/rnea.ts';
import type { Model } from '../model/model.ts';
import { Rng } from '../model/rng.ts';
import { Flops } from '../spatial/flops.ts';
import { inertiaFromMassComInertia } from '../spatial/inertia.ts';
import type { SymbolicLU } from '../sparse/symbolic.ts';
import { LuForwardDynamics, LuInverseDynamics } from './dynamics.ts';
import { matrixAbaOnce, totalOf } from './matrix-aba.ts';
import { rigidInertiaIsPositiveDefinite } from './patterns.ts';
import type { StepFlops } from './solver.ts';

/** One flop figure (sqrt/sin/cos, counted apart in Flops.fn, are left out). */
export interface FlopFigure {
  mul: number;
  add: number;
  div: number;
  total: number;
}

/** A sparse path: flops by part and the system's size and structure. */
export interface LuFigures {
  kinematics: FlopFigure;
  fill: FlopFigure;
  factor: FlopFigure;
  solve: FlopFigure;
  total: FlopFigure;
  /** order and nonzeros of D */
  n: number;
  nnz: number;
  /** BTF blocks and the largest one */
  blocks: number;
  max_block: number;
  /** nnz(L) + nnz(U) − n over the diagonal blocks, and the entries of the off-diagonal blocks */
  lu_nnz: number;
  off_nnz: number;
  /** blocks whose row order numeric pivoting changed at this state (the figures are for those factors) */
  repivoted: number;
}

/** The matrix form of the ABA in a flops report: flops by part and the size of W^L D W^R. */
export interface MatrixAbaFigures {
  kinematics: FlopFigure;
  fill: FlopFigure;
  /** (a) the I^A recursion (not in Nori (2017)'s count) */
  inertias: FlopFigure;
  /** (b) forming W^L D W^R */
  product: FlopFigure;
  /** (c) W^L b, forward substitution, d = W^R d' */
  solve: FlopFigure;
  total: FlopFigure;
  /** total without (a) */
  without_inertias: FlopFigure;
  /** order and nonzeros of W^L D W^R */
  n: number;
  nnz: number;
}

/**
 * The flops of every dynamics path on one model at one random state (what `sparsedyn flops --json`
 * prints).
 */
export interface FlopsReport {
  model: string;
  nb: number;
  nv: number;
  seed: number;
  rnea: FlopFigure;
  aba: FlopFigure;
  aba_matrix: MatrixAbaFigures;
  lu_id: LuFigures;
  /** the forward-dynamics LU as it ran at this state (default options: one refinement step in every block of size ≥ 2) */
  lu_fd: LuFigures;
  /**
   * the forward-dynamics LU with the refinement's backward-error test (SolverOptions.refineWhen
   * 'needed'), its two cases: every block's test passed (no correction solve: the best case), or
   * failed (every block refined: the worst case); at this state, the blocks tested and the blocks
   * whose test failed; each total over ABA's
   */
  lu_fd_refinement: {
    passed: LuFigures;
    failed: LuFigures;
    tested: number;
    refined: number;
    passed_over_aba: number;
    failed_over_aba: number;
  };
  /** order and nonzeros of the forward-dynamics system */
  n: number;
  nnz: number;
  /**
   * largest relative difference of each path's output from its gold standard (a sanity check);
   * lu_fd and aba_matrix are absent when the model's forward dynamics is undefined
   */
  agreement: { lu_id: number; lu_fd?: number; aba_matrix?: number };
  /**
   * present when the model has massless moving bodies (forward dynamics undefined): the bodies,
   * and what was counted how and what could not be computed
   */
  singular?: { bodies: string[]; note: string };
}

/** Options of `flopsReport`. */
export interface FlopsReportOptions {
  /** seed of the random state (default 1) */
  seed?: number;
  /** offline orderings computed earlier (e.g. loaded from JSON) */
  symbolicId?: SymbolicLU;
  symbolicFd?: SymbolicLU;
  /**
   * called between the paths, once the previous one is garbage: a caller that can ask the engine
   * for a full collection (the command line: src/node/collect.ts) keeps the peak memory to the
   * largest path's; without it the engine may collect a path only after the next has grown the heap
   */
  collect?: () => void;
}

export function figure(f: Flops): FlopFigure {
  return { mul: f.mul, add: f.add, div: f.div, total: f.total };
}

function sum(...parts: Flops[]): Flops {
  const t = new Flops();
  for (const p of parts) t.accumulate(p);
  return t;
}

/** A random state: joint angles in [−π, π], unit quaternions, base position, q̇, q̈, τ in [−2, 2], wrenches in [−5, 5]. */
export function randomDynamicsState(model: Model, rng: Rng): { q: Float64Array; v: Float64Array; a: Float64Array; tau: Float64Array; fext: Float64Array[] } {
  const q = randomConfiguration(model, rng);
  const vec = () => rng.array(model.nv, -2, 2);
  const fext = Array.from({ length: model.nb }, () => rng.array(6, -5, 5));
  return { q, v: vec(), a: vec(), tau: vec(), fext };
}

function relError(x: ArrayLike<number>, ref: ArrayLike<number>): number {
  let e = 0, s = 1;
  for (let k = 0; k < ref.length; k++) { e = Math.max(e, Math.abs(x[k] - ref[k])); s = Math.max(s, Math.abs(ref[k])); }
  return e / s;
}

function luFigures(f: StepFlops, S: SymbolicLU, repivoted: number): LuFigures {
  return {
    kinematics: figure(f.kinematics),
    fill: figure(f.fill),
    factor: figure(f.factor),
    solve: figure(f.solve),
    total: figure(sum(f.kinematics, f.fill, f.factor, f.solve)),
    n: S.n,
    nnz: S.nnz,
    blocks: S.nblocks,
    max_block: S.maxBlock,
    lu_nnz: S.luNnz,
    off_nnz: S.offNnz,
    repivoted,
  };
}

/** A generic rigid inertia with every entry of the rigid-inertia pattern nonzero (patterns.ts). */
function genericInertia(): Float64Array {
  return inertiaFromMassComInertia(new Float64Array(10), 1, [0.01, 0.02, 0.03], 2e-3, 1e-4, 2e-4, 3e-3, 3e-4, 4e-3);
}

/**
 * The model with a generic rigid inertia on every body whose inertia is not positive definite:
 * the same patterns of D (patterns.ts gives such bodies the full rigid-inertia pattern), hence the
 * same orderings and flop counts, but a defined forward dynamics.
 */
export function structuralSurrogate(model: Model): Model {
  return model.withInertias(model.I.map((I) => (rigidInertiaIsPositiveDefinite(I) ? I : genericInertia())));
}

/**
 * Run every path once at a seeded random state and collect the kernels' counts. Returns the report
 * and the offline orderings in force (to be saved). A model with massless moving bodies is counted
 * on its structural surrogate (file header).
 */
export function flopsReport(model: Model, opts: FlopsReportOptions = {}): { report: FlopsReport; symbolicId: SymbolicLU; symbolicFd: SymbolicLU } {
  if (model.singularBodies.length > 0) return singularFlopsReport(model, opts);
  return countedFlopsReport(model, opts);
}

function singularFlopsReport(model: Model, opts: FlopsReportOptions): { report: FlopsReport; symbolicId: SymbolicLU; symbolicFd: SymbolicLU } {
  const counted = countedFlopsReport(structuralSurrogate(model), opts);
  const seed = opts.seed ?? 1;
  // inverse dynamics is defined: its agreement is computed on the model itself
  const { q, v, a, fext } = randomDynamicsState(model, new Rng(seed));
  const tauRef = Float64Array.from(rnea(model, new RneaWorkspace(model), q, v, a, fext));
  const id = new LuInverseDynamics(model, { symbolic: counted.symbolicId });
  const bodies = Array.from(model.singularBodies, (i) => model.bodyNames[i]);
  const report: FlopsReport = {
    ...counted.report,
    model: model.name,
    agreement: { lu_id: relError(id.solve(q, v, a, fext), tauRef) },
    singular: {
      bodies,
      note: `forward dynamics is undefined (the articulated inertia of ${bodies.length === 1 ? 'body' : 'bodies'} ${bodies.map((b) => `"${b}"`).join(', ')} is singular: massless links), `
        + 'so the agreement of lu_fd and the matrix ABA with ABA was not computed; every count is the count of the same structure with a generic inertia on the massless bodies '
        + '(counts depend on the structure only)',
    },
  };
  return { report, symbolicId: counted.symbolicId, symbolicFd: counted.symbolicFd };
}

function countedFlopsReport(model: Model, opts: FlopsReportOptions): { report: FlopsReport; symbolicId: SymbolicLU; symbolicFd: SymbolicLU } {
  const seed = opts.seed ?? 1;
  const { q, v, a, tau, fext } = randomDynamicsState(model, new Rng(seed));
  // the gold standards' outputs and counts; their workspaces are released before the sparse paths
  const [tauRef, rneaFig] = (() => {
    const rw = new RneaWorkspace(model);
    return [Float64Array.from(rnea(model, rw, q, v, a, fext)), figure(rw.totalFlops())] as const;
  })();
  const [qddRef, abaFig] = (() => {
    const aw = new AbaWorkspace(model);
    return [Float64Array.from(aba(model, aw, q, v, tau, fext)), figure(aw.totalFlops())] as const;
  })();
  // one path at a time, each released before the next is built: the peak memory is the largest
  // path's, not their sum; the matrix ABA is counted once without keeping its plans (matrixAbaOnce)
  const idPart = (() => {
    const id = new LuInverseDynamics(model, { symbolic: opts.symbolicId });
    const err = relError(id.solve(q, v, a, fext), tauRef);
    return { err, fig: luFigures(id.solver.flops, id.solver.lu.symbolic, id.solver.lu.repivotedBlocks), symbolic: id.solver.symbolic };
  })();
  opts.collect?.();
  const fdPart = (() => {
    const fd = new LuForwardDynamics(model, { symbolic: opts.symbolicFd });
    const err = relError(fd.solve(q, v, tau, fext), qddRef);
    // the system's values outlive the LU: the matrix ABA below refills and reuses them
    return {
      err, fig: luFigures(fd.solver.flops, fd.solver.lu.symbolic, fd.solver.lu.repivotedBlocks), symbolic: fd.solver.symbolic, n: fd.solver.sys.n, nnz: fd.solver.sys.nnz, values: fd.solver.values,
    };
  })();
  // the refinement's two cases: a threshold every solution meets (each test passes), and one none
  // meets (each block refined), on the same ordering
  const caseOf = (refineOmega: number): LuFigures => {
    const fd = new LuForwardDynamics(model, { symbolic: fdPart.symbolic, refineWhen: 'needed', refineOmega });
    fd.solve(q, v, tau, fext);
    return luFigures(fd.solver.flops, fd.solver.lu.symbolic, fd.solver.lu.repivotedBlocks);
  };
  const passed = caseOf(0.5), failed = caseOf(Number.MIN_VALUE);
  // the test at this state, with its default threshold
  const atState = (() => {
    const fd = new LuForwardDynamics(model, { symbolic: fdPart.symbolic, refineWhen: 'needed' });
    fd.solve(q, v, tau, fext);
    return { tested: fd.solver.lu.refineTests, refined: fd.solver.lu.refineFailed };
  })();
  opts.collect?.();
  const matPart = (() => {
    // one solve, no plans kept (matrixAbaOnce): the same counts as MatrixAba.solve
    const mat = matrixAbaOnce(model, q, v, tau, fext, fdPart.values);
    const err = relError(mat.qdd, qddRef);
    const mf = mat.flops;
    const fig: MatrixAbaFigures = {
      kinematics: figure(mf.kinematics),
      fill: figure(mf.fill),
      inertias: figure(mf.inertias),
      product: figure(mf.product),
      solve: figure(mf.solve),
      total: figure(totalOf(mf, true)),
      without_inertias: figure(totalOf(mf, false)),
      n: mat.n,
      nnz: mat.nnz,
    };
    return { err, fig };
  })();
  const agreement = { lu_id: idPart.err, lu_fd: fdPart.err, aba_matrix: matPart.err };
  const report: FlopsReport = {
    model: model.name,
    nb: model.nb,
    nv: model.nv,
    seed,
    rnea: rneaFig,
    aba: abaFig,
    aba_matrix: matPart.fig,
    lu_id: idPart.fig,
    lu_fd: fdPart.fig,
    lu_fd_refinement: {
      passed, failed, tested: atState.tested, refined: atState.refined,
      passed_over_aba: passed.total.total / abaFig.total, failed_over_aba: failed.total.total / abaFig.total,
    },
    n: fdPart.n,
    nnz: fdPart.nnz,
    agreement,
  };
  return { report, symbolicId: idPart.symbolic, symbolicFd: fdPart.symbolic };
}
