/**
 * Detects the format of a raw view hierarchy from its content.
 *
 * @module
 */
import type { HierarchyFormat } from "../ui_node.ts";

/** The schema_version prefix of Cairn's joined Chrome hierarchy (engine/chrome_hierarchy.ts). */
const CHROME_PREFIX = /chrome/i;

/**
 * Detects a hierarchy's format: XCUITest XML (`XCUIElementType…`), `uiautomator dump` XML
 * (`<node>` elements), Appium UiAutomator2 XML (class-name tags), `axtree_v1` JSON
 * (`schema_version` or a `nodes` list with `node_id`), Cairn's Chrome JSON (a `schema_version`
 * naming chrome), a Trailblaze waypoint (`viewHierarchy`) or Maestro JSON (`attributes`).
 *
 * @param raw hierarchy text or an already parsed JSON value
 * @returns the format, or undefined when none fits
 * @example
 * ```ts
 * if (detectHierarchyFormat('<hierarchy rotation="0"><node text="" /></hierarchy>') !== "uiautomator-dump") throw new Error();
 * ```
 */
export function detectHierarchyFormat(raw: unknown): HierarchyFormat | undefined {
  if (typeof raw === "string") {
    const t = raw.trimStart();
    if (t.startsWith("<")) {
      if (t.includes("XCUIElementType")) return "xcuitest";
      if (/<node[\s>/]/.test(t)) return "uiautomator-dump";
      if (/<hierarchy[\s>]/.test(t)) return "uiautomator2";
      return undefined;
    }
    if (t.startsWith("{") || t.startsWith("[")) {
      try {
        return detectHierarchyFormat(JSON.parse(t));
      } catch {
        return undefined;
      }
    }
    return undefined;
  }
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) return undefined;
  const o = raw as Record<string, unknown>;
  const version = o.schema_version ?? o.schemaVersion ?? o.format;
  if (version === "axtree_v1") return "axtree_v1";
  if (typeof version === "string" && CHROME_PREFIX.test(version)) return "chrome";
  if (Array.isArray(o.nodes) && o.nodes.some((n) => n && typeof n === "object" && "node_id" in n)) {
    return "axtree_v1";
  }
  if (o.viewHierarchy && typeof o.viewHierarchy === "object") return "trailblaze";
  if ("attributes" in o && (o.children === undefined || Array.isArray(o.children))) {
    return "maestro";
  }
  return undefined;
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
