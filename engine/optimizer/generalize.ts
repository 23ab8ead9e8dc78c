/**
 * The generalization pass: an assertion's exact value becomes a
 * regex when the NL step's intent is a format ("Verify a price is shown", "a date appears",
 * "item count shown"); it stays exact when the NL names a computed or specific value
 * ("total is correct", "increased by 2"). Under heuristics v2, a value no known format fits
 * gets the regex of its own shape (`value_shape.ts`); ISO date-times, month-and-day dates,
 * semantic versions and singular counts are known formats; and a format noun naming one
 * particular value ("the selected product's id", "the id of the order") asks for that value.
 *
 * @module
 */
import type { Draft } from "./draft.ts";
import { retargetAssertion } from "./modes.ts";
import { countNoun, shapePattern } from "./value_shape.ts";
import { escapeRegex } from "../trail/mod.ts";
import { statedRelations } from "../nl/mod.ts";

/** Value formats with the regex written for them; each regex must match the value seen. */
export const FORMAT_PATTERNS: { name: string; test: RegExp; pattern: (v: string) => string }[] = [
  {
    name: "money",
    test: /^[$€£¥]\d{1,3}(,\d{3})+\.\d{2}$/,
    pattern: (v) => `${escapeChar(v[0]!)}\\d{1,3}(,\\d{3})*\\.\\d{2}`,
  },
  {
    name: "money",
    test: /^[$€£¥]\d+\.\d{2}$/,
    pattern: (v) => `${escapeChar(v[0]!)}\\d+\\.\\d{2}`,
  },
  { name: "money", test: /^[$€£¥]\d+$/, pattern: (v) => `${escapeChar(v[0]!)}\\d+` },
  {
    name: "email",
    test: /^[^@\s]+@[^@\s]+\.[A-Za-z]{2,}$/,
    pattern: () => "[^@\\s]+@[^@\\s]+\\.[A-Za-z]{2,}",
  },
  {
    name: "uuid",
    test: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
    pattern: () => "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}",
  },
  { name: "date", test: /^[A-Z][a-z]+ \d{1,2}, \d{4}$/, pattern: () => "\\w+ \\d{1,2}, \\d{4}" },
  { name: "date", test: /^\d{4}-\d{2}-\d{2}$/, pattern: () => "\\d{4}-\\d{2}-\\d{2}" },
  {
    name: "date",
    test: /^\d{1,2}\/\d{1,2}\/\d{2,4}$/,
    pattern: () => "\\d{1,2}/\\d{1,2}/\\d{2,4}",
  },
  {
    name: "time",
    test: /^\d{1,2}:\d{2}\s?(AM|PM|am|pm)$/,
    pattern: () => "\\d{1,2}:\\d{2}\\s?(AM|PM|am|pm)",
  },
  { name: "time", test: /^\d{1,2}:\d{2}(:\d{2})?$/, pattern: () => "\\d{1,2}:\\d{2}(:\\d{2})?" },
  {
    name: "phone",
    test: /^\+?\(?\d[\d\s().-]{6,}\d$/,
    pattern: () => "\\+?\\(?\\d[\\d\\s().-]{6,}\\d",
  },
  {
    name: "count",
    test: /^\d+ [A-Za-z]+$/,
    pattern: (v) => `\\d+ ${v.replace(/^\d+ /, "")}`,
  },
  { name: "count", test: /^\d+$/, pattern: () => "\\d+" },
];

/** An English month, its name or its three-letter abbreviation ("Mar", "March", "Sept"). */
const MONTH =
  "(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sept?(?:ember)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)";

/** An English weekday, its name or abbreviation ("Mon", "Monday", "Tues", "Thurs"). */
const WEEKDAY =
  "(?:Mon(?:day)?|Tue(?:s(?:day)?)?|Wed(?:nesday)?|Thu(?:rs?(?:day)?)?|Fri(?:day)?|Sat(?:urday)?|Sun(?:day)?)";
/** The regex source written for any weekday or month name (the test above checks it is one). */
const ANY_WEEKDAY = "[A-Z][a-z]{2,8}";
const ANY_MONTH = "[A-Z][a-z]{2,8}";
/** A clock time, 24 h or 12 h ("15:04", "3:17:09", "3:17 PM", "3:17 p.m."). */
const CLOCK = String.raw`\d{1,2}:\d{2}(?::\d{2})?(?:\s?(?:[AaPp]\.?[Mm]\.?))?`;
/** Currency symbols written before or after an amount. */
const CURRENCY = "[$€£¥₹₩₽₺₪฿₫₱]";
/** ISO 4217 codes commonly shown with an amount. */
const CURRENCY_CODE =
  "(?:USD|EUR|GBP|JPY|CNY|INR|CHF|CAD|AUD|NZD|SEK|NOK|DKK|PLN|CZK|BRL|MXN|ZAR|KRW|SGD|HKD|RUB|TRY)";
/** An amount: digits with "," or "." or thin-space grouping and 0–2 decimals after "." or ",". */
const AMOUNT = String.raw`\d{1,3}(?:[,.\u00a0\u202f ]\d{3})*(?:[.,]\d{1,2})?|\d+(?:[.,]\d{1,2})?`;
/** A relative time ("2 days ago", "5 min ago", "in 3 hours", "yesterday", "just now", "3h"). */
const RELATIVE_UNIT =
  "(?:s|sec|secs|seconds?|m|min|mins|minutes?|h|hr|hrs|hours?|d|days?|w|wk|wks|weeks?|mo|months?|y|yr|yrs|years?)";

/** Today, yesterday or tomorrow, capitalised or not (the regex source written). */
const RELATIVE_DAY = "[Tt]oday|[Yy]esterday|[Tt]omorrow";
/**
 * A unit a measure is written with, close to its number or after a space ("5.2km", "16.1mph",
 * "49°F", "21 °C", "30.24inHg", "1.5 GB").
 */
const MEASURE_UNIT =
  "(?:°[CF]?|km/h|m/s|km|cm|mm|mi|ft|yd|kg|mg|lbs?|oz|ml|mL|mph|kph|kmh|kn|inHg|hPa|mbar|kPa|psi|[KMGT]B|kB|[kMG]bps|kcal|kWh|kW|mAh|[kMG]Hz|dB|m|g|l|L|W|V)";

/** A regex of whole-value alternatives (`^(?:…)$`), case-sensitive unless `i`. */
function whole(source: string, flags = ""): RegExp {
  return new RegExp(`^(?:${source})$`, flags);
}

/**
 * Formats heuristics v3 adds in front of {@linkcode FORMAT_PATTERNS}: a library of date and
 * time shapes (weekday-first "Mon, Sep 23", month-and-day "Mar 10", day-month "10 March 2026",
 * "23.09.2024", ISO dates and date-times with a zone, relative "2 days ago", 12 h and 24 h
 * clocks, a date with a time), money in many currencies (a symbol before or after, an ISO
 * code, "," or "." decimals), a semantic version, and a count whose unit may be singular
 * ("1 item"), a measure ("5.2 km") or a percentage. Each pattern matches any value of its
 * shape (any weekday, month, day, amount), not only the one seen.
 */
export const FORMAT_PATTERNS_V3: typeof FORMAT_PATTERNS = [
  {
    name: "date-time",
    test: /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/,
    pattern: (v) =>
      `\\d{4}-\\d{2}-\\d{2}${v[10]}\\d{2}:\\d{2}${/^.{16}:/.test(v) ? ":\\d{2}" : ""}${
        /^.{19}\./.test(v) ? "\\.\\d+" : ""
      }${
        /Z$/.test(v)
          ? "Z"
          : /[+-]\d{2}:\d{2}$/.test(v)
          ? "[+-]\\d{2}:\\d{2}"
          : /[+-]\d{4}$/.test(v)
          ? "[+-]\\d{4}"
          : ""
      }`,
  },
  {
    // "Mon, Sep 23", "Monday, September 23, 2024", "Mon Sep 23", "Tue, 5 Mar", "Fri 5 March 2026"
    name: "date",
    test: whole(
      `${WEEKDAY},? (?:${MONTH}\\.? \\d{1,2}(?:, \\d{4})?|\\d{1,2} ${MONTH}\\.?(?: \\d{4})?)`,
    ),
    pattern: (v) => {
      const comma = /^[A-Za-z]+,/.test(v) ? "," : "";
      const dayFirst = /^[A-Za-z]+,? \d/.test(v);
      const year = /\d{4}$/.test(v) ? (dayFirst ? " \\d{4}" : ", \\d{4}") : "";
      const dot = /[a-z]\. /.test(v) ? "\\.?" : "";
      return dayFirst
        ? `${ANY_WEEKDAY}${comma} \\d{1,2} ${ANY_MONTH}${dot}${year}`
        : `${ANY_WEEKDAY}${comma} ${ANY_MONTH}${dot} \\d{1,2}${year}`;
    },
  },
  {
    // "Sep 23, 3:17 PM", "Mar 10 at 15:04", "10 Mar 2026, 09:30"
    name: "date-time",
    test: whole(
      `(?:${MONTH} \\d{1,2}|\\d{1,2} ${MONTH})(?:,? \\d{4})?(?:,| at)? ${CLOCK}`,
    ),
    pattern: (v) => {
      const date = /^\d/.test(v) ? `\\d{1,2} ${ANY_MONTH}` : `${ANY_MONTH} \\d{1,2}`;
      const year = /^\S+ \S+?,? \d{4}/.test(v) ? ",? \\d{4}" : "";
      return `${date}${year}(?:,| at)? ${CLOCK}`;
    },
  },
  {
    name: "date",
    test: new RegExp(String.raw`^${MONTH} \d{1,2}$`),
    pattern: () => `${ANY_MONTH} \\d{1,2}`,
  },
  {
    name: "date",
    test: new RegExp(String.raw`^\d{1,2} ${MONTH}( \d{4})?$`),
    pattern: (v) => `\\d{1,2} ${ANY_MONTH}${/\d{4}$/.test(v) ? " \\d{4}" : ""}`,
  },
  {
    // day-month with dots or slashes: "23.09.2024", "23/09", "2024/09/23"
    name: "date",
    test: /^(\d{1,2}\.\d{1,2}\.\d{2,4}|\d{1,2}\/\d{1,2}|\d{4}\/\d{2}\/\d{2})$/,
    pattern: (v) => {
      if (/^\d{4}\//.test(v)) return "\\d{4}/\\d{2}/\\d{2}";
      const sep = v.includes(".") ? "\\." : "/";
      return `\\d{1,2}${sep}\\d{1,2}${/^\d+[./]\d+[./]/.test(v) ? `${sep}\\d{2,4}` : ""}`;
    },
  },
  {
    // a relative day with a clock: "Today, 14:05", "Yesterday at 2:05 PM"
    name: "date-time",
    test: whole(`(?:today|yesterday|tomorrow)(?:,| at)? ${CLOCK}`, "i"),
    pattern: () => `(?:${RELATIVE_DAY})(?:,| at)? ${CLOCK}`,
  },
  {
    name: "relative time",
    test: whole(
      `(?:\\d+|an?|one) ?${RELATIVE_UNIT}\\.? ago|in (?:\\d+|an?|one) ${RELATIVE_UNIT}|just now|now|today|yesterday|tomorrow|\\d+ ?${RELATIVE_UNIT}`,
      "i",
    ),
    pattern: (v) =>
      /^\d+ ?[a-z]+$/i.test(v) ? "\\d+ ?[a-z]{1,7}" : /^[A-Z]/.test(v)
        // as an app writes it first in a line ("Yesterday", "Just now", "In 2 hours"), of
        // which the next run may show any other ("2 days ago")
        ? `(?:(?:\\d+|[Aa]n?|[Oo]ne) ?[a-z]{1,7}\\.? ago|[Ii]n (?:\\d+|an?|one) [a-z]{1,7}|[Jj]ust now|[Nn]ow|${RELATIVE_DAY})`
        : "(?:(?:\\d+|an?|one) ?[a-z]{1,7}\\.? ago|in (?:\\d+|an?|one) [a-z]{1,7}|just now|now|today|yesterday|tomorrow)",
  },
  {
    name: "time",
    test: whole(`${CLOCK}|\\d{1,2}\\s?(?:[AaPp]\\.?[Mm]\\.?)`),
    pattern: () => `(?:${CLOCK}|\\d{1,2}\\s?(?:[AaPp]\\.?[Mm]\\.?))`,
  },
  {
    name: "version",
    test: /^v?\d+\.\d+\.\d+$/,
    pattern: (v) => `${v[0] === "v" ? "v" : ""}\\d+\\.\\d+\\.\\d+`,
  },
  {
    name: "percentage",
    test: /^-?\d+(?:[.,]\d+)?\s?%$/,
    pattern: () => "-?\\d+(?:[.,]\\d+)?\\s?%",
  },
  {
    // a count or a measure with its unit: "3 items", "1 item", "5.2 km", "3 new messages"
    name: "count",
    test: new RegExp(
      String.raw`^(?!.* ${CURRENCY_CODE}$)\d+(?:[.,]\d+)? [A-Za-z]+(?: [A-Za-z]+)?$`,
    ),
    pattern: (v) => {
      const [, num, words] = /^(\d+(?:[.,]\d+)?) (.+)$/.exec(v)!;
      const n = /[.,]/.test(num!) ? "\\d+(?:[.,]\\d+)?" : "\\d+";
      const parts = words!.split(" ");
      const last = parts.pop()!;
      // a unit symbol ("km", "GB", "ms") has no plural
      const unit = /^(?:[a-zA-Z]{1,2}|ms|min|sec|hrs?|kbps|mbps|mph|kph)$/.test(last);
      return `${n} ${
        [...parts.map(escapeRegex), unit ? escapeRegex(last) : countNoun(last)].join(" ")
      }`;
    },
  },
  {
    // a measure in a unit, written close or after a space, signed: "5.2km", "-3°F", "21 °C"
    name: "measure",
    test: new RegExp(String.raw`^-?\d+(?:[.,]\d+)? ?${MEASURE_UNIT}$`),
    pattern: (v) => {
      const [, space, unit] = /^-?\d+(?:[.,]\d+)?( ?)(.+)$/.exec(v)!;
      return `-?\\d+(?:[.,]\\d+)?${space}${escapeRegex(unit!)}`;
    },
  },
];

/**
 * Formats heuristics v3 tries after {@linkcode FORMAT_PATTERNS} (whose money patterns keep
 * their exact shape for `$`, `€`, `£` and `¥` amounts): money in other shapes and currencies.
 */
export const FORMAT_PATTERNS_V3_LATE: typeof FORMAT_PATTERNS = [
  {
    // money: "$1,234.56", "€12,50", "12,50 €", "₹1,234", "USD 12.00", "12.00 EUR", "-£3"
    name: "money",
    test: whole(
      `-?${CURRENCY} ?(?:${AMOUNT})|-?(?:${AMOUNT}) ?${CURRENCY}|${CURRENCY_CODE} ?-?(?:${AMOUNT})|-?(?:${AMOUNT}) ${CURRENCY_CODE}`,
    ),
    pattern: (v) => {
      const sym = /^-?([^\d\s-]+)/.exec(v)?.[1] ?? /([^\d\s.,]+)$/.exec(v)?.[1] ?? "";
      const symbol = sym.length === 1 ? escapeChar(sym) : sym;
      const before = !/^-?\d/.test(v);
      const space = /\d \D|\D \d/.test(v) ? " ?" : "";
      const amount = "\\d[\\d.,\\u00a0\\u202f ]*";
      return `-?${before ? `${symbol}${space}-?${amount}` : `${amount}${space}${symbol}`}`;
    },
  },
];

/**
 * Formats heuristics v2 adds in front of {@linkcode FORMAT_PATTERNS}: an ISO date-time, a date
 * of a month and a day ("Mar 10", "10 March 2026"), a semantic version, and a count whose noun
 * may be singular ("1 item") or plural.
 */
export const FORMAT_PATTERNS_V2: typeof FORMAT_PATTERNS = [
  {
    name: "date-time",
    test: /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2})?$/,
    pattern: (v) => `\\d{4}-\\d{2}-\\d{2}${v[10]}\\d{2}:\\d{2}${v.length > 16 ? ":\\d{2}" : ""}`,
  },
  {
    name: "date",
    test: new RegExp(String.raw`^${MONTH} \d{1,2}$`),
    pattern: () => "[A-Z][a-z]{2,8} \\d{1,2}",
  },
  {
    name: "date",
    test: new RegExp(String.raw`^\d{1,2} ${MONTH}( \d{4})?$`),
    pattern: (v) => `\\d{1,2} [A-Z][a-z]{2,8}${/\d{4}$/.test(v) ? " \\d{4}" : ""}`,
  },
  {
    name: "version",
    test: /^v?\d+\.\d+\.\d+$/,
    pattern: (v) => `${v[0] === "v" ? "v" : ""}\\d+\\.\\d+\\.\\d+`,
  },
  {
    name: "count",
    test: /^\d+ [A-Za-z]+$/,
    pattern: (v) => `\\d+ ${countNoun(v.replace(/^\d+ /, ""))}`,
  },
];

