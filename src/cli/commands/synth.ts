/**
 * `sparsedyn synth PROBLEM.json [--out FILE] [--format ndjson|csv|mcap] …`: a synthetic log with
 * its truth for a problem's robot, contacts and sensors (src/estimation/synth.ts), written as the
 * logs `estimate` reads (src/io/synth-log.ts). Seeded: the same options write the same bytes.
 */
import { Option, type Command } from 'commander';
import type { ContactPhase } from '../../estimation/problem.ts';
import { SYNTH_DEFAULTS, SynthError, synthSamples, type SynthMotion } from '../../estimation/synth.ts';
import { LogRowWriter, mcapLog } from '../../io/synth-log.ts';
import { loadEstimationSystem } from '../../node/problem-file.ts';
import { checkInputFile, openDataSink, printNote, refuseOverwritingInputs, reportModelWarnings } from '../output.ts';
import type { CliState } from '../state.ts';

interface SynthCliOptions {
  out: string;
  format?: 'ndjson' | 'csv' | 'mcap';
  samples: string;
  rate: string;
  seed: string;
  noise: string;
  motion: SynthMotion;
  amplitude: string;
  schedule?: string;
  positionsOnly?: boolean;
  digits?: string;
}

/** "0:l_sole+r_sole,0.4:l_sole,0.8:none" → contact phases (times increasing). */
export function parseSchedule(text: string): ContactPhase[] {
  let last = -Infinity;
  return text.split(',').map((part) => {
    const m = /^\s*([^:]+):(.*)$/.exec(part);
    const t = m ? Number(m[1]) : NaN;
    if (!m || m[1].trim() === '' || !Number.isFinite(t)) throw new SynthError(`--schedule: "${part.trim()}" is not TIME:CONTACTS (e.g. 0:l_sole+r_sole,0.4:l_sole,0.8:none)`);
    if (!(t > last)) throw new SynthError(`--schedule: the time ${t} s must be later than the one before`);
    last = t;
    const names = m[2].trim();
    return { t, contacts: names === 'none' || names === '' ? [] : names.split('+').map((c) => c.trim()) };
  });
}

function number(text: string, what: string, integer = false): number {
  const x = Number(text);
  if (text.trim() === '' || !Number.isFinite(x) || (integer && !Number.isInteger(x))) throw new SynthError(`${what} must be ${integer ? 'an integer' : 'a number'}, got "${text}"`);
  return x;
}

