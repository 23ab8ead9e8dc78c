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
  const issues = error.issues.slice(0, 3).map((i) => {
    const path = [...(prefix ? [prefix] : []), ...i.path.map(String)].join(".") || "(root)";
    return `${path}: ${i.message}`;
  });
  const more = error.issues.length > 3 ? ` (and ${error.issues.length - 3} more)` : "";
  const first = error.issues[0];
  const where = [...(prefix ? [prefix] : []), ...(first?.path.map(String) ?? [])].join(".");
  return new FormatError(issues.join("; ") + more, where);
}
