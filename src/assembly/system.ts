/**
 * Nori's system D(q) d + b(q, q̇) = 0 (Nori (2017) §III-A, eqs. 3–6, with the measurement rows
 * (8)–(9) and (15)): its symbolic part (row and column names, the worst-case pattern as a CSC
 * matrix with the triplet → slot map) built once per model and problem, and its numeric fill,
 * which writes the configuration-dependent values into the fixed pattern without allocating.
 *
 * Rows, per body i (λ = λ(i), j ∈ μ(i)):
 *   c3a[i]  (6):   −a_i + ⁱX_λ a_λ + S_i q̈_i                 + b,  b = c_i (+ ⁱX_0 a_0 if λ = 0)   (3a), (5a,b)
 *   c3f[i]  (6):   −f_i + I_i a_i − f^x_i + Σ_j ʲX_iᵀ f_j    + b,  b = ν_i = v_i ×* I_i v_i          (3f), (5c,d)
 *   c3tau[i] (n_i): −τ_i + S_iᵀ f_i                                                                (3τ), (5e)
 * then one row per known scalar variable z (measurement "z = y"):  z − y = 0           (9a,b), (15)
 * and any extra measurement blocks (sensor equations D_Y d + b_Y = 0, Nori (2017) eq. 17).
 */
import { forwardKinematics, KinematicsWorkspace } from '../algorithms/kinematics.ts';
import type { Model } from '../model/model.ts';
import { Flops } from '../spatial/flops.ts';
import { inertiaToMatrix } from '../spatial/inertia.ts';
import { compress } from '../sparse/compress.ts';
import type { CscMatrix } from '../sparse/csc.ts';
import { inertiaPattern, transformPattern } from './patterns.ts';
import { FORCE_COMPONENTS, MOTION_COMPONENTS, VariableLayout, type VariableKind } from './variables.ts';

/** A scalar variable whose value is given (a measurement row "z = y"). */
export interface KnownScalar {
  kind: VariableKind;
  body: number;
  /** component within the variable (0..5 for 6-vectors, 0..n_i−1 for τ, q̈) */
  offset: number;
}

/** Everything a measurement block's fill may read. */
export interface FillContext {
  readonly model: Model;
  readonly kin: KinematicsWorkspace;
  /** flops of the fill (kinematics excluded) */
  readonly flops: Flops;
}

/**
 * Extra rows D_Y d + b_Y = 0 (sensor equations). `pattern` lists structural entries (local row,
 * column); `fill` writes their values into Ax at `slots` (same order) and b_Y at b[row0 ..].
 * `y` holds this block's readings (its `inputNames`, in order).
 */
export interface MeasurementBlock {
  readonly name: string;
  readonly rowNames: readonly string[];
  readonly inputNames: readonly string[];
  /** variance of each reading; undefined for exact constraints (weighted least squares, estimation) */
  readonly variance?: number;
  /** the block's structural nonzeros: row (within the block) and column of each */
  pattern(layout: VariableLayout): { rows: Int32Array; cols: Int32Array };
  /** write the block's values into Ax (at `slots`, in pattern order) and its rows of b (from row0), reading inputs y from y0 */
  fill(ctx: FillContext, Ax: Float64Array, slots: Int32Array, b: Float64Array, row0: number, y: Float64Array, y0: number): void;
}

/**
 * A problem on Nori's system: which unknowns are known (inputs) and which measurement blocks add
 * equations.
 */
export interface ProblemSpec {
  /** problem name, e.g. "inverse dynamics" */
  name: string;
  /** scalar variables given as inputs (one measurement row each) */
  known: KnownScalar[];
  /** further measurement blocks */
  blocks?: MeasurementBlock[];
}

