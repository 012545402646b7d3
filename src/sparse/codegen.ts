/**
 * code = generateCode(lu): the refactor and the solves of lu's current layout as WebAssembly —
 * straight-line code (compiled.ts) up to lu.compileLimit statements, loops over the layout's tables
 * (loops.ts) above — with the static counts of that code, so that the counters stay exact. The
 * factors (and a gathered source) move into the module's memory; the generic kernels work on the
 * same views. On failure (no WebAssembly, engine limits) lu.code stays null and the generic
 * kernels run. Allocates; once per layout.
 */
import { compileLU, type CompileInput } from './compiled.ts';
import type { LUFactors } from './factors.ts';
import { loopLU } from './loops.ts';

/** Generates the code of lu's layout (compiled.ts or loops.ts) and its static counts (allocates; once per layout). */
export function generateCode(lu: LUFactors): void {
  try {
    compileLayout(lu);
  } catch {
    // no WebAssembly memory or module for lu's layout (engine limits): the generic kernels go on
    lu.code = null;
    lu.compileFailed = true;
  }
}

/** The code of lu's layout and its static counts; lu.compileFailed when none could be made. */
function compileLayout(lu: LUFactors): void {
  const S = lu.symbolic;
  const { n, r, nblocks, Bp } = S;
  const { cs, us, dpos } = lu;
  const gathered = lu.gmap !== null && lu.scaling === 'none';
  const input: CompileInput = {
    n, nnz: S.nnz, r, nblocks, Bp, Bi: S.Bi, Bslot: S.Bslot, Op: S.Op, Oslot: S.Oslot, p: S.p, q: S.q,
    cs, us, dpos, LUi: lu.LUi, Bpos: lu.Bpos, Opos: lu.Opos, T: lu.T, Tp: lu.Tp, Llo: lu.Llo, Lhi: lu.Lhi,
    growthLimit: lu.growthLimit, checkTol: lu.checkTol,
    refine: lu.residual === 'extended' ? Math.max(2, lu.refine) : lu.refine,
    refineOmega: lu.refineOmega,
    plain: lu.plainSolve,
    maxStatements: lu.compileOption === 'always' ? Infinity : lu.compileLimit,
    ...(gathered ? { gather: lu.gmap!, nsrc: lu.src.length } : {}),
    ...(gathered && lu.gFromSource ? { direct: true } : {}),
    ...(gathered && lu.gfixed !== null ? { fixed: lu.gfixed, values: lu.src } : {}),
  };
  // straight-line code up to compileLimit (Tp[n] + cs[n], multiplications + slots, bounds its
  // statements from below), the loop kernels above: larger straight-line code runs slower
  const direct = gathered && lu.gFromSource && nblocks === n;
  const straight = lu.compileOption === 'always' || (lu.compileOption === 'auto' && lu.Tp[n] + cs[n] + (direct ? n : 0) <= lu.compileLimit);
  const code = (straight ? compileLU(input) : null) ?? (lu.compileOption === 'always' ? null : loopLU(input));
  if (code === null) {
    lu.compileFailed = true;
    return;
  }
  lu.codeGathered = gathered;
  if (gathered) {
    // the source lives in the module's memory from now on (the caller fetches lu.source each step)
    code.A.set(lu.src);
    lu.src = code.A;
  }
  // the factors live in the module's memory from now on (the generic kernels work on the same views)
  code.X.set(lu.LUx);
  lu.xv = code.X;
  if (lu.refine > 0 && !code.residualFromA) {
    code.Cb.set(lu.Cx);
    lu.Cx = code.Cb;
  }
  lu.code = code;
  // the counts of blockMapped and of one working-precision refinement step per block (refineBlock);
  // with the backward-error test (code.refined), the test's counts here and the correction's per
  // block, added by the solve for the blocks whose test failed
  const tested = code.refined.length > 0;
  let divs = 0, rm = 0, ra = 0, rd = 0, steps = 0;
  const big: number[] = [];
  for (let b = 0; b < nblocks; b++) {
    const k1 = r[b], k2 = r[b + 1];
    if (k2 - k1 < 2) continue;
    let nlu = 0;
    for (let k = k1; k < k2; k++) {
      divs += cs[k + 1] - dpos[k] - 1;
      nlu += cs[k + 1] - us[k] - 1;
    }
    const nzb = Bp[k2] - Bp[k1], nb = k2 - k1;
    if (tested) {
      rm += nzb + nb;
      ra += 2 * nzb;
      big.push(b, nlu, nlu + nb, nb);
    } else {
      rm += nzb + nlu;
      ra += nzb + nlu + nb;
      rd += nb;
      steps++;
    }
  }
  lu.cFactorMuls = lu.Tp[n];
  lu.cFactorDivs = divs;
  const on = lu.refine > 0;
  lu.cRefMuls = on ? rm : 0;
  lu.cRefAdds = on ? ra : 0;
  lu.cRefDivs = on ? rd : 0;
  lu.cRefSteps = on ? steps : 0;
  lu.cRefBlocks = Int32Array.from(big);
}
