import { assert, assertEquals, assertStringIncludes } from "../../_fixtures/assert.ts";
import { parseAndroid } from "../../../engine/screens/parse_android.ts";
import { matchSelector } from "../../../engine/optimizer/selector_match.ts";
import { ScreenTable } from "../../../engine/screens/screen_table.ts";
import { makeNode, type Screen, type UiNode } from "../../../engine/screens/ui_node.ts";
import { locateElement, placeSelectors } from "../../../engine/validation/place.ts";

const web = (children: UiNode[]): Screen => ({
  platform: "web",
  format: "chrome",
  width: 600,
  height: 600,
  root: makeNode({ className: "RootWebArea", bounds: { x: 0, y: 0, w: 600, h: 600 }, children }),
});

/** A shop row: the product's name, then an "Add" button with a test id and an id. */
function row(product: string, y: number, ids: { testId?: string; id?: string } = {}): UiNode {
  return makeNode({
    className: "listitem",
    role: "listitem",
    bounds: { x: 0, y, w: 300, h: 30 },
    children: [
      makeNode({ className: "StaticText", text: product, bounds: { x: 0, y, w: 80, h: 20 } }),
      makeNode({
        className: "button",
        role: "button",
        name: "Add",
        clickable: true,
        ...ids,
        bounds: { x: 200, y, w: 50, h: 24 },
        children: [
          makeNode({ className: "StaticText", text: "Add", bounds: { x: 205, y, w: 30, h: 20 } }),
        ],
      }),
    ],
  });
}

function list(order: readonly string[], ids: (p: string) => { testId?: string; id?: string }) {
  return makeNode({
    className: "list",
    role: "list",
    bounds: { x: 0, y: 0, w: 300, h: 200 },
    children: order.map((p, k) => row(p, 40 * k + 10, ids(p))),
  });
}

const LEVEL2 = { platform: "web" as const, kind: "tap", level: 2 };

Deno.test("placeSelectors() finds an identical Add button by its row on a reordered, test-id-less page and names it by the row, not the gone test id", () => {
  const cap = web([list(["Fern", "Cactus", "Orchid"], (p) => ({ testId: `add-${p}`, id: p }))]);
  const rep = web([
    makeNode({ className: "StaticText", text: "Sale", bounds: { x: 0, y: 0, w: 80, h: 20 } }),
    list(["Orchid", "Fern", "Cactus"], () => ({ id: `x-${crypto.randomUUID().slice(0, 6)}` })),
  ]);
  const capTable = ScreenTable.from(cap);
  const capNode = capTable.node(
    [...Array(capTable.size).keys()].find((i) => capTable.node(i).testId === "add-Orchid")!,
  );
  const r = placeSelectors({ screen: cap, node: capNode }, rep, LEVEL2);
  assert(r.ok, r.ok ? "" : r.reason);
  const repTable = ScreenTable.from(rep);
  const placed = repTable.node(r.index);
  assertEquals(placed.name, "Add");
  // the one in the Orchid row, now the first row
  assertEquals(repTable.node(repTable.parent(r.index)).children[0]!.text, "Orchid");
  assertStringIncludes(r.evidence[0]!, 'beside "Orchid"');
  for (const sel of r.selectors) {
    assertEquals(sel.testId, undefined);
    assertEquals(sel.id, undefined);
    assertEquals(sel.index, undefined);
    const m = matchSelector(repTable, sel, 2);
    assertEquals(m.count, 1, JSON.stringify(sel));
  }
  assertStringIncludes(JSON.stringify(r.selectors), "Orchid");
});

Deno.test("locateElement() never puts an enabled element in place of a disabled one of the same name, nor another slot", () => {
  const slot = (name: string, x: number, enabled: boolean) =>
    makeNode({
      className: "button",
      role: "button",
      name,
      enabled,
      clickable: true,
      bounds: { x, y: 10, w: 60, h: 20 },
    });
  const cap = web([slot("09:00", 0, false), slot("10:00", 70, true), slot("11:00", 140, false)]);
  const rep = web([slot("09:00", 0, false), slot("10:00", 70, false), slot("11:00", 140, true)]);
  const r = locateElement({ screen: cap, node: cap.root.children[1]! }, rep, LEVEL2);
  assert(!r.ok);
  assertEquals(r.reason, 'the only button "10:00" on the replay\'s screen is disabled');
});

