/**
 * A human recording whose screen before a click is not the page at the click
 * (`toolParams.screenBefore: earlier`): the page moved its rows down by one row (a banner of
 * its own) between the last capture and the press, so a hit test of the click's point on that
 * screen names the next row's button. The recorder's own target (the selectors its page script
 * read off the clicked element) names the right one, and heuristics v2 takes it: the trail is
 * anchored to the clicked row and replays there, with the rows reordered too. Real Chromium on
 * a 127.0.0.1 page, the real recorder, a real SQLite log.
 */
import { assert, assertEquals } from "../../_fixtures/assert.ts";
import { ChromeDriver } from "../../../drivers/chrome/chrome_driver.ts";
import { HumanRecorder } from "../../../drivers/chrome/human_recorder.ts";
import { runPlayback } from "../../../runners/playback/runner.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import type { EventData, StoredEvent } from "../../../events/schemas.ts";
import { loadScreens, projectSessionTrail } from "../../../engine/optimizer/trail_projection.ts";
import { optimize } from "../../../engine/optimizer/optimize.ts";
import { trailToPlan } from "../../../engine/playback/from_trail.ts";
import type { Selector, Trail } from "../../../engine/trail/trail.ts";
import { serveFolder } from "../../_fixtures/web_server.ts";

const PAGE = "fruit_rows.html";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Records a click on Banana's "Add" right after the page moved its rows down. */
async function recordShiftedClick(
  store: SqliteEventStore,
  url: string,
): Promise<{ id: string; events: StoredEvent[] }> {
  const driver = await ChromeDriver.launch({ viewport: { width: 1280, height: 800 } });
  try {
    const r = await HumanRecorder.start(driver, store, { url, prompt: "Add a banana" });
    // the page settles: the recorder captures it as it stands (rows not moved yet)
    await driver.waitForSettle({ quietMs: 150, timeoutMs: 3_000 });
    await sleep(300);
    await r.flush();
    // the page moves its rows and the person clicks at once, before any capture of the moved
    // page; the press itself changes the page, so no capture after it is the page at the press
    const box = await driver.page.evaluate(() => {
      (globalThis as unknown as { showBanner: () => void }).showBanner();
      const row = [...document.querySelectorAll("#list .row")].find((e) =>
        e.textContent?.startsWith("Banana")
      )!;
      const b = row.querySelector("button")!.getBoundingClientRect();
      return { x: b.x + b.width / 2, y: b.y + b.height / 2 };
    });
    await driver.page.mouse.click(box.x, box.y, { delay: 40 });
    assertEquals(await driver.page.$eval("#out", (e) => e.textContent), "Added Banana");
    await driver.waitForSettle({ quietMs: 150, timeoutMs: 3_000 });
    await sleep(300);
    await r.flush();
    await r.stop();
    const events: StoredEvent[] = [];
    for await (const e of store.readStream(r.streamId)) events.push(e);
    return { id: r.id, events };
  } finally {
    await driver.close();
  }
}

function clickOf(trail: Trail): Selector[] {
  const a = trail.trail.flatMap((s) => s.recording ?? []).find((x) => x.kind === "tap");
  assert(a !== undefined, JSON.stringify(trail));
  return a.selectors ?? [a.selector!];
}

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

Deno.test("optimize() v2 takes the recorder's own target over a hit test on a screen from before the page moved (screenBefore: earlier)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn-recorder-screen-" });
  const server = serveFolder();
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  try {
    const { id, events } = await recordShiftedClick(store, `${server.url}${PAGE}`);
    const taps = events.flatMap((e) =>
      e.type === "ActionPerformed" && e.data.kind === "tap" ? [e.data] : []
    ) as EventData<"ActionPerformed">[];
    assertEquals(taps.length, 1);
    const tap = taps[0]!;
    assertEquals(tap.toolParams?.screenBefore, "earlier");
    // what the page script read off the clicked element: Banana's row (the second)
    assertEquals(tap.target?.selectors?.cssPath, "div#list > div:nth-of-type(2) > button");

    const projection = await projectSessionTrail(store, id, { heuristics: "v2" });
    const sels = clickOf(projection.trail);
    assertEquals(sels[0], { text: "Add", childOf: { text: "Banana" } });
    const lines = projection.explain.find((x) => x.kind === "tap")!.lines.join("\n");
    assert(lines.includes('the recorder\'s target button "Add"'), lines);
    assert(lines.includes("not the hit test"), lines);

    assertEquals(await replay(store, projection.trail, `${server.url}${PAGE}`), "Added Banana");
    const reordered = `${server.url}${PAGE}?order=Date,Cherry,Banana,Apple`;
    assertEquals(await replay(store, projection.trail, reordered), "Added Banana");

    // The same recording, its click changed as the recorder would have written it otherwise.
    const screens = await loadScreens(
      events,
      async (hash) => new TextDecoder().decode((await store.getBlob(hash)).bytes),
    );
    const edited = (change: (d: EventData<"ActionPerformed">) => EventData<"ActionPerformed">) =>
      events.map((e) =>
        e.type === "ActionPerformed" && e.data.kind === "tap" ? { ...e, data: change(e.data) } : e
      );
    const v2 = (evs: StoredEvent[]) => optimize(evs, screens, { heuristics: "v2" });
    // an exact screen (no screenBefore): the hit test stands, as before (here: the row the
    // stale screen shows at the point)
    const exact = v2(edited(({ toolParams: _t, ...d }) => d));
    assertEquals(clickOf(exact.trail)[0], { text: "Add", childOf: { text: "Cherry" } });
    assert(!JSON.stringify(exact).includes("recorder"), JSON.stringify(exact.warnings));
    // the recorder's element is on no node of the screen (a fifth row): its own selectors,
    // unverified, and a warning
    const gone = v2(edited((d) => ({
      ...d,
      target: {
        ...d.target,
        selectors: { ...d.target!.selectors, cssPath: "div#list > div:nth-of-type(5) > button" },
      },
    })));
    const fallback = clickOf(gone.trail);
    assert(
      fallback.some((s) => s.cssPath === "div#list > div:nth-of-type(5) > button"),
      JSON.stringify(fallback),
    );
    assert(fallback.every((s) => s.childOf === undefined), JSON.stringify(fallback));
    assertEquals(
      gone.warnings.filter((w) => w.includes("unverified")).length,
      1,
      gone.warnings.join("\n"),
    );
    // no target of the recorder's own: the hit test stands, with a warning
    const bare = v2(edited((d) => ({ ...d, target: { ...d.target, selectors: {} } })));
    assertEquals(clickOf(bare.trail)[0], { text: "Add", childOf: { text: "Cherry" } });
    assert(
      bare.warnings.some((w) => w.includes("may not be the one acted on")),
      bare.warnings.join("\n"),
    );
  } finally {
    store.close();
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("HumanRecorder reads an action's role and name off the clicked element when its screen before is an earlier one", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn-recorder-name-" });
  const server = serveFolder();
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  try {
    // each button named after its row: the stale screen shows "Add Cherry" at the point
    const { events } = await recordShiftedClick(store, `${server.url}${PAGE}?named`);
    const tap = events.find((e) => e.type === "ActionPerformed" && e.data.kind === "tap");
    assert(tap?.type === "ActionPerformed");
    assertEquals(tap.data.toolParams?.screenBefore, "earlier");
    assertEquals(tap.data.target?.selectors?.name, "Add Banana");
    assertEquals([tap.data.target?.role, tap.data.target?.name], ["button", "Add Banana"]);
  } finally {
    store.close();
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});
