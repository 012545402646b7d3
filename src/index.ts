/**
 * sparsedyn: rigid-body dynamics of kinematic trees solved as one sparse linear system,
 * D(q) d + b(q, q̇) = 0 (F. Nori et al., "Inverse, forward and other dynamic computations
 * computationally optimized with sparse matrix factorizations", 2017), checked against the
 * recursive gold standards RNEA, ABA and CRBA, with exact flop counters.
 *
 * This is the root entry (`import … from 'sparsedyn'`). It runs unchanged in Node and in a browser:
 * nothing behind it touches the file system. File access (URDF and problem files, logs, matrix
 * files) is in `sparsedyn/node`; the robot-free sparse LU engine is in `sparsedyn/sparse`.
 *
 * - Models: {@link modelFromUrdf} (a URDF string), the generators ({@link chain},
 *   {@link randomTree}, {@link humanoid}), model SPEC strings ({@link modelFromSpec}), the URDF
 *   writer ({@link urdfFromSpec}), configurations ({@link neutral}, {@link randomConfiguration},
 *   {@link integrate}, {@link difference}).
 * - Gold standards, each with its workspace made once per model: {@link rnea}, {@link aba},
 *   {@link crba} (also in world coordinates: {@link crbaWorld}), {@link computeMinverse} (Carpentier's M⁻¹; also {@link minvCarpentier}) and
 *   {@link minvCholesky}, {@link forwardKinematics}; the same algorithms as WebAssembly generated
 *   per model, the model's constants folded in ({@link GeneratedRnea}, {@link GeneratedAba},
 *   {@link GeneratedCrba}, {@link GeneratedMinv}; experimental).
 * - Sparse solvers: {@link LuInverseDynamics}, {@link LuForwardDynamics}, {@link MinvLu},
 *   {@link IwimLu} (M⁻¹B), {@link SparseSolver} for any {@link SymbolicSystem}.
 * - Problems: {@link parseProblem}, {@link buildEstimationSystem}, {@link analyzeProblem} (with priors, {@link analyzePriors})
 *   (well-posedness), {@link Estimator}, log rows ({@link LogSchema}), synthetic logs with their truth
 *   ({@link synthSamples}, written by {@link LogRowWriter} and {@link mcapLog}), derivatives
 *   ({@link LuInverseDynamicsDerivatives} and the recursive and finite-difference references; the
 *   recursive RNEA and ABA derivatives from WebAssembly generated per model,
 *   {@link GeneratedRneaDerivatives} and {@link GeneratedAbaDerivatives}, experimental).
 *
 * Stability: every export is stable unless its documentation carries the `@experimental` tag.
 * A stable export keeps its name, signature and meaning within a minor version (0.x.y); an
 * experimental one may change in any release.
 *
 * @packageDocumentation
 * @module sparsedyn
 */

// ── models ────────────────────────────────────────────────────────────────────────────────────
export { Model, type Frame, type ModelData, type JointLimits } from './model/model.ts';
export { buildModel, ModelError, type ModelSpec, type LinkSpec, type JointSpec, type BuildOptions } from './model/build.ts';
export {
  parseUrdf, buildUrdf, modelFromUrdf, UrdfError,
  type UrdfSpec, type UrdfParseOptions, type UrdfBuildOptions, type UrdfJointInfo, type UrdfLimit, type UrdfMimic, type UrdfSensor,
} from './model/urdf.ts';
export { urdfFromSpec, UrdfWriteError, type UrdfWriteOptions } from './model/urdf-writer.ts';
export {
  chain, chainSpec, randomTree, randomTreeSpec, humanoid, humanoidSpec, boxInertia, cylinderInertia, inertiaFromPrincipal, DEFAULT_TREE_MIX,
  type GeneratorOptions, type ChainOptions, type ChainAxes, type RandomTreeOptions, type TreeJointKind, type HumanoidOptions,
} from './model/generators.ts';
export { modelFromSpec, resolveModelSpec, ModelSpecError, MODEL_SPEC_HELP, type ModelSpecOptions, type ResolvedModelSpec } from './model/spec.ts';
export type { ModelWarning } from './model/warnings.ts';
export type { JointType } from './model/joint.ts';
export { neutral } from './model/neutral.ts';
export { integrate, difference } from './model/lie.ts';
export { randomConfiguration } from './model/random.ts';
export { Rng } from './model/rng.ts';

