/**
 * Recording support: a recorded session exported with its blobs, and secrets scrubbed from what
 * recorders store.
 *
 * @example
 * ```ts
 * import * as record from "./mod.ts";
 * if (typeof record.readSession !== "function" || typeof record.SecretScrubber !== "function") {
 *   throw new Error();
 * }
 * ```
 *
 * @module
 */
export * from "./secret_scrubber.ts";
export * from "./session_export.ts";
