/**
 * Parser of Trailblaze waypoint captures (`*.example.json`): `{ waypointId, deviceWidth,
 * deviceHeight, viewHierarchy, trailblazeNodeTree, … }`. The `viewHierarchy` tree is read:
 * nodes carry `x1 y1 x2 y2` (zero values elided), `text`, `accessibilityText`, `resourceId`,
 * `className`, `hintText` and boolean flags that are present only when not the default.
 *
 * @module
 */
import { asRecord, asString, node, parseJsonAt } from "./_parse_util.ts";
import { MAESTRO_IOS_CLASS } from "./parse_maestro.ts";
import type { Platform, Screen, UiNode } from "./ui_node.ts";

function detectPlatform(data: Record<string, unknown>): Platform {
  const tree = asRecord(data.trailblazeNodeTree);
  const stack: unknown[] = tree ? [tree] : [];
  let seen = 0;
  while (stack.length > 0 && seen++ < 10_000) {
    const n = asRecord(stack.pop());
    const cls = asString(asRecord(n?.driverDetail)?.class);
    if (cls === "androidAccessibility") return "android";
    if (cls === "iosMaestro") return "ios";
    if (Array.isArray(n?.children)) stack.push(...n.children);
  }
  return JSON.stringify(data.viewHierarchy ?? {}).includes('"className":"android.')
    ? "android"
    : "ios";
}

/**
 * Parses a Trailblaze waypoint capture (text or parsed value) into a screen.
 *
 * @param input the JSON text, or the parsed object
 * @returns the screen (iOS in points, Android in device pixels)
 * @throws {SyntaxError} on malformed JSON (line and column) or a missing `viewHierarchy`
 * @example
 * ```ts
 * const s = parseTrailblaze({ deviceWidth: 402, deviceHeight: 874, viewHierarchy: { x2: 402, y2: 874, children: [{ text: "Hi", x1: 10, y1: 10, x2: 50, y2: 30 }] } });
 * if (s.root.children[0]?.text !== "Hi" || s.height !== 874) throw new Error();
 * ```
 */
export function parseTrailblaze(input: string | unknown): Screen {
  const data = asRecord(
    typeof input === "string" ? parseJsonAt(input, "Trailblaze waypoint") : input,
  );
  const vh = asRecord(data?.viewHierarchy);
  if (!data || !vh) {
    throw new SyntaxError("Invalid Trailblaze waypoint: missing viewHierarchy object");
  }
  const platform = detectPlatform(data);
  const convert = (value: unknown, path: string): UiNode => {
    const n = asRecord(value);
    if (!n) throw new SyntaxError(`Invalid Trailblaze waypoint at ${path}: expected an object`);
    const numAt = (k: string): number => {
      const v = n[k];
      if (v === undefined) return 0;
      if (typeof v !== "number" || !Number.isFinite(v)) {
        throw new SyntaxError(`Invalid Trailblaze waypoint at ${path}.${k}: expected a number`);
      }
      return v;
    };
    const x1 = numAt("x1"), y1 = numAt("y1"), x2 = numAt("x2"), y2 = numAt("y2");
    const s = (k: string) => asString(n[k]);
    const b = (k: string, d: boolean) => typeof n[k] === "boolean" ? n[k] as boolean : d;
    const resourceId = s("resourceId") ?? "";
    const attrs: Record<string, string> = {};
    if (n.nodeId !== undefined) attrs.nodeId = String(n.nodeId);
    const kids = Array.isArray(n.children) ? n.children : [];
    return node({
      className: s("className") || (platform === "ios" ? MAESTRO_IOS_CLASS : "android.view.View"),
      text: s("text"),
      resourceId,
      testId: platform === "ios" || !resourceId.includes(":id/") ? resourceId : undefined,
      contentDescription: s("accessibilityText"),
      hint: s("hintText"),
      bounds: { x: x1, y: y1, w: Math.max(0, x2 - x1), h: Math.max(0, y2 - y1) },
      clickable: b("clickable", false),
      enabled: b("enabled", true),
      focused: b("focused", false),
      checked: b("checked", false),
      checkable: b("checkable", false),
      selected: b("selected", false),
      scrollable: b("scrollable", false),
      password: b("password", false),
      visible: b("visible", true),
      attrs,
      children: kids.map((c, i) => convert(c, `${path}.children[${i}]`)),
    });
  };
  const root = convert(vh, "viewHierarchy");
  const width = typeof data.deviceWidth === "number" ? data.deviceWidth : root.bounds.w;
  const height = typeof data.deviceHeight === "number" ? data.deviceHeight : root.bounds.h;
  if (root.bounds.w === 0 && root.bounds.h === 0) root.bounds = { x: 0, y: 0, w: width, h: height };
  return { platform, format: "trailblaze", root, width, height };
}
