/**
 * Estimate joint torques and contact wrenches from a sensor log: the project's humanoid standing
 * on both feet, with joint encoders, a base IMU and six-axis force/torque sensors in both ankles,
 * and the shipped 300-sample log. Run from the repository folder: npx tsx examples/estimate-torques.ts
 */
import { buildEstimationSystem, compareWithTruth, Estimator, inputsFromReadings, LogSchema, namedEstimate } from 'sparsedyn';
import { loadProblem, readLog } from 'sparsedyn/node';

const { problem, model } = loadProblem('data/problems/humanoid-demo.json');
const system = buildEstimationSystem(model, problem);
const estimator = new Estimator(system); // orders the sparse system once
const y = new Float64Array(system.sys.ny); // one sample's readings, in the system's input order

let samples = 0;
let skipped = 0;
let worstTorqueError = 0;
for await (const row of readLog('data/demo/humanoid.ndjson', new LogSchema(system))) {
  if ('message' in row) {
    console.log(`line ${row.line} skipped: ${row.message}`);
    skipped++;
    continue;
  }
  inputsFromReadings(system, row.readings, y);
  const d = estimator.estimate(row.q, row.v, y); // refill, refactor, solve: nothing allocated
  const estimate = namedEstimate(system, estimator, d);
  worstTorqueError = Math.max(worstTorqueError, compareWithTruth(estimate, row.truth).tau ?? 0);
  if (samples === 0) {
    const knee = estimate.tau['l_knee'];
    const force = estimate.contact_wrenches['l_sole']?.force ?? [];
    console.log(`t = ${row.t}: left knee torque ${Number(knee).toFixed(3)} N m, left sole force [${force.map((f) => f.toFixed(1)).join(', ')}] N`);
  }
  samples++;
}
console.log(`${samples} samples estimated by ${estimator.mode === 'wls' ? 'weighted least squares' : 'the sparse LU'}, ${skipped} skipped`);
console.log(`joint torques: largest relative error against the log's truth ${worstTorqueError.toExponential(2)}`);
