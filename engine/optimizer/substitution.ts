/**
 * Memory reverse substitution, as the substitution rules decide: a literal tool parameter that
 * equals a value in the memory snapshot taken after the tool call becomes `{{key}}`.
 *
 * Guards against false positives: exact full-field matches only (never a substring); values
 * of 8 or more characters only, unless the key was written by a known provisioning tool
 * (`merchantFactory_*`, `rememberWithAi`, …) or seeded in the session's initial memory; the
 * longest value is tried first; when two keys hold the same value, a provisioned key wins,
 * then the alphabetically first key (deterministic), and the other is reported. Heuristics v2
 * also interpolates the slot values a longer assertion text is made of
 * ({@linkcode interpolateValues}). A value stored as `[redacted]` (a secret) is no value: it
 * matches nothing and nothing matches it, since two secrets look the same once redacted.
 *
 * @module
 */
import { REDACTED } from "../playback/mod.ts";

/**
 * Says whether a stored value is (or holds) a redacted secret: the value itself was never
 * stored, so it is no literal to write or to match.
 *
 * @param value a stored value
 * @returns true when it holds `[redacted]`
 * @example
 * ```ts
 * if (!isRedacted("[redacted]") || isRedacted("4321")) throw new Error();
 * ```
 */
export function isRedacted(value: string): boolean {
  return value.includes(REDACTED);
}

/** Minimum length of a substituted value when its key was not provisioned. */
export const MIN_SUBSTITUTION_LENGTH = 8;

/** Tools whose memory writes are trusted at any length ("known memory-writing tools"). */
export const PROVISIONING_TOOLS: readonly RegExp[] = [
  /^merchantFactory_/,
  /^rememberWithAi$/,
  /^provision/i,
  /^accountFactory_/,
  /^loadAccount/,
  /_loadAccount$/,
  /^config$/, // the session's initial memory: seeded by the test author
];

/**
 * Says whether a tool name is a known provisioning tool.
 *
 * @param tool the tool that wrote a key
 * @returns true for a provisioning tool
 */
export function isProvisioningTool(tool: string | undefined): boolean {
  return tool !== undefined && PROVISIONING_TOOLS.some((re) => re.test(tool));
}

/** Options of {@linkcode reverseSubstitute}. */
export interface SubstitutionOptions {
  /** Key → the tool that last wrote it (provisioned keys are trusted at any length). */
  writtenBy?: Readonly<Record<string, string>>;
  /**
   * Heuristics v2: whether a key's value may stand inside a longer text: a value typed or read
   * in this run, or one the NL step asks for (names it, or refers to a value from earlier).
   * {@linkcode interpolateValues} places no other memory value inside a longer text (exact
   * full-field matches only, unless the step says so).
   */
  asked?: (key: string) => boolean;
  /**
   * Heuristics v3: keys whose value may stand inside a longer text from 3 characters on (as a
   * provisioned key's): a value typed or read in this run that the step asks for ("the noted
   * date" in "Meeting on Mar 10 at 14:05").
   */
  short?: (key: string) => boolean;
}

/** The outcome of one substitution attempt. */
export interface Substitution {
  /** The key substituted, when one was. */
  key?: string;
  /** Why other keys holding a matching value were not used. */
  rejected: string[];
}

/**
 * Finds the memory key a literal parameter should be written as.
 *
 * @param literal the parameter value as executed
 * @param memory the snapshot after the tool call
 * @param options `writtenBy`: key → the tool that wrote it (`config` for the initial memory)
 * @returns the key (if any) and the rejected alternatives with reasons
 * @example
 * ```ts
 * const s = reverseSubstitute("trailblaze+merchant@example.com", { merchant_email: "trailblaze+merchant@example.com" });
 * if (s.key !== "merchant_email") throw new Error();
 * ```
 */
export function reverseSubstitute(
  literal: string,
  memory: Readonly<Record<string, string>>,
  options: SubstitutionOptions = {},
): Substitution {
  const writtenBy = options.writtenBy ?? {};
  const rejected: string[] = [];
  if (isRedacted(literal)) return { rejected }; // any secret at all: none is known to be it
  const entries = Object.entries(memory)
    .filter(([, v]) => v !== "" && !isRedacted(v))
    .sort(([ka, va], [kb, vb]) => vb.length - va.length || (ka < kb ? -1 : ka > kb ? 1 : 0));
  const hits: string[] = [];
  for (const [key, value] of entries) {
    if (value !== literal) {
      if (literal.includes(value) && value.length >= 3) {
        rejected.push(`${key}: only a substring of the parameter (exact matches only)`);
      }
      continue;
    }
    const provisioned = isProvisioningTool(writtenBy[key]);
    if (value.length < MIN_SUBSTITUTION_LENGTH && !provisioned) {
      rejected.push(
        `${key}: value shorter than ${MIN_SUBSTITUTION_LENGTH} characters and not written by a provisioning tool`,
      );
      continue;
    }
    hits.push(key);
  }
  if (hits.length === 0) return { rejected };
  hits.sort((a, b) => {
    const pa = isProvisioningTool(writtenBy[a]) ? 0 : 1;
    const pb = isProvisioningTool(writtenBy[b]) ? 0 : 1;
    return pa - pb || (a < b ? -1 : a > b ? 1 : 0);
  });
  const [key, ...others] = hits as [string, ...string[]];
  for (const o of others) {
    rejected.push(`${o}: holds the same value; ${key} chosen (provisioned first, then by name)`);
  }
  return { key, rejected };
}

