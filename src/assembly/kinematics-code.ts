/**
 * The velocity kinematics of the sparse solvers as WebAssembly generated per model
 * (`GeneratedKinematics.create(model)`; RBDA Table 5.1 lines 3–7, Nori (2017) eq. 2):
 *   ⁱX_λ = X_J(q_i) X_tree,i,   v_J = S_i q̇_i,   v_i = ⁱX_λ v_λ + v_J,   c_i = v_i × v_J,
 * straight-line code body after body with the model's constants folded in, as rnea-code.ts: the
 * tree transforms of fixed joints and the constant rows of revolute joints about a frame axis are
 * written once into the code's memory, the rows the rotation mixes are computed from cos q and
 * sin q, those of free-flyers and spherical joints from their quaternions (and positions), read
 * where their ⁱX_λ then goes, the transforms of other joints come from jcalc (JavaScript), and the velocity recursion
 * runs in the generated code. The cosines and sines come from trig-code.ts (fdlibm's algorithms,
 * as the engine's Math.cos and Math.sin: the same values bit for bit), in the same module, or from
 * Math.cos and Math.sin for an angle beyond its range.
 *
 * The outputs have kinematics.ts's layout (ⁱX_λ: E row-major then r, 12 per body; v_i, v_J,i, c_i:
 * 6 per body), in views of the code's memory (X, V, VJ, C). That memory is its own, or another
 * module's (KinematicsPlacement): the sparse solvers place the code in their factorization's
 * memory, where it writes ⁱX_λ, v_i and c_i into the regions their generated fill reads (no copy). Same equations as forwardKinematics,
 * the JavaScript reference (the oracle of the tests); the sums of one entry are taken in the same
 * order, so the values agree to rounding (tested against it). The code counts no flops; `flops`
 * holds forwardKinematics's counts for the last run: the jcalc calls count their own, and the
 * quaternion joints jcalc's (jcalc's count depends on the values: 9 mul and 9 add more when a
 * joint's translation is nonzero), and
 * the rest (the transforms of frame-axis revolute joints, the velocity recursion), which does not
 * depend on the values, is taken once per model from a JavaScript run of forwardKinematics, less
 * that run's jcalc counts of the same joints. Allocation free per call.
 */
import { forwardKinematics, KinematicsWorkspace } from '../algorithms/kinematics.ts';
import { add6, applyMotion, ChunkedCode, crossMotion, type Kind, kindsOf, quaternionInputs, transformOf, type V6, writeTransforms } from '../algorithms/spatial-code.ts';
import { cosSinInto, moduleTrig, type ModuleTrig, sinCosBody } from '../algorithms/trig-code.ts';
import { jcalc } from '../model/jcalc.ts';
import type { Model } from '../model/model.ts';
import { neutral } from '../model/neutral.ts';
import { assemble, canCompile } from '../sparse/compiled.ts';
import { Flops } from '../spatial/flops.ts';
import { kinematicsOwnSlots } from './system.ts';

/** largest number of bodies the code is made for (as RNEA_CODE_LIMIT) */
export const KINEMATICS_CODE_LIMIT = 4000;

/**
 * Where generated kinematics work, when not in a memory of their own: another module's memory
 * (a factorization's, whose generated fill reads ⁱX_λ, v_i and c_i where the kinematics write them,
 * with no copy), the slots (f64 indices) of ⁱX_λ, v_i and c_i there (12, 6, 6 per body, in
 * kinematics.ts's layout), and of kinematicsOwnSlots(model) slots for the code's own values.
 */
export interface KinematicsPlacement {
  memory: WebAssembly.Memory;
  X: number;
  V: number;
  C: number;
  own: number;
}

/** ⁱX_λ, v_i, v_J,i, c_i by code generated for one model (see the file's comment). */
export class GeneratedKinematics {
  /** ⁱX_λ of the last run, 12 per body (KinematicsWorkspace.XupFlat's layout) */
  readonly X: Float64Array;
  /** v_i, v_J,i, c_i of the last run with q̇, 6 per body (unwritten by a run without q̇) */
  readonly V: Float64Array;
  readonly VJ: Float64Array;
  readonly C: Float64Array;
  /**
   * made with a placement (KinematicsPlacement): X, V and C are where its maker (a sparse solver)
   * asked, the regions its generated fill reads
   */
  readonly inPlace: boolean;
  /** flops of forwardKinematics for the last run (the counts this code stands for) */
  readonly flops = new Flops();
  /** forwardKinematics's counts but the jcalc calls made in JavaScript, without and with q̇ */
  private readonly base: Flops;
  private readonly baseWithVelocity: Flops;
  private readonly mem: Float64Array;
  private readonly runX: () => void;
  private readonly runV: () => void;
  /** cos q and sin q of the revolute joints about a frame axis (trig-code.ts) */
  private readonly trig: ModuleTrig;
  private readonly fl = new Flops();
  /** the joints whose transforms jcalc computes (views of X where it writes them) */
  private readonly jcalcBody: Int32Array;
  private readonly jcalcX: Float64Array[];
  /** the free-flyer and spherical joints, whose q the code reads where their ⁱX_λ goes (and whether with a position) */
  private readonly quatBody: Int32Array;
  private readonly quatTrans: Uint8Array;

