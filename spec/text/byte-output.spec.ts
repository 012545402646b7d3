/**
 * ByteOutput: strings, bytes and single bytes written one after the other from a small start are
 * the UTF-8 of the whole text (TextEncoder's, an independent encoding of the concatenated string),
 * including characters of two, three and four bytes that fall where the array must grow.
 */
import { describe, expect, it } from 'vitest';
import { ByteOutput } from '../../src/text/byte-output.ts';
import { Rng } from '../../src/model/rng.ts';

const PIECES = ['a', 'é', 'ü', '·', '€', '水', '😀', ',', '"', '\n', 'xyz'];

describe('ByteOutput', () => {
  it('writes the UTF-8 of the text, whatever the pieces and the starting size', () => {
    const rng = new Rng(3), enc = new TextEncoder();
    for (let trial = 0; trial < 200; trial++) {
      const out = new ByteOutput(1 + (trial % 7));
      let want = '';
      for (let k = 0; k < 40; k++) {
        const s = Array.from({ length: Math.floor(rng.uniform(0, 6)) }, () => PIECES[Math.floor(rng.uniform(0, PIECES.length))]).join('');
        const how = Math.floor(rng.uniform(0, 3));
        if (how === 0) out.text(s); else if (how === 1) out.bytes(enc.encode(s)); else { out.byte(0x7b); want += '{'; continue; }
        want += s;
      }
      expect(out.length).toBe(enc.encode(want).length);
      expect(out.take()).toEqual(enc.encode(want));
      expect(out.length).toBe(0);
    }
  });

  it('drops the last bytes written; the taken array is its own', () => {
    const out = new ByteOutput(2);
    out.text('{"a":1}');
    out.drop(1);
    out.text(',"b":2}');
    const a = out.take();
    out.text('zz');
    expect(new TextDecoder().decode(a)).toBe('{"a":1,"b":2}');
    expect(new TextDecoder().decode(out.take())).toBe('zz');
  });
});
