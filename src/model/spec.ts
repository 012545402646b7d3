/**
 * Model SPEC strings for the command line and scripts → Model. Source: this project's CLI
 * convention (documented in MODEL_SPEC_HELP below); generators.ts does the work. A URDF path is
 * handed to `opts.loadUrdf` (the file reader lives at the Node edge: src/node/spec.ts), so this
 * file runs unchanged in a browser.
 *
 *   PATH.urdf                 a URDF file (fixed base: the root link welded to the world)
 *   chain:N                   serial chain of N links, joint axes cycled x, y, z
 *   chain:N:axes=A            A = cycle | x | y | z | random  (random also takes :seed=S, default 1)
 *   chain:N:length=L:mass=M   other chain options (radius=R, seed=S, type=revolute|prismatic)
 *   tree:N:SEED               random tree of N bodies with a mix of joint types (branching=P optional;
 *                             joints=urdf: revolute and prismatic joints only, the kinds a URDF file can hold)
 *   humanoid                  29-joint humanoid, floating pelvis
 *
 * Any SPEC may end in `+floating` (6-DoF floating base on the root link) or `+fixed` (root welded
 * to the world); the default is fixed except for `humanoid`. Examples: `models/humanoid.urdf+floating`,
 * `chain:12:axes=z`, `tree:40:7+floating`, `humanoid+fixed`.
 */
import { clipMessage } from './warnings.ts';
import type { Model } from './model.ts';
import { buildModel, type ModelSpec } from './build.ts';
import { chainSpec, humanoidSpec, randomTreeSpec, type ChainAxes, type GeneratorOptions } from './generators.ts';
import type { UrdfBuildOptions, UrdfParseOptions } from './urdf.ts';

/** The model SPEC syntax, as the command line's help prints it. */
export const MODEL_SPEC_HELP = `model SPEC: a URDF file (PATH.urdf), chain:N[:axes=cycle|x|y|z|random][:seed=S][:length=L][:mass=M][:radius=R],
tree:N:SEED[:branching=P][:joints=urdf] (urdf: only the joint kinds a URDF file can hold, no spherical or helical),
or humanoid; append +floating for a 6-DoF floating base or +fixed to weld the root
(default: fixed, except humanoid which floats). Examples: models/humanoid.urdf+floating, chain:12:axes=z, tree:40:7+floating`;

/** A model SPEC string that cannot be understood; the message quotes it. */
export class ModelSpecError extends Error {
  override name = 'ModelSpecError';
  constructor(message: string) { super(clipMessage(message)); }
}

/**
 * Options of `modelFromSpec`: the generator and build options, and the URDF loader for PATH.urdf
 * specs.
 */
export interface ModelSpecOptions extends GeneratorOptions {
  /**
   * builds the Model of a URDF path (PATH.urdf specs): on Node, src/node/spec.ts passes a file
   * reader; in a browser, pass one that looks the text up (e.g. `modelFromUrdf(texts[path], o)`)
   */
  loadUrdf?: (path: string, opts: UrdfParseOptions & UrdfBuildOptions) => Model;
}

/**
 * The most bodies a generator spec (chain:N, tree:N:SEED) may ask for, refused before anything is
 * built. Building costs about 7.4 kB and 30 µs per body (measured: chain:100000, 0.74 GB, 2.8 s),
 * and a command using the model several times that; a million bodies took 6.7 GB and 2 minutes
 * to build alone.
 */
export const MAX_GENERATED_BODIES = 100_000;

function positiveInt(spec: string, what: string, s: string | undefined): number {
  if (s === undefined || !/^\d+$/.test(s) || Number(s) < 1) {
    throw new ModelSpecError(`model spec "${spec}": ${what} must be a positive integer, got ${s === undefined ? 'nothing' : `"${s}"`}`);
  }
  return Number(s);
}

/** positiveInt for a number of bodies, at most MAX_GENERATED_BODIES. */
function bodyCount(spec: string, what: string, s: string | undefined): number {
  const n = positiveInt(spec, what, s);
  if (n > MAX_GENERATED_BODIES) {
    throw new ModelSpecError(`model spec "${spec}": ${what} asks for ${n.toLocaleString('en-US')} bodies; sparsedyn builds at most ${MAX_GENERATED_BODIES.toLocaleString('en-US')} (about 7.4 kB per body to build, several times that to use)`);
  }
  return n;
}

function integer(spec: string, what: string, s: string | undefined): number {
  if (s === undefined || !/^[+-]?\d+$/.test(s)) {
    throw new ModelSpecError(`model spec "${spec}": ${what} must be an integer, got ${s === undefined ? 'nothing' : `"${s}"`}`);
  }
  return Number(s);
}

function positiveNumber(spec: string, what: string, s: string): number {
  const x = Number(s);
  if (s.trim() === '' || !(x > 0) || !Number.isFinite(x)) throw new ModelSpecError(`model spec "${spec}": ${what} must be a positive number, got "${s}"`);
  return x;
}

