/**
 * The sensor-layout playground: a robot drawn with simple shapes (three.js), sensors and contacts
 * placed by clicking, the well-posedness analysis re-run in a Web Worker on every change.
 * Everything is bundled (scripts/build.mjs): the page works from file:// and needs no network.
 */
import * as THREE from 'three';
import { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js';
import { forwardKinematics, KinematicsWorkspace } from '../src/algorithms/kinematics.ts';
import type { AnalysisReport } from '../src/estimation/analysis.ts';
import { parseProblem, type ContactSpec, type ProblemFile, type SensorSpec } from '../src/estimation/problem.ts';
import { directionTerms, fitProblem, problemJson, problemModel } from '../src/estimation/problem-model.ts';
import type { Model } from '../src/model/model.ts';
import { neutral } from '../src/model/neutral.ts';

declare const __WORKER_SOURCE__: string;

// ── state ────────────────────────────────────────────────────────────────────────────────────
type Tool = 'inspect' | 'ft' | 'cell' | 'imu' | 'accelerometer' | 'torque' | 'qdd' | 'contact' | 'slippery';
const TOOLS: { id: Tool; label: string; help: string }[] = [
  { id: 'inspect', label: 'Inspect', help: 'click a link or joint to see its name' },
  { id: 'ft', label: 'F/T sensor', help: 'click a joint: a six-axis force/torque sensor in it (where joints coincide, the ball picks the one furthest from the root; each joint\'s axis rod picks that joint)' },
  { id: 'cell', label: 'Load cell', help: 'click a link: a load cell under it (normal force fz and the tilting moments tx, ty of its contact)' },
  { id: 'imu', label: 'IMU', help: 'click a link: angular and linear acceleration of the link' },
  { id: 'accelerometer', label: 'Accelerometer', help: 'click a link: linear acceleration (3 axes)' },
  { id: 'torque', label: 'Joint torque', help: 'click a joint: its torque is measured' },
  { id: 'qdd', label: 'Joint accel.', help: 'click a joint: its acceleration is measured' },
  { id: 'contact', label: 'Contact', help: 'click a link: an unknown contact wrench on it' },
  { id: 'slippery', label: 'Slippery contact', help: 'click a link: a contact with no tangential force (fx = fy = 0)' },
];
const MODELS = ['humanoid', 'chain:6', 'chain:12:axes=z', 'tree:16:3', 'tree:40:7'];

interface State {
  model: string;
  base: 'fixed' | 'floating';
  contacts: ContactSpec[];
  sensors: SensorSpec[];
  /** the other fields of an imported problem (gravity, priors, contact schedule, …), kept for the export */
  extra: Partial<ProblemFile>;
}
let state: State = { model: 'humanoid', base: 'floating', contacts: [], sensors: [], extra: {} };
const urdfs: Record<string, string> = {};
let model: Model | null = null;
let q: Float64Array = new Float64Array(0);
let tool: Tool = 'inspect';
let report: AnalysisReport | null = null;
let current: { deficiency: number; ratio: number; directions: string[] } | null = null;

const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;
const el = (tag: string, attrs: Record<string, string> = {}, text = ''): HTMLElement => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text) e.textContent = text;
  return e;
};
const origin0 = () => ({ xyz: [0, 0, 0] as [number, number, number], rpy: [0, 0, 0] as [number, number, number] });

function problem(): ProblemFile {
  return { ...state.extra, model: state.model, base: state.base, contacts: state.contacts, sensors: state.sensors };
}

/**
 * The layout a model starts with: the joint encoders; a floating base's IMU; and a floating robot with
 * feet (links named …sole or …foot) standing on them, a six-axis F/T sensor in the joint above each
 * (the layout of data/problems/humanoid-demo.json: well posed and redundant), rather than floating
 * in the air with no contact.
 */
function defaultLayout(m: Model): { sensors: SensorSpec[]; contacts: ContactSpec[] } {
  const s: SensorSpec[] = [{ name: 'encoders', type: 'joint_acceleration', joints: 'actuated', origin: origin0(), components: [], variance: 1 }];
  const contacts: ContactSpec[] = [];
  if (!m.floatingBase) return { sensors: s, contacts };
  s.push({ name: `imu_${m.bodyNames[0]}`, type: 'spatial_acceleration', link: m.bodyNames[0], origin: origin0(), components: ['alpha_x', 'alpha_y', 'alpha_z', 'ax', 'ay', 'az'], variance: 1 });
  // one contact per foot body: at its sole frame when it has one (the contact surface), else at the foot
  const feet = m.frames.filter((f) => f.body >= 0 && /(^|_)(sole|foot)$/.test(f.name)).sort((x, y) => Number(/foot$/.test(x.name)) - Number(/foot$/.test(y.name)));
  const bodies = new Set<number>();
  for (const f of feet) {
    if (bodies.has(f.body)) continue;
    bodies.add(f.body);
    // the joint that moves the foot: the nearest moving one up the tree
    let i = f.body;
    while (i >= 0 && (m.nvi[i] === 0 || m.jointTypes[i] === 'floating')) i = m.parents[i];
    if (i < 0) continue;
    contacts.push({ link: f.name, zero: [] });
    const joint = m.jointNames[i];
    s.push({ name: `ft_${joint}`, type: 'force_torque', joint, origin: origin0(), components: ['tx', 'ty', 'tz', 'fx', 'fy', 'fz'], variance: 1 });
  }
  return { sensors: s, contacts };
}

