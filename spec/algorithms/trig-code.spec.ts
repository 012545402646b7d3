/**
 * cos and sin in WebAssembly (trig-code.ts) against the engine's Math.cos and Math.sin, bit for bit
 * (Object.is: signed zeros too): random angles of every magnitude up to the code's range, the
 * multiples of π/4 and π/2 and their neighbours (where the reduction's branches change), tiny and
 * zero angles; beyond the range and for values that are not finite, `anglesIn` hands the angles
 * back to Math.cos and Math.sin, and the generated kinematics then still equal forwardKinematics.
 */
import { describe, expect, it } from 'vitest';
import { forwardKinematics, KinematicsWorkspace } from '../../src/algorithms/kinematics.ts';
import { anglesIn, sinCosBody, TRIG_CODE_RANGE } from '../../src/algorithms/trig-code.ts';
import { GeneratedKinematics } from '../../src/assembly/kinematics-code.ts';
import { GeneratedRnea } from '../../src/algorithms/rnea-code.ts';
import { rnea, RneaWorkspace } from '../../src/algorithms/rnea.ts';
import { chain } from '../../src/model/generators.ts';
import { randomConfiguration } from '../../src/model/random.ts';
import { Rng } from '../../src/model/rng.ts';
import { assemble } from '../../src/sparse/compiled.ts';

const N = 4096;

/** the code for N angles at slots 0.. and its outputs at N.. */
function trig(): { run: () => void; mem: Float64Array } {
  const pages = Math.ceil((8 * 3 * N) / 65536);
  const bytes = assemble([{ bodies: [sinCosBody(0, N, N)], type: 1 }], pages);
  const memory = new WebAssembly.Memory({ initial: pages });
  const run = (new WebAssembly.Instance(new WebAssembly.Module(bytes), { e: { m: memory } }).exports as Record<string, () => void>).f0;
  return { run, mem: new Float64Array(memory.buffer) };
}

function expectSameAsMath(angles: number[]): void {
  const { run, mem } = trig();
  for (let at = 0; at < angles.length; at += N) {
    const part = angles.slice(at, at + N);
    mem.fill(0, 0, N);
    mem.set(part, 0);
    run();
    for (let i = 0; i < part.length; i++) {
      const x = part[i];
      if (!Object.is(mem[N + 2 * i], Math.cos(x))) expect(mem[N + 2 * i], `cos(${x})`).toBe(Math.cos(x));
      if (!Object.is(mem[N + 2 * i + 1], Math.sin(x))) expect(mem[N + 2 * i + 1], `sin(${x})`).toBe(Math.sin(x));
    }
  }
}

describe('cos and sin by the generated code = Math.cos and Math.sin, bit for bit', () => {
  it('random angles of every magnitude up to the range', () => {
    const rng = new Rng(11), xs: number[] = [];
    for (const scale of [1e-300, 1e-9, 1e-4, 0.1, Math.PI / 4, 1, 2.35, 3, 10, 1e3, 1e5, TRIG_CODE_RANGE]) {
      for (let k = 0; k < 20000; k++) xs.push(rng.uniform(-scale, scale));
    }
    expectSameAsMath(xs);
  });

  it('multiples of π/4 and π/2, their neighbours, zeros and tiny angles', () => {
    const xs: number[] = [0, -0, 5e-324, -5e-324, 1e-20, 2 ** -27, -(2 ** -27), TRIG_CODE_RANGE, -TRIG_CODE_RANGE];
    const next = (x: number, d: number) => { const b = new Float64Array([x]), i = new BigInt64Array(b.buffer); i[0] += BigInt(d); return b[0]; };
    for (let m = -4000; m <= 4000; m++) {
      for (const x of [(m * Math.PI) / 4, (m * Math.PI) / 2]) for (let d = -3; d <= 3; d++) xs.push(x === 0 ? d * 1e-300 : next(x, d));
    }
    expectSameAsMath(xs);
  });
});

describe('angles the code does not take', () => {
  it('anglesIn says so beyond the range and for values that are not finite', () => {
    const mem = new Float64Array(4), body = Int32Array.from([0, 1]), qi = Int32Array.from([0, 1]);
    expect(anglesIn(mem, 0, body, qi, [0.5, -TRIG_CODE_RANGE])).toBe(true);
    expect(Array.from(mem.subarray(0, 2))).toEqual([0.5, -TRIG_CODE_RANGE]);
    for (const bad of [2 * TRIG_CODE_RANGE, -1e300, NaN, Infinity]) expect(anglesIn(mem, 0, body, qi, [0.5, bad])).toBe(false);
  });

  it('the generated kinematics with an angle beyond the range equal forwardKinematics', () => {
    const model = chain(6), code = GeneratedKinematics.create(model)!, ws = new KinematicsWorkspace(model);
    const q = randomConfiguration(model, new Rng(3));
    q[2] = 3e7 + 0.25;
    code.run(q, null);
    forwardKinematics(ws, q, null);
    // the same numbers (the folded code's structural zeros may carry another sign)
    for (let k = 0; k < ws.XupFlat.length; k++) expect(code.X[k] === ws.XupFlat[k], `ⁱX_λ entry ${k}`).toBe(true);
  });

  it('a generated kernel (RNEA) with an angle beyond the range equals the JavaScript reference', () => {
    const model = chain(6), code = GeneratedRnea.create(model)!, ws = new RneaWorkspace(model), rng = new Rng(4);
    const q = randomConfiguration(model, rng), v = rng.array(6, -1, 1), a = rng.array(6, -1, 1);
    for (const far of [3e7 + 0.25, -1e12]) {
      q[3] = far;
      const ref = Float64Array.from(rnea(model, ws, q, v, a)), got = code.compute(q, v, a);
      const scale = Math.max(1, ...ref.map(Math.abs));
      for (let k = 0; k < 6; k++) expect(Math.abs(got[k] - ref[k]), `τ[${k}] at q[3] = ${far}`).toBeLessThanOrEqual(1e-12 * scale);
    }
  });
});
