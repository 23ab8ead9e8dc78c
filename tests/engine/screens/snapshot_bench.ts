// deno bench -A tests/engine/screens/snapshot_bench.ts
// Parse + render of the largest corpus screen, and rendering synthetic 1,000- and 5,000-node
// screens (the walk, refs and text are rebuilt each iteration: a shallow copy of the screen
// defeats the per-screen cache).
import { countNodes, syntheticAndroidScreen } from "../../_fixtures/snapshot_fixtures.ts";
import { parseHierarchy } from "../../../engine/screens/hierarchy.ts";
import { renderSnapshot } from "../../../engine/screens/snapshot.ts";

const LARGEST = new URL(
  "../../../../shared/corpus/android/uiautomator_google_tasks_list.xml",
  import.meta.url,
);
const largest = Deno.readTextFileSync(LARGEST);
const screen1k = syntheticAndroidScreen(1000);
const screen5k = syntheticAndroidScreen(5000);
if (countNodes(screen1k.root) < 1000) throw new Error("synthetic screen too small");

Deno.bench(
  "parse uiautomator_google_tasks_list.xml (79 KB, 164 nodes)",
  { group: "corpus" },
  () => {
    parseHierarchy(largest);
  },
);

Deno.bench("parse + render uiautomator_google_tasks_list.xml", { group: "corpus" }, () => {
  renderSnapshot(parseHierarchy(largest));
});

Deno.bench(`render ${countNodes(screen1k.root)}-node screen`, { group: "render" }, () => {
  renderSnapshot({ ...screen1k });
});

Deno.bench(`render ${countNodes(screen1k.root)}-node screen --offscreen --bounds`, {
  group: "render",
}, () => {
  renderSnapshot({ ...screen1k }, { offscreen: true, bounds: true });
});

Deno.bench(`render ${countNodes(screen5k.root)}-node screen`, { group: "render" }, () => {
  renderSnapshot({ ...screen5k });
});