// ── flop counting ─────────────────────────────────────────────────────────────────────────────
export { Flops } from './spatial/flops.ts';

// ── gold standards (recursive algorithms) ─────────────────────────────────────────────────────
export { forwardKinematics, KinematicsWorkspace } from './algorithms/kinematics.ts';
export { rnea, RneaWorkspace } from './algorithms/rnea.ts';
export { GeneratedRnea } from './algorithms/rnea-code.ts';
export { GeneratedAba } from './algorithms/aba-code.ts';
export { GeneratedCrba } from './algorithms/crba-code.ts';
export { GeneratedMinv } from './algorithms/minv-code.ts';
export { aba, AbaWorkspace, SingularJointInertiaError } from './algorithms/aba.ts';
export { crba, CrbaWorkspace } from './algorithms/crba.ts';
export { crbaWorld, CrbaWorldWorkspace } from './algorithms/crba-world.ts';
export { minvCarpentier, minvCarpentier as computeMinverse, MinvCarpentierWorkspace } from './algorithms/minv-carpentier.ts';
export { minvCholesky, MinvCholeskyWorkspace } from './algorithms/minv.ts';
export {
  InputMatrix, InputSpecError,
  type InputSpec, type ContactSpec as InputContactSpec, type ContactType, type ContactFrame,
} from './algorithms/iwim-inputs.ts';
export { iwimUnitForce, IwimUnitForceWorkspace } from './algorithms/iwim-unit-force.ts';
export { iwimIim, IwimIimWorkspace } from './algorithms/iwim-iim.ts';

// ── the sparse system and its solvers ─────────────────────────────────────────────────────────
export { VariableLayout, VARIABLE_KINDS, MOTION_COMPONENTS, FORCE_COMPONENTS, type VariableKind } from './assembly/variables.ts';
export { SymbolicSystem, SystemValues, fillSystem, type ProblemSpec, type KnownScalar, type MeasurementBlock, type FillContext } from './assembly/system.ts';
export { inverseDynamicsProblem, forwardDynamicsProblem } from './assembly/problems.ts';
export { SparseSolver, DYNAMICS_CHECK_TOL, type SolverOptions, type StepFlops } from './assembly/solver.ts';
export { LuInverseDynamics, LuForwardDynamics } from './assembly/dynamics.ts';
export { MinvLu } from './assembly/minv-lu.ts';
export { IwimLu } from './assembly/iwim-lu.ts';
export { MatrixAba, type MatrixAbaFlops } from './assembly/matrix-aba.ts';
export { flopsReport, type FlopsReport, type FlopsReportOptions, type FlopFigure, type LuFigures, type MatrixAbaFigures } from './assembly/flops-report.ts';
// the parts of the sparse engine a solver's user meets (the whole engine: sparsedyn/sparse)
export { SymbolicLU, type SymbolicLUJSON } from './sparse/symbolic.ts';
export { NumericLU } from './sparse/numeric.ts';
export type { CscMatrix } from './sparse/csc.ts';
export type { AnalyzeOptions } from './sparse/analyze.ts';
export { SingularPivotError, StructurallySingularError } from './sparse/errors.ts';

