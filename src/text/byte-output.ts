/**
 * Text written as UTF-8 bytes into one growing array: the lines of an output that goes to a file or
 * to another thread as bytes, so that text already held as bytes (the numbers printed by
 * WebAssembly, json-lines.ts) is copied as it is instead of made a string and encoded again.
 * Browser-safe.
 */
export class ByteOutput {
  private buf: Uint8Array;
  private at = 0;
  private readonly encoder = new TextEncoder();

  constructor(size = 1 << 16) {
    this.buf = new Uint8Array(size);
  }

  /** bytes written so far */
  get length(): number { return this.at; }

  /** Drop the last n bytes written. */
  drop(n: number): void {
    this.at = Math.max(0, this.at - n);
  }

  /** bytes as they are */
  bytes(b: Uint8Array): void {
    this.room(b.length);
    this.buf.set(b, this.at);
    this.at += b.length;
  }

  /** one byte (c in 0–255) */
  byte(c: number): void {
    this.room(1);
    this.buf[this.at++] = c;
  }

  /** a string, as UTF-8 */
  text(s: string): void {
    // room for ASCII; more where it is not (at most 3 bytes a UTF-16 unit)
    this.room(s.length);
    let done = this.encoder.encodeInto(s, this.buf.subarray(this.at));
    if (done.read < s.length) {
      this.room(3 * s.length);
      done = this.encoder.encodeInto(s, this.buf.subarray(this.at));
    }
    this.at += done.written;
  }

  /** A copy of everything written (its own buffer, which may be moved to another thread), and a fresh start. */
  take(): Uint8Array {
    const out = this.buf.slice(0, this.at);
    this.at = 0;
    return out;
  }

  private room(n: number): void {
    if (this.at + n <= this.buf.length) return;
    const more = new Uint8Array(Math.max(2 * this.buf.length, this.at + n));
    more.set(this.buf.subarray(0, this.at));
    this.buf = more;
  }
}
