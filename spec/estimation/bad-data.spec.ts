/**
 * The bad-data test's identification (src/estimation/bad-data.ts) against a dense reference: the
 * augmented matrix K = [V A; Aᵀ 0] of the sample, inverted densely (ml-matrix LU), gives the
 * residual covariance Ω_rs = V_r V_s [K⁻¹]_rs of the checkable readings, their normalized residuals
 * and each sensor's ΔJ = e_Sᵀ Ω_SS⁺ e_S (pseudo-inverse by SVD). The demo humanoid has 45
 * checkable readings and m − n = 6 degrees of freedom: the identification is sketched there (8
 * solves instead of 45), and must give the dense figures to rounding.
 */
import { readFileSync } from 'node:fs';
import { LuDecomposition, Matrix, SingularValueDecomposition } from 'ml-matrix';
import { describe, expect, it, vi } from 'vitest';
import { Estimator } from '../../src/estimation/estimator.ts';
import type { BadDataResult } from '../../src/estimation/bad-data.ts';
import { EstimationSession } from '../../src/estimation/session.ts';
import { LogSchema, parseNdjsonLine, type Sample } from '../../src/io/log.ts';
import { loadEstimationSystem } from '../../src/node/problem-file.ts';

const { es } = loadEstimationSystem('data/problems/humanoid-demo.json');
const schema = new LogSchema(es);
const rows = readFileSync('data/demo/humanoid.ndjson', 'utf8').trim().split('\n');

/** the dense reference of the last sample's identification */
function denseIdentification(session: EstimationSession, checkNames: string[]) {
  const est = session.full.estimator!, K = est.K!, N = K.n;
  const D = Matrix.zeros(N, N);
  for (let j = 0; j < N; j++) for (let p = K.Ap[j]; p < K.Ap[j + 1]; p++) D.set(K.Ai[p], j, D.get(K.Ai[p], j) + K.Ax[p]);
  const rowOf = new Map(es.sys.rowNames.map((name, r) => [name, r]));
  const check = checkNames.map((name) => rowOf.get(name)!);
  const E = Matrix.zeros(N, check.length);
  check.forEach((r, t) => E.set(r, t, 1));
  const X = new LuDecomposition(D).solve(E);
  const V = est.rowVariance, e = est.residual;
  const S = (a: number, b: number) => X.get(check[a], b); // [K⁻¹] on the checkable rows
  const omega = check.map((r, t) => V[r] * V[r] * S(t, t));
  const normalized = check.map((r, t) => Math.abs(e[r]) / Math.sqrt(omega[t]));
  const sensorOf = (name: string) => es.sys.blocks[es.sys.blocks.findIndex((_b, k) => {
    const r = rowOf.get(name)!;
    return r >= es.sys.blockRow0[k] && r < es.sys.blockRow0[k] + es.sys.blocks[k].rowNames.length;
  })].name;
  const dJ = new Map<string, number>();
  for (const sensor of new Set(checkNames.map(sensorOf))) {
    const ts = checkNames.map((n, t) => (sensorOf(n) === sensor ? t : -1)).filter((t) => t >= 0);
    const O = new Matrix(ts.map((a) => ts.map((b) => S(a, b))));
    const rho = ts.map((t) => e[check[t]] / V[check[t]]);
    const svd = new SingularValueDecomposition(O);
    const sv = svd.diagonal, U = svd.leftSingularVectors;
    let d = 0;
    sv.forEach((s, i) => {
      if (!(s > 1e-9 * sv[0])) return;
      const u = ts.reduce((acc, _t, a) => acc + U.get(a, i) * rho[a], 0);
      d += (u * u) / s;
    });
    dJ.set(sensor, d);
  }
  return { omega, normalized, dJ };
}

describe('bad-data identification against dense K⁻¹', () => {
  it('the demo humanoid (sketched: 45 checkable readings, 6 degrees of freedom): Ω, normalized residuals and the suspect\'s ΔJ to rounding', () => {
    const session = new EstimationSession(es, { condition: false, confidence: 0.99 });
    const det = session.full.badData!;
    expect(det.dof).toBe(6);
    // a gross error on one force reading of the left foot's sensor, and a sample that fires by itself
    const samples: Sample[] = [];
    const o = JSON.parse(rows[3]);
    o.sensors.ft_left[2] += 25;
    samples.push(parseNdjsonLine(schema, JSON.stringify(o), 4) as Sample);
    for (let k = 0; k < rows.length && samples.length < 3; k++) {
      const s = parseNdjsonLine(schema, rows[k], k + 1) as Sample;
      const out = session.estimate(s);
      if (out.ok && out.record.bad_data?.detected) samples.push(s);
    }
    expect(samples.length).toBe(3);
    samples.forEach((s, which) => {
      const out = session.estimate(s);
      expect(out.ok).toBe(true);
      if (!out.ok) return;
      const r = out.record.bad_data as BadDataResult;
      expect(r.detected).toBe(true);
      // the detector's checkable rows, in its order
      const checkNames = Array.from((det as unknown as { checkRows: Int32Array }).checkRows, (row) => es.sys.rowNames[row]);
      expect(checkNames.length).toBe(45);
      const ref = denseIdentification(session, checkNames);
      const omega = (det as unknown as { omega: Float64Array }).omega;
      const big = Math.max(...ref.omega);
      ref.omega.forEach((x, t) => expect(Math.abs(omega[t] - x) / big, checkNames[t]).toBeLessThan(1e-10));
      const top = Math.max(...ref.normalized.filter(Number.isFinite));
      expect(Math.abs(r.normalized! - top) / top).toBeLessThan(1e-9);
      expect(`y[${r.row}]`).toBe(checkNames[ref.normalized.indexOf(top)]);
      const dJ = ref.dJ.get(r.suspect!)!;
      expect(Math.abs(r.sensorChi2! - dJ) / dJ).toBeLessThan(1e-9);
      if (which === 0) expect(r.suspect).toBe('ft_left');
    });
  }, 60_000);

  it('a sketch whose solves overflow gives a test that is not finite (the row is skipped with its reason), as the full path\'s scores would', () => {
    const session = new EstimationSession(es, { condition: false, confidence: 0.99 });
    const o = JSON.parse(rows[3]);
    o.sensors.ft_left[2] += 25;
    const s = parseNdjsonLine(schema, JSON.stringify(o), 4) as Sample;
    const spy = vi.spyOn(Estimator.prototype, 'inverseBlockTimes').mockImplementation((_rows, _G, _q, Y) => Y.fill(Infinity));
    const out = session.estimate(s);
    expect(spy).toHaveBeenCalled();
    spy.mockRestore();
    expect(out.ok).toBe(false);
    if (!out.ok) expect(out.message).toMatch(/^the bad-data test is not finite/);
  });
});
