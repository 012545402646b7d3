import { describe, expect, it } from 'vitest';
import { JsonLines } from '../../src/text/json-lines.ts';
import { rng } from '../sparse/util.ts';

/** a number of every kind an estimate may hold, and some it should not */
function numberOf(r: () => number): number {
  const k = Math.floor(r() * 10);
  if (k === 0) return [0, -0, NaN, Infinity, -Infinity, 1e21, 1e-7, 123456789012345680000, 5e-324][Math.floor(r() * 9)];
  if (k === 1) return Math.round((r() - 0.5) * 2000);
  if (k === 2) return (r() - 0.5) * 10 ** Math.floor(r() * 40 - 20);
  return (r() - 0.5) * 200;
}

/** an estimate-like record: objects keyed by names, wrenches as arrays, strings, an optional field */
function record(r: () => number, names: string[]): Record<string, unknown> {
  const o: Record<string, unknown> = { t: r() * 100, line: Math.floor(r() * 1e6) };
  if (r() < 0.3) o.condition = r() * 20;
  o.tau = Object.fromEntries(names.map((n) => [n, numberOf(r)]));
  o.contact_wrenches = { l_sole: { torque: [numberOf(r), numberOf(r), numberOf(r)], force: [numberOf(r), numberOf(r), numberOf(r)] } };
  o.skipped = undefined;
  o.sensors = r() < 0.5 ? ['ft_l', 'imu'] : ['ft_l'];
  o.mode = r() < 0.5 ? 'double' : 'left';
  if (r() < 0.2) o.bad_data = { chi2: r() * 30, threshold: 21.6, suspect: r() < 0.5 ? null : 'ft_l', flagged: true };
  return o;
}

describe('JsonLines: JSON.stringify of a record with the numbers printed by WebAssembly', () => {
  const lines = JsonLines.create();
  it.skipIf(lines === null)('gives JSON.stringify\'s text for records of alternating shapes, unusual keys and every kind of number', () => {
    const r = rng(7);
    const names = ['l_hip', 'knee "quoted"', 'τ-joint', '10', '2', 'a\\b', 'ünï'];
    for (let i = 0; i < 3000; i++) {
      // more shapes than the templates kept: a few names dropped at random
      const some = names.filter(() => r() < 0.85);
      const o = record(r, some);
      expect(lines!.textOf([o])).toBe(JSON.stringify(o));
    }
  });

  it.skipIf(lines === null)('handles empty objects and arrays, nested arrays, booleans, nulls and undefined elements', () => {
    const cases: object[] = [
      {}, { a: {} }, { a: [] }, { m: [[1, [2, [3]]], { x: [] }] }, { a: null, b: true, c: false, d: 'x', e: [undefined, 1, null] },
      { '': 1, '\u2028': 2, '\n': -0 }, { v: [NaN, -Infinity, 0.1, -1e-7, 1e21, 9007199254740993] },
    ];
    for (const c of cases) for (let k = 0; k < 3; k++) expect(lines!.textOf([c])).toBe(JSON.stringify(c));
    // a part that is not a plain object, or a value that is not plain data, is refused
    expect(() => lines!.textOf([[1, 2]])).toThrow(TypeError);
    expect(() => lines!.textOf([{ d: new Date(0) }])).toThrow(TypeError);
  });

  it.skipIf(lines === null)('list: the numbers joined by commas as JSON.stringify prints a list', () => {
    const r = rng(11);
    for (const n of [0, 1, 2, 270, 3, 270, 9000]) {
      const v = Array.from({ length: n }, () => numberOf(r));
      expect(lines!.list(v, n)).toBe(JSON.stringify(v).slice(1, -1));
      // a longer list than asked: only the first n
      const w = [...v, 1, 2, 3];
      expect(lines!.list(w, n)).toBe(JSON.stringify(v).slice(1, -1));
    }
    // switching between lists and records keeps both right
    const o = record(r, ['a', 'b']);
    expect(lines!.textOf([o])).toBe(JSON.stringify(o));
    expect(lines!.list([1.5, -2], 2)).toBe('1.5,-2');
    expect(lines!.textOf([o])).toBe(JSON.stringify(o));
  });
});

describe('JsonLines.textOf: one object of several parts, never made', () => {
  const lines = JsonLines.create();
  it.skipIf(lines === null)('gives JSON.stringify of the spread parts, absent fields left out, shapes alternating', () => {
    const r = rng(3);
    for (let i = 0; i < 2000; i++) {
      const head = { t: r() * 10, line: i, condition: r() < 0.5 ? r() : undefined, near_singular: r() < 0.1 ? 'w[l_sole].tz' : undefined };
      const body = record(r, ['a', 'b', 'c'].filter(() => r() < 0.9));
      delete body.t; delete body.line; delete body.condition; delete body.sensors; delete body.mode; delete body.bad_data;
      const tail = { sensors: ['ft'], mode: r() < 0.5 ? 'double' : 'single', bad_data: r() < 0.1 ? { chi2: r(), threshold: 3 } : undefined };
      expect(lines!.textOf([head, body, tail])).toBe(JSON.stringify({ ...head, ...body, ...tail }));
      // records of one part, between them
      if (i % 7 === 0) expect(lines!.textOf([body])).toBe(JSON.stringify(body));
    }
  });
});
