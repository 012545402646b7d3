/**
 * The unknowns d of Nori's system (Nori (2017) §III-A): per body i, in this order,
 *   a_i (6)   spatial acceleration, body coordinates           named a[<link>].wx … .vz
 *   f_i (6)   wrench transmitted from λ(i) to i across joint i   named f[<joint>].tx … .fz
 *   τ_i (n_i) joint generalized force                             named tau[<joint>] (…[k] if n_i > 1)
 *   f^x_i (6) external wrench on body i, body coordinates         named fx[<link>].tx … .fz
 *   q̈_i (n_i) joint acceleration                                 named qdd[<joint>] (…[k] if n_i > 1)
 * The fixed world (body 0 in the paper) is not a variable. Columns are numbered body by body.
 */
import type { Model } from '../model/model.ts';

/** Names of the components of a spatial motion vector [ω; v], in storage order. */
export const MOTION_COMPONENTS = ['wx', 'wy', 'wz', 'vx', 'vy', 'vz'] as const;
/** Names of the components of a spatial force vector [n; f], in storage order. */
export const FORCE_COMPONENTS = ['tx', 'ty', 'tz', 'fx', 'fy', 'fz'] as const;

/** The kinds of unknowns per body: a_i, f_i, τ_i, f^x_i, q̈_i. */
export type VariableKind = 'a' | 'f' | 'tau' | 'fx' | 'qdd';
/** The kinds of unknowns in column order within a body. */
export const VARIABLE_KINDS: readonly VariableKind[] = ['a', 'f', 'tau', 'fx', 'qdd'];

/**
 * The columns of Nori's system for a model: where each body's a_i, f_i, τ_i, f^x_i, q̈_i start, and
 * a name per column (e.g. `tau[l_knee]`, `fx[l_sole].fz`).
 */
export class VariableLayout {
  /** number of unknowns */
  readonly n: number;
  /** first column of a_i, f_i, τ_i, f^x_i, q̈_i */
  readonly a: Int32Array;
  readonly f: Int32Array;
  readonly tau: Int32Array;
  readonly fx: Int32Array;
  readonly qdd: Int32Array;
  /** one name per column */
  readonly names: readonly string[];
  /** name → column, built on the first {@link VariableLayout.column} call (a large robot's layout may never need it) */
  private byName: Map<string, number> | null = null;

  constructor(readonly model: Model) {
    const nb = model.nb;
    this.a = new Int32Array(nb); this.f = new Int32Array(nb); this.tau = new Int32Array(nb);
    this.fx = new Int32Array(nb); this.qdd = new Int32Array(nb);
    const names: string[] = [];
    const joint = (base: string, i: number, nv: number) => {
      for (let k = 0; k < nv; k++) names.push(nv === 1 ? `${base}[${model.jointNames[i]}]` : `${base}[${model.jointNames[i]}][${k}]`);
    };
    for (let i = 0; i < nb; i++) {
      const link = model.bodyNames[i], jn = model.jointNames[i], nv = model.nvi[i];
      this.a[i] = names.length; for (const c of MOTION_COMPONENTS) names.push(`a[${link}].${c}`);
      this.f[i] = names.length; for (const c of FORCE_COMPONENTS) names.push(`f[${jn}].${c}`);
      this.tau[i] = names.length; joint('tau', i, nv);
      this.fx[i] = names.length; for (const c of FORCE_COMPONENTS) names.push(`fx[${link}].${c}`);
      this.qdd[i] = names.length; joint('qdd', i, nv);
    }
    this.n = names.length;
    this.names = Object.freeze(names);
  }

  /** first column of variable `kind` of body i */
  start(kind: VariableKind, i: number): number {
    return this[kind][i];
  }

  /** size of variable `kind` of body i */
  size(kind: VariableKind, i: number): number {
    return kind === 'tau' || kind === 'qdd' ? this.model.nvi[i] : 6;
  }

  /** column of a variable name such as `tau[knee]` or `fx[l_sole].fz`; throws naming it when unknown */
  column(name: string): number {
    this.byName ??= new Map(this.names.map((s, k) => [s, k]));
    const k = this.byName.get(name);
    if (k === undefined) throw new RangeError(`unknown variable "${name}"`);
    return k;
  }

  /** the body and kind a column belongs to */
  locate(col: number): { kind: VariableKind; body: number; offset: number } {
    const nb = this.model.nb;
    // binary search over bodies on the a[] starts (columns are body-major)
    let lo = 0, hi = nb - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.a[mid] <= col) lo = mid; else hi = mid - 1;
    }
    const i = lo;
    for (const kind of ['qdd', 'fx', 'tau', 'f', 'a'] as const) {
      if (col >= this[kind][i] && this.size(kind, i) > 0) return { kind, body: i, offset: col - this[kind][i] };
    }
    throw new RangeError(`column ${col} out of range`);
  }
}
