/**
 * The input matrix B of Krög et al. (2024) (eq. 1, §4: B = [J_aᵀ  J_tᵀ]) for M q̈ + h = B u, compiled from a
 * user's description: actuated joints by name (the selection J_aᵀ: one unit generalized force per
 * DoF) and contacts by link name and offset (J_tᵀ: one column per force or torque component).
 *
 * A contact column is the generalized force Jᵀe of a unit force (or torque) e at the contact point,
 * i.e. the external wrench it exerts on the body that carries the link, in that body's coordinates
 * (what RNEA/ABA/Nori's system take as f^x_i):
 *   force along the unit direction d at the point p:  w = [p × d; d];   torque along d:  w = [d; 0].
 * Frame convention of the columns (`frame`):
 *   'world' (default): components along the world axes at the contact point (Pinocchio's
 *            LOCAL_WORLD_ALIGNED), d = ᵇE_0 e_k, which depends on q;
 *   'local': components along the contact link's own axes (Pinocchio's LOCAL), constant in the body.
 * Column order: the actuated DoFs (in the given joint order, each joint's DoFs in velocity order),
 * then per contact: force contacts [fx, fy, fz]; wrench contacts [fx, fy, fz, tx, ty, tz] (force
 * first, like the floating base's τ = [force; torque]).
 */
import { JT_FLOATING } from '../model/joint.ts';
import type { Model } from '../model/model.ts';
import type { Flops } from '../spatial/flops.ts';

/** Columns of a contact input: a point force (3 columns) or a full wrench (6). */
export type ContactType = 'force' | 'wrench';
/**
 * Axes of a contact input's columns: the world axes at the contact point ('world', Pinocchio's
 * LOCAL_WORLD_ALIGNED) or the link's axes ('local').
 */
export type ContactFrame = 'world' | 'local';

/** A contact input of B (the inputs of M⁻¹B): a force or wrench applied at a point of a link. */
export interface ContactSpec {
  /** any URDF link (frame) name, merged links included */
  link: string;
  /** contact point in the link frame (default [0, 0, 0]) */
  offset?: readonly number[];
  /** 'force' (3 columns) or 'wrench' (6 columns) */
  type: ContactType;
  /** axes of the columns (default: the spec's `frame`, else 'world') */
  frame?: ContactFrame;
  /** label of the columns (default: the link name, with #2, #3 … for repeated links) */
  name?: string;
}

/**
 * The inputs u of q̈ = q̈₀ + M⁻¹B u: actuated joints, then contact forces or wrenches (what the
 * `iwim` command's inputs file holds).
 */
export interface InputSpec {
  /** actuated joints by name, or "all": every joint with a DoF except a floating base */
  actuated: readonly string[] | 'all';
  contacts?: readonly ContactSpec[];
  /** default frame of the contact columns */
  frame?: ContactFrame;
}

/** An input description that does not fit the model; the message names the joint or link. */
export class InputSpecError extends Error {
  override name = 'InputSpecError';
  constructor(message: string, readonly item: { joint?: string; link?: string } = {}) {
    super(message);
  }
}

const FORCE_NAMES = ['fx', 'fy', 'fz', 'tx', 'ty', 'tz'] as const;

/** B compiled for one model: the column layout and the constant contact geometry. */
export class InputMatrix {
  /** number of inputs (columns of B) */
  readonly m: number;
  /** one label per column: tau[joint] (…[k] for multi-DoF joints), then <contact>.fx … */
  readonly names: readonly string[];
  /** the first nJoint columns are joint DoFs */
  readonly nJoint: number;
  /** velocity index of each joint column */
  readonly dof: Int32Array;
  /** body of each joint column (owner of the DoF) and of each contact column */
  readonly body: Int32Array;
  /** number of contacts */
  readonly nc: number;
  /** per contact: body, first column, 3 or 6 columns, world-aligned axes (1) or local (0) */
  readonly cBody: Int32Array;
  readonly cCol0: Int32Array;
  readonly cCols: Int8Array;
  readonly cWorld: Uint8Array;
  /** per contact: the point p in body coordinates (3) and the link axes in body coordinates (9, axis k at 3k) */
  readonly cPoint: Float64Array;
  readonly cAxes: Float64Array;
  /** bodies whose world rotation the 'world' contacts need (ancestors included), ascending */
  readonly rotBodies: Int32Array;
  /** the constant wrenches of the 'local' contact columns (6 per column, zeros elsewhere) */
  readonly localW: Float64Array;

