/**
 * Why an XML text is not well formed, in words (src/model/xml-words.ts): a file cut short is said
 * to be, at its last line, with the elements it leaves open; the validator's other findings are
 * reworded at their own line; binary data is named.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { parseUrdf } from '../../src/model/urdf.ts';

const message = (text: string): string => {
  try { parseUrdf(text, { file: 'r.urdf' }); } catch (e) { return (e as Error).message; }
  return 'parsed';
};
const urdf = readFileSync('models/humanoid.urdf', 'utf8');

describe('malformed XML in words', () => {
  it('a URDF cut short anywhere is said to be, at its last line, never at line 1 or in the parser\'s words', () => {
    for (const n of [60, 300, 801, 2000, 5000, 9000, urdf.length - 12]) {
      const text = urdf.slice(0, n);
      const last = text.trimEnd().split('\n').length;
      const m = message(text);
      expect(m).toMatch(new RegExp(`^r\\.urdf:${last}: malformed XML: the file ends (inside|with) .*: it is cut short \\(an interrupted copy or download\\?\\)`));
      expect(m).not.toMatch(/Invalid '\[|found\.|have open quote|doesn't have proper closing/);
    }
  });
  it('a file of 3,000 unclosed elements on their own lines: their lines right, found in one pass (fuzz finding: 2 s for 100 kB)', () => {
    const text = `<robot name="x">\n${Array.from({ length: 3000 }, (_, k) => `${'\n'.repeat(k % 3)}<a${k}>`).join('\n')}\n<b`;
    // the reference: each element's line counted from the text as written
    const lineOf = (k: number) => text.slice(0, text.indexOf(`<a${k}>`)).split('\n').length;
    const spy = vi.spyOn(String.prototype, 'indexOf');
    const m = message(text);
    const calls = spy.mock.calls.length;
    spy.mockRestore();
    expect(m).toBe(`r.urdf:${text.split('\n').length}: malformed XML: the file ends inside a tag (<b, line ${text.split('\n').length}), with <robot> (line 1), …, <a2997> (line ${lineOf(2997)}), <a2998> (line ${lineOf(2998)}), <a2999> (line ${lineOf(2999)}) still open: it is cut short (an interrupted copy or download?)`);
    // counting each element's line from the start made ~9 million searches for a line break here
    expect(calls).toBeLessThan(100_000);
  });
  it('open elements are listed outermost first; a missing last closing tag is named', () => {
    expect(message('<robot name="x">\n<link name="a"/>\n')).toBe('r.urdf:2: malformed XML: the file ends with <robot> (line 1) still open: it is cut short (an interrupted copy or download?), or </robot> is missing');
    expect(message('<robot name="x">\n<!-- a comm')).toBe('r.urdf:2: malformed XML: the file ends inside a comment (from line 2), with <robot> (line 1) still open: it is cut short (an interrupted copy or download?)');
  });
  it('mistakes in the middle: the validator\'s finding reworded, at its line', () => {
    expect(message('<robot name="x">\n<link name="a"><visual></link>\n</robot>\n')).toBe('r.urdf:2: malformed XML: </link> comes where </visual> should close the <visual> of line 2');
    expect(message('<robot name="x">\n<link name="a" name="b"/>\n</robot>\n')).toBe('r.urdf:2: malformed XML: attribute name is given twice in one element');
    expect(message('<robot name="x">\n<link name="a"/>\n</robot>\n</link>\n')).toBe('r.urdf:4: malformed XML: </link> closes an element that is not open');
  });
  it('binary data is named as such', () => {
    expect(message('\u0000\u0001\u0002<robot')).toMatch(/^r\.urdf:1: malformed XML: the text holds bytes that are not UTF-8 text \(binary data: is it the right file\?\)/);
  });
});