// ── the worker (from a Blob URL, so that file:// pages can start it) ────────────────────────
const worker = new Worker(URL.createObjectURL(new Blob([__WORKER_SOURCE__], { type: 'text/javascript' })));
let requestId = 0;
const sentAt = new Map<number, { t: number; what: string }>();
/** click → verdict on screen, per analysed change (for the tests' trace) */
const timings: { what: string; ms: number; received: number; started: number; worker: number }[] = [];

function analyse(what: string, t0 = performance.now()): void {
  if (!model) return;
  const id = ++requestId;
  sentAt.set(id, { t: t0, what });
  $('status').textContent = 'analysing…';
  $('status').className = 'busy';
  worker.postMessage({ id, problem: problemJson(problem()), urdfs, q: Array.from(q) });
}

worker.onmessage = (ev: MessageEvent) => {
  const r = ev.data as { id: number; step: 'first' | 'at' | 'rest'; error?: string; report?: AnalysisReport; current?: typeof current; flops?: { estimate: number | null; mode: string; rnea: number; why?: string; where: string }; spy?: string; removed?: string[]; final?: boolean; startedAt?: number; ms: number };
  if (r.id !== requestId) return; // a newer change is on its way
  if (r.error && r.step === 'rest') {
    // the verdict stands; only the redundancy search, flops or spy plots failed
    $('error').textContent = `redundant sensors, flops and spy plots: ${r.error}`;
    $('status').textContent = '';
    $('status').dataset.done = String(r.id);
    return;
  }
  if (r.error) {
    holdRenderUntil = 0;
    $('verdict').textContent = 'error';
    $('verdict').className = 'verdict error';
    $('error').textContent = r.error;
    $('status').textContent = '';
    $('status').dataset.done = String(r.id);
    return;
  }
  $('error').textContent = '';
  if (r.report) report = r.report;
  if (r.current) current = r.current;
  if (r.step !== 'rest') {
    holdRenderUntil = 0;
    showReport();
    drawDirections();
    const s = sentAt.get(r.id);
    if (s) {
      // measured when the new verdict is painted
      const received = performance.now() - s.t;
      const started = r.startedAt !== undefined ? r.startedAt - (performance.timeOrigin + s.t) : NaN;
      requestAnimationFrame(() => { timings.push({ what: s.what, ms: performance.now() - s.t, received, started, worker: r.ms }); sentAt.delete(r.id); });
    }
    const final = r.step === 'at' && r.final === true;
    $('status').textContent = final ? '' : 'redundancy, flops and spy plots…';
    $('status').className = final ? 'done' : 'busy';
    if (final) $('status').dataset.done = String(r.id);
  } else {
    showReport();
    if (r.flops) showFlops(r.flops);
    if (r.spy) $('spy').innerHTML = r.spy;
    $('status').textContent = '';
    $('status').className = 'done';
    $('status').dataset.done = String(r.id);
  }
};

// ── three.js scene ───────────────────────────────────────────────────────────────────────────
const canvasHost = $('view');
const renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
renderer.setPixelRatio(Math.min(2, window.devicePixelRatio));
canvasHost.appendChild(renderer.domElement);
const scene = new THREE.Scene();
scene.background = new THREE.Color(0xf4f5f7);
const camera = new THREE.PerspectiveCamera(40, 1, 0.01, 200);
camera.up.set(0, 0, 1);
const controls = new OrbitControls(camera, renderer.domElement);
/** render on demand only (a software renderer must not take the CPU the worker needs) */
let needsRender = true;
/**
 * after a change of the layout, the view waits (at most 300 ms) for its analysis, so that the new
 * sensor and the directions it leaves appear in one frame, and the renderer (in software, on
 * machines without a GPU) does not hold up the result
 */
let holdRenderUntil = 0;
/** how long each frame took to render (ms) */
const renderMs: number[] = [];
const redraw = () => { needsRender = true; };
controls.addEventListener('change', () => { holdRenderUntil = 0; redraw(); });
scene.add(new THREE.HemisphereLight(0xffffff, 0x8899aa, 2.2));
const sun = new THREE.DirectionalLight(0xffffff, 1.6);
sun.position.set(3, -4, 6);
scene.add(sun);
const grid = new THREE.GridHelper(4, 20, 0xb0b4bb, 0xd5d8dc);
grid.rotation.x = Math.PI / 2;
scene.add(grid);
const robot = new THREE.Group();
scene.add(robot);
const overlay = new THREE.Group();
scene.add(overlay);

let bodyGroups: THREE.Group[] = [];
const pickables: THREE.Object3D[] = [];
const bodyMeshes = new Map<number, THREE.Mesh[]>();
const jointMeshes = new Map<number, THREE.Mesh>();
let scale = 1;
/** radius of the drawn links */
let rLink = 0.01;

const MAT = {
  link: () => new THREE.MeshStandardMaterial({ color: 0x9aa6b2, roughness: 0.6, metalness: 0.05 }),
  com: () => new THREE.MeshStandardMaterial({ color: 0x5c6b7a, roughness: 0.5 }),
  joint: () => new THREE.MeshStandardMaterial({ color: 0xf2b134, roughness: 0.4 }),
  frame: () => new THREE.MeshStandardMaterial({ color: 0x7d8b99, roughness: 0.5 }),
};

function resize(): void {
  const w = canvasHost.clientWidth, h = canvasHost.clientHeight;
  renderer.setSize(w, h, false);
  camera.aspect = w / Math.max(h, 1);
  camera.updateProjectionMatrix();
  redraw();
}
new ResizeObserver(resize).observe(canvasHost);

