/**
 * Recording support: a recorded session exported with its blobs, and secrets scrubbed from what recorders store.
 *
 * @module
 */
export * from "./secret_scrubber.ts";
export * from "./session_export.ts";
