/**
 * `sparsedyn urdf --model SPEC [--out FILE]`: write a generated model (chain, random tree,
 * humanoid) as a URDF file, or a URDF file again in normalised form (src/model/urdf-writer.ts).
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Command } from 'commander';
import { MODEL_SPEC_HELP, resolveModelSpec } from '../../model/spec.ts';
import { urdfFromSpec } from '../../model/urdf-writer.ts';
import { buildUrdf } from '../../model/urdf.ts';
import { readUrdf } from '../../node/urdf-file.ts';
import { printNote, reportModelWarnings } from '../output.ts';
import type { CliState } from './index.ts';

interface UrdfCliOptions { model: string; out?: string }

export function register(program: Command, state: CliState): void {
  program
    .command('urdf')
    .description('write a model as a URDF file: a generated one (chain:N, tree:N:SEED, humanoid) or a URDF normalised')
    .requiredOption('-m, --model <spec>', 'model SPEC (the +floating / +fixed suffix is not part of a URDF: give it again when loading)')
    .option('-o, --out <file.urdf>', 'file to write (default: standard output)')
    .addHelpText('after', `\nSpherical and helical joints (random trees) have no URDF type: such models are refused.\n\n${MODEL_SPEC_HELP}\n`)
    .action((opts: UrdfCliOptions) => {
      const r = resolveModelSpec(opts.model);
      const urdf = r.kind === 'generated' ? null : readUrdf(r.path);
      const spec = r.kind === 'generated' ? r.spec : urdf!;
      if (urdf !== null && r.kind !== 'generated') {
        // the file's warnings, as every command that loads a model prints them, and what the normalised file leaves out
        reportModelWarnings(state, buildUrdf(urdf));
        if (urdf.warnings.some((w) => w.code === 'loop-joint-ignored')) printNote(state, `note: the normalised file has no <loop_joint>: the dynamics model ignores it`);
        if (urdf.sensors.length) printNote(state, `note: the normalised file has no <sensor> or <gazebo> element (${urdf.sensors.length} in ${r.path}); visual and collision geometry is left out too`);
      }
      const text = urdfFromSpec(spec, { comment: `written by sparsedyn urdf from the model ${opts.model.replace(/\+(floating|fixed)$/, '')}` });
      if (opts.out === undefined || opts.out === '-') {
        process.stdout.write(text);
      } else {
        mkdirSync(dirname(opts.out) || '.', { recursive: true });
        const tmp = `${opts.out}.tmp-${process.pid}`;
        writeFileSync(tmp, text);
        renameSync(tmp, opts.out);
        process.stderr.write(`wrote ${opts.out}: model "${spec.name}", ${spec.links.length} links, ${spec.joints.length} joints\n`);
      }
      state.exitCode = 0;
    });
}