/** world pose of every body at q: rotation (body → world, row-major) and position */
function bodyPoses(m: Model, qv: Float64Array): { R: Float64Array; p: Float64Array }[] {
  const ws = new KinematicsWorkspace(m);
  forwardKinematics(ws, qv, null);
  const out: { R: Float64Array; p: Float64Array }[] = [];
  for (let i = 0; i < m.nb; i++) {
    const X = ws.Xup[i], par = m.parents[i];
    const Rp = par < 0 ? Float64Array.of(1, 0, 0, 0, 1, 0, 0, 0, 1) : out[par].R;
    const pp = par < 0 ? new Float64Array(3) : out[par].p;
    const R = new Float64Array(9), p = new Float64Array(3);
    // R = Rp Eᵀ, p = pp + Rp r
    for (let a = 0; a < 3; a++) {
      for (let b = 0; b < 3; b++) R[3 * a + b] = Rp[3 * a] * X[3 * b] + Rp[3 * a + 1] * X[3 * b + 1] + Rp[3 * a + 2] * X[3 * b + 2];
      p[a] = pp[a] + Rp[3 * a] * X[9] + Rp[3 * a + 1] * X[10] + Rp[3 * a + 2] * X[11];
    }
    out.push({ R, p });
  }
  return out;
}
const toMatrix4 = (R: ArrayLike<number>, p: ArrayLike<number>) =>
  new THREE.Matrix4().set(R[0], R[1], R[2], p[0], R[3], R[4], R[5], p[1], R[6], R[7], R[8], p[2], 0, 0, 0, 1);
/** frame placement ᶠX_body → (rotation frame → body, position in body) */
const frameInBody = (X: Float64Array) => ({ R: [X[0], X[3], X[6], X[1], X[4], X[7], X[2], X[5], X[8]], p: [X[9], X[10], X[11]] });

function capsule(a: THREE.Vector3, b: THREE.Vector3, r: number, mat: THREE.Material): THREE.Mesh | null {
  const d = new THREE.Vector3().subVectors(b, a);
  const len = d.length();
  if (len < 1e-6) return null;
  const mesh = new THREE.Mesh(new THREE.CapsuleGeometry(r, len, 4, 12), mat);
  mesh.position.copy(a).addScaledVector(d, 0.5);
  mesh.quaternion.setFromUnitVectors(new THREE.Vector3(0, 1, 0), d.normalize());
  return mesh;
}

function buildRobot(m: Model): void {
  robot.clear();
  pickables.length = 0;
  bodyMeshes.clear();
  jointMeshes.clear();
  bodyGroups = [];
  // size of the robot: spread of the joint origins at the neutral pose
  const poses = bodyPoses(m, neutral(m));
  const box = new THREE.Box3();
  for (const ps of poses) box.expandByPoint(new THREE.Vector3(ps.p[0], ps.p[1], ps.p[2]));
  for (const f of m.frames) {
    if (f.body < 0) continue;
    const { p } = frameInBody(f.X), P = poses[f.body];
    box.expandByPoint(new THREE.Vector3(...[0, 1, 2].map((a) => P.p[a] + P.R[3 * a] * p[0] + P.R[3 * a + 1] * p[1] + P.R[3 * a + 2] * p[2]) as [number, number, number]));
  }
  const size = box.getSize(new THREE.Vector3()).length() || 1;
  scale = size;
  rLink = size * 0.012;
  const massMax = Math.max(...Array.from({ length: m.nb }, (_, i) => m.I[i][0]), 1e-9);
  for (let i = 0; i < m.nb; i++) {
    const g = new THREE.Group();
    g.matrixAutoUpdate = false;
    robot.add(g);
    bodyGroups.push(g);
    const meshes: THREE.Mesh[] = [];
    const tag = (mesh: THREE.Mesh, data: Record<string, unknown>) => { mesh.userData = data; pickables.push(mesh); g.add(mesh); return mesh; };
    const link = m.bodyNames[i];
    const ends: THREE.Vector3[] = [];
    for (const c of m.children[i]) { const X = m.Xtree[c]; ends.push(new THREE.Vector3(X[9], X[10], X[11])); }
    const mass = m.I[i][0];
    const com = mass > 0 ? new THREE.Vector3(m.I[i][1] / mass, m.I[i][2] / mass, m.I[i][3] / mass) : new THREE.Vector3();
    if (ends.length === 0) ends.push(com.clone().multiplyScalar(2));
    for (const e of ends) {
      const c = capsule(new THREE.Vector3(), e, rLink, MAT.link());
      if (c) meshes.push(tag(c, { kind: 'link', body: i, link }));
    }
    if (mass > 0) {
      const s = new THREE.Mesh(new THREE.SphereGeometry(size * 0.03 * Math.cbrt(mass / massMax) + rLink * 0.8, 16, 12), MAT.com());
      s.position.copy(com);
      meshes.push(tag(s, { kind: 'link', body: i, link }));
    }
    // other links welded to this body (URDF fixed joints): a small box at their frame
    for (const f of m.frames) {
      if (f.body !== i || f.name === link) continue;
      const { R, p } = frameInBody(f.X);
      const bx = new THREE.Mesh(new THREE.BoxGeometry(size * 0.05, size * 0.03, size * 0.008), MAT.frame());
      bx.matrixAutoUpdate = false;
      bx.matrix.copy(toMatrix4(R, p));
      meshes.push(tag(bx, { kind: 'link', body: i, link: f.name }));
    }
    bodyMeshes.set(i, meshes);
    if (m.nvi[i] > 0 && m.jointTypes[i] !== 'floating') {
      const js = new THREE.Mesh(new THREE.SphereGeometry(rLink * 1.9, 14, 10), MAT.joint());
      tag(js, { kind: 'joint', body: i, joint: m.jointNames[i], sphere: true });
      const ax = new THREE.Vector3(m.axis[3 * i], m.axis[3 * i + 1], m.axis[3 * i + 2]);
      if (ax.lengthSq() > 0) {
        const cyl = new THREE.Mesh(new THREE.CylinderGeometry(rLink * 0.7, rLink * 0.7, rLink * 6, 10), MAT.joint());
        cyl.quaternion.setFromUnitVectors(new THREE.Vector3(0, 1, 0), ax.normalize());
        tag(cyl, { kind: 'joint', body: i, joint: m.jointNames[i] });
      }
      jointMeshes.set(i, js);
    }
  }
  const center = box.getCenter(new THREE.Vector3());
  controls.target.copy(center);
  // from the front-left, a little above (x forward, z up)
  camera.position.set(center.x + size * 1.45, center.y - size * 1.0, center.z + size * 0.45);
  camera.near = size / 200;
  camera.far = size * 50;
  camera.updateProjectionMatrix();
  grid.scale.setScalar(Math.max(size / 3, 0.2));
  grid.position.set(center.x, center.y, box.min.z);
  controls.update();
}

