/**
 * Synthetic, physically consistent log rows for the estimate tests: given q, q̇, the joint
 * accelerations and each contact's wrench (contact link frame), the floating base's acceleration
 * is solved so that the unactuated base needs no wrench (six RNEA calls and a dense 6×6 solve,
 * independent of the estimator); the truth comes from RNEA and the readings from the sensor models
 * (src/estimation/synthesize.ts), plus optional Gaussian noise with each sensor's variance.
 */
import { Matrix, solve } from 'ml-matrix';
import { demoCsv } from '../../scripts/demo-csv.ts';
import { rnea, RneaWorkspace } from '../../src/algorithms/rnea.ts';
import type { EstimationSystem } from '../../src/estimation/setup.ts';
import { idealReadings, synthesize } from '../../src/estimation/synthesize.ts';
import { Rng } from '../../src/model/rng.ts';
import { Flops } from '../../src/spatial/flops.ts';
import { xApplyForce, xTransposeApplyForce } from '../../src/spatial/transform.ts';

export interface RowSpec {
  t: number;
  /** joint values by name (others 0) */
  q?: Record<string, number>;
  v?: Record<string, number>;
  qdd?: Record<string, number>;
  /** contact link → [tx, ty, tz, fx, fy, fz] in the link frame */
  wrenches: Record<string, number[]>;
}

export function syntheticRow(es: EstimationSystem, spec: RowSpec, noise?: Rng): Record<string, unknown> {
  const model = es.model, fl = new Flops();
  const q = new Float64Array(model.nq), v = new Float64Array(model.nv), a = new Float64Array(model.nv);
  if (model.floatingBase) q[6] = 1;
  for (const j of model.movingJoints()) {
    if (j.type === 'floating') continue;
    q[j.iq] = spec.q?.[j.name] ?? 0; v[j.iv] = spec.v?.[j.name] ?? 0; a[j.iv] = spec.qdd?.[j.name] ?? 0;
  }
  const fext = Array.from({ length: model.nb }, () => new Float64Array(6));
  for (const c of es.contacts) {
    const w = spec.wrenches[c.link];
    if (w) xTransposeApplyForce(fext[c.body], c.X, Float64Array.from(w), fl);
  }
  if (model.floatingBase) {
    const ws = new RneaWorkspace(model);
    const t0 = Array.from(rnea(model, ws, q, v, a, fext).subarray(0, 6));
    const M = Matrix.zeros(6, 6);
    for (let k = 0; k < 6; k++) {
      a[k] = 1;
      const t = rnea(model, ws, q, v, a, fext);
      for (let r = 0; r < 6; r++) M.set(r, k, t[r] - t0[r]);
      a[k] = 0;
    }
    const x = solve(M, Matrix.columnVector(t0.map((z) => -z)));
    for (let k = 0; k < 6; k++) a[k] = x.get(k, 0);
  }
  const truth = synthesize(model, q, v, a, fext);
  const ideal = idealReadings(es, truth);
  const sensors: Record<string, number[]> = {};
  for (const s of es.sensors) {
    const sd = noise && s.spec.type !== 'gyroscope' ? Math.sqrt(s.spec.variance) : 0;
    sensors[s.spec.name] = ideal.get(s.spec.name)!.map((x) => x + (sd > 0 ? sd * noise!.normal() : 0));
  }
  const joints = model.movingJoints().filter((j) => j.type !== 'floating');
  const row: Record<string, unknown> = {
    t: spec.t,
    q: Object.fromEntries(joints.map((j) => [j.name, q[j.iq]])),
    v: Object.fromEntries(joints.map((j) => [j.name, v[j.iv]])),
    sensors,
    truth: {
      tau: Object.fromEntries(joints.map((j) => [j.name, truth.tau[j.iv]])),
      contact_wrenches: Object.fromEntries(es.contacts.map((c) => {
        const w = xApplyForce(new Float64Array(6), c.X, truth.fext[c.body], fl);
        return [c.link, { torque: [w[0], w[1], w[2]], force: [w[3], w[4], w[5]] }];
      })),
    },
  };
  if (model.floatingBase) row.base = { position: [0, 0, 0], quaternion: [0, 0, 0, 1], linear_velocity: [v[0], v[1], v[2]], angular_velocity: [v[3], v[4], v[5]] };
  return row;
}

/** the README's slippery load-cell layout on the project's humanoid (generically well posed, singular with parallel soles) */
export function slipperyProblem(modelPath: string): Record<string, unknown> {
  return {
    model: modelPath,
    base: 'floating',
    contacts: [{ link: 'l_sole', zero: ['fx', 'fy'] }, { link: 'r_sole', zero: ['fx', 'fy'] }],
    sensors: [
      { name: 'qdd', type: 'joint_acceleration', joints: 'all', variance: 1e-4 },
      { name: 'lc_l', type: 'external_wrench', link: 'l_sole', components: ['fz', 'tx', 'ty'], variance: 1 },
      { name: 'lc_r', type: 'external_wrench', link: 'r_sole', components: ['fz', 'tx', 'ty'], variance: 1 },
    ],
  };
}

/** The demo's NDJSON rows as a CSV log (its header from the problem's log schema; a row that is not JSON becomes a malformed CSV row) */
export function toCsv(lines: string[]): string {
  return demoCsv(lines);
}
