/**
 * Why an XML text is not well formed, in the words of someone who wrote it: a file cut short (its
 * end falls inside a tag, a comment or quotes, or leaves elements open) is said to be cut short,
 * at its last line, with the elements it leaves open; other problems are fast-xml-parser's
 * validator findings reworded, at the validator's line. Browser-safe (no file access).
 */

/** A problem of an XML text: what, and the 1-based line it is on. */
export interface XmlProblem {
  message: string;
  line: number;
}

/** the element names open at the end of a text, outermost first, and where the end falls */
interface EndState {
  open: { name: string; line: number }[];
  inside: '' | 'a tag' | 'a comment' | 'a CDATA section' | 'a processing instruction' | 'a declaration';
  /** the tag that opened what the end falls inside (its name and line) */
  at?: { name: string; line: number };
}

/** 1-based line of an offset. */
function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let k = text.indexOf('\n'); k >= 0 && k < offset; k = text.indexOf('\n', k + 1)) line++;
  return line;
}

/**
 * The elements a text leaves open at its end, or null when a closing tag does not match the
 * element it closes (a mistake in the middle, which the validator's words describe better).
 */
function endState(text: string): EndState | null {
  const open: { name: string; line: number }[] = [];
  // the line of an offset, counted on from the last one asked (offsets only grow here: counting from
  // the start for each open element was quadratic, 2 s for a 100 kB file of unclosed tags)
  let lineFrom = 0, lineThere = 1;
  const lineOf = (offset: number): number => {
    for (let k = text.indexOf('\n', lineFrom); k >= 0 && k < offset; k = text.indexOf('\n', k + 1)) lineThere++;
    lineFrom = offset;
    return lineThere;
  };
  let i = text.indexOf('<');
  while (i >= 0) {
    const rest = (from: string, end: string, inside: EndState['inside']): number | EndState => {
      const k = text.indexOf(end, i + from.length);
      return k < 0 ? { open, inside, at: { name: from, line: lineOf(i) } } : k + end.length;
    };
    let next: number | EndState;
    if (text.startsWith('<!--', i)) next = rest('<!--', '-->', 'a comment');
    else if (text.startsWith('<![CDATA[', i)) next = rest('<![CDATA[', ']]>', 'a CDATA section');
    else if (text.startsWith('<?', i)) next = rest('<?', '?>', 'a processing instruction');
    else if (text.startsWith('<!', i)) next = rest('<!', '>', 'a declaration');
    else {
      // a start or end tag: its name, then to its ">" outside quotes
      const close = text[i + 1] === '/';
      const name = /^[^\s/>]*/.exec(text.slice(i + (close ? 2 : 1), i + 200))![0];
      let k = i + 1, quote = '';
      for (; k < text.length; k++) {
        const c = text[k];
        if (quote) { if (c === quote) quote = ''; } else if (c === '"' || c === "'") quote = c;
        else if (c === '>') break;
      }
      if (k >= text.length) return { open, inside: 'a tag', at: { name: close ? `/${name}` : name, line: lineOf(i) } };
      if (close) {
        if (open.length === 0 || open[open.length - 1].name !== name) return null;
        open.pop();
      } else if (text[k - 1] !== '/') open.push({ name, line: lineOf(i) });
      next = k + 1;
    }
    if (typeof next !== 'number') return next;
    i = text.indexOf('<', next);
  }
  return { open, inside: '' };
}