let poses: { R: Float64Array; p: Float64Array }[] = [];
function placeRobot(): void {
  if (!model) return;
  poses = bodyPoses(model, q);
  poses.forEach((P, i) => { bodyGroups[i].matrix.copy(toMatrix4(P.R, P.p)); bodyGroups[i].matrixWorldNeedsUpdate = true; });
  drawSensors();
  drawDirections();
}

/** world position and rotation (frame → world) of a link frame */
function linkPose(link: string): { R: number[]; p: THREE.Vector3 } | null {
  if (!model || !model.hasFrame(link)) return null;
  const f = model.frame(link);
  if (f.body < 0) return null;
  const P = poses[f.body], L = frameInBody(f.X);
  const R: number[] = [];
  for (let a = 0; a < 3; a++) for (let b = 0; b < 3; b++) R.push(P.R[3 * a] * L.R[b] + P.R[3 * a + 1] * L.R[3 + b] + P.R[3 * a + 2] * L.R[6 + b]);
  const p = new THREE.Vector3(...[0, 1, 2].map((a) => P.p[a] + P.R[3 * a] * L.p[0] + P.R[3 * a + 1] * L.p[1] + P.R[3 * a + 2] * L.p[2]) as [number, number, number]);
  return { R, p };
}
const bodyPose = (i: number) => ({ R: Array.from(poses[i].R), p: new THREE.Vector3(poses[i].p[0], poses[i].p[1], poses[i].p[2]) });
const rotate = (R: number[], v: THREE.Vector3) => new THREE.Vector3(R[0] * v.x + R[1] * v.y + R[2] * v.z, R[3] * v.x + R[4] * v.y + R[5] * v.z, R[6] * v.x + R[7] * v.y + R[8] * v.z);

const sensorGroup = new THREE.Group();
overlay.add(sensorGroup);
const directionGroup = new THREE.Group();
overlay.add(directionGroup);

function glyph(geom: THREE.BufferGeometry, color: number, at: { R: number[]; p: THREE.Vector3 }, offset = new THREE.Vector3()): void {
  const mesh = new THREE.Mesh(geom, new THREE.MeshStandardMaterial({ color, roughness: 0.4 }));
  const R = at.R;
  mesh.matrixAutoUpdate = false;
  mesh.matrix.copy(toMatrix4(R, at.p.clone().add(rotate(R, offset)).toArray()));
  sensorGroup.add(mesh);
}

function drawSensors(): void {
  redraw();
  sensorGroup.clear();
  if (!model) return;
  const s = scale;
  for (const c of state.contacts) {
    const at = linkPose(c.link);
    if (!at) continue;
    const slippery = c.zero.includes('fx') && c.zero.includes('fy');
    const disk = new THREE.CylinderGeometry(s * 0.045, s * 0.045, s * 0.006, 24);
    disk.rotateX(Math.PI / 2);
    glyph(disk, slippery ? 0x7fd3f7 : 0x37474f, at, new THREE.Vector3(0, 0, -s * 0.008));
  }
  for (const sn of state.sensors) {
    if (sn.type === 'force_torque' && model.hasJoint(sn.joint!)) {
      const i = model.joint(sn.joint!);
      const cyl = new THREE.CylinderGeometry(s * 0.03, s * 0.03, s * 0.02, 20);
      cyl.rotateX(Math.PI / 2);
      glyph(cyl, 0xe4572e, bodyPose(i));
    } else if ((sn.type === 'joint_torque' || sn.type === 'joint_acceleration') && Array.isArray(sn.joints)) {
      for (const j of sn.joints) {
        if (!model.hasJoint(j)) continue;
        glyph(new THREE.TorusGeometry(s * 0.03, s * 0.005, 8, 24), sn.type === 'joint_torque' ? 0x8e44ad : 0x2a9d4b, bodyPose(model.joint(j)));
      }
    } else if (sn.link) {
      const at = linkPose(sn.link);
      if (!at) continue;
      if (sn.type === 'external_wrench') glyph(new THREE.BoxGeometry(s * 0.05, s * 0.035, s * 0.012), 0x2a9d4b, at, new THREE.Vector3(0, 0, -s * 0.02));
      else glyph(new THREE.BoxGeometry(s * 0.025, s * 0.025, s * 0.025), sn.type === 'accelerometer' ? 0x00897b : 0x1f4e99, at);
    }
  }
}

