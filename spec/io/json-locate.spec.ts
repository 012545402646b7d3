/**
 * The strict JSON error locator (src/text/json-locate.ts) against jsonc-parser, whose scanner and
 * descent it follows: the same first error (kind, offset, length) on thousands of broken texts made
 * by seeded random edits of real problem files (characters deleted, inserted, replaced; the text cut
 * short), and no error on valid JSON. jsonc-parser stays a development dependency for this check.
 */
import { readFileSync } from 'node:fs';
import { parse as jsoncParse, type ParseError as JsoncError } from 'jsonc-parser';
import { describe, expect, it } from 'vitest';
import { parse, type ParseError } from '../../src/text/json-locate.ts';
import { Rng } from '../../src/model/rng.ts';

const first = <E extends { offset: number }>(errors: E[]): E | null => (errors.length ? errors.reduce((a, b) => (b.offset < a.offset ? b : a)) : null);

function ours(text: string): ParseError | null {
  const errors: ParseError[] = [];
  parse(text, errors, { allowTrailingComma: false, disallowComments: true, allowEmptyContent: false });
  return first(errors);
}

function theirs(text: string): JsoncError | null {
  const errors: JsoncError[] = [];
  jsoncParse(text, errors, { allowTrailingComma: false, disallowComments: true, allowEmptyContent: false });
  const e = first(errors);
  return e && { error: e.error, offset: e.offset, length: e.length };
}

const SOURCES = ['data/problems/humanoid-demo.json', 'data/problems/humanoid-walk.json', 'schemas/problem.schema.json'].map((f) => readFileSync(f, 'utf8'));
/** characters that make JSON go wrong in different ways */
const NOISE = ['{', '}', '[', ']', ',', ':', '"', '\\', '/', '*', '-', '+', '.', 'e', 'E', '0', '7', 't', 'n', 'u', 'x', ' ', '\n', '\r', '\t', '\u0001', '\u00a0', '//', '/*', '\\u12', 'tru', 'null', '1e', '-.', '0.'];

describe('the strict JSON error locator', () => {
  it('finds no error in valid JSON', () => {
    for (const s of [...SOURCES, '0', '-1.5e+3', '"a\\u00e9\\n"', '[]', '{}', ' [1, {"a": [null, true, false]}] ']) expect(ours(s)).toBeNull();
  });

  it('finds jsonc-parser\'s first error (kind, offset, length) in 6,000 randomly broken texts', () => {
    const rng = new Rng(2024);
    let broken = 0;
    for (let trial = 0; trial < 6000; trial++) {
      const src = SOURCES[trial % SOURCES.length];
      // a piece of the file, then one to three edits
      const a = rng.int(Math.max(1, src.length - 400)), piece = trial % 7 === 0 ? src : src.slice(a, a + 20 + rng.int(380));
      let text = piece;
      for (let k = 1 + rng.int(3); k > 0; k--) {
        const at = rng.int(text.length + 1);
        const what = rng.int(4);
        if (what === 0) text = text.slice(0, at) + text.slice(at + 1 + rng.int(3));
        else if (what === 1) text = text.slice(0, at) + NOISE[rng.int(NOISE.length)] + text.slice(at);
        else if (what === 2) text = text.slice(0, at) + NOISE[rng.int(NOISE.length)] + text.slice(at + 1);
        else text = text.slice(0, at);
      }
      const want = theirs(text);
      if (want) broken++;
      expect(ours(text), JSON.stringify(text)).toEqual(want);
    }
    expect(broken).toBeGreaterThan(5000);
  });
});
