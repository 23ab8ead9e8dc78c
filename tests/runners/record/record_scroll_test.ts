import { assert, assertEquals } from "../../_fixtures/assert.ts";
import { ChromeDriver } from "../../../drivers/chrome/chrome_driver.ts";
import { HumanRecorder } from "../../../drivers/chrome/human_recorder.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import type { StoredEvent } from "../../../events/schemas.ts";
import { eventsToRecording } from "../../../engine/formats/recording_v1.ts";
import { recordingV1ToPlan } from "../../../engine/playback/from_recording_v1.ts";
import { serveFolder } from "../../_fixtures/web_server.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Clicks the first "Buy" button fully inside the viewport and returns its test id. */
async function clickVisibleBuy(d: ChromeDriver, r: HumanRecorder): Promise<string> {
  const hit = await d.page.evaluate(() => {
    for (const b of document.querySelectorAll("button[data-testid]")) {
      const rect = b.getBoundingClientRect();
      if (rect.top >= 0 && rect.bottom <= innerHeight) {
        return {
          id: b.getAttribute("data-testid")!,
          x: rect.x + rect.width / 2,
          y: rect.y + rect.height / 2,
        };
      }
    }
    return undefined;
  });
  assert(hit, "a Buy button is visible");
  await d.page.mouse.click(hit.x, hit.y, { delay: 40 });
  await sleep(300);
  await r.flush();
  return hit.id;
}

/** One wheel gesture: three notches 60 ms apart, then the pause that ends it. */
async function wheel(d: ChromeDriver, r: HumanRecorder, deltaY: number): Promise<number> {
  await d.page.mouse.move(400, 300);
  for (let i = 0; i < 3; i++) {
    await d.page.mouse.wheel({ deltaY: deltaY / 3 });
    await sleep(60);
  }
  await sleep(600);
  await r.flush();
  return await d.page.evaluate(() => scrollY);
}

/**
 * The scroll position a scroll action records. Its other tool params say whether the screen before
 * it is exact (`screenBefore`, `notes`), which depends on timing, not on the scroll.
 */
function position(params: Record<string, unknown> | undefined) {
  return { scrollX: params?.scrollX, scrollY: params?.scrollY };
}

Deno.test("HumanRecorder records one scroll per wheel gesture, between the clicks, and not programmatic scrolls", async () => {
  const dir = await Deno.makeTempDir();
  const server = serveFolder();
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const driver = await ChromeDriver.launch({});
  try {
    const r = await HumanRecorder.start(driver, store, {
      url: server.url + "big.html",
      prompt: "scroll the catalogue",
    });
    await sleep(300);
    await r.flush();
    // a script's scroll (no wheel, touch, key or scrollbar before it) is not a person's
    await driver.page.evaluate(() => scrollTo(0, 120));
    await sleep(600);
    const first = await clickVisibleBuy(driver, r);
    const y1 = await wheel(driver, r, 300);
    const second = await clickVisibleBuy(driver, r);
    const y2 = await wheel(driver, r, 450);
    const third = await clickVisibleBuy(driver, r);
    await r.stop();
    assertEquals(r.errors, []);
    assert(y1 > 120 && y2 > y1, `the page scrolled down twice (${y1}, ${y2})`);

    const events: StoredEvent[] = [];
    for await (const e of store.readStream(r.streamId)) events.push(e);
    const acts = events.flatMap((e) => e.type === "ActionPerformed" ? [e.data] : []);
    assertEquals(acts.map((a) => a.kind), ["tap", "scroll", "tap", "scroll", "tap"]);
    assertEquals(r.actionCount, 5);
    assertEquals(
      [acts[0], acts[2], acts[4]].map((a) => a!.target?.selectors?.testId),
      [first, second, third],
    );
    const scrolls = acts.filter((a) => a.kind === "scroll");
    assertEquals(scrolls.map((s) => position(s.toolParams)), [
      { scrollX: 0, scrollY: y1 },
      { scrollX: 0, scrollY: y2 },
    ]);
    for (const s of scrolls) {
      assertEquals(s.direction, "down");
      assertEquals(s.source, "human");
      assertEquals(s.target, undefined); // the page scrolled, not an element
    }

    // exported as recording_v1 and played back, each is still a scroll down
    const blobs = new Map<string, Uint8Array>();
    for (const e of events) {
      if (e.type === "ScreenCaptured") {
        blobs.set(e.data.hierarchy.hash, (await store.getBlob(e.data.hierarchy.hash)).bytes);
      }
    }
    const rec = eventsToRecording(
      events.map((e) => ({ type: e.type, data: e.data, meta: e.meta }) as never),
      { blobs },
    );
    const json = JSON.parse(JSON.stringify(rec));
    const steps =
      (json.timeline as { kind: string; step?: { action_type: string; value: unknown } }[])
        .filter((t) => t.kind === "human_action").map((t) => t.step!);
    assertEquals(steps.map((s) => s.action_type), ["click", "scroll", "click", "scroll", "click"]);
    assertEquals(steps[1]!.value, "down");
    const plan = recordingV1ToPlan(json);
    const played = plan.actions.filter((a) => a.type === "scroll");
    assertEquals(played.length, 2);
    for (const a of played) {
      assertEquals(a.direction, "down");
      assertEquals(a.target, undefined);
    }
  } finally {
    store.close();
    await driver.close();
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("HumanRecorder records an inner container's scroll with its selectors, and a PageDown scroll of the page", async () => {
  const dir = await Deno.makeTempDir();
  const server = serveFolder();
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const driver = await ChromeDriver.launch({});
  try {
    const r = await HumanRecorder.start(driver, store, {
      url: server.url + "big.html",
      prompt: "scroll the list",
    });
    // a scrolling list at the top of the page (added by the test, as a page's script would)
    await driver.page.evaluate(() => {
      const list = document.createElement("div");
      list.id = "list";
      list.style.cssText = "height:150px;width:300px;overflow:auto";
      list.innerHTML = Array.from({ length: 60 }, (_, i) => `<p>Item ${i}</p>`).join("");
      document.body.prepend(list);
    });
    await sleep(400);
    await r.flush();
    await driver.page.mouse.move(100, 80);
    await driver.page.mouse.wheel({ deltaY: 200 });
    await sleep(600);
    await r.flush();
    const listTop = await driver.page.$eval("#list", (el) => el.scrollTop);
    await driver.page.mouse.click(700, 5); // focus the page, outside the list
    await sleep(300);
    await driver.page.keyboard.press("PageDown");
    await sleep(800);
    await r.flush();
    const pageY = await driver.page.evaluate(() => scrollY);
    await r.stop();
    assertEquals(r.errors, []);
    assert(listTop > 0 && pageY > 0, `both scrolled (${listTop}, ${pageY})`);

    const events: StoredEvent[] = [];
    for await (const e of store.readStream(r.streamId)) events.push(e);
    const scrolls = events.flatMap((e) =>
      e.type === "ActionPerformed" && e.data.kind === "scroll" ? [e.data] : []
    );
    assertEquals(scrolls.length, 2);
    const [list, page] = scrolls;
    assertEquals(list!.target?.selectors?.id, "list");
    assertEquals(list!.target?.selectors?.cssPath, "div#list");
    assertEquals(position(list!.toolParams), { scrollX: 0, scrollY: listTop });
    assertEquals(list!.point, { x: 158, y: 83 });
    assertEquals(list!.direction, "down");
    assertEquals(page!.target, undefined);
    assertEquals(position(page!.toolParams), { scrollX: 0, scrollY: pageY });
    assertEquals(page!.direction, "down");
  } finally {
    store.close();
    await driver.close();
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});
