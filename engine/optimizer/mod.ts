/**
 * The optimizer: a projection of a session's events into a durable trail — selector chains checked for uniqueness, variables instead of literals, formats as regexes, computed values as expressions — under a selector mode and a heuristics version.
 *
 * @module
 */
export * from "./anchors.ts";
export * from "./modes.ts";
export * from "./optimize.ts";
export * from "./selector_match.ts";
export * from "./selectors.ts";
export * from "./trail_projection.ts";
