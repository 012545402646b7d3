/**
 * The first syntax error of strict JSON text (no comments, no trailing commas): where it is and of
 * what kind, for json-text.ts to name when JSON.parse gives no position. The scanner and the
 * recursive descent follow Microsoft's jsonc-parser (MIT licence; its scanner.ts and parser.ts,
 * `visit` in strict mode) token for token, so the offsets and kinds are the ones that package
 * reports (spec/io/json-locate.spec.ts compares them on thousands of broken texts); it stops at the
 * first error. Written here rather than imported: jsonc-parser's "main" is a UMD build that a
 * bundler for Node (esbuild --platform=node) cannot follow, so a program importing sparsedyn would
 * fail at run time once bundled. The caller keeps the nesting within JSON_LOCATOR_DEPTH (the
 * descent recurses once per level).
 */

/** Kinds of syntax errors (jsonc-parser's ParseErrorCode numbers). */
export const ParseErrorCode = {
  InvalidSymbol: 1, InvalidNumberFormat: 2, PropertyNameExpected: 3, ValueExpected: 4, ColonExpected: 5, CommaExpected: 6,
  CloseBraceExpected: 7, CloseBracketExpected: 8, EndOfFileExpected: 9, InvalidCommentToken: 10, UnexpectedEndOfComment: 11,
  UnexpectedEndOfString: 12, UnexpectedEndOfNumber: 13, InvalidUnicode: 14, InvalidEscapeCharacter: 15, InvalidCharacter: 16,
} as const;
export type ParseErrorCode = (typeof ParseErrorCode)[keyof typeof ParseErrorCode];

/** A syntax error: its kind, and the offset and length of the token it was found at. */
export interface ParseError {
  error: ParseErrorCode;
  offset: number;
  length: number;
}

// token kinds
const OPEN_BRACE = 1, CLOSE_BRACE = 2, OPEN_BRACKET = 3, CLOSE_BRACKET = 4, COMMA = 5, COLON = 6, NULL = 7, TRUE = 8, FALSE = 9,
  STRING = 10, NUMBER = 11, LINE_COMMENT = 12, BLOCK_COMMENT = 13, LINE_BREAK = 14, TRIVIA = 15, UNKNOWN = 16, EOF = 17;
// scan errors
const NO_ERROR = 0, END_OF_COMMENT = 1, END_OF_STRING = 2, END_OF_NUMBER = 3, BAD_UNICODE = 4, BAD_ESCAPE = 5, BAD_CHARACTER = 6;

const isWhiteSpace = (c: number) => c === 32 || c === 9;
const isLineBreak = (c: number) => c === 10 || c === 13;
const isDigit = (c: number) => c >= 48 && c <= 57;
/** a character that continues a word (a literal or an unknown symbol) */
const isWordCharacter = (c: number) => !(isWhiteSpace(c) || isLineBreak(c) || c === 125 || c === 93 || c === 123 || c === 91 || c === 34 || c === 58 || c === 44 || c === 47);

/** thrown at the first error: the descent stops there */
class Stop {}

/**
 * Strict JSON's first syntax error in `text`, pushed on `errors` (nothing when the text is valid).
 * The signature of jsonc-parser's `parse` (the options are those json-text.ts passes: strict JSON).
 */
