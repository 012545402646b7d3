/**
 * ReportSlots: one sample's values for the reports at fixed places (NaN where none), the truth used
 * only in the estimate's shape, what else it holds noted by name; the accuracy (TruthComparison)
 * and the HTML series (EstimateSeries) made from such rows, the same whether a row was packed in
 * the same thread or elsewhere (a worker thread of `estimate --jobs`).
 */
import { describe, expect, it } from 'vitest';
import type { NamedEstimate } from '../../src/estimation/outputs.ts';
import { TruthComparison } from '../../src/estimation/outputs.ts';
import { ReportSlots, type TruthNotes } from '../../src/estimation/report-values.ts';
import { parseModelSpec } from '../../src/node/spec.ts';
import { EstimateSeries } from '../../src/report/estimate-series.ts';

const model = parseModelSpec('chain:2+floating');
const slots = new ReportSlots(model, ['foot', 'hand'], ['imu', 'ft']);
const est = (x: number): NamedEstimate => ({
  tau: { root_joint: [x, 2 * x, 3 * x, 4 * x, 5 * x, 6 * x], joint1: 7 * x, joint2: 8 * x }, qdd: {}, joint_wrenches: {},
  contact_wrenches: { foot: { torque: [x, 0, 0], force: [0, 0, 10 * x] }, hand: { torque: [0, 0, 0], force: [0, 0, 0] } },
  residuals: { ft: 0.5 * x },
});
const notes = (): TruthNotes => ({ unknownJoints: [], unknownContacts: [], malformed: [] });

describe('ReportSlots', () => {
  it('places the torques, contact wrenches and residuals of a sample, NaN where it has none', () => {
    expect(slots.ndof).toBe(8);
    expect(slots.width).toBe(8 + 8 + 12 + 2 + 8 + 12);
    const v = new Float64Array(slots.width + 3).fill(7);
    expect(slots.pack(est(1), undefined, v, 3, notes())).toBe(false);
    expect(v[0]).toBe(7); // nothing before the row is written
    const row = Array.from(v.subarray(3));
    expect(row.slice(slots.tau, slots.tau + 8)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(row.slice(slots.std, slots.std + 8).every(Number.isNaN)).toBe(true);
    expect(row.slice(slots.contact, slots.contact + 12)).toEqual([1, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0, 0]);
    expect(row.slice(slots.residual, slots.residual + 2)).toEqual([NaN, 0.5]);
    expect(row.slice(slots.truthTau).every(Number.isNaN)).toBe(true);
  });

  it('uses truth in the estimate\'s shape only, and notes by name what it cannot use', () => {
    const n = notes(), v = new Float64Array(slots.width);
    const truth = {
      tau: { joint1: [0.5], joint2: [1, 2], root_joint: [1, 2, 3, 4, 5, 6], elbow: 3 },
      contact_wrenches: { foot: { torque: [1, 2, 3], force: [4, 5, 6] }, hand: { torque: [1, 2], force: [0, 0, 0] }, knee: {} },
    };
    expect(slots.pack(est(1), truth, v, 0, n)).toBe(true);
    expect(Array.from(v.subarray(slots.truthTau, slots.truthTau + 8))).toEqual([1, 2, 3, 4, 5, 6, 0.5, NaN]);
    expect(Array.from(v.subarray(slots.truthContact, slots.truthContact + 12)).slice(0, 6)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(Array.from(v.subarray(slots.truthContact + 6, slots.truthContact + 12)).every(Number.isNaN)).toBe(true);
    expect(n).toEqual({ unknownJoints: ['elbow'], unknownContacts: ['knee'], malformed: ['tau of joint "joint2"', 'wrench of contact "hand"'] });
    // a floating base's torque: six finite numbers, or nothing
    const m = notes();
    expect(slots.pack(est(1), { tau: { root_joint: [1, 2, 3, 4, 5, NaN] } }, v, 0, m)).toBe(false);
    expect(m.malformed).toEqual(['tau of joint "root_joint"']);
  });

  it('the accuracy: RMSE and largest error per degree of freedom and contact part, from the samples with truth', () => {
    const truthOf = (k: number) => ({ tau: { joint1: 7 * k + 0.25 * (k % 3) }, contact_wrenches: { foot: { torque: [k, 0, 0.2], force: [0, 0, 10 * k] } } });
    const direct = new TruthComparison(model, slots), rows = new TruthComparison(model, slots);
    const v = new Float64Array(5 * slots.width), n = notes();
    for (let k = 0; k < 5; k++) {
      direct.add(est(k), truthOf(k));
      slots.pack(est(k), truthOf(k), v, k * slots.width, n);
    }
    direct.add(est(9), { tau: { nothing: 1 } }); // no usable truth: not a sample
    for (let k = 0; k < 5; k++) rows.addRow(v, k * slots.width);
    expect(direct.samples).toBe(5);
    expect(direct.unknownJoints).toEqual(new Set(['nothing']));
    const j1 = direct.jointRows();
    expect(j1.map((r) => r.name)).toEqual(['joint1']);
    // errors 0, −0.25, −0.5, 0, −0.25: exact in binary
    expect(j1[0].rmse).toBe(Math.sqrt((0.0625 + 0.25 + 0.0625) / 5));
    expect(j1[0].max_error).toBe(0.5);
    const c = direct.contactRows();
    expect(c.map((r) => r.name)).toEqual(['foot torque', 'foot force']);
    expect(c[0].max_error).toBe(0.2);
    expect(c[0].samples).toBe(15);
    expect(rows.jointRows()).toEqual(j1);
    expect(rows.contactRows()).toEqual(c);
  });

  it('the HTML series: every 2nd, 4th … sample, truth and standard deviations where present, the same from an estimate as from its packed row', () => {
    const a = new EstimateSeries(slots, 4), b = new EstimateSeries(slots, 4);
    const v = new Float64Array(slots.width), n = notes();
    for (let k = 0; k < 11; k++) {
      const e = { ...est(k), ...(k % 2 ? { tau_std: { joint1: 0.1, joint2: 0.2, root_joint: [1, 1, 1, 1, 1, 1] } } : {}) };
      const truth = k % 3 ? { tau: { joint2: 8 * k + 1 } } : undefined;
      a.add(k + 1, 0.1 * k, 1, e, truth);
      slots.pack(e, truth, v, 0, n);
      b.addRow(k + 1, 0.1 * k, 1, v, 0);
    }
    expect(a.stride).toBe(4);
    expect([...b.columns.keys()]).toEqual([...a.columns.keys()]);
    for (const [k, c] of a.columns) expect(b.columns.get(k), k).toEqual(c);
    expect(a.line).toEqual([1, 5, 9]);
    expect(a.columns.get('tau.root_joint[5]')).toEqual([0, 24, 48]);
    expect(a.columns.get('truth.tau.joint2')).toEqual([NaN, 33, 65]);
    expect(a.columns.get('tau_std.joint1')).toEqual([NaN, NaN, NaN]);
    expect(a.columns.get('residual.ft')).toEqual([0, 2, 4]);
    expect(a.columns.has('residual.imu')).toBe(false);
  });
});
