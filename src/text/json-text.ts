/**
 * JSON files a user writes (problem files, state and inputs files, study configurations, reference
 * files): parsed by JSON.parse, and on a syntax error one line `FILE:LINE:COLUMN: not valid JSON:
 * <reason>`. Where JSON.parse gives no position (Node 20's "Unexpected token" messages, which
 * instead quote the text, over several lines for a multi-line file), json-locate.ts (jsonc-parser's
 * scanner and descent in strict JSON: no comments, no trailing commas) gives the offset of the first
 * error and its kind.
 * Browser-safe.
 */
import { parse as parseJsonc, ParseErrorCode, type ParseError } from './json-locate.ts';
import { clipMessage } from './clip.ts';

export { clipMessage, MESSAGE_LIMIT } from './clip.ts';

/** A JSON syntax error in a named file, at a line and column (1-based). */
export class JsonTextError extends Error {
  constructor(readonly file: string, readonly line: number, readonly column: number, readonly reason: string) {
    super(clipMessage(`${file}:${line}:${column}: not valid JSON: ${reason}`));
    this.name = 'JsonTextError';
  }
}

/** The text from `offset` on, as a message quotes it: up to the end of its line, 24 characters at most. */
function found(text: string, offset: number, length: number): string {
  if (offset >= text.length) return 'the end of the file';
  const s = text.slice(offset, offset + Math.max(1, Math.min(length, 24))).split(/\r?\n|\r/)[0];
  return s === '' ? 'the end of the line' : JSON.stringify(s);
}

/** A short reason for jsonc-parser's first error. */
function reasonOf(text: string, e: ParseError): string {
  const at = found(text, e.offset, e.length);
  const before = text.slice(0, e.offset).trimEnd();
  switch (e.error) {
    case ParseErrorCode.InvalidSymbol: return `unexpected ${at}`;
    case ParseErrorCode.ValueExpected:
      if (before.endsWith(',') && /^[\]}]/.test(text.slice(e.offset))) return `trailing comma before ${at}`;
      return `a value expected, found ${at}`;
    case ParseErrorCode.PropertyNameExpected:
      if (before.endsWith(',') && text[e.offset] === '}') return `trailing comma before ${at}`;
      return `a property name in double quotes expected, found ${at}`;
    case ParseErrorCode.ColonExpected: return `":" expected, found ${at}`;
    case ParseErrorCode.CommaExpected: return `"," expected, found ${at}`;
    case ParseErrorCode.CloseBraceExpected: return `"}" expected, found ${at}`;
    case ParseErrorCode.CloseBracketExpected: return `"]" expected, found ${at}`;
    case ParseErrorCode.EndOfFileExpected: return `unexpected ${at} after the JSON value`;
    case ParseErrorCode.InvalidCommentToken:
    case ParseErrorCode.UnexpectedEndOfComment: return 'comments are not JSON';
    case ParseErrorCode.UnexpectedEndOfString: return 'unterminated string';
    case ParseErrorCode.UnexpectedEndOfNumber:
    case ParseErrorCode.InvalidNumberFormat: return `incomplete number ${at}`;
    case ParseErrorCode.InvalidUnicode: return 'bad \\u escape in a string';
    case ParseErrorCode.InvalidEscapeCharacter: return 'bad escape in a string';
    case ParseErrorCode.InvalidCharacter: return 'control character in a string';
    default: return `unexpected ${at}`;
  }
}

function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  let line = 1;
  for (let k = before.indexOf('\n'); k >= 0; k = before.indexOf('\n', k + 1)) line++;
  return { line, column: offset - before.lastIndexOf('\n') };
}

/** Characters of a user's text that a message quotes at most (a longer one is shortened, its length given). */
export const QUOTE_LIMIT = 60;