  constructor(readonly model: Model, spec: InputSpec) {
    const names: string[] = [];
    const dof: number[] = [], body: number[] = [];
    const seen = new Set<string>();
    const actuated = spec.actuated === 'all'
      ? model.movingJoints().filter((j) => !(j.body === 0 && model.jtype[0] === JT_FLOATING && model.floatingBase)).map((j) => j.name)
      : spec.actuated;
    if (!Array.isArray(actuated) && spec.actuated !== 'all') throw new InputSpecError('inputs: "actuated" must be a list of joint names or "all"');
    for (const jn of actuated) {
      if (typeof jn !== 'string') throw new InputSpecError(`inputs: actuated joint ${JSON.stringify(jn)} is not a joint name`);
      if (!model.hasJoint(jn)) throw new InputSpecError(`inputs: actuated joint "${jn}" is not a joint of model "${model.name}"`, { joint: jn });
      if (seen.has(jn)) throw new InputSpecError(`inputs: actuated joint "${jn}" is listed twice`, { joint: jn });
      seen.add(jn);
      const i = model.joint(jn);
      const n = model.nvi[i];
      if (n === 0) throw new InputSpecError(`inputs: actuated joint "${jn}" is a fixed joint (no degree of freedom)`, { joint: jn });
      for (let k = 0; k < n; k++) {
        names.push(n === 1 ? `tau[${jn}]` : `tau[${jn}][${k}]`);
        dof.push(model.iv[i] + k);
        body.push(i);
      }
    }
    this.nJoint = names.length;
    const contacts = spec.contacts ?? [];
    if (!Array.isArray(contacts)) throw new InputSpecError('inputs: "contacts" must be a list');
    const defFrame = spec.frame ?? 'world';
    if (defFrame !== 'world' && defFrame !== 'local') throw new InputSpecError(`inputs: frame "${String(defFrame)}" must be "world" or "local"`);
    const nc = contacts.length;
    this.nc = nc;
    this.cBody = new Int32Array(nc); this.cCol0 = new Int32Array(nc); this.cCols = new Int8Array(nc);
    this.cWorld = new Uint8Array(nc); this.cPoint = new Float64Array(3 * nc); this.cAxes = new Float64Array(9 * nc);
    const labels = new Map<string, number>();
    const needRot = new Uint8Array(model.nb);
    contacts.forEach((c, k) => {
      const link = c?.link;
      if (typeof link !== 'string') throw new InputSpecError(`inputs: contacts[${k}] has no "link" name`);
      if (!model.hasFrame(link)) throw new InputSpecError(`inputs: contact link "${link}" is not a link of model "${model.name}"`, { link });
      const f = model.frame(link);
      if (f.body < 0) throw new InputSpecError(`inputs: contact link "${link}" is welded to the fixed world: a force on it moves nothing (no degree of freedom between them)`, { link });
      if (c.type !== 'force' && c.type !== 'wrench') throw new InputSpecError(`inputs: contact on link "${link}" has type ${JSON.stringify(c.type)}, expected "force" or "wrench"`, { link });
      const frame = c.frame ?? defFrame;
      if (frame !== 'world' && frame !== 'local') throw new InputSpecError(`inputs: contact on link "${link}" has frame ${JSON.stringify(frame)}, expected "world" or "local"`, { link });
      const off = c.offset ?? [0, 0, 0];
      if (!Array.isArray(off) || off.length !== 3 || !off.every((x) => typeof x === 'number' && Number.isFinite(x))) {
        throw new InputSpecError(`inputs: contact on link "${link}" has offset ${JSON.stringify(off)}, expected [x, y, z] (finite numbers, link frame)`, { link });
      }
      let label = c.name ?? link;
      const n = (labels.get(label) ?? 0) + 1;
      labels.set(label, n);
      if (n > 1) {
        if (c.name !== undefined) throw new InputSpecError(`inputs: contact name "${label}" is used twice`, { link });
        label = `${label}#${n}`;
      }
      this.cBody[k] = f.body;
      this.cCol0[k] = names.length;
      this.cCols[k] = c.type === 'force' ? 3 : 6;
      this.cWorld[k] = frame === 'world' ? 1 : 0;
      // ᶠX_b = (E_f, r_f): p = r_f + E_fᵀ offset; link axis k in body coordinates = row k of E_f
      const X = f.X;
      for (let a = 0; a < 3; a++) {
        this.cPoint[3 * k + a] = X[9 + a] + X[a] * off[0] + X[3 + a] * off[1] + X[6 + a] * off[2];
        for (let b = 0; b < 3; b++) this.cAxes[9 * k + 3 * a + b] = X[3 * a + b];
      }
      for (let e = 0; e < this.cCols[k]; e++) { names.push(`${label}.${FORCE_NAMES[e]}`); body.push(f.body); }
      if (frame === 'world') for (let i = f.body; i >= 0; i = model.parents[i]) needRot[i] = 1;
    });
    this.m = names.length;
    this.names = Object.freeze(names);
    this.dof = Int32Array.from(dof);
    this.body = Int32Array.from(body);
    const rb: number[] = [];
    for (let i = 0; i < model.nb; i++) if (needRot[i]) rb.push(i);
    this.rotBodies = Int32Array.from(rb);
    this.localW = new Float64Array(6 * this.m);
    for (let k = 0; k < nc; k++) if (!this.cWorld[k]) writeContact(this, k, this.cAxes, 9 * k, 3, 1, this.localW);
  }
}