const HIGHLIGHT = new THREE.Color(0xd62828);
function drawDirections(): void {
  redraw();
  directionGroup.clear();
  for (const [, ms] of bodyMeshes) for (const m of ms) (m.material as THREE.MeshStandardMaterial).emissive.setHex(0);
  for (const [, m] of jointMeshes) (m.material as THREE.MeshStandardMaterial).emissive.setHex(0);
  const list = $('highlighted');
  list.textContent = '';
  if (!model || !report) return;
  // the directions at the sliders' configuration when it is deficient, else those the analysis found
  const dirs = current && current.deficiency > 0 ? current.directions : report.unobservable;
  const highlighted = new Set<string>();
  dirs.forEach((d, k) => {
    const terms = directionTerms(model!, d);
    const big = Math.max(...terms.map((t) => Math.abs(t.coef)), 1e-300);
    const hue = new THREE.Color().setHSL((0.0 + 0.13 * k) % 1, 0.85, 0.45);
    for (const { coef, site } of terms) {
      if (site.body < 0) continue;
      highlighted.add(site.item);
      const isJoint = site.kind === 'tau' || site.kind === 'qdd' || site.kind === 'f';
      if (isJoint) { const j = jointMeshes.get(site.body); if (j) (j.material as THREE.MeshStandardMaterial).emissive.copy(HIGHLIGHT); }
      for (const m of bodyMeshes.get(site.body) ?? []) if (m.userData.link === site.item || !isJoint) (m.material as THREE.MeshStandardMaterial).emissive.copy(HIGHLIGHT).multiplyScalar(0.6);
      const at = site.kind === 'w' || site.kind === 'a' || site.kind === 'fx' ? linkPose(site.item) ?? bodyPose(site.body) : bodyPose(site.body);
      let axis: THREE.Vector3, angular: boolean;
      if (site.kind === 'tau' || site.kind === 'qdd') {
        axis = new THREE.Vector3(model!.axis[3 * site.body], model!.axis[3 * site.body + 1], model!.axis[3 * site.body + 2]);
        angular = model!.jointTypes[site.body] !== 'prismatic';
        if (axis.lengthSq() === 0) axis.set(0, 0, 1);
      } else {
        axis = new THREE.Vector3(0, 0, 0).setComponent(site.component % 3, 1);
        angular = site.component < 3;
      }
      const dir = rotate(at.R, axis).normalize().multiplyScalar(Math.sign(coef));
      const len = scale * (0.08 + 0.17 * Math.abs(coef) / big);
      const arrow = new THREE.ArrowHelper(dir, at.p, len, angular ? 0x7b2cbf : hue.getHex(), len * 0.25, len * 0.12);
      arrow.userData = { direction: k, variable: site.name };
      directionGroup.add(arrow);
      if (angular) {
        const ring = new THREE.Mesh(new THREE.TorusGeometry(len * 0.25, len * 0.02, 6, 24, Math.PI * 1.5), new THREE.MeshBasicMaterial({ color: 0x7b2cbf }));
        ring.position.copy(at.p).addScaledVector(dir, len * 0.6);
        ring.quaternion.setFromUnitVectors(new THREE.Vector3(0, 0, 1), dir);
        directionGroup.add(ring);
      }
    }
  });
  for (const h of highlighted) list.appendChild(el('li', { 'data-item': h }, h));
}

function frame(): void {
  if (needsRender && performance.now() >= holdRenderUntil) {
    needsRender = false;
    const t0 = performance.now();
    renderer.render(scene, camera);
    renderMs.push(performance.now() - t0);
  }
  requestAnimationFrame(frame);
}

// ── picking ──────────────────────────────────────────────────────────────────────────────────
const raycaster = new THREE.Raycaster();
let downAt: { x: number; y: number } | null = null;
renderer.domElement.addEventListener('pointerdown', (e) => { downAt = { x: e.clientX, y: e.clientY }; });
renderer.domElement.addEventListener('pointerup', (e) => {
  if (!downAt || Math.hypot(e.clientX - downAt.x, e.clientY - downAt.y) > 4) return;
  const t0 = performance.now();
  const r = renderer.domElement.getBoundingClientRect();
  raycaster.setFromCamera(new THREE.Vector2(((e.clientX - r.left) / r.width) * 2 - 1, -((e.clientY - r.top) / r.height) * 2 + 1), camera);
  scene.updateMatrixWorld();
  const hits = raycaster.intersectObjects(pickables, false);
  if (!hits.length) return;
  // joints win over the link they sit in when both are hit
  const wantJoint = tool === 'ft' || tool === 'torque' || tool === 'qdd';
  // joints at one place (an ankle's pitch and roll): the sphere picks the one furthest from the root,
  // the axis rods pick each
  const firstJoint = wantJoint ? hits.find((h) => h.object.userData.kind === 'joint') : undefined;
  let hit = firstJoint ?? hits[0];
  if (firstJoint && firstJoint.object.userData.sphere) {
    for (const h of hits) if (h.object.userData.sphere && h.distance - firstJoint.distance < scale * 1e-4 && h.object.userData.body > hit.object.userData.body) hit = h;
  }
  pick(hit.object.userData as { kind: 'link' | 'joint'; body: number; link?: string; joint?: string }, t0);
});

function jointOf(d: { kind: string; body: number; joint?: string }): string | null {
  if (!model) return null;
  if (d.joint) return d.joint;
  // a link picked for a joint tool: the joint that moves it (the nearest moving one up the tree)
  let i = d.body;
  while (i >= 0 && (model.nvi[i] === 0 || model.jointTypes[i] === 'floating')) i = model.parents[i];
  return i >= 0 ? model.jointNames[i] : null;
}

