/**
 * The fuzz targets: every parser and entry point a user's file reaches, each from its bytes to the
 * result the command line would compute from it (or one of the project's named errors).
 *
 *   urdf       URDF text → model (parser, graph, inertias, warnings) → RNEA and CRBA at q = 0
 *   problem    problem JSON → problem → model → estimation system → analysis (`analyze`)
 *   ndjson     NDJSON log rows → samples → estimates (the demo humanoid's problem)
 *   csv        CSV log (header, rows) → samples → estimates
 *   mcap       a ROS 2 recording (MCAP container, CDR, the problem's `ros` mapping) → samples → estimates
 *   matrix     Matrix Market or triplet text → matrix → BTF, orderings, LU, solve (`lu`)
 *   reference  reference JSON → reference → verify against models/chain6.urdf (`verify`)
 *   symbolic   a saved symbolic analysis (JSON) → SymbolicLU → numeric LU of its pattern (`flops --symbolic`)
 *
 * Inputs that ask for a size (chain:N, a matrix header) cost in proportion to what they ask for
 * (the documented caps bound it); the targets build such models and factor such matrices only up to
 * a few thousand bodies or rows, so that the 1 s bound is checked on everything else.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { JsonTextError, parseJsonText } from '../../src/text/json-text.ts';
import { logRows, type RawRow } from '../../src/io/log-reader.ts';
import { LogSchema } from '../../src/io/log.ts';
import { McapLogError, McapSampler } from '../../src/io/mcap-log.ts';
import { ModelError } from '../../src/model/build.ts';
import { ModelSpecError, resolveModelSpec } from '../../src/model/spec.ts';
import { UrdfError, modelFromUrdf } from '../../src/model/urdf.ts';
import { loadUrdf } from '../../src/node/urdf-file.ts';
import { modelForProblem, withUrdfSensors } from '../../src/node/problem-file.ts';
import { parseProblem, ProblemError, type ProblemFile } from '../../src/estimation/problem.ts';
import { buildEstimationSystem } from '../../src/estimation/setup.ts';
import { analyzeProblem } from '../../src/estimation/analysis.ts';
import { EstimationSession } from '../../src/estimation/session.ts';
import { RosMappingError } from '../../src/estimation/ros-mapping.ts';
import { RowProcessor, type InputRow } from '../../src/cli/estimate-rows.ts';
import { rnea, RneaWorkspace } from '../../src/algorithms/rnea.ts';
import { crba, CrbaWorkspace } from '../../src/algorithms/crba.ts';
import { SingularJointInertiaError } from '../../src/algorithms/validate.ts';
import { MatrixFormatError, MatrixMarketReader, TripletReader } from '../../src/sparse/io.ts';
import { analyze } from '../../src/sparse/analyze.ts';
import { factor } from '../../src/sparse/index.ts';
import { SingularPivotError, StructurallySingularError } from '../../src/sparse/errors.ts';
import { SavedAnalysisError, SymbolicLU } from '../../src/sparse/symbolic.ts';
import { parseReference, ReferenceFormatError } from '../../src/verify/reference.ts';
import { verifyReference } from '../../src/verify/verify.ts';
import type { Model } from '../../src/model/model.ts';
import { neutral } from '../../src/model/neutral.ts';
import type { FuzzTarget, TargetResult } from './engine.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, '../..');
/** where a problem's relative URDF path is looked up: the repository's models/ */
const MODELS = join(ROOT, 'models');
const corpus = (name: string): string => join(HERE, 'corpus', name);
const text = (b: Buffer): string => b.toString('utf8');

/** the largest generated model or matrix the targets compute with (cost proportional to the size asked for beyond) */
const SIZE_BUDGET = 2000;

// ---------------------------------------------------------------- URDF

const URDF_DICT = ['<robot name="r">', '</robot>', '<link name="', '</link>', '<joint name="', '" type="revolute">', '" type="continuous">', '" type="prismatic">', '" type="fixed">', '" type="floating">', '" type="planar">', '</joint>', '<parent link="', '<child link="', '"/>', '<origin xyz="', '" rpy="', '<axis xyz="', '<inertial>', '</inertial>', '<mass value="', '<inertia ixx="', '" iyy="', '" izz="', '" ixy="', '<limit effort="', '" velocity="', '" lower="', '" upper="', '<!DOCTYPE r [<!ENTITY e "x">]>', '&e;', '&lt;', '<![CDATA[', ']]>', '<!--', '-->', '<?xml version="1.0"?>', 'base', 'link1', 'joint1', '__proto__', 'constructor', 'toString', '1e200', '1e308', '<sensor name="s" type="force_torque">', '<gazebo>', '<transmission>', '<mimic joint="'];

