/**
 * The code blocks of the guide's pages (docs/**.md, README.md) and what the page says about each:
 * an HTML comment on the line before a fence, invisible on the site and on GitHub, carries the
 * test's directives, separated by `;`:
 *   <!-- test: skip REASON -->        not run (counted, with its reason; last, as the reason may hold `;`)
 *   <!-- test: exit N -->             the block's expected exit code (default 0)
 *   <!-- test: file NAME -->          a data block written to NAME in the page's folder before the blocks after it run
 *   <!-- test: excerpt FILE -->       a JSON excerpt ("key": value, …) equal to those keys of FILE
 *   <!-- test: fragment -->           JSON members without the braces ("key": value): must parse once wrapped
 *   <!-- test: output -->             a text block: each of its lines appears, in order, in the output of the run block before it (… matches anything)
 *   <!-- test: shared PATH …  -->     copy these files of the shared test material into the page's folder first
 *   <!-- test: needs COMMAND -->      a program the block needs (COMMAND exits 0 when it is there): without it,
 *                                     outside CI, the block and those after it are not run (one line says so)
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

export interface Block {
  /** page, relative to the repository */
  page: string;
  /** 1-based line of the opening fence */
  line: number;
  lang: string;
  code: string;
  skip?: string;
  exit: number;
  file?: string;
  excerpt?: string;
  fragment: boolean;
  output: boolean;
  shared: string[];
  /** a command that exits 0 when what the block needs is installed (`needs`) */
  needs?: string;
}

/** languages whose blocks are programs: each is run, or marked skipped with a reason */
export const RUN_LANGS = new Set(['sh', 'bash', 'shell', 'ts', 'typescript', 'js', 'javascript', 'python', 'html']);
/** languages of data: JSON is parsed (or written, or compared with its file), text and CSV are shown */
export const DATA_LANGS = new Set(['json', 'text', 'csv', 'ndjson', '']);

/** The code blocks of one Markdown file, with their directives. */
export function blocksOf(root: string, file: string): Block[] {
  const lines = readFileSync(join(root, file), 'utf8').split('\n');
  const out: Block[] = [];
  for (let k = 0; k < lines.length; k++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([\w-]*)/.exec(lines[k]);
    if (!open) continue;
    const [, indent, fence, lang] = open;
    const body: string[] = [];
    let end = k + 1;
    for (; end < lines.length; end++) {
      if (lines[end].trimStart().startsWith(fence) && lines[end].trim().replace(/[`~]/g, '') === '') break;
      body.push(lines[end].startsWith(indent) ? lines[end].slice(indent.length) : lines[end]);
    }
    const block: Block = { page: file, line: k + 1, lang: lang.toLowerCase(), code: body.join('\n'), exit: 0, fragment: false, output: false, shared: [] };
    const comment = /^\s*<!--\s*test:\s*(.*?)\s*-->\s*$/.exec(lines[k - 1] ?? '');
    if (comment) {
      // `skip REASON` comes last: its reason may hold `;`
      const text = comment[1];
      const skipAt = /(^|;)\s*skip\b/.exec(text);
      if (skipAt) block.skip = text.slice(skipAt.index + skipAt[0].length).trim() || '(no reason given)';
      for (const d of (skipAt ? text.slice(0, skipAt.index) : text).split(';').map((x) => x.trim()).filter(Boolean)) {
        const [word, ...rest] = d.split(/\s+/);
        const arg = d.slice(word.length).trim();
        if (word === 'exit') block.exit = Number(arg);
        else if (word === 'file') block.file = arg;
        else if (word === 'excerpt') block.excerpt = arg;
        else if (word === 'fragment') block.fragment = true;
        else if (word === 'output') block.output = true;
        else if (word === 'shared') block.shared = rest;
        else if (word === 'needs') block.needs = arg;
        else throw new Error(`${file}:${k}: unknown test directive "${word}"`);
      }
    }
    out.push(block);
    k = end;
  }
  return out;
}

/** The guide's Markdown pages: docs/ without the generated API pages and the site's build, and the README. */
export function guidePages(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(join(root, dir)).sort()) {
      const rel = join(dir, e);
      if (e.startsWith('.') || rel === join('docs', 'api') || e === 'node_modules') continue;
      if (statSync(join(root, rel)).isDirectory()) walk(rel);
      else if (e.endsWith('.md') && rel !== join('docs', 'api.md')) out.push(relative(root, join(root, rel)));
    }
  };
  walk('docs');
  return ['README.md', ...out];
}

/**
 * Does `output` contain the shown lines, in order? Each non-empty line of `shown` must be found
 * within one line of the output, after the line the previous one matched; `…` matches any text.
 * Returns the first shown line that is missing, or null.
 */
export function missingLine(output: string, shown: string): string | null {
  const lines = output.split('\n').map((l) => l.replace(/\x1b\[[0-9;]*m/g, ''));
  let at = 0;
  for (const want of shown.split('\n').map((l) => l.trim()).filter((l) => l !== '')) {
    const re = new RegExp(want.split('…').map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*'));
    let k = at;
    while (k < lines.length && !re.test(lines[k])) k++;
    if (k === lines.length) return want;
    at = k + 1;
  }
  return null;
}
