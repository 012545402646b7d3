/**
 * e = namedEstimate(es, est, d) gives this shape (outputs.ts): one estimated sample by name — joint
 * torques and accelerations, contact and joint wrenches, per-sensor residuals. The types alone,
 * below both outputs.ts, which makes them, and report-values.ts, which reads them.
 */

/** A wrench as torque and force, 3 numbers each. */
export interface Wrench { torque: number[]; force: number[] }

/** One estimated sample by name: what `sparsedyn estimate` writes per sample. */
export interface NamedEstimate {
  tau: Record<string, number | number[]>;
  qdd: Record<string, number | number[]>;
  contact_wrenches: Record<string, Wrench>;
  joint_wrenches: Record<string, Wrench>;
  /** per sensor: root mean square of (reading residual / standard deviation) */
  residuals: Record<string, number>;
  /** standard deviation of each estimated joint torque (on request; square and redundant layouts) */
  tau_std?: Record<string, number | number[]>;
}