  private constructor(
    readonly model: Model, bytes: Uint8Array<ArrayBuffer>, pages: number, entries: [number, number, number],
    kinds: Kind[], private readonly o: { CS: number; QD: number; X: number; V: number; VJ: number; C: number; QA: number },
    placed?: WebAssembly.Memory,
  ) {
    const nb = model.nb;
    const memory = placed ?? new WebAssembly.Memory({ initial: pages });
    this.inPlace = placed !== undefined;
    const ex = new WebAssembly.Instance(new WebAssembly.Module(bytes), { e: { m: memory } }).exports as Record<string, () => void>;
    this.runX = ex[`f${entries[0]}`];
    this.runV = ex[`f${entries[1]}`];
    this.trig = moduleTrig(model, kinds, o.QA, ex[`f${entries[2]}`]);
    this.mem = new Float64Array(memory.buffer);
    // placed: its own slots (cos/sin, q̇, v_J, the angles) from zero, as a memory of its own starts
    // (the sines and cosines are taken of every body's slot, written or not)
    if (placed !== undefined) this.mem.fill(0, o.CS, o.CS + kinematicsOwnSlots(model));
    this.X = this.mem.subarray(o.X, o.X + 12 * nb);
    this.V = this.mem.subarray(o.V, o.V + 6 * nb);
    this.VJ = this.mem.subarray(o.VJ, o.VJ + 6 * nb);
    this.C = this.mem.subarray(o.C, o.C + 6 * nb);
    const js = kinds.flatMap((k, i) => (k.t === 'jcalc' ? [i] : []));
    this.jcalcBody = Int32Array.from(js);
    this.jcalcX = js.map((i) => this.X.subarray(12 * i, 12 * i + 12));
    const qs = kinds.flatMap((k, i) => (k.t === 'quat' ? [i] : []));
    this.quatBody = Int32Array.from(qs);
    this.quatTrans = Uint8Array.from(qs, (i) => (kinds[i] as { trans: boolean }).trans ? 1 : 0);
    // the constant entries of ⁱX_λ, once: the tree transform of a fixed joint; r and the row along
    // the axis of a revolute joint about a frame axis (the code writes the two rows it mixes)
    for (let i = 0; i < nb; i++) {
      const kd = kinds[i], Xt = model.Xtree[i];
      if (kd.t === 'fixed') this.X.set(Xt, 12 * i);
      else if (kd.t === 'axis') {
        for (let j = 0; j < 3; j++) this.X[12 * i + 3 * kd.k + j] = Xt[3 * kd.k + j];
        for (let j = 9; j < 12; j++) this.X[12 * i + j] = Xt[j];
      }
    }
    // forwardKinematics's counts from one JavaScript run each, less its jcalc calls of the joints
    // whose transforms JavaScript still computes (writeTransforms counts those per run)
    const ws = new KinematicsWorkspace(model), q0 = neutral(model), jf = new Flops();
    writeTransforms(model, kinds, new Float64Array(14 * nb), { CS: 0, XG: 2 * nb }, q0, new Float64Array(12), jf);
    const less = (f: Flops) => { const r = new Flops(); r.mul = f.mul - jf.mul; r.add = f.add - jf.add; r.div = f.div - jf.div; r.fn = f.fn - jf.fn; return r; };
    forwardKinematics(ws, q0, null);
    this.base = less(ws.flops);
    forwardKinematics(ws, q0, new Float64Array(model.nv));
    this.baseWithVelocity = less(ws.flops);
  }

