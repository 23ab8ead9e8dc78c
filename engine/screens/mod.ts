/**
 * Screens: the platform-neutral node model (`UiNode`), the parsers of every hierarchy format
 * (Chrome, Android, iOS, Maestro, Trailblaze), content-hashed refs, the agent's snapshot text and
 * its diff, set-of-mark drawing and the screen table the hot path reads.
 *
 * @example
 * ```ts
 * import { parseHierarchy, renderSnapshot } from "./mod.ts";
 * const screen = parseHierarchy(
 *   '<hierarchy><node class="android.widget.Button" text="Send" clickable="true" bounds="[0,0][200,80]"/></hierarchy>',
 * );
 * const text = renderSnapshot(screen);
 * if (!/Button "Send" \[ref=[a-z]\d+\]/.test(text)) throw new Error(text);
 * ```
 *
 * @module
 */
export * from "./chrome_hierarchy.ts";
export * from "./chrome_join.ts";
export * from "./hierarchy.ts";
export * from "./marks.ts";
export * from "./parse_axtree.ts";
export * from "./recent_map.ts";
export * from "./resolve_ref.ts";
export * from "./screen_codec.ts";
export * from "./screen_table.ts";
export * from "./snapshot.ts";
export * from "./snapshot_diff.ts";
export * from "./ui_node.ts";