/** `"text"` as JSON quotes it, shortened past QUOTE_LIMIT characters: `"abc…" (10,000,000 characters)`. */
export function quoteText(s: string): string {
  if (s.length <= QUOTE_LIMIT) return JSON.stringify(s);
  return `${JSON.stringify(s.slice(0, QUOTE_LIMIT))}… (${s.length.toLocaleString('en-US')} characters)`.replace(/"…/, '…"');
}

/**
 * A JSON value as a message shows it: a number or a literal as written, a string quoted (shortened
 * by quoteText), a list or an object by its kind and size (never stringified: it may nest thousands
 * of levels deep or hold megabytes).
 */
export function describeValue(x: unknown): string {
  if (x === undefined) return 'missing';
  if (typeof x === 'string') return quoteText(x);
  if (x === null || typeof x === 'number' || typeof x === 'boolean') return String(x);
  if (Array.isArray(x)) return x.length === 0 ? 'an empty list' : `a list of ${x.length}`;
  if (typeof x === 'object') return 'an object';
  return typeof x;
}

/** Nesting of JSON text beyond which the syntax error locator does not recurse (it would overflow the stack). */
export const JSON_LOCATOR_DEPTH = 500;

/** The offset where `text` first nests deeper than `limit` brackets (strings skipped), or -1. */
function tooDeepAt(text: string, limit: number): number {
  let depth = 0;
  for (let k = 0; k < text.length; k++) {
    const c = text.charCodeAt(k);
    if (c === 34) {
      // a string: skip to its closing quote (escapes skipped)
      for (k++; k < text.length; k++) {
        const d = text.charCodeAt(k);
        if (d === 92) k++;
        else if (d === 34 || d === 10 || d === 13) break; // (a line break ends a string for jsonc-parser too)
      }
    } else if (c === 91 || c === 123) {
      if (++depth > limit) return k;
    } else if (c === 93 || c === 125) depth--;
  }
  return -1;
}

/**
 * The error of JSON text that JSON.parse refused with `message`: at JSON.parse's position when it
 * gives one (exact, also inside strings), else at jsonc-parser's first error.
 */
export function jsonTextError(file: string, text: string, message: string): JsonTextError {
  const v8 = message.split('\n')[0];
  const lc = /\(line (\d+) column (\d+)\)/.exec(v8);
  const pos = /at position (\d+)/.exec(v8);
  const v8Reason = v8.replace(/\s*\(line \d+ column \d+\)/, '').replace(/\s*in JSON at position \d+/, '').replace(/^JSON\.parse: /, '');
  const errors: ParseError[] = [];
  const deep = tooDeepAt(text, JSON_LOCATOR_DEPTH);
  if (deep >= 0 && !lc && !pos) {
    // jsonc-parser recurses once per level: past the limit, the error is told where the nesting gets too deep
    const { line, column } = lineColumn(text, deep);
    return new JsonTextError(file, line, column, `nested more than ${JSON_LOCATOR_DEPTH} levels deep, with a syntax error further on`);
  }
  if (deep < 0) parseJsonc(text, errors, { allowTrailingComma: false, disallowComments: true, allowEmptyContent: false });
  const first = errors.length ? errors.reduce((a, b) => (b.offset < a.offset ? b : a)) : null;
  // JSON.parse's position, with jsonc-parser's reason when it finds the error there (the same words for every engine)
  if (lc) return new JsonTextError(file, Number(lc[1]), Number(lc[2]), v8Reason);
  if (pos) {
    const p = Number(pos[1]);
    const { line, column } = lineColumn(text, p);
    return new JsonTextError(file, line, column, first && first.offset === p ? reasonOf(text, first) : v8Reason);
  }
  if (first) {
    const { line, column } = lineColumn(text, first.offset);
    return new JsonTextError(file, line, column, reasonOf(text, first));
  }
  // JSON.parse refused what jsonc-parser accepts (not met in the tests): the end of the text
  const { line, column } = lineColumn(text, text.length);
  return new JsonTextError(file, line, column, v8Reason.replace(/,? ".*" is not valid JSON$/s, '') || 'not valid JSON');
}

/** JSON.parse of a file's text (a UTF-8 byte order mark is skipped); a syntax error throws a JsonTextError. */
export function parseJsonText(text: string, file: string): unknown {
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  try {
    return JSON.parse(text);
  } catch (e) {
    throw jsonTextError(file, text, (e as Error).message);
  }
}
