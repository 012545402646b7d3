/**
 * Where the flops of inverse dynamics go: RNEA against the sparse LU of D_id (zero fill: every BTF
 * block 1×1, so the "factorization" is empty and the solve is one substitution) and against the
 * paper's hand-made triangular solve (lu:paper), operation by operation.
 * Source: Nori (2017) §IV (eqs. 3, 5, 8–12); RBDA Table 5.1 for RNEA.
 *
 * Each operation's count comes from the kernels: for RNEA, the spatial kernels RNEA calls
 * (xApplyMotion, addSx, inertiaMulMotion, crossForce, setSTf, xTransposeApplyForceAdd), called on
 * the model's own S_i with a fresh counter; for the LU, the entries of D grouped by the block of
 * eq. (5) they belong to — in the substitution each off-diagonal entry is one multiply-subtract and
 * each pivot one division (the ±1 pivots included), and the fill's count is split into the bias
 * wrenches ν_i, the root's ⁱX_0 a_0 and the transform values. The rows must add up to the measured
 * totals of the three solvers; `closes` says whether they do (the tests require it).
 */
import { rneaUnchecked, RneaWorkspace } from '../algorithms/rnea.ts';
import { SparseSolver } from '../assembly/solver.ts';
import type { Model } from '../model/model.ts';
import { addSx, setSTf } from '../model/subspace.ts';
import { Flops } from '../spatial/flops.ts';
import { inertiaMulMotion } from '../spatial/inertia.ts';
import { crossForce } from '../spatial/motion.ts';
import { xApplyMotion, xTransposeApplyForceAdd } from '../spatial/transform.ts';
import { modelCase } from './cases.ts';
import { PaperTriangularSolver } from './paper-triangular.ts';

export interface GapRow {
  operation: string;
  rnea: number;
  lu: number;
  /** the same operation in lu:paper (products with the constant ±1 entries not counted) */
  paper: number;
}

export interface InverseDynamicsGap {
  model: string;
  nb: number;
  rows: GapRow[];
  /** the solvers' own totals at the study state */
  measured: { rnea: number; lu: number; paper: number };
  /** the rows add up to the measured totals, and the LU had zero fill */
  closes: boolean;
  /** fill entries and BTF blocks of the LU (auto ordering) */
  fill: number;
  blocks: number;
}

const ROW_A = 0, ROW_F = 1, ROW_TAU = 2, ROW_Y = 3;

