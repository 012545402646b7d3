/**
 * The solvers a study compares, each prepared once for a case (offline work timed apart) and run
 * through the library's public entry points. Flops are read from the kernels' own counters after a
 * run — never re-derived — except for the dense LU, which ml-matrix does not count (dense.ts gives
 * its exact count by formula). Source: Nori (2017) §IV–VI; Carpentier (2018) and Krög et al. (2024) for M⁻¹, M⁻¹B.
 *
 *   rnea, aba              the gold standards (src/algorithms)
 *   matrix-aba             Property 2 (src/assembly/matrix-aba.ts)
 *   lu:<ordering>          SparseSolver / MinvLu / IwimLu / Estimator with that offline ordering
 *   lu:paper               the hand-made permutations (11)–(12): one forward substitution
 *   dense                  ml-matrix LU of the same matrix (run up to dense.maxRunOrder)
 *   carpentier, crba-cholesky, iim, eufm   M⁻¹ and M⁻¹B references
 *   derivative problems (src/derivatives): recursive = Saccon et al. (2017) Tables 4–8 (recursive.ts),
 *   lu:<ordering> = factor reuse with 3·nv more solves, lu-adjoint = nv transposed solves
 *   (dynamics.ts), fd = central differences (finite-differences.ts); output [∂/∂q; ∂/∂q̇; M or M⁻¹]
 */
import { abaUnchecked, AbaWorkspace } from '../algorithms/aba.ts';
import { InputMatrix } from '../algorithms/iwim-inputs.ts';
import { iwimIim, IwimIimWorkspace } from '../algorithms/iwim-iim.ts';
import { iwimUnitForce, IwimUnitForceWorkspace } from '../algorithms/iwim-unit-force.ts';
import { minvCholesky, MinvCholeskyWorkspace } from '../algorithms/minv.ts';
import { minvCarpentierUnchecked, MinvCarpentierWorkspace } from '../algorithms/minv-carpentier.ts';
import { rneaUnchecked, RneaWorkspace } from '../algorithms/rnea.ts';
import { IwimLu } from '../assembly/iwim-lu.ts';
import { MatrixAba } from '../assembly/matrix-aba.ts';
import { MinvLu } from '../assembly/minv-lu.ts';
import { classicalInputs } from '../assembly/problems.ts';
import { SparseSolver } from '../assembly/solver.ts';
import { fillSystem, SystemValues } from '../assembly/system.ts';
import { LuForwardDynamicsDerivatives, LuInverseDynamicsDerivatives } from '../derivatives/dynamics.ts';
import { FiniteDifferenceDerivatives } from '../derivatives/finite-differences.ts';
import { RecursiveForwardDynamicsDerivatives, RecursiveInverseDynamicsDerivatives } from '../derivatives/recursive.ts';
import { Estimator } from '../estimation/estimator.ts';
import { Flops } from '../spatial/flops.ts';
import type { OrderingName } from '../sparse/orderings.ts';
import type { SymbolicLU } from '../sparse/symbolic.ts';
import { qddFromD, tauFromD, type StudyCase } from './cases.ts';
import { isDerivativeProblem, type SolverName } from './config.ts';
import { DenseLu, denseLuFactorFlops, denseLuSolveFlops } from './dense.ts';
import { PaperTriangularSolver } from './paper-triangular.ts';

/** A named part of a solver's flops, as its kernels counted it. */
export interface FlopPart {
  name: string;
  flops: Flops;
}

/** Size and structure of the matrix a solver works on. */
export interface Structure {
  /** order of the matrix */
  n: number;
  /** its structural nonzeros */
  nnz: number;
  /** nnz(L) + nnz(U) − n over the diagonal blocks, entries of the off-diagonal blocks, fill entries */
  luNnz?: number;
  offNnz?: number;
  fill?: number;
  blocks?: number;
  maxBlock?: number;
  /** the orderings chosen in the blocks of size ≥ 2 (name × count) */
  chosen?: string;
}

export interface PreparedSolver {
  /** one call on the prepared inputs (absent when the solver is not run at this size) */
  run?: () => void;
  /** the result of the last run: τ, q̈, M⁻¹ or B̂ (row-major) */
  output?: () => ArrayLike<number>;
  /** flops of the last run (or by formula when not run), by part */
  parts: () => FlopPart[];
  structure?: () => Structure;
  /** offline work (ordering, symbolic analysis) in ms */
  analyzeMs?: number;
  /** blocks re-pivoted by the numeric LU at this state */
  repivoted?: () => number;
  /** why the solver is run but not timed (a reference only), when it is not */
  untimed?: string;
  notes: string[];
}