/** The symbolic (offline) system: names, pattern, slot maps. Immutable; one per model and problem. */
export class SymbolicSystem {
  readonly layout: VariableLayout;
  /** number of rows (equations) and columns (unknowns) */
  readonly m: number;
  readonly n: number;
  readonly rowNames: readonly string[];
  /** first row of c3a[i], c3f[i], c3tau[i] */
  readonly rowA: Int32Array;
  readonly rowF: Int32Array;
  readonly rowTau: Int32Array;
  /** the worst-case pattern (values: constants written, configuration-dependent entries zero) */
  readonly pattern: CscMatrix;
  /** constant entries: Ax[constSlot[k]] = constVal[k] */
  readonly constSlot: Int32Array;
  readonly constVal: Float64Array;
  /** per body i with a parent: structural entries of ⁱX_λ, as codes r·6 + c, with their slots in
   *  c3a[i] × a_λ (the motion transform) and c3f[λ] × f_i (its transpose, the force transform) */
  readonly xStart: Int32Array;
  readonly xCode: Uint8Array;
  readonly xSlotA: Int32Array;
  readonly xSlotF: Int32Array;
  /** per structural entry of ⁱX_λ, where fillSystem reads its value: E (0–8, row-major) or −E r× (9–17) */
  readonly xSrc: Uint8Array;
  /** per body, 9 term codes of −E r× (patterns.ts) */
  readonly skewTerms: Uint8Array;
  /** known scalars: their rows (input index = position in `known`), consecutive (knownRow[k] = knownRow[0] + k) */
  readonly known: readonly KnownScalar[];
  readonly knownRow: Int32Array;
  readonly blocks: readonly MeasurementBlock[];
  /** first row, first input, and entry slots of each measurement block */
  readonly blockRow0: Int32Array;
  readonly blockInput0: Int32Array;
  readonly blockSlots: readonly Int32Array[];
  /** number of runtime inputs y (known scalars, then each block's readings) */
  readonly ny: number;
  readonly inputNames: readonly string[];

