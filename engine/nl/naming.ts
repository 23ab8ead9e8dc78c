/**
 * Slot names from what a field or an NL step says: `email_field` → `email`, hint "Search" →
 * `searchTerm`, "Note the current inventory count" → `inventoryCount`.
 *
 * @module
 */
import type { UiNode } from "../screens/mod.ts";

const KNOWN: [RegExp, string][] = [
  [/\b(e-?mail|email address)\b/i, "email"],
  [/\b(password|passcode|passwd|pwd)\b/i, "password"],
  [/\b(user ?name|login|user id)\b/i, "username"],
  [/\bsearch\b|\bquery\b|\bfind\b/i, "searchTerm"],
  [/\b(phone|mobile|tel)\b/i, "phone"],
  [/\b(otp|verification code|one-time code|pin)\b/i, "code"],
  [/\bfirst ?name\b/i, "firstName"],
  [/\blast ?name\b|\bsurname\b/i, "lastName"],
  [/\b(zip|postal code|postcode)\b/i, "postalCode"],
];

const NOISE = new Set([
  "field",
  "input",
  "edit",
  "text",
  "txt",
  "et",
  "box",
  "view",
  "tv",
  "label",
  "value",
  "btn",
  "button",
  "id",
  "the",
  "a",
  "an",
  "current",
  "note",
  "read",
  "enter",
  "your",
  "type",
  "remember",
  "store",
  "save",
  "check",
  "verify",
  "of",
  "in",
  "on",
  "for",
  "and",
  "how",
  "many",
  "much",
  "what",
  "is",
  "are",
  "shown",
  "there",
]);

/** Words of an NL step that name no value (verbs, prepositions), on top of {@linkcode NOISE}. */
const STEP_NOISE = new Set([
  "into",
  "to",
  "from",
  "with",
  "as",
  "at",
  "by",
  "then",
  "this",
  "that",
  "it",
  "its",
  "down",
  "copy",
  "get",
  "write",
  "keep",
  "look",
  "up",
  "screen",
  "page",
  "displayed",
  "now",
  "later",
  "use",
  "fill",
  "tap",
  "click",
  "press",
  "select",
  "choose",
  "open",
  "go",
  "set",
  "put",
  "add",
  "provide",
  "give",
  "form",
  "out",
  "again",
  "new",
  // verbs a person reads a value with ("Record the temperature", "Take note of the date")
  "record",
  "jot",
  "capture",
  "grab",
  "memorize",
  "memorise",
  "take",
  "log",
  "retrieve",
  "fetch",
  "collect",
  "obtain",
  "extract",
  "track",
]);

/**
 * v2: a slot name from the NL step's words, once the verbs, prepositions and the value itself
 * are dropped ("Note the subtotal" → `subtotal`, "Type 5 as the amount" → `amount`).
 *
 * @param stepText the NL step
 * @param literal the value typed or read, when known (its words are no name)
 * @returns the name, or "" when the step names nothing
 */