export interface SolverOptions {
  denseMaxRunOrder: number;
  /** time the central differences of the derivative problems (default: run for flops and accuracy only) */
  timeFiniteDifferences?: boolean;
}

/** A solver that does not apply here, with the reason. */
export class SolverSkip {
  constructor(readonly note: string) {}
}

const part = (name: string, f: Flops): FlopPart => ({ name, flops: new Flops().accumulate(f) });

function chosenOrderings(S: SymbolicLU): string {
  const count = new Map<string, number>();
  for (const o of S.orderings) count.set(o.chosen, (count.get(o.chosen) ?? 0) + 1);
  return [...count].map(([k, v]) => (v > 1 ? `${k}×${v}` : k)).join(' + ');
}

function luStructure(S: SymbolicLU): Structure {
  return {
    n: S.n, nnz: S.nnz, luNnz: S.luNnz, offNnz: S.offNnz, fill: S.luNnz + S.offNnz - S.nnz,
    blocks: S.nblocks, maxBlock: S.maxBlock, chosen: chosenOrderings(S),
  };
}

function sparseParts(f: { kinematics: Flops; fill: Flops; factor: Flops; solve: Flops }): FlopPart[] {
  return [part('kinematics', f.kinematics), part('fill', f.fill), part('factor', f.factor), part('solve', f.solve)];
}

export function prepareSolver(c: StudyCase, solver: SolverName, opts: SolverOptions): PreparedSolver | SolverSkip {
  const { model, q, v } = c;
  const notes: string[] = [];
  if (isDerivativeProblem(c.kind)) return prepareDerivatives(c, solver, opts);
  switch (solver) {
    case 'rnea': {
      const ws = new RneaWorkspace(model);
      return {
        run: () => { rneaUnchecked(model, ws, q, v, c.qdd, c.fext); },
        output: () => ws.tau,
        parts: () => [part('kinematics', ws.kin.flops), part('recursion', ws.flops)],
        notes: c.kind === 'inverse-dynamics' ? notes : ['RNEA with every q̈ and f^x known (the classical problem this estimation generalizes), for reference'],
      };
    }
    case 'aba': {
      const ws = new AbaWorkspace(model);
      return {
        run: () => { abaUnchecked(model, ws, q, v, c.tau, c.fext); },
        output: () => ws.qdd,
        parts: () => [part('kinematics', ws.kin.flops), part('recursion', ws.flops)],
        notes,
      };
    }
    case 'matrix-aba': {
      const mat = new MatrixAba(model);
      const y = classicalInputs(new Float64Array(mat.sys.ny), model, c.tau, c.fext);
      const f = mat.flops;
      return {
        run: () => { mat.solveUnchecked(q, v, y); },
        output: () => mat.qdd,
        parts: () => [part('kinematics', f.kinematics), part('fill', f.fill), part('inertias', f.inertias), part('product', f.product), part('solve', f.solve)],
        structure: () => ({ n: mat.product.m, nnz: mat.product.Rj.length }),
        notes: ['inertias: the I^A recursion, left out of the count of Nori\'s 2017 paper; product: forming W^L D W^R'],
      };
    }
    case 'lu:paper': {
      const ts = new PaperTriangularSolver(c.sys);
      const sys = c.sys;
      return {
        run: () => { ts.stepUnchecked(q, v, c.y); },
        output: () => tauFromD(c, ts.d),
        parts: () => [part('kinematics', ts.flops.kinematics), part('fill', ts.flops.fill), part('solve', ts.flops.solve)],
        structure: () => ({ n: sys.n, nnz: sys.nnz, luNnz: sys.nnz, offNnz: 0, fill: 0, blocks: sys.n, maxBlock: 1 }),
        analyzeMs: ts.analyzeMs,
        notes: ['forward substitution under p_id, q (eqs. 11–12); products with the constant ±1 entries are not counted'],
      };
    }
    case 'dense': return prepareDense(c, opts);
    case 'carpentier': {
      const ws = new MinvCarpentierWorkspace(model);
      return { run: () => { minvCarpentierUnchecked(model, ws, q); }, output: () => ws.Minv, parts: () => [part('recursion', ws.flops)], notes };
    }
    case 'crba-cholesky': {
      const ws = new MinvCholeskyWorkspace(model);
      return { run: () => { minvCholesky(model, ws, q); }, output: () => ws.Minv, parts: () => [part('recursion', ws.crba.flops), part('factor', ws.flops)], notes: ['recursion: CRBA; factor: dense Cholesky and inverse'] };
    }
    case 'iim': case 'eufm': {
      const B = new InputMatrix(model, { actuated: 'all' });
      if (B.m === 0) return new SolverSkip(`model "${c.modelSpec}" has no actuated joint`);
      if (solver === 'iim') {
        const ws = new IwimIimWorkspace(model, B);
        return { run: () => { iwimIim(model, ws, q, v); }, output: () => ws.Bhat, parts: () => [part('recursion', ws.flops)], notes };
      }
      const ws = new IwimUnitForceWorkspace(model, B);
      return { run: () => { iwimUnitForce(model, ws, q, v); }, output: () => ws.Bhat, parts: () => [part('recursion', ws.flops)], notes };
    }
    default: return prepareLu(c, solver.slice(3) as OrderingName | 'auto');
  }
}