// ── estimation problems ───────────────────────────────────────────────────────────────────────
export {
  parseProblem, ProblemError, sensorComponents, SENSOR_TYPES,
  type ProblemFile, type SensorSpec, type SensorType, type Origin, type ContactSpec as ProblemContactSpec,
} from './estimation/problem.ts';
export { sensorsFromUrdf } from './estimation/urdf-sensors.ts';
export { buildEstimationSystem, type EstimationSystem, type ContactInfo, type SensorInfo } from './estimation/setup.ts';
export { ANALYSIS_CONFIGURATIONS, analyzeDataAlone, analyzePriors, analyzeProblem, type AnalysisReport, type AnalysisOptions, type ConfigurationResult, type PriorAnalysis, type Verdict } from './estimation/analysis.ts';
export { Estimator, type EstimatorFlops, type EstimatorOptions } from './estimation/estimator.ts';
export { namedEstimate, compareWithTruth, type NamedEstimate, type Wrench } from './estimation/outputs.ts';
export { inputsFromReadings, synthesize, idealReadings, type Truth } from './estimation/synthesize.ts';
export { synthSamples, scheduledContacts, contactWrenches, SynthError, SYNTH_DEFAULTS, type SynthOptions, type SynthSample, type SynthMotion } from './estimation/synth.ts';
export { EstimateSensitivity } from './estimation/sensitivity.ts';
export { ByteOutput } from './text/byte-output.ts';
export { EstimationSession, DEFAULT_CONDITION_LIMIT, largestInput, type SessionOptions, type SessionOutcome, type EstimateRecord, type SessionStats, type SessionCheckpoint, type FlaggedSample, type ModeSummary } from './estimation/session.ts';
export { LayoutCache, modeName, type Layout, type LayoutKey, type LayoutOptions } from './estimation/layouts.ts';
export { PlausibilityCheck, DEFAULT_PLAUSIBILITY, ANGLE_PRECISION_LIMIT, type PlausibilityOptions, type SensorRange, type Implausible } from './estimation/plausibility.ts';
export { BadDataDetector, chiSquareCdf, chiSquareQuantile, logChiSquareTail, type BadDataResult, type BadDataCalibration } from './estimation/bad-data.ts';
export type { ContactPhase, ContactDetection, ContactRule, ContactForceComponent, PriorSpec } from './estimation/problem.ts';
export { contactRule, CONTACT_FORCE_COMPONENTS } from './estimation/problem.ts';
export { ContactDetector, type DetectorSample } from './estimation/contact-detection.ts';
export { DIFFERENTIATION_DEFAULTS, parseDifferentiation, type DifferentiationSpec } from './estimation/problem.ts';
export { LocalPolyFit, MAX_FIT_ORDER, noiseGain, windowSamples } from './estimation/differentiate.ts';
export { planDerivation, derivedProblem, describePlan, SampleSequence, PERIOD_SAMPLES, type DerivationPlan, type SequenceStats, type SampleFollower } from './estimation/derive.ts';
export type { PriorInfo } from './estimation/setup.ts';
export { LogSchema, parseNdjsonLine, CsvRows, DEFAULT_QUATERNION_TOLERANCE, type Sample, type LogError, type LogSchemaOptions } from './io/log.ts';
export type { RosMapping, RosSensorSource, RosClock } from './estimation/ros-mapping.ts';
export { McapSampler, mcapSamples, McapLogError, isMcap, type Crc32 } from './io/mcap-log.ts';
export { LogRowWriter, mcapLog, defaultRosSection, type LogRowOptions, type LogRowSample, type McapLogOptions } from './io/synth-log.ts';
export {
  McapEstimateWriter, readMcapEstimates, RosMcapWriter, MemoryWritable, MSG_DEFINITIONS, rosTime, secondsToNs, asciiText,
  type EstimateStamp, type McapEstimateRecord, type RosMessageType,
} from './io/mcap-estimates.ts';

// ── derivatives ───────────────────────────────────────────────────────────────────────────────
export { LuInverseDynamicsDerivatives, LuForwardDynamicsDerivatives, type DynamicsDerivatives, type LuDerivativesOptions, type LuMode } from './derivatives/dynamics.ts';
export { RecursiveInverseDynamicsDerivatives, RecursiveForwardDynamicsDerivatives } from './derivatives/recursive.ts';
export { GeneratedRneaDerivatives, type GeneratedRneaDerivativesOptions } from './derivatives/rnea-derivatives-code.ts';
export { GeneratedAbaDerivatives } from './derivatives/aba-derivatives-code.ts';
export { FiniteDifferenceDerivatives, type DynamicsProblem } from './derivatives/finite-differences.ts';

// ── reference checks (what `sparsedyn verify` runs) ───────────────────────────────────────────
export { parseReference, ReferenceFormatError, type ReferenceFile, type ReferenceCase, type ReferenceJoint } from './verify/reference.ts';
export { verifyReference, BASE_TOL, COND_TOL, type VerifyReport, type QuantityResult } from './verify/verify.ts';
