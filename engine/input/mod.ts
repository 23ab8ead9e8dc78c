/**
 * Reading untrusted input: the one-line `FormatError` naming file, line and field, JSON parsed
 * under one nesting limit, and UTF-8 text checks.
 *
 * @example
 * ```ts
 * import { FormatError, parseJson } from "./mod.ts";
 * if ((parseJson('{"a": [1, 2]}') as { a: number[] }).a[1] !== 2) throw new Error();
 * try {
 *   parseJson('{"a": ');
 *   throw new Error("accepted");
 * } catch (err) {
 *   if (!(err instanceof FormatError)) throw err;
 * }
 * ```
 *
 * @module
 */
export * from "./format_error.ts";
export * from "./json_text.ts";
export * from "./lifted_json.ts";
export * from "./nesting.ts";
export * from "./utf8_text.ts";
