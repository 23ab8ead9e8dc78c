/**
 * Validation logic: comparing replays, deciding whether a trail is stable, placing failures and
 * refining the trail.
 *
 * @example
 * ```ts
 * import { policyFlags } from "./mod.ts";
 * const flags = policyFlags("ci");
 * if (typeof flags !== "object" || flags === null) throw new Error();
 * ```
 *
 * @module
 */
export * from "./compare.ts";
export * from "./decider.ts";
export * from "./place.ts";
export * from "./refine.ts";
export * from "./report.ts";
export * from "./report_answer.ts";
export * from "./run_stream_rules.ts";
export * from "./trail_edit.ts";
export * from "./trail_source.ts";