const urdf: FuzzTarget = {
  name: 'urdf',
  corpus: corpus('urdf'),
  dictionary: URDF_DICT,
  named: [UrdfError, ModelError, SingularJointInertiaError],
  run(data) {
    const model = modelFromUrdf(text(data), { file: 'fuzz.urdf', floatingBase: data.length % 2 === 1 });
    dynamicsAtZero(model);
    return { messages: (model.warnings ?? []).map((w) => w.message) };
  },
};

/**
 * RNEA and CRBA at the neutral configuration (what every command that loads a model goes on to
 * do): unit quaternions for every floating and spherical joint, wherever it is in the tree (the
 * target set them for the base and spherical joints only, so a floating joint inside the tree —
 * which URDF allows — had a zero quaternion: a fuzzer finding of the harness, not of sparsedyn).
 */
function dynamicsAtZero(model: Model): void {
  const q = neutral(model);
  const zero = new Float64Array(model.nv);
  rnea(model, new RneaWorkspace(model), q, zero, zero);
  crba(model, new CrbaWorkspace(model), q);
}

// ---------------------------------------------------------------- problem files

const JSON_DICT = ['{', '}', '[', ']', ',', ':', '"', 'null', 'true', 'false', '\\u0000', '\\ud800'];
const PROBLEM_DICT = [...JSON_DICT, '"model"', '"base"', '"floating"', '"fixed"', '"sensors"', '"contacts"', '"name"', '"type"', '"joint"', '"joints"', '"link"', '"origin"', '"xyz"', '"rpy"', '"variance"', '"range"', '"priors"', '"on"', '"mean"', '"contact_schedule"', '"contact_detection"', '"threshold"', '"off"', '"min_duration"', '"component"', '"unactuated"', '"unactuated_variance"', '"gravity"', '"differentiation"', '"order"', '"window"', '"bandwidth"', '"urdf_sensors"', '"ros"', '"joint_acceleration"', '"joint_torque"', '"force_torque"', '"external_wrench"', '"accelerometer"', '"spatial_acceleration"', '"gyroscope"', '"all"', '"actuated"', '"humanoid.urdf"', '"chain6.urdf"', '"chain:3"', '"chain:100000000"', '"tree:5:1"', '"humanoid"', '"l_sole"', '"pelvis"', '"l_knee"', '"torques"', '"contact:l_sole"', '"measure_direction"', '"child_to_parent"', '"constructor"', '"__proto__"'];

/** the bodies a problem's generator spec asks for (0 for a URDF) */
function askedBodies(model: string): number {
  try {
    const r = resolveModelSpec(model);
    return r.kind === 'generated' ? r.spec.links.length : 0;
  } catch {
    return 0;
  }
}

const problem: FuzzTarget = {
  name: 'problem',
  corpus: corpus('problem'),
  dictionary: PROBLEM_DICT,
  named: [ProblemError, ModelSpecError, UrdfError, ModelError, RosMappingError, SingularJointInertiaError],
  run(data) {
    const p: ProblemFile = withUrdfSensors(parseProblem(text(data), 'fuzz.json'), MODELS);
    if (askedBodies(p.model) > SIZE_BUDGET) return; // cost in proportion to the size asked for
    const model = modelForProblem(p, MODELS);
    const es = buildEstimationSystem(model, p);
    analyzeProblem(es, { random: 1, special: 1 });
    return { messages: [...(es.notes ?? []), ...(model.warnings ?? []).map((w) => w.message)] };
  },
};

// ---------------------------------------------------------------- logs

/** The demo humanoid's problem and a session for it, made once. */
let demo: { problem: ProblemFile; es: ReturnType<typeof buildEstimationSystem>; session: EstimationSession } | null = null;
function demoSession(): NonNullable<typeof demo> {
  if (demo) return demo;
  const raw = readFileSync(join(ROOT, 'data/problems/humanoid-demo.json'), 'utf8');
  const p = parseProblem(raw, 'humanoid-demo.json');
  const model = modelForProblem(p, join(ROOT, 'data/problems'));
  const es = buildEstimationSystem(model, p);
  demo = { problem: p, es, session: new EstimationSession(es, { confidence: 0.99 }) };
  return demo;
}

