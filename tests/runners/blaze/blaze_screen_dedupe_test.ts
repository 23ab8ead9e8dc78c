/**
 * A blaze stores one `ScreenCaptured` for the same screen captured again with nothing in between
 * (repeated `snapshot` calls), and time travel still finds that screen at every later position;
 * a screen that changed, or one captured after other events, is stored again.
 */
import { assert, assertEquals } from "../../_fixtures/assert.ts";
import { BlazeSession } from "../../../runners/blaze/session.ts";
import { ChromeDriver } from "../../../drivers/chrome/chrome_driver.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import { stateAt } from "../../../engine/timeline/time_travel.ts";
import { serveFolder } from "../../_fixtures/web_server.ts";
import { refIn } from "../../_fixtures/blaze_refs.ts";

Deno.test("repeated blaze snapshots of an unchanged screen store one ScreenCaptured; time travel still sees it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn_blaze_dedupe_" });
  const server = serveFolder();
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const driver = await ChromeDriver.launch();
  try {
    const s = await BlazeSession.start(driver, store, {
      url: server.url + "cart.html",
      prompt: "Add a coffee",
    });
    const captures = async () =>
      (await Array.fromAsync(store.readStream(s.streamId)))
        .filter((e) => e.type === "ScreenCaptured");
    assertEquals((await captures()).length, 1); // the page opened
    const first = await s.call("snapshot", {});
    await s.call("snapshot", {});
    await s.call("snapshot", { bounds: true });
    // nothing changed and nothing came between: the opening capture is the only one
    assertEquals((await captures()).length, 1);
    // a step comes between: the same screen is captured again (a new position to travel to)
    await s.call("step", { text: "Add a coffee" });
    await s.call("snapshot", {});
    await s.call("snapshot", {});
    assertEquals((await captures()).length, 2);
    // the screen changes: stored
    assert((await s.call("tap", { ref: refIn(first.output, "Add one Coffee") })).ok);
    const afterTap = (await captures()).length;
    await s.call("snapshot", {});
    const caps = await captures();
    assert(caps.length >= afterTap && caps.length <= afterTap + 1, String(caps.length));
    const hashes = caps.map((e) => (e.data as { hierarchy: { hash: string } }).hierarchy.hash);
    assertEquals(hashes[0], hashes[1]);
    assert(hashes.at(-1) !== hashes[0], "the tapped screen is another hierarchy");

    // time travel: at every position the screen is the last capture at or before it
    const log = await Array.fromAsync(store.readStream(s.streamId));
    let expected: string | undefined;
    for (const e of log) {
      if (e.type === "ScreenCaptured") {
        expected = (e.data as { hierarchy: { hash: string } }).hierarchy.hash;
      }
      const state = await stateAt(store, s.streamId, e.position);
      assertEquals(state.screen?.hierarchy?.hash, expected, `at ${e.position} (${e.type})`);
    }
    await s.call("end", { reason: "completed" });
  } finally {
    await driver.close();
    await server.close();
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
});
