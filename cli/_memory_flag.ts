/**
 * `--memory KEY=VALUE`: values for a trail's memory slots kept as `null` (secrets), given on the
 * command line of `validate` and `replay` and stored nowhere. Private to `cli/`.
 *
 * @module
 */
import { InputError } from "./errors.ts";

/**
 * Parses `--memory KEY=VALUE` flags.
 *
 * @param entries the raw flags
 * @returns values by memory key
 * @throws {InputError} on a malformed entry (without echoing it: it may be the secret itself)
 * @example
 * ```ts
 * import { parseMemory } from "./_memory_flag.ts";
 * if (parseMemory(["pin=12=34"]).pin !== "12=34") throw new Error();
 * ```
 */
export function parseMemory(entries: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of entries) {
    const m = /^([^=]+)=(.*)$/s.exec(e);
    if (!m) {
      // The entry may be the secret itself: it is not echoed.
      throw new InputError("--memory: expected KEY=VALUE (a key of the trail's memory)");
    }
    out[m[1]!] = m[2]!;
  }
  return out;
}
