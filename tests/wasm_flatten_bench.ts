// The cost of flattening a screen into the hot-path table (once per screen):
// deno bench -A tests/wasm_flatten_bench.ts
import { parseHierarchy } from "../engine/hierarchy.ts";
import { ScreenTable } from "../engine/screen_table.ts";
import { type UiNode, walk } from "../engine/ui_node.ts";
import { Prng } from "../wasm/prng.ts";
import { randomTree } from "./wasm_random_tree.ts";

const CORPUS = new URL("../../shared/corpus/", import.meta.url);

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

globalThis.addEventListener("unload", () => {
  if (sink === 0.5) console.log(sink);
});