function prepareLu(c: StudyCase, ordering: OrderingName | 'auto'): PreparedSolver | SolverSkip {
  const { model, q, v } = c;
  const notes: string[] = [];
  if (c.kind === 'minv') {
    const m = new MinvLu(model, { ordering });
    return {
      run: () => { m.computeUnchecked(q); }, output: () => m.Minv, parts: () => sparseParts(m.flops),
      structure: () => luStructure(m.solver.lu.symbolic), analyzeMs: m.solver.analyzeMs, repivoted: () => m.solver.lu.repivotedBlocks,
      notes: [`${model.nv} right-hand sides`],
    };
  }
  if (c.kind === 'iwim') {
    const B = new InputMatrix(model, { actuated: 'all' });
    if (B.m === 0) return new SolverSkip(`model "${c.modelSpec}" has no actuated joint`);
    const m = new IwimLu(model, B, { ordering });
    return {
      run: () => { m.solveUnchecked(q, v); }, output: () => m.Bhat, parts: () => sparseParts(m.flops),
      structure: () => luStructure(m.solver.lu.symbolic), analyzeMs: m.solver.analyzeMs, repivoted: () => m.solver.lu.repivotedBlocks,
      notes: [`${B.m + 1} right-hand sides`],
    };
  }
  const sys = c.sys;
  if (sys.m !== sys.n) {
    // redundant estimation: weighted least squares on the Estimator's augmented system
    if (ordering !== 'auto') return new SolverSkip(`weighted least squares (${sys.m} equations, ${sys.n} unknowns): the Estimator analyses its augmented system with the auto ordering only`);
    const est = new Estimator(c.es!);
    return {
      run: () => { est.estimateUnchecked(q, v, c.y); }, output: () => tauFromD(c, est.d), parts: () => sparseParts(est.flops),
      structure: () => ({ n: sys.m + sys.n, nnz: 2 * sys.nnz + sys.blocks.reduce((s, b) => s + (b.variance === undefined ? 0 : b.rowNames.length), 0) }),
      analyzeMs: est.analyzeMs,
      notes: [`weighted least squares: LU of the augmented system [W⁻¹A; Aᵀ 0] of order ${sys.m + sys.n}`],
    };
  }
  // the transforms gathered as LuInverseDynamics and LuForwardDynamics fill them (the same values, flops and
  // factors as the plain fill, in less time); no refinement step, which LuForwardDynamics adds by default
  // (the paper's count; its cost in time: scripts/bench-lu-time.ts)
  const solver = new SparseSolver(sys, { ordering, gather: true });
  if (c.kind === 'forward-dynamics') notes.push('the LU without the refinement step that LuForwardDynamics adds by default (Nori\'s count; its time: reports/bench-lu-time.md)');
  const out = c.kind === 'forward-dynamics' ? qddFromD : tauFromD;
  const res = new Float64Array(model.nv);
  return {
    run: () => { solver.stepUnchecked(q, v, c.y); },
    output: () => out(c, solver.d, res),
    parts: () => sparseParts(solver.flops),
    structure: () => luStructure(solver.lu.symbolic),
    analyzeMs: solver.analyzeMs,
    repivoted: () => solver.lu.repivotedBlocks,
    notes,
  };
}

/** Output buffer [∂/∂q; ∂/∂q̇; ∂/∂u] (3·nv² entries, each nv×nv row-major) and its filler. */
function derivativeOutput(nv: number, d: { dq: Float64Array; dv: Float64Array; du: Float64Array }): () => Float64Array {
  const out = new Float64Array(3 * nv * nv);
  return () => {
    out.set(d.dq, 0);
    out.set(d.dv, nv * nv);
    out.set(d.du, 2 * nv * nv);
    return out;
  };
}

