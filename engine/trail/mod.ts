/**
 * Trails: the YAML trail format, its template language (`{{expr}}`), and the projections that fold a session's events into a trail or a capture.
 *
 * @module
 */
export * from "./capture_projection.ts";
export * from "./heuristics.ts";
export * from "./key_chord.ts";
export * from "./regex.ts";
export * from "./template.ts";
export * from "./trail.ts";
export * from "./duration.ts";
