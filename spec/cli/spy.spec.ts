/** `sparsedyn spy` end to end: writes a well-formed SVG with three panels; bad arguments named. */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { runCli as run } from './run.ts';


describe('sparsedyn spy', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sparsedyn-spy-'));
  for (const problem of ['id', 'fd']) {
    it(`--problem ${problem} writes a well-formed SVG with three panels`, async () => {
      const file = join(dir, `humanoid-${problem}.svg`);
      const r = await run(['spy', '--model', 'models/humanoid.urdf+floating', '--problem', problem, '--out', file]);
      expect(r.code).toBe(0);
      expect(r.out).toMatch(new RegExp(`wrote .*humanoid-${problem}.svg: humanoid, ${problem === 'id' ? 'inverse' : 'forward'} dynamics: D is \\d+×\\d+`));
      const svg = readFileSync(file, 'utf8');
      expect(XMLValidator.validate(svg)).toBe(true);
      const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@_', isArray: (n) => n === 'g' }).parse(svg);
      expect(doc.svg.g.filter((g: Record<string, string>) => g['@_class'] === 'panel')).toHaveLength(3);
    });
  }

  it('names a bad --problem', async () => {
    const r = await run(['spy', '--model', 'chain:3', '--problem', 'hd', '--out', join(dir, 'x.svg')]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--problem must be id or fd, got "hd"/);
  });
});