function toggleSensor(s: SensorSpec): void {
  const k = state.sensors.findIndex((x) => x.name === s.name);
  if (k >= 0) state.sensors.splice(k, 1);
  else state.sensors.push(s);
}
function ensureContact(link: string, zero: string[] | null): void {
  if (!model) return;
  const body = model.frame(link).body;
  const k = state.contacts.findIndex((c) => model!.frame(c.link).body === body);
  if (k < 0) state.contacts.push({ link, zero: zero ?? [] });
  else if (zero) state.contacts[k] = { ...state.contacts[k], zero };
}

/** Apply the current tool to a picked link or joint. */
function pick(d: { kind: 'link' | 'joint'; body: number; link?: string; joint?: string }, t0 = performance.now()): void {
  if (!model) return;
  const link = d.link ?? model.bodyNames[d.body];
  const joint = jointOf(d);
  $('picked').textContent = d.kind === 'joint' ? `joint ${joint}` : `link ${link}${model.frame(link).body >= 0 ? ` (body ${model.bodyNames[model.frame(link).body]}, ${model.I[d.body][0].toFixed(2)} kg)` : ''}`;
  const o = origin0();
  switch (tool) {
    case 'inspect': return;
    case 'ft': if (!joint) return; toggleSensor({ name: `ft_${joint}`, type: 'force_torque', joint, origin: o, components: ['tx', 'ty', 'tz', 'fx', 'fy', 'fz'], variance: 1 }); break;
    case 'torque': if (!joint) return; toggleSensor({ name: `tau_${joint}`, type: 'joint_torque', joints: [joint], origin: o, components: [], variance: 1 }); break;
    case 'qdd': if (!joint) return; toggleSensor({ name: `qdd_${joint}`, type: 'joint_acceleration', joints: [joint], origin: o, components: [], variance: 1 }); break;
    case 'imu': toggleSensor({ name: `imu_${link}`, type: 'spatial_acceleration', link, origin: o, components: ['alpha_x', 'alpha_y', 'alpha_z', 'ax', 'ay', 'az'], variance: 1 }); break;
    case 'accelerometer': toggleSensor({ name: `acc_${link}`, type: 'accelerometer', link, origin: o, components: ['ax', 'ay', 'az'], variance: 1 }); break;
    case 'cell': {
      const name = `cell_${link}`;
      const had = state.sensors.some((s) => s.name === name);
      toggleSensor({ name, type: 'external_wrench', link, origin: o, components: ['fz', 'tx', 'ty'], variance: 1 });
      if (!had) ensureContact(link, null);
      break;
    }
    case 'contact': case 'slippery': {
      const k = state.contacts.findIndex((c) => c.link === link);
      const zero = tool === 'slippery' ? ['fx', 'fy'] : [];
      if (k >= 0 && state.contacts[k].zero.join() === zero.join()) state.contacts.splice(k, 1);
      else if (k >= 0) state.contacts[k] = { link, zero };
      else ensureContact(link, zero);
      break;
    }
  }
  changed(`${tool} on ${d.kind === 'joint' ? joint : link}`, t0);
}

// ── panels ───────────────────────────────────────────────────────────────────────────────────
function changed(what: string, t0 = performance.now()): void {
  holdRenderUntil = performance.now() + 300;
  analyse(what, t0); // first: the worker starts while the page updates
  drawSensors();
  showLayout();
}

function showLayout(): void {
  const sl = $('sensors');
  sl.textContent = '';
  for (const s of state.sensors) {
    const where = s.joint ?? s.link ?? (Array.isArray(s.joints) ? s.joints.join(', ') : `${s.joints} joints`);
    const li = el('li', { 'data-sensor': s.name });
    li.append(el('b', {}, s.name), ` ${s.type.replace(/_/g, ' ')} · ${where}${s.components.length && s.components.length < 6 ? ` · ${s.components.join(' ')}` : ''} `);
    const x = el('button', { class: 'x', title: `remove ${s.name}` }, '✕');
    x.onclick = () => { state.sensors = state.sensors.filter((y) => y !== s); changed(`remove ${s.name}`); };
    li.append(x);
    sl.append(li);
  }
  const cl = $('contacts');
  cl.textContent = '';
  for (const c of state.contacts) {
    const li = el('li', { 'data-contact': c.link });
    li.append(el('b', {}, c.link), ' zero: ');
    for (const comp of ['tx', 'ty', 'tz', 'fx', 'fy', 'fz']) {
      const lab = el('label');
      const cb = el('input', { type: 'checkbox', 'data-component': comp }) as HTMLInputElement;
      cb.checked = c.zero.includes(comp);
      cb.onchange = () => {
        const t0 = performance.now();
        c.zero = ['tx', 'ty', 'tz', 'fx', 'fy', 'fz'].filter((z) => (z === comp ? cb.checked : c.zero.includes(z)));
        changed(`${c.link}.${comp} ${cb.checked ? 'zero' : 'free'}`, t0);
      };
      lab.append(cb, comp);
      li.append(lab);
    }
    const slip = el('button', { class: 'slippery', title: 'no tangential force: fx = fy = 0' }, 'slippery') as HTMLButtonElement;
    slip.onclick = () => { const t0 = performance.now(); c.zero = [...new Set([...c.zero, 'fx', 'fy'])]; changed(`${c.link} slippery`, t0); };
    const x = el('button', { class: 'x', title: `remove the contact on ${c.link}` }, '✕');
    x.onclick = () => { state.contacts = state.contacts.filter((y) => y !== c); changed(`remove contact ${c.link}`); };
    li.append(slip, x);
    cl.append(li);
  }
  $('base').textContent = state.base === 'floating' ? 'floating base (click for fixed)' : 'fixed base (click for floating)';
}

