/**
 * ABA as WebAssembly for models past the straight-line code's size (aba-code.ts): the three passes
 * of aba.ts as three loops over a table of body records, the same code for every body, the model's
 * constants read from the body's record instead of folded in. Straight-line code grows by about
 * 10 kB of machine code a body and, past a few hundred bodies, no longer stays in the processor's
 * caches between calls; these loops stay a few kB whatever the model.
 *
 * Made where every joint has one degree of freedom and is revolute, prismatic or helical (the
 * bodies in velocity order). Per body the transform is built in the loop from cos q and sin q (the
 * module's own, trig-code.ts) and d (q for a prismatic joint, pitch·q for a helical one, written by
 * JavaScript), as jcalc defines it: ⁱX_λ = X_J X_tree with E_J = R(n, q)ᵀ = c 1 + (1 − c) n nᵀ − s n×
 * and r = r_tree + d E_treeᵀ n. A table entry per body holds E_tree, r_tree, n, E_treeᵀ n, S, the
 * rigid inertia (its 10 parameters and its 21 matrix entries), the parent's record (a root's is a
 * record of the world: v = 0, a = −a_g) and the pass values (v, c, p^A, I^A, E, r, U, D⁻¹, u, a).
 * The passes: those of aba-code.ts (its formulas, spatial-code.ts), so q̈ agrees with the reference
 * to rounding (tested).
 */
import { JT_HELICAL, JT_PRISMATIC, JT_REVOLUTE } from '../model/joint.ts';
import type { Model } from '../model/model.ts';
import { Bytes } from '../sparse/compiled.ts';
import { add6, addCongruence, applyMotion, articulatedLess, compose, crossForce, crossMotion, Emitter, inertiaMatrix, inertiaMul, type Kind, SYM, transposeApplyForce, type V6, type Val } from './spatial-code.ts';

/** a body record's fields (f64 slots from the record's start) */
const F = {
  ET: 0, RT: 9, N: 12, ETN: 15, S: 18, I: 24, I21: 34, PAR: 55,
  V: 56, C: 62, PA: 68, IA: 74, E: 95, R: 104, U: 107, DINV: 113, UU: 114, A: 115,
} as const;
/** slots per record */
const RS = 121;

/** i32 locals of the function: the record's byte address, its parent's, 8 i and 16 i; the f64 locals follow */
const B = 0, P = 1, K8 = 2, K16 = 3, NI32 = 4;

const I32_ADD = 0x6a, I32_SUB = 0x6b, I32_LT_S = 0x48, I32_GE_S = 0x4e;
const BLOCK = 0x02, LOOP = 0x03, END = 0x0b, BR = 0x0c, BR_IF = 0x0d, VOID = 0x40, I32_LOAD = 0x28;

/** where a call's values are: slots of the inputs, the output, the trig's angles and cos/sin, d */
export interface AbaLoopsLayout { CS: number; XG: number; QD: number; TAU: number; QDD: number; QA: number; DQ: number }