Deno.test("locateElement() refuses to pick between two elements that fit equally well", () => {
  const box = (y: number) =>
    makeNode({
      className: "group",
      role: "group",
      bounds: { x: 0, y, w: 300, h: 40 },
      children: [
        makeNode({ className: "StaticText", text: "Note", bounds: { x: 0, y, w: 40, h: 20 } }),
        makeNode({
          className: "button",
          role: "button",
          name: "Delete",
          clickable: true,
          bounds: { x: 100, y, w: 60, h: 20 },
        }),
      ],
    });
  const cap = web([box(0), box(50)]);
  // three on the replay where the capture had two: their order no longer says which
  const rep = web([box(0), box(50), box(100)]);
  const node = cap.root.children[1]!.children[1]!;
  const r = locateElement({ screen: cap, node }, rep, LEVEL2);
  assert(!r.ok);
  assertStringIncludes(r.reason, '3 button "Delete" elements on the replay\'s screen fit equally');
  // as many as in the capture, in the same order: the second is the second
  const same = locateElement({ screen: cap, node }, web([box(0), box(50)]), LEVEL2);
  assert(same.ok);
  assertStringIncludes(same.how, "the 2. of 2 identical");
});

/** The screen with every resource id regenerated and a banner inserted before the app's tree. */
function mutate(screen: Screen): { screen: Screen; copies: Map<UiNode, UiNode> } {
  const copies = new Map<UiNode, UiNode>();
  const copy = (n: UiNode): UiNode => {
    const out: UiNode = { ...n, children: n.children.map(copy) };
    if (n.resourceId) out.resourceId = `app:id/r${crypto.randomUUID().slice(0, 5)}`;
    copies.set(n, out);
    return out;
  };
  const root = copy(screen.root);
  const banner = makeNode({
    className: "android.widget.TextView",
    text: "Update available",
    bounds: { x: 0, y: 0, w: 10, h: 10 },
  });
  return { screen: { ...screen, root: { ...root, children: [banner, ...root.children] } }, copies };
}

Deno.test("placeSelectors() on corpus Android screens with regenerated ids places controls on themselves or not at all", async () => {
  const files = [
    "uiautomator_wdio_demo_reactnative_login.xml",
    "appium-source_theapp_login.xml",
    "uiautomator_gmail_inbox.xml",
    "uiautomator_settings_display_over_apps_list.xml",
    "uiautomator_google_tasks_list.xml",
  ];
  let tried = 0;
  let placed = 0;
  for (const f of files) {
    const text = await Deno.readTextFile(new URL(`/work/shared/corpus/android/${f}`, "file://"));
    const cap = parseAndroid(text);
    const capTable = ScreenTable.from(cap);
    const { screen: rep, copies } = mutate(cap);
    const repTable = ScreenTable.from(rep);
    const tables = new WeakMap<Screen, ScreenTable>([[cap, capTable], [rep, repTable]]);
    for (let i = 0; i < capTable.size; i++) {
      const node = capTable.node(i);
      if (!node.clickable || !node.resourceId || !node.visible) continue;
      tried++;
      const r = placeSelectors({ screen: cap, node }, rep, {
        platform: "android",
        kind: "tap",
        level: 2,
        tables,
      });
      if (!r.ok) continue;
      placed++;
      // placed on the copy of the very node, or on a same-box ancestor of it
      const self = repTable.indexOf(copies.get(node)!);
      const b = node.bounds;
      const p = repTable.node(r.index).bounds;
      assert(
        r.index === self || (p.x === b.x && p.y === b.y && p.w === b.w && p.h === b.h),
        `${f}: node ${i} placed on another element (${r.evidence.join("; ")})`,
      );
      for (const sel of r.selectors) {
        assertEquals(sel.id, undefined, `${f}: a regenerated id is never kept`);
        const m = matchSelector(repTable, sel, 2);
        assertEquals(m.count, 1, `${f}: ${JSON.stringify(sel)} is unique`);
      }
    }
  }
  assert(tried >= 20, `only ${tried} controls with ids`);
  // most named controls are placed again (unnamed, identical ones stay unplaced by design)
  assert(placed / tried >= 0.5, `placed ${placed} of ${tried}`);
});
