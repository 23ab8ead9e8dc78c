/**
 * Rows made of plain `<div>`s and `<span>`s (`<div class=row><span>Banana</span><button>Add
 * </button></div>`): Chrome's accessibility tree drops the row's div and span, so the row's name
 * and its "Add" are siblings under the list there, and only the button's CSS path still names
 * the row. Heuristics v2 anchors the click to the row anyway (`childOf: { text: Banana }`), and
 * the trail replays on the same page with its rows reordered, where an index would hit another
 * row. Real Chromium on a 127.0.0.1 page, a real blaze session in a real SQLite log.
 */
import { assert, assertEquals } from "./assert.ts";
import { BlazeSession } from "../drivers/blaze_session.ts";
import { ChromeDriver } from "../drivers/chrome/chrome_driver.ts";
import { runPlayback } from "../drivers/playback_runner.ts";
import { SqliteEventStore } from "../events/sqlite_event_store.ts";
import { projectSessionTrail } from "../engine/trail_projection.ts";
import { trailToPlan } from "../engine/playback/from_trail.ts";
import type { Selector, Trail } from "../engine/trail.ts";
import { refIn } from "./blaze_refs.ts";
import { serveFolder } from "./web_server.ts";

const PAGE = "fruit_rows.html";

/** Blazes a click on the "Add" of the row `fruit` (the button after its name). */
async function blaze(db: string, url: string, fruit: string): Promise<string> {
  const store = SqliteEventStore.open(db);
  const driver = await ChromeDriver.launch({ viewport: { width: 1280, height: 800 } });
  try {
    const s = await BlazeSession.start(driver, store, { url, prompt: `Add a ${fruit}` });
    const lines = (await s.call("snapshot", {})).output.split("\n");
    const at = lines.findIndex((l) => l.includes(JSON.stringify(fruit)));
    assert(at >= 0, lines.join("\n"));
    const button = lines.slice(at).find((l) => l.includes("button") && l.includes('"Add"'));
    const tap = await s.call("tap", { ref: refIn(button ?? "", "Add"), step: `Add a ${fruit}` });
    assert(tap.ok, tap.error);
    await s.call("end", {});
    return s.id;
  } finally {
    await driver.close();
    store.close();
  }
}

function clickOf(trail: Trail): Selector[] {
  const a = trail.trail.flatMap((s) => s.recording ?? []).find((x) => x.kind === "tap")!;
  assert(a !== undefined, JSON.stringify(trail));
  return a.selectors ?? [a.selector!];
}

/** Replays a trail on `url` and returns what the page says was added. */
async function replay(store: SqliteEventStore, trail: Trail, url: string): Promise<string> {
  const driver = await ChromeDriver.launch({ viewport: { width: 1280, height: 800 } });
  try {
    const report = await runPlayback(
      driver,
      store,
      trailToPlan({ ...trail, config: { ...trail.config, url } }),
    );
    assertEquals(report.results.filter((r) => r.status !== "ok"), []);
    return await driver.page.$eval("#out", (e) => e.textContent ?? "");
  } finally {
    await driver.close();
  }
}

Deno.test("optimize() v2 anchors a click in a plain div/span row to the row's name, and the trail hits that row when the rows are reordered", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn-div-rows-" });
  const server = serveFolder();
  const db = `${dir}/cairn.db`;
  try {
    const sessionId = await blaze(db, `${server.url}${PAGE}`, "Banana");
    const store = SqliteEventStore.open(db);
    try {
      const v2 = (await projectSessionTrail(store, sessionId, { heuristics: "v2" })).trail;
      const sels = clickOf(v2);
      assertEquals(sels[0], { text: "Add", childOf: { text: "Banana" } });
      assert(sels.every((s) => s.index === undefined && s.xy === undefined), JSON.stringify(sels));
      // v1 still counts identical buttons
      const v1 = (await projectSessionTrail(store, sessionId, { heuristics: "v1" })).trail;
      assert(clickOf(v1).every((s) => s.childOf === undefined), JSON.stringify(clickOf(v1)));

      // as recorded, and with Banana moved from the second row to the third (an index of 1
      // would now click Cherry's Add)
      assertEquals(await replay(store, v2, `${server.url}${PAGE}`), "Added Banana");
      const reordered = `${server.url}${PAGE}?order=Date,Cherry,Banana,Apple`;
      assertEquals(await replay(store, v2, reordered), "Added Banana");
      assertEquals(await replay(store, v1, reordered), "Added Cherry");
    } finally {
      store.close();
    }
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});
