import {
  assert,
  assertEquals,
  assertRejects,
  assertStringIncludes,
} from "../../_fixtures/assert.ts";
import { BlazeSession, SessionEndedError, ToolInputError } from "../../../runners/blaze/session.ts";
import { ChromeDriver } from "../../../drivers/chrome/chrome_driver.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import type { StoredEvent } from "../../../events/schemas.ts";
import { serveFolder } from "../../_fixtures/web_server.ts";
import { refIn } from "../../_fixtures/blaze_refs.ts";

async function events(store: SqliteEventStore, streamId: string): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  for await (const e of store.readStream(streamId)) out.push(e);
  return out;
}

Deno.test("BlazeSession records screen, decision, result and memory for every tool call", async () => {
  const dir = await Deno.makeTempDir();
  const server = serveFolder();
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const driver = await ChromeDriver.launch();
  try {
    const s = await BlazeSession.start(driver, store, {
      url: server.url + "cart.html",
      prompt: "Add two coffees and check the total",
    });
    await s.call("step", { text: "Add two coffees" });
    const snap = await s.call("snapshot", {});
    const plus = refIn(snap.output, "Add one Coffee");
    assert((await s.call("tap", { ref: plus })).ok);
    assert((await s.call("tap", { ref: plus })).ok);
    const diff = (await s.call("snapshot", { diff: true })).output;
    assertStringIncludes(diff, "~ "); // the coffee count and the totals changed
    assertEquals((await s.call("snapshot", { diff: "true" })).output, "unchanged\n");
    const sub = (await s.call("snapshot", { root: plus })).output;
    assertStringIncludes(sub, "Add one Coffee");
    assert(!sub.includes("Checkout"), sub);
    assertEquals((await s.call("snapshot", { root: "q999" })).ok, false);
    await s.call("step", { text: "Check the total is $15.98" });
    const total = refIn((await s.call("snapshot", {})).output, "$15.98");
    const read = await s.call("read", { ref: total, storeAs: "total" });
    assertEquals(read.value, "$15.98");
    assert((await s.call("assert", { ref: total, text: "$15.98" })).ok);
    const wrong = await s.call("assert", { ref: total, text: "$1.00" });
    assertEquals(wrong.ok, false);
    assertStringIncludes(wrong.error ?? "", 'got "$15.98"');
    const missing = await s.call("tap", { ref: "q999" });
    assertEquals(missing.ok, false);
    await s.call("memory", { op: "set", name: "note", value: "two coffees" });
    assertEquals((await s.call("memory", { op: "get", name: "note" })).value, "two coffees");
    await assertRejects(() => s.call("tap", { ref: "Q1" }), ToolInputError, "ref");
    await assertRejects(() => s.call("fly", {}), ToolInputError, "Unknown tool");
    await s.call("end", { reason: "completed" });
    await assertRejects(() => s.call("snapshot", {}), SessionEndedError);

    const log = await events(store, s.streamId);
    const types = log.map((e) => e.type);
    assertEquals(types[0], "SessionStarted");
    assertEquals(types.at(-1), "SessionEnded");
    const actions = log.filter((e) => e.type === "ActionPerformed");
    assertEquals(actions.length, 8); // 2 taps, read, 2 asserts, missing ref, set, get; none for bad input
    for (const a of actions) {
      const i = log.indexOf(a);
      if (a.data.kind.startsWith("memory")) continue;
      assertEquals(log[i - 1]?.type, "ScreenCaptured", `screen before ${a.data.kind}`);
    }
    const tap = actions[0]!;
    assert(tap.type === "ActionPerformed");
    assertEquals(tap.data.kind, "tap");
    assertEquals(tap.data.target?.role, "button");
    assertEquals(tap.data.target?.name, "Add one Coffee");
    assertEquals(tap.data.target?.ref, undefined);
    assertEquals(tap.data.toolParams, { ref: plus });
    assert(tap.data.point && tap.data.point.x > 0);
    assertEquals(tap.data.stepIndex, 0);
    const memories = log.filter((e) => e.type === "MemorySnapshotted");
    assertEquals(memories.length, actions.length);
    const lastMemory = memories.at(-1)!;
    assert(lastMemory.type === "MemorySnapshotted");
    assertEquals(lastMemory.data.memory, { total: "$15.98", note: "two coffees" });
    assertEquals(log.filter((e) => e.type === "StepStarted").length, 2);
    const screen = log.find((e) => e.type === "ScreenCaptured");
    assert(screen?.type === "ScreenCaptured" && screen.data.screenshot);
    const png = await store.getBlob(screen.data.screenshot.hash);
    assertEquals(png.ref.mediaType, "image/png");
  } finally {
    await driver.close();
    store.close();
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("BlazeSession records navigations: links, SPA routes and new tabs", async () => {
  const dir = await Deno.makeTempDir();
  const server = serveFolder();
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const driver = await ChromeDriver.launch();
  try {
    const s = await BlazeSession.start(driver, store, {
      url: server.url + "new_tab.html",
      prompt: "Open the details",
      screenshots: false,
    });
    const shot = await s.call("screenshot", {}); // taken even when screens go without one
    assert(shot.ok && shot.value, shot.output);
    assertEquals((await store.getBlob(shot.value)).ref.mediaType, "image/png");
    const snap = await s.call("snapshot", {});
    const r = await s.call("tap", { ref: refIn(snap.output, "Open details in a new tab") });
    assertEquals(r.url, server.url + "opened.html?via=link");
    const nav = await s.call("navigate", { url: server.url + "redirect?to=/spa" });
    assertEquals(nav.url, server.url + "spa");
    const items = refIn((await s.call("snapshot", {})).output, "Items");
    await s.call("tap", { ref: items });
    await s.end("completed");
    const navs = (await events(store, s.streamId)).filter((e) => e.type === "NavigationOccurred");
    assertEquals(
      navs.map((e) => e.type === "NavigationOccurred" ? [e.data.reason, e.data.url] : []),
      [
        ["navigate", server.url + "new_tab.html"],
        ["new_tab", server.url + "opened.html?via=link"],
        ["navigate", server.url + "spa"],
        ["load", server.url + "spa/items"],
      ],
    );
  } finally {
    await driver.close();
    store.close();
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("BlazeSession scrolls, asserts visibility and refuses off-screen refs", async () => {
  const dir = await Deno.makeTempDir();
  const server = serveFolder();
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const driver = await ChromeDriver.launch();
  try {
    const s = await BlazeSession.start(driver, store, {
      url: server.url + "big.html",
      prompt: "Buy product 90",
      screenshots: false,
      settleMs: 100,
    });
    const compact = (await s.call("snapshot", {})).output;
    assert(/\(\d+ offscreen\)/.test(compact), compact.slice(-200));
    const all = (await s.call("snapshot", { offscreen: "true", bounds: "true" })).output;
    const buy90 = refIn(all, "Buy 90");
    const hidden = await s.call("assert", { ref: buy90, visible: true });
    assertEquals(hidden.ok, false);
    const tapOff = await s.call("tap", { ref: buy90 });
    assertEquals(tapOff.ok, false);
    assertStringIncludes(tapOff.error ?? "", "scroll");
    for (let i = 0; i < 20; i++) {
      const snap = (await s.call("snapshot", {})).output;
      if (snap.includes('"Buy 90"')) break;
      assert((await s.call("scroll", { direction: "down", distance: 600 })).ok);
    }
    const now = refIn((await s.call("snapshot", {})).output, "Buy 90");
    assert((await s.call("assert", { ref: now, visible: true })).ok);
    assert(
      (await s.call("check", { ref: refIn((await s.call("snapshot", {})).output, "Pick 90") })).ok,
    );
    assertEquals(await driver.page.$eval("#pick-90", (e) => (e as HTMLInputElement).checked), true);
    await s.end("completed");
    const log = await events(store, s.streamId);
    const kinds = log.flatMap((e) => e.type === "ActionPerformed" ? [e.data.kind] : []);
    assert(kinds.includes("scroll") && kinds.includes("assertVisible") && kinds.includes("check"));
  } finally {
    await driver.close();
    store.close();
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});