  constructor(readonly model: Model, readonly problem: ProblemSpec) {
    const L = new VariableLayout(model);
    this.layout = L;
    const nb = model.nb;
    const rowNames: string[] = [];
    this.rowA = new Int32Array(nb); this.rowF = new Int32Array(nb); this.rowTau = new Int32Array(nb);
    for (let i = 0; i < nb; i++) {
      const link = model.bodyNames[i], jn = model.jointNames[i], ni = model.nvi[i];
      this.rowA[i] = rowNames.length; for (const c of MOTION_COMPONENTS) rowNames.push(`c3a[${link}].${c}`);
      this.rowF[i] = rowNames.length; for (const c of FORCE_COMPONENTS) rowNames.push(`c3f[${link}].${c}`);
      this.rowTau[i] = rowNames.length;
      for (let k = 0; k < ni; k++) rowNames.push(ni === 1 ? `c3tau[${jn}]` : `c3tau[${jn}][${k}]`);
    }
    const Ti: number[] = [], Tj: number[] = [];
    const constEntry: number[] = [], constVals: number[] = [];
    const addConst = (r: number, c: number, v: number) => { constEntry.push(Ti.length); constVals.push(v); Ti.push(r); Tj.push(c); };
    // X blocks: entry indices into the triplet list
    const xStart = new Int32Array(nb + 1);
    const xCode: number[] = [], xEntA: number[] = [], xEntF: number[] = [];
    const skewTerms = new Uint8Array(9 * nb);
    const Mi = new Float64Array(36);
    for (let i = 0; i < nb; i++) {
      const p = model.parents[i], ni = model.nvi[i], S = model.S[i];
      const rA = this.rowA[i], rF = this.rowF[i], rT = this.rowTau[i];
      // (5a) −1 on a_i;  (5c) −1 on f_i;  (5d) −1 on f^x_i;  (5e) −1 on τ_i
      for (let k = 0; k < 6; k++) addConst(rA + k, L.a[i] + k, -1);
      for (let k = 0; k < 6; k++) addConst(rF + k, L.f[i] + k, -1);
      for (let k = 0; k < 6; k++) addConst(rF + k, L.fx[i] + k, -1);
      for (let k = 0; k < ni; k++) addConst(rT + k, L.tau[i] + k, -1);
      // (5b) S_i on q̈_i;  (5e) S_iᵀ on f_i
      for (let k = 0; k < ni; k++) {
        for (let r = 0; r < 6; r++) {
          const s = S[6 * k + r];
          if (s === 0) continue;
          addConst(rA + r, L.qdd[i] + k, s);
          addConst(rT + k, L.f[i] + r, s);
        }
      }
      // (5c) I_i on a_i (constant, exact pattern)
      inertiaToMatrix(Mi, model.I[i]);
      const IP = inertiaPattern(model, i);
      for (let r = 0; r < 6; r++) for (let c = 0; c < 6; c++) if (IP[6 * r + c]) addConst(rF + r, L.a[i] + c, Mi[6 * r + c]);
      // (5a) ⁱX_λ on a_λ and (5d) ʲX*_i = ʲX_iᵀ: entries of ⁱX_λ also in c3f[λ] × f_i, transposed
      xStart[i] = xCode.length;
      const { pattern: XP, skewTerms: st } = transformPattern(model, i);
      skewTerms.set(st, 9 * i);
      if (p >= 0) {
        for (let r = 0; r < 6; r++) for (let c = 0; c < 6; c++) {
          if (!XP[6 * r + c]) continue;
          xCode.push(6 * r + c);
          xEntA.push(Ti.length); Ti.push(rA + r); Tj.push(L.a[p] + c);
          xEntF.push(Ti.length); Ti.push(this.rowF[p] + c); Tj.push(L.f[i] + r);
        }
      }
    }
    xStart[nb] = xCode.length;
    // known scalars
    const known = problem.known;
    const knownRow = new Int32Array(known.length);
    const inputNames: string[] = [];
    for (const [k, z] of known.entries()) {
      const col = L.start(z.kind, z.body) + z.offset;
      if (!(z.offset >= 0 && z.offset < L.size(z.kind, z.body))) {
        throw new RangeError(`known variable ${z.kind} of body "${model.bodyNames[z.body]}" has no component ${z.offset}`);
      }
      knownRow[k] = rowNames.length;
      rowNames.push(`y[${L.names[col]}]`);
      inputNames.push(L.names[col]);
      addConst(knownRow[k], col, 1);
    }
    // measurement blocks
    const blocks = problem.blocks ?? [];
    const blockRow0 = new Int32Array(blocks.length);
    const blockInput0 = new Int32Array(blocks.length);
    const blockEnt: number[][] = [];
    for (const [k, blk] of blocks.entries()) {
      blockRow0[k] = rowNames.length;
      blockInput0[k] = inputNames.length;
      const pat = blk.pattern(L);
      const ents: number[] = [];
      for (let e = 0; e < pat.rows.length; e++) {
        ents.push(Ti.length);
        Ti.push(blockRow0[k] + pat.rows[e]); Tj.push(pat.cols[e]);
      }
      blockEnt.push(ents);
      rowNames.push(...blk.rowNames);
      inputNames.push(...blk.inputNames);
    }
    this.m = rowNames.length;
    this.n = L.n;
    this.rowNames = Object.freeze(rowNames);
    const { A, slot } = compress(this.m, this.n, Ti, Tj);
    this.pattern = A;
    this.constSlot = Int32Array.from(constEntry, (e) => slot[e]);
    this.constVal = Float64Array.from(constVals);
    for (let k = 0; k < this.constSlot.length; k++) A.Ax[this.constSlot[k]] = this.constVal[k];
    this.xStart = xStart;
    this.xCode = Uint8Array.from(xCode);
    // [E 0; −E r× E]: rows 0–2 read E (columns 0–2), rows 3–5 read −E r× (columns 0–2) or E (3–5)
    this.xSrc = Uint8Array.from(xCode, (code) => {
      const r = (code / 6) | 0, c = code - 6 * r;
      if (r < 3 && c >= 3) throw new Error(`internal error: structural entry (${r}, ${c}) in the zero block of a motion transform`);
      return r < 3 ? 3 * r + c : c >= 3 ? 3 * (r - 3) + c - 3 : 9 + 3 * (r - 3) + c;
    });
    this.xSlotA = Int32Array.from(xEntA, (e) => slot[e]);
    this.xSlotF = Int32Array.from(xEntF, (e) => slot[e]);
    this.skewTerms = skewTerms;
    this.known = Object.freeze(known.slice());
    this.knownRow = knownRow;
    this.blocks = Object.freeze(blocks.slice());
    this.blockRow0 = blockRow0;
    this.blockInput0 = blockInput0;
    this.blockSlots = blockEnt.map((ents) => Int32Array.from(ents, (e) => slot[e]));
    this.ny = inputNames.length;
    this.inputNames = Object.freeze(inputNames);
  }

  /** nnz of the worst-case pattern */
  get nnz(): number {
    return this.pattern.Ap[this.n];
  }
}

