/**
 * Closest names, for "did you mean" hints: a name the user wrote (a log channel, a CSV column)
 * against the names a problem expects. Levenshtein's edit distance (insertions, deletions,
 * substitutions; Wagner–Fischer, one row of the table), on names compared without case.
 */

/** Edit distance between a and b (insertions, deletions and substitutions of one character each). */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  // row[j] = distance between a[0..i) and b[0..j), one row at a time
  const row = new Array<number>(b.length + 1);
  for (let j = 0; j <= b.length; j++) row[j] = j;
  for (let i = 1; i <= a.length; i++) {
    let diag = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = row[j];
      row[j] = Math.min(up + 1, row[j - 1] + 1, diag + (a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1));
      diag = up;
    }
  }
  return row[b.length];
}

/**
 * The candidate closest to `name` when it is close enough to be a slip of the keyboard: the same
 * name in other case, or at most one edit in four characters (at least one; `wrist_FT` for
 * `wrist_ft`, `ft_lef` for `ft_left`); undefined when none is. Ties go to the first candidate.
 */
export function closestName(name: string, candidates: Iterable<string>): string | undefined {
  const n = name.toLowerCase();
  const most = Math.max(1, Math.floor(name.length / 4));
  let best: string | undefined, bestD = Infinity;
  for (const c of candidates) {
    if (c === name) continue;
    const d = editDistance(n, c.toLowerCase());
    if (d <= most && d < bestD) { best = c; bestD = d; }
  }
  return best;
}