/**
 * The derivatives of inverse dynamics (∂τ/∂q, ∂τ/∂q̇, M) or forward dynamics (∂q̈/∂q, ∂q̈/∂q̇, M⁻¹),
 * one call = the value and its derivatives, as `sparsedyn derivatives` computes them. Parts are the
 * derivative objects' own counters.
 */
function prepareDerivatives(c: StudyCase, solver: SolverName, opts: SolverOptions): PreparedSolver | SolverSkip {
  const { model, q, v } = c;
  const inverse = c.kind === 'id-derivatives';
  const u = inverse ? c.qdd : c.tau;
  const nv = model.nv;
  if (solver === 'recursive') {
    if (inverse) {
      const d = new RecursiveInverseDynamicsDerivatives(model);
      return {
        run: () => { d.compute(q, v, u); }, output: derivativeOutput(nv, d),
        parts: () => [part('rnea', d.flops.value), part('derivatives', d.flops.derivatives), part('M', d.flops.M)],
        notes: ['rnea: τ by the world-frame RNEA; derivatives: ∂τ/∂q, ∂τ/∂q̇ (Carpentier & Mansard 2018); M: its entries from the same pass'],
      };
    }
    const d = new RecursiveForwardDynamicsDerivatives(model);
    return {
      run: () => { d.compute(q, v, u); }, output: derivativeOutput(nv, d),
      parts: () => [part('qdd', d.flops.value), part('derivatives', d.flops.derivatives), part('minv', d.flops.Minv)],
      notes: ['qdd: q̈ = M⁻¹ (τ − b): the passes at q̈ = 0, the bias torques b and one solve by the articulated-body factorization of M (world frame); derivatives: the passes brought to q̈, ∂τ/∂q, ∂τ/∂q̇ (Carpentier & Mansard 2018) and the two solves −M⁻¹ ∂τ/∂x; minv: the factorization and M⁻¹ (Carpentier, world frame)'],
    };
  }
  if (solver === 'fd') {
    const d = new FiniteDifferenceDerivatives(model, inverse ? 'id' : 'fd');
    return {
      run: () => { d.compute(q, v, u); }, output: derivativeOutput(nv, d),
      parts: () => [part(inverse ? 'rnea' : 'aba', d.flops.value), part('differences', d.flops.derivatives)],
      untimed: opts.timeFiniteDifferences ? undefined : 'not timed: central differences are a reference (timing.finiteDifferences is false)',
      notes: [`central differences, δ = ${d.delta}: ${6 * nv} evaluations of ${inverse ? 'RNEA' : 'ABA'} and the differences`],
    };
  }
  if (solver !== 'lu-adjoint' && !solver.startsWith('lu:')) return new SolverSkip(`${solver} does not compute derivatives`);
  if (solver === 'lu:paper') return new SolverSkip('lu:paper does not compute derivatives');
  const mode = solver === 'lu-adjoint' ? 'adjoint' : 'forward';
  const ordering = solver === 'lu-adjoint' ? 'auto' : solver.slice(3) as OrderingName | 'auto';
  const t0 = performance.now();
  const d = inverse ? new LuInverseDynamicsDerivatives(model, { mode, ordering }) : new LuForwardDynamicsDerivatives(model, { mode, ordering });
  const analyzeMs = performance.now() - t0;
  const run = inverse
    ? () => { (d as LuInverseDynamicsDerivatives).compute(q, v, u); }
    : () => { (d as LuForwardDynamicsDerivatives).compute(q, v, u); };
  const step = d.dynamics.solver;
  const parts = (): FlopPart[] => {
    const own = sparseParts(step.flops);
    if (d.adjoint) {
      const a = d.adjoint.flops;
      return [...own, part('jacobians', a.jacobians), part('transposed solves', a.solve), part('products', a.products)];
    }
    const s = d.sens!.flops;
    return [...own, part('jacobians', s.jacobians), part('derivative solves', s.solve)];
  };
  return {
    run, output: derivativeOutput(nv, d), parts,
    structure: () => luStructure(step.lu.symbolic),
    analyzeMs,
    repivoted: () => step.lu.repivotedBlocks,
    notes: [mode === 'adjoint'
      ? `the step (kinematics, fill, factor, solve), then J_q, J_v and ${nv} transposed solves with products −wᵀJ; M${inverse ? '' : '⁻¹'} read off the adjoints`
      : `the step (kinematics, fill, factor, solve), then J_q, J_v and ${3 * nv} more solves (${2 * nv} for ∂/∂q, ∂/∂q̇; ${nv} for M${inverse ? '' : '⁻¹'})`,
    'analyze_ms: building the derivative object (system, ordering, symbolic LU, jacobian patterns)'],
  };
}

