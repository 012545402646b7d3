/**
 * `sparsedyn verify --model FILE.urdf --reference FILE.json [--json]`: run every reference case
 * through our algorithms and report the largest relative error per quantity (src/verify).
 * Exit code 0 when every error is within tolerance, 1 otherwise (naming the worst case).
 */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { loadUrdf } from '../../node/urdf-file.ts';
import { parseReference } from '../../verify/reference.ts';
import { findModelFile } from '../../node/reference-file.ts';
import { verifyReference, type VerifyReport } from '../../verify/verify.ts';
import { jsonWithWarnings, printData, reportModelWarnings } from '../output.ts';
import type { CliState } from '../state.ts';

export function formatReport(r: VerifyReport): string {
  const lines = [`verify: model "${r.model}", ${r.base} base, ${r.cases} cases`];
  const w = Math.max(...r.quantities.map((q) => q.name.length));
  for (const q of r.quantities) {
    const status = q.pass ? 'ok  ' : 'FAIL';
    lines.push(`  ${status} ${q.name.padEnd(w)}  max rel. error ${q.maxRelError.toExponential(2)} (case ${q.worstCase}, tolerance ${q.tolerance.toExponential(2)})`);
  }
  const bad = r.quantities.filter((q) => !q.pass);
  if (bad.length === 0) lines.push('all quantities within tolerance');
  for (const q of bad) {
    const f = q.firstFailure!;
    lines.push(`${q.name}: case ${f.case} has relative error ${f.error.toExponential(3)} > tolerance ${f.tolerance.toExponential(3)}`);
  }
  return lines.join('\n') + '\n';
}

export function register(program: Command, state: CliState): void {
  program
    .command('verify')
    .description('check our RNEA, ABA, CRBA and M⁻¹ (and the sparse solvers) against a reference dynamics file')
    .option('-m, --model <file>', 'URDF file of the robot (default: the reference\'s model_file, looked up beside the reference, then in the models/ and urdf-corpus/ folders next to the reference\'s folder)')
    .requiredOption('-r, --reference <file>', 'reference JSON file: model_file, base, gravity, joints, and cases with q, v, a, tau and the expected rnea_tau, aba_ddq, nle, gravity_torque, M, Minv')
    .option('--json', 'print one JSON object: {"cases": N, "max_rel_error": {...}, "pass": bool, "failures": [...], "warnings": [...]}')
    .action((opts: { model?: string; reference: string; json?: boolean }) => {
      const ref = parseReference(readFileSync(opts.reference, 'utf8'), opts.reference);
      const modelPath = opts.model ?? findModelFile(opts.reference, ref.model_file);
      const model = loadUrdf(modelPath, { floatingBase: ref.base === 'floating', gravity: ref.gravity });
      const warnings = reportModelWarnings(state, model);
      const report = verifyReference(model, ref, { file: opts.reference });
      if (opts.json) {
        const max: Record<string, number> = {};
        for (const q of report.quantities) max[q.name] = q.maxRelError;
        const worst = report.quantities.filter((q) => !q.pass).map((q) => ({ quantity: q.name, ...q.firstFailure }));
        printData(jsonWithWarnings({ cases: report.cases, max_rel_error: max, pass: report.pass, failures: worst }, warnings));
      } else {
        printData(formatReport(report));
      }
      state.exitCode = report.pass ? 0 : 1;
    });
}
