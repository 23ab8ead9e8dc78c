import type { StoredEvent } from "../../../events/schemas.ts";
import { assertEquals } from "../../_fixtures/assert.ts";
import { fragileSelectors } from "../../../engine/playback/fragile.ts";

let position = 0;
function resolved(playback: string, tried: [string, string, number][]): StoredEvent {
  position++;
  return {
    position,
    streamId: `playback-${playback}`,
    streamVersion: position,
    type: "PlaybackActionResolved",
    schemaVersion: 1,
    data: {
      index: 0,
      strategy: "x",
      selector: "x",
      healed: false,
      tried: tried.map(([strategy, selector, matches]) => ({ strategy, selector, matches })),
    },
    meta: { recordedAt: "2026-11-22T00:00:00.000Z" },
  };
}

Deno.test("fragileSelectors() flags a selector failing over half its tries in at least two playbacks", async () => {
  const stats = await fragileSelectors([
    resolved("a", [["test_id", '[data-testid="go"]', 0], ["aria_label", '[aria-label="Go"]', 1]]),
    resolved("b", [["test_id", '[data-testid="go"]', 0], ["aria_label", '[aria-label="Go"]', 1]]),
    resolved("b", [["test_id", '[data-testid="pay"]', 2], ["id", "#pay", 1]]),
    resolved("c", [["id", "#pay", 1]]),
  ]);
  const by = Object.fromEntries(
    stats.map((s) => [s.selector, [s.failures, s.total, s.runs, s.fragile]]),
  );
  assertEquals(by, {
    '[data-testid="go"]': [2, 2, 2, true],
    '[aria-label="Go"]': [0, 2, 2, false],
    '[data-testid="pay"]': [1, 1, 1, false], // one run: not enough to call it fragile
    "#pay": [0, 2, 2, false],
  });
  assertEquals(stats[0]!.selector, '[data-testid="go"]');
});
