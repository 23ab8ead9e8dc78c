/**
 * The numeric relations a natural-language step states ("increased by 2", "three fewer",
 * "doubled", "the total"), read the same way by the optimizer's expression pass and by the
 * pre-processing slot analysis.
 *
 * @module
 */

const NUMBER_WORDS: Record<string, number> = {
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
};
const N = String.raw`(\d+(?:\.\d+)?|one|two|three|four|five|six|seven|eight|nine|ten)`;
const INCREASE = [
  new RegExp(String.raw`\b(?:increased|increases|went up|grew|rose|goes up)\s+by\s+${N}`),
  new RegExp(String.raw`\b${N}\s+more\b`),
];
const DECREASE = [
  new RegExp(String.raw`\b(?:decreased|decreases|went down|dropped|fell|goes down)\s+by\s+${N}`),
  new RegExp(String.raw`\b${N}\s+(?:fewer|less)\b`),
];

/** A change by a fixed amount that a step states. */
export interface StatedDelta {
  op: "+" | "-";
  amount: number;
  /** The words that stated it, lower case. */
  phrase: string;
}

function firstMatch(patterns: RegExp[], text: string): RegExpExecArray | null {
  for (const p of patterns) {
    const m = p.exec(text);
    if (m) return m;
  }
  return null;
}

function amount(word: string): number {
  return NUMBER_WORDS[word] ?? Number(word);
}

/**
 * The increases and decreases by a fixed amount a step states.
 *
 * @param stepText the NL step
 * @returns the deltas found (an increase first), empty when none
 * @example
 * ```ts
 * const [d] = statedDeltas("Verify the count increased by two");
 * if (d?.op !== "+" || d.amount !== 2) throw new Error();
 * ```
 */
export function statedDeltas(stepText: string): StatedDelta[] {
  const t = stepText.toLowerCase();
  const out: StatedDelta[] = [];
  const inc = firstMatch(INCREASE, t);
  if (inc) out.push({ op: "+", amount: amount(inc[1]!), phrase: inc[0] });
  const dec = firstMatch(DECREASE, t);
  if (dec) out.push({ op: "-", amount: amount(dec[1]!), phrase: dec[0] });
  return out;
}

/** Whether a step says a value doubled. */
export function statesDoubled(stepText: string): boolean {
  return /\bdoubled?\b|\btwice\b/i.test(stepText);
}

/** Whether a step says a value halved. */
export function statesHalved(stepText: string): boolean {
  return /\bhalved?\b/i.test(stepText);
}

/** Whether a step names a total (a product or sum of captured values). */
export function statesTotal(stepText: string): boolean {
  return /\b(total|sum|subtotal|combined|altogether)\b/i.test(stepText);
}
