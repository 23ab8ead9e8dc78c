/**
 * The render target of issue 8: a 1,000-node snapshot in ≤ 5 ms. The best of 20 runs is
 * checked (other sessions share the 2 cores); `deno bench -A tests/engine/screens/snapshot_bench.ts` gives
 * the averages recorded in BENCHMARKS.md.
 */
import { renderSnapshot } from "../../../engine/screens/snapshot.ts";
import { assertGreaterOrEqual, assertLessOrEqual } from "../../_fixtures/assert.ts";
import { countNodes, syntheticAndroidScreen } from "../../_fixtures/snapshot_fixtures.ts";

Deno.test("renderSnapshot() renders a 1,000-node screen in at most 5 ms", () => {
  const screen = syntheticAndroidScreen(1000);
  assertGreaterOrEqual(countNodes(screen.root), 1000);
  let best = Infinity;
  let lines = 0;
  for (let i = 0; i < 20; i++) {
    const t0 = performance.now();
    const text = renderSnapshot({ ...screen }); // a new screen object: the walk is rebuilt
    best = Math.min(best, performance.now() - t0);
    lines = text.split("\n").length;
  }
  assertGreaterOrEqual(lines, 50);
  assertLessOrEqual(best, 5);
});