function showReport(): void {
  if (!report) return;
  const r = report;
  const v = $('verdict');
  v.textContent = r.verdict;
  v.className = `verdict ${r.verdict}`;
  $('ranks').textContent = `structural rank ${r.structural_rank}, numerical rank ${r.numerical_rank} of ${r.unknowns} unknowns (${r.equations} equations)`;
  const ct = $('configs');
  ct.textContent = '';
  const rows = r.configurations.map((c) => [c.kind, c.name, String(c.rank), c.deficiency ? `deficient by ${c.deficiency}` : 'full']);
  if (current) rows.push(['sliders', 'the configuration of the sliders', String(r.unknowns - current.deficiency), current.deficiency ? `deficient by ${current.deficiency}` : 'full']);
  for (const row of rows) {
    const tr = el('tr', row[3] === 'full' ? {} : { class: 'deficient' });
    for (const cell of row) tr.append(el('td', {}, cell));
    ct.append(tr);
  }
  const dl = $('directions');
  dl.textContent = '';
  const atSliders = current && current.deficiency > 0;
  $('directions-title').textContent = atSliders ? 'Unobservable directions at the sliders\u2019 configuration' : r.unobservable.length ? `Unobservable directions (at ${r.singular_configurations[0]?.name ?? 'a configuration tried'})` : 'Unobservable directions: none';
  for (const d of atSliders ? current!.directions : r.unobservable) dl.append(el('li', {}, d));
  $('undetermined').textContent = r.undetermined.length ? `undetermined unknowns (${r.undetermined.length}): ${r.undetermined.slice(0, 14).join(', ')}${r.undetermined.length > 14 ? ', …' : ''}` : '';
  $('redundant').textContent = r.redundant_sensors.length ? r.redundant_sensors.join(', ') : 'none';
  $('notes').textContent = '';
  for (const n of r.notes) $('notes').append(el('li', {}, n));
}

function showFlops(f: { estimate: number | null; mode: string; rnea: number; why?: string; where: string }): void {
  const fmt = (x: number) => x.toLocaleString('en-US');
  $('flops').textContent = f.estimate === null
    ? `estimation: none (${f.why}); RNEA: ${fmt(f.rnea)} flops`
    : `estimation (${f.mode}): ${fmt(f.estimate)} flops per sample; RNEA: ${fmt(f.rnea)} (×${(f.estimate / f.rnea).toFixed(1)}); counted at ${f.where}`;
}

function buildSliders(m: Model): void {
  const host = $('sliders');
  host.textContent = '';
  for (const j of m.movingJoints()) {
    if (j.nq !== 1) continue;
    const row = el('div', { class: 'slider' });
    // whole degrees, so that 0 and the multiples of 90° (the special configurations) are reached exactly
    const prismatic = j.type === 'prismatic';
    const input = el('input', { type: 'range', min: prismatic ? '-100' : '-180', max: prismatic ? '100' : '180', step: '1', value: '0', 'data-joint': j.name, title: prismatic ? 'cm' : 'degrees' }) as HTMLInputElement;
    const out = el('span', {}, prismatic ? '0 cm' : '0°');
    input.oninput = () => {
      const x = Number(input.value);
      q[j.iq] = prismatic ? x / 100 : (x * Math.PI) / 180;
      out.textContent = prismatic ? `${x} cm` : `${x}°`;
      placeRobot();
      analyse(`slider ${j.name}`);
    };
    row.append(el('label', {}, j.name), input, out);
    host.append(row);
  }
}

/** Load the model of the current state (draw it, fit the layout to it, analyse). */
function loadModel(keepLayout: boolean): void {
  try {
    // the model with the layout's F/T sensors in URDF fixed joints kept as joints; a layout that does not
    // fit (another robot) is dropped or fitted below
    let m: Model;
    try {
      m = problemModel(keepLayout ? problem() : { ...problem(), contacts: [], sensors: [] }, urdfs);
    } catch (e) {
      if (!keepLayout) throw e;
      m = problemModel({ ...problem(), sensors: [] }, urdfs);
    }
    model = m;
    if (!keepLayout) { const d = defaultLayout(m); state.contacts = d.contacts; state.sensors = d.sensors; }
    const fit = fitProblem(problem(), m);
    state.contacts = fit.problem.contacts;
    state.sensors = fit.problem.sensors;
    $('removed').textContent = fit.removed.length ? `left out: ${fit.removed.join('; ')}` : '';
    q = neutral(m);
    buildRobot(m);
    buildSliders(m);
    placeRobot();
    $('model-name').textContent = `${m.name}: ${m.nb} bodies, ${m.nv} DoF, ${m.totalMass().toFixed(1)} kg`;
    report = null;
    current = null;
    changed(`load ${state.model}`);
  } catch (e) {
    $('error').textContent = (e as Error).message;
  }
}