/** The loops' module for this model, or null where it is not made (a joint with nv ≠ 1 or another type, bodies not in velocity order). */
export function abaLoopsModule(model: Model): { body: Uint8Array; slots: number; kinds: Kind[]; o: AbaLoopsLayout; linear: Int32Array; init: (mem: Float64Array) => void } | null {
  const nb = model.nb;
  if (nb === 0) return null;
  for (let i = 0; i < nb; i++) {
    const t = model.jtype[i];
    if (model.nvi[i] !== 1 || model.iv[i] !== i || (t !== JT_REVOLUTE && t !== JT_PRISMATIC && t !== JT_HELICAL)) return null;
  }
  let slot = 0;
  const take = (n: number) => { const s = slot; slot += n; return s; };
  const CS = take(2 * nb), QD = take(nb), TAU = take(nb), QDD = take(nb), QA = take(nb), DQ = take(nb);
  const WORLD = take(RS), REC = take(RS * nb);
  // the trig's bodies: revolute and helical joints (cos q, sin q; their kind's axis fields are not
  // read: the loop builds every transform from the axis in the table); the others keep cos 0 = 1, sin 0 = 0
  const kinds: Kind[] = Array.from({ length: nb }, (_, i) => (model.jtype[i] === JT_PRISMATIC ? { t: 'fixed' } : { t: 'axis', k: 0, sign: 1 }));
  const linear = Int32Array.from({ length: nb }, (_, i) => i).filter((i) => model.jtype[i] !== JT_REVOLUTE);
  const init = (mem: Float64Array) => {
    const a0 = [0, 0, 0, -model.gravity[0], -model.gravity[1], -model.gravity[2]];
    for (let k = 0; k < 6; k++) mem[WORLD + F.A + k] = a0[k];
    const i32 = new Int32Array(mem.buffer);
    // cos 0 and sin 0 where no angle is written (the trig's code, when it runs, writes the same)
    for (let i = 0; i < nb; i++) mem[CS + 2 * i] = 1;
    for (let i = 0; i < nb; i++) {
      const o = REC + RS * i, Xt = model.Xtree[i], n = model.axis.subarray(3 * i, 3 * i + 3);
      for (let k = 0; k < 9; k++) mem[o + F.ET + k] = Xt[k];
      for (let k = 0; k < 3; k++) mem[o + F.RT + k] = Xt[9 + k];
      for (let k = 0; k < 3; k++) {
        mem[o + F.N + k] = n[k];
        mem[o + F.ETN + k] = Xt[k] * n[0] + Xt[3 + k] * n[1] + Xt[6 + k] * n[2];
      }
      for (let k = 0; k < 6; k++) mem[o + F.S + k] = model.S[i][k];
      for (let k = 0; k < 10; k++) mem[o + F.I + k] = model.I[i][k];
      const M = inertiaMatrix(model.I[i]);
      for (let r = 0; r < 6; r++) for (let c = r; c < 6; c++) mem[o + F.I21 + SYM[6 * r + c]] = M[6 * r + c];
      const p = model.parents[i];
      i32[2 * (o + F.PAR)] = 8 * (p < 0 ? WORLD : REC + RS * p);
    }
  };

  const g = new Emitter(NI32), e = g.e;
  const loads = (s: number, n: number): Val[] => Array.from({ length: n }, (_, k) => g.load(s + k));
  /** one pass: body() for the records first … last (step +1) or last … first (−1) */
  const pass = (down: boolean, body: () => void) => {
    const first = down ? nb - 1 : 0;
    e.i32(8 * (REC + RS * first)).set(B).i32(8 * first).set(K8).i32(16 * first).set(K16);
    e.op(BLOCK, VOID, LOOP, VOID);
    if (down) e.get(B).i32(8 * REC).op(I32_LT_S, BR_IF, 1);
    else e.get(B).i32(8 * (REC + RS * nb)).op(I32_GE_S, BR_IF, 1);
    e.get(B).op(I32_LOAD, 2); e.c.u32(8 * F.PAR); e.set(P);
    g.reset();
    body();
    const step = (l: number, by: number) => e.get(l).i32(by).op(down ? I32_SUB : I32_ADD).set(l);
    step(B, 8 * RS); step(K8, 8); step(K16, 16);
    e.op(BR, 0, END, END);
  };
  const at = (base: number) => { g.base = base; };

  // pass 1: ⁱX_λ, v_i, c_i, p^A_i, I^A_i = I_i
  pass(false, () => {
    at(K16); const c = g.load(CS), s = g.load(CS + 1);
    at(K8); const d = g.load(DQ), qd = g.load(QD);
    at(B);
    const n = loads(F.N, 3), ET = loads(F.ET, 9), rT = loads(F.RT, 3), En = loads(F.ETN, 3), S = loads(F.S, 6), I = loads(F.I, 10);
    const t = g.sub(1, c);
    const tn = n.map((x) => g.mul(t, x)), sn = n.map((x) => g.mul(s, x));
    const EJ: Val[] = [
      g.add(c, g.mul(tn[0], n[0])), g.add(g.mul(tn[0], n[1]), sn[2]), g.sub(g.mul(tn[0], n[2]), sn[1]),
      g.sub(g.mul(tn[1], n[0]), sn[2]), g.add(c, g.mul(tn[1], n[1])), g.add(g.mul(tn[1], n[2]), sn[0]),
      g.add(g.mul(tn[2], n[0]), sn[1]), g.sub(g.mul(tn[2], n[1]), sn[0]), g.add(c, g.mul(tn[2], n[2])),
    ];
    // X_J X_tree with r_J = d n: E = E_J E_tree, r = r_tree + d E_treeᵀ n (E_treeᵀ n from the table)
    const E = compose(g, EJ, [0, 0, 0], ET, rT).E;
    const r = rT.map((x, k) => g.add(x, g.mul(d, En[k])));
    for (let k = 0; k < 9; k++) g.store(F.E + k, E[k]);
    for (let k = 0; k < 3; k++) g.store(F.R + k, r[k]);
    const vJ: V6 = S.map((x) => g.mul(x, qd));
    at(P); const vp = loads(F.V, 6);
    at(B);
    const v = add6(g, applyMotion(g, E, r, vp), vJ);
    const cc = crossMotion(g, v, vJ);
    for (let k = 0; k < 6; k++) { g.store(F.V + k, v[k]); g.store(F.C + k, cc[k]); }
    const pA = crossForce(g, v, inertiaMul(g, I, v));
    for (let k = 0; k < 6; k++) g.store(F.PA + k, pA[k]);
    for (let k = 0; k < 21; k++) g.store(F.IA + k, g.load(F.I21 + k));
  });
  // the world's p^A and I^A take the roots' terms: zero each call
  g.base = -1;
  for (let k = 0; k < 27; k++) g.store(WORLD + F.PA + k, 0);
  // pass 2: U, D⁻¹, u; I^A_λ += Xᵀ I^a X, p^A_λ += Xᵀ p^a (a root's go to the world's record, never read)
  pass(true, () => {
    at(K8); const tau = g.load(TAU);
    at(B);
    const L = loads(F.IA, 21), M = Array.from({ length: 36 }, (_, k) => L[SYM[k]]);
    const pA = loads(F.PA, 6), S = loads(F.S, 6), R6 = [0, 1, 2, 3, 4, 5];
    const U = R6.map((rr) => g.dot(R6.map((cc) => M[6 * rr + cc]), S));
    const Dinv = g.div(1, g.dot(S, U));
    const u = g.sub(tau, g.dot(S, pA));
    for (let k = 0; k < 6; k++) g.store(F.U + k, U[k]);
    g.store(F.DINV, Dinv); g.store(F.UU, u);
    const UD = U.map((x) => g.mul(x, Dinv));
    const Ia = articulatedLess(g, M, UD, U, 1);
    const cc = loads(F.C, 6);
    let pa = add6(g, pA, R6.map((rr) => g.dot(R6.map((k) => Ia[6 * rr + k]), cc)));
    pa = add6(g, pa, UD.map((x) => g.mul(x, u)));
    const E = loads(F.E, 9), r = loads(F.R, 3);
    const up = transposeApplyForce(g, E, r, pa);
    at(P);
    addCongruence(g, E, r, Ia, F.IA);
    for (let k = 0; k < 6; k++) g.store(F.PA + k, g.add(g.load(F.PA + k), up[k]));
  });
  // pass 3: a_i = ⁱX_λ a_λ + c_i, q̈_i = D⁻¹ (u − Uᵀ a_i), a_i += S q̈_i
  pass(false, () => {
    at(P); const ap = loads(F.A, 6);
    at(B);
    const E = loads(F.E, 9), r = loads(F.R, 3), cc = loads(F.C, 6);
    let a = add6(g, applyMotion(g, E, r, ap), cc);
    const U = loads(F.U, 6), Dinv = g.load(F.DINV), u = g.load(F.UU), S = loads(F.S, 6);
    const qdd = g.mul(Dinv, g.sub(u, g.dot(U, a)));
    a = add6(g, a, S.map((x) => g.mul(x, qdd)));
    for (let k = 0; k < 6; k++) g.store(F.A + k, a[k]);
    at(K8); g.store(QDD, qdd);
  });
  e.c.byte(END);
  const fn = new Bytes();
  fn.u32(2); fn.u32(NI32); fn.byte(0x7f); fn.u32(Math.max(1, g.maxLocals)); fn.byte(0x7c);
  fn.bytes(e.c.view());
  // XG: no jcalc transforms here (no kind reads it)
  return { body: fn.view().slice(), slots: slot, kinds, o: { CS, XG: 0, QD, TAU, QDD, QA, DQ }, linear, init };
}
