/** Runs the command line in-process through main(), capturing stdout, stderr and the exit code. */
import { vi } from 'vitest';
import { main } from '../../src/cli/main.ts';

export async function runCli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '', err = '';
  const o = vi.spyOn(process.stdout, 'write').mockImplementation((s: string | Uint8Array) => { out += String(s); return true; });
  const e = vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => { err += String(s); return true; });
  try {
    return { code: await main(['node', 'sparsedyn', ...args]), out, err };
  } finally {
    o.mockRestore(); e.mockRestore();
  }
}
