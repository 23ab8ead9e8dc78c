/**
 * The optimizer: a projection of a session's events into a durable trail — selector chains
 * checked for uniqueness, variables instead of literals, formats as regexes, computed values as
 * expressions — under a selector mode and a heuristics version.
 *
 * @example
 * ```ts
 * import { dynamicPattern, withAnchors } from "./mod.ts";
 * // The main entry is projectTrail(events, { screens, mode, heuristics }) (cairn optimize).
 * // Two of its pieces: a count in a label becomes a pattern, a repeated control gets its row.
 * if (dynamicPattern("View cart (1)") !== "View cart \\(\\d+\\)") throw new Error();
 * const s = withAnchors({ text: "View" }, ["Premium Cable", "Office Supplies"]);
 * if (s.childOf?.childOf?.text !== "Office Supplies") throw new Error();
 * ```
 *
 * @module
 */
export * from "./anchors.ts";
export * from "./modes.ts";
export * from "./optimize.ts";
export * from "./selector_match.ts";
export * from "./selectors.ts";
export * from "./trail_projection.ts";