function escapeChar(c: string): string {
  return /[$^.*+?()[\]{}|\\]/.test(c) ? `\\${c}` : c;
}

const FORMAT_NOUNS =
  /\b(price|cost|amount|fee|date|day|time|count|number|quantity|items?|e-?mail|uuid|id|identifier|phone|balance|total)\b/i;
/** v3 adds nouns of the time and measure formats. */
const FORMAT_NOUNS_V3 =
  /\b(price|cost|amount|fee|date|day|time|count|number|quantity|items?|e-?mail|uuid|id|identifier|phone|balance|total|timestamp|deadline|due|distance|weight|size|duration|temperature|temp|speed|pressure|humidity|height|length|width|depth|altitude|elevation|volume|capacity|storage|battery)\b/i;
const PRESENCE =
  /\b(shown|show|shows|displayed|display|displays|appears?|visible|present|exists?|listed)\b/i;
const SPECIFIC =
  /\b(correct|equals?|matches|increased|decreased|doubled|halved|sum|unchanged|updated|exactly|same|still|should be|is now|reads)\b/i;
/** v3 adds the words that ask for the very value seen ("the exact date", "precisely"). */
const SPECIFIC_V3 =
  /\b(exact|precise(?:ly)?|verbatim|literally|identical(?:ly)?|word for word|as is)\b/i;

