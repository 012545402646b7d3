/**
 * Write a study's outputs into its folder: points.csv, points.json, index.html (self-contained),
 * one SVG per chart (charts/<id>.svg) and spy.svg. Reads d3's minified bundle from node_modules and
 * the paper's CSV named by the configuration.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, relative } from 'node:path';
import { studyCsv, studyJson } from '../study/output.ts';
import type { StudyResult } from '../study/runner.ts';
import { chartSvg, type ChartSpec } from './charts.ts';
import { parsePaperCsv, type PaperTable } from './paper-data.ts';
import { figure1Section, figure2Section } from './reproduction.ts';
import { spyPanels, spySvg } from './spy.ts';
import { figure1Chart, figure2Chart, sweepCharts } from './study-charts.ts';
import { studyPage, type PageInput } from './study-page.ts';

export interface WrittenStudy {
  dir: string;
  files: string[];
  charts: ChartSpec[];
  paper?: PaperTable;
}

/** d3's minified UMD bundle (node_modules/d3/dist/d3.min.js). */
export function d3MinSource(): string {
  const main = createRequire(import.meta.url).resolve('d3');
  return readFileSync(join(dirname(main), 'd3.min.js'), 'utf8');
}

/** The paper table a study's configuration names, or undefined with a note when it is missing. */
export function loadPaperTable(r: StudyResult): PaperTable | undefined {
  const p = r.config.paper;
  if (!p) return undefined;
  if (!existsSync(p.csv)) {
    r.notes.push(`paper.csv: ${p.csv} not found; the paper's data is not overlaid`);
    return undefined;
  }
  return parsePaperCsv(readFileSync(p.csv, 'utf8'), p.csv);
}

/**
 * Write everything into `dir`. `root` is the folder paths are shown relative to (the repository),
 * `configText` the configuration file as given.
 */
export function writeStudy(r: StudyResult, dir: string, opts: { root: string; configText: string }): WrittenStudy {
  mkdirSync(join(dir, 'charts'), { recursive: true });
  // a path inside the repository relative to it; a robot file from elsewhere (another project's) by its file name
  const rel = (p: string) => {
    if (!p.startsWith('/')) return p;
    const r = relative(opts.root, p);
    return r.startsWith('..') ? basename(p) : r;
  };
  const paper = loadPaperTable(r);
  const charts = sweepCharts(r);
  const paperCharts: ChartSpec[] = [];
  const sections: PageInput['sections'] = [];
  if (paper && r.config.paper) {
    const fam = r.config.paper.model;
    if (r.config.paper.figure === 1) {
      paperCharts.push(figure1Chart(r, paper, fam));
      sections.push(figure1Section(r, paper, fam));
    } else {
      paperCharts.push(figure2Chart(r, paper, fam));
      sections.push(figure2Section(r, paper, fam));
    }
  }
  const files = ['points.csv', 'points.json'];
  writeFileSync(join(dir, 'points.csv'), studyCsv(r, rel));
  writeFileSync(join(dir, 'points.json'), studyJson(r, rel));
  for (const spec of [...paperCharts, ...charts]) {
    const f = `charts/${spec.id}.svg`;
    writeFileSync(join(dir, f), chartSvg(spec));
    files.push(f);
  }
  let spy: string | undefined;
  if (r.spy) {
    // the caption names the model as run: show a URDF path relative to the root, as in the points
    const caption = r.spy.caption.split(`${opts.root}/`).join('').replace(/\/[^\s"]*\/([^/\s"]+\.urdf)/g, '$1');
    spy = spySvg(spyPanels(r.spy.sys, r.spy.S), { panelSize: 360, aggregateAbove: 400, caption });
    writeFileSync(join(dir, 'spy.svg'), spy);
    files.push('spy.svg');
  }
  const html = studyPage({ result: r, charts, paperCharts, sections, spySvg: spy, d3Source: d3MinSource(), files, configText: opts.configText });
  writeFileSync(join(dir, 'index.html'), html);
  files.unshift('index.html');
  return { dir, files, charts: [...paperCharts, ...charts], paper };
}
