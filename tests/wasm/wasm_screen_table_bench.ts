// ScreenTable on real screens: the cost of flattening a screen into the hot-path table (once per
// screen) and of single queries through the engine-facing API, WASM against the reference:
// deno bench -A tests/wasm/wasm_screen_table_bench.ts
import { parseHierarchy } from "../../engine/screens/hierarchy.ts";
import { ScreenTable } from "../../engine/screens/screen_table.ts";
import { type UiNode, walk } from "../../engine/screens/ui_node.ts";
import { Prng } from "../../wasm/prng.ts";
import { randomTree } from "../_fixtures/wasm_random_tree.ts";

const CORPUS = new URL("../../../shared/corpus/", import.meta.url);

function largestCorpusScreen(): { name: string; root: UiNode; size: number } {
  let best = { name: "", root: undefined as UiNode | undefined, size: 0 };
  for (const dir of ["android/", "ios/"]) {
    for (const e of Deno.readDirSync(new URL(dir, CORPUS))) {
      if (!/\.(xml|json)$/.test(e.name)) continue;
      const root = parseHierarchy(Deno.readTextFileSync(new URL(dir + e.name, CORPUS))).root;
      const size = [...walk(root)].length;
      if (size > best.size) best = { name: dir + e.name, root, size };
    }
  }
  return { name: best.name, root: best.root!, size: best.size };
}

const corpus = largestCorpusScreen();
const synthetic = randomTree(new Prng(7), 10_000);
let sink = 0;

Deno.bench({
  name: `ScreenTable.from: largest corpus screen (${corpus.size} nodes, ${corpus.name})`,
  group: "flatten",
  fn() {
    sink ^= ScreenTable.from(corpus.root).size;
  },
});

Deno.bench({
  name: "ScreenTable.from: random 10,000-node tree",
  group: "flatten",
  fn() {
    sink ^= ScreenTable.from(synthetic).size;
  },
});

Deno.bench({
  name: "ScreenTable.from + first wasm hitTest (copies the table into memory)",
  group: "flatten",
  fn() {
    const t = ScreenTable.from(synthetic, { engine: "wasm" });
    sink ^= t.hitTest({ x: 50, y: 50 });
  },
});

// Single calls as the optimizer and the Android lookup make them, on the largest corpus screen.
const tables = {
  reference: ScreenTable.from(corpus.root, { engine: "reference" }),
  wasm: ScreenTable.from(corpus.root, { engine: "wasm" }),
};
const preds = [...walk(corpus.root)].map(([n]) => ({
  resourceId: n.resourceId ?? "",
  text: n.text,
}));
for (const [name, t] of Object.entries(tables)) {
  Deno.bench({
    name: `${name}: count() of each node's id + text (${preds.length} calls)`,
    group: "single calls, largest corpus screen",
    baseline: name === "reference",
    fn() {
      for (const p of preds) sink ^= t.count(p);
    },
  });
  Deno.bench({
    name: `${name}: hitTest() of 1,000 points`,
    group: "single calls, largest corpus screen",
    fn() {
      for (let i = 0; i < 1000; i++) sink ^= t.hitTest({ x: (i * 7) % 1080, y: (i * 13) % 2400 });
    },
  });
}

globalThis.addEventListener("unload", () => {
  if (sink === 0.5) console.log(sink);
});
