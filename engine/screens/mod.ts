/**
 * Screens: the platform-neutral node model (`UiNode`), the parsers of every hierarchy format (Chrome, Android, iOS, Maestro, Trailblaze), content-hashed refs, the agent's snapshot text and its diff, set-of-mark drawing and the screen table the hot path reads.
 *
 * @module
 */
export * from "./chrome_hierarchy.ts";
export * from "./chrome_join.ts";
export * from "./hierarchy.ts";
export * from "./marks.ts";
export * from "./parse_axtree.ts";
export * from "./resolve_ref.ts";
export * from "./screen_table.ts";
export * from "./snapshot.ts";
export * from "./snapshot_diff.ts";
export * from "./ui_node.ts";
