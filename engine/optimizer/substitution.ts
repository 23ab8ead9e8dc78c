/**
 * Memory reverse substitution, exactly as seed 001 decides: a literal tool parameter that
 * equals a value in the memory snapshot taken after the tool call becomes `{{key}}`.
 *
 * Guards against false positives: exact full-field matches only (never a substring); values
 * of 8 or more characters only, unless the key was written by a known provisioning tool
 * (`merchantFactory_*`, `rememberWithAi`, …) or seeded in the session's initial memory; the
 * longest value is tried first; when two keys hold the same value, a provisioned key wins,
 * then the alphabetically first key (deterministic), and the other is reported.
 *
 * @module
 */

/** Minimum length of a substituted value when its key was not provisioned (001). */
export const MIN_SUBSTITUTION_LENGTH = 8;

/** Tools whose memory writes are trusted at any length (001: "known memory-writing tools"). */
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
  const entries = Object.entries(memory)
    .filter(([, v]) => v !== "")
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
