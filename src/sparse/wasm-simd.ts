/**
 * SimdBody: the loop kernels' function-body builder (loops.ts, `Body`) with the WebAssembly SIMD
 * operations on f64x2 that the generated kernels of the derivatives use (minv-solve-code.ts,
 * rnea-pairs-code.ts), and a body closed with its own local declarations.
 */
import { Bytes } from './compiled.ts';
import { Body } from './loops.ts';

const SIMD = 0xfd;
/** f64x2 opcodes (after the 0xfd prefix) */
export const V = { load: 0x00, store: 0x0b, splat: 0x14, extract: 0x21, neg: 0xed, add: 0xf0, sub: 0xf1, mul: 0xf2 } as const;
const F64 = { add: 0xa0, sub: 0xa1, mul: 0xa2, neg: 0x9a } as const;

export class SimdBody extends Body {
  /** v128 at byte address (stack) + offset */
  ldv(offset: number): this { this.c.byte(SIMD); this.c.u32(V.load); this.c.u32(4); this.c.u32(offset); return this; }
  stv(offset: number): this { this.c.byte(SIMD); this.c.u32(V.store); this.c.u32(4); this.c.u32(offset); return this; }
  /** an f64x2 operation without immediates */
  v(op: number): this { this.c.byte(SIMD); this.c.u32(op); return this; }
  /** f64x2.extract_lane */
  lane(l: number): this { this.v(V.extract); this.c.byte(l); return this; }
  /** load or store of an f64 (vec false) or an f64x2 (vec true) */
  ld(vec: boolean, offset: number): this { return vec ? this.ldv(offset) : this.ldf(offset); }
  st(vec: boolean, offset: number): this { return vec ? this.stv(offset) : this.stf(offset); }
  /** an arithmetic operation on f64 or f64x2 */
  arith(vec: boolean, op: 'add' | 'sub' | 'mul' | 'neg'): this { return vec ? this.v(V[op]) : this.op(F64[op]); }
  /** the function body with the given local declarations ([count, type] runs: 0x7f i32, 0x7c f64, 0x7b v128) */
  finishWith(locals: readonly [number, number][]): Uint8Array {
    this.c.byte(0x0b);
    const b = new Bytes();
    b.u32(locals.length);
    for (const [n, t] of locals) { b.u32(n); b.byte(t); }
    b.bytes(this.c.view());
    return b.view().slice();
  }
}
