/**
 * Count the flops of inverse and forward dynamics by the permuted sparse LU of Nori's system
 * against RNEA and ABA, on the project's humanoid at one random state. Every kernel counts what it
 * executes, so the counts are exact and machine independent; both paths are checked to agree.
 * Run: npx tsx examples/flop-count.ts
 */
import { aba, AbaWorkspace, humanoid, LuForwardDynamics, LuInverseDynamics, randomConfiguration, rnea, RneaWorkspace, Rng } from 'sparsedyn';

const model = humanoid();
const rng = new Rng(7);
const q = randomConfiguration(model, rng);
const v = Float64Array.from({ length: model.nv }, () => rng.uniform(-1, 1));
const qdd = Float64Array.from({ length: model.nv }, () => rng.uniform(-1, 1));

// inverse dynamics: τ = RNEA(q, q̇, q̈) and the same τ from the sparse LU
const rneaWs = new RneaWorkspace(model);
const tau = Float64Array.from(rnea(model, rneaWs, q, v, qdd));
const luId = new LuInverseDynamics(model); // offline ordering, once
const tauLu = luId.solve(q, v, qdd);

// forward dynamics: q̈ = ABA(q, q̇, τ) and the same q̈ from the sparse LU
const abaWs = new AbaWorkspace(model);
const qddAba = aba(model, abaWs, q, v, tau);
const luFd = new LuForwardDynamics(model);
const qddLu = luFd.solve(q, v, tau);

const maxDiff = (a: ArrayLike<number>, b: ArrayLike<number>) => Array.from(a, (x, k) => Math.abs(x - (b[k] ?? NaN))).reduce((m, x) => Math.max(m, x), 0);
const row = (name: string, flops: number, base: number) => console.log(`${name.padEnd(26)} ${String(flops).padStart(7)} flops  ${(flops / base).toFixed(2)}×`);

console.log(`${model.name}: ${model.nb} bodies, nv = ${model.nv}`);
row('RNEA', rneaWs.totalFlops().total, rneaWs.totalFlops().total);
row('inverse dynamics by LU', luId.solver.totalFlops().total, rneaWs.totalFlops().total);
row('ABA', abaWs.totalFlops().total, abaWs.totalFlops().total);
row('forward dynamics by LU', luFd.solver.totalFlops().total, abaWs.totalFlops().total);
console.log(`agreement: |τ_LU − τ_RNEA| ≤ ${maxDiff(tauLu, tau).toExponential(1)} N m, |q̈_LU − q̈_ABA| ≤ ${maxDiff(qddLu, qddAba).toExponential(1)}`);
