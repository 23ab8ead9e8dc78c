/**
 * `axtree_v1`: the accessibility-tree snapshot of a `recording_v1` file — a flat
 * node list whose `children` name other nodes' ids, with role, name, value and properties but
 * no bounds. Parsed into a {@linkcode UiNode} tree; every bound is the zero rectangle, so
 * resolving a point against such a screen finds nothing (selectors come from role and name).
 *
 * The raw result of CDP's `Accessibility.getFullAXTree` (`{ nodes: [{ nodeId, role: { value },
 * childIds, properties: [{ name, value }] }] }`, no `schema_version`) is read the same way.
 *
 * @module
 */
import { z } from "zod";
import { makeNode, type Screen, type UiNode } from "./ui_node.ts";
import { zodToFormatError } from "../input/mod.ts";

const Id = z.union([z.string(), z.number()], { error: "expected a node id (string or number)" })
  .transform(String);
/** A role or name as CDP gives it (`{ type, value }`) or flattened to a string. */
const AxValue = z.union([
  z.string(),
  z.number().transform(String),
  z.boolean().transform(String),
  z.object({ value: z.unknown().optional() }).loose().transform((o) =>
    o.value === undefined || o.value === null ? undefined : String(o.value)
  ),
  z.null().transform(() => undefined),
]).optional();

/** One node of an `axtree_v1` snapshot. */
export const AxNode = z.object({
  node_id: Id,
  role: AxValue,
  name: AxValue,
  value: AxValue,
  description: AxValue,
  properties: z.record(z.string(), z.unknown()).nullable().optional(),
  children: z.array(Id).nullable().optional(),
  ignored: z.boolean().optional(),
}).loose();
export type AxNode = z.infer<typeof AxNode>;

/** An `axtree_v1` snapshot. */
export const AxTreeV1 = z.object({
  schema_version: z.literal("axtree_v1"),
  page_url: z.string().nullable().optional(),
  generated_at: z.string().nullable().optional(),
  nodes: z.array(AxNode),
}).loose();
export type AxTreeV1 = z.infer<typeof AxTreeV1>;

/**
 * Whether a value is CDP's raw `Accessibility.getFullAXTree` result: no `schema_version`, a
 * `nodes` list whose nodes carry `nodeId`.
 *
 * @param value parsed JSON
 * @returns true for a raw CDP AX tree
 */
export function isCdpAxTree(value: unknown): value is { nodes: Record<string, unknown>[] } {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const o = value as Record<string, unknown>;
  return o.schema_version === undefined && Array.isArray(o.nodes) && o.nodes.length > 0 &&
    o.nodes.every((n) => n !== null && typeof n === "object" && "nodeId" in n);
}

/** Renames CDP's node fields to axtree_v1's (properties as a name → value map). */
function fromCdp(tree: { nodes: Record<string, unknown>[] }): unknown {
  return {
    schema_version: "axtree_v1",
    nodes: tree.nodes.map((n) => {
      const props: Record<string, unknown> = {};
      if (Array.isArray(n.properties)) {
        for (const p of n.properties as { name?: unknown; value?: { value?: unknown } }[]) {
          if (typeof p?.name === "string") props[p.name] = p.value?.value ?? p.value;
        }
      }
      return {
        node_id: n.nodeId,
        role: n.role,
        name: n.name,
        value: n.value,
        description: n.description,
        ignored: n.ignored,
        properties: props,
        children: n.childIds ?? [],
      };
    }),
  };
}

/** Roles whose name is their visible text. */
const TEXT_ROLES = new Set(["StaticText", "text", "InlineTextBox", "LabelText", "heading"]);
/** Roles a user acts on. */
const INTERACTIVE_ROLES = new Set([
  "button",
  "link",
  "checkbox",
  "radio",
  "menuitem",
  "menuitemcheckbox",
  "menuitemradio",
  "tab",
  "option",
  "combobox",
  "textbox",
  "searchbox",
  "switch",
  "slider",
  "spinbutton",
  "listbox",
  "treeitem",
]);

function flag(props: Record<string, unknown>, key: string): boolean {
  const v = props[key];
  if (v && typeof v === "object" && "value" in v) return flag({ x: v.value }, "x");
  return v === true || v === "true" || v === "mixed";
}