async function* chunks(s: string): AsyncGenerator<string> {
  // two chunks: the readers' carrying of a row across chunks is exercised too
  const cut = s.length >> 1;
  yield s.slice(0, cut);
  yield s.slice(cut);
}

/** Rows → samples → estimates, as `estimate` does with one job; the messages of the skipped rows. */
async function estimateLog(data: Buffer, format: 'ndjson' | 'csv'): Promise<TargetResult> {
  const { session, es } = demoSession();
  const rows: RawRow[] = [];
  for await (const r of logRows(chunks(text(data)), { format })) rows.push(r);
  let header: { cells: string[]; line: number } | undefined;
  if (format === 'csv') {
    const h = rows.findIndex((r) => r.kind === 'csv');
    if (h < 0) return { messages: rows.map((r) => (r.kind === 'error' ? r.message : '')) };
    const hr = rows.splice(h, 1)[0] as { cells: string[]; line: number };
    header = { cells: hr.cells, line: hr.line };
  }
  let proc: RowProcessor;
  try {
    proc = new RowProcessor(session, { outFormat: 'ndjson', schema: {}, csvHeader: header, withEstimates: false });
  } catch (e) {
    // `estimate` refuses the log naming it, with this message (exit 2)
    return { messages: [(e as Error).message] };
  }
  void es;
  const out = proc.run(rows as InputRow[], false);
  return { messages: out.results.map((r) => (r.kind === 'skip' ? r.message : '')) };
}

const LOG_DICT = ['"t"', '"q"', '"v"', '"base"', '"sensors"', '"truth"', '"contacts"', '"quaternion"', '"position"', '"linear_velocity"', '"angular_velocity"', '"encoders"', '"imu_acc"', '"imu_gyro"', '"ft_left"', '"ft_right"', '"l_knee"', '"l_sole"', '"r_sole"', '"wx"', '"fz"', '1e151', '1e152', '1e308', '-1e308', 'NaN', '"NaN"', 'null', '{', '}', '[', ']', ',', ':', '"', '\n', '\r\n'];
const CSV_DICT = ['t', 'q.l_knee', 'v.l_knee', 'base.qw', 'base.qx', 'encoders.l_knee', 'imu_acc.ax', 'imu_gyro.wx', 'ft_left.fz', 'contacts', 'truth.tau.l_knee', ',', '"', '""', '\n', '\r\n', '\r', '1e151', '1e308', 'NaN', 'inf', '0x10', ' ', 'l_sole;r_sole'];

const ndjson: FuzzTarget = { name: 'ndjson', corpus: corpus('ndjson'), dictionary: LOG_DICT, named: [], run: (d) => estimateLog(d, 'ndjson') };
const csv: FuzzTarget = { name: 'csv', corpus: corpus('csv'), dictionary: CSV_DICT, named: [], run: (d) => estimateLog(d, 'csv') };

// ---------------------------------------------------------------- MCAP

const MCAP_DICT = ['\x89MCAP0\r\n', 'sensor_msgs/msg/JointState', 'sensor_msgs/msg/Imu', 'geometry_msgs/msg/WrenchStamped', 'nav_msgs/msg/Odometry', 'ros2msg', 'cdr', '/joint_states', '/imu', '/ft', '/odom', 'float64[] position', 'string[] name', 'std_msgs/Header header', '\x00\x00\x00\x00', '\xff\xff\xff\xff', '\x00\x00\x00\x7f', '\x01\x00\x00\x00'];

let handlers: Awaited<ReturnType<typeof import('@mcap/support').loadDecompressHandlers>> | null = null;
const mcap: FuzzTarget = {
  name: 'mcap',
  corpus: corpus('mcap'),
  dictionary: MCAP_DICT,
  named: [McapLogError],
  maxLength: 100_000,
  async run(data) {
    const { session, es, problem: p } = demoSession();
    handlers ??= await (await import('@mcap/support')).loadDecompressHandlers();
    const sm = new McapSampler(new LogSchema(es, {}), p.ros!, handlers);
    const rows: InputRow[] = [];
    const cut = data.length >> 1;
    sm.push(new Uint8Array(data.subarray(0, cut)));
    sm.push(new Uint8Array(data.subarray(cut)));
    sm.end();
    for (const sample of sm.drain()) rows.push({ kind: 'sample', sample });
    const proc = new RowProcessor(session, { outFormat: 'ndjson', schema: {}, withEstimates: false });
    const out = proc.run(rows, false);
    return { messages: out.results.map((r) => (r.kind === 'skip' ? `${r.where ?? ''} ${r.message}` : '')) };
  },
};