/** Shortest value a provisioned key may be interpolated with (never a 1–2 character value). */
export const MIN_INTERPOLATION_LENGTH = 3;

/** The outcome of {@linkcode interpolateValues}. */
export interface Interpolation {
  /** The literal with each slot value written as `{{key}}`, when at least one was. */
  template?: string;
  /** The keys interpolated, in order of first use. */
  keys: string[];
  /** Why other keys holding a value found in the literal were not used. */
  rejected: string[];
}

/**
 * Writes the slot values a longer literal is composed of as `{{key}}` (heuristics v2: an
 * assertion's expected text that shows slot values, "Signed in as {{merchant_email}}").
 * Stricter than the whole-field rule allows for a substring: each occurrence must be the
 * whole value bounded by non-word characters (never a part of a longer word); a value needs
 * 8 or more characters, or 3 or more when a provisioning tool (or the test author) wrote its
 * key; the longest value is placed first and never inside one already placed; two keys with
 * the same value resolve as in {@linkcode reverseSubstitute}.
 *
 * @param literal the text as seen
 * @param values key → value of the slots available (captured, input and memory)
 * @param options `writtenBy`: key → the tool that wrote it (`config` for the initial memory)
 * @returns the template (when a value was found), the keys used, the rejected alternatives
 * @example
 * ```ts
 * const r = interpolateValues("Signed in as bob.smith@example.com", { email: "bob.smith@example.com" });
 * if (r.template !== "Signed in as {{email}}") throw new Error();
 * ```
 */
export function interpolateValues(
  literal: string,
  values: Readonly<Record<string, string>>,
  options: SubstitutionOptions = {},
): Interpolation {
  const writtenBy = options.writtenBy ?? {};
  const provisioned = (k: string) => isProvisioningTool(writtenBy[k]);
  const rejected: string[] = [];
  if (/\{\{|\$\{/.test(literal)) return { keys: [], rejected }; // reads as template syntax
  const entries = Object.entries(values)
    .filter(([, v]) => v !== "" && !isRedacted(v) && v !== literal && literal.includes(v))
    .sort(([ka, va], [kb, vb]) =>
      vb.length - va.length || Number(provisioned(kb)) - Number(provisioned(ka)) ||
      (ka < kb ? -1 : ka > kb ? 1 : 0)
    );
  type Segment = { text: string } | { key: string };
  let segments: Segment[] = [{ text: literal }];
  const keys: string[] = [];
  const placed = new Map<string, string>();
  for (const [key, value] of entries) {
    if (options.asked && !options.asked(key)) {
      if (value.length >= MIN_INTERPOLATION_LENGTH) {
        rejected.push(
          `${key}: inside a longer text, and the step does not ask for it (exact full-field ` +
            `matches only unless the step names the value)`,
        );
      }
      continue;
    }
    const min = provisioned(key) || options.short?.(key)
      ? MIN_INTERPOLATION_LENGTH
      : MIN_SUBSTITUTION_LENGTH;
    if (value.length < min) {
      if (value.length < MIN_INTERPOLATION_LENGTH) continue; // a digit or two: coincidence
      rejected.push(
        `${key}: value shorter than ${min} characters: too ambiguous inside a longer text${
          options.short ? " unless the run typed or read it and the step asks for it" : ""
        }`,
      );
      continue;
    }
    const same = placed.get(value);
    if (same !== undefined) {
      rejected.push(
        `${key}: holds the same value; ${same} chosen (provisioned first, then by name)`,
      );
      continue;
    }
    let used = false;
    segments = segments.flatMap((s) => {
      if (!("text" in s)) return [s];
      const parts = splitBounded(s.text, value);
      if (parts.length === 1) return [s];
      used = true;
      return parts.flatMap((p, i): Segment[] =>
        i === 0 ? (p ? [{ text: p }] : []) : [{ key }, ...(p ? [{ text: p }] : [])]
      );
    });
    if (used) {
      keys.push(key);
      placed.set(value, key);
    } else rejected.push(`${key}: only inside a longer word or value`);
  }
  if (keys.length === 0) return { keys, rejected };
  const template = segments.map((s) => "text" in s ? s.text : `{{${s.key}}}`).join("");
  return { template, keys, rejected };
}

/** Splits text at each occurrence of value bounded by non-word characters (or the ends). */
function splitBounded(text: string, value: string): string[] {
  const out: string[] = [];
  let from = 0;
  let at = text.indexOf(value);
  while (at >= 0) {
    const before = text[at - 1] ?? "";
    const after = text[at + value.length] ?? "";
    if (!/\w/.test(before) && !/\w/.test(after)) {
      out.push(text.slice(from, at));
      from = at + value.length;
      at = text.indexOf(value, from);
    } else at = text.indexOf(value, at + 1);
  }
  out.push(text.slice(from));
  return out;
}
