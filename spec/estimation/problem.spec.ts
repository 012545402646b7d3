/** Problem files: every rejection names the field, sensor, joint or link at fault. */
import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseProblem, ProblemError } from '../../src/estimation/problem.ts';
import { loadProblem } from '../../src/node/problem-file.ts';
import { buildEstimationSystem } from '../../src/estimation/setup.ts';

const base = { model: 'models/humanoid.urdf', base: 'floating', contacts: ['l_sole'] };
const parse = (o: object) => parseProblem(JSON.stringify(o), 'p.json');

describe('problem files', () => {
  it('rejects malformed files naming the item', () => {
    expect(() => parseProblem('{', 'x.json')).toThrow(/x.json:1:2: not valid JSON/);
  });

  it('a JSON syntax error gives file, line and column on one line, also where JSON.parse gives no position', () => {
    const message = (text: string): string => { try { parseProblem(text, 'syn.json'); } catch (e) { return (e as Error).message; } return 'parsed'; };
    // Node 20's "Unexpected token" errors carry no position and quote the text over several lines
    expect(message('{"base": floating}')).toBe('syn.json:1:10: not valid JSON: unexpected "floating"');
    expect(message('{\n  "model": "humanoid",\n  "sizes": [1,2,]\n}\n')).toBe('syn.json:3:17: not valid JSON: trailing comma before "]"');
    expect(message('{\n  "gravity": [0, 0, .5]\n}')).toBe('syn.json:2:21: not valid JSON: unexpected ".5"');
    // where JSON.parse gives a position (an existing case: a trailing comma in an object)
    expect(message('{\n  "model": "humanoid",\n  "base": "floating",\n}\n')).toBe('syn.json:4:1: not valid JSON: trailing comma before "}"');
    expect(message('\ufeff{\n  "model": "humanoid" "base"\n}')).toBe('syn.json:2:23: not valid JSON: "," expected, found "\\"base\\""');
    expect(message('{\n  "model": "humanoid",\n  "base": "floating",\n}\n')).not.toContain('\n');
    expect(message('{"model": "a\tb"}')).toBe('syn.json:1:13: not valid JSON: Bad control character in string literal');
    expect(() => parse({ ...base, base: 'flying' })).toThrow('p.json: "base" must be "fixed" or "floating"');
    expect(() => parse({ ...base, colour: 1 })).toThrow(/unknown field "colour"/);
    expect(() => parse({ ...base, sensors: [{ name: 's', type: 'laser' }] })).toThrow(/sensor "s": unknown type "laser"/);
    expect(() => parse({ ...base, sensors: [{ name: 's', type: 'force_torque' }] })).toThrow(/sensor "s": a force_torque sensor needs "joint"/);
    expect(() => parse({ ...base, sensors: [{ name: 's', type: 'external_wrench', link: 'l_sole', components: ['fq'] }] })).toThrow(/sensor "s": unknown component "fq"/);
    expect(() => parse({ ...base, sensors: [{ name: 's', type: 'joint_torque', joints: 'all' }, { name: 's', type: 'joint_torque', joints: 'all' }] })).toThrow(/sensor "s" is defined twice/);
    expect(() => parse({ ...base, sensors: [{ name: 's', type: 'joint_torque', joints: 'all', variance: -1 }] })).toThrow(/sensor "s": "variance" must be a positive number/);
    expect(() => parse({ ...base, contacts: [{ link: 'l_sole', zero: ['fw'] }] })).toThrow(/contacts\[0\] \(link "l_sole"\): unknown wrench component "fw"/);
  });

  it('names unknown joints and links against the model', () => {
    const build = (o: object) => {
      const p = parse(o);
      return () => buildEstimationSystem(loadProblemFrom(p), p);
    };
    expect(build({ ...base, contacts: ['l_foot_x'] })).toThrow('contact "l_foot_x": link "l_foot_x" is not a link of model "humanoid"');
    expect(build({ ...base, sensors: [{ name: 'tq', type: 'joint_torque', joints: ['KNEE_X'] }] })).toThrow('sensor "tq": joint "KNEE_X" is not a joint of model "humanoid"');
    expect(build({ ...base, sensors: [{ name: 'ft', type: 'force_torque', joint: 'NOPE' }] })).toThrow(/sensor "ft": joint "NOPE" is not a joint of model/);
    expect(build({ ...base, contacts: ['l_foot', 'l_sole'] })).toThrow('contacts "l_foot" and "l_sole" are on the same body "l_foot": one unknown wrench per body; list one of them');
  });

  it('every shipped problem file loads and builds', () => {
    for (const f of readdirSync('data/problems')) {
      const { problem, model } = loadProblem(`data/problems/${f}`);
      const es = buildEstimationSystem(model, problem);
      expect(es.sys.n, f).toBeGreaterThan(0);
      // the schema names every sensor type the parser accepts
      const schema = JSON.parse(readFileSync('schemas/problem.schema.json', 'utf8'));
      for (const s of problem.sensors) expect(schema.$defs.sensor.properties.type.enum).toContain(s.type);
    }
  });

  it('ProblemError is the error class', () => {
    expect(() => parse({})).toThrow(ProblemError);
  });
});

import { modelForProblem } from '../../src/node/problem-file.ts';
import type { ProblemFile } from '../../src/estimation/problem.ts';
function loadProblemFrom(p: ProblemFile) {
  return modelForProblem(p, '.');
}