export function stepSlotName(stepText: string, literal?: string): string {
  // a possessive is its noun ("today's" → "today"), never the start of a quoted value
  let text = stepText.replace(/(\w)['’]s\b/g, "$1");
  text = text.replace(/(["'“‘])[^"'”’]*\1/g, " "); // a quoted value names nothing
  if (literal) {
    for (const w of literal.split(/\s+/)) {
      if (w.length >= 2) text = text.split(w).join(" ");
    }
  }
  const words = text.replace(/([a-z])([A-Z])/g, "$1 $2")
    .split(/[^A-Za-z0-9]+/)
    .map((w) => w.toLowerCase())
    .filter((w) => w !== "" && !NOISE.has(w) && !STEP_NOISE.has(w) && !/^\d+$/.test(w));
  if (words.length === 0 || words.length > 3) return "";
  return words.map((w, i) => i === 0 ? w : w[0]!.toUpperCase() + w.slice(1)).join("");
}

/**
 * Camel-cases words, dropping noise words (`inventory-count` → `inventoryCount`).
 *
 * @param text words separated by anything
 * @param maxWords at most this many words
 * @param keepNoise keep the noise words (`text-input` → `textInput`)
 * @returns an identifier, or "" when nothing is left
 */
export function camelName(text: string, maxWords = 3, keepNoise = false): string {
  const words = text
    .replace(/^.*:id\//, "")
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .split(/[^A-Za-z0-9]+/)
    .map((w) => w.toLowerCase())
    .filter((w) => w !== "" && (keepNoise || !NOISE.has(w)) && !/^\d+$/.test(w));
  const picked = words.slice(0, maxWords);
  return picked.map((w, i) => i === 0 ? w : w[0]!.toUpperCase() + w.slice(1)).join("");
}

function known(text: string | undefined): string | undefined {
  if (!text) return undefined;
  for (const [re, name] of KNOWN) if (re.test(text)) return name;
  return undefined;
}

/** A component library's namespace on a React Native test id (`RNE__Input__text-input`). */
const LIBRARY_PREFIX = /^(?:[A-Za-z]+__)+/;

/** Options of {@linkcode inputSlotName}. */
export interface InputSlotNameOptions {
  /**
   * Heuristics v2 on Android: ids lose a library namespace (`RNE__Input__`), and an id of noise
   * words only (`text-input`) keeps them (`textInput`) rather than giving way to the hint.
   */
  cleanIds?: boolean;
  /**
   * Heuristics v2: a field whose own names say nothing is named from the NL step (e.g.
   * names from the NL descriptions): an id of noise words only (`text-input`) gives way to a
   * known kind the step names ("Search for Fern" → `searchTerm`) or its words, and a field with no id, hint
   * or label takes the step's words ("Type 5 as the amount" → `amount`) before `input`.
   */
  stepFirst?: boolean;
  /** The text typed (with `stepFirst`: its words in the step name nothing). */
  literal?: string;
  /**
   * Heuristics v2 on iOS: the accessibility label (what VoiceOver reads) names the field before
   * its identifier, which is often the view's internal name (Safari's address field: label
   * `Address`, identifier `TabBarItemTitle`).
   */
  labelFirst?: boolean;
}

/**
 * Names an input slot from its field (password flag, id, hint, label) and the NL step.
 *
 * @param field the field typed into, when known
 * @param stepText the NL step
 * @param options v2's id cleaning (Android) and label first (iOS)
 * @returns a name such as `email`, `password`, `searchTerm`
 */
export function inputSlotName(
  field: UiNode | undefined,
  stepText: string,
  options: InputSlotNameOptions = {},
): string {
  if (field?.password) return "password";
  // On the web the class is the ARIA role and `name` the accessible name ("Email", "From").
  const webName = field && field.role === field.className ? field.name : undefined;
  const clean = (id: string | undefined) =>
    options.cleanIds && id !== undefined ? id.replace(LIBRARY_PREFIX, "") : id;
  // v3: a hint's first line names the field; its next lines show an example value
  // ("Enter URL\nwww.example.com"), which names nothing
  const hint = options.stepFirst ? field?.hint?.split("\n")[0] : field?.hint;
  const sources = options.labelFirst
    ? [field?.contentDescription, clean(field?.resourceId), clean(field?.testId), hint]
    : [
      clean(field?.resourceId),
      clean(field?.testId),
      hint,
      field?.contentDescription,
      webName,
    ];
  for (const s of sources) {
    const k = known(s);
    if (k) return k;
  }
  for (const [k, s] of sources.entries()) {
    let c = s ? camelName(s) : "";
    // An id of noise words only (`text-input`) still names the field better than its hint.
    if (c === "" && s && options.cleanIds && k < 2) {
      c = camelName(s, 3, true);
      // …unless the step names a known kind of value ("Search for Fern": `searchTerm`)
      const kind = options.stepFirst
        ? known(stepText) ?? stepSlotName(stepText, options.literal)
        : undefined;
      if (c && kind) return kind;
    }
    if (c && !/^\d/.test(c)) return c;
  }
  if (options.stepFirst) {
    const fromStep = known(stepText) ?? stepSlotName(stepText, options.literal);
    if (fromStep) return fromStep;
  }
  return known(stepText) ?? "input";
}

/**
 * Names a captured slot from the element read (its id) or the NL step's noun phrase.
 *
 * @param node the element read, when known
 * @param stepText the NL step ("Note the current inventory count")
 * @param options v2's `stepFirst`: the step's words name the slot before the element's id
 *   (e.g. "Note the subtotal" → `subtotal`, not `result` from the id); `literal`: the
 *   value read, whose words name nothing
 * @returns a name such as `inventoryCount`
 */
export function capturedSlotName(
  node: UiNode | undefined,
  stepText: string,
  options: { stepFirst?: boolean; literal?: string } = {},
): string {
  if (options.stepFirst) {
    const fromStep = stepSlotName(stepText, options.literal);
    if (fromStep) return fromStep;
  }
  for (const s of [node?.resourceId, node?.testId]) {
    const c = s ? camelName(s) : "";
    if (c && !/^\d/.test(c)) return c;
  }
  const c = camelName(stepText);
  return c && !/^\d/.test(c) ? c : "value";
}

/**
 * Makes a name unique among those taken (`email`, `email2`, …).
 *
 * @param name the wanted name
 * @param taken names already used
 * @returns a free name
 */
export function uniqueName(name: string, taken: ReadonlySet<string>): string {
  if (!taken.has(name)) return name;
  for (let i = 2;; i++) if (!taken.has(`${name}${i}`)) return `${name}${i}`;
}
