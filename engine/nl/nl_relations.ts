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

const MORE_NUMBER_WORDS: Record<string, number> = { eleven: 11, twelve: 12, twenty: 20 };
/** A number stated in words or digits ("4", "four", "2.5"). */
const NUM = String
  .raw`(\d+(?:\.\d+)?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty)`;

function numberOf(word: string): number {
  return NUMBER_WORDS[word] ?? MORE_NUMBER_WORDS[word] ?? Number(word);
}

/** A constant factor or divisor a step states ("4 times", "times 4", "half"). */
export interface StatedConstant {
  /** The number. */
  amount: number;
  /** The words that stated it, lower case. */
  phrase: string;
}

/**
 * Every arithmetic relation a step states (heuristics v2): constant changes, factors, divisors
 * and percentages, and the operations between two values it names (a sum, a difference, a
 * product, a ratio). The optimizer writes an expression only when one of these, applied to
 * values captured earlier, gives exactly the value asserted.
 */
export interface StatedRelations {
  deltas: StatedDelta[];
  /** "4 times", "times 4", "multiplied by 4", "doubled" (2), "tripled" (3). */
  factors: StatedConstant[];
  /** "half", "halved" (2), "divided by 3", "a third" (3), "a quarter" (4). */
  divisors: StatedConstant[];
  /** "15 percent", "15%": the share, and with "off"/"more" words the changed value. */
  percents: StatedConstant[];
  /** A sum of values: "sum", "total", "combined", "plus", "increased by the amount". */
  sum?: string;
  /** A difference: "difference", "minus", "less the", "decreased by the amount", "remaining". */
  difference?: string;
  /** A product: "product", "total" (a price and a quantity), "times the quantity". */
  product?: string;
  /** A ratio: "ratio", "divided by the count", "per". */
  ratio?: string;
}

function all(re: RegExp, text: string, n = 1): StatedConstant[] {
  const out: StatedConstant[] = [];
  for (const m of text.matchAll(new RegExp(re.source, "g"))) {
    out.push({ amount: numberOf(m[n]!), phrase: m[0] });
  }
  return out;
}

function first(res: RegExp[], text: string): string | undefined {
  for (const re of res) {
    const m = re.exec(text);
    if (m) return m[0];
  }
  return undefined;
}

/**
 * A constant added or taken away with an operator word ("the price plus 5", "minus $5",
 * "less 3", "+ 2.50"), never a share ("plus 10%" is a percentage).
 */
const CONSTANT_CHANGE = new RegExp(
  String.raw`(?:(?<!\bno\s+|\bnot\s+)\b(plus|add(?:ing)?|minus|less|subtract(?:ing)?)|(\+))` +
    String.raw`\s*[$€£¥]?${NUM}` +
    String.raw`(?!\s*(?:%|percent\b|per\s+cent\b)|[\w,]|\.\d)`,
  "g",
);

function constantChanges(t: string): StatedDelta[] {
  const out: StatedDelta[] = [];
  for (const m of t.matchAll(CONSTANT_CHANGE)) {
    const word = m[1] ?? m[2]!;
    const op = /^(?:plus|add|adding|\+)$/.test(word) ? "+" : "-";
    out.push({ op, amount: numberOf(m[3]!), phrase: m[0] });
  }
  return out;
}

/** Words after "by" that name a value rather than state a number ("by the amount"). */
const BY_VALUE = String.raw`by\s+(?:the|its|their|that|this|your|my)\s+(?!${NUM}\b)[a-z]`;

/**
 * The arithmetic relations a step states.
 *
 * @param stepText the NL step
 * @returns the relations (every list empty and no operation when it states none)
 * @example
 * ```ts
 * const r = statedRelations("Verify the result is 4 times the subtotal");
 * if (r.factors[0]?.amount !== 4) throw new Error();
 * if (statedRelations("the new balance is the old balance decreased by the amount").difference === undefined) {
 *   throw new Error();
 * }
 * ```
 */