/** The validator's message reworded (its line is kept by the caller). */
function reword(msg: string): string {
  const m = (re: RegExp) => re.exec(msg);
  let x: RegExpExecArray | null;
  if ((x = m(/^Attributes for '(.*)' have open quote\.$/))) return `an attribute of <${x[1]}> opens a quote that does not close`;
  if ((x = m(/^Closing tag '(.*)' doesn't have proper closing\.$/))) return `the closing tag </${x[1]}> does not end with ">"`;
  if ((x = m(/^Closing tag '(.*)' can't have attributes or invalid starting\.$/))) return `the closing tag </${x[1]}> has something after its name (a closing tag has no attributes)`;
  if ((x = m(/^Closing tag '(.*)' has not been opened\.$/))) return `</${x[1]}> closes an element that is not open`;
  if ((x = m(/^Expected closing tag '(.*)' \(opened in line (\d+), col \d+\) instead of closing tag '(.*)'\.$/))) return `</${x[3]}> comes where </${x[1]}> should close the <${x[1]}> of line ${x[2]}`;
  if ((x = m(/^Unclosed tag '(.*)'\.$/))) return `<${x[1]}> is never closed`;
  if (msg === 'Multiple possible root nodes found.') return 'more than one element at the top level (a URDF file has one, <robot>)';
  if (msg === 'Extra text at the end') return 'text after the end of the top-level element';
  if (msg === 'Start tag expected.') return 'no element at all: this is not an XML file';
  if (msg === 'XML declaration allowed only at the start of the document.') return 'an XML declaration <?xml …?> that is not at the start of the file';
  if (msg === "Invalid space after '<'.") return 'a space after "<" (a tag\'s name follows "<" directly)';
  if ((x = m(/^char '(.*)' is not expected\.$/))) return x[1] === '&' ? 'a bare "&" (write &amp;)' : `an unexpected character ${JSON.stringify(x[1])}`;
  if ((x = m(/^Tag '(.*)' is an invalid name\.$/))) return `<${x[1]}> is not a valid element name`;
  if ((x = m(/^Attribute '(.*)' has no space in starting\.$/))) return `attribute ${x[1]} follows the one before it without a space`;
  if ((x = m(/^Attribute '(.*)' is without value\.$/))) return `attribute ${x[1]} has no value (write ${x[1]}="…")`;
  if ((x = m(/^boolean attribute '(.*)' is not allowed\.$/))) return `attribute ${x[1]} has no value (write ${x[1]}="…")`;
  if ((x = m(/^Attribute '(.*)' is an invalid name\.$/))) return `${JSON.stringify(x[1])} is not a valid attribute name`;
  if ((x = m(/^Attribute '(.*)' is repeated\.$/))) return `attribute ${x[1]} is given twice in one element`;
  return msg.replace(/\.$/, '');
}

/**
 * Why `text` is not well formed XML, given the validator's finding (its message and line): cut
 * short at its end, or the finding reworded.
 */
export function xmlProblem(text: string, found: { msg: string; line: number }): XmlProblem {
  if (/[\u0000\ufffd]/.test(text.slice(0, 4096))) return { message: 'the text holds bytes that are not UTF-8 text (binary data: is it the right file?)', line: lineAt(text, text.search(/[\u0000\ufffd]/)) };
  const end = endState(text);
  if (end !== null && (end.inside !== '' || end.open.length > 0)) {
    const last = lineAt(text, text.trimEnd().length);
    const name = (e: { name: string; line: number }) => `<${e.name}> (line ${e.line})`;
    const open = end.open.length > 5 ? [name(end.open[0]), '…', ...end.open.slice(-3).map(name)] : end.open.map(name);
    const still = open.length ? `${open.join(', ')} still open` : '';
    if (end.inside !== '') {
      const at = end.inside === 'a tag' ? `<${end.at!.name}, line ${end.at!.line}` : `from line ${end.at!.line}`;
      return { message: `the file ends inside ${end.inside} (${at})${still ? `, with ${still}` : ''}: it is cut short (an interrupted copy or download?)`, line: last };
    }
    const closing = end.open.slice().reverse().map((e) => `</${e.name}>`);
    return {
      message: `the file ends with ${still}: it is cut short (an interrupted copy or download?), or ${closing.length > 4 ? `${closing.slice(0, 4).join(', ')}, …` : closing.join(', ')} ${closing.length === 1 ? 'is' : 'are'} missing`,
      line: last,
    };
  }
  return { message: reword(found.msg), line: found.line };
}
