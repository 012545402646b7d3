/**
 * s = inversePowerOfTwo(x): s = 2^−e for the largest power of two 2^e ≤ |x| (1 for 0, subnormal,
 * non-finite or extreme x): the row factors of the LU's row scaling, which change no rounding.
 * Source: IEEE 754 binary64 layout (the biased exponent in bits 52–62).
 */

/** scratch for reading a double's exponent (module-level: no allocation per call) */
const BITS = new DataView(new ArrayBuffer(8));

/** 2^−e for the largest power of two 2^e ≤ |x|; 1 for 0, subnormal, non-finite or extreme x. */
export function inversePowerOfTwo(x: number): number {
  BITS.setFloat64(0, x);
  const e = (BITS.getUint32(0) >>> 20) & 0x7ff; // biased exponent
  if (e <= 1 || e >= 2045) return 1;
  BITS.setUint32(0, (2046 - e) << 20);
  BITS.setUint32(4, 0);
  return BITS.getFloat64(0);
}
