/**
 * One regex helper shared by the engine, scripts and tests.
 *
 * @module
 */

/**
 * Escapes every character that has a meaning in a regular expression, so `text` matches itself.
 *
 * @param text any string
 * @returns a regex source matching exactly `text`
 * @example
 * ```ts
 * if (!new RegExp(`^${escapeRegex("a.b (c)")}$`).test("a.b (c)")) throw new Error();
 * ```
 */
export function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