/** Runtime values of D and b for one symbolic system: created once, refilled per time step. */
export class SystemValues implements FillContext {
  readonly model: Model;
  readonly kin: KinematicsWorkspace;
  /** values of D in the CSC order of sys.pattern (constants written once at creation) */
  readonly Ax: Float64Array;
  /** b(q, q̇, y), length m */
  readonly b: Float64Array;
  /** flops of the last fill, kinematics excluded (those are in kin.flops) */
  readonly flops = new Flops();
  /** scratch: E then −E r× of the current body (two 3×3 row-major blocks) */
  readonly skew = new Float64Array(18);
  /** the rigid inertias of the model, body after body (10 i; inertia.ts layout) */
  readonly Iflat: Float64Array;
  /** flops of each body's −E r× entries (sys.skewTerms: 1 mul for one product, 2 mul and 1 add for two) */
  readonly skewMul: Int32Array;
  readonly skewAdd: Int32Array;

  constructor(readonly sys: SymbolicSystem) {
    const model = sys.model, nb = model.nb;
    this.model = model;
    this.kin = new KinematicsWorkspace(model);
    this.Ax = Float64Array.from(sys.pattern.Ax);
    this.b = new Float64Array(sys.m);
    this.Iflat = new Float64Array(10 * nb);
    for (let i = 0; i < nb; i++) this.Iflat.set(model.I[i], 10 * i);
    this.skewMul = new Int32Array(nb);
    this.skewAdd = new Int32Array(nb);
    for (let i = 0; i < nb; i++) {
      for (let k = 0; k < 9; k++) {
        const c = sys.skewTerms[9 * i + k];
        this.skewMul[i] += c === 0 ? 0 : c === 3 ? 2 : 1;
        this.skewAdd[i] += c === 3 ? 1 : 0;
      }
    }
  }
}

/**
 * Write D(q) and b(q, q̇, y) into vals (no allocation): kinematics (ⁱX_λ, v_i, c_i), then the
 * transform entries, the bias terms and the inputs. Inputs are not validated here.
 */
export function fillSystem(vals: SystemValues, q: ArrayLike<number>, qd: ArrayLike<number> | null, y: Float64Array): void {
  fillValues(vals, q, qd, y, null);
}

/**
 * The gather map of a system's values (NumericLU's FactorOptions.gather) for fillSource: entry t of
 * D is source[map[t]], where the source holds D's own values (constants, measurement blocks: map[t]
 * = t) and, in the regions of sourceRegions, each body's E and −E r×, which the two slots of each
 * transform entry (in c3a[i] and, transposed, in c3f[λ]) share.
 * Null when two kinds of value fall on one slot (the fill would then sum them).
 */
export function sourceGather(sys: SymbolicSystem): { map: Int32Array; size: number } | null {
  const nnz = sys.nnz, nb = sys.model.nb, R = sourceRegions(sys);
  const map = Int32Array.from({ length: nnz }, (_, t) => t);
  const own = new Uint8Array(nnz);
  for (let k = 0; k < sys.constSlot.length; k++) own[sys.constSlot[k]] = 1;
  for (const slots of sys.blockSlots) for (let k = 0; k < slots.length; k++) own[slots[k]] = 1;
  for (let i = 0; i < nb; i++) {
    for (let e = sys.xStart[i]; e < sys.xStart[i + 1]; e++) {
      const k = sys.xSrc[e], s = k < 9 ? R.x + 12 * i + k : R.skew + 9 * i + k - 9;
      for (const t of [sys.xSlotA[e], sys.xSlotF[e]]) {
        if (own[t] === 1 || (map[t] !== t && map[t] !== s)) return null;
        map[t] = s;
      }
    }
  }
  return { map, size: R.size };
}

/**
 * Where the source vector of a gathered system (sourceGather) keeps its values, as offsets: D's own
 * values from 0 (nnz); `x`: 12 per body, ⁱX_λ as the kinematics store it (E row-major, then r), E
 * being D's transform entries; `skew`: 9 per body, −E r× row-major; and, for the generated fill
 * (fill-code.ts), `v` and `c`: 6 per body, v_i and c_i as the kinematics store them, and `y`: the
 * known inputs (sys.knownRow's), so that each is one copy; then the inertias and a table of rows
 * and term codes, written once, for the fill's loop form; then `kin`: 9 nb + nv slots for generated
 * kinematics that write x, v and c where they stand (kinematicsOwnSlots).
 */