export function register(program: Command, state: CliState): void {
  program
    .command('synth')
    .argument('<problem>', 'problem file (JSON, schemas/problem.schema.json): the robot, its contacts and sensors')
    .description('write a synthetic log with its truth for a problem: smooth motion inside the joint limits, the problem\'s contacts, each sensor\'s readings with noise of its variance')
    .option('-o, --out <file>', 'log to write; "-" is standard output', '-')
    .addOption(new Option('--format <format>', 'log format (default: from the --out extension .csv or .mcap, else ndjson)').choices(['ndjson', 'csv', 'mcap']))
    .option('-n, --samples <n>', 'number of samples', String(SYNTH_DEFAULTS.samples))
    .option('--rate <hz>', 'sample rate, Hz', String(SYNTH_DEFAULTS.rate))
    .option('--seed <s>', 'seed of the motion, the contact wrenches and the noise', String(SYNTH_DEFAULTS.seed))
    .option('--noise <k>', 'scale of each sensor\'s standard deviation √variance; 0 writes ideal readings', String(SYNTH_DEFAULTS.noise))
    .addOption(new Option('--motion <kind>', 'joint paths: one cubic polynomial over the log (derivatives from positions are then exact) or sinusoids').choices(['polynomial', 'sines']).default(SYNTH_DEFAULTS.motion))
    .option('--amplitude <rad>', 'largest excursion of a joint from its centre, rad (prismatic joints: a fifth of it, m); always inside the joint limits', String(SYNTH_DEFAULTS.amplitude))
    .option('--schedule <phases>', 'active contacts by time, TIME:LINK+LINK,… (e.g. 0:l_sole+r_sole,0.4:l_sole,0.8:l_sole+r_sole; "none" for no contact); default: the problem\'s contact_schedule, else every contact. The rows then name their contacts (unless the problem detects them)')
    .option('--positions-only', 'write what a robot records: t, joint positions, the base orientation and the sensors\' readings; no velocities, no joint accelerations, no base position or velocity (estimate derives them)')
    .option('--digits <n>', 'round every number to n significant digits (default: every digit, so that estimates reproduce the truth to rounding)')
    .addHelpText('after', `
What is written: per sample the time t (s, from 0 at --rate), every joint's position (rad or m) and
velocity, a floating base's position, quaternion (x y z w) and velocities (base frame), each sensor's
readings in its components' order (force/torque: tx ty tz fx fy fz, N·m and N), and "truth": the
joint torques and each contact's wrench in its link frame (torque about the link origin first).
Contacts hold the robot: with a floating base (or unactuated joints) the wrenches are those nearest
a share of the weight that leave the unactuated joints without torque. Gyroscope readings and
positions are exact (the estimator takes them as known kinematics). A ROS 2 recording (mcap) uses
the problem's "ros" topics, or default ones, printed as the "ros" section to add to the problem.

Examples:
  sparsedyn synth data/problems/humanoid-demo.json --out my-log.ndjson --noise 0
  sparsedyn synth my-arm.json --out my-arm.csv --samples 1000 --rate 500 --positions-only
`)
    .action(async (file: string, opts: SynthCliOptions) => {
      checkInputFile('problem file', file);
      const { es, model, modelFile } = loadEstimationSystem(file);
      reportModelWarnings(state, model);
      const format = opts.format ?? (/\.csv$/i.test(opts.out) ? 'csv' : /\.mcap$/i.test(opts.out) ? 'mcap' : 'ndjson');
      const schedule = opts.schedule !== undefined ? parseSchedule(opts.schedule) : undefined;
      const digits = opts.digits === undefined ? undefined : number(opts.digits, '--digits', true);
      if (digits !== undefined && !(digits >= 1 && digits <= 17)) throw new SynthError(`--digits must be from 1 to 17, got ${digits}`);
      const samples = synthSamples(es, {
        samples: number(opts.samples, '--samples', true), rate: number(opts.rate, '--rate'), seed: number(opts.seed, '--seed'),
        noise: number(opts.noise, '--noise'), motion: opts.motion, amplitude: number(opts.amplitude, '--amplitude'), schedule,
      });
      refuseOverwritingInputs([['--out', opts.out]], [['problem file', file], ['model', modelFile]]);
      const problem = es.problem;
      const rowOpts = {
        positionsOnly: opts.positionsOnly === true,
        round: digits === undefined ? undefined : (x: number) => Number(x.toPrecision(digits)),
        rowContacts: schedule !== undefined && problem.contact_detection === undefined,
        truthContacts: (schedule ?? problem.contact_schedule) !== undefined || problem.contact_detection !== undefined,
      };
      let ros: Record<string, unknown> | undefined;
      let bytes: Uint8Array | undefined;
      if (format === 'mcap') {
        try {
          ({ bytes, ros } = await mcapLog(es, samples, { positionsOnly: rowOpts.positionsOnly }));
        } catch (e) {
          if (e instanceof RangeError) throw new SynthError(e.message);
          throw e;
        }
      }
      const sink = openDataSink(opts.out);
      try {
        if (bytes) sink.write(bytes);
        else {
          const w = new LogRowWriter(es, rowOpts);
          if (format === 'csv') sink.write(`${w.csvHeader()}\n`);
          for (const s of samples) sink.write(`${format === 'csv' ? w.csv(s) : w.ndjson(s)}\n`);
        }
        sink.commit();
      } catch (e) {
        sink.abort();
        throw e;
      }
      const last = samples[samples.length - 1];
      const modes = new Set(samples.map((s) => s.contacts.join('+') || 'none'));
      printNote(state, `synth: wrote ${sink.name} (${format}): ${samples.length} samples at ${opts.rate} Hz (${last.t} s), model "${model.name}" (${model.floatingBase ? 'floating' : 'fixed'} base), seed ${opts.seed}`);
      printNote(state, `  contacts: ${es.contacts.length ? [...modes].join(', ') : 'none'}; sensors: ${es.sensors.map((s) => s.spec.name).join(', ') || 'none'}; noise: ${Number(opts.noise) === 0 ? 'none (ideal readings)' : `${opts.noise} × each sensor's standard deviation`}`);
      if (rowOpts.positionsOnly) printNote(state, '  as a robot records it: no joint velocities, no joint accelerations, no base position or velocity (estimate derives what it needs from the positions over time)');
      if (ros && problem.ros === undefined) printNote(state, `  the problem has no "ros" section: add this one to read the recording with estimate:\n  "ros": ${JSON.stringify(ros)}`);
      state.exitCode = 0;
    });
}
