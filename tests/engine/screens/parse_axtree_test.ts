import { assertEquals, assertThrows } from "../../_fixtures/assert.ts";
import { walk } from "../../../engine/screens/ui_node.ts";
import { parseHierarchy } from "../../../engine/screens/hierarchy.ts";
import { parseAxTree } from "../../../engine/screens/parse_axtree.ts";
import { FormatError } from "../../../engine/input/format_error.ts";

const SNAPSHOT = {
  schema_version: "axtree_v1",
  page_url: "https://shop.test/",
  nodes: [
    { node_id: "1", role: "RootWebArea", name: "Shop", children: ["2", "3", "9"] },
    {
      node_id: "2",
      role: "textbox",
      name: "Search",
      value: "shoes",
      properties: { focused: true, placeholder: "Find" },
    },
    { node_id: "3", role: "button", name: "Go", properties: { disabled: true }, children: ["4"] },
    { node_id: "4", role: "StaticText", name: "Go", children: [] },
    {
      node_id: 5,
      role: { type: "role", value: "checkbox" },
      name: { value: "Gift" },
      properties: { checked: "mixed" },
    },
  ],
};

Deno.test("parseAxTree() builds the tree from children ids with zero bounds", () => {
  const s = parseAxTree(SNAPSHOT);
  assertEquals(s.url, "https://shop.test/");
  // Two roots (1 and the unreferenced 5): a synthetic RootWebArea holds both; "9" names no node.
  assertEquals(s.root.className, "RootWebArea");
  const nodes = [...walk(s.root)].map(([n, depth]) => [n.role, n.name ?? null, depth]);
  assertEquals(nodes, [
    ["RootWebArea", null, 0],
    ["RootWebArea", "Shop", 1],
    ["textbox", "Search", 2],
    ["button", "Go", 2],
    ["StaticText", "Go", 3],
    ["checkbox", "Gift", 1],
  ]);
  const [, shop] = [...walk(s.root)].map(([n]) => n);
  const search = shop!.children[0]!;
  assertEquals([search.value, search.hint, search.focused, search.clickable], [
    "shoes",
    "Find",
    true,
    true,
  ]);
  assertEquals(search.bounds, { x: 0, y: 0, w: 0, h: 0 });
  assertEquals(search.attrs?.axNodeId, "2");
  assertEquals(shop!.children[1]!.enabled, false);
  assertEquals(shop!.children[1]!.children[0]!.text, "Go");
  const gift = s.root.children[1]!;
  assertEquals([gift.checked, gift.checkable, gift.attrs?.axNodeId], [true, true, "5"]);
});

Deno.test("parseAxTree() keeps a node reached twice only at its first place", () => {
  const s = parseAxTree({
    schema_version: "axtree_v1",
    nodes: [
      { node_id: "a", role: "RootWebArea", children: ["b", "c"] },
      { node_id: "b", role: "group", children: ["c"] },
      { node_id: "c", role: "link", name: "x", children: ["a"] },
    ],
  });
  // Every node is some node's child: the first is the root; "c" stays under "b", its first place.
  assertEquals([...walk(s.root)].map(([n, d]) => `${n.role}@${d}`), [
    "RootWebArea@0",
    "group@1",
    "link@2",
  ]);
  const t = parseAxTree({
    schema_version: "axtree_v1",
    nodes: [
      { node_id: "r", role: "RootWebArea", children: ["b", "c"] },
      { node_id: "b", role: "group", children: ["c"] },
      { node_id: "c", role: "link", name: "x", children: ["b"] },
    ],
  });
  assertEquals([...walk(t.root)].map(([n, d]) => `${n.role}@${d}`), [
    "RootWebArea@0",
    "group@1",
    "link@2",
  ]);
});

Deno.test("parseAxTree() names the field of a bad node", () => {
  assertThrows(
    () => parseAxTree({ schema_version: "axtree_v1", nodes: [{ role: "button" }] }),
    FormatError,
    "nodes.0.node_id: expected a node id",
  );
});

Deno.test("parseHierarchy() dispatches axtree_v1 text to parseAxTree", () => {
  const s = parseHierarchy(JSON.stringify(SNAPSHOT), { format: "axtree_v1" });
  assertEquals(s.format, "axtree_v1");
  assertEquals(s.root.children[0]!.name, "Shop");
});

Deno.test("parseAxTree() reads CDP's raw getFullAXTree result", () => {
  const s = parseAxTree({
    nodes: [
      {
        nodeId: "1",
        ignored: false,
        role: { type: "role", value: "RootWebArea" },
        name: { type: "computedString", value: "Shop" },
        childIds: ["2"],
      },
      {
        nodeId: "2",
        ignored: false,
        role: { type: "role", value: "checkbox" },
        name: { type: "computedString", value: "Gift wrap" },
        properties: [
          { name: "checked", value: { type: "tristate", value: "true" } },
          { name: "disabled", value: { type: "boolean", value: true } },
        ],
        childIds: [],
      },
    ],
  });
  const box = s.root.children[0]!;
  assertEquals([s.root.name, box.role, box.name, box.checked, box.enabled], [
    "Shop",
    "checkbox",
    "Gift wrap",
    true,
    false,
  ]);
});
