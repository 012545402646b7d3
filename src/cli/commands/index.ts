/**
 * The list of sub-commands. Each command module exports `register(program, state)`; a command
 * sets `state.exitCode` rather than exiting the process.
 */
import type { Command } from 'commander';
import type { CliState } from '../state.ts';
import { register as verify } from './verify.ts';
import { register as analyze } from './analyze.ts';
import { register as estimate } from './estimate.ts';
import { register as lu } from './lu.ts';
import { register as flops } from './flops.ts';
import { register as minv } from './minv.ts';
import { register as iwim } from './iwim.ts';
import { register as derivatives } from './derivatives.ts';
import { register as spy } from './spy.ts';
import { register as study } from './study.ts';
import { register as urdf } from './urdf.ts';
import { register as playground } from './playground.ts';
import { register as model } from './model.ts';
import { register as synth } from './synth.ts';

export type { CliState } from '../state.ts';

type Registrar = (program: Command, state: CliState) => void;

const registrars: Registrar[] = [
  verify,
  analyze,
  estimate,
  lu,
  flops,
  spy,
  minv,
  iwim,
  derivatives,
  study,
  urdf,
  model,
  synth,
  playground,
];

export function registerCommands(program: Command, state: CliState): void {
  for (const register of registrars) register(program, state);
}
