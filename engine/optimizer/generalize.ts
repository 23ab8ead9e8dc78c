/**
 * The generalization pass (000 "Value generalization"): an assertion's exact value becomes a
 * regex when the NL step's intent is a format ("Verify a price is shown", "a date appears",
 * "item count shown"); it stays exact when the NL names a computed or specific value
 * ("total is correct", "increased by 2"). Under heuristics v2, a value no known format fits
 * gets the regex of its own shape (`value_shape.ts`), and ISO date-times, semantic versions
 * and singular counts are known formats.
 *
 * @module
 */
import type { Draft } from "./draft.ts";
import { retargetAssertion } from "./modes.ts";
import { countNoun, shapePattern } from "./value_shape.ts";

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

/**
 * Formats heuristics v2 adds in front of {@linkcode FORMAT_PATTERNS}: an ISO date-time, a
 * semantic version, and a count whose noun may be singular ("1 item") or plural.
 */
export const FORMAT_PATTERNS_V2: typeof FORMAT_PATTERNS = [
  {
    name: "date-time",
    test: /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2})?$/,
    pattern: (v) => `\\d{4}-\\d{2}-\\d{2}${v[10]}\\d{2}:\\d{2}${v.length > 16 ? ":\\d{2}" : ""}`,
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
const PRESENCE =
  /\b(shown|show|shows|displayed|display|displays|appears?|visible|present|exists?|listed)\b/i;
const SPECIFIC =
  /\b(correct|equals?|matches|increased|decreased|doubled|halved|sum|unchanged|updated|exactly|same|still|should be|is now|reads)\b/i;

/**
 * Says whether an NL step asks for a format rather than a value.
 *
 * @param stepText the NL step
 * @param literal the value seen (a step that quotes it wants that value)
 * @returns true for format intent
 * @example
 * ```ts
 * if (!isFormatIntent("Verify a price is shown", "$50.00")) throw new Error();
 * if (isFormatIntent("Verify total is correct", "$50.00")) throw new Error();
 * ```
 */
export function isFormatIntent(stepText: string, literal: string): boolean {
  if (stepText.includes(literal)) return false;
  if (SPECIFIC.test(stepText)) return false;
  return FORMAT_NOUNS.test(stepText) && PRESENCE.test(stepText);
}

/** Options of {@linkcode formatPattern}. */
export interface FormatPatternOptions {
  /** The heuristics level (`heuristicsLevel`): 2 adds {@linkcode FORMAT_PATTERNS_V2}. */
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
  const formats = (options.level ?? 1) >= 2
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
        if (!isFormatIntent(s.text, a.literal)) return a;
        const known = formatPattern(a.literal, { level: draft.level });
        const shape = !known && draft.level >= 2 ? shapePattern(a.literal) : undefined;
        const f = known ?? (shape !== undefined ? { name: "shape", pattern: shape } : undefined);
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
          return {
            ...a,
            notes: [
              ...a.notes,
              `format intent, but no selector independent of the value: kept exact`,
            ],
          };
        }
        return {
          ...r,
          notes: [
            ...r.notes,
            `${
              JSON.stringify(a.literal)
            } → matches ${f.name} pattern ${f.pattern} (NL asks for a format${
              known ? "" : "; no known format fits: derived from the value's shape"
            })`,
          ],
        };
      }),
    })),
  };
}
