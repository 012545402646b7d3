/**
 * JSON.stringify of a record, the same text, with the numbers printed by WebAssembly
 * (shortest-code.ts: Schubfach, the digits of String(x)) instead of the engine: for the lines of an
 * NDJSON output, whose ~270 numbers a line V8 prints at ~150 ns each (and a CSV line's numbers,
 * `list`). A record is given as its parts (`textOf`: the object they would spread into is never
 * made). A line's shape (its keys in
 * order, its arrays' lengths, its strings, booleans and nulls) is kept as a template: the text
 * between two numbers is a literal segment, copied by the printer, so only the numbers are printed
 * per line. Each line is walked once, its numbers gathered into the printer's slots and its shape
 * checked against the template (keys by identity; the walk's keys are the engine's interned
 * property names); a line of another shape takes one of the last few templates, else a new one is
 * made from it. The walk follows JSON.stringify: own enumerable keys in their order (integer-like
 * keys first, as Object.keys gives them), undefined values left out of objects, non-finite numbers
 * as null (the printer prints null). Values with a toJSON method (Dates) or that are not plain data
 * (functions, symbols, bigints, cycles) are not handled: the caller passes plain records only.
 * Browser-safe.
 */
import { ShortestPrinter } from './shortest-code.ts';

/** what a template node is */
const OBJECT = 0, ARRAY = 1, NUMBER = 2, LITERAL = 3;

/**
 * A template node (one class: the walk's property reads stay monomorphic): an object (its keys in
 * order and their nodes), an array (its elements' nodes), a number, or a literal (a string, a
 * boolean, null; undefined: an array's undefined element, which JSON.stringify writes as null).
 */
class Shape {
  constructor(
    readonly kind: number,
    readonly keys: readonly string[] = [],
    readonly kids: readonly Shape[] = [],
    readonly value: string | boolean | null | undefined = null,
  ) {}
}

const A_NUMBER = new Shape(NUMBER);

/** numbers a line may have (more: JSON.stringify) */
const CAPACITY = 8192;

/** templates kept besides the current one (lines of a few shapes alternating) */
const KEPT = 8;

/** a line's template: its shape, its literal segments (UTF-8), its number of numbers, whether all its bytes are ASCII */
interface Template { shape: Shape; segments: Uint8Array[]; count: number; ascii: boolean }

/** JSON lines with the numbers printed by WebAssembly (see the file's comment). @internal */
export class JsonLines {
  private readonly printer: ShortestPrinter;
  private templates: Template[] = [];
  private current: Template | null = null;
  /** the template of `list` (its last length) */
  private commas: Template | null = null;
  private n = 0;
  private nums: Float64Array;
  private readonly encoder = new TextEncoder();
  private readonly decoder = new TextDecoder();
  private readonly latin1 = new TextDecoder('latin1');

  private constructor(printer: ShortestPrinter) {
    this.printer = printer;
    this.nums = printer.nums;
  }

  /** null without WebAssembly (the caller uses JSON.stringify) */
  static create(): JsonLines | null {
    const p = ShortestPrinter.create(CAPACITY);
    return p === null ? null : new JsonLines(p);
  }

  /**
   * `list` as ASCII bytes: the printer's own output, valid until the next call (a string where the
   * list is longer than the printer takes)
   */
  listBytes(values: ArrayLike<number>, n: number): Uint8Array | string {
    if (n > this.printer.capacity) return JSON.stringify(Array.from({ length: n }, (_, k) => values[k])).slice(1, -1);
    let t = this.commas;
    if (t === null || t.count !== n) {
      const comma = this.encoder.encode(',');
      const segments = Array.from({ length: n + 1 }, (_, k) => (k === 0 || k === n ? new Uint8Array(0) : comma));
      t = this.commas = { shape: A_NUMBER, segments, count: n, ascii: true };
    }
    if (this.current !== t) {
      this.printer.setTemplate(t.segments);
      this.nums = this.printer.nums;
      this.current = t;
    }
    const nums = this.nums;
    for (let k = 0; k < n; k++) nums[k] = values[k];
    return this.printer.out.subarray(0, this.printer.line());
  }

  /**
   * values[0, n) as JSON.stringify(list).slice(1, −1) gives them: String(x) each (null where not
   * finite), joined by commas (a CSV line's numbers)
   */
  list(values: ArrayLike<number>, n: number): string {
    const x = this.listBytes(values, n);
    return typeof x === 'string' ? x : this.latin1.decode(x);
  }

  /**
   * JSON.stringify({ ...parts[0], ...parts[1], … }), the same text, without making that object: the
   * parts' keys must be distinct (a key in two parts would be written twice). Each part a plain
   * object (see the file's comment).
   */
  textOf(parts: readonly object[]): string {
    const x = this.bytesOf(parts);
    return typeof x === 'string' ? x : this.current!.ascii ? this.latin1.decode(x) : this.decoder.decode(x);
  }

