/**
 * Change detection between two text snapshots: "unchanged", or the
 * lines added, removed and changed. Lines are matched by their ref, so an element whose state
 * changed (`[checked]`, a new value, a move inside its 10 px cell) is one changed line, while a
 * new element is an added line. Lines without a ref match by text. The last `(N offscreen)` line
 * is a count, not an element: it is compared as a number.
 *
 * @module
 */

/** The difference between two snapshots. */
export interface SnapshotDiff {
  unchanged: boolean;
  /** Lines only in the second snapshot, in its order. */
  added: string[];
  /** Lines only in the first snapshot, in its order. */
  removed: string[];
  /** Lines with the same ref and different text, in the second snapshot's order. */
  changed: { before: string; after: string }[];
  /** The `(N offscreen)` counts, when they differ. */
  offscreen?: { before: number; after: number };
}

const OFFSCREEN = /^\((\d+) offscreen\)$/;

/** The `(N offscreen)` count of a snapshot (0 without one). */
function offscreenCount(lines: string[]): number {
  for (const l of lines) {
    const m = OFFSCREEN.exec(l.trim());
    if (m) return Number(m[1]);
  }
  return 0;
}

const REF = /\[ref=([a-z]\d+[a-z]*)\]/;

function split(text: string): string[] {
  return text.split("\n").filter((l) => l.trim() !== "");
}

/**
 * Compares two rendered snapshots.
 *
 * @param a the earlier snapshot text
 * @param b the later snapshot text
 * @returns whether they are equal and, if not, the added, removed and changed lines
 * @example
 * ```ts
 * const d = diffSnapshots('- Switch "Wi-Fi" [ref=y778]\n', '- Switch "Wi-Fi" [checked] [ref=y778]\n');
 * if (d.unchanged || d.changed.length !== 1) throw new Error();
 * ```
 */
export function diffSnapshots(a: string, b: string): SnapshotDiff {
  if (a === b) return { unchanged: true, added: [], removed: [], changed: [] };
  const before = split(a).filter((l) => !OFFSCREEN.test(l.trim()));
  const after = split(b).filter((l) => !OFFSCREEN.test(l.trim()));
  const counts = { before: offscreenCount(split(a)), after: offscreenCount(split(b)) };
  const byRef = new Map<string, string>();
  const plainBefore = new Map<string, number>();
  for (const line of before) {
    const ref = REF.exec(line)?.[1];
    if (ref !== undefined) byRef.set(ref, line);
    else plainBefore.set(line, (plainBefore.get(line) ?? 0) + 1);
  }
  const added: string[] = [];
  const changed: { before: string; after: string }[] = [];
  const seenRefs = new Set<string>();
  for (const line of after) {
    const ref = REF.exec(line)?.[1];
    if (ref !== undefined) {
      seenRefs.add(ref);
      const old = byRef.get(ref);
      if (old === undefined) added.push(line);
      else if (old !== line) changed.push({ before: old, after: line });
    } else {
      const n = plainBefore.get(line) ?? 0;
      if (n > 0) plainBefore.set(line, n - 1);
      else added.push(line);
    }
  }
  const removed: string[] = [];
  for (const line of before) {
    const ref = REF.exec(line)?.[1];
    if (ref !== undefined) {
      if (!seenRefs.has(ref)) removed.push(line);
    } else {
      const n = plainBefore.get(line) ?? 0;
      if (n > 0) {
        removed.push(line);
        plainBefore.set(line, n - 1);
      }
    }
  }
  const moved = counts.before !== counts.after;
  const unchanged = added.length === 0 && removed.length === 0 && changed.length === 0 && !moved;
  return { unchanged, added, removed, changed, ...(moved ? { offscreen: counts } : {}) };
}

/**
 * Formats a diff for people and agents: `unchanged`, or one line per difference prefixed
 * `+ `, `- ` or `~ ` (changed: the new line, then `was:` the old one); each snapshot line is
 * shown without its indentation, bullet and trailing colon.
 *
 * @param diff the diff
 * @returns the text, ending with a newline
 */
export function formatSnapshotDiff(diff: SnapshotDiff): string {
  if (diff.unchanged) return "unchanged\n";
  const lines: string[] = [];
  for (const l of diff.removed) lines.push(`- ${bare(l)}`);
  for (const l of diff.added) lines.push(`+ ${bare(l)}`);
  for (const c of diff.changed) lines.push(`~ ${bare(c.after)}`, `  was: ${bare(c.before)}`);
  if (diff.offscreen) {
    lines.push(`(${diff.offscreen.after} offscreen, was ${diff.offscreen.before})`);
  }
  return lines.join("\n") + "\n";
}

function bare(line: string): string {
  return line.trim().replace(/^- /, "").replace(/:$/, "");
}
