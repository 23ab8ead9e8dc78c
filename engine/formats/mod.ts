/**
 * File formats Cairn reads and writes: the capture file, recording_v1, Chrome DevTools Recorder
 * JSON, Maestro flows, events JSONL, and the checks on what they contain.
 *
 * @example
 * ```ts
 * import { detectImportFormat } from "./mod.ts";
 * const recorder = JSON.stringify({ title: "t", steps: [{ type: "navigate", url: "http://127.0.0.1/" }] });
 * if (detectImportFormat(recorder).format !== "chrome-recorder") throw new Error();
 * ```
 *
 * @module
 */
export * from "./blob_ref.ts";
export * from "./capture_v1.ts";
export * from "./check_screen.ts";
export * from "./chrome_recorder.ts";
export * from "./events_jsonl.ts";
export * from "./import_file.ts";
export * from "./maestro_flow.ts";
export * from "./recording_v1.ts";
export * from "./screen_point.ts";
export * from "./session_rules.ts";
