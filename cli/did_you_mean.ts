/**
 * "Did you mean …?" for a mistyped command or flag: the known name closest by edit distance
 * (insertions, deletions, substitutions, and a swap of two neighbours), when it is close enough
 * to be a typo.
 *
 * @module
 */

/** Edit distance with adjacent transpositions (optimal string alignment). */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from(
    { length: a.length + 1 },
    (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        v = Math.min(v, d[i - 2]![j - 2]! + 1);
      }
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The known name a typo most likely meant, or undefined.
 *
 * @param typed what was typed (without dashes)
 * @param known the valid names
 * @returns the closest name within a third of its length (at least 1, at most 3 edits), or a
 *   name the typed text is the start of
 * @example
 * ```ts
 * if (didYouMean("repaly", ["replay", "record"]) !== "replay") throw new Error();
 * if (didYouMean("xyz", ["replay"]) !== undefined) throw new Error();
 * ```
 */
export function didYouMean(typed: string, known: readonly string[]): string | undefined {
  const t = typed.toLowerCase();
  let best: string | undefined;
  let bestD = Infinity;
  for (const k of known) {
    const d = editDistance(t, k.toLowerCase());
    if (d < bestD) {
      best = k;
      bestD = d;
    }
  }
  if (best !== undefined && bestD <= Math.min(3, Math.max(1, Math.floor(best.length / 3)))) {
    return best;
  }
  const prefixed = known.filter((k) => t.length >= 3 && k.startsWith(t));
  return prefixed.length === 1 ? prefixed[0] : undefined;
}