function nodeOf(ax: AxNode, children: UiNode[]): UiNode {
  const props = ax.properties ?? {};
  const role = ax.role ?? "generic";
  const attrs: Record<string, string> = { axNodeId: ax.node_id };
  for (const [k, v] of Object.entries(props)) {
    if (typeof v === "string" || typeof v === "number") attrs[k] = String(v);
  }
  if (ax.description) attrs.description = ax.description;
  const placeholder = typeof props.placeholder === "string" ? props.placeholder : undefined;
  return makeNode({
    className: role,
    role,
    ...(ax.name !== undefined ? { name: ax.name } : {}),
    ...(ax.name !== undefined && TEXT_ROLES.has(role) ? { text: ax.name } : {}),
    ...(ax.value !== undefined ? { value: ax.value } : {}),
    ...(placeholder !== undefined ? { hint: placeholder } : {}),
    clickable: INTERACTIVE_ROLES.has(role) || flag(props, "clickable"),
    enabled: !flag(props, "disabled"),
    focused: flag(props, "focused"),
    checked: flag(props, "checked") || flag(props, "pressed"),
    checkable: "checked" in props || role === "checkbox" || role === "radio" || role === "switch",
    selected: flag(props, "selected"),
    scrollable: flag(props, "scrollable"),
    password: flag(props, "protected") || props.inputType === "password",
    visible: !(ax.ignored ?? false) && !flag(props, "hidden"),
    attrs,
    children,
  });
}

/**
 * Builds the node tree of an `axtree_v1` snapshot. The root is the node no other node lists as
 * a child (the first node when every node is listed); when several such nodes exist they hang
 * under a synthetic `RootWebArea`.
 * A child id that names no node is skipped; a node reached twice (a cycle or a shared child)
 * is kept at its first place only.
 *
 * @param value the snapshot (parsed JSON)
 * @returns the screen: web platform, format `axtree_v1`, zero width and height
 * @throws {FormatError} naming the field when the snapshot does not fit `axtree_v1`
 * @example
 * ```ts
 * const s = parseAxTree({ schema_version: "axtree_v1", nodes: [
 *   { node_id: "1", role: "RootWebArea", name: "Shop", children: ["2"] },
 *   { node_id: "2", role: "button", name: "Search", properties: { disabled: false } },
 * ] });
 * if (s.root.children[0]!.name !== "Search" || !s.root.children[0]!.clickable) throw new Error();
 * ```
 */
export function parseAxTree(value: unknown): Screen {
  const parsed = AxTreeV1.safeParse(isCdpAxTree(value) ? fromCdp(value) : value);
  if (!parsed.success) throw zodToFormatError(parsed.error);
  const tree = parsed.data;
  const byId = new Map<string, AxNode>();
  for (const n of tree.nodes) if (!byId.has(n.node_id)) byId.set(n.node_id, n);
  const referenced = new Set<string>();
  for (const n of tree.nodes) for (const c of n.children ?? []) referenced.add(c);
  let roots = tree.nodes.filter((n) => !referenced.has(n.node_id));
  if (roots.length === 0 && tree.nodes.length > 0) roots = [tree.nodes[0]!]; // a cycle through every node
  const placed = new Set<string>();
  // Iterative post-order build: deep trees do not exhaust the stack.
  const build = (rootId: string): UiNode | undefined => {
    if (placed.has(rootId) || !byId.has(rootId)) return undefined;
    placed.add(rootId);
    const stack: { ax: AxNode; next: number; kids: UiNode[] }[] = [
      { ax: byId.get(rootId)!, next: 0, kids: [] },
    ];
    let result: UiNode | undefined;
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const ids = top.ax.children ?? [];
      if (top.next < ids.length) {
        const id = ids[top.next++]!;
        const child = byId.get(id);
        if (child && !placed.has(id)) {
          placed.add(id);
          stack.push({ ax: child, next: 0, kids: [] });
        }
        continue;
      }
      stack.pop();
      const node = nodeOf(top.ax, top.kids);
      if (stack.length > 0) stack[stack.length - 1]!.kids.push(node);
      else result = node;
    }
    return result;
  };
  const built = roots.map((r) => build(r.node_id)).filter((n): n is UiNode => n !== undefined);
  let root: UiNode;
  if (built.length === 1) root = built[0]!;
  else root = makeNode({ className: "RootWebArea", role: "RootWebArea", children: built });
  return {
    platform: "web",
    format: "axtree_v1",
    root,
    width: 0,
    height: 0,
    ...(tree.page_url ? { url: tree.page_url } : {}),
  };
}
