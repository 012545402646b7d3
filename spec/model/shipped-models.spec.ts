/**
 * The models shipped in models/ are exactly what `sparsedyn urdf` writes from the project's own
 * generators (models/README.md gives the commands), so they can be regenerated and nothing in
 * that folder comes from another project.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli } from '../cli/run.ts';

const SHIPPED: Record<string, string> = { 'humanoid.urdf': 'humanoid', 'chain6.urdf': 'chain:6' };

describe('models/', () => {
  it('holds only the generated models', () => {
    expect(readdirSync('models').filter((f) => f !== 'README.md').sort()).toEqual(Object.keys(SHIPPED).sort());
  });

  for (const [file, spec] of Object.entries(SHIPPED)) {
    it(`${file} is what \`sparsedyn urdf --model ${spec}\` writes`, async () => {
      const { code, out } = await runCli(['urdf', '--model', spec]);
      expect(code).toBe(0);
      expect(readFileSync(`models/${file}`, 'utf8')).toBe(out);
    });
  }
});
