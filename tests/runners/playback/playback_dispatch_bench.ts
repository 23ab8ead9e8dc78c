/**
 * Dispatch overhead of the playback runner: a 100-action flow through the stand-in driver
 * (an in-memory page with no latency, named so) with a real SQLite store, against the same
 * 100 driver calls made directly. The difference is what the engine adds per action:
 * cascade planning, template and redaction checks, the event appends, the report.
 *
 * Run: `deno bench -A tests/runners/playback/playback_dispatch_bench.ts`
 */
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import type { PlaybackAction } from "../../../engine/playback/actions.ts";
import { runPlayback } from "../../../runners/playback/runner.ts";
import { StandInDriver } from "../../_fixtures/playback_stand_in_driver.ts";

const dir = Deno.makeTempDirSync({ prefix: "cairn-playback-bench-" });
const store = SqliteEventStore.open(`${dir}/cairn.db`);
const elements = Array.from({ length: 40 }, (_, i) => ({
  ident: `b${i}`,
  role: "button",
  name: `Button ${i}`,
  testId: `t${i}`,
  bounds: { x: 10, y: 10 + i * 30, w: 120, h: 24 },
}));
const actions: PlaybackAction[] = Array.from({ length: 100 }, (_, i) => ({
  type: i % 4 === 3 ? "type" : "click",
  target: { testId: `t${i % 40}`, ariaLabel: `Button ${i % 40}` },
  ...(i % 4 === 3 ? { text: "hello" } : {}),
}));

Deno.bench("direct: 100 find + tap calls on the stand-in driver", {
  group: "dispatch",
  baseline: true,
}, async () => {
  const d = new StandInDriver(elements);
  for (const a of actions) {
    const [el] = await d.find({ using: "css", value: `[data-testid="${a.target!.testId}"]` });
    await d.tap({ x: el!.bounds.x + 60, y: el!.bounds.y + 12 });
  }
});

Deno.bench("runPlayback(): 100 actions through the stand-in driver, events in SQLite", {
  group: "dispatch",
}, async () => {
  await runPlayback(new StandInDriver(elements), store, {
    source: { kind: "actions" },
    platform: "web",
    actions,
  });
});

globalThis.addEventListener("unload", () => {
  store.close();
  Deno.removeSync(dir, { recursive: true });
});
