import { assert, assertEquals, assertThrows } from "../../_fixtures/assert.ts";
import { actionOf, resolveTarget, textOf } from "../../../runners/blaze/actions.ts";
import { makeNode, type Screen } from "../../../engine/screens/ui_node.ts";
import { renderSnapshot } from "../../../engine/screens/snapshot.ts";

const button = makeNode({
  className: "button",
  role: "button",
  name: "Buy",
  clickable: true,
  bounds: { x: 10, y: 10, w: 80, h: 30 },
  children: [
    makeNode({ className: "StaticText", text: "Buy now", bounds: { x: 12, y: 12, w: 60, h: 20 } }),
  ],
});
const below = makeNode({
  className: "button",
  role: "button",
  name: "Later",
  clickable: true,
  bounds: { x: 10, y: 900, w: 80, h: 30 },
});
const screen: Screen = {
  platform: "web",
  format: "chrome",
  width: 400,
  height: 600,
  root: makeNode({
    className: "RootWebArea",
    bounds: { x: 0, y: 0, w: 400, h: 600 },
    children: [button, below],
  }),
};
const refOf = (label: string) => {
  const line = renderSnapshot(screen, { offscreen: true }).split("\n").find((l) =>
    l.includes(label)
  );
  return line!.match(/ref=([a-z0-9]+)/)![1]!;
};

Deno.test("actionOf() maps each tool to its action kind and recorded fields", () => {
  const cases: [string, Record<string, unknown>, string, Record<string, unknown>][] = [
    ["tap", { ref: "a1" }, "tap", {}],
    ["type", { text: "hi" }, "inputText", { text: "hi" }],
    ["press", { key: "Enter" }, "keyPress", { key: "Enter" }],
    ["scroll", { direction: "down" }, "scroll", { direction: "down" }],
    ["navigate", { url: "http://x/" }, "navigate", { url: "http://x/" }],
    ["assert", { ref: "a1", text: "$5" }, "assertText", { expected: "$5" }],
    ["assert", { ref: "a1", visible: true }, "assertVisible", {}],
    ["read", { ref: "a1", storeAs: "total" }, "readText", { storeAs: "total" }],
    ["memory", { op: "set", name: "e", value: "v" }, "memorySet", { storeAs: "e", value: "v" }],
    ["memory", { op: "get", name: "e" }, "memoryGet", { storeAs: "e" }],
  ];
  for (const [tool, params, kind, performed] of cases) {
    const r = actionOf(tool as never, params);
    assertEquals([r.kind, r.performed], [kind, performed], tool);
  }
  assertThrows(() => actionOf("snapshot", {}), TypeError, "records no action");
});

Deno.test("resolveTarget() resolves refs and points against the screen before the action", () => {
  const buy = resolveTarget(screen, "tap", { ref: refOf('"Buy"') });
  assertEquals(buy.node, button);
  assertEquals(buy.point, { x: 50, y: 25 });
  assert(buy.onScreen && buy.problem === undefined);
  const later = resolveTarget(screen, "tap", { ref: refOf('"Later"') });
  assert(later.problem?.includes("off screen"), later.problem);
  assertEquals(resolveTarget(screen, "read", { ref: refOf('"Later"') }).problem, undefined);
  assert(
    resolveTarget(screen, "tap", { ref: "q999" }).problem?.includes("not on the current screen"),
  );
  assertEquals(resolveTarget(screen, "tap", { x: 20, y: 20 }).node?.text, "Buy now");
  assert(resolveTarget(screen, "tap", { x: 500, y: 20 }).problem?.includes("outside the screen"));
});

Deno.test("textOf() reads a value, own text, or the text of the descendants", () => {
  assertEquals(textOf(button), "Buy now");
  assertEquals(textOf(makeNode({ className: "textbox", value: "abc", name: "Email" })), "abc");
  assertEquals(textOf(below), "Later");
});