/** Scratch of contactWrenches: ᵇE_0 per body (9 each). */
export class ContactWorkspace {
  readonly E0: Float64Array[];
  constructor(readonly model: Model) {
    this.E0 = Array.from({ length: model.nb }, () => new Float64Array(9));
  }
}

/**
 * W[6c .. 6c+6) = the wrench of contact column c (c ≥ nJoint) on its body, body coordinates, for
 * the transforms Xup of the current q (only 'world' contacts read them). Joint columns are left
 * untouched. Allocation free; flops counted into fl.
 */
export function contactWrenches(B: InputMatrix, Xup: readonly Float64Array[], ws: ContactWorkspace, W: Float64Array, fl: Flops): Float64Array {
  const model = B.model;
  // ᵇE_0 = ᵇE_λ ᵏE_0 along the needed bodies (parents first)
  const rb = B.rotBodies;
  for (let k = 0; k < rb.length; k++) {
    const i = rb[k], p = model.parents[i];
    const E = ws.E0[i], X = Xup[i];
    if (p < 0) {
      for (let t = 0; t < 9; t++) E[t] = X[t];
      continue;
    }
    const P = ws.E0[p];
    for (let a = 0; a < 3; a++) {
      const x0 = X[3 * a], x1 = X[3 * a + 1], x2 = X[3 * a + 2];
      E[3 * a] = x0 * P[0] + x1 * P[3] + x2 * P[6];
      E[3 * a + 1] = x0 * P[1] + x1 * P[4] + x2 * P[7];
      E[3 * a + 2] = x0 * P[2] + x1 * P[5] + x2 * P[8];
    }
    fl.mul += 27; fl.add += 18;
  }
  for (let k = 0; k < B.nc; k++) {
    if (B.cWorld[k]) {
      // world axis e in body coordinates: column e of ᵇE_0
      writeContact(B, k, ws.E0[B.cBody[k]], 0, 1, 3, W);
      fl.mul += 18; fl.add += 9;
    } else {
      const o = 6 * B.cCol0[k];
      for (let t = o; t < o + 6 * B.cCols[k]; t++) W[t] = B.localW[t];
    }
  }
  return W;
}

/**
 * The wrenches of contact k's columns into W: force along d_e at p: [p × d_e; d_e]; torque along
 * d_e: [d_e; 0], with d_e = (A[o + e·se], A[o + e·se + sc], A[o + e·se + 2sc]) in body coordinates.
 * 18 mul, 9 add (the caller counts them).
 */
function writeContact(B: InputMatrix, k: number, A: Float64Array, o: number, se: number, sc: number, W: Float64Array): void {
  const p0 = B.cPoint[3 * k], p1 = B.cPoint[3 * k + 1], p2 = B.cPoint[3 * k + 2];
  const c0 = B.cCol0[k];
  for (let e = 0; e < 3; e++) {
    const d0 = A[o + e * se], d1 = A[o + e * se + sc], d2 = A[o + e * se + 2 * sc];
    const w = 6 * (c0 + e);
    W[w] = p1 * d2 - p2 * d1; W[w + 1] = p2 * d0 - p0 * d2; W[w + 2] = p0 * d1 - p1 * d0;
    W[w + 3] = d0; W[w + 4] = d1; W[w + 5] = d2;
    if (B.cCols[k] === 6) {
      const t = 6 * (c0 + 3 + e);
      W[t] = d0; W[t + 1] = d1; W[t + 2] = d2; W[t + 3] = 0; W[t + 4] = 0; W[t + 5] = 0;
    }
  }
}
