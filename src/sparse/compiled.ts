/**
 * code = compileLU(layout): the refactor and the solve of one NumericLU as straight-line JavaScript,
 * generated from its fixed patterns and pivot order (the symbolic factorization is known before the
 * first step, as in robot-specific code generators). Every multiply-subtract of the mapped kernel
 * becomes `X[t] -= X[s] * u` with t and s constants: no index is loaded at run time.
 *
 * The generated code performs the same operations in the same order as the generic kernels
 * (numeric.ts: blockMapped, solveInto with one step of working-precision refinement), so the
 * factors and solutions are the same bit for bit. The pivot checks (threshold, growth, zero and
 * non-finite values) are kept; when one fails, `factor` returns false and the caller runs the
 * generic pass, which re-pivots or reports the error.
 *
 * The code is split into functions of about CHUNK statements: V8's optimizing compiler leaves
 * larger functions to the interpreter (measured: beyond ~1,500 statements a function runs 50–100×
 * slower), and smaller ones tier up sooner.
 *
 * Measured (scripts/bench-lu-time.ts, reports/bench-lu-time.md): once optimized, the compiled refactor
 * of a 24-link chain's forward dynamics runs in 0.6× the mapped kernel's time; but V8's optimizing
 * compiler takes 0.15–1.6 s per function of straight-line typed-array code on a loaded machine, so
 * the code runs in the interpreter, 10–100× slower than the generic kernels, for thousands of calls
 * first. Hence opt-in (FactorOptions.compile), for long runs on one robot.
 */

/** Everything the generator reads: the numeric layout of a NumericLU and its options. */
export interface CompileInput {
  n: number;
  /** block boundaries r[0..nblocks] */
  r: Int32Array;
  nblocks: number;
  /** in-block entries of C: column pointers, rows and slots in A */
  Bp: Int32Array;
  Bi: Int32Array;
  Bslot: Int32Array;
  /** off-block entries: column pointers and slots in A */
  Op: Int32Array;
  Oslot: Int32Array;
  p: Int32Array;
  q: Int32Array;
  cs: Int32Array;
  us: Int32Array;
  dpos: Int32Array;
  LUi: Int32Array;
  Bpos: Int32Array;
  Opos: Int32Array;
  /** mapped-kernel tables */
  T: Uint16Array;
  Tp: Int32Array;
  Llo: Int32Array;
  Lhi: Int32Array;
  growthLimit: number;
  checkTol: number;
  /** refinement steps (the solve is compiled for 0 or 1 working-precision step) */
  refine: number;
  scaled: boolean;
}

/** Compiled refactor and solve of one layout. */
export interface CompiledLU {
  /**
   * LU values into X (= LUx) from A (C's values in A's order; the scaled copy when rows are
   * scaled), the in-block values of C into Cb (refinement); false when a check failed (X is then
   * partly written; the caller refactors with the generic kernel).
   */
  factor(X: Float64Array, A: Float64Array, Cb: Float64Array): boolean;
  /** solution of one right-hand side: out[xo + ·] = C⁻¹ B[bo + ·], as NumericLU.solveInto; null when not compiled */
  solve: ((X: Float64Array, w: Float64Array, B: Float64Array, bo: number, out: Float64Array, xo: number, rb: Float64Array, dz: Float64Array, Cb: Float64Array, R: Float64Array) => void) | null;
  /** statements generated (factor, solve) */
  readonly statements: number;
}

/** statements per generated function */
const CHUNK = 60;

type Chunked = { fns: ((...a: unknown[]) => unknown)[]; statements: number };

/** Splits groups of statements (each self-contained) into functions of about CHUNK statements. */
function build(params: string, prologue: string, groups: string[][], epilogue: string): Chunked {
  const fns: ((...a: unknown[]) => unknown)[] = [];
  let cur: string[] = [];
  let statements = 0;
  const flush = () => {
    if (cur.length === 0) return;
    // eslint-disable-next-line @typescript-eslint/no-implied-eval
    fns.push(new Function(...params.split(','), `'use strict';${prologue}\n${cur.join('\n')}\n${epilogue}`) as (...a: unknown[]) => unknown);
    cur = [];
  };
  for (const g of groups) {
    if (cur.length > 0 && cur.length + g.length > CHUNK) flush();
    for (const s of g) cur.push(s);
    statements += g.length;
  }
  flush();
  return { fns, statements };
}