export function parse(text: string, errors: ParseError[], _options?: { allowTrailingComma?: false; disallowComments?: true; allowEmptyContent?: false }): void {
  const len = text.length;
  let pos = 0, tokenOffset = 0, token = UNKNOWN, scanError = NO_ERROR, word = '';

  const fail = (error: ParseErrorCode): never => {
    errors.push({ error, offset: tokenOffset, length: pos - tokenOffset });
    throw new Stop();
  };

  function scanHex4(): boolean {
    for (let k = 0; k < 4; k++) {
      const c = text.charCodeAt(pos);
      if (!(isDigit(c) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102))) return false;
      pos++;
    }
    return true;
  }

  function scanNumber(): string {
    const start = pos;
    if (text.charCodeAt(pos) === 48) pos++;
    else { pos++; while (pos < len && isDigit(text.charCodeAt(pos))) pos++; }
    if (pos < len && text.charCodeAt(pos) === 46) {
      pos++;
      if (pos < len && isDigit(text.charCodeAt(pos))) { pos++; while (pos < len && isDigit(text.charCodeAt(pos))) pos++; }
      else { scanError = END_OF_NUMBER; return text.substring(start, pos); }
    }
    let end = pos;
    if (pos < len && (text.charCodeAt(pos) === 69 || text.charCodeAt(pos) === 101)) {
      pos++;
      // (jsonc-parser's precedence: a "-" is taken even at the end of the text)
      if ((pos < len && text.charCodeAt(pos) === 43) || text.charCodeAt(pos) === 45) pos++;
      if (pos < len && isDigit(text.charCodeAt(pos))) { pos++; while (pos < len && isDigit(text.charCodeAt(pos))) pos++; end = pos; }
      else scanError = END_OF_NUMBER;
    }
    return text.substring(start, end);
  }

  function scanString(): void {
    for (;;) {
      if (pos >= len) { scanError = END_OF_STRING; return; }
      const c = text.charCodeAt(pos);
      if (c === 34) { pos++; return; }
      if (c === 92) {
        pos++;
        if (pos >= len) { scanError = END_OF_STRING; return; }
        const c2 = text.charCodeAt(pos++);
        if (c2 === 117) { if (!scanHex4()) scanError = BAD_UNICODE; } else if (![34, 92, 47, 98, 102, 110, 114, 116].includes(c2)) scanError = BAD_ESCAPE;
        continue;
      }
      if (c >= 0 && c <= 0x1f) {
        if (isLineBreak(c)) { scanError = END_OF_STRING; return; }
        scanError = BAD_CHARACTER;
      }
      pos++;
    }
  }

  function scan(): number {
    scanError = NO_ERROR;
    tokenOffset = pos;
    if (pos >= len) { tokenOffset = len; return (token = EOF); }
    let c = text.charCodeAt(pos);
    if (isWhiteSpace(c)) { do { pos++; c = text.charCodeAt(pos); } while (isWhiteSpace(c)); return (token = TRIVIA); }
    if (isLineBreak(c)) { pos++; if (c === 13 && text.charCodeAt(pos) === 10) pos++; return (token = LINE_BREAK); }
    switch (c) {
      case 123: pos++; return (token = OPEN_BRACE);
      case 125: pos++; return (token = CLOSE_BRACE);
      case 91: pos++; return (token = OPEN_BRACKET);
      case 93: pos++; return (token = CLOSE_BRACKET);
      case 58: pos++; return (token = COLON);
      case 44: pos++; return (token = COMMA);
      case 34: pos++; scanString(); return (token = STRING);
      case 47:
        if (text.charCodeAt(pos + 1) === 47) {
          pos += 2;
          while (pos < len && !isLineBreak(text.charCodeAt(pos))) pos++;
          return (token = LINE_COMMENT);
        }
        if (text.charCodeAt(pos + 1) === 42) {
          pos += 2;
          let closed = false;
          while (pos < len - 1) {
            const ch = text.charCodeAt(pos);
            if (ch === 42 && text.charCodeAt(pos + 1) === 47) { pos += 2; closed = true; break; }
            pos++;
          }
          if (!closed) { pos++; scanError = END_OF_COMMENT; }
          return (token = BLOCK_COMMENT);
        }
        pos++;
        return (token = UNKNOWN);
      case 45:
        pos++;
        if (pos === len || !isDigit(text.charCodeAt(pos))) return (token = UNKNOWN);
        word = '-' + scanNumber();
        return (token = NUMBER);
      default:
        if (isDigit(c)) { word = scanNumber(); return (token = NUMBER); }
        while (pos < len && isWordCharacter(c)) { pos++; c = text.charCodeAt(pos); }
        if (tokenOffset !== pos) {
          const w = text.substring(tokenOffset, pos);
          return (token = w === 'true' ? TRUE : w === 'false' ? FALSE : w === 'null' ? NULL : UNKNOWN);
        }
        pos++;
        return (token = UNKNOWN);
    }
  }

  /** the next token that is not white space (comments, scan errors and unknown symbols are errors) */
  function next(): number {
    for (;;) {
      const t = scan();
      switch (scanError) {
        case BAD_UNICODE: fail(ParseErrorCode.InvalidUnicode); break;
        case BAD_ESCAPE: fail(ParseErrorCode.InvalidEscapeCharacter); break;
        case END_OF_NUMBER: fail(ParseErrorCode.UnexpectedEndOfNumber); break;
        case END_OF_STRING: fail(ParseErrorCode.UnexpectedEndOfString); break;
        case BAD_CHARACTER: fail(ParseErrorCode.InvalidCharacter); break;
        // an unclosed comment is reported as a comment (comments are not JSON)
      }
      if (t === LINE_COMMENT || t === BLOCK_COMMENT) fail(ParseErrorCode.InvalidCommentToken);
      if (t === UNKNOWN) fail(ParseErrorCode.InvalidSymbol);
      if (t !== TRIVIA && t !== LINE_BREAK) return t;
    }
  }

  function literal(): boolean {
    if (token === NUMBER) { if (Number.isNaN(Number(word))) fail(ParseErrorCode.InvalidNumberFormat); }
    else if (token !== NULL && token !== TRUE && token !== FALSE) return false;
    next();
    return true;
  }

  function property(): boolean {
    if (token !== STRING) fail(ParseErrorCode.PropertyNameExpected);
    next();
    if (token !== COLON) fail(ParseErrorCode.ColonExpected);
    next();
    if (!value()) fail(ParseErrorCode.ValueExpected);
    return true;
  }

  function object(): boolean {
    next();
    let needsComma = false;
    while (token !== CLOSE_BRACE && token !== EOF) {
      if (token === COMMA) {
        if (!needsComma) fail(ParseErrorCode.ValueExpected);
        next();
      } else if (needsComma) fail(ParseErrorCode.CommaExpected);
      property();
      needsComma = true;
    }
    if (token !== CLOSE_BRACE) fail(ParseErrorCode.CloseBraceExpected);
    next();
    return true;
  }

  function array(): boolean {
    next();
    let needsComma = false;
    while (token !== CLOSE_BRACKET && token !== EOF) {
      if (token === COMMA) {
        if (!needsComma) fail(ParseErrorCode.ValueExpected);
        next();
      } else if (needsComma) fail(ParseErrorCode.CommaExpected);
      if (!value()) fail(ParseErrorCode.ValueExpected);
      needsComma = true;
    }
    if (token !== CLOSE_BRACKET) fail(ParseErrorCode.CloseBracketExpected);
    next();
    return true;
  }

  function value(): boolean {
    if (token === OPEN_BRACKET) return array();
    if (token === OPEN_BRACE) return object();
    if (token === STRING) { next(); return true; }
    return literal();
  }

  try {
    next();
    if (token === EOF) fail(ParseErrorCode.ValueExpected);
    if (!value()) fail(ParseErrorCode.ValueExpected);
    if (token !== EOF) fail(ParseErrorCode.EndOfFileExpected);
  } catch (e) {
    if (!(e instanceof Stop)) throw e;
  }
}