/** One word of a noun phrase between its determiner and its noun ("order" in "its order id"). */
const WORD = String.raw`(?:(?!(?:a|an)\s)[\w-]+\s+)`;
/** A possessive: "product's", "users'" (not "it's", "that's", "let's"). */
const POSSESSIVE = new RegExp(
  String.raw`\b(?!(?:it|that|there|here|what|who|let|he|she)['’]s\b)\w+(?:['’]s|s['’])\s+${WORD}?$`,
  "i",
);
const PRONOUN = new RegExp(String.raw`\b(?:its|their|his|her|your|my|our)\s+${WORD}?$`, "i");
/** "the selected product's id", "the noted date": a value picked or seen earlier. */
const PICKED_WORDS = "selected|chosen|clicked|tapped|opened|entered|typed|noted|saved|stored|" +
  "copied|previous|earlier|original|matching|corresponding";
const PICKED = new RegExp(String.raw`\bthe\s+(?:${PICKED_WORDS})\s+${WORD}{0,2}$`, "i");
const THE = new RegExp(String.raw`\bthe\s+${WORD}?$`, "i");

/**
 * v2: whether one occurrence of a format noun names a particular value rather than any value of
 * its kind: a possessive or a possessive pronoun before it ("the selected product's id", "its
 * date"), a value picked earlier ("the selected order number"), or "the … of" ("shows the id of
 * the order"). "an id is shown", "shows an order number" and "item count shown" are formats.
 */