export function statedRelations(stepText: string): StatedRelations {
  const t = stepText.toLowerCase();
  const factors = [
    ...all(new RegExp(String.raw`\b${NUM}\s*(?:times|×)(?!\s+(?:a|per)\b)`), t),
    ...all(new RegExp(String.raw`\b(?:times|multiplied\s+by)\s+${NUM}\b`), t),
  ];
  if (/\b(?:doubled?|twice)\b/.test(t)) factors.push({ amount: 2, phrase: "doubled" });
  if (/\b(?:tripled?|thrice)\b/.test(t)) factors.push({ amount: 3, phrase: "tripled" });
  if (/\bquadrupled?\b/.test(t)) factors.push({ amount: 4, phrase: "quadrupled" });
  const divisors = all(
    new RegExp(String.raw`\b(?:divided\s+by|split\s+(?:in|into|between))\s+${NUM}\b`),
    t,
  );
  if (/\b(?:half|halved?)\b/.test(t)) divisors.push({ amount: 2, phrase: "half" });
  if (/\b(?:a|one)\s+third\b/.test(t)) divisors.push({ amount: 3, phrase: "a third" });
  if (/\b(?:a|one)\s+quarter\b/.test(t)) divisors.push({ amount: 4, phrase: "a quarter" });
  const percents = all(new RegExp(String.raw`\b${NUM}\s*(?:%|percent\b|per\s+cent\b)`), t);
  const out: StatedRelations = {
    deltas: [...statedDeltas(stepText), ...constantChanges(t)],
    factors,
    divisors,
    percents,
  };
  const sum = first([
    /\b(?:sum|total|combined|altogether|plus|added\s+to|adds?\s+up)\b/,
    new RegExp(
      String.raw`\b(?:increased|increases|went up|grew|rose|goes up|raised)\s+${BY_VALUE}`,
    ),
    /\bmore than (?:the|its)\b/,
  ], t);
  if (sum) out.sum = sum;
  const difference = first([
    /\b(?:difference|minus|subtract(?:ed|ing)?|deduct(?:ed|ing)?|remaining|left over|less than (?:the|its))\b/,
    new RegExp(
      String
        .raw`\b(?:decreased|decreases|went down|dropped|fell|goes down|reduced|lowered)\s+${BY_VALUE}`,
    ),
    /\bless (?:the|its)\b/,
  ], t);
  if (difference) out.difference = difference;
  const product = first([
    /\bproduct\b/,
    /\btotal\b/,
    /\b(?:times|multiplied\s+by)\s+(?:the|its|their)\b/,
  ], t);
  if (product) out.product = product;
  const ratio = first([/\bratio\b/, /\bdivided\s+by\s+(?:the|its|their)\b/, /\baverage\b/], t);
  if (ratio) out.ratio = ratio;
  return out;
}

/**
 * Whether a step states any arithmetic relation ({@linkcode statedRelations}).
 *
 * @param stepText the NL step
 * @returns true when it states one
 */
export function statesRelation(stepText: string): boolean {
  const r = statedRelations(stepText);
  return r.deltas.length > 0 || r.factors.length > 0 || r.divisors.length > 0 ||
    r.percents.length > 0 || r.sum !== undefined || r.difference !== undefined ||
    r.product !== undefined || r.ratio !== undefined;
}

/** Words with which a step refers to a value seen or stored before it. */
const EARLIER =
  /\b(?:noted|saved|stored|remembered|recorded|copied|entered|typed|earlier|previous(?:ly)?|before|original|old|same|read)\b/i;

/**
 * Whether a step asks for a value from earlier in the run: it names the slot ("the subtotal",
 * "the merchant email" for `merchant_email`) or refers to a value seen or stored before ("the
 * noted result", "the email entered earlier").
 *
 * @param stepText the NL step
 * @param key the slot's name (camel case or snake case)
 * @returns true when the step asks for that value (or for some earlier value)
 * @example
 * ```ts
 * if (!asksForValue("Verify the banner shows the merchant email", "merchant_email")) throw new Error();
 * if (asksForValue("Verify the banner", "merchant_email")) throw new Error();
 * ```
 */
export function asksForValue(stepText: string, key: string): boolean {
  return namesKey(stepText, key) || refersToEarlier(stepText);
}

/**
 * Whether a step refers to a value seen or stored before it ("the noted result").
 *
 * @param stepText the NL step
 * @returns true when it does
 */
export function refersToEarlier(stepText: string): boolean {
  return EARLIER.test(stepText);
}

/**
 * Whether a step names a slot by its words (`merchant_email` → "merchant" and "email", in any
 * order; `optIn` → "opt" and "in", as "opt-in" or "opt in").
 *
 * @param stepText the NL step
 * @param key the slot's name
 * @returns true when every word of the key is a word of the step
 */
export function namesKey(stepText: string, key: string): boolean {
  const words = key.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase().split(/[^a-z0-9]+/)
    .filter((w) => w !== "" && !/^\d+$/.test(w));
  if (words.length === 0) return false;
  const said = new Set(stepText.toLowerCase().split(/[^a-z0-9]+/));
  return words.every((w) => said.has(w) || said.has(`${w}s`));
}