/**
 * Generates the compiled refactor (always) and solve (without refinement or with one step in
 * working precision). Allocates the generated functions; run once per layout.
 */
export function compileLU(c: CompileInput): CompiledLU {
  const { r, nblocks, Bp, Bslot, Op, Oslot, cs, us, dpos, Bpos, Opos, T, Tp, Llo, Lhi } = c;
  const G = c.growthLimit;
  const RT = 1 / c.checkTol;
  // ---- factor: groups per 1×1 run, per block start, per column
  const fg: string[][] = [];
  let ones: string[] = [];
  for (let b = 0; b < nblocks; b++) {
    const k1 = r[b];
    const k2 = r[b + 1];
    if (k2 - k1 === 1) {
      ones.push(`v=A[${Bslot[Bp[k1]]}];if(v===0||!(v-v===0))return false;X[${dpos[k1]}]=v;`);
      if (ones.length >= CHUNK / 2) { fg.push(ones); ones = []; }
      continue;
    }
    if (ones.length > 0) { fg.push(ones); ones = []; }
    // zero the block's slots that C does not fill, scatter C_bb, max |C_bb| → growth limit
    const filled = new Uint8Array(cs[k2] - cs[k1]);
    let g: string[] = ['m=0;'];
    for (let e = Bp[k1]; e < Bp[k2]; e++) {
      filled[Bpos[e] - cs[k1]] = 1;
      g.push(`v=A[${Bslot[e]}];X[${Bpos[e]}]=v;m=Math.max(m,Math.abs(v));`);
      if (g.length >= CHUNK) { g.push('st[0]=m;'); fg.push(g); g = ['m=st[0];']; }
    }
    for (let t = cs[k1]; t < cs[k2]; t++) {
      if (filled[t - cs[k1]] === 0) g.push(`X[${t}]=0;`);
    }
    g.push(`if(!(m<Infinity))return false;st[0]=${G}*m;`);
    fg.push(g);
    let o = Tp[k1];
    for (let k = k1; k < k2; k++) {
      const c0 = cs[k];
      const d = dpos[k];
      const c1 = cs[k + 1];
      const col: string[] = ['ul=st[0];'];
      for (let pu = us[k]; pu < d; pu++) {
        col.push(`u=X[${pu}];if(!(Math.abs(u)<=ul))return false;`);
        for (let s = Llo[pu]; s < Lhi[pu]; s++) col.push(`X[${c0 + T[o++]}]-=X[${s}]*u;`);
      }
      col.push(`p=X[${d}];a=Math.abs(p);if(!(a>0&&a<=ul))return false;l=a*${RT};`);
      for (let s = d + 1; s < c1; s++) col.push(`v=X[${s}];if(!(Math.abs(v)<=l))return false;X[${s}]=v/p;`);
      fg.push(col);
    }
  }
  if (ones.length > 0) fg.push(ones);
  let g: string[] = [];
  for (let e = 0; e < Op[c.n]; e++) {
    g.push(`X[${Opos[e]}]=A[${Oslot[e]}];`);
    if (g.length >= CHUNK) { fg.push(g); g = []; }
  }
  if (c.refine > 0) {
    for (let b = 0; b < nblocks; b++) {
      if (r[b + 1] - r[b] < 2) continue;
      for (let e = Bp[r[b]]; e < Bp[r[b + 1]]; e++) {
        g.push(`Cb[${e}]=A[${Bslot[e]}];`);
        if (g.length >= CHUNK) { fg.push(g); g = []; }
      }
    }
  }
  if (g.length > 0) fg.push(g);
  const fc = build('X,A,Cb,st', 'let v=0,m=0,ul=0,u=0,p=0,a=0,l=0;', fg, 'return true;');
  const st = new Float64Array(1);
  const ffns = fc.fns as ((X: Float64Array, A: Float64Array, Cb: Float64Array, st: Float64Array) => boolean)[];
  const factor = (X: Float64Array, A: Float64Array, Cb: Float64Array): boolean => {
    for (let i = 0; i < ffns.length; i++) if (!ffns[i](X, A, Cb, st)) return false;
    return true;
  };
  if (c.refine > 1) return { factor, solve: null, statements: fc.statements };
  const sc = compileSolve(c);
  return { factor, solve: sc.solve, statements: fc.statements + sc.statements };
}

