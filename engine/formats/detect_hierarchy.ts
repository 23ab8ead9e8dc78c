/**
 * Detects the format of a raw view hierarchy from its content.
 *
 * @module
 */
import { detectFormat } from "../screens/mod.ts";
import type { HierarchyFormat } from "../screens/mod.ts";

/**
 * Detects a hierarchy's format: the formats `engine/screens/hierarchy.ts` detects (XCUITest,
 * `uiautomator dump` and UiAutomator2 XML, Maestro, Trailblaze and Cairn Chrome JSON), and
 * `axtree_v1` JSON (`schema_version: "axtree_v1"`, a `nodes` list with `node_id`, or CDP's raw
 * `getFullAXTree` result).
 *
 * @param raw hierarchy text or an already parsed JSON value
 * @returns the format, or undefined when none fits
 * @example
 * ```ts
 * if (detectHierarchyFormat('<hierarchy rotation="0"><node text="" /></hierarchy>') !== "uiautomator-dump") throw new Error();
 * ```
 */
export function detectHierarchyFormat(raw: unknown): HierarchyFormat | undefined {
  // engine/screens/hierarchy.ts's detectFormat is the one place of truth (axtree_v1 included).
  const text = typeof raw === "string" ? raw : JSON.stringify(raw);
  if (text === undefined) return undefined;
  try {
    return detectFormat(text);
  } catch (err) {
    if (err instanceof SyntaxError) return undefined;
    throw err;
  }
}

/**
 * The media type a hierarchy of a format is stored under.
 *
 * @param format the hierarchy format
 * @returns `application/xml` or `application/json`
 */
export function hierarchyMediaType(format: HierarchyFormat): string {
  switch (format) {
    case "uiautomator2":
    case "uiautomator-dump":
    case "xcuitest":
      return "application/xml";
    case "maestro":
    case "trailblaze":
    case "chrome":
    case "axtree_v1":
      return "application/json";
    default: {
      const never: never = format;
      throw new TypeError(`Unknown hierarchy format ${String(never)}`);
    }
  }
}
