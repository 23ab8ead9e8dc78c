/**
 * Parser of `maestro hierarchy` JSON: `{ attributes: {…}, children: […] }` with string
 * attributes (`accessibilityText`, `text`, `value`, `hintText`, `resource-id`, `bounds`
 * `"[x1,y1][x2,y2]"`, `enabled`, `focused`, `selected`, `checked`, and on Android `class`,
 * `clickable`, …). iOS trees carry no element type.
 *
 * @module
 */
import {
  asRecord,
  asString,
  extent,
  flag,
  node,
  parseBoundsString,
  parseJsonAt,
} from "./_parse_util.ts";
import type { Platform, Screen, UiNode } from "./ui_node.ts";

/** Class given to Maestro iOS nodes, which carry no element type. */
export const MAESTRO_IOS_CLASS = "XCUIElementTypeOther";

function detectPlatform(root: Record<string, unknown>): Platform {
  const stack: unknown[] = [root];
  let seen = 0;
  while (stack.length > 0 && seen++ < 10_000) {
    const n = asRecord(stack.pop());
    const attrs = asRecord(n?.attributes);
    const cls = asString(attrs?.class);
    if (cls !== undefined && cls !== "") return "android";
    const children = n?.children;
    if (Array.isArray(children)) stack.push(...children);
  }
  return "ios";
}

/**
 * Parses Maestro hierarchy JSON (text or an already parsed value) into a screen.
 *
 * @param input the JSON text, or the parsed object
 * @returns the screen (Android when nodes carry `class`, else iOS in points)
 * @throws {SyntaxError} on malformed JSON (line and column) or a node that is not of the shape
 * @example
 * ```ts
 * const s = parseMaestro('{"attributes":{"bounds":"[0,0][0,0]"},"children":[{"attributes":{"text":"Hi","bounds":"[0,0][390,844]"},"children":[]}]}');
 * if (s.width !== 390 || s.root.children[0]?.text !== "Hi") throw new Error();
 * ```
 */
export function parseMaestro(input: string | unknown): Screen {
  const data = typeof input === "string" ? parseJsonAt(input, "Maestro hierarchy") : input;
  const rootRec = asRecord(data);
  if (!rootRec || !asRecord(rootRec.attributes)) {
    throw new SyntaxError("Invalid Maestro hierarchy: the root must be an object with attributes");
  }
  const platform = detectPlatform(rootRec);
  const convert = (raw: unknown, path: string): UiNode => {
    const n = asRecord(raw);
    const a = asRecord(n?.attributes);
    if (!n || !a) {
      throw new SyntaxError(
        `Invalid Maestro hierarchy at ${path}: expected { attributes, children }`,
      );
    }
    const get = (k: string) => asString(a[k]);
    const rawBounds = get("bounds");
    const bounds = rawBounds === undefined
      ? { x: 0, y: 0, w: 0, h: 0 }
      : parseBoundsString(rawBounds);
    if (!bounds) {
      throw new SyntaxError(
        `Invalid Maestro hierarchy at ${path}.attributes.bounds: ${JSON.stringify(rawBounds)}`,
      );
    }
    const resourceId = get("resource-id") ?? "";
    const text = get("text") ?? "";
    const value = get("value") ?? "";
    const attrs: Record<string, string> = {};
    for (const k of ["package", "title", "index"]) {
      const v = get(k);
      if (v) attrs[k] = v;
    }
    const kids = Array.isArray(n.children) ? n.children : [];
    return node({
      className: get("class") || (platform === "ios" ? MAESTRO_IOS_CLASS : "android.view.View"),
      text: text || get("title"),
      resourceId,
      testId: platform === "ios" || !resourceId.includes(":id/") ? resourceId : undefined,
      contentDescription: get("accessibilityText") ?? get("content-desc"),
      hint: get("hintText"),
      value: value !== text ? value : undefined,
      bounds,
      clickable: flag(get("clickable")),
      enabled: flag(get("enabled"), true),
      focused: flag(get("focused")),
      checked: flag(get("checked")),
      checkable: flag(get("checkable")),
      selected: flag(get("selected")),
      scrollable: flag(get("scrollable")),
      password: flag(get("password")),
      visible: flag(get("visible"), true),
      attrs,
      children: kids.map((c, i) => convert(c, `${path}.children[${i}]`)),
    });
  };
  const root = convert(rootRec, "root");
  const ext = extent(allBounds(root));
  if (root.bounds.w === 0 && root.bounds.h === 0) {
    root.bounds = { x: 0, y: 0, w: ext.width, h: ext.height };
  }
  const top = root.children[0]?.bounds ?? root.bounds;
  const width = top.x + top.w || ext.width;
  const height = top.y + top.h || ext.height;
  return { platform, format: "maestro", root, width, height };
}

function* allBounds(root: UiNode) {
  yield root.bounds;
  for (const c of root.children) yield c.bounds;
}