export function sourceRegions(sys: SymbolicSystem): { x: number; skew: number; v: number; c: number; y: number; inertia: number; table: number; kin: number; size: number } {
  const nb = sys.model.nb, x = sys.nnz, skew = x + 12 * nb, v = skew + 9 * nb, c = v + 6 * nb, y = c + 6 * nb;
  // and for the generated fill's loop form: the inertias (10 per body) and a table of 16 i32 per body
  const inertia = y + sys.knownRow.length, table = inertia + 10 * nb;
  // and the generated kinematics' own values, when they write x, v and c in place (kinematics-code.ts)
  const kin = table + 8 * nb;
  return { x, skew, v, c, y, inertia, table, kin, size: kin + kinematicsOwnSlots(sys.model) };
}

/** the slots generated kinematics keep for their own values (cos/sin, q̇, v_J, the angles; kinematics-code.ts): 9 nb + nv */
export const kinematicsOwnSlots = (model: Model): number => 9 * model.nb + model.nv;

/**
 * fillSystem for a gathered factorization (sourceGather): the transform values go to the
 * source's regions (sourceRegions) and the measurement blocks write into src (whose first nnz positions stand for
 * D's own values, constants included, written once by the caller); vals.Ax is not written (its
 * transform entries and block entries keep older values), vals.b is. Same values, same flops.
 */
export function fillSource(vals: SystemValues, src: Float64Array, q: ArrayLike<number>, qd: ArrayLike<number> | null, y: Float64Array): void {
  fillValues(vals, q, qd, y, src);
}

/**
 * What fillSourceCompiled needs of the generated fill kernels (FillCode, fill-code.ts, which
 * implements it; declared here so that this file imports nothing of the code generator).
 */
export interface GeneratedFill {
  /** the source's regions (sourceRegions) */
  readonly regions: ReturnType<typeof sourceRegions>;
  /** flops of the fill the code stands for, without and with q̇ */
  readonly mul: number;
  readonly add: number;
  readonly mulWithVelocity: number;
  readonly addWithVelocity: number;
  /** runs the generated fill (with q̇: c_i and ν_i too) */
  run(withVelocity: boolean): void;
}

/**
 * What fillSourceCompiled needs of generated kinematics (GeneratedKinematics, kinematics-code.ts):
 * `run` writes ⁱX_λ into X and, with q̇, v_i and c_i into V and C (KinematicsWorkspace's layouts).
 */
export interface GeneratedKinematicsLike {
  readonly X: Float64Array;
  readonly V: Float64Array;
  readonly C: Float64Array;
  /** X, V and C are the source's own regions (x, v, c of sourceRegions): nothing to copy */
  readonly inPlace: boolean;
  run(q: ArrayLike<number>, qd: ArrayLike<number> | null): void;
}

/**
 * fillSource with the generated fill kernels (FillCode, in the compiled factorization's memory):
 * the kinematics (ⁱX_λ, v_i, c_i) and the known inputs are copied in whole into the source's
 * regions (sourceRegions), and the code computes −E r× there and the rest of b (c_i, ν_i, the
 * zero rows, −y, and ⁱX_0 a_0 on the rows of the bodies hanging from the fixed world) into `b`, the factorization's right-hand side buffer, which receives all of b
 * (vals.b is not written). Same values bit for bit, same flops. With `kinCode`, the kinematics
 * are that generated code's (same values to rounding), vals.kin and its flops are not written; when
 * its X, V and C are the source's regions themselves (`inPlace`), nothing is copied. The known
 * inputs are copied from `yCopy` (y, or its first entries when the others are in the source from a
 * fill before).
 */
