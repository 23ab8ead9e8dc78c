/**
 * The session rules (`engine/formats/session_rules.ts`) hold for what blaze and the human
 * recorder write: they append through `EventStore.append()`, which does not apply the rules, so
 * their stored streams are checked here as `cairn ingest` and an HTTP append check a session —
 * session event types only, `SessionStarted` first and naming the stream, nothing after
 * `SessionEnded`, each `ActionCompleted` after its `ActionPerformed`, every referenced blob stored,
 * geometry on a page, ISO `recordedAt` — and exported as an events file that reads back in.
 * Real Chromium on 127.0.0.1 pages, a real SQLite file.
 */
import { assert, assertEquals } from "../../_fixtures/assert.ts";
import { ChromeDriver } from "../../../drivers/chrome/chrome_driver.ts";
import { HumanRecorder } from "../../../drivers/chrome/human_recorder.ts";
import { BlazeSession, SessionEndedError } from "../../../runners/blaze/session.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import type { NewEvent, StoredEvent } from "../../../events/schemas.ts";
import { isIsoDateTime } from "../../../events/iso_date_time.ts";
import { checkSessionEvents, findUnstoredBlob } from "../../../engine/formats/session_rules.ts";
import {
  blobRefsIn,
  formatEventsJsonl,
  parseEventsJsonl,
} from "../../../engine/formats/events_jsonl.ts";
import { geometryOutOfRange } from "../../../engine/formats/screen_point.ts";
import { serveFolder } from "../../_fixtures/web_server.ts";
import { refIn } from "../../_fixtures/blaze_refs.ts";

/**
 * Every rule a session stream keeps, on the stream as stored; then its export read back as an
 * events file (what ingest takes).
 *
 * @returns the stored events
 */
async function assertKeepsRules(
  store: SqliteEventStore,
  sessionId: string,
): Promise<StoredEvent[]> {
  const events: StoredEvent[] = [];
  for await (const e of store.readStream(`session-${sessionId}`)) events.push(e);
  assert(events.length > 0, `session-${sessionId} is empty`);
  const where = `session-${sessionId}`;
  const broken = checkSessionEvents(events as unknown as NewEvent[], { sessionId });
  assertEquals(broken, undefined, `${where}: ${JSON.stringify(broken)}`);
  const refs = events.flatMap((e, i) =>
    blobRefsIn(e.data).map((r) => [r.hash, `${i} ${e.type}`] as [string, string])
  );
  assertEquals(await findUnstoredBlob(store, refs), undefined, `${where}: a blob is not stored`);
  let last = "";
  for (const [i, e] of events.entries()) {
    assertEquals(geometryOutOfRange(e.type, e.data), undefined, `${where} event ${i} (${e.type})`);
    assert(isIsoDateTime(e.meta.recordedAt), `${where} event ${i}: ${e.meta.recordedAt}`);
    assert(e.meta.recordedAt >= last || Date.parse(e.meta.recordedAt) >= Date.parse(last));
    last = e.meta.recordedAt;
  }
  // exported and read back in, as `cairn export` then `cairn ingest` would
  const blobs = new Map<string, Uint8Array>();
  for (const [hash] of refs) blobs.set(hash, (await store.getBlob(hash)).bytes);
  const file = parseEventsJsonl(formatEventsJsonl(events, blobs));
  assertEquals(checkSessionEvents(file.events), undefined);
  assertEquals(file.events.length, events.length);
  return events;
}

