import { parseHierarchy } from "../../engine/screens/hierarchy.ts";
import { nodeLabel, refHash } from "../../engine/screens/refs.ts";
import { ScreenTable } from "../../engine/screens/screen_table.ts";
import { center, type UiNode, walk } from "../../engine/screens/ui_node.ts";
import { Prng } from "../../wasm/prng.ts";
import { assert, assertEquals } from "../_fixtures/assert.ts";
import { assertEnginesAgree } from "../_fixtures/wasm_random_tree.ts";

const CORPUS = new URL("../../../shared/corpus/", import.meta.url);

function corpusFiles(): string[] {
  return ["android/", "ios/"].flatMap((dir) =>
    [...Deno.readDirSync(new URL(dir, CORPUS))]
      .map((e) => dir + e.name)
      .filter((n) => /\.(xml|json)$/.test(n))
  ).sort();
}

// The ref hash written out from its definition, independent of both implementations.
function specHash(n: UiNode): number {
  const r10 = (v: number) => Math.round(v / 10) * 10;
  const cx = Math.round(n.bounds.x + n.bounds.w / 2), cy = Math.round(n.bounds.y + n.bounds.h / 2);
  // A text field's text is the value typed: its label is description, else name, else hint.
  const field =
    /^(android\.widget\.(AutoComplete|MultiAutoComplete)TextView|XCUIElementType(Secure)?TextField|XCUIElementType(SearchField|TextView)|textbox|searchbox|combobox)$|EditText$/
      .test(n.className);
  const label = field
    ? n.contentDescription ?? n.name ?? n.hint ?? ""
    : n.text ?? n.contentDescription ?? n.name ?? "";
  const s = `${n.className}\u0000${label}\u0000${String(r10(cx))},${String(r10(cy))}`;
  let h = 0x811c9dc5;
  for (const b of new TextEncoder().encode(s)) h = Math.imul(h ^ b, 0x01000193) >>> 0;
  return h;
}

Deno.test("WASM hot path equals the TS reference on every Android and iOS corpus hierarchy", () => {
  const files = corpusFiles();
  assert(files.length >= 34, `only ${files.length} corpus files`);
  for (const [k, f] of files.entries()) {
    const screen = parseHierarchy(Deno.readTextFileSync(new URL(f, CORPUS)));
    // Points spread over the whole screen, on top of the random ones near node edges.
    const rng = new Prng(k + 1);
    assertEnginesAgree(rng, screen.root, f);
    const w = ScreenTable.from(screen, { engine: "wasm" });
    const r = ScreenTable.from(screen, { engine: "reference" });
    const grid = [];
    for (let y = 0; y < screen.height; y += 37) {
      for (let x = 0; x < screen.width; x += 23) grid.push({ x, y });
    }
    assertEquals(Array.from(w.hitTestBatch(grid)), Array.from(r.hitTestBatch(grid)), f);
    assert(w.hitTestBatch(grid).some((i) => i > 0), `${f}: no point hits below the root`);
    for (const require of [{}, { clickable: true }, { interactive: true }] as const) {
      assertEquals(
        grid.map((p) => w.hitTestTop(p, require)),
        grid.map((p) => r.hitTestTop(p, require)),
        `${f}: hitTestTop ${JSON.stringify(require)}`,
      );
    }
  }
});

Deno.test("ScreenTable.refHashes() follows the ref hash definition on every corpus node", () => {
  for (const f of corpusFiles()) {
    const screen = parseHierarchy(Deno.readTextFileSync(new URL(f, CORPUS)));
    const want = [...walk(screen.root)].map(([n]) => specHash(n));
    assertEquals(Array.from(ScreenTable.from(screen, { engine: "wasm" }).refHashes()), want, f);
  }
});

Deno.test("ScreenTable.refHashes() equals engine/screens/refs.ts refHash() on every corpus node", () => {
  let nodes = 0;
  for (const f of corpusFiles()) {
    const screen = parseHierarchy(Deno.readTextFileSync(new URL(f, CORPUS)));
    const want = [...walk(screen.root)].map(([n]) => {
      const c = center(n.bounds);
      return refHash(n.className, nodeLabel(n), c.x, c.y) >>> 0;
    });
    nodes += want.length;
    for (const engine of ["wasm", "reference"] as const) {
      assertEquals(
        Array.from(ScreenTable.from(screen, { engine }).refHashes()),
        want,
        `${f} ${engine}`,
      );
    }
  }
  assert(nodes > 1000, `only ${nodes} corpus nodes`);
});