export function fillSourceCompiled(vals: SystemValues, src: Float64Array, b: Float64Array, code: GeneratedFill, q: ArrayLike<number>, qd: ArrayLike<number> | null, y: Float64Array, kinCode: GeneratedKinematicsLike | null = null, yCopy: Float64Array = y): void {
  const sys = vals.sys, kin = vals.kin, fl = vals.flops;
  // the kinematics by forwardKinematics into vals.kin, or by the generated code (vals.kin then not written)
  let X = kin.XupFlat, V = kin.vFlat, C = kin.cFlat;
  if (kinCode === null) forwardKinematics(kin, q, qd);
  else {
    kinCode.run(q, qd);
    X = kinCode.X; V = kinCode.V; C = kinCode.C;
  }
  // the kinematics and the known inputs, one copy each, where the generated code reads them (the
  // generated kinematics may have written them there: in place, no copy)
  const R = code.regions, nk = sys.knownRow.length;
  if (kinCode === null || !kinCode.inPlace) {
    src.set(X, R.x);
    if (qd !== null) {
      src.set(V, R.v);
      src.set(C, R.c);
    }
  }
  const ny = Math.min(yCopy.length, nk), y0 = R.y;
  for (let k = 0; k < ny; k++) src[y0 + k] = yCopy[k];
  const blocks = sys.blocks;
  fl.reset();
  for (let k = 0; k < blocks.length; k++) {
    blocks[k].fill(vals, src, sys.blockSlots[k], b, sys.blockRow0[k], y, sys.blockInput0[k]);
  }
  code.run(qd !== null);
  // the JavaScript fill's counts (the blocks count their own)
  fl.mul += qd !== null ? code.mulWithVelocity : code.mul;
  fl.add += qd !== null ? code.addWithVelocity : code.add;
}

/** b(3a) = ⁱX_0 a_0 (+ c_i = 0) for a body hanging from the fixed world (xApplyMotion): 24 mul, 18 add */
function baseAcceleration(b: Float64Array, rA: number, X: Float64Array, xo: number, a0: Float64Array): void {
  const r0 = X[xo + 9], r1 = X[xo + 10], r2 = X[xo + 11];
  const wx = a0[0], wy = a0[1], wz = a0[2];
  const tx = a0[3] - (r1 * wz - r2 * wy);
  const ty = a0[4] - (r2 * wx - r0 * wz);
  const tz = a0[5] - (r0 * wy - r1 * wx);
  const e0 = X[xo], e1 = X[xo + 1], e2 = X[xo + 2], e3 = X[xo + 3], e4 = X[xo + 4], e5 = X[xo + 5], e6 = X[xo + 6], e7 = X[xo + 7], e8 = X[xo + 8];
  b[rA] = e0 * wx + e1 * wy + e2 * wz;
  b[rA + 1] = e3 * wx + e4 * wy + e5 * wz;
  b[rA + 2] = e6 * wx + e7 * wy + e8 * wz;
  b[rA + 3] = e0 * tx + e1 * ty + e2 * tz;
  b[rA + 4] = e3 * tx + e4 * ty + e5 * tz;
  b[rA + 5] = e6 * tx + e7 * ty + e8 * tz;
}