/** The solve of NumericLU.solveInto (refinement: none or one working-precision step), straight-line. */
function compileSolve(c: CompileInput): { solve: CompiledLU['solve']; statements: number } {
  const { n, r, nblocks, Bp, Bi, p, q, cs, us, dpos, LUi } = c;
  const refine = c.refine > 0;
  const sg: string[][] = [];
  let g: string[] = [];
  const push = () => { if (g.length > 0) { sg.push(g); g = []; } };
  for (let k = 0; k < n; k++) {
    g.push(c.scaled ? `w[${k}]=B[bo+${p[k]}]*R[${p[k]}];` : `w[${k}]=B[bo+${p[k]}];`);
    if (g.length >= CHUNK) push();
  }
  push();
  // L and U solves of a block on vector v (block only), as NumericLU.blockSolve
  const blockSolve = (v: string, k1: number, k2: number) => {
    for (let j = k1; j < k2; j++) {
      const s1 = cs[j + 1];
      if (dpos[j] + 1 >= s1) continue;
      g = [`x=${v}[${j}];`];
      for (let s = dpos[j] + 1; s < s1; s++) g.push(`${v}[${LUi[s]}]-=X[${s}]*x;`);
      push();
    }
    for (let j = k2 - 1; j >= k1; j--) {
      const d = dpos[j];
      g = [`x=${v}[${j}]/X[${d}];${v}[${j}]=x;`];
      for (let t = us[j]; t < d; t++) g.push(`${v}[${LUi[t]}]-=X[${t}]*x;`);
      push();
    }
  };
  // segments as in NumericLU: runs of 1×1 blocks or one block of size ≥ 2, from the last one up
  for (let b = nblocks - 1; b >= 0; b--) {
    const k1 = r[b];
    const k2 = r[b + 1];
    if (k2 - k1 === 1) {
      const d = dpos[k1];
      g = [`x=w[${k1}]/X[${d}];out[xo+${q[k1]}]=x;`];
      for (let t = cs[k1]; t < d; t++) g.push(`w[${LUi[t]}]-=X[${t}]*x;`);
      push();
      continue;
    }
    if (refine) {
      g = [];
      for (let j = k1; j < k2; j++) g.push(`rb[${j}]=w[${j}];`);
      push();
      blockSolve('w', k1, k2);
      // one step: dz = rb − C_bb y; dz = C_bb \ dz; y += dz
      g = [];
      for (let k = k1; k < k2; k++) g.push(`dz[${k}]=rb[${k}];`);
      push();
      for (let k = k1; k < k2; k++) {
        g = [`x=w[${k}];`];
        for (let e = Bp[k]; e < Bp[k + 1]; e++) g.push(`dz[${Bi[e]}]-=Cb[${e}]*x;`);
        push();
      }
      blockSolve('dz', k1, k2);
      g = [];
      for (let k = k1; k < k2; k++) g.push(`w[${k}]=w[${k}]+dz[${k}];`);
      push();
      for (let j = k1; j < k2; j++) {
        g = [`x=w[${j}];out[xo+${q[j]}]=x;`];
        for (let t = cs[j]; t < us[j]; t++) g.push(`w[${LUi[t]}]-=X[${t}]*x;`);
        push();
      }
      continue;
    }
    for (let j = k1; j < k2; j++) {
      const s1 = cs[j + 1];
      if (dpos[j] + 1 >= s1) continue;
      g = [`x=w[${j}];`];
      for (let s = dpos[j] + 1; s < s1; s++) g.push(`w[${LUi[s]}]-=X[${s}]*x;`);
      push();
    }
    for (let j = k2 - 1; j >= k1; j--) {
      const d = dpos[j];
      g = [`x=w[${j}]/X[${d}];out[xo+${q[j]}]=x;`];
      for (let t = cs[j]; t < d; t++) g.push(`w[${LUi[t]}]-=X[${t}]*x;`);
      push();
    }
  }
  const built = build('X,w,B,bo,out,xo,rb,dz,Cb,R', 'let x=0;', sg, '');
  type SolveChunk = (X: Float64Array, w: Float64Array, B: Float64Array, bo: number, out: Float64Array, xo: number, rb: Float64Array, dz: Float64Array, Cb: Float64Array, R: Float64Array) => void;
  const fns = built.fns as SolveChunk[];
  const solve: SolveChunk = (X, w, B, bo, out, xo, rb, dz, Cb, R) => {
    for (let i = 0; i < fns.length; i++) fns[i](X, w, B, bo, out, xo, rb, dz, Cb, R);
  };
  return { solve, statements: built.statements };
}
