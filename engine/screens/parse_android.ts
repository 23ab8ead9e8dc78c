/**
 * Parser of Android hierarchies: Appium UiAutomator2 page source (tags are class names) and
 * raw `uiautomator dump` output (`<node>` tags), old and new attribute sets alike.
 *
 * @module
 */
import { extent, flag, node, parseBoundsString } from "./_parse_util.ts";
import type { Screen, UiNode } from "./ui_node.ts";
import { parseXml, syntaxErrorAt, type XmlElement } from "./xml.ts";

/** Raw attributes kept in `attrs` besides `package`, `index` and `tag`. */
const KEPT_ATTRS = [
  "focusable",
  "long-clickable",
  "NAF",
  "instance",
  "input-type",
  "window-id",
  "pane-title",
  "drawing-order",
  "display-id",
  "heading",
  "tooltip-text",
] as const;

/**
 * Parses Android page source or a `uiautomator dump` into a screen.
 *
 * The root is a synthetic `hierarchy` node spanning the screen; each direct child of
 * `<hierarchy>` (one per window when the dumper includes several) is one of its children.
 *
 * @param text the XML source
 * @returns the screen (format `uiautomator-dump` when `<node>` tags are used, else `uiautomator2`)
 * @throws {SyntaxError} on malformed XML or bounds, or XCUITest page source, naming the line
 * and column
 * @example
 * ```ts
 * const s = parseAndroid('<hierarchy rotation="0"><node class="android.widget.Button" text="OK" bounds="[0,0][100,50]"/></hierarchy>');
 * if (s.root.children[0]?.text !== "OK" || s.width !== 100) throw new Error();
 * ```
 */
export function parseAndroid(text: string): Screen {
  const doc = parseXml(text);
  if (doc.name === "AppiumAUT" || doc.name.startsWith("XCUIElementType")) {
    throw syntaxErrorAt(
      text,
      doc.offset,
      `Not UiAutomator XML: the root element is <${doc.name}>, XCUITest's (expected <hierarchy> or <node>)`,
    );
  }
  const top = doc.name === "hierarchy" ? doc.children : [doc];
  let dump = false;
  const convert = (el: XmlElement): UiNode => {
    if (el.name === "node") dump = true;
    const a = el.attrs;
    const boundsAttr = a.bounds;
    const bounds = boundsAttr === undefined
      ? { x: 0, y: 0, w: 0, h: 0 }
      : parseBoundsString(boundsAttr);
    if (!bounds) {
      throw syntaxErrorAt(
        text,
        el.offset,
        `Invalid bounds ${JSON.stringify(boundsAttr)} (expected [x1,y1][x2,y2])`,
      );
    }
    const resourceId = a["resource-id"] ?? "";
    const attrs: Record<string, string> = { tag: el.name };
    if (a.package !== undefined) attrs.package = a.package;
    if (a.index !== undefined) attrs.index = a.index;
    for (const k of KEPT_ATTRS) {
      const v = a[k];
      if (v !== undefined && v !== "") attrs[k] = v;
    }
    const visibleAttr = a["visible-to-user"] ?? a.displayed;
    return node({
      className: a.class || (el.name === "node" ? "android.view.View" : el.name),
      text: a.text,
      resourceId,
      testId: resourceId !== "" && !resourceId.includes(":id/") ? resourceId : undefined,
      contentDescription: a["content-desc"],
      hint: a.hint,
      bounds,
      clickable: flag(a.clickable),
      enabled: flag(a.enabled, true),
      focused: flag(a.focused),
      checked: flag(a.checked),
      checkable: flag(a.checkable),
      selected: flag(a.selected),
      scrollable: flag(a.scrollable),
      password: flag(a.password),
      visible: flag(visibleAttr, true),
      attrs,
      children: el.children.map(convert),
    });
  };
  const children = top.map(convert);
  const ext = extent(children.map((c) => c.bounds));
  const width = Math.max(Number(doc.attrs.width) || 0, ext.width);
  const height = Math.max(Number(doc.attrs.height) || 0, ext.height);
  const rootAttrs: Record<string, string> = { tag: "hierarchy" };
  if (doc.attrs.rotation !== undefined) rootAttrs.rotation = doc.attrs.rotation;
  const root = node({
    className: "hierarchy",
    bounds: { x: 0, y: 0, w: width, h: height },
    attrs: rootAttrs,
    children,
  });
  return {
    platform: "android",
    format: dump ? "uiautomator-dump" : "uiautomator2",
    root,
    width,
    height,
  };
}
