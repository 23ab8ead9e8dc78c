/**
 * Recorded sessions read back out of the event log with the blobs their events reference, as a
 * capture file or a recording.
 *
 * @example
 * ```ts
 * import * as record from "./mod.ts";
 * if (typeof record.readSession !== "function" || typeof record.sessionToCapture !== "function") {
 *   throw new Error();
 * }
 * ```
 *
 * @module
 */
export * from "./session_export.ts";