function fillValues(vals: SystemValues, q: ArrayLike<number>, qd: ArrayLike<number> | null, y: Float64Array, src: Float64Array | null): void {
  const sys = vals.sys, model = sys.model, kin = vals.kin, fl = vals.flops;
  forwardKinematics(kin, q, qd);
  fl.reset();
  // written out on flat arrays with the flops summed in locals (the per-sample hot path): the
  // arithmetic of xApplyMotion, inertiaMulMotion and crossForce, in the same order, with their counts
  const Ax = vals.Ax, b = vals.b;
  // E and −E r× go to the source's regions (sourceRegions), or to the 18 scratch values of vals.skew
  const E = src ?? vals.skew, xR = sys.nnz, skR = sys.nnz + 12 * model.nb;
  const nb = model.nb, parents = model.parents, nvi = model.nvi;
  const X = kin.XupFlat, V = kin.vFlat, C = kin.cFlat, a0 = kin.a0, I = vals.Iflat;
  const st = sys.skewTerms, rowA = sys.rowA, rowF = sys.rowF, rowTau = sys.rowTau;
  const xStart = sys.xStart, xSrc = sys.xSrc, xSlotA = sys.xSlotA, xSlotF = sys.xSlotF;
  let mul = 0, add = 0;
  for (let i = 0; i < nb; i++) {
    const xo = 12 * i, o = 6 * i;
    const rA = rowA[i], rF = rowF[i];
    const r0 = X[xo + 9], r1 = X[xo + 10], r2 = X[xo + 11];
    if (parents[i] >= 0) {
      // E, then −E r× restricted to its structural terms: (E r×)_k0 = E_k1 r2 − E_k2 r1,
      // _k1 = E_k2 r0 − E_k0 r2, _k2 = E_k0 r1 − E_k1 r0 (skewTerms: bit 1 the first product, bit 2 the second)
      const eo = src === null ? 0 : xR + 12 * i, ko = src === null ? 9 : skR + 9 * i, so = 9 * i;
      for (let k = 0; k < 3; k++) {
        const e0 = X[xo + 3 * k], e1 = X[xo + 3 * k + 1], e2 = X[xo + 3 * k + 2];
        const w = eo + 3 * k, u = ko + 3 * k, s = so + 3 * k;
        E[w] = e0; E[w + 1] = e1; E[w + 2] = e2;
        let c = st[s];
        E[u] = c === 0 ? 0 : c === 1 ? -(e1 * r2) : c === 2 ? e2 * r1 : e2 * r1 - e1 * r2;
        c = st[s + 1];
        E[u + 1] = c === 0 ? 0 : c === 1 ? -(e2 * r0) : c === 2 ? e0 * r2 : e0 * r2 - e2 * r0;
        c = st[s + 2];
        E[u + 2] = c === 0 ? 0 : c === 1 ? -(e0 * r1) : c === 2 ? e1 * r0 : e1 * r0 - e0 * r1;
      }
      mul += vals.skewMul[i]; add += vals.skewAdd[i];
      if (src === null) {
        for (let e = xStart[i]; e < xStart[i + 1]; e++) {
          const v = E[xSrc[e]];
          Ax[xSlotA[e]] = v;
          Ax[xSlotF[e]] = v;
        }
      }
      // b(3a) = c_i (written out: a 6-iteration loop ran ~2.5× slower here)
      b[rA] = C[o]; b[rA + 1] = C[o + 1]; b[rA + 2] = C[o + 2]; b[rA + 3] = C[o + 3]; b[rA + 4] = C[o + 4]; b[rA + 5] = C[o + 5];
    } else {
      baseAcceleration(b, rA, X, xo, a0);
      mul += 24; add += 18;
    }
    // b(3f) = ν_i = v_i ×* I_i v_i (inertiaMulMotion, then crossForce)
    if (qd !== null) {
      const io = 10 * i;
      const m = I[io], hx = I[io + 1], hy = I[io + 2], hz = I[io + 3];
      const w0 = V[o], w1 = V[o + 1], w2 = V[o + 2], u0 = V[o + 3], u1 = V[o + 4], u2 = V[o + 5];
      const n0 = I[io + 4] * w0 + I[io + 5] * w1 + I[io + 6] * w2 + (hy * u2 - hz * u1);
      const n1 = I[io + 5] * w0 + I[io + 7] * w1 + I[io + 8] * w2 + (hz * u0 - hx * u2);
      const n2 = I[io + 6] * w0 + I[io + 8] * w1 + I[io + 9] * w2 + (hx * u1 - hy * u0);
      const f0 = m * u0 - (hy * w2 - hz * w1);
      const f1 = m * u1 - (hz * w0 - hx * w2);
      const f2 = m * u2 - (hx * w1 - hy * w0);
      b[rF] = w1 * n2 - w2 * n1 + (u1 * f2 - u2 * f1);
      b[rF + 1] = w2 * n0 - w0 * n2 + (u2 * f0 - u0 * f2);
      b[rF + 2] = w0 * n1 - w1 * n0 + (u0 * f1 - u1 * f0);
      b[rF + 3] = w1 * f2 - w2 * f1;
      b[rF + 4] = w2 * f0 - w0 * f2;
      b[rF + 5] = w0 * f1 - w1 * f0;
      mul += 42; add += 30;
    } else {
      for (let k = 0; k < 6; k++) b[rF + k] = 0;
    }
    const rT = rowTau[i], ni = nvi[i];
    if (ni === 1) b[rT] = 0;
    else for (let k = 0; k < ni; k++) b[rT + k] = 0;
  }
  fl.mul = mul; fl.add = add;
  // known scalars: z − y = 0 (their rows are consecutive: knownRow[k] = knownRow[0] + k)
  const nk = sys.knownRow.length, r0 = nk > 0 ? sys.knownRow[0] : 0;
  for (let k = 0; k < nk; k++) b[r0 + k] = -y[k];
  const blocks = sys.blocks;
  for (let k = 0; k < blocks.length; k++) {
    blocks[k].fill(vals, src ?? Ax, sys.blockSlots[k], b, sys.blockRow0[k], y, sys.blockInput0[k]);
  }
}

