/**
 * Synthetic, physically consistent samples for tests and demo logs: RNEA with known external
 * wrenches gives the true τ, joint wrenches f_i and accelerations a_i (Nori (2017) eq. 3), and each
 * sensor's ideal reading is computed from them with the spatial kernels (not from the assembled
 * measurement rows). For a floating base, the wrench of one contact can be solved so that the
 * unactuated base needs no wrench, as for a robot standing on two feet.
 */
import { rnea, RneaWorkspace } from '../algorithms/rnea.ts';
import type { Model } from '../model/model.ts';
import { Flops } from '../spatial/flops.ts';
import { xApplyForce, xApplyMotion, xCompose, xCreate, xInverse } from '../spatial/transform.ts';
import { sensorComponents, WRENCH_COMPONENTS } from './problem.ts';
import { originTransform, sensorJoints, type EstimationSystem } from './setup.ts';

/**
 * A physically consistent sample made by RNEA: the state, τ, the external and joint wrenches and
 * the body accelerations and velocities.
 */
export interface Truth {
  q: Float64Array;
  v: Float64Array;
  qdd: Float64Array;
  tau: Float64Array;
  /** f^x_i per body (body coordinates) */
  fext: Float64Array[];
  /** f_i per body: wrench from λ(i) on i (body coordinates) */
  f: Float64Array[];
  /** a_i per body (gravity included as −a_g) */
  a: Float64Array[];
  /** v_i per body */
  vb: Float64Array[];
}

/** ⁱX_0 (world → body i) at the current kinematics of ws. */
function worldToBody(model: Model, ws: RneaWorkspace, i: number, fl: Flops): Float64Array {
  const chain: number[] = [];
  for (let j = i; j >= 0; j = model.parents[j]) chain.push(j);
  let X = xCreate();
  for (let k = chain.length - 1; k >= 0; k--) X = xCompose(new Float64Array(12), ws.kin.Xup[chain[k]], X, fl);
  return X;
}

/**
 * RNEA with the given external wrenches (body coordinates). With `balance` (a body index), the
 * external wrench on that body is replaced by the one that makes the floating base's wrench zero.
 */
export function synthesize(model: Model, q: Float64Array, v: Float64Array, qdd: Float64Array, fext: Float64Array[], balance?: number): Truth {
  const ws = new RneaWorkspace(model);
  const fl = new Flops();
  const fx = fext.map((f) => Float64Array.from(f));
  if (balance !== undefined) {
    if (!model.floatingBase) throw new RangeError('synthesize: balance needs a floating base');
    fx[balance].fill(0);
    rnea(model, ws, q, v, qdd, fx);
    // base wrench f_0 (spatial, base coordinates) must vanish: f^x_b = ᵇX*_0 f_0(without it)
    const f0 = Float64Array.from(ws.f[0]);
    const Xb0 = xCompose(new Float64Array(12), worldToBody(model, ws, balance, fl), xInverse(new Float64Array(12), ws.kin.Xup[0], fl), fl);
    xApplyForce(fx[balance], Xb0, f0, fl);
  }
  const tau = Float64Array.from(rnea(model, ws, q, v, qdd, fx));
  return {
    q: Float64Array.from(q), v: Float64Array.from(v), qdd: Float64Array.from(qdd), tau, fext: fx,
    f: ws.f.map((x) => Float64Array.from(x)), a: ws.a.map((x) => Float64Array.from(x)), vb: ws.kin.v.map((x) => Float64Array.from(x)),
  };
}

/** Ideal readings of every sensor of an estimation system, by name (component order of the sensor). */
export function idealReadings(es: EstimationSystem, t: Truth): Map<string, number[]> {
  const model = es.model, fl = new Flops();
  const out = new Map<string, number[]>();
  const w6 = new Float64Array(6);
  for (const s of es.sensors) {
    const sp = s.spec;
    switch (sp.type) {
      case 'joint_acceleration':
      case 'joint_torque': {
        const src = sp.type === 'joint_torque' ? t.tau : t.qdd;
        const vals: number[] = [];
        for (const i of sensorJoints(model, sp)) for (let k = 0; k < model.nvi[i]; k++) vals.push(src[model.iv[i] + k]);
        out.set(sp.name, vals);
        break;
      }
      case 'force_torque':
      case 'external_wrench': {
        let body: number, Xl: Float64Array, w: Float64Array;
        if (sp.type === 'force_torque') { body = model.joint(sp.joint!); Xl = xCreate(); w = t.f[body]; }
        else { const fr = model.frame(sp.link!); body = fr.body; Xl = fr.X; w = t.fext[body]; }
        const Xs = xCompose(new Float64Array(12), originTransform(sp.origin), Xl, fl);
        xApplyForce(w6, Xs, w, fl);
        const sign = sp.measure_direction === 'child_to_parent' ? -1 : 1;
        out.set(sp.name, sp.components.map((c) => sign * w6[WRENCH_COMPONENTS.indexOf(c as never)]));
        break;
      }
      case 'accelerometer':
      case 'spatial_acceleration':
      case 'gyroscope': {
        const fr = model.frame(sp.link!);
        const Xs = xCompose(new Float64Array(12), originTransform(sp.origin), fr.X, fl);
        // motion of the sensor frame: spatial velocity and acceleration in sensor coordinates
        const vs = xApplyMotion(new Float64Array(6), Xs, t.vb[fr.body], fl);
        const as = xApplyMotion(new Float64Array(6), Xs, t.a[fr.body], fl);
        // proper acceleration at the sensor origin: a_lin + ω × v_lin (a includes −g)
        const prop = [as[3] + (vs[1] * vs[5] - vs[2] * vs[4]), as[4] + (vs[2] * vs[3] - vs[0] * vs[5]), as[5] + (vs[0] * vs[4] - vs[1] * vs[3])];
        const all = sp.type === 'gyroscope' ? [vs[0], vs[1], vs[2]] : sp.type === 'accelerometer' ? prop : [as[0], as[1], as[2], ...prop];
        const names = sensorComponents(sp.type);
        out.set(sp.name, sp.components.map((c) => all[names.indexOf(c)]));
        break;
      }
    }
  }
  return out;
}

/** The input vector y of the system: zeros for known zero wrenches, then each sensor's readings. */
export function inputsFromReadings(es: EstimationSystem, readings: Map<string, ArrayLike<number>>, out = new Float64Array(es.sys.ny)): Float64Array {
  out.fill(0);
  const sys = es.sys;
  for (const s of es.sensors) {
    if (s.block < 0) continue;
    const r = readings.get(s.spec.name);
    if (!r) throw new RangeError(`no readings for sensor "${s.spec.name}"`);
    if (r.length !== s.inputs.length) throw new RangeError(`sensor "${s.spec.name}" has ${r.length} readings, expected ${s.inputs.length} (${s.inputs.join(', ')})`);
    const y0 = sys.blockInput0[s.block];
    for (let k = 0; k < r.length; k++) out[y0 + k] = r[k];
  }
  for (const p of es.priors) out.set(p.mean, sys.blockInput0[p.block]);
  return out;
}
