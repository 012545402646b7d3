/** Study configuration files: defaults, expansion, path resolution, and errors that name the field. */
import { describe, expect, it } from 'vitest';
import { expandModels, parseStudyConfig, resolveModelSpec, StudyConfigError, studyModelFiles } from '../../src/study/config.ts';

const base = { name: 'x', models: ['chain:3'], problems: ['id'], solvers: ['rnea'] };
const parse = (o: object) => parseStudyConfig(JSON.stringify(o), 'cfg.json', '/base');

describe('study configuration', () => {
  it('fills defaults and expands lu:* into auto and every ordering', () => {
    const c = parse({ ...base, solvers: ['rnea', 'lu:*', 'lu', 'dense'] });
    expect(c.title).toBe('x');
    expect(c.timing).toEqual({ enabled: true, rounds: 9, minMs: 2, warmupMs: 400, maxNb: Infinity, maxCallMs: 250, finiteDifferences: false });
    expect(c.dense.maxRunOrder).toBe(400);
    expect(c.solvers[0]).toBe('rnea');
    expect(c.solvers).toContain('lu:auto');
    expect(c.solvers).toContain('lu:colamd-rows');
    expect(c.solvers.filter((s) => s === 'lu:auto')).toHaveLength(1);
    expect(c.problems[0]).toEqual({ problem: 'inverse-dynamics', maxNb: Infinity });
  });

  it('expands {N} and resolves URDF paths against the configuration folder', () => {
    const c = parse({ ...base, models: [{ spec: 'chain:{N}:axes=z', N: [2, 5], label: 'planar' }, 'robots/a.urdf+floating', 'humanoid'] });
    expect(expandModels(c.models[0])).toEqual([{ spec: 'chain:2:axes=z', N: 2 }, { spec: 'chain:5:axes=z', N: 5 }]);
    expect(c.models[1].spec).toBe('/base/robots/a.urdf+floating');
    expect(c.models[1].label).toBe('robots/a.urdf+floating');
    expect(c.models[2].spec).toBe('humanoid');
    expect(resolveModelSpec('/abs/r.urdf', '/base')).toBe('/abs/r.urdf');
  });

  it('lists the URDF files a study reads (models and spy model, each once, without the base suffix)', () => {
    const c = parse({ ...base, models: ['chain:3', 'robots/a.urdf+floating', 'robots/a.urdf', 'humanoid'], spy: { model: 'robots/b.URDF+fixed', problem: 'fd' } });
    expect(studyModelFiles(c)).toEqual(['/base/robots/a.urdf', '/base/robots/b.URDF']);
    expect(studyModelFiles(parse(base))).toEqual([]);
  });

  const bad: [string, object, RegExp][] = [
    ['an unknown field', { ...base, sovlers: [] }, /cfg\.json: field "sovlers" is not a study field/],
    ['a name with a slash', { ...base, name: 'a/b' }, /name must be a file-name-safe identifier/],
    ['a bad N', { ...base, models: [{ spec: 'chain:{N}', N: [3, 0] }] }, /models\[0\]\.N\[1\] must be a positive integer, got 0/],
    ['N without {N}', { ...base, models: [{ spec: 'chain:3', N: [3] }] }, /models\[0\]\.spec must contain \{N\}/],
    ['{N} without N', { ...base, models: [{ spec: 'chain:{N}' }] }, /models\[0\]\.N is missing/],
    ['an unknown problem', { ...base, problems: ['id', 'kinetics'] }, /problems\[1\] "kinetics" is not a problem/],
    ['an estimation problem without a file', { ...base, problems: ['estimation'] }, /problems\[0\] an estimation problem needs a file/],
    ['a file on a dynamics problem', { ...base, problems: [{ problem: 'fd', file: 'x.json' }] }, /problems\[0\]\.file only an estimation problem takes a file/],
    ['an unknown solver', { ...base, solvers: ['rnea', 'cholesky'] }, /solvers\[1\] "cholesky" is not a solver/],
    ['an unknown ordering', { ...base, solvers: ['lu:metis'] }, /solvers\[0\] "lu:metis": unknown ordering "metis"/],
    ['a solver for none of the problems', { ...base, solvers: ['rnea', 'aba'] }, /solvers "aba" solves none of the problems listed \(inverse-dynamics\)/],
    ['a bad timing field', { ...base, timing: { rounds: 2.5 } }, /timing\.rounds must be a positive integer, got 2\.5/],
    ['an unknown timing field', { ...base, timing: { repeat: 3 } }, /timing\.repeat is not a timing field/],
    ['a negative timing.warmupMs', { ...base, timing: { warmupMs: -1 } }, /timing\.warmupMs must be a number ≥ 0, got -1/],
    ['a non-boolean timing.finiteDifferences', { ...base, timing: { finiteDifferences: 'yes' } }, /timing\.finiteDifferences must be true or false, got "yes"/],
    ['a derivative solver without a derivative problem', { ...base, solvers: ['rnea', 'recursive'] }, /solvers "recursive" solves none of the problems listed \(inverse-dynamics\)/],
    ['the dense LU on derivatives only', { ...base, problems: ['id-derivatives'], solvers: ['recursive', 'dense'] }, /solvers "dense" solves none of the problems listed \(id-derivatives\)/],
    ['a bad paper figure', { ...base, paper: { figure: 3, csv: 'a.csv', model: 'chain:3' } }, /paper\.figure must be 1 or 2/],
    ['a paper model that is no label', { ...base, paper: { figure: 1, csv: 'a.csv', model: 'planar' } }, /paper\.model "planar" is not the label of any models\[\] entry/],
    ['a spy ordering that does not exist', { ...base, spy: { model: 'chain:3', problem: 'fd', ordering: 'metis' } }, /spy\.ordering "metis" is not an ordering/],
  ];
  for (const [what, cfg, msg] of bad) {
    it(`names ${what}`, () => {
      expect(() => parse(cfg)).toThrow(StudyConfigError);
      expect(() => parse(cfg)).toThrow(msg);
    });
  }

  it('names invalid JSON', () => {
    expect(() => parseStudyConfig('{ "name": ', 'broken.json', '/')).toThrow('broken.json:1:11: not valid JSON: a value expected, found the end of the file');
    expect(() => parseStudyConfig('{\n  "models": [chain]\n}', 'token.json', '/')).toThrow('token.json:2:14: not valid JSON: unexpected "chain"');
  });
});