function namesParticular(stepText: string, at: number, noun: string): boolean {
  const before = stepText.slice(0, at);
  if (POSSESSIVE.test(before) || PRONOUN.test(before) || PICKED.test(before)) return true;
  return THE.test(before) &&
    /^\s+of\s+(?!(?:each|every|all|any)\b)/i.test(stepText.slice(at + noun.length));
}

/**
 * Says whether an NL step asks for a format rather than a value.
 *
 * @param stepText the NL step
 * @param literal the value seen (a step that quotes it wants that value)
 * @param level the heuristics level (`heuristicsLevel`, default 1): from 2, a format noun that
 *   names a particular value ("the selected product's id", "the id of the order") asks for that
 *   value, so a step whose every format noun does so is no format intent
 * @returns true for format intent
 * @example
 * ```ts
 * if (!isFormatIntent("Verify a price is shown", "$50.00")) throw new Error();
 * if (isFormatIntent("Verify total is correct", "$50.00")) throw new Error();
 * if (isFormatIntent("Verify the panel shows the selected product's id", "p-1", 2)) {
 *   throw new Error();
 * }
 * ```
 */
export function isFormatIntent(stepText: string, literal: string, level = 1): boolean {
  if (stepText.includes(literal)) return false;
  if (SPECIFIC.test(stepText)) return false;
  if (level >= 3 && (SPECIFIC_V3.test(stepText) || statesComputedValue(stepText))) return false;
  if (!PRESENCE.test(stepText)) return false;
  if (level < 2) return FORMAT_NOUNS.test(stepText);
  const nouns = new RegExp((level >= 3 ? FORMAT_NOUNS_V3 : FORMAT_NOUNS).source, "gi");
  for (const m of stepText.matchAll(nouns)) {
    if (!namesParticular(stepText, m.index, m[0])) return true;
  }
  return false;
}