export function inverseDynamicsGap(model: Model, spec: string, seed = 1): InverseDynamicsGap {
  const c = modelCase('inverse-dynamics', model, spec, seed);
  const sys = c.sys, L = sys.layout, nb = model.nb, n = sys.n;
  // measured
  const rw = new RneaWorkspace(model);
  rneaUnchecked(model, rw, c.q, c.v, c.qdd, c.fext);
  const lu = new SparseSolver(sys);
  lu.stepUnchecked(c.q, c.v, c.y);
  const paper = new PaperTriangularSolver(sys);
  paper.stepUnchecked(c.q, c.v, c.y);
  const total = (...f: Flops[]) => f.reduce((s, x) => s + x.total, 0);
  const measured = {
    rnea: total(rw.kin.flops, rw.flops),
    lu: total(lu.flops.kinematics, lu.flops.fill, lu.flops.factor, lu.flops.solve),
    paper: total(paper.flops.kinematics, paper.flops.fill, paper.flops.solve),
  };
  // RNEA, operation by operation (its kernels on scratch data, per body)
  const count = (fn: (fl: Flops) => void) => { const fl = new Flops(); fn(fl); return fl.total; };
  const z6 = new Float64Array(6), X = new Float64Array(12), I = new Float64Array(10), x = new Float64Array(model.nv);
  const r = { xa: 0, sq: 0, c: 0, ia: 0, nu: 0, fx: 0, stf: 0, xtf: 0 };
  let roots = 0;
  for (let i = 0; i < nb; i++) {
    r.xa += count((fl) => xApplyMotion(z6, X, z6, fl));
    r.sq += count((fl) => addSx(z6, model.S[i], model.nvi[i], x, 0, fl));
    r.c += 6;
    r.ia += count((fl) => inertiaMulMotion(z6, I, z6, fl));
    r.nu += count((fl) => { inertiaMulMotion(z6, I, z6, fl); crossForce(z6, z6, z6, fl); }) + 6;
    r.fx += 6;
    r.stf += count((fl) => setSTf(x, 0, model.S[i], model.nvi[i], z6, fl));
    if (model.parents[i] >= 0) r.xtf += count((fl) => xTransposeApplyForceAdd(z6, X, z6, fl));
    else roots++;
  }
  // LU: entries of D by block of eq. (5)
  const rowKind = new Int8Array(sys.m).fill(ROW_Y), rowBody = new Int32Array(sys.m).fill(-1);
  for (let i = 0; i < nb; i++) {
    for (let k = 0; k < 6; k++) { rowKind[sys.rowA[i] + k] = ROW_A; rowBody[sys.rowA[i] + k] = i; rowKind[sys.rowF[i] + k] = ROW_F; rowBody[sys.rowF[i] + k] = i; }
    for (let k = 0; k < model.nvi[i]; k++) { rowKind[sys.rowTau[i] + k] = ROW_TAU; rowBody[sys.rowTau[i] + k] = i; }
  }
  const unit = new Uint8Array(sys.nnz);
  for (let e = 0; e < sys.constSlot.length; e++) if (Math.abs(sys.constVal[e]) === 1) unit[sys.constSlot[e]] = 1;
  const e = { xa: [0, 0], sq: [0, 0], ia: [0, 0], fx: [0, 0], stf: [0, 0], xtf: [0, 0], other: [0, 0] };
  let pivots = 0, unitPivots = 0;
  const A = sys.pattern;
  const kindOf = (j: number): [string, number] => {
    for (let i = 0; i < nb; i++) {
      if (j >= L.a[i] && j < L.a[i] + 6) return ['a', i];
      if (j >= L.f[i] && j < L.f[i] + 6) return ['f', i];
      if (j >= L.fx[i] && j < L.fx[i] + 6) return ['fx', i];
      if (j >= L.tau[i] && j < L.tau[i] + model.nvi[i]) return ['tau', i];
      if (j >= L.qdd[i] && j < L.qdd[i] + model.nvi[i]) return ['qdd', i];
    }
    throw new RangeError(`inverseDynamicsGap: column ${j} belongs to no variable`);
  };
  const diagonal = (rk: number, rb: number, ck: string, cb: number) =>
    (rk === ROW_A && ck === 'a' && cb === rb) || (rk === ROW_F && ck === 'f' && cb === rb) || (rk === ROW_TAU && ck === 'tau' && cb === rb) || rk === ROW_Y;
  for (let j = 0; j < n; j++) {
    const [ck, cb] = kindOf(j);
    for (let t = A.Ap[j]; t < A.Ap[j + 1]; t++) {
      const row = A.Ai[t], rk = rowKind[row], rb = rowBody[row];
      const u = unit[t];
      if (diagonal(rk, rb, ck, cb)) { pivots++; unitPivots += u; continue; }
      let g: number[];
      if (rk === ROW_A && ck === 'a') g = e.xa;
      else if (rk === ROW_A && ck === 'qdd') g = e.sq;
      else if (rk === ROW_F && ck === 'a') g = e.ia;
      else if (rk === ROW_F && ck === 'fx') g = e.fx;
      else if (rk === ROW_F && ck === 'f') g = e.xtf;
      else if (rk === ROW_TAU && ck === 'f') g = e.stf;
      else g = e.other;
      g[0]++; g[1] += u;
    }
  }
  // fill: ν_i (per body, with q̇), ⁱX_0 a_0 (roots); the rest are the transform values (−E r×)
  const nuFill = nb * count((fl) => { inertiaMulMotion(z6, I, z6, fl); crossForce(z6, z6, z6, fl); });
  const rootFill = roots * count((fl) => xApplyMotion(z6, X, z6, fl));
  const fill = lu.flops.fill.total;
  const kin = lu.flops.kinematics.total;
  const sub = (g: number[]) => 2 * g[0];
  const subPaper = (g: number[]) => 2 * g[0] - g[1];
  const rows: GapRow[] = [
    { operation: 'velocity kinematics ⁱX_λ, v_i, c_i (shared)', rnea: rw.kin.flops.total, lu: kin, paper: kin },
    { operation: 'a_i ← ⁱX_λ a_λ (motion transform; the root\'s ⁱX_0 a_0 in the fill)', rnea: r.xa, lu: sub(e.xa) + rootFill, paper: subPaper(e.xa) + rootFill },
    { operation: 'values of ⁱX_λ written into D (−E r× entries)', rnea: 0, lu: fill - nuFill - rootFill, paper: fill - nuFill - rootFill },
    { operation: 'a_i += S_i q̈_i', rnea: r.sq, lu: sub(e.sq), paper: subPaper(e.sq) },
    { operation: 'a_i += c_i (in b for the LU)', rnea: r.c, lu: 0, paper: 0 },
    { operation: 'f_i ← I_i a_i', rnea: r.ia, lu: sub(e.ia), paper: subPaper(e.ia) },
    { operation: 'f_i += ν_i = v_i ×* I_i v_i (in b for the LU)', rnea: r.nu, lu: nuFill, paper: nuFill },
    { operation: 'f_i −= f^x_i', rnea: r.fx, lu: sub(e.fx), paper: subPaper(e.fx) },
    { operation: 'f_λ += ⁱX_λᵀ f_i', rnea: r.xtf, lu: sub(e.xtf), paper: subPaper(e.xtf) },
    { operation: 'τ_i ← S_iᵀ f_i', rnea: r.stf, lu: sub(e.stf), paper: subPaper(e.stf) },
    { operation: 'pivots (divisions; every pivot of D_id is ±1)', rnea: 0, lu: pivots, paper: pivots - unitPivots },
  ];
  if (e.other[0] > 0) rows.push({ operation: 'other entries of D', rnea: 0, lu: sub(e.other), paper: subPaper(e.other) });
  const S = lu.lu.symbolic;
  const fillEntries = S.luNnz + S.offNnz - S.nnz;
  const sum = (k: 'rnea' | 'lu' | 'paper') => rows.reduce((s, x) => s + x[k], 0);
  const closes = fillEntries === 0 && sum('rnea') === measured.rnea && sum('lu') === measured.lu && sum('paper') === measured.paper;
  return { model: model.name, nb, rows, measured, closes, fill: fillEntries, blocks: S.nblocks };
}
