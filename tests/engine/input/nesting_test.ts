import { assert, assertEquals, assertThrows } from "../../_fixtures/assert.ts";
import { parseHierarchy } from "../../../engine/screens/hierarchy.ts";
import { jsonNestingError, MAX_NESTING, treeTooDeep } from "../../../engine/input/nesting.ts";
import type { HierarchyFormat } from "../../../engine/screens/ui_node.ts";
import { walk } from "../../../engine/screens/ui_node.ts";

const CORPUS = new URL("../../../../shared/corpus/", import.meta.url);

Deno.test("MAX_NESTING is far above the deepest hierarchy of the corpus", () => {
  let deepest = 0;
  for (const dir of ["android", "ios"]) {
    for (const e of Deno.readDirSync(new URL(`${dir}/`, CORPUS))) {
      const text = Deno.readTextFileSync(new URL(`${dir}/${e.name}`, CORPUS));
      for (const [, depth] of walk(parseHierarchy(text).root)) deepest = Math.max(deepest, depth);
    }
  }
  assert(deepest >= 20, `the corpus's deepest tree is ${deepest} levels`);
  assert(deepest * 10 < MAX_NESTING, `${deepest} levels is within a tenth of the limit`);
});

/** `levels` arrays, each holding the next. */
function nestedArrays(levels: number): unknown {
  let v: unknown = [];
  for (let i = 1; i < levels; i++) v = [v];
  return v;
}

Deno.test("jsonNestingError() passes JSON at the limit and names the path below it", () => {
  assertEquals(jsonNestingError(nestedArrays(MAX_NESTING)), undefined);
  assertEquals(jsonNestingError({ a: 1, b: [{ c: "x" }] }), undefined);
  assertEquals(
    jsonNestingError(nestedArrays(MAX_NESTING + 1)),
    "0.0.0.0.0…: nested deeper than 1000 levels",
  );
  assertEquals(
    jsonNestingError({ ok: [1], actions: [{ toolParams: { a: nestedArrays(10_000) } }] }),
    "actions.0.toolParams.a.0…: nested deeper than 1000 levels",
  );
});

/** A hierarchy text of each format whose node tree is `levels` deep (the root is level 1). */
const CHAINS: Record<string, [HierarchyFormat, (levels: number) => string]> = {
  "uiautomator XML": [
    "uiautomator-dump",
    (n) =>
      "<hierarchy>" + '<node bounds="[0,0][10,10]">'.repeat(n - 1) + "</node>".repeat(n - 1) +
      "</hierarchy>",
  ],
  "XCUITest XML": [
    "xcuitest",
    (n) =>
      "<AppiumAUT>" + '<XCUIElementTypeOther x="0" y="0" width="9" height="9">'.repeat(n - 1) +
      "</XCUIElementTypeOther>".repeat(n - 1) + "</AppiumAUT>",
  ],
  "Maestro JSON": ["maestro", (n) => '{"attributes":{},"children":['.repeat(n) + "]}".repeat(n)],
  "Chrome JSON (children by index)": ["chrome", (n) =>
    JSON.stringify({
      schema_version: "cairn.chrome/v1",
      url: "http://a.test/",
      viewport: { width: 10, height: 10 },
      devicePixelRatio: 1,
      scroll: { x: 0, y: 0 },
      nodes: Array.from({ length: n }, (_, i) => ({
        role: "generic",
        ...(i + 1 < n ? { children: [i + 1] } : {}),
      })),
    })],
  "axtree_v1 (children by id)": ["axtree_v1", (n) =>
    JSON.stringify({
      schema_version: "axtree_v1",
      nodes: Array.from({ length: n }, (_, i) => ({
        node_id: String(i),
        role: "generic",
        children: i + 1 < n ? [String(i + 1)] : [],
      })),
    })],
};

for (const [name, [format, chain]] of Object.entries(CHAINS)) {
  Deno.test(`parseHierarchy() refuses ${name} nested 20,000 deep with a SyntaxError, not a stack overflow`, () => {
    const err = assertThrows(() => parseHierarchy(chain(20_000), { format }), SyntaxError);
    assert(/nested deeper than 1000 levels/.test(err.message), err.message);
  });

  // Maestro nests two JSON levels (a node and its children array) per node level.
  const levels = format === "maestro" ? MAX_NESTING / 2 : MAX_NESTING;
  Deno.test(`parseHierarchy() reads ${name} ${levels} levels deep`, () => {
    const screen = parseHierarchy(chain(levels), { format });
    assert(!treeTooDeep(screen.root));
    // (XCUITest's screen drops the <AppiumAUT> wrapper: one level less)
    const deepest = Math.max(...[...walk(screen.root)].map(([, depth]) => depth)) + 1;
    assert(deepest === levels || (format === "xcuitest" && deepest === levels - 1), `${deepest}`);
  });
}
