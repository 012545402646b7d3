/**
 * Warnings carried by a model: what was odd in its description but could be handled (an ignored
 * `<mimic>`, a placeholder inertia, a massless moving body, …). Each names the element in the
 * user's words, with the file and line when the model came from a file. Commands print them once
 * on stderr and carry them in their JSON output.
 */

export interface ModelWarning {
  /** stable, machine-readable kind, e.g. `mimic-ignored` */
  readonly code: string;
  /** the element as the user wrote it, e.g. `joint "knee"`, `link "base"` */
  readonly element?: string;
  /** file the model was read from, when known */
  readonly file?: string;
  /** 1-based line of the element in that file, when known */
  readonly line?: number;
  /** one sentence, prefixed with `file:line: ` when known */
  readonly message: string;
}

/** "file:line: ", "file: ", "line N: " or "" */
export function formatLocation(file: string | undefined, line: number | undefined): string {
  if (file !== undefined) return `${file}${line !== undefined ? `:${line}` : ''}: `;
  return line !== undefined ? `line ${line}: ` : '';
}

/** A warning whose message is `detail` prefixed by its location (and the element unless the detail names it). */
export function modelWarning(code: string, detail: string, where: { element?: string; file?: string; line?: number } = {}): ModelWarning {
  const named = where.element === undefined || detail.includes(where.element);
  const message = `${formatLocation(where.file, where.line)}${named ? '' : `${where.element}: `}${detail}`;
  return { code, ...where, message };
}
