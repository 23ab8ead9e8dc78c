/**
 * Trails: the YAML trail format, its template language (`{{expr}}`), and the projections that
 * fold a session's events into a trail or a capture.
 *
 * @example
 * ```ts
 * import { evaluateTemplate, parseTrail, stringifyTrail } from "./mod.ts";
 * const trail = parseTrail("config: {}\ntrail:\n  - step: Go\n    recording:\n      - tap: { id: go }\n");
 * if (!stringifyTrail(trail).includes('id: "go"')) throw new Error();
 * if (evaluateTemplate("{{count + 2}}", { count: "3" }) !== "5") throw new Error();
 * ```
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