/**
 * v3: whether a step says how its value is computed ("twice the price", "2 more", "the price
 * plus 5", "a third of", "10% off", "the difference"): that value is what it asks for, not a
 * format. "the total" alone names a kind of value ("Verify the total is shown"), no relation.
 */
function statesComputedValue(stepText: string): boolean {
  const r = statedRelations(stepText);
  const noun = (phrase: string | undefined) => phrase !== undefined && phrase !== "total";
  return r.deltas.length > 0 || r.factors.length > 0 || r.divisors.length > 0 ||
    r.percents.length > 0 || r.difference !== undefined || r.ratio !== undefined ||
    noun(r.sum) || noun(r.product);
}

/** Options of {@linkcode formatPattern}. */
export interface FormatPatternOptions {
  /** The heuristics level (`heuristicsLevel`): 2 adds {@linkcode FORMAT_PATTERNS_V2}, 3 {@linkcode FORMAT_PATTERNS_V3} instead. */
  level?: number;
}

/**
 * The regex for a value's format, or undefined when none fits.
 *
 * @param value the value seen
 * @param options the heuristics level (default 1)
 * @returns the pattern and the format's name
 * @example
 * ```ts
 * if (formatPattern("1.0.0") !== undefined) throw new Error();
 * if (formatPattern("1.0.0", { level: 2 })?.pattern !== "\\d+\\.\\d+\\.\\d+") throw new Error();
 * ```
 */