// ---------------------------------------------------------------- matrices

const MATRIX_DICT = ['%%MatrixMarket matrix coordinate real general\n', '%%MatrixMarket matrix coordinate pattern symmetric\n', '%%MatrixMarket matrix coordinate integer skew-symmetric\n', '%%MatrixMarket matrix array real general\n', '% comment\n', '# comment\n', '1 1 1\n', '2 1 -1\n', '3 3 2.5e-3\n', '1000000000 1000000000 1\n', '4294967297', '300000000', '0x10', '0b11', '0o7', '1e308', 'inf', 'nan', '\t', '\r\n'];

const matrix: FuzzTarget = {
  name: 'matrix',
  corpus: corpus('matrix'),
  dictionary: MATRIX_DICT,
  named: [MatrixFormatError, SingularPivotError, StructurallySingularError],
  run(data) {
    const s = text(data);
    // read in two pieces, as files are (readMatrix): a line cut between them is read whole
    const r = s.startsWith('%%MatrixMarket') ? new MatrixMarketReader({ file: 'fuzz.mtx' }) : new TripletReader(undefined, { file: 'fuzz.tri' });
    const cut = s.length >> 1;
    r.push(s.slice(0, cut));
    r.push(s.slice(cut));
    const A = r.end();
    if (A.m !== A.n || A.n > SIZE_BUDGET) return;
    const lu = factor(A, analyze(A, { ordering: 'auto' }));
    const b = new Float64Array(A.n).fill(1);
    lu.solve(new Float64Array(A.n), b);
  },
};

// ---------------------------------------------------------------- reference files

const REFERENCE_DICT = [...JSON_DICT, '"model_file"', '"chain6.urdf"', '"base"', '"fixed"', '"floating"', '"gravity"', '"nq"', '"nv"', '"joints"', '"cases"', '"name"', '"type"', '"idx_q"', '"idx_v"', '"JointModelFreeFlyer"', '"JointModelRX"', '"JointModelPlanar"', '"joint1"', '"q"', '"v"', '"a"', '"tau"', '"rnea_tau"', '"aba_ddq"', '"nle"', '"gravity_torque"', '"M"', '"Minv"', '-1e308', '1e308'];

const chain6 = new Map<string, Model>();
const reference: FuzzTarget = {
  name: 'reference',
  corpus: corpus('reference'),
  dictionary: REFERENCE_DICT,
  named: [ReferenceFormatError, SingularJointInertiaError],
  run(data) {
    const ref = parseReference(text(data), 'fuzz.json');
    const key = `${ref.base} ${ref.gravity.join(' ')}`;
    let model = chain6.get(key);
    if (!model) {
      model = loadUrdf(join(MODELS, 'chain6.urdf'), { floatingBase: ref.base === 'floating', gravity: ref.gravity });
      if (chain6.size > 50) chain6.clear();
      chain6.set(key, model);
    }
    verifyReference(model, ref, { file: 'fuzz.json' });
  },
};

// ---------------------------------------------------------------- saved symbolic analyses

const SYMBOLIC_DICT = [...JSON_DICT, '"format"', '"sparsedyn.SymbolicLU"', '"version"', '"n"', '"Ap"', '"Ai"', '"p"', '"q"', '"r"', '"Lp"', '"Li"', '"Up"', '"Ui"', '"orderings"', '"repivoted"', '-1', '2147483648', '1e9'];

const symbolic: FuzzTarget = {
  name: 'symbolic',
  corpus: corpus('symbolic'),
  dictionary: SYMBOLIC_DICT,
  named: [SavedAnalysisError, JsonTextError, SingularPivotError, StructurallySingularError],
  run(data) {
    const S = SymbolicLU.fromJSON(parseJsonText(text(data), 'fuzz.json') as never);
    if (S.n > SIZE_BUDGET) return;
    // a matrix of its pattern, values 1 + (k mod 7), factored with it
    const nz = S.Ap[S.n];
    const Ax = new Float64Array(nz);
    for (let k = 0; k < nz; k++) Ax[k] = 1 + (k % 7);
    factor({ m: S.n, n: S.n, Ap: S.Ap, Ai: S.Ai, Ax }, S);
  },
};

export const TARGETS: readonly FuzzTarget[] = [urdf, problem, ndjson, csv, mcap, matrix, reference, symbolic];
