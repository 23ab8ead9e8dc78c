/**
 * Ref stability (seed 002): a toast, a spinner, an unrelated element appearing, or another
 * element moving, changes no other ref on the screen; collision suffixes are deterministic; and
 * every ref the renderer shows resolves, on every corpus screen.
 */
import { parseHierarchy } from "../../../engine/screens/hierarchy.ts";
import { baseRef } from "../../../engine/screens/refs.ts";
import { resolveRef, resolveRefAction } from "../../../engine/screens/resolve_ref.ts";
import { renderSnapshot } from "../../../engine/screens/snapshot.ts";
import { snapshotTree } from "../../../engine/screens/snapshot_tree.ts";
import { makeNode, type Screen, type UiNode, walk } from "../../../engine/screens/ui_node.ts";
import { assert, assertEquals, assertThrows } from "../../_fixtures/assert.ts";

const CORPUS = new URL("../../../../shared/corpus/", import.meta.url);

function corpusScreens(): [string, string][] {
  const out: [string, string][] = [];
  for (const dir of ["android", "ios"]) {
    for (const e of Deno.readDirSync(new URL(`${dir}/`, CORPUS))) {
      if (/\.(xml|json)$/.test(e.name)) {
        out.push([`${dir}/${e.name}`, Deno.readTextFileSync(new URL(`${dir}/${e.name}`, CORPUS))]);
      }
    }
  }
  return out.sort();
}

/** Refs of a screen keyed by the node's `attrs.key` (set on every node before the change). */
function refsByKey(screen: Screen): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of snapshotTree(screen).entries) out.set(e.node.attrs!.key!, e.ref);
  return out;
}

function keyed(text: string): Screen {
  const screen = parseHierarchy(text);
  let i = 0;
  for (const [n] of walk(screen.root)) n.attrs = { ...n.attrs, key: String(i++) };
  return screen;
}

/** Asserts every node shown before and after keeps its ref, unless it collides with `added`. */
function assertStable(before: Screen, after: Screen, added: UiNode[], what: string): number {
  const changed = new Set(added.map((n) => n.attrs?.key));
  const a = refsByKey(before);
  const b = refsByKey(after);
  const addedBases = new Set(added.map(baseRef));
  let compared = 0;
  for (const [key, ref] of a) {
    const now = b.get(key);
    if (now === undefined || changed.has(key)) continue;
    if (addedBases.has(ref.replace(/^([a-z]\d+)[a-z]*$/, "$1"))) continue; // a true collision
    assertEquals(now, ref, `${what}: node ${key} changed ref`);
    compared++;
  }
  return compared;
}

function firstContainer(root: UiNode, pick: number): UiNode {
  const containers = [...walk(root)].map(([n]) => n).filter((n) => n.children.length > 0);
  return containers[pick % containers.length]!;
}

Deno.test("refs survive a toast, a spinner and an unrelated element appearing on every corpus screen", () => {
  let compared = 0;
  for (const [name, text] of corpusScreens()) {
    const before = keyed(text);
    const android = before.platform === "android";
    const inserts: [string, UiNode][] = [
      [
        "toast",
        makeNode({
          className: android ? "android.widget.Toast" : "XCUIElementTypeStaticText",
          text: "Message sent",
          bounds: { x: before.width * 0.2, y: before.height * 0.85, w: before.width * 0.6, h: 60 },
          attrs: { key: "new" },
        }),
      ],
      [
        "spinner",
        makeNode({
          className: android ? "android.widget.ProgressBar" : "XCUIElementTypeActivityIndicator",
          contentDescription: "Loading",
          bounds: { x: before.width / 2 - 30, y: before.height / 2 - 30, w: 60, h: 60 },
          attrs: { key: "new" },
        }),
      ],
      [
        "button",
        makeNode({
          className: android ? "android.widget.Button" : "XCUIElementTypeButton",
          text: "Unrelated",
          clickable: true,
          bounds: { x: 10, y: 300, w: 200, h: 80 },
          attrs: { key: "new" },
        }),
      ],
    ];
    for (const [what, node] of inserts) {
      for (const pick of [0, 3, 7]) {
        const after = keyed(text);
        const parent = firstContainer(after.root, pick);
        parent.children.splice(Math.min(1, parent.children.length), 0, node);
        compared += assertStable(before, after, [node], `${name} + ${what} at ${pick}`);
      }
    }
  }
  assert(compared > 5_000, `compared ${compared} refs`);
  // and the inserted element itself is shown with a ref of its own
  const login = keyed(corpusScreens().find(([n]) => n.endsWith("theapp_login.xml"))![1]);
  const toast = makeNode({
    className: "android.widget.Toast",
    text: "Message sent",
    bounds: { x: 200, y: 2000, w: 1000, h: 100 },
  });
  login.root.children[0]!.children.push(toast);
  assert(snapshotTree(login).entries.some((e) => e.node === toast && e.ref === baseRef(toast)));
});

