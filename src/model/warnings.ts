import { clipMessage } from '../text/clip.ts';

/**
 * Warnings carried by a model: what was odd in its description but could be handled (an ignored
 * `<mimic>`, a placeholder inertia, a massless moving body, …). Each names the element in the
 * user's words, with the file and line when the model came from a file. Commands print them once
 * on stderr and carry them in their JSON output.
 */
export interface ModelWarning {
  /** stable, machine-readable kind, e.g. `mimic-ignored` */
  readonly code: string;
  /** the element as the user wrote it, e.g. `joint "knee"`, `link "base"` */
  readonly element?: string;
  /** file the model was read from, when known */
  readonly file?: string;
  /** 1-based line of the element in that file, when known */
  readonly line?: number;
  /** one sentence, prefixed with `file:line: ` when known */
  readonly message: string;
}

/** "file:line: ", "file: ", "line N: " or "" */
export function formatLocation(file: string | undefined, line: number | undefined): string {
  if (file !== undefined) return `${file}${line !== undefined ? `:${line}` : ''}: `;
  return line !== undefined ? `line ${line}: ` : '';
}

/** A warning whose message is `detail` prefixed by its location (and the element unless the detail names it). */
export function modelWarning(code: string, detail: string, where: { element?: string; file?: string; line?: number } = {}): ModelWarning {
  const named = where.element === undefined || detail.includes(where.element);
  // clipped as every error is: names are any text, and a name of thousands of characters is not repeated whole
  const message = clipMessage(`${formatLocation(where.file, where.line)}${named ? '' : `${where.element}: `}${detail}`);
  return { code, ...where, message };
}

/** What a warning code means to the user: when it is given, what it costs, what to do. */
export interface WarningKind {
  when: string;
  cost: string;
  fix: string;
}

const HARMLESS_INERTIA: WarningKind = {
  when: 'a link\'s `<inertial>` is not physically valid (a placeholder such as six entries of 1e-6, a single non-zero moment, mass 0 with a tensor — pybullet\'s static base —, CAD moments breaking λ₁ + λ₂ ≥ λ₃), but it does not matter: the link is the welded root, or its moving body is valid once merged',
  cost: 'nothing: the message says why it is harmless',
  fix: 'nothing needed; correct the link\'s `<inertial>` to silence it',
};
const INVALID_BODY: WarningKind = {
  when: 'a moving body, fixed links merged in, has an inertia no real object has; the message names the links it came from',
  cost: 'the dynamics are computed with it as written, as Pinocchio does: correct for the file, not for any real robot',
  fix: 'give the links real inertial values (from CAD or identification)',
};

/**
 * Every warning code a model can carry (the guide's page of warnings is generated from this list;
 * a test checks that every code the loaders give is here).
 */
export const MODEL_WARNINGS: Readonly<Record<string, WarningKind>> = {
  'link-mass-zero': HARMLESS_INERTIA,
  'link-mass-negative': HARMLESS_INERTIA,
  'link-inertia-not-positive-definite': HARMLESS_INERTIA,
  'link-inertia-triangle-inequality': HARMLESS_INERTIA,
  'body-mass-zero': INVALID_BODY,
  'body-mass-negative': INVALID_BODY,
  'body-inertia-not-positive-definite': INVALID_BODY,
  'body-inertia-triangle-inequality': INVALID_BODY,
  'singular-articulated-inertia': {
    when: 'some motion of a joint moves no mass (massless links: no `<inertial>`, or mass 0), found by the articulated inertias at two random configurations, so M is singular; one warning names every such body',
    cost: 'forward dynamics (ABA, the sparse LU), M⁻¹ and M⁻¹B refuse the model, naming the first body; inverse dynamics, CRBA\'s M, `flops`, `spy` and the offline analysis work (`flops` counts on the same structure and says what it could not compute)',
    fix: 'give the named links a mass and inertia, or merge them into their parent with a fixed joint',
  },
  'mimic-ignored': {
    when: 'a `<mimic>` joint',
    cost: 'the joint is modelled as an independent DoF',
    fix: 'log the mimic joint\'s position as any other joint\'s',
  },
  'loop-joint-ignored': {
    when: 'Drake\'s `<loop_joint>`',
    cost: 'the loop stays open: its closure constraint is not enforced',
    fix: 'model the closing link\'s force as a contact with an unknown wrench, or accept the open loop',
  },
  'planar-axis-missing': {
    when: 'a planar joint without `<axis>` (it moves in the xy plane, as in Pinocchio)',
    cost: 'nothing',
    fix: 'add `<axis xyz="0 0 1"/>` to say so',
  },
  'planar-axis-not-z': {
    when: 'a planar joint with an axis other than +z (it moves in the plane normal to it, as the URDF specification says; Pinocchio ignores the axis)',
    cost: 'answers differ from Pinocchio\'s for that joint',
    fix: 'nothing, if the URDF specification\'s meaning is the one intended',
  },
  'duplicate-element': {
    when: 'a repeated element where one is expected (two `<origin>`)',
    cost: 'the first is used, as urdfdom does',
    fix: 'remove the extra element',
  },
  'joint-limit-missing': {
    when: 'a revolute or prismatic joint without `<limit>`, which urdfdom (and so Pinocchio) refuses',
    cost: 'nothing: the dynamics never read limits (the plausibility checks of `estimate` have none for that joint)',
    fix: 'add `<limit lower upper effort velocity>` from the data sheet',
  },
  'xml-declaration-not-first': {
    when: 'a blank line before `<?xml …?>`',
    cost: 'nothing',
    fix: 'remove the blank line',
  },
  'robot-name-empty': {
    when: '`<robot name="">`',
    cost: 'nothing (the model is named after the file)',
    fix: 'name the robot',
  },
};

export { clipMessage, MESSAGE_LIMIT } from '../text/clip.ts';
