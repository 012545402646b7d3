/**
 * `sparsedyn urdf --model SPEC [--out FILE]`: write a generated model (chain, random tree,
 * humanoid) as a URDF file, or a URDF file again in normalised form (src/model/urdf-writer.ts).
 */
import type { Command } from 'commander';
import { MODEL_SPEC_HELP, resolveModelSpec } from '../../model/spec.ts';
import { urdfFromSpec, UrdfWriteError } from '../../model/urdf-writer.ts';
import { buildUrdf } from '../../model/urdf.ts';
import { readUrdf } from '../../node/urdf-file.ts';
import { printNote, reportModelWarnings, writeFileAtomic } from '../output.ts';
import type { CliState } from '../state.ts';

interface UrdfCliOptions { model: string; out?: string }

export function register(program: Command, state: CliState): void {
  program
    .command('urdf')
    .description('write a model as a URDF file: a generated one (chain:N, tree:N:SEED:joints=urdf, humanoid) or a URDF normalised')
    .requiredOption('-m, --model <spec>', 'model SPEC (the +floating / +fixed suffix is not part of a URDF: give it again when loading)')
    .option('-o, --out <file.urdf>', 'file to write (default: standard output)')
    .addHelpText('after', `\nSpherical and helical joints have no URDF type: a random tree (tree:N:SEED) has them from N = 5 on, and is refused;\ntree:N:SEED:joints=urdf draws a tree of revolute and prismatic joints only.\n\n${MODEL_SPEC_HELP}\n`)
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
      if (r.kind === 'generated') {
        // joints URDF has no type for: named, with the spec that avoids them
        const odd = r.spec.joints.filter((j) => j.type === 'spherical' || j.type === 'helical');
        if (odd.length) {
          const kinds = [...new Set(odd.map((j) => j.type))].sort().join(' or ');
          const body = opts.model.trim().replace(/\+(floating|fixed)$/, '');
          throw new UrdfWriteError(`${opts.model}: URDF has no ${kinds} joint, and this model has ${odd.length === 1 ? 'one' : odd.length} (${odd.slice(0, 4).map((j) => `"${j.name}" ${j.type}`).join(', ')}${odd.length > 4 ? ', …' : ''})`
            + `${body.startsWith('tree:') ? `; ${body}:joints=urdf is a random tree of revolute and prismatic joints only, which URDF can hold` : ''}`);
        }
      }
      const text = urdfFromSpec(spec, { comment: `written by sparsedyn urdf from the model ${opts.model.replace(/\+(floating|fixed)$/, '')}` });
      if (opts.out === undefined || opts.out === '-') {
        process.stdout.write(text);
      } else {
        writeFileAtomic(opts.out, text);
        process.stderr.write(`wrote ${opts.out}: model "${spec.name}", ${spec.links.length} links, ${spec.joints.length} joints\n`);
      }
      state.exitCode = 0;
    });
}