  /**
   * The code for this model, or null (no WebAssembly, no body, more than KINEMATICS_CODE_LIMIT
   * bodies). `at`: in another module's memory (KinematicsPlacement); by default a memory of its own.
   */
  static create(model: Model, at?: KinematicsPlacement): GeneratedKinematics | null {
    const nb = model.nb, nv = model.nv;
    if (!canCompile() || nb === 0 || nb > KINEMATICS_CODE_LIMIT) return null;
    const kinds = kindsOf(model);
    // memory, in f64 slots: cos/sin, q̇, then ⁱX_λ (jcalc's transforms written there by JavaScript), v, v_J, c, the angles (one per body);
    // placed: ⁱX_λ, v and c where the placement says, the others from its own slots on
    let CS, QD, X, V, VJ, C, QA, pages;
    if (at === undefined) {
      CS = 0; QD = CS + 2 * nb; X = QD + nv; V = X + 12 * nb; VJ = V + 6 * nb; C = VJ + 6 * nb; QA = C + 6 * nb;
      pages = Math.max(1, Math.ceil((8 * (QA + nb)) / 65536));
    } else {
      CS = at.own; QD = CS + 2 * nb; VJ = QD + nv; QA = VJ + 6 * nb; X = at.X; V = at.V; C = at.C;
      pages = at.memory.buffer.byteLength / 65536;
      if (8 * Math.max(QA + nb, X + 12 * nb, V + 6 * nb, C + 6 * nb) > at.memory.buffer.byteLength) throw new RangeError('GeneratedKinematics.create: the placement lies beyond its memory');
    }
    const slots = { CS, XG: X, XS: X };
    // without q̇: the transforms of the revolute joints about a frame axis and of the quaternion joints (the others are constants or jcalc's)
    const pos = new ChunkedCode();
    for (let i = 0; i < nb; i++) {
      if (kinds[i].t !== 'axis' && kinds[i].t !== 'quat') continue;
      pos.split();
      pos.g.reset();
      transformOf(pos.g, model, kinds, slots, i, true);
    }
    const posBodies = pos.finish(0);
    // with q̇: the transforms, then v_J = S q̇, v_i = ⁱX_λ v_λ + v_J, c_i = v_i × v_J
    const vel = new ChunkedCode();
    const zero: V6 = [0, 0, 0, 0, 0, 0];
    for (let i = 0; i < nb; i++) {
      vel.split();
      const g = vel.g;
      g.reset();
      const p = model.parents[i], ni = model.nvi[i], S = model.S[i];
      const { E, r } = transformOf(g, model, kinds, slots, i, true);
      let vJ = zero;
      if (ni > 0) {
        const x = Array.from({ length: ni }, (_, k) => g.load(QD + model.iv[i] + k));
        vJ = Array.from({ length: 6 }, (_, row) => g.dot(x.map((_, k) => S[6 * k + row]), x));
      }
      let v: V6, c: V6;
      if (p < 0) { v = vJ; c = zero; } else {
        const vp = Array.from({ length: 6 }, (_, k) => g.load(V + 6 * p + k));
        v = add6(g, applyMotion(g, E, r, vp), vJ);
        c = ni > 0 ? crossMotion(g, v, vJ) : zero;
      }
      for (let k = 0; k < 6; k++) { g.store(V + 6 * i + k, v[k]); g.store(VJ + 6 * i + k, vJ[k]); g.store(C + 6 * i + k, c[k]); }
    }
    try {
      const velBodies = vel.finish(posBodies.length);
      const bytes = assemble([{ bodies: [...posBodies, ...velBodies, sinCosBody(QA, CS, nb)], type: 1 }], pages);
      if (!WebAssembly.validate(bytes)) return null;
      const n = posBodies.length + velBodies.length;
      return new GeneratedKinematics(model, bytes, pages, [posBodies.length - 1, n - 1, n], kinds, { CS, QD, X, V, VJ, C, QA }, at?.memory);
    } catch {
      return null;
    }
  }

  /** ⁱX_λ (and with q̇: v_i, v_J,i, c_i) for (q, q̇) into X (V, VJ, C). Inputs are not validated. Allocation free. */
  run(q: ArrayLike<number>, qd: ArrayLike<number> | null): void {
    const mem = this.mem, o = this.o, fl = this.fl, model = this.model;
    fl.reset();
    // the inputs of the code (as writeTransforms, without its copies): cos q, sin q; jcalc's transforms into X
    // (by the code, the same values as Math.cos and Math.sin, but for angles beyond its range)
    cosSinInto(mem, o.CS, this.trig, q);
    const jb = this.jcalcBody, jx = this.jcalcX;
    for (let k = 0; k < jb.length; k++) jcalc(jx[k], model, jb[k], q, fl);
    const qb = this.quatBody;
    for (let k = 0; k < qb.length; k++) quaternionInputs(model, qb[k], this.quatTrans[k] === 1, mem, o.X + 12 * qb[k], q, fl);
    const base = qd === null ? this.base : this.baseWithVelocity, out = this.flops;
    out.mul = base.mul + fl.mul; out.add = base.add + fl.add; out.div = base.div + fl.div; out.fn = base.fn + fl.fn;
    if (qd === null) {
      this.runX();
      return;
    }
    const nv = this.model.nv;
    for (let k = 0; k < nv; k++) mem[o.QD + k] = qd[k];
    this.runV();
  }

  /** the last run into a KinematicsWorkspace, as forwardKinematics would have left it (flops included) */
  copyTo(ws: KinematicsWorkspace, withVelocity: boolean): void {
    ws.XupFlat.set(this.X);
    if (withVelocity) {
      ws.vFlat.set(this.V); ws.vJFlat.set(this.VJ); ws.cFlat.set(this.C);
    } else {
      ws.vFlat.fill(0); ws.vJFlat.fill(0); ws.cFlat.fill(0);
    }
    ws.flops.reset().accumulate(this.flops);
  }
}