Deno.test("refs of other elements survive one element moving; a 3 px move keeps its own ref", () => {
  for (const [name, text] of corpusScreens()) {
    const before = keyed(text);
    const entries = snapshotTree(before).entries;
    if (entries.length < 3) continue;
    const victim = entries[Math.floor(entries.length / 2)]!;
    const key = victim.node.attrs!.key!;
    const moveBy = (dy: number): Screen => {
      const after = keyed(text);
      for (const [n] of walk(after.root)) {
        if (n.attrs?.key === key) n.bounds = { ...n.bounds, y: n.bounds.y + dy };
      }
      return after;
    };
    const far = moveBy(200);
    const moved = [...walk(far.root)].map(([n]) => n).filter((n) => n.attrs?.key === key);
    assertStable(before, far, [...moved, victim.node], `${name}: move ${key} by 200`);
    const near = refsByKey(moveBy(3));
    const c = victim.node.bounds.y + victim.node.bounds.h / 2;
    if (Math.round(Math.round(c) / 10) === Math.round(Math.round(c + 3) / 10)) {
      assertEquals(near.get(key), victim.ref, `${name}: 3 px move`);
    }
  }
});

Deno.test("collision suffixes follow document order and do not depend on the parse", () => {
  const xml = `<hierarchy rotation="0">
  <node class="android.widget.FrameLayout" bounds="[0,0][1080,2400]">
    <node class="android.widget.Button" text="Add" clickable="true" bounds="[100,100][300,200]"/>
    <node class="android.widget.Button" text="Add" clickable="true" bounds="[102,101][302,201]"/>
    <node class="android.widget.Button" text="Add" clickable="true" bounds="[99,99][299,199]"/>
  </node>
</hierarchy>`;
  const first = snapshotTree(parseHierarchy(xml)).entries.map((e) => e.ref);
  const base = first[0]!;
  assertEquals(first, [base, base + "b", base + "c"]);
  assertEquals(snapshotTree(parseHierarchy(xml)).entries.map((e) => e.ref), first);
  const screen = parseHierarchy(xml);
  assertEquals(resolveRef(screen, base + "c").node.bounds.x, 99);
});

Deno.test("every ref renderSnapshot shows resolves to its node on every corpus screen", () => {
  for (const [name, text] of corpusScreens()) {
    const screen = parseHierarchy(text);
    const rendered = renderSnapshot(screen, { offscreen: true });
    const refs = [...rendered.matchAll(/\[ref=([a-z]\d+[a-z]*)\]/g)].map((m) => m[1]!);
    const tree = snapshotTree(screen);
    assertEquals(refs.length, tree.entries.length, name);
    assertEquals(new Set(refs).size, refs.length, `${name}: refs are unique`);
    for (const [i, ref] of refs.entries()) {
      const r = resolveRef(screen, ref);
      assert(r.node === tree.entries[i]!.node, `${name}: ${ref}`);
    }
  }
});

Deno.test("resolveRefAction() resolves tap, type, assert visible and scroll to nodes and points", () => {
  const screen = parseHierarchy(
    Deno.readTextFileSync(new URL("android/appium-source_theapp_login.xml", CORPUS)),
  );
  const tree = snapshotTree(screen);
  const ref = (pred: (n: UiNode) => boolean) => tree.entries.find((e) => pred(e.node))!.ref;
  const username = ref((n) => n.text === "Username");
  const tap = resolveRefAction(screen, { kind: "tap", ref: username });
  assertEquals(tap.kind, "tap");
  const b = tap.node.bounds;
  assertEquals(tap.point, { x: Math.round(b.x + b.w / 2), y: Math.round(b.y + b.h / 2) });
  const typed = resolveRefAction(screen, { kind: "type", ref: username, text: "alice" });
  assert(
    typed.kind === "type" && typed.text === "alice" && typed.node.className.endsWith("EditText"),
  );
  const visible = resolveRefAction(screen, { kind: "assertVisible", ref: username });
  assert(visible.kind === "assertVisible" && visible.visible);
  assertThrows(
    () =>
      resolveRefAction(screen, { kind: "type", ref: ref((n) => n.text === "Login"), text: "x" }),
    RangeError,
    "not a text field",
  );
  assertThrows(() => resolveRef(screen, "q999zz"), RangeError, "Cannot resolve ref q999zz");
  assertThrows(() => resolveRef(screen, "button"), SyntaxError, "Invalid ref");

  const feed = parseHierarchy(
    Deno.readTextFileSync(new URL("android/uiautomator_wikipedia_explore_feed.xml", CORPUS)),
  );
  const feedTree = snapshotTree(feed);
  const card = feedTree.entries.find((e) => e.node.text === "Featured article")!;
  const scroll = resolveRefAction(feed, { kind: "scroll", ref: card.ref, direction: "down" });
  assert(scroll.kind === "scroll" && scroll.node.scrollable && scroll.direction === "down");
  const c = scroll.node.bounds;
  assert(scroll.point.x > c.x && scroll.point.x < c.x + c.w && scroll.point.y > c.y);
});

Deno.test("resolveRefAction() refuses to tap an off-screen element and reports it not visible", () => {
  const screen = parseHierarchy(
    Deno.readTextFileSync(new URL("ios/xcuitest-source_safari_iphone.xml", CORPUS)),
  );
  const hidden = snapshotTree(screen).entries.find((e) => e.offscreen)!;
  assertThrows(() => resolveRefAction(screen, { kind: "tap", ref: hidden.ref }), RangeError);
  const r = resolveRefAction(screen, { kind: "assertVisible", ref: hidden.ref });
  assert(r.kind === "assertVisible" && r.visible === false);
});
