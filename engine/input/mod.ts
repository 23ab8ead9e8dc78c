/**
 * TODO engine/input
 *
 * @module
 */
export * from "./format_error.ts";
export * from "./json_text.ts";
export * from "./nesting.ts";
export * from "./utf8_text.ts";
