/**
 * Blaze sessions: an agent drives an app tool by tool while every action is captured as events.
 *
 * @example
 * ```ts
 * import { isPageUrl } from "./mod.ts";
 * if (!isPageUrl("http://127.0.0.1:8080/") || isPageUrl("javascript:alert(1)")) throw new Error();
 * ```
 *
 * @module
 */
export * from "./actions.ts";
export * from "./editable.ts";
export * from "./no_outcome.ts";
export * from "./params.ts";
export * from "./session.ts";
