/**
 * Check sensor layouts before buying the sensors: is every joint torque and contact wrench of the
 * project's humanoid, standing on both feet, determined by the readings? Four layouts, from no
 * force sensing to six-axis force/torque sensors in the ankles. Runs in a browser too (nothing
 * here reads a file). Run: npx tsx examples/check-sensor-layout.ts
 */
import { analyzeProblem, buildEstimationSystem, humanoid, parseProblem } from 'sparsedyn';

const model = humanoid(); // the robot of models/humanoid.urdf, floating base
const encoders = { name: 'qdd', type: 'joint_acceleration', joints: 'all' }; // every joint and base acceleration
const loadCells = ['l_sole', 'r_sole'].map((link) => ({ name: `cell_${link}`, type: 'external_wrench', link, components: ['fz', 'tx', 'ty'] }));
const ankleFT = ['l_ankle_roll', 'r_ankle_roll'].map((joint) => ({ name: `ft_${joint}`, type: 'force_torque', joint }));
const slippery = (link: string) => ({ link, zero: ['fx', 'fy'] });

const layouts = [
  { name: 'no force sensing', contacts: ['l_sole', 'r_sole'], sensors: [encoders] },
  { name: 'load cells under both feet', contacts: ['l_sole', 'r_sole'], sensors: [encoders, ...loadCells] },
  { name: 'load cells, slippery contacts', contacts: [slippery('l_sole'), slippery('r_sole')], sensors: [encoders, ...loadCells] },
  { name: 'F/T sensors in both ankles', contacts: ['l_sole', 'r_sole'], sensors: [encoders, ...ankleFT] },
];

for (const layout of layouts) {
  const problem = parseProblem(JSON.stringify({ model: 'humanoid', base: 'floating', contacts: layout.contacts, sensors: layout.sensors }), layout.name);
  const report = analyzeProblem(buildEstimationSystem(model, problem));
  console.log(`${layout.name}: ${report.verdict}, rank ${report.numerical_rank} of ${report.unknowns} unknowns`);
  for (const direction of report.unobservable.slice(0, 2)) console.log(`  unobservable: ${direction}`);
  if (report.unobservable.length > 2) console.log(`  … ${report.unobservable.length - 2} more unobservable directions`);
  if (report.redundant_sensors.length > 0) console.log(`  redundant: ${report.redundant_sensors.join(', ')}`);
}
