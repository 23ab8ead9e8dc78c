/**
 * The one error class of the import formats: bad input that names where it is (a field path
 * or a line and column). It extends `SyntaxError`, so the CLI exits with code 2.
 *
 * @module
 */
import type { z } from "zod";

/** Bad input in an imported file, naming the field path or the line and column. */
export class FormatError extends SyntaxError {
  override name = "FormatError";
  /**
   * @param message what is wrong, starting with where (`actions.2.action: …`, `line 3, column 7: …`)
   * @param where the field path or line the message names
   */
  constructor(message: string, readonly where?: string) {
    super(message);
  }
}

/**
 * Turns zod issues into one line: each issue's path (joined with dots) and message.
 *
 * @param error a zod error
 * @param prefix a path the issues are relative to (`timeline.3.snapshot`)
 * @returns a FormatError naming the first issue's path
 * @example
 * ```ts
 * import { z } from "zod";
 * const r = z.object({ a: z.number() }).safeParse({ a: "x" });
 * if (r.success || !zodToFormatError(r.error).message.startsWith("a: ")) throw new Error();
 * ```
 */
export function zodToFormatError(error: z.ZodError, prefix?: string): FormatError {
  const all = zodIssueList(error);
  const issues = all.slice(0, 3).map((i) => {
    const path = [...(prefix ? [prefix] : []), ...i.path].join(".") || "(root)";
    return `${path}: ${i.message}`;
  });
  const more = all.length > 3 ? ` (and ${all.length - 3} more)` : "";
  const first = all[0];
  const where = [...(prefix ? [prefix] : []), ...(first?.path ?? [])].join(".");
  return new FormatError(issues.join("; ") + more, where);
}

/**
 * A zod error's issues, each with its path as strings; a key a strict object does not know is
 * an issue at that key (`extra`: `unknown field`), not one at the object naming it in its message.
 *
 * @param error a zod error
 * @returns the issues, in order
 * @example
 * ```ts
 * import { z } from "zod";
 * const r = z.strictObject({ a: z.number() }).safeParse({ a: 1, extra: 2 });
 * if (r.success || zodIssueList(r.error)[0]!.path.join(".") !== "extra") throw new Error();
 * ```
 */
export function zodIssueList(error: z.ZodError): { path: string[]; message: string }[] {
  return error.issues.flatMap((i) => {
    const path = i.path.map(String);
    if (i.code === "unrecognized_keys") {
      return i.keys.map((key) => ({ path: [...path, key], message: "unknown field" }));
    }
    return [{ path, message: i.message }];
  });
}
