/**
 * A stand-in for B1's `engine/refs.ts` and `engine/snapshot.ts` until they are committed:
 * DESIGN.md's ref (hash of class + text + centre rounded to 10 px → one letter and 1–3
 * digits, collisions suffixed in document order) and a plain indented rendering. Named
 * "interim": it is replaced, not extended.
 *
 * @module
 */
import { center, type Screen, type UiNode, walk } from "../engine/ui_node.ts";

const GENERIC = new Set(["generic", "none", "InlineTextBox", "LineBreak"]);

function hashRef(node: UiNode): string {
  const c = center(node.bounds);
  const key = `${node.className}|${node.text ?? node.name ?? ""}|${Math.round(c.x / 10)}|${
    Math.round(c.y / 10)
  }`;
  let h = 2166136261;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 16777619) >>> 0;
  return String.fromCharCode(97 + (h % 26)) + String(Math.floor(h / 26) % 1000);
}

function shown(node: UiNode): boolean {
  return !GENERIC.has(node.className) && (node.clickable || !!node.name || !!node.text);
}

/** Every shown node with its ref, in document order. */
export function interimRefs(screen: Screen): Map<string, UiNode> {
  const refs = new Map<string, UiNode>();
  for (const [node] of walk(screen.root)) {
    if (!shown(node)) continue;
    const base = hashRef(node);
    let ref = base;
    for (let i = 0; refs.has(ref) && i < 26; i++) ref = base + String.fromCharCode(98 + i);
    refs.set(ref, node);
  }
  return refs;
}

/** Renders the shown nodes as indented lines with their refs. */
export function interimRender(
  screen: Screen,
  options: { bounds?: boolean; offscreen?: boolean } = {},
): string {
  const refOf = new Map([...interimRefs(screen)].map(([ref, node]) => [node, ref]));
  const lines: string[] = [];
  let hidden = 0;
  for (const [node, depth] of walk(screen.root)) {
    const ref = refOf.get(node);
    if (!ref) continue;
    const b = node.bounds;
    const off = !node.visible || b.y + b.h <= 0 || b.y >= screen.height || b.x >= screen.width;
    if (off && !options.offscreen) {
      hidden++;
      continue;
    }
    const label = node.name ?? node.text ?? "";
    lines.push(
      `${"  ".repeat(Math.min(depth, 12))}- ${node.className}${
        label ? ` ${JSON.stringify(label)}` : ""
      } [${ref}]${options.bounds ? ` {x:${b.x},y:${b.y},w:${b.w},h:${b.h}}` : ""}${
        off ? " (offscreen)" : ""
      }`,
    );
  }
  if (hidden > 0) lines.push(`(${hidden} offscreen)`);
  return lines.join("\n");
}