  /**
   * `textOf` as UTF-8 bytes: the printer's own output, valid until the next call (a string where
   * the parts are not plain data the template takes, or have more numbers than the printer takes)
   */
  bytesOf(parts: readonly object[]): Uint8Array | string {
    let t = this.current;
    if (t === null || !this.fits(parts, t)) {
      t = null;
      for (const k of this.templates) if (k !== this.current && this.fits(parts, k)) { t = k; break; }
      if (t === null) t = this.make(parts);
      if (t.count > this.printer.capacity) return JSON.stringify(Object.assign({}, ...parts));
      this.printer.setTemplate(t.segments);
      this.nums = this.printer.nums;
      this.current = t;
      // gather again into the (possibly new) slots
      if (!this.fits(parts, t)) return JSON.stringify(Object.assign({}, ...parts));
    }
    return this.printer.out.subarray(0, this.printer.line());
  }

  /** whether the parts have the template's shape (one object of their keys); their numbers into the slots as it goes */
  private fits(parts: readonly object[], t: Template): boolean {
    this.n = 0;
    const s = t.shape;
    if (t.count > this.nums.length || s.kind !== OBJECT) return false;
    let i = 0;
    for (let p = 0; p < parts.length && i >= 0; p++) i = this.keysFrom(parts[p], s, i);
    return i === s.keys.length;
  }

  /**
   * The walk of a plain object's keys against the shape's keys from the i-th on (its numbers into
   * the slots): the index after its last key, or −1 where it differs.
   */
  private keysFrom(v: unknown, s: Shape, i: number): number {
    // a plain object: its for-in keys are its own (Object.prototype's are not enumerable)
    if (typeof v !== 'object' || v === null || Object.getPrototypeOf(v) !== Object.prototype) return -1;
    const o = v as Record<string, unknown>, keys = s.keys, kids = s.kids;
    for (const k in o) {
      const x = o[k];
      if (x === undefined) continue;
      if (i >= keys.length || k !== keys[i]) return -1;
      const c = kids[i++];
      if (c.kind === NUMBER) {
        if (typeof x !== 'number') return -1;
        this.nums[this.n++] = x;
      } else if (!this.walk(x, c)) return -1;
    }
    return i;
  }

  private walk(v: unknown, s: Shape): boolean {
    const kind = s.kind;
    if (kind === NUMBER) {
      if (typeof v !== 'number') return false;
      this.nums[this.n++] = v;
      return true;
    }
    if (kind === OBJECT) return this.keysFrom(v, s, 0) === s.keys.length;
    if (kind === ARRAY) {
      if (!Array.isArray(v) || v.length !== s.kids.length) return false;
      const kids = s.kids;
      for (let i = 0; i < v.length; i++) {
        const c = kids[i], x: unknown = v[i];
        if (c.kind === NUMBER) {
          if (typeof x !== 'number') return false;
          this.nums[this.n++] = x;
        } else if (!this.walk(x, c)) return false;
      }
      return true;
    }
    return v === s.value;
  }

  /** a template made from the shape of the parts (one object of their keys) */
  private make(parts: readonly object[]): Template {
    const segs: string[] = [];
    let lit = '';
    const shapeOf = (v: unknown): Shape => {
      if (typeof v === 'number') { segs.push(lit); lit = ''; return A_NUMBER; }
      if (typeof v === 'string' || typeof v === 'boolean' || v === null) { lit += JSON.stringify(v); return new Shape(LITERAL, [], [], v); }
      if (Array.isArray(v)) {
        lit += '[';
        const kids: Shape[] = [];
        for (let i = 0; i < v.length; i++) {
          if (i > 0) lit += ',';
          // JSON.stringify writes null for an undefined element
          const x = v[i];
          if (x === undefined) { lit += 'null'; kids.push(new Shape(LITERAL, [], [], undefined)); } else kids.push(shapeOf(x));
        }
        lit += ']';
        return new Shape(ARRAY, [], kids);
      }
      const keys: string[] = [], kids: Shape[] = [];
      lit += '{';
      membersOf(v, keys, kids);
      lit += '}';
      return new Shape(OBJECT, keys, kids);
    };
    /** a plain object's members, after those in keys and kids */
    const membersOf = (o: unknown, keys: string[], kids: Shape[]): void => {
      if (typeof o !== 'object' || o === null || Object.getPrototypeOf(o) !== Object.prototype) throw new TypeError(`JsonLines: a ${typeof o} is not plain data (numbers, strings, booleans, null, arrays and plain objects)`);
      for (const k in o) {
        const x = (o as Record<string, unknown>)[k];
        if (x === undefined) continue;
        if (keys.length > 0) lit += ',';
        lit += `${JSON.stringify(k)}:`;
        keys.push(k);
        kids.push(shapeOf(x));
      }
    };
    const keys: string[] = [], kids: Shape[] = [];
    lit += '{';
    for (const o of parts) membersOf(o, keys, kids);
    lit += '}';
    segs.push(lit);
    const segments = segs.map((x) => this.encoder.encode(x));
    const t: Template = { shape: new Shape(OBJECT, keys, kids), segments, count: segs.length - 1, ascii: segments.every((b) => b.every((c) => c < 0x80)) };
    this.templates.push(t);
    if (this.templates.length > KEPT) this.templates.shift();
    return t;
  }
}