export function formatPattern(
  value: string,
  options: FormatPatternOptions = {},
): { name: string; pattern: string } | undefined {
  const level = options.level ?? 1;
  const formats = level >= 3
    ? [...FORMAT_PATTERNS_V3, ...FORMAT_PATTERNS, ...FORMAT_PATTERNS_V3_LATE]
    : level >= 2
    ? [...FORMAT_PATTERNS_V2, ...FORMAT_PATTERNS]
    : FORMAT_PATTERNS;
  for (const f of formats) {
    if (!f.test.test(value)) continue;
    const pattern = f.pattern(value);
    if (new RegExp(`^(?:${pattern})$`).test(value)) return { name: f.name, pattern };
  }
  return undefined;
}

/**
 * The pattern the generalization pass writes for a value: a known format's, else (from v2) the
 * value's own shape; undefined when neither fits.
 *
 * @param value the value seen
 * @param level the heuristics level
 * @returns the pattern, the format's name (`shape` for a shape) and whether it is a known format
 * @example
 * ```ts
 * if (generalizedFormat("office-1", 1) !== undefined) throw new Error();
 * if (generalizedFormat("office-1", 2)?.pattern !== "office-\\d+") throw new Error();
 * ```
 */
export function generalizedFormat(
  value: string,
  level: number,
): { name: string; pattern: string; known: boolean } | undefined {
  const known = formatPattern(value, { level });
  if (known) return { ...known, known: true };
  const shape = level >= 2 ? shapePattern(value) : undefined;
  return shape === undefined ? undefined : { name: "shape", pattern: shape, known: false };
}

/**
 * The generalization pass.
 *
 * @param draft the draft after the slots pass
 * @returns the draft with format-intent assertions turned into `matches`
 */
export function generalizePass(draft: Draft): Draft {
  return {
    ...draft,
    steps: draft.steps.map((s) => ({
      ...s,
      actions: s.actions.map((a) => {
        if (a.drop || !a.src.ok || a.literal === undefined) return a;
        if (a.kind !== "assertText" && a.kind !== "assertVisible") return a;
        if (a.equals !== undefined && a.equals !== a.literal) return a; // already a template
        if (!isFormatIntent(s.text, a.literal, draft.level)) return a;
        const f = generalizedFormat(a.literal, draft.level);
        if (!f) {
          return {
            ...a,
            notes: [
              ...a.notes,
              `format intent, but no known format fits ${JSON.stringify(a.literal)}: kept exact`,
            ],
          };
        }
        const r = retargetAssertion(a, { mode: s.selectorMode ?? draft.mode, matches: f.pattern });
        if (!r) {
          // v2, Android: a value in a description, or on a node with no text, has no text to match
          const why = a.describedValue || a.showsNoText
            ? `the player reads no text to match there: kept ${a.kind}`
            : `no selector independent of the value: kept exact`;
          return { ...a, notes: [...a.notes, `format intent, but ${why}`] };
        }
        return {
          ...r,
          notes: [
            ...r.notes,
            `${
              JSON.stringify(a.literal)
            } → matches ${f.name} pattern ${f.pattern} (NL asks for a format${
              f.known ? "" : "; no known format fits: derived from the value's shape"
            })`,
          ],
        };
      }),
    })),
  };
}