Deno.test("blaze writes sessions that keep the session rules: calls that fail, a secret, marks, a call after end, a failed start", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn-rules-blaze-" });
  const server = serveFolder();
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const driver = await ChromeDriver.launch();
  try {
    const s = await BlazeSession.start(driver, store, {
      url: server.url + "login.html",
      prompt: "Sign in",
      memory: { email: "ada@example.com" },
      secretMemory: { pin: "Rules-pin-5521" },
    });
    const snap = (await s.call("snapshot", {})).output;
    const ok = async (tool: string, params: Record<string, unknown>) => {
      const r = await s.call(tool as "tap", params as never);
      assert(r.ok, `${tool}: ${r.error}`);
    };
    await ok("type", {
      ref: refIn(snap, "Email"),
      text: "ada@example.com",
      step: "Type the email",
    });
    await ok("type", { ref: refIn(snap, "Password"), text: "Rules-pw-7781", step: "Password" });
    await ok("screenshot", { marks: true });
    await ok("memory", { op: "set", name: "note", value: "kept" });
    // calls that fail are recorded as ActionPerformed + ActionCompleted(ok: false)
    const gone = await s.call("tap", { ref: "y999" });
    assert(!gone.ok, "a tap on a ref no screen has fails");
    const off = await s.call("assert", { ref: refIn(snap, "Email"), text: "not there" } as never);
    assert(!off.ok, "an assertion that does not hold fails");
    await ok("navigate", { url: server.url + "cart.html", step: "Open the cart" });
    await ok("scroll", { direction: "down" });
    await s.end();
    // a call after the end stores nothing
    let refused = false;
    try {
      await s.call("snapshot", {});
    } catch (err) {
      refused = err instanceof SessionEndedError;
    }
    assert(refused, "a call after end is refused");
    await s.end(); // idempotent
    const events = await assertKeepsRules(store, s.id);
    assertEquals(events.at(-1)!.type, "SessionEnded");
    const performed = events.filter((e) => e.type === "ActionPerformed").length;
    assertEquals(events.filter((e) => e.type === "ActionCompleted").length, performed);
    assert(performed >= 7, `${performed} actions`);
    assert(events.some((e) => e.type === "ActionCompleted" && !e.data.ok), "a failed call");

    // a start whose url cannot be opened ends the session failed, and it still keeps the rules
    let failed: string | undefined;
    const before = new Set((await store.streams("session-")).map((x) => x.streamId));
    try {
      await BlazeSession.start(driver, store, { url: "http://127.0.0.1:1/", prompt: "x" });
    } catch (err) {
      failed = String(err);
    }
    assert(failed, "a start on a closed port fails");
    const started = (await store.streams("session-")).find((x) => !before.has(x.streamId));
    assert(started, "the failed start stored its session");
    const bad = await assertKeepsRules(store, started.streamId.slice("session-".length));
    assertEquals(bad.at(-1)!.type, "SessionEnded");
  } finally {
    await driver.close();
    store.close();
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the human recorder writes sessions that keep the session rules: a person's clicks and typing, reports a page forges, two stops at once", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn-rules-record-" });
  const server = serveFolder();
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const driver = await ChromeDriver.launch({ followTabs: "all" });
  try {
    const r = await HumanRecorder.start(driver, store, {
      url: server.url + "login.html",
      prompt: "Sign in",
    });
    const settle = async () => {
      await driver.waitForSettle({ quietMs: 150, timeoutMs: 3_000 });
      await new Promise((res) => setTimeout(res, 150));
      await r.flush();
    };
    await settle();
    const page = driver.page;
    await page.click("#email");
    await page.keyboard.type("ada@example.com", { delay: 5 });
    await settle();
    await page.click("#password");
    await page.keyboard.type("Rec-pw-3317", { delay: 5 });
    await settle();
    // any script of the page can call the recorder's binding: points off every page, times
    // far off, kinds and urls the log has no schema for
    await page.evaluate(() => {
      const send = (m: unknown) =>
        (globalThis as unknown as Record<string, (s: string) => void>).__cairnRecord!(
          JSON.stringify(m),
        );
      const base = { doc: "forged", gen: 1 };
      send({ ...base, type: "action", kind: "keyPress", key: "Enter", x: 1e12, y: -1e12, t: 1e15 });
      send({ ...base, type: "action", kind: "scroll", x: 5, y: 5, scrollX: 1e300, scrollY: 0 });
      send({ ...base, type: "action", kind: "explode", x: 5, y: 5, t: -1e18 });
      send({ ...base, type: "spa", url: 42 });
      send({ ...base, type: "spa", url: "http://127.0.0.1:1/forged", t: Number.MAX_VALUE });
      send("not an object");
    });
    await settle();
    await page.click("button");
    await settle();
    // two stops at once (Ctrl-C while a stop is under way): one SessionEnded
    await Promise.all([r.stop(), r.stop()]);
    const events = await assertKeepsRules(store, r.id);
    assertEquals(events.filter((e) => e.type === "SessionEnded").length, 1);
    assert(events.filter((e) => e.type === "ActionPerformed").length >= 3, "the person's actions");
    // each forged report is said, none stored; the one with a url that is no string is left out
    // (it would have become the next navigation's `from`, and that one unstorable too)
    assertEquals(r.errors.map((e) => e.replace(/:.*/s, "")), [
      "A keyPress at (1000000000000, -1000000000000), off any page",
      "A scroll to (1e+300, 0), off any page",
      "Event 0 (ActionPerformed)",
      "A spa report without a url",
    ]);
    const forged = events.find((e) =>
      e.type === "NavigationOccurred" && e.data.url === "http://127.0.0.1:1/forged"
    );
    assert(forged?.type === "NavigationOccurred" && forged.data.from?.startsWith("http://"));
  } finally {
    await driver.close();
    store.close();
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});
