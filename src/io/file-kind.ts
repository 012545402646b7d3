/**
 * What a file that should be text is instead, from its first bytes: a compressed file (gzip, zstd,
 * xz, bzip2, zip, 7z, by their magic numbers, with the command that opens it) or binary data (a NUL
 * byte, or bytes that are not UTF-8, in the first 4 kB). Used where a text file (a log, a URDF) is
 * opened, so that the message says what the file is rather than what its text lacks.
 * Browser-safe.
 */

/** A file's kind when it is not text: what it is, and what to do (one phrase each). */
export interface NotText {
  /** "a gzip file", "binary data" */
  what: string;
  /** what to do, e.g. "decompress it first (zcat log.ndjson.gz > log.ndjson)" */
  hint: string;
  /** the command that writes the decompressed bytes to standard output (`zcat FILE`), for a compressed file */
  stream?: string;
}

const MAGIC: { bytes: number[]; what: string; tool?: string; stream?: string }[] = [
  { bytes: [0x1f, 0x8b], what: 'a gzip file', stream: 'zcat' },
  { bytes: [0x28, 0xb5, 0x2f, 0xfd], what: 'a zstd file', stream: 'zstdcat' },
  { bytes: [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00], what: 'an xz file', stream: 'xzcat' },
  { bytes: [0x42, 0x5a, 0x68], what: 'a bzip2 file', stream: 'bzcat' },
  { bytes: [0x50, 0x4b, 0x03, 0x04], what: 'a zip archive', tool: 'unzip' },
  { bytes: [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c], what: 'a 7z archive', tool: '7z x' },
];

/**
 * What the bytes that begin a file are, when they are not text (null for text, and for nothing yet).
 * `file` names the file in the hint (a stream: "FILE").
 */
export function notText(head: Uint8Array, file = 'FILE'): NotText | null {
  if (head.length === 0) return null;
  for (const m of MAGIC) {
    if (head.length >= m.bytes.length && m.bytes.every((b, k) => head[k] === b)) {
      return {
        what: m.what,
        hint: m.stream ? `decompress it first (${m.stream} ${file} > ${file.replace(/\.(gz|tgz|zst|xz|bz2)$/i, '') === file ? 'NEW_FILE' : file.replace(/\.(gz|tgz|zst|xz|bz2)$/i, '')})` : `extract it first (${m.tool} ${file})`,
        ...(m.stream ? { stream: `${m.stream} ${file}` } : {}),
      };
    }
  }
  const part = head.subarray(0, 4096);
  if (part.includes(0)) return { what: 'binary data (it holds NUL bytes)', hint: 'is it the right file?' };
  // bytes that are not UTF-8 (a cut at the end of the part is not counted)
  const text = new TextDecoder('utf-8').decode(part.length === 4096 ? part.subarray(0, 4092) : part);
  let bad = 0;
  for (let k = 0; k < text.length; k++) if (text.charCodeAt(k) === 0xfffd) bad++;
  if (bad > 0 && bad >= 0.01 * text.length) return { what: 'binary data (it is not UTF-8 text)', hint: 'is it the right file?' };
  return null;
}
