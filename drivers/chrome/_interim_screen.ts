/**
 * A stand-in screen capture used until B1's joined hierarchy (`drivers/chrome/hierarchy.ts`
 * and `engine/chrome_hierarchy.ts`) is committed: the CDP accessibility tree with layout bounds
 * from `DOMSnapshot.captureSnapshot`. Named "interim": it is replaced, not extended.
 *
 * @module
 */
import type { CDPSession } from "puppeteer-core";
import { makeNode, type Screen, type UiNode } from "../../engine/ui_node.ts";

interface AxValue {
  value?: unknown;
}
interface AxNode {
  nodeId: string;
  ignored?: boolean;
  role?: AxValue;
  name?: AxValue;
  value?: AxValue;
  properties?: { name: string; value: AxValue }[];
  childIds?: string[];
  backendDOMNodeId?: number;
}

const INTERACTIVE = new Set([
  "button",
  "link",
  "textbox",
  "searchbox",
  "checkbox",
  "radio",
  "switch",
  "combobox",
  "listbox",
  "option",
  "menuitem",
  "tab",
  "slider",
  "spinbutton",
]);

/**
 * Captures the AX tree and layout in parallel and joins them into a {@linkcode Screen}.
 *
 * @param cdp a CDP session attached to the page
 * @param size the viewport size in CSS pixels
 * @returns the screen and the raw JSON it came from
 */
export async function captureInterimScreen(
  cdp: CDPSession,
  size: { width: number; height: number; url: string },
): Promise<{ screen: Screen; raw: string }> {
  const [ax, dom] = await Promise.all([
    cdp.send("Accessibility.getFullAXTree"),
    cdp.send("DOMSnapshot.captureSnapshot", { computedStyles: [] }),
  ]);
  const doc = dom.documents[0];
  const boundsByBackend = new Map<number, number[]>();
  if (doc) {
    const sx = doc.scrollOffsetX ?? 0;
    const sy = doc.scrollOffsetY ?? 0;
    doc.layout.nodeIndex.forEach((nodeIndex, i) => {
      const backend = doc.nodes.backendNodeId?.[nodeIndex];
      const b = doc.layout.bounds[i];
      if (backend !== undefined && b && !boundsByBackend.has(backend)) {
        boundsByBackend.set(backend, [b[0]! - sx, b[1]! - sy, b[2]!, b[3]!]);
      }
    });
  }
  const nodes = ax.nodes as AxNode[];
  const byId = new Map(nodes.map((n) => [n.nodeId, n]));
  const build = (n: AxNode): UiNode[] => {
    const children = (n.childIds ?? []).flatMap((id) => {
      const c = byId.get(id);
      return c ? build(c) : [];
    });
    const role = String(n.role?.value ?? "");
    if (n.ignored || role === "none" || role === "generic" && children.length === 1) {
      return children;
    }
    const props = new Map((n.properties ?? []).map((p) => [p.name, p.value.value]));
    const b = boundsByBackend.get(n.backendDOMNodeId ?? -1) ?? [0, 0, 0, 0];
    const name = typeof n.name?.value === "string" ? n.name.value : "";
    return [makeNode({
      className: role || "generic",
      role,
      name,
      text: role === "StaticText" ? name : "",
      value: typeof n.value?.value === "string" ? n.value.value : "",
      bounds: { x: b[0]!, y: b[1]!, w: b[2]!, h: b[3]! },
      clickable: INTERACTIVE.has(role),
      enabled: props.get("disabled") !== true,
      focused: props.get("focused") === true,
      checked: props.get("checked") === "true" || props.get("checked") === true,
      checkable: props.has("checked"),
      scrollable: false,
      visible: b[2]! > 0 && b[3]! > 0,
      children,
    })];
  };
  const root = nodes[0] ? build(nodes[0])[0] : undefined;
  return {
    screen: {
      platform: "web",
      format: "chrome",
      root: root ?? makeNode({ className: "RootWebArea" }),
      width: size.width,
      height: size.height,
      url: size.url,
    },
    raw: JSON.stringify({ interim: true, ax: ax.nodes, url: size.url }),
  };
}