/** key=value options after the positional fields; unknown keys are errors naming the key. */
function keyValues(spec: string, parts: string[], allowed: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const p of parts) {
    const eq = p.indexOf('=');
    const key = eq < 0 ? p : p.slice(0, eq);
    if (eq < 0 || !allowed.includes(key)) {
      throw new ModelSpecError(`model spec "${spec}": unknown option "${p}" (expected ${allowed.map((k) => `${k}=…`).join(', ')})`);
    }
    out.set(key, p.slice(eq + 1));
  }
  return out;
}

/** A model SPEC resolved: a generated description with its build options, or a URDF path. */
export type ResolvedModelSpec =
  | { kind: 'generated'; spec: ModelSpec; build: GeneratorOptions }
  | { kind: 'urdf'; path: string; build: GeneratorOptions };

/**
 * Parse a model SPEC (see the file header) without building it: the generator's ModelSpec (what
 * `sparsedyn urdf` writes out) or the URDF path, with the base and the other build options.
 */
export function resolveModelSpec(spec: string, opts: GeneratorOptions = {}): ResolvedModelSpec {
  let body = spec.trim();
  let base: boolean | undefined;
  const suffix = /\+(floating|fixed)$/.exec(body);
  if (suffix) {
    base = suffix[1] === 'floating';
    body = body.slice(0, suffix.index);
  }
  if (body === '') throw new ModelSpecError(`model spec "${spec}" is empty`);
  const parts = body.split(':');
  const build = { ...opts, floatingBase: base ?? opts.floatingBase };
  switch (parts[0]) {
    case 'chain': {
      const n = bodyCount(spec, 'chain:N', parts[1]);
      const kv = keyValues(spec, parts.slice(2), ['axes', 'seed', 'length', 'mass', 'radius', 'type']);
      const axes = kv.get('axes') ?? 'cycle';
      if (!['cycle', 'x', 'y', 'z', 'random'].includes(axes)) {
        throw new ModelSpecError(`model spec "${spec}": axes must be cycle, x, y, z or random, got "${axes}"`);
      }
      const type = kv.get('type') ?? 'revolute';
      if (type !== 'revolute' && type !== 'prismatic') {
        throw new ModelSpecError(`model spec "${spec}": type must be revolute or prismatic, got "${type}"`);
      }
      const num = (k: string) => (kv.has(k) ? positiveNumber(spec, k, kv.get(k)!) : undefined);
      const chainOpts = {
        axes: axes as ChainAxes,
        seed: kv.has('seed') ? integer(spec, 'seed', kv.get('seed')) : undefined,
        length: num('length'),
        mass: num('mass'),
        radius: num('radius'),
        jointType: type as 'revolute' | 'prismatic',
      };
      return { kind: 'generated', spec: chainSpec(n, chainOpts), build };
    }
    case 'tree': {
      const n = bodyCount(spec, 'tree:N', parts[1]);
      const seed = integer(spec, 'tree:N:SEED', parts[2]);
      const kv = keyValues(spec, parts.slice(3), ['branching', 'joints']);
      let branching: number | undefined;
      if (kv.has('branching')) {
        branching = Number(kv.get('branching'));
        if (!(branching >= 0 && branching <= 1)) throw new ModelSpecError(`model spec "${spec}": branching must be in [0, 1], got "${kv.get('branching')}"`);
      }
      const joints = kv.get('joints') ?? 'all';
      if (joints !== 'all' && joints !== 'urdf') throw new ModelSpecError(`model spec "${spec}": joints must be all or urdf (revolute and prismatic joints only), got "${joints}"`);
      if (joints === 'all') return { kind: 'generated', spec: randomTreeSpec(n, seed, { branching }), build };
      // the kinds a URDF file can hold: no spherical or helical joint (planar has weight 0 already)
      const tree = randomTreeSpec(n, seed, { branching, mix: { spherical: 0, helical: 0 } });
      return { kind: 'generated', spec: { ...tree, name: `${tree.name}:joints=urdf` }, build };
    }
    case 'humanoid':
      if (parts.length > 1) throw new ModelSpecError(`model spec "${spec}": humanoid takes no options`);
      return { kind: 'generated', spec: humanoidSpec(), build: { ...build, floatingBase: base ?? opts.floatingBase ?? true } };
    default:
      if (!/\.urdf$/i.test(body)) {
        throw new ModelSpecError(`model spec "${spec}" is neither a .urdf file nor chain:N, tree:N:SEED or humanoid`);
      }
      return { kind: 'urdf', path: body, build };
  }
}

/**
 * Resolve a model SPEC (see the file header) into a Model. Throws ModelSpecError, or UrdfError for
 * URDF files (which need `opts.loadUrdf`).
 */
export function modelFromSpec(spec: string, opts: ModelSpecOptions = {}): Model {
  const { loadUrdf, ...rest } = opts;
  const r = resolveModelSpec(spec, rest);
  if (r.kind === 'generated') return buildModel(r.build.gravity ? { ...r.spec, gravity: r.build.gravity } : r.spec, r.build);
  if (!loadUrdf) throw new ModelSpecError(`model spec "${spec}": a URDF file needs a loader here (on Node, use parseModelSpec from the node entry; elsewhere, parse the text with modelFromUrdf)`);
  return loadUrdf(r.path, r.build);
}
