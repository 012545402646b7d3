/**
 * `sparsedyn study` end to end on a tiny configuration: the CSV, JSON, HTML, chart SVGs and spy
 * plot are written with the expected fields; errors name the file and field.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { XMLValidator } from 'fast-xml-parser';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli as run } from '../cli/run.ts';
import { CSV_COLUMNS } from '../../src/study/output.ts';
import { HAS_SHARED, shared } from '../shared.ts';


const dir = mkdtempSync(join(tmpdir(), 'sparsedyn-study-'));
const out = join(dir, 'out');
const config = {
  name: 'tiny-cli',
  title: 'Tiny <study>',
  models: [{ spec: 'chain:{N}:axes=z', N: [4, 5, 6], label: 'planar chain' }, resolve('models/chain6.urdf')],
  problems: ['fd', 'load-cells'],
  solvers: ['aba', 'matrix-aba', 'lu', 'lu:colamd', 'dense'],
  // maxCallMs far above any first call, so that no point goes untimed on a loaded machine
  timing: { rounds: 1, minMs: 0.05, maxCallMs: 600_000 },
  dense: { maxRunOrder: 90 },
  spy: { model: 'chain:{N}', N: 4, problem: 'load-cells' },
  paper: { figure: 1, csv: shared('papers/004-figures/figure1_forward_dynamics_chain.csv'), model: 'planar chain' },
};

describe('sparsedyn study', () => {
  let r: { code: number; out: string; err: string };
  beforeAll(async () => {
    writeFileSync(join(dir, 'tiny.json'), JSON.stringify(config));
    r = await run(['study', join(dir, 'tiny.json'), '--out', out]);
  });

  it('runs and reports what it wrote; the planar chain\'s load cells are structurally singular, recorded as failed points', () => {
    expect(r.err).toMatch(/\d+\/\d+/);
    expect(r.out).toMatch(/study tiny-cli: \d+ points \(\d+ failed\) in [\d.]+ s; wrote \d+ files to /);
    expect(r.out).toMatch(/failed: chain:4:axes=z load-cells lu:auto: .*structural rank 77 < n = 80/);
    expect(r.out).toMatch(/failed: chain:4:axes=z load-cells dense: LU matrix is singular/);
    expect(r.code).toBe(1);
  });

  it('writes points.csv with the fixed columns, one row per point', () => {
    const csv = readFileSync(join(out, 'points.csv'), 'utf8').trim().split('\n');
    expect(csv[0]).toBe(CSV_COLUMNS.join(','));
    const json = JSON.parse(readFileSync(join(out, 'points.json'), 'utf8'));
    expect(json.format).toBe('sparsedyn.study');
    expect(csv).toHaveLength(json.points.length + 1);
    const urdf = json.points.find((p: { spec: string }) => p.spec.endsWith('chain6.urdf'));
    expect(urdf.spec).toBe('models/chain6.urdf');
    const row = csv.find((l) => l.startsWith('tiny-cli,planar chain,chain:5:axes=z,chain:5:axes=z,5,5,5,forward-dynamics,lu:auto,aba,ok,'));
    expect(row).toBeDefined();
  });

  it('writes one well-formed SVG per chart with one series path per solver, and the spy plot', () => {
    const charts = readdirSync(join(out, 'charts'));
    // the paper's data is third-party: overlaid when the shared folder is there, else one note
    if (HAS_SHARED) expect(charts).toContain('paper-figure1.svg');
    else expect(charts).not.toContain('paper-figure1.svg');
    expect(charts).toContain('forward-dynamics-planar_chain-flops.svg');
    for (const f of charts) expect(XMLValidator.validate(readFileSync(join(out, 'charts', f), 'utf8')), f).toBe(true);
    const flops = readFileSync(join(out, 'charts', 'forward-dynamics-planar_chain-flops.svg'), 'utf8');
    const series = [...flops.matchAll(/<path class="series" data-series="([^"]+)"/g)].map((m) => m[1]);
    expect(series).toEqual(['aba', 'matrix-aba', 'lu:auto', 'lu:colamd', 'dense']);
    expect(XMLValidator.validate(readFileSync(join(out, 'spy.svg'), 'utf8'))).toBe(true);
  });

  it('writes a self-contained HTML page: d3 and the chart data inlined, no network reference', () => {
    const html = readFileSync(join(out, 'index.html'), 'utf8');
    expect(html).toContain('<title>Tiny &lt;study&gt;</title>');
    expect(html).toMatch(/d3js\.org v7/);
    expect(html).not.toMatch(/<(script|link|img)[^>]+(src|href)="https?:/);
    const data = /const CHARTS = (\[.*\]);\n/.exec(html);
    expect(data).not.toBeNull();
    const charts = JSON.parse(data![1]) as { id: string }[];
    for (const c of charts) expect(html).toContain(`id="chart-box-${c.id}"`);
    // the paper's data is third-party: its section only when the shared folder is there
    if (HAS_SHARED) expect(html).toContain('Reproduction of Figure 1');
    else expect(html).not.toContain('Reproduction of Figure 1');
    expect(html).toContain('<div class="spy">');
    expect(existsSync(join(out, 'charts', `${charts[0].id}.svg`))).toBe(true);
  });

  it('names a configuration error', async () => {
    writeFileSync(join(dir, 'bad.json'), JSON.stringify({ ...config, solvers: ['lu:fastest'] }));
    const b = await run(['study', join(dir, 'bad.json'), '--out', join(dir, 'bad')]);
    expect(b.code).toBe(2);
    expect(b.err).toMatch(/^sparsedyn: [^ ]*bad\.json: solvers\[0\] "lu:fastest": unknown ordering "fastest"/);
  });

  it('refuses to run, writing nothing, when a robot file of the study is not there', async () => {
    const missing = join(dir, 'robots', 'absent.urdf');
    writeFileSync(join(dir, 'absent.json'), JSON.stringify({ ...config, models: [...config.models, `${missing}+floating`] }));
    const a = await run(['study', join(dir, 'absent.json'), '--out', join(dir, 'absent')]);
    expect(a.code).toBe(2);
    expect(a.err).toBe(`sparsedyn: ${join(dir, 'absent.json')}: the robot files of the study are not here (${missing}); nothing was run\n`);
    expect(existsSync(join(dir, 'absent'))).toBe(false);
  });
});