/** Dense LU of the same matrix as the sparse path (and the same right-hand sides). */
function prepareDense(c: StudyCase, opts: SolverOptions): PreparedSolver | SolverSkip {
  const { model, q, v, sys } = c;
  const wls = sys.m !== sys.n;
  const order = wls ? sys.m + sys.n : sys.n;
  const nrhs = c.kind === 'minv' ? model.nv : c.kind === 'iwim' ? new InputMatrix(model, { actuated: 'all' }).m + 1 : 1;
  const vals = new SystemValues(sys);
  const qd = c.kind === 'minv' ? null : v;
  const y = c.kind === 'minv' || c.kind === 'iwim' ? new Float64Array(sys.ny) : c.y;
  const factor = denseLuFactorFlops(order), solve = denseLuSolveFlops(order, nrhs);
  const parts = (): FlopPart[] => [part('kinematics', vals.kin.flops), part('fill', vals.flops), part('factor', factor), part('solve', solve)];
  const structure = (): Structure => ({ n: order, nnz: order * order });
  const notes = ['ml-matrix LuDecomposition (partial pivoting); factor and solve counted by formula for the loops it runs'];
  if (wls) notes.push(`weighted least squares: the augmented system [W⁻¹A; Aᵀ 0] of order ${order}`);
  if (nrhs > 1) notes.push(`${nrhs} right-hand sides`);
  if (order > opts.denseMaxRunOrder) {
    fillSystem(vals, q, qd, y);
    notes.push(`not run: order ${order} > dense.maxRunOrder = ${opts.denseMaxRunOrder}; flops by formula, no time`);
    return { parts, structure, notes };
  }
  const dense = new DenseLu(order, nrhs);
  const A = sys.pattern, m = sys.m;
  const variance = new Float64Array(m);
  sys.blocks.forEach((blk, k) => {
    if (blk.variance !== undefined) for (let r = 0; r < blk.rowNames.length; r++) variance[sys.blockRow0[k] + r] = blk.variance;
  });
  let qddCol: Int32Array | undefined, inputRows: Int32Array | undefined;
  if (c.kind === 'minv' || c.kind === 'iwim') {
    qddCol = new Int32Array(model.nv);
    for (let i = 0; i < model.nb; i++) for (let k = 0; k < model.nvi[i]; k++) qddCol[model.iv[i] + k] = sys.layout.qdd[i] + k;
    const dofs = c.kind === 'minv' ? Int32Array.from({ length: model.nv }, (_, k) => k) : new InputMatrix(model, { actuated: 'all' }).dof;
    inputRows = Int32Array.from(dofs, (k) => sys.knownRow[k]);
  }
  const result = new Float64Array(c.kind === 'minv' ? model.nv * model.nv : c.kind === 'iwim' ? model.nv * (nrhs - 1) : model.nv);
  const run = (): void => {
    fillSystem(vals, q, qd, y);
    const Ax = vals.Ax, b = vals.b, DA = dense.A, DB = dense.B;
    if (wls) {
      for (let j = 0; j < sys.n; j++) {
        for (let p = A.Ap[j]; p < A.Ap[j + 1]; p++) { DA.set(A.Ai[p], m + j, Ax[p]); DA.set(m + j, A.Ai[p], Ax[p]); }
      }
      for (let r = 0; r < m; r++) DA.set(r, r, variance[r]);
    } else {
      dense.setFromCsc(A.Ap, A.Ai, Ax);
    }
    if (inputRows) {
      const off = c.kind === 'iwim' ? 1 : 0;
      if (c.kind === 'iwim') for (let r = 0; r < m; r++) DB.set(r, 0, -b[r]);
      for (let k = 0; k < inputRows.length; k++) DB.set(inputRows[k], k + off, 1);
    } else {
      for (let r = 0; r < m; r++) DB.set(r, 0, -b[r]);
    }
    const X = dense.solve();
    if (c.kind === 'minv') {
      for (let r = 0; r < model.nv; r++) for (let k = 0; k < model.nv; k++) result[r * model.nv + k] = X.get(qddCol![r], k);
    } else if (c.kind === 'iwim') {
      const mm = nrhs - 1;
      for (let r = 0; r < model.nv; r++) for (let k = 0; k < mm; k++) result[r * mm + k] = X.get(qddCol![r], k + 1);
    } else {
      const d = new Float64Array(sys.n);
      for (let j = 0; j < sys.n; j++) d[j] = X.get(wls ? m + j : j, 0);
      if (c.kind === 'forward-dynamics') qddFromD(c, d, result);
      else tauFromD(c, d, result);
    }
  };
  return { run, output: () => result, parts, structure, notes };
}