// ── files: URDF and problem files, dropped or picked; export ────────────────────────────────
async function openFiles(files: FileList | File[]): Promise<void> {
  const list = Array.from(files);
  let problemText: string | null = null;
  for (const f of list) {
    const text = await f.text();
    if (/\.urdf$/i.test(f.name) || /^\s*(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*<robot/.test(text)) urdfs[f.name] = text;
    else problemText = text;
  }
  if (problemText !== null) return importProblem(problemText);
  const urdf = list.find((f) => urdfs[f.name] !== undefined);
  if (urdf) {
    state.model = urdf.name;
    state.base = 'fixed'; // as the URDF says: the root link welded to the world (the button toggles)
    state.extra = {};
    addModelOption(urdf.name);
    loadModel(false);
  }
}

function importProblem(text: string): void {
  try {
    const p = parseProblem(text, 'imported problem');
    const name = p.model.trim().replace(/\+(floating|fixed)$/, '');
    const spec = /\.urdf$/i.test(name) ? (name.split(/[\\/]/).pop() ?? name) : name;
    if (/\.urdf$/i.test(spec) && urdfs[spec] === undefined) throw new Error(`the problem's model is the URDF file "${spec}": drop that file on the page first`);
    const { model: _m, base: _b, contacts, sensors, notes: _n, ...extra } = p;
    void _m; void _b; void _n;
    for (const k of Object.keys(extra) as (keyof typeof extra)[]) if (extra[k] === undefined) delete extra[k];
    state = { model: spec, base: p.base, contacts, sensors, extra };
    addModelOption(spec);
    loadModel(true);
  } catch (e) {
    $('error').textContent = (e as Error).message;
  }
}

function addModelOption(spec: string): void {
  const sel = $<HTMLSelectElement>('model');
  if (![...sel.options].some((o) => o.value === spec)) sel.append(el('option', { value: spec }, spec));
  sel.value = spec;
}

function exportProblem(): void {
  const text = problemJson(problem(), `sensor layout made with the sparsedyn playground${report ? ` (verdict there: ${report.verdict})` : ''}`);
  const a = el('a', { download: `${state.model.replace(/[^A-Za-z0-9_.-]+/g, '_').replace(/\.urdf$/i, '')}-layout.json`, href: URL.createObjectURL(new Blob([text], { type: 'application/json' })) }) as HTMLAnchorElement;
  document.body.append(a);
  a.click();
  a.remove();
}

// ── wiring ───────────────────────────────────────────────────────────────────────────────────
function init(): void {
  const sel = $<HTMLSelectElement>('model');
  for (const m of MODELS) sel.append(el('option', { value: m }, m));
  sel.onchange = () => { state.model = sel.value; state.extra = {}; state.base = /^humanoid/.test(sel.value) ? 'floating' : 'fixed'; loadModel(false); };
  const tools = $('tools');
  for (const t of TOOLS) {
    const b = el('button', { 'data-tool': t.id, title: t.help }, t.label);
    b.onclick = () => {
      tool = t.id;
      for (const x of tools.querySelectorAll('button')) x.classList.toggle('on', x === b);
      $('tool-help').textContent = t.help;
    };
    if (t.id === tool) b.classList.add('on');
    tools.append(b);
  }
  $('tool-help').textContent = TOOLS[0].help;
  $('base').onclick = () => { state.base = state.base === 'floating' ? 'fixed' : 'floating'; loadModel(true); };
  $('export').onclick = exportProblem;
  const fileInput = $<HTMLInputElement>('file');
  $('import').onclick = () => fileInput.click();
  fileInput.onchange = () => { if (fileInput.files) void openFiles(fileInput.files); fileInput.value = ''; };
  document.addEventListener('dragover', (e) => { e.preventDefault(); document.body.classList.add('dropping'); });
  document.addEventListener('dragleave', () => document.body.classList.remove('dropping'));
  document.addEventListener('drop', (e) => {
    e.preventDefault();
    document.body.classList.remove('dropping');
    if (e.dataTransfer?.files.length) void openFiles(e.dataTransfer.files);
  });
  resize();
  frame();
  loadModel(false);
}

/** for scripted use (the browser test): where a link or joint is on screen, the timings */
(window as unknown as { playground: unknown }).playground = {
  timings,
  renderMs,
  /** a link's frame origin, or a joint's origin (with `alongAxis`: that many link radii along its axis rod) */
  screenPoint(name: string, alongAxis = 0): { x: number; y: number } | null {
    if (!model) return null;
    let p: THREE.Vector3 | null = null;
    if (model.hasJoint(name) && model.joint(name) >= 0) {
      const i = model.joint(name), at = bodyPose(i);
      const ax = rotate(at.R, new THREE.Vector3(model.axis[3 * i], model.axis[3 * i + 1], model.axis[3 * i + 2]));
      p = at.p.addScaledVector(ax, alongAxis * rLink);
    } else if (model.hasFrame(name)) p = linkPose(name)?.p ?? null;
    if (!p) return null;
    camera.updateMatrixWorld();
    const v = p.clone().project(camera);
    const r = renderer.domElement.getBoundingClientRect();
    return { x: r.left + ((v.x + 1) / 2) * r.width, y: r.top + ((1 - v.y) / 2) * r.height };
  },
  view(azimuthDeg: number, elevationDeg: number): void {
    const t = controls.target, d = camera.position.distanceTo(t);
    const az = (azimuthDeg * Math.PI) / 180, el2 = (elevationDeg * Math.PI) / 180;
    camera.position.set(t.x + d * Math.cos(el2) * Math.cos(az), t.y + d * Math.cos(el2) * Math.sin(az), t.z + d * Math.sin(el2));
    controls.update();
  },
  arrows: () => directionGroup.children.filter((c) => c instanceof THREE.ArrowHelper).map((c) => c.userData),
  problem: () => problemJson(problem()),
  /** the id of the newest change and of the last one fully analysed */
  pending: () => requestId,
  select: (t: Tool) => (document.querySelector(`[data-tool="${t}"]`) as HTMLButtonElement).click(),
};

init();
